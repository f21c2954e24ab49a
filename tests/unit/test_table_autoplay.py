"""Autoplay and presence, the pure parts: the two table events' codec and fold, the
``autoplay_after`` option, the missed-turn count read back from the log, and the
gateways' presence announcements with their expiry and a new owner's grace."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from eventlog import RecordedEvent
from services.table import domain
from services.table.presence import Presence, seat_line
from services.table.store import missed_turns
from table import events, state
from table.events import SeatAutoplayEnded, SeatAutoplayStarted

OPENED: dict[str, Any] = {
    "table_id": "t1",
    "match_id": "t1-1",
    "ruleset": "club",
    "target": 151,
    "seats": [{"kind": "human", "level": None}] * 4,
    "turn_ms": 1000,
    "fallback_level": "medium",
    "rated": False,
    "at_ms": 1,
}


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        (SeatAutoplayStarted(2, 3, 10), {"seat": 2, "missed": 3, "at_ms": 10}),
        (SeatAutoplayEnded(2, "resume", 11), {"seat": 2, "by": "resume", "at_ms": 11}),
        (SeatAutoplayEnded(0, "move", 12), {"seat": 0, "by": "move", "at_ms": 12}),
    ],
    ids=["started", "ended-resume", "ended-move"],
)
def test_the_autoplay_events_round_trip(event: Any, payload: dict[str, Any]) -> None:
    assert events.to_payload(event) == payload
    assert events.from_payload(event.TYPE, payload) == event


def test_an_autoplay_event_that_does_not_fit_is_refused() -> None:
    with pytest.raises(events.TableEventError):
        events.from_payload("SeatAutoplayStarted", {"seat": "two", "missed": 2, "at_ms": 1})


def test_the_fold_keeps_the_seats_on_autoplay() -> None:
    stream = [
        ("TableOpened", {**OPENED, "autoplay_after": 2}),
        ("SeatAutoplayStarted", {"seat": 1, "missed": 2, "at_ms": 5}),
        ("SeatAutoplayStarted", {"seat": 3, "missed": 2, "at_ms": 6}),
        ("SeatAutoplayEnded", {"seat": 1, "by": "resume", "at_ms": 7}),
    ]
    folded = state.fold(stream)
    assert folded.autoplay == frozenset({3})
    assert folded.options is not None and folded.options.autoplay_after == 2
    assert state.fold(stream[:2]).autoplay == frozenset({1})


def test_a_table_opened_before_autoplay_never_plays_a_seat_by_itself() -> None:
    folded = state.fold([("TableOpened", OPENED)])
    assert folded.options is not None and folded.options.autoplay_after == 0


@pytest.mark.parametrize(
    ("given", "expected"),
    [(None, 2), (0, 0), (1, 1), (20, 20)],
    ids=["default", "never", "one", "most"],
)
def test_autoplay_after_is_a_table_option(given: int | None, expected: int) -> None:
    body: dict[str, Any] = {"ruleset": "club"}
    if given is not None:
        body["autoplay_after"] = given
    options = domain.parse_options(body, 30_000, 2)
    assert options.autoplay_after == expected
    opened = domain.opened("t", "t-1", options, None, 1)
    assert events.to_payload(opened)["autoplay_after"] == expected


@pytest.mark.parametrize("bad", [-1, 21, 1.5, "2", True])
def test_autoplay_after_out_of_bounds_is_bad_request(bad: Any) -> None:
    with pytest.raises(domain.TableError) as refused:
        domain.parse_options({"ruleset": "club", "autoplay_after": bad}, 30_000)
    assert refused.value.code == "bad_request" and "autoplay_after" in refused.value.message


def row(position: int, event_type: str, payload: Any = None, **metadata: Any) -> RecordedEvent:
    return RecordedEvent(
        position=position,
        stream_id="s",
        version=position,
        type=event_type,
        payload=payload or {},
        metadata=metadata,
        visibility="public",
        recorded_at=datetime.now(UTC),
        hash=b"",
    )


def test_the_missed_turns_are_read_back_from_the_log_in_commit_order() -> None:
    match = [
        row(1, "CardPlayed", acted_by="timer", bot_level="medium", seat=1, missed=1),
        row(2, "TrickTaken", acted_by="timer", bot_level="medium", seat=1, missed=1),
        row(3, "CardPlayed", acted_by="player", seat=2),
        row(4, "CardPlayed", acted_by="timer", bot_level="medium", seat=2, missed=1),
        row(5, "CardPlayed", acted_by="bot", bot_level="easy"),
        row(6, "CardPlayed", acted_by="timer", bot_level="medium", seat=1, missed=2),
        row(8, "CardPlayed", acted_by="autoplay", bot_level="medium", seat=1),
        row(10, "CardPlayed", acted_by="timer", bot_level="medium", seat=0, missed=1),
        row(11, "CardPlayed", acted_by="player", seat=0),
    ]
    table = [
        row(7, "SeatAutoplayStarted", {"seat": 1, "missed": 2, "at_ms": 1}),
        row(9, "SeatAutoplayEnded", {"seat": 1, "by": "resume", "at_ms": 2}),
    ]
    assert missed_turns([], match[:6]) == {1: 2, 2: 1}
    assert missed_turns(table[:1], match[:7]) == {1: 2, 2: 1}  # autoplay keeps the count
    assert missed_turns(table, match) == {2: 1}  # taken back (1), then a move of its own (0)


def test_a_seat_is_connected_while_a_gateway_names_it() -> None:
    p = Presence(since=0.0, grace=5.0)
    assert p.is_connected("ann", 1.0)  # a new owner's grace: not known yet
    assert not p.is_connected("ann", 5.0)
    p.announce("gw1", ["ann"], 5.0, 5.0)
    p.announce("gw2", ["bob"], 5.0, 6.0)
    assert p.is_connected("ann", 9.9) and p.is_connected("bob", 9.9)
    assert not p.is_connected("ann", 10.0)  # gw1 stopped telling: expired
    assert p.is_connected("bob", 10.0)
    p.announce("gw2", [], 5.0, 10.5)  # bob's socket closed
    assert not p.is_connected("bob", 10.6)
    assert p.gateways == {"gw2": (frozenset(), 15.5)}  # the expired one forgotten


def test_a_seat_line_says_null_for_a_bot() -> None:
    bot = seat_line(1, human=False, connected=True, missed=0, autoplay=False)
    human = seat_line(0, human=True, connected=False, missed=2, autoplay=True)
    assert bot == {"seat": 1, "human": False, "connected": None, "missed": 0, "autoplay": False}
    assert human == {"seat": 0, "human": True, "connected": False, "missed": 2, "autoplay": True}
