"""A table's own events (``table-<id>``), its statuses, and the state they fold into:
what the table service writes and what anyone who reads a table's stream folds (the
gateway's lobby and table pages, the tests). Pure: no I/O, times come in the payloads.

A table hosts one match. Its life::

    TableOpened (+ SeatTaken when the creator sits at once, + BotSeatsOpened for
                 "play now", + TournamentTable for a tournament's game)
    SeatTaken* / SeatLeft*            humans take and leave seats while it is open
    FairDealOpened                    every human seat taken: the commitment is shown
    SeatAutoplayStarted / Ended*      a bot plays a seat whose timer ran out too often,
                                      until its player takes it back
    SeatLeft(forfeit)?                a seat left before the first deck came
    TableMatchFinished                the match ended, however (the rating contract)
    FairDealRevealed                  the server seed, once the randomness service revealed it
    TableClosed                       nothing more happens at this table

The match itself is in ``match-<match_id>``: exactly the game core's events, then at most
one ``MatchForfeited`` (a seat left) or ``MatchAborted`` (public, table-level).
Moves made by a bot or by the turn timer say so in their events' metadata:
``{"acted_by": "bot" | "timer" | "autoplay", "bot_level": level}`` (a timer's and an
autoplay's move add ``"seat"``, the timer's ``"missed"``: the seat's turns the timer
played in a row, this one included; a player's move says ``{"acted_by": "player",
"seat": n}``).

The decisions (who may take a seat, what a create request may ask for) are the table
service's (``services/table/domain.py``); this module is only what its events mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from belot import RULESETS, Ruleset
from eventkit.streams import MATCH_ENDINGS
from table.events import (
    BOT,
    CODEC,
    BotSeatsOpened,
    FairDealOpened,
    FairDealRevealed,
    MatchAborted,
    MatchForfeited,
    SeatAutoplayEnded,
    SeatAutoplayStarted,
    SeatConfig,
    SeatLeft,
    SeatTaken,
    TableClosed,
    TableEvent,
    TableMatchFinished,
    TableOpened,
    TournamentTable,
    from_payload,
)
from table.events import HUMAN as HUMAN  # re-exported: the seat kinds live with the events

# --- event types (declared in table.events) ------------------------------------------

TABLE_OPENED: Final = TableOpened.TYPE
BOT_SEATS_OPENED: Final = BotSeatsOpened.TYPE
TOURNAMENT_TABLE: Final = TournamentTable.TYPE
SEAT_TAKEN: Final = SeatTaken.TYPE
SEAT_LEFT: Final = SeatLeft.TYPE
FAIR_DEAL_OPENED: Final = FairDealOpened.TYPE
TABLE_MATCH_FINISHED: Final = TableMatchFinished.TYPE
FAIR_DEAL_REVEALED: Final = FairDealRevealed.TYPE
TABLE_CLOSED: Final = TableClosed.TYPE
SEAT_AUTOPLAY_STARTED: Final = SeatAutoplayStarted.TYPE
SEAT_AUTOPLAY_ENDED: Final = SeatAutoplayEnded.TYPE

#: Table-level events of ``match-<id>`` (after the core's last event).
MATCH_FORFEITED: Final = MatchForfeited.TYPE
MATCH_ABORTED: Final = MatchAborted.TYPE
MATCH_ENDED: Final = "MatchEnded"  # the core's own (belot.events.MatchEnded)
MATCH_ENDING: Final = MATCH_ENDINGS


# --- statuses ------------------------------------------------------------------------

OPEN: Final = "open"  # waiting for players
DEALING: Final = "dealing"  # commitment shown, seeds and the first deck on their way
PLAYING: Final = "playing"
FINISHED: Final = "finished"  # the match ended; reveal and closing under way
CLOSED: Final = "closed"


@dataclass(frozen=True, slots=True)
class TableOptions:
    ruleset: str
    seats: tuple[SeatConfig, ...]
    target: int
    turn_ms: int
    fallback_level: str
    rated: bool
    bot_delay_ms: int = 0
    #: Turns in a row the timer plays for a seat before a bot takes it (0: never).
    autoplay_after: int = 0


# --- state ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    number: int
    config: SeatConfig
    player: str | None = None  # the account seated here (humans)
    key: str = ""  # its Ed25519 public key, hex, if its page sent one (SeatTaken)
    name: str = ""  # its player's account name, if SeatTaken said it

    @property
    def is_bot(self) -> bool:
        """A bot plays this seat: a bot's seat no human took (BotSeatsOpened)."""
        return self.config.kind == BOT and self.player is None


