"""The draw's checker: an honest draw recomputes from its public events; a draw made with
another value, round, field or order fails, naming the check; so does a second naming."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from drand import verify as bls_verify
from fairdeal.draw import draw_order, randomness_of
from fairdeal.drawcheck import CHECKS, DOCUMENT_FORMAT, DrawDocumentError, verify_draw
from tests.tournament_kit import DRAW_T0, SECOND, SIGNATURES, Run, knockout, robin, swiss
from tournament import codec
from tournament import commands as c
from tournament.settings import Seeding

RANDOM = {"seeding": Seeding.RANDOM}


def document(run: Run) -> dict[str, Any]:
    return {
        "format": DOCUMENT_FORMAT,
        "tournament_id": run.state.id,
        "events": [
            {"version": n, "type": e.TYPE, "payload": codec.to_payload(e)}
            for n, e in enumerate(run.events, 1)
        ],
    }


def drawn(settings=None, entrants="abcdefgh", withdraw: str | None = None) -> Run:
    run = Run(settings or knockout(**RANDOM), entrants, now_ms=DRAW_T0)
    run.pair()
    if withdraw:
        run.do(c.withdraw(run.state, withdraw, run.now_ms + SECOND))
    run.draw()
    return run


def payload(doc: dict, type_name: str, n: int = 0) -> dict:
    return [e for e in doc["events"] if e["type"] == type_name][n]["payload"]


def failing(doc: dict) -> tuple[str, ...]:
    report = verify_draw(doc, bls=bls_verify)
    return report.failed


@pytest.mark.parametrize(
    "settings",
    [knockout(**RANDOM), swiss(rounds=3, **RANDOM), robin(table_size=4, **RANDOM)],
    ids=["elimination", "swiss", "teams-round-robin"],
)
def test_an_honest_draw_recomputes(settings) -> None:
    run = drawn(settings, withdraw="c")
    report = verify_draw(document(run), bls=bls_verify)
    assert report.ok, [c.to_json() for c in report.checks if not c.passed]
    assert [c.name for c in report.checks] == list(CHECKS)
    assert report.round == 1001 and report.order == run.state.draw.order
    assert report.to_json()["ok"] is True


def test_without_bls_the_signature_is_not_checked_and_the_report_not_ok() -> None:
    report = verify_draw(document(drawn()))
    assert report.skipped == ("beacon_signature",) and not report.failed and not report.ok


def test_another_randomness_fails() -> None:
    doc = document(drawn())
    payload(doc, "DrawMade")["randomness"] = randomness_of(SIGNATURES[1002]).hex()
    assert failing(doc) == ("beacon", "order")


def test_another_value_made_to_look_consistent_fails_the_signature() -> None:
    """Made up: another beacon's value, its order and start recomputed, under the named
    round's number. Only drand's signature tells."""
    run = drawn()
    doc = document(run)
    made = payload(doc, "DrawMade")
    fake = SIGNATURES[1002]
    order = draw_order(randomness_of(fake), "t1", tuple("abcdefgh"))
    made.update(signature=fake.hex(), randomness=randomness_of(fake).hex(), order=list(order))
    payload(doc, "Started")["order"] = list(order)
    assert failing(doc) == ("beacon_signature",)


def test_another_round_fails() -> None:
    """The operator names a later round than the rule's (its value liked better), and
    draws from that round's real beacon, everything else consistent."""
    run = Run(knockout(**RANDOM), "abcdefgh", now_ms=DRAW_T0)
    run.pair()
    named = run.state.naming
    other = named.round + 1
    forged = Run(knockout(**RANDOM), "abcdefgh", now_ms=DRAW_T0)
    forged.do(
        [type(named)(named.entrants, named.chain, other, named.due_at_ms + 3000, 6000, named.at_ms)]
    )
    forged.draw()
    assert failing(document(forged)) == ("draw_round",)


def test_a_draw_named_at_another_time_than_recorded_fails() -> None:
    doc = document(drawn())
    payload(doc, "DrawRoundNamed")["at_ms"] -= 3 * SECOND  # the rule's round was 1000
    assert failing(doc) == ("draw_round",)


def test_another_field_fails() -> None:
    doc = document(drawn())
    named = payload(doc, "DrawRoundNamed")
    named["entrants"] = [e for e in named["entrants"] if e != "h"]
    assert "entrants" in failing(doc)


def test_a_reordered_result_fails() -> None:
    doc = document(drawn())
    made = payload(doc, "DrawMade")
    made["order"][0], made["order"][1] = made["order"][1], made["order"][0]
    assert failing(doc) == ("order",)
    doc = document(drawn())
    started = payload(doc, "Started")
    started["order"][0], started["order"][1] = started["order"][1], started["order"][0]
    assert failing(doc) == ("started",)


def test_a_second_naming_fails() -> None:
    run = drawn()
    doc = document(run)
    second = copy.deepcopy(payload(doc, "DrawRoundNamed"))
    second["at_ms"] += 3 * SECOND
    second["round"] += 1
    second["due_at_ms"] += 3 * SECOND
    at = next(i for i, e in enumerate(doc["events"]) if e["type"] == "DrawRoundNamed")
    doc["events"].insert(at + 1, {"version": 0, "type": "DrawRoundNamed", "payload": second})
    assert "naming" in failing(doc)
    assert verify_draw(doc, bls=bls_verify).check("naming").differences[0].recorded == 2


def test_a_late_entry_fails() -> None:
    run = Run(knockout(**RANDOM), "abcdefg", now_ms=DRAW_T0)
    run.pair()
    run.do([type(run.events[1])("h", run.now_ms)])  # an Entered the core would refuse
    doc = document(run)
    assert "entrants" in failing(doc)


def test_a_pending_draw_checks_what_there_is() -> None:
    run = Run(knockout(**RANDOM), "abcdefgh", now_ms=DRAW_T0)
    run.pair()
    report = verify_draw(document(run), bls=bls_verify)
    assert [c.name for c in report.checks if c.passed] == [
        "events", "naming", "entrants", "draw_round"
    ]  # fmt: skip
    assert set(report.skipped) == {"beacon", "beacon_signature", "order", "started"}
    assert "not made yet" in report.check("order").detail


def test_a_seeding_that_was_not_drawn_fails() -> None:
    run = Run(knockout(), "abcd", now_ms=DRAW_T0)
    run.pair()
    report = verify_draw(document(run), bls=bls_verify)
    assert report.failed == ("naming",) and not report.ok


def test_events_that_do_not_decode_fail() -> None:
    doc = document(drawn())
    doc["events"][2]["payload"] = {"schema": 1, "entrant": 7, "at_ms": 1}
    assert failing(doc)[0] == "events"
    doc = document(drawn())
    doc["events"][0]["payload"]["tournament_id"] = "other"
    assert failing(doc)[0] == "events"


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"format": "belot-match-record/1"},
        {"format": DOCUMENT_FORMAT, "tournament_id": "", "events": []},
        {"format": DOCUMENT_FORMAT, "tournament_id": "t", "events": {}},
    ],
)
def test_what_is_not_a_draw_document(doc) -> None:
    with pytest.raises(DrawDocumentError):
        verify_draw(doc)
