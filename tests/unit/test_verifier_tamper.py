"""Tamper tests: a record altered in any one place fails verification, and the report
names the check that caught it.

Each alteration is tried twice: as is (the hash chain breaks), and forged (versions,
positions and hashes redone and the summary derived again, as a careful forger would),
where the fair-deal and game checks must catch it on their own."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import drand
from fairdeal.record import RecordError
from fairdeal.verifier import CHECK_CRASHED, CHECKS, verify_record
from fairdeal.verifier.report import FAIL
from tests.tamper import Record, events, find, tampered
from tools.matchgen import MatchSpec, offline_record


@cache
def _base(kind: str) -> str:
    spec = {
        "drand": MatchSpec(ruleset="club", label="tamper"),
        "fallback": MatchSpec(ruleset="club", drand="fallback_late", label="tamper-fb"),
        "forfeit": MatchSpec(ruleset="french", end="forfeit", label="tamper-ff"),
        "gambler": MatchSpec(ruleset="gambler", label="tamper-g"),
    }[kind]
    return json.dumps(offline_record(spec))


def base(kind: str = "drand") -> Record:
    result: Record = json.loads(_base(kind))
    return result


def _other_card(card: str) -> str:
    return "AS" if card != "AS" else "AH"


def card_dealt(r: Record) -> None:
    e = find(r, "match", "CardsDealt", 5)
    e["payload"]["cards"][0] = _other_card(e["payload"]["cards"][0])


def two_cards_dealt_swapped(r: Record) -> None:
    # Two seats' cards exchanged: the deck would still be whole.
    a, b = find(r, "match", "CardsDealt", 0), find(r, "match", "CardsDealt", 1)
    a["payload"]["cards"][0], b["payload"]["cards"][0] = (
        b["payload"]["cards"][0],
        a["payload"]["cards"][0],
    )


def deck_supplied(r: Record) -> None:
    cards = find(r, "match", "DeckSupplied", 2)["payload"]["cards"]
    cards[0], cards[-1] = cards[-1], cards[0]


def card_played(r: Record) -> None:
    e = find(r, "match", "CardPlayed", 40)
    e["payload"]["card"] = _other_card(e["payload"]["card"])


def seat_seed_shown(r: Record) -> None:
    find(r, "randomness", "SeedWindowClosed")["payload"]["seat_seeds"][0] = "00" * 16


def seat_seed_shown_and_sent(r: Record) -> None:
    find(r, "randomness", "SeedWindowClosed")["payload"]["seat_seeds"][0] = "00" * 16
    find(r, "randomness", "SeatSeedReceived")["payload"]["seed"] = "00" * 16


def bot_seat_given_a_seed(r: Record) -> None:
    find(r, "randomness", "SeedWindowClosed")["payload"]["seat_seeds"][1] = "01" * 16


def server_seed(r: Record) -> None:
    find(r, "randomness", "ServerSeedRevealed")["payload"]["server_seed"] = "11" * 32


def round_named(r: Record) -> None:
    e = find(r, "randomness", "DrandRoundNamed")["payload"]
    e["round"] += 1
    e["due_at_ms"] += 3000


def beacon_round(r: Record) -> None:
    find(r, "randomness", "DrandBeaconVerified")["payload"]["round"] = 1002


def randomness(r: Record) -> None:
    find(r, "randomness", "DrandBeaconVerified")["payload"]["randomness"] = "22" * 32


def signature(r: Record) -> None:
    # A flipped bit, with the randomness made to match it: only BLS can tell.
    p = find(r, "randomness", "DrandBeaconVerified")["payload"]
    sig = bytearray(bytes.fromhex(p["signature"]))
    sig[-1] ^= 1
    p["signature"] = sig.hex()
    p["randomness"] = hashlib.sha256(sig).hexdigest()


def beacon_too_late(r: Record) -> None:
    p = find(r, "randomness", "DrandBeaconVerified")["payload"]
    p["at_ms"] += 6_000


def match_event_removed(r: Record) -> None:
    ev = events(r, "match")
    ev.remove(find(r, "match", "CardPlayed", 40))


def match_events_reordered(r: Record) -> None:
    ev = events(r, "match")
    i = ev.index(find(r, "match", "CardPlayed", 40))
    ev[i], ev[i + 1] = ev[i + 1], ev[i]


def bid_changed(r: Record) -> None:
    e = find(r, "match", "Passed", 0)
    e["type"] = e["payload"]["type"] = "ContractTaken"
    e["payload"]["strain"] = "no_trumps"


def deck_issue_removed(r: Record) -> None:
    events(r, "randomness").remove(find(r, "randomness", "DeckIssued", 3))


def deck_issue_before_the_inputs_were_fixed(r: Record) -> None:
    issue = find(r, "randomness", "DeckIssued", 0)
    issue["payload"]["at_ms"] = find(r, "randomness", "DrandRoundNamed")["payload"]["at_ms"]


def final_score(r: Record) -> None:
    e = find(r, "match", "MatchEnded")["payload"]
    e["scores"][0] += 10


def reveal_before_end(r: Record) -> None:
    ev = events(r, "randomness")
    reveal = find(r, "randomness", "ServerSeedRevealed")
    reveal["recorded_at"] = "2001-01-01T00:00:00.000000Z"
    ev.remove(reveal)
    ev.append(reveal)


def private_card_made_public(r: Record) -> None:
    find(r, "match", "CardsDealt", 3)["visibility"] = "public"


def seed_window_closed_missing(r: Record) -> None:
    events(r, "randomness").remove(find(r, "randomness", "SeedWindowClosed"))


CASES: list[tuple[Callable[[Record], None], str]] = [
    (card_dealt, "deals"),
    (two_cards_dealt_swapped, "deals"),
    (deck_supplied, "decks"),
    (card_played, "play"),
    (bid_changed, "play"),
    (seat_seed_shown, "seat_seeds"),
    (seat_seed_shown_and_sent, "decks"),
    (bot_seat_given_a_seed, "seat_seeds"),
    (server_seed, "commitment"),
    (round_named, "drand_round"),
    (beacon_round, "drand_beacon"),
    (randomness, "drand_beacon"),
    (signature, "drand_signature"),
    (beacon_too_late, "drand_beacon"),
    (match_event_removed, "play"),
    (match_events_reordered, "play"),
    (deck_issue_removed, "decks"),
    (deck_issue_before_the_inputs_were_fixed, "decks"),
    (final_score, "play"),
    (final_score, "score"),
    (reveal_before_end, "reveal"),
    (private_card_made_public, "events"),
    (seed_window_closed_missing, "seat_seeds"),
]


@pytest.mark.parametrize(("edit", "check"), CASES, ids=[f"{f.__name__}-{c}" for f, c in CASES])
def test_a_forged_record_fails_the_check_that_guards_it(
    edit: Callable[[Record], None], check: str
) -> None:
    report = verify_record(tampered(base(), edit), bls=drand.verify)
    assert not report.ok
    assert "hash_chain" not in report.failed  # the forger redid the chain
    assert check in report.failed, [(c.name, c.detail) for c in report.checks if not c.passed]
    failed = report.check(check)
    assert failed.status == FAIL and failed.detail
    assert failed.differences or check in ("commitment", "drand_round", "seat_seeds")


@pytest.mark.parametrize(("edit", "check"), CASES[:18], ids=[f.__name__ for f, _ in CASES[:18]])
def test_an_altered_record_breaks_the_hash_chain(
    edit: Callable[[Record], None], check: str
) -> None:
    report = verify_record(tampered(base(), edit, forge=False), bls=drand.verify)
    assert "hash_chain" in report.failed
    assert check in report.failed


def test_the_hash_chain_names_the_altered_event_alone() -> None:
    def edit(r: Record) -> None:
        find(r, "match", "CardPlayed", 10)["payload"]["card"] = "7C"

    report = verify_record(tampered(base(), edit, forge=False), bls=drand.verify)
    chain = report.check("hash_chain")
    assert len(chain.differences) == 1
    version = find(base(), "match", "CardPlayed", 10)["version"]
    assert chain.differences[0].where == f"match-gen-1 version {version}"


def test_an_event_removed_without_forging_says_a_version_is_missing() -> None:
    report = verify_record(tampered(base(), match_event_removed, forge=False), bls=drand.verify)
    assert "an event is missing" in report.check("hash_chain").detail


def test_the_summary_alone_altered_fails_the_summary_check_and_names_the_field() -> None:
    def edit(r: Record) -> None:
        r["deals"][0]["first_cards"][0][0] = (
            "7C" if r["deals"][0]["first_cards"][0][0] != "7C" else "8C"
        )
        r["fair_deal"]["drand"]["round"] = 999

    report = verify_record(tampered(base(), edit, forge=False), bls=drand.verify)
    assert report.failed == ("summary",)
    where = {d.where for d in report.check("summary").differences}
    assert where == {"deals[0].first_cards[0][0]", "fair_deal.drand.round"}


def test_a_fallback_recorded_too_early_fails() -> None:
    def edit(r: Record) -> None:
        find(r, "randomness", "DrandFallback")["payload"]["at_ms"] -= 1_000

    report = verify_record(tampered(base("fallback"), edit), bls=drand.verify)
    assert "drand_beacon" in report.failed
    assert "before the round was due + 5 s" in report.check("drand_beacon").detail


def test_a_fallback_record_with_a_forged_late_value_fails_its_signature() -> None:
    def edit(r: Record) -> None:
        p = find(r, "randomness", "DrandBeaconLate")["payload"]
        sig = bytearray(bytes.fromhex(p["signature"]))
        sig[5] ^= 0x10
        p["signature"], p["randomness"] = sig.hex(), hashlib.sha256(sig).hexdigest()

    report = verify_record(tampered(base("fallback"), edit), bls=drand.verify)
    assert report.failed == ("drand_signature",)


def test_a_fallback_record_claiming_a_drand_round_for_its_decks_fails() -> None:
    # Decks dealt from the fallback cannot be passed off as dealt from the beacon.
    def edit(r: Record) -> None:
        ev = events(r, "randomness")
        fb = find(r, "randomness", "DrandFallback")
        late = find(r, "randomness", "DrandBeaconLate")
        i = ev.index(fb)
        ev[i] = {
            **fb,
            "type": "DrandBeaconVerified",
            "payload": {
                **late["payload"],
                "previous_signature": None,
                "at_ms": fb["payload"]["at_ms"] - 4_000,
            },
        }
        ev.remove(late)

    report = verify_record(tampered(base("fallback"), edit), bls=drand.verify)
    assert "decks" in report.failed and "deals" in report.failed


def test_a_forfeit_given_to_the_leavers_side_fails_the_score() -> None:
    def edit(r: Record) -> None:
        p = find(r, "match", "MatchForfeited")["payload"]
        p["winner_side"] = 1 - p["winner_side"]

    report = verify_record(tampered(base("forfeit"), edit), bls=drand.verify)
    assert report.failed == ("score",)


def test_a_gambler_bottom_card_altered_fails_the_deals() -> None:
    def edit(r: Record) -> None:
        p = find(r, "match", "BottomCardShown")["payload"]
        p["card"] = _other_card(p["card"])

    report = verify_record(tampered(base("gambler"), edit), bls=drand.verify)
    assert "deals" in report.failed and "play" in report.failed


def test_an_event_appended_after_the_end_fails() -> None:
    def edit(r: Record) -> None:
        ev = events(r, "match")
        extra = json.loads(json.dumps(find(r, "match", "CardPlayed", 0)))
        extra["position"] = ev[-1]["position"] + 1
        ev.append(extra)

    report = verify_record(tampered(base(), edit), bls=drand.verify)
    assert "events" in report.failed and "play" in report.failed


# --- a verifier handed garbage never crashes --------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_any_edit_of_any_field_gives_a_report_or_a_record_error(
    data: st.DataObject, seed: int
) -> None:
    r = base("forfeit")
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(1, 3))):
        target = rng.choice(["match", "randomness", "summary"])
        if target == "summary":
            key = rng.choice(["seats", "fair_deal", "deals", "result", "deal_pattern", "status"])
            r[key] = data.draw(_json)
            continue
        event = rng.choice(events(r, target))
        field = rng.choice(
            [
                "payload",
                "type",
                "visibility",
                "version",
                "position",
                "hash",
                "recorded_at",
                "metadata",
                "stream",
            ]
        )
        if field == "payload" and isinstance(event["payload"], dict) and event["payload"]:
            name = rng.choice(sorted(event["payload"]))
            event["payload"][name] = data.draw(_json)
        else:
            event[field] = data.draw(_json)
    forge = data.draw(st.booleans())
    try:
        doc: Any = tampered(r, lambda _: None, forge=forge)
    except (RecordError, TypeError, ValueError, KeyError, AttributeError):
        doc = r  # the forger's own tools choke on it; the verifier must not
    try:
        report = verify_record(doc, bls=drand.verify)
    except RecordError:
        return
    assert len(report.checks) == len(CHECKS)
    crashed = [c.detail for c in report.checks if CHECK_CRASHED in c.detail]
    assert crashed == []
    json.dumps(report.to_json())


def test_a_misere_completion_card_altered_fails_the_deals() -> None:
    r = offline_record(MatchSpec(ruleset="gambler", label="cov-gambler-4"))

    def edit(r: Record) -> None:
        ev = events(r, "match")
        start = ev.index(find(r, "match", "MisereStarted"))
        dealt = next(e for e in ev[start:] if e["type"] == "CardsDealt")
        dealt["payload"]["cards"][-1] = _other_card(dealt["payload"]["cards"][-1])

    report = verify_record(tampered(r, edit), bls=drand.verify)
    assert "deals" in report.failed
    assert "completion cards" in report.check("deals").detail
