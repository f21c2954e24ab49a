"""A table's own events (``table-<id>``), its statuses, and the state they fold into:
what the table service writes and what anyone who reads a table's stream folds (the
gateway's lobby and table pages, the tests). Pure: no I/O, times come in the payloads.

A table hosts one match. Its life::

    TableOpened (+ SeatTaken when the creator sits at once)
    SeatTaken* / SeatLeft*            humans take and leave seats while it is open
    FairDealOpened                    every human seat taken: the commitment is shown
    SeatLeft(forfeit)?                a seat left before the first deck came
    TableMatchFinished                the match ended, however (the rating contract)
    FairDealRevealed                  the server seed, once the randomness service revealed it
    TableClosed                       nothing more happens at this table

The match itself is in ``match-<match_id>``: exactly the game core's events, then at most
one ``MatchForfeited`` (a seat left) or ``MatchAborted`` (public, table-level).
Moves made by a bot or by the turn timer say so in their events' metadata:
``{"acted_by": "bot" | "timer", "bot_level": level}``.

The decisions (who may take a seat, what a create request may ask for) are the table
service's (``services/table/domain.py``); this module is only what its events mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from belot import RULESETS, Ruleset

# --- event types ---------------------------------------------------------------------

TABLE_OPENED: Final = "TableOpened"
SEAT_TAKEN: Final = "SeatTaken"
SEAT_LEFT: Final = "SeatLeft"
FAIR_DEAL_OPENED: Final = "FairDealOpened"
TABLE_MATCH_FINISHED: Final = "TableMatchFinished"
FAIR_DEAL_REVEALED: Final = "FairDealRevealed"
TABLE_CLOSED: Final = "TableClosed"

#: Table-level events of ``match-<id>`` (after the core's last event).
MATCH_FORFEITED: Final = "MatchForfeited"
MATCH_ABORTED: Final = "MatchAborted"
MATCH_ENDED: Final = "MatchEnded"
MATCH_ENDING: Final = frozenset({MATCH_ENDED, MATCH_FORFEITED, MATCH_ABORTED})

HUMAN: Final = "human"
BOT: Final = "bot"


# --- statuses ------------------------------------------------------------------------

OPEN: Final = "open"  # waiting for players
DEALING: Final = "dealing"  # commitment shown, seeds and the first deck on their way
PLAYING: Final = "playing"
FINISHED: Final = "finished"  # the match ended; reveal and closing under way
CLOSED: Final = "closed"


@dataclass(frozen=True, slots=True)
class SeatConfig:
    """A seat as the table was created: a human seat, or a bot of a level. A human seat
    may be reserved for one account (a tournament's table): nobody else may take it."""

    kind: str  # HUMAN or BOT
    level: str | None = None  # the bot's level
    reserved: str | None = None  # the only account that may sit here

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "level": self.level}
        if self.reserved is not None:  # absent otherwise: older payloads stay the same
            out["reserved"] = self.reserved
        return out


@dataclass(frozen=True, slots=True)
class TableOptions:
    ruleset: str
    seats: tuple[SeatConfig, ...]
    target: int
    turn_ms: int
    fallback_level: str
    rated: bool
    bot_delay_ms: int = 0


# --- state ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seat:
    number: int
    config: SeatConfig
    player: str | None = None  # the account seated here (humans)

    @property
    def is_bot(self) -> bool:
        return self.config.kind == BOT


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


def evolve(state: TableState, event_type: str, payload: Mapping[str, Any]) -> TableState:
    """The table after one of its events (unknown types are ignored: newer writers)."""
    if event_type == TABLE_OPENED:
        options = TableOptions(
            ruleset=payload["ruleset"],
            seats=tuple(
                SeatConfig(s["kind"], s.get("level"), s.get("reserved")) for s in payload["seats"]
            ),
            target=payload["target"],
            turn_ms=payload["turn_ms"],
            fallback_level=payload["fallback_level"],
            rated=payload["rated"],
            bot_delay_ms=payload.get("bot_delay_ms", 0),
        )
        return replace(
            state,
            table_id=payload["table_id"],
            match_id=payload["match_id"],
            options=options,
            created_by=payload.get("created_by"),
            opened_at_ms=payload["at_ms"],
            seats=tuple(Seat(n, c) for n, c in enumerate(options.seats)),
            status=OPEN,
        )
    if event_type == SEAT_TAKEN:
        n = payload["seat"]
        seats = tuple(replace(s, player=payload["player"]) if s.number == n else s
                      for s in state.seats)  # fmt: skip
        return replace(state, seats=seats)
    if event_type == SEAT_LEFT:
        n = payload["seat"]
        if payload.get("forfeit"):
            return replace(state, early_leaver=n)
        seats = tuple(replace(s, player=None) if s.number == n else s for s in state.seats)
        return replace(state, seats=seats)
    if event_type == FAIR_DEAL_OPENED:
        return replace(
            state,
            status=DEALING,
            commitment=payload["commitment"],
            window_closes_at_ms=payload["window_closes_at_ms"],
            match_seats=tuple((s["seat"], s["player"]) for s in payload["seats"]),
        )
    if event_type == TABLE_MATCH_FINISHED:
        return replace(state, finished=True, status=FINISHED)
    if event_type == FAIR_DEAL_REVEALED:
        return replace(state, server_seed=payload["server_seed"])
    if event_type == TABLE_CLOSED:
        return replace(state, status=CLOSED, close_reason=payload.get("reason"))
    return state


def fold(events: Sequence[tuple[str, Mapping[str, Any]]]) -> TableState:
    state = TableState()
    for event_type, payload in events:
        state = evolve(state, event_type, payload)
    return state


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
        "seats": [
            {
                "seat": s.number,
                "kind": s.config.kind,
                "level": s.config.level,
                "reserved": s.config.reserved,
                "player": s.player,
            }
            for s in state.seats
        ],
    }
