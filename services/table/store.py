"""The table's streams in the event log: load a table (its own stream and its match's)
and append to either with the version the owner last saw.

Streams: ``table-<table_id>`` (the table's events, all public) and
``match-<match_id>`` (the game core's events, then at most one MatchForfeited or
MatchAborted). An append names the version the owner loaded or last wrote, so an owner
that lost its lease and did not notice fails with ``WrongExpectedVersion`` instead of
forking a stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from belot import RULESETS, Event, Match, replay
from belot.codec import from_payload, to_payload
from eventkit import visibility_of
from eventkit.streams import match_stream, table_stream
from eventlog import EventStore, NewEvent, RecordedEvent
from table import events as table_events_codec
from table import state as table_state
from table.events import TableEvent

#: Metadata of events decided for a seat by a bot or by the turn timer.
ACTED_BY: Final = "acted_by"
#: Who made a move (ACTED_BY's values): the seat's player, a bot's seat, the turn timer
#: for a human, the bot playing a human's seat while it is on autoplay.
PLAYER: Final = "player"
BOT: Final = "bot"
TIMER: Final = "timer"
AUTOPLAY: Final = "autoplay"


class LostTable(Exception):
    """This worker no longer owns the table (its lease expired, or a stream moved on)."""


def core_events(events: Sequence[Event], metadata: dict[str, Any] | None = None) -> list[NewEvent]:
    return [NewEvent(e.TYPE, to_payload(e), visibility_of(e), metadata or {}) for e in events]


def table_events(events: Sequence[TableEvent]) -> list[NewEvent]:
    """The table's own events as the log stores them (all public)."""
    return [NewEvent(e.TYPE, table_events_codec.to_payload(e)) for e in events]


def time_ms(event: RecordedEvent) -> int:
    return int(event.recorded_at.timestamp() * 1000)


@dataclass
class Loaded:
    """A table as its streams hold it."""

    table: table_state.TableState
    table_version: int
    match: Match | None = None
    match_version: int = 0
    #: The match's ending event (MatchEnded, MatchForfeited or MatchAborted), if any.
    ending: tuple[str, dict[str, Any]] | None = None
    #: When the match's last event was recorded (the turn timer runs from it).
    last_match_ms: int = 0
    #: Command ids already in the streams (the log's ids).
    command_ids: set[str] = field(default_factory=set)
    #: Each human seat's turns in a row the timer played (:func:`missed_turns`).
    missed: dict[int, int] = field(default_factory=dict)


def missed_turns(
    table_rows: Sequence[RecordedEvent], match_rows: Sequence[RecordedEvent]
) -> dict[int, int]:
    """Each seat's turns in a row the timer played, from the log: a timer's move says
    the count in its metadata (``missed``, with ``seat``), a player's own move (``seat``)
    and a seat taken back (``SeatAutoplayEnded``) set it to 0, an autoplay's move leaves
    it. The two streams are read in the log's position order, which is commit order."""
    missed: dict[int, int] = {}
    rows = [r for r in table_rows if r.type == table_state.SEAT_AUTOPLAY_ENDED]
    rows += [r for r in match_rows if r.metadata.get(ACTED_BY) in (TIMER, PLAYER)]
    for r in sorted(rows, key=lambda r: r.position):
        if r.type == table_state.SEAT_AUTOPLAY_ENDED:
            seat, count = r.payload.get("seat"), 0
        else:
            seat = r.metadata.get("seat")
            timed = r.metadata[ACTED_BY] == TIMER
            count = r.metadata.get("missed", 0) if timed else 0
        if type(seat) is int and type(count) is int:
            missed[seat] = count
    return {s: n for s, n in missed.items() if n}


async def load(store: EventStore, table_id: str) -> Loaded:
    """Read ``table-<id>`` and its match's stream and fold them. An unknown table loads
    as an empty state (``table.exists`` False)."""
    rows = await store.read_stream(table_stream(table_id))
    table = table_state.fold([(r.type, r.payload) for r in rows])
    loaded = Loaded(table, rows[-1].version if rows else 0)
    loaded.command_ids = {r.command_id for r in rows if r.command_id}
    if not table.exists:
        return loaded
    match_rows = await store.read_stream(match_stream(table.match_id))
    if not match_rows:
        return loaded
    events: list[Event] = []
    for r in match_rows:
        if r.command_id:
            loaded.command_ids.add(r.command_id)
        if r.type in (table_state.MATCH_FORFEITED, table_state.MATCH_ABORTED):
            loaded.ending = (r.type, r.payload)
            continue
        events.append(from_payload(r.payload))
    loaded.match = replay(RULESETS[table.options.ruleset if table.options else ""], events)
    loaded.match_version = match_rows[-1].version
    loaded.missed = missed_turns(rows, match_rows)
    loaded.last_match_ms = time_ms(match_rows[-1])
    if loaded.ending is None and loaded.match.result is not None:
        ended = match_rows[-1]
        loaded.ending = (table_state.MATCH_ENDED, ended.payload)
    return loaded
