"""The table as an event-sourced aggregate: its own events in ``table-<id>``, the state
they fold into, and the decisions on seats (pure: no I/O, times passed in).

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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from belot import RULESETS, Ruleset
from belot.bots import LEVELS
from belot.seats import side_of
from belot_platform import fields

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

#: Limits of a table's options.
MIN_TARGET: Final = 1
MAX_TARGET: Final = 10_000
MIN_TURN_MS: Final = 200
MAX_TURN_MS: Final = 600_000
MAX_BOT_DELAY_MS: Final = 10_000

# --- statuses ------------------------------------------------------------------------

OPEN: Final = "open"  # waiting for players
DEALING: Final = "dealing"  # commitment shown, seeds and the first deck on their way
PLAYING: Final = "playing"
FINISHED: Final = "finished"  # the match ended; reveal and closing under way
CLOSED: Final = "closed"


class TableError(Exception):
    """A table command refused, with a stable snake_case code; nothing is appended."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


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


def parse_options(body: Mapping[str, Any], default_turn_ms: int) -> TableOptions:
    """A table's options from a create request; raises :class:`TableError` (bad_request).

    ``seats``: one item a seat, ``"human"``, ``"bot"`` (medium), ``"bot:easy"`` or an
    object ``{"kind": "bot", "level": "hard"}``.
    """
    name = body.get("ruleset")
    if not isinstance(name, str) or name not in RULESETS:
        raise TableError("bad_request", f"ruleset must be one of {', '.join(sorted(RULESETS))}")
    ruleset = RULESETS[name]
    raw = body.get("seats")
    if raw is None:
        raw = [HUMAN] * ruleset.players
    if not isinstance(raw, list) or len(raw) != ruleset.players:
        raise TableError("bad_request", f"{name} has {ruleset.players} seats: give one item each")
    seats = tuple(_seat_config(item, n) for n, item in enumerate(raw))
    target = _whole(body, "target", ruleset.target, MIN_TARGET, MAX_TARGET)
    turn_ms = default_turn_ms
    if body.get("turn_seconds") is not None:
        secs = body["turn_seconds"]
        if type(secs) not in (int, float) or not MIN_TURN_MS <= secs * 1000 <= MAX_TURN_MS:
            raise TableError("bad_request", "turn_seconds must be a number from 0.2 to 600")
        turn_ms = int(secs * 1000)
    fallback = body.get("fallback_level", "medium")
    if fallback not in LEVELS:
        raise TableError("bad_request", f"fallback_level must be one of {', '.join(LEVELS)}")
    rated = body.get("rated", True)
    if not isinstance(rated, bool):
        raise TableError("bad_request", "rated must be true or false")
    delay = _whole(body, "bot_delay_ms", 0, 0, MAX_BOT_DELAY_MS)
    return TableOptions(name, seats, target, turn_ms, fallback, rated, delay)


def _whole(body: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if value is None:
        value = default
    if type(value) is not int or not low <= value <= high:
        raise TableError("bad_request", f"{name} must be a whole number from {low} to {high}")
    return value


def _seat_config(item: Any, n: int) -> SeatConfig:
    if isinstance(item, str):
        name, _, text = item.partition(":")
        item = {"kind": name, "level": text or None}
    if not isinstance(item, dict):
        raise TableError("bad_request", f"seats[{n}]: 'human', 'bot:<level>' or an object")
    kind = item.get("kind")
    if kind == HUMAN:
        try:  # the account the seat is kept for: an id, bounded like every id
            reserved = fields.optional_text(
                f"seats[{n}].player", item.get("player"), fields.MAX_ID,
                what=f"the account id the seat is kept for (1 to {fields.MAX_ID} characters)",
            )  # fmt: skip
        except fields.FieldError as exc:
            raise TableError(exc.code, exc.message) from None
        return SeatConfig(HUMAN, None, reserved)
    if kind == BOT:
        level = item.get("level") or "medium"
        if level not in LEVELS:
            raise TableError("bad_request", f"seats[{n}]: a bot's level is one of {LEVELS}")
        return SeatConfig(BOT, level)
    raise TableError("bad_request", f"seats[{n}]: kind is 'human' or 'bot'")


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


# --- decisions -----------------------------------------------------------------------


def opened(
    table_id: str, match_id: str, options: TableOptions, created_by: str | None, now_ms: int
) -> dict[str, Any]:
    """The payload of ``TableOpened``."""
    return {
        "table_id": table_id,
        "match_id": match_id,
        "ruleset": options.ruleset,
        "target": options.target,
        "seats": [s.to_json() for s in options.seats],
        "turn_ms": options.turn_ms,
        "fallback_level": options.fallback_level,
        "rated": options.rated,
        "bot_delay_ms": options.bot_delay_ms,
        "created_by": created_by,
        "at_ms": now_ms,
    }


def take_seat(state: TableState, seat: int, player: str, now_ms: int) -> dict[str, Any]:
    """The payload of ``SeatTaken``; raises :class:`TableError`."""
    if not 0 <= seat < len(state.seats):
        raise TableError("unknown_seat", f"this table has seats 0..{len(state.seats) - 1}")
    if state.status != OPEN:
        raise TableError("table_started", "the match has started: seats are taken")
    target = state.seats[seat]
    if target.is_bot:
        raise TableError("bot_seat", f"seat {seat} is a bot's")
    if target.player == player:
        raise TableError("already_seated", f"you already sit at seat {seat}")
    if target.player is not None:
        raise TableError("seat_taken", f"seat {seat} is taken")
    if target.config.reserved is not None and target.config.reserved != player:
        raise TableError("seat_reserved", f"seat {seat} is kept for another player")
    mine = state.seat_of(player)
    if mine is not None:
        raise TableError("already_seated", f"you already sit at seat {mine}")
    return {"seat": seat, "player": player, "at_ms": now_ms}


def seat_for(state: TableState, player: str, seat: int | None) -> int:
    """The seat ``player`` acts for; raises :class:`TableError` (``not_your_seat``)."""
    mine = state.seat_of(player)
    if seat is not None:
        if not 0 <= seat < len(state.seats):
            raise TableError("unknown_seat", f"this table has seats 0..{len(state.seats) - 1}")
        if mine != seat:
            raise TableError("not_your_seat", f"seat {seat} is not yours")
        return seat
    if mine is None:
        raise TableError("not_your_seat", "you have no seat at this table")
    return mine


def winner_side_against(ruleset: Ruleset, leaver: int) -> int:
    """The side that wins when ``leaver`` leaves (docs/specification.md §5: leaving is a loss)."""
    return 1 - side_of(leaver)


def forfeited(ruleset: Ruleset, leaver: int) -> dict[str, Any]:
    return {"leaver": leaver, "winner_side": winner_side_against(ruleset, leaver)}


def match_finished(
    state: TableState,
    *,
    winner: int | None,
    finished: bool,
    leaver: int | None,
    now_ms: int,
) -> dict[str, Any]:
    """The ``TableMatchFinished`` payload: exactly rating.MatchSummary's fields."""
    assert state.options is not None
    return {
        "match_id": state.match_id,
        "ruleset": state.options.ruleset,
        "seats": [{"seat": n, "player": p} for n, p in state.match_seats],
        "winner": winner,
        "finished": finished,
        "leaver": leaver,
        "finished_at_ms": now_ms,
        "rated": state.options.rated,
    }


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


def to_dict(options: TableOptions) -> dict[str, Any]:
    return dataclasses.asdict(options)