@dataclass(frozen=True, slots=True)
class TableState:
    table_id: str = ""
    match_id: str = ""
    options: TableOptions | None = None
    created_by: str | None = None
    opened_at_ms: int = 0
    seats: tuple[Seat, ...] = ()
    status: str = ""  # "" until TableOpened
    commitment: str | None = None
    window_closes_at_ms: int | None = None
    #: The seats and players the match was opened with (FairDealOpened).
    match_seats: tuple[tuple[int, str | None], ...] = ()
    #: A seat that left after the commitment and before the first deck.
    early_leaver: int | None = None
    finished: bool = False
    server_seed: str | None = None
    close_reason: str | None = None
    #: The seats a bot plays for their player now (SeatAutoplayStarted, until Ended).
    autoplay: frozenset[int] = frozenset()
    #: Until when humans may take the bots' seats ("play now": BotSeatsOpened).
    open_until_ms: int | None = None
    #: The tournament the table plays a game of (TournamentTable, else ``created_by``).
    tournament_id: str | None = None
    tournament_name: str | None = None

    @property
    def exists(self) -> bool:
        return self.options is not None

    @property
    def ruleset(self) -> Ruleset:
        assert self.options is not None
        return RULESETS[self.options.ruleset]

    def seat_of(self, player: str) -> int | None:
        for s in self.seats:
            if s.player == player:
                return s.number
        return None

    @property
    def all_seated(self) -> bool:
        return all(s.is_bot or s.player is not None for s in self.seats)

    @property
    def humans_seated(self) -> int:
        return sum(1 for s in self.seats if not s.is_bot and s.player is not None)

    def is_open_to_humans(self, seat: Seat, now_ms: int) -> bool:
        """May a human take this bot's seat now (BotSeatsOpened, before its end)?"""
        return (
            seat.is_bot
            and self.status == OPEN
            and self.open_until_ms is not None
            and now_ms < self.open_until_ms
        )

    def wait_for_humans_ms(self, now_ms: int) -> int:
        """How long the match still waits for humans to take the bots' seats: 0 when
        they are not open, their time is up, or every seat is a human's."""
        if self.open_until_ms is None or all(not s.is_bot for s in self.seats):
            return 0
        return max(0, self.open_until_ms - now_ms)


def apply(state: TableState, event: TableEvent) -> TableState:
    """The table after one of its events."""
    match event:
        case TableOpened():
            options = TableOptions(
                ruleset=event.ruleset,
                seats=event.seats,
                target=event.target,
                turn_ms=event.turn_ms,
                fallback_level=event.fallback_level,
                rated=event.rated,
                bot_delay_ms=event.bot_delay_ms,
                autoplay_after=event.autoplay_after,
            )
            return replace(
                state,
                table_id=event.table_id,
                match_id=event.match_id,
                options=options,
                created_by=event.created_by,
                opened_at_ms=event.at_ms,
                seats=tuple(Seat(n, c) for n, c in enumerate(options.seats)),
                status=OPEN,
                tournament_id=_tournament_of(event.created_by),
            )
        case BotSeatsOpened():
            return replace(state, open_until_ms=event.until_ms)
        case TournamentTable():
            return replace(state, tournament_id=event.tournament_id, tournament_name=event.name)
        case SeatTaken():
            seats = tuple(replace(s, player=event.player, key=event.key, name=event.name)
                          if s.number == event.seat else s
                          for s in state.seats)  # fmt: skip
            return replace(state, seats=seats)
        case SeatLeft():
            if event.forfeit:
                return replace(state, early_leaver=event.seat)
            seats = tuple(replace(s, player=None, key="", name="") if s.number == event.seat else s
                          for s in state.seats)  # fmt: skip
            return replace(state, seats=seats)
        case FairDealOpened():
            return replace(
                state,
                status=DEALING,
                commitment=event.commitment,
                window_closes_at_ms=event.window_closes_at_ms,
                match_seats=tuple((s.seat, s.player) for s in event.seats),
            )
        case TableMatchFinished():
            return replace(state, finished=True, status=FINISHED)
        case FairDealRevealed():
            return replace(state, server_seed=event.server_seed)
        case TableClosed():
            return replace(state, status=CLOSED, close_reason=event.reason)
        case SeatAutoplayStarted():
            return replace(state, autoplay=state.autoplay | {event.seat})
        case SeatAutoplayEnded():
            return replace(state, autoplay=state.autoplay - {event.seat})
    return state  # the match stream's table-level events change nothing here


def evolve(state: TableState, event_type: str, payload: Mapping[str, Any]) -> TableState:
    """The table after one of its stored events (types it does not know are ignored:
    newer writers); raises :class:`table.events.TableEventError` for a payload that
    does not fit its type."""
    if event_type not in CODEC.types:
        return state
    return apply(state, from_payload(event_type, dict(payload)))


def fold(events: Sequence[tuple[str, Mapping[str, Any]]]) -> TableState:
    state = TableState()
    for event_type, payload in events:
        state = evolve(state, event_type, payload)
    return state


def _tournament_of(created_by: str | None) -> str | None:
    """The tournament a table was opened by (its creator ``tournament:<id>``)."""
    if created_by is not None and created_by.startswith("tournament:"):
        return created_by.removeprefix("tournament:") or None
    return None


def summary(state: TableState, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The lobby's line for a table: ruleset, seats, state (public)."""
    assert state.options is not None
    return {
        "table_id": state.table_id,
        "match_id": state.match_id,
        "ruleset": state.options.ruleset,
        "target": state.options.target,
        "turn_ms": state.options.turn_ms,
        "fallback_level": state.options.fallback_level,
        "rated": state.options.rated,
        "status": state.status,
        "opened_at_ms": state.opened_at_ms,
        "commitment": state.commitment,
        "open_until_ms": state.open_until_ms,
        "tournament_id": state.tournament_id,
        "tournament_name": state.tournament_name,
        "seats": [
            {
                "seat": s.number,
                # Who plays it now: a human who took a bot's seat makes it a human's.
                "kind": BOT if s.is_bot else HUMAN,
                "level": s.config.level,
                "reserved": s.config.reserved,
                "player": s.player,
                "name": s.name or None,
                # A bot's seat a human may take while the table waits ("play now").
                "open": s.is_bot and state.open_until_ms is not None,
            }
            for s in state.seats
        ],
    }
