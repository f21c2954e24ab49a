"""The rating service's domain glue: the ``TableMatchFinished`` codec never raises and
gives every payload a verdict; one delivery decides once (no servers needed)."""

from __future__ import annotations

from typing import Any

import pytest

from rating import DEFAULT_SETTINGS, MatchNotRated, MatchRated, MatchSummary, Seat, empty, evolve
from services.rating.domain import (
    MALFORMED_STREAM,
    Malformed,
    decide_delivery,
    partial_state,
    stream_of,
    summary_from_payload,
    summary_to_payload,
)

T0 = 1_767_225_600_000


def good(**changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "match_id": "m-1",
        "ruleset": "club",
        "seats": [{"seat": i, "player": p} for i, p in enumerate(["a", "b", "c", "d"])],
        "winner": 0,
        "finished": True,
        "leaver": None,
        "finished_at_ms": T0,
        "rated": True,
    }
    payload.update(changes)
    return payload


def test_a_good_payload_round_trips() -> None:
    summary = summary_from_payload(good(), source="table-1@9")
    assert summary == MatchSummary(
        "m-1", "club", tuple(Seat(i, p) for i, p in enumerate("abcd")), 0, True, None, T0, True
    )
    assert summary_to_payload(summary) == good()


@pytest.mark.parametrize(
    ("payload", "match_id", "detail"),
    [
        pytest.param([1, 2], "table-1@9", "not a JSON object", id="not-an-object"),
        pytest.param(good(match_id=""), "table-1@9", "match_id", id="empty-match-id"),
        pytest.param(good(match_id=7), "table-1@9", "match_id", id="match-id-not-text"),
        pytest.param(good(match_id="m" * 201), "table-1@9", "match_id", id="match-id-too-long"),
        pytest.param(good(ruleset="poker"), "m-1", "no rating pool", id="unknown-ruleset"),
        pytest.param(good(ruleset=None), "m-1", "no rating pool", id="no-ruleset"),
        pytest.param(good(finished_at_ms=1.5), "m-1", "finished_at_ms", id="time-float"),
        pytest.param(good(finished_at_ms=-1), "m-1", "finished_at_ms", id="time-negative"),
        pytest.param(good(finished="yes"), "m-1", "finished", id="finished-not-bool"),
        pytest.param(good(rated=None), "m-1", "rated", id="rated-null"),
        pytest.param(good(winner=True), "m-1", "winner", id="winner-bool"),
        pytest.param(good(winner="0"), "m-1", "winner", id="winner-text"),
        pytest.param(good(leaver=0.0), "m-1", "leaver", id="leaver-float"),
        pytest.param(good(seats="abcd"), "m-1", "seats", id="seats-not-a-list"),
        pytest.param(good(seats=[{"player": "a"}]), "m-1", "seat", id="seat-without-number"),
        pytest.param(good(seats=[{"seat": 0, "player": 5}]), "m-1", "player", id="player-number"),
        pytest.param(good(seats=[{"seat": 0}]), "m-1", "player", id="player-missing"),
    ],
)
def test_a_bad_payload_is_malformed_never_an_exception(
    payload: object, match_id: str, detail: str
) -> None:
    delivery = summary_from_payload(payload, source="table-1@9")
    assert isinstance(delivery, Malformed)
    assert delivery.match_id == match_id and detail in delivery.detail
    (event,) = decide_delivery(empty(), delivery)
    assert isinstance(event, MatchNotRated)
    assert (event.match_id, event.reason) == (match_id, "malformed")


def test_shapes_pass_and_the_core_judges_the_rest() -> None:
    # A player twice is the core's business (eligibility): the codec lets it through.
    twice = good(seats=[{"seat": i, "player": p} for i, p in enumerate("abca")])
    (event,) = decide_delivery(empty(), summary_from_payload(twice, source="x@1"))
    assert isinstance(event, MatchNotRated) and event.reason == "malformed"
    assert "two seats" in event.detail


def test_streams() -> None:
    assert stream_of("club") == "rating-club" and stream_of("gambler") == "rating-gambler"
    assert stream_of("poker") == stream_of("") == MALFORMED_STREAM


def test_a_seen_match_decides_nothing_and_side_sizes_are_fixed_per_pool() -> None:
    summary = summary_from_payload(good(), source="t@1")
    assert isinstance(summary, MatchSummary)
    state = partial_state(DEFAULT_SETTINGS, "club", {}, seen=False, match_id="m-1")
    (event,) = decide_delivery(state, summary)
    assert isinstance(event, MatchRated)
    assert decide_delivery(evolve(state, event), summary) == ()
    seen = partial_state(DEFAULT_SETTINGS, "club", {}, seen=True, match_id="m-1")
    assert decide_delivery(seen, summary) == ()
    # Gambler is one against one from its first match on: four seats are refused.
    four = summary_from_payload(good(ruleset="gambler", match_id="g-1"), source="t@2")
    fresh = partial_state(DEFAULT_SETTINGS, "gambler", {}, seen=False, match_id="g-1")
    (refused,) = decide_delivery(fresh, four)
    assert isinstance(refused, MatchNotRated) and refused.reason == "side-size"
