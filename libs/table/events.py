"""A table's own events, declared on the event kit (:mod:`eventkit`): the facts of
``table-<id>``, and the two table-level events that can end ``match-<id>``.

Their payloads are stored without a schema number (their first shape) and exactly as
the table service has always written them: a seat's configuration leaves out
``reserved`` when nobody is kept a seat, and the fields added after the first tables
were written (``bot_delay_ms``, ``reserved``, ``last_round``, ``chain``) read as their
defaults when absent. ``TableMatchFinished`` is the rating contract: its fields are
``rating.MatchSummary``'s, and the rating service reads the payload as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from eventkit import Codec

HUMAN: Final = "human"
BOT: Final = "bot"


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

    @classmethod
    def from_json(cls, value: Any) -> SeatConfig:
        kind, level, reserved = value["kind"], value.get("level"), value.get("reserved")
        for name, v in (("kind", kind), ("level", level), ("reserved", reserved)):
            if v is not None and not isinstance(v, str):
                raise TypeError(f"a seat's {name} is text, not {v!r}")
        return cls(kind, level, reserved)


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """A seat of the match, and the account in it (None: a bot)."""

    seat: int
    player: str | None


@dataclass(frozen=True, slots=True)
class TableOpened:
    TYPE: ClassVar[str] = "TableOpened"
    table_id: str
    match_id: str
    ruleset: str
    target: int
    seats: tuple[SeatConfig, ...]
    turn_ms: int
    fallback_level: str
    rated: bool
    # Added after the first tables: absent in their payloads (keyword-only, so that the
    # fields keep their stored order and at_ms stays required).
    bot_delay_ms: int = field(default=0, kw_only=True)
    created_by: str | None = field(default=None, kw_only=True)
    #: After this many of a seat's turns in a row played by the timer, a bot plays the
    #: seat until its player takes it back (0: never). Absent in the first tables'
    #: payloads: they had no autoplay.
    autoplay_after: int = field(default=0, kw_only=True)
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeatTaken:
    TYPE: ClassVar[str] = "SeatTaken"
    seat: int
    player: str
    #: The seat's Ed25519 public key, hex (:mod:`fairdeal.leave`): the page that took the
    #: seat made it, and signs the seat's leave with it. Empty when the client sent none
    #: (and in the first tables' payloads).
    key: str = field(default="", kw_only=True)
    #: The player's account name as the gateway knew it when they sat down: watchers are
    #: shown it with the seat, read from no accounts table per view. Empty in the first
    #: tables' payloads (the gateway names those seats itself).
    name: str = field(default="", kw_only=True)
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """A human left a seat: free again while the table is open; after the commitment
    (``forfeit``) the match is lost (docs/specification.md §5)."""

    TYPE: ClassVar[str] = "SeatLeft"
    seat: int
    player: str
    forfeit: bool
    at_ms: int


@dataclass(frozen=True, slots=True)
class BotSeatsOpened:
    """The bots' seats are open to humans until
    ``until_ms``. A human may take one (``SeatTaken`` on a bot's seat: the seat is then
    the human's, and a bot's again if they leave); the match starts at ``until_ms``, or
    as soon as every seat is a human's. Appended with ``TableOpened``."""

    TYPE: ClassVar[str] = "BotSeatsOpened"
    until_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """The table plays a game of a tournament (its id and name, as the tournament
    service named them when it opened the table). Appended with ``TableOpened``; tables
    opened before this event know their tournament only by ``created_by``
    (``tournament:<id>``)."""

    TYPE: ClassVar[str] = "TournamentTable"
    tournament_id: str
    name: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class FairDealOpened:
    """Every human seat is taken: the randomness service's commitment, shown."""

    TYPE: ClassVar[str] = "FairDealOpened"
    match_id: str
    commitment: str
    window_closes_at_ms: int
    # Added after the first tables (absent in their payloads).
    last_round: int | None = field(default=None, kw_only=True)
    chain: str | None = field(default=None, kw_only=True)
    seats: tuple[MatchSeat, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableMatchFinished:
    """The match ended, however: the rating contract (``rating.MatchSummary``)."""

    TYPE: ClassVar[str] = "TableMatchFinished"
    match_id: str
    ruleset: str
    seats: tuple[MatchSeat, ...]
    winner: int | None
    finished: bool
    leaver: int | None
    finished_at_ms: int
    rated: bool


@dataclass(frozen=True, slots=True)
class FairDealRevealed:
    TYPE: ClassVar[str] = "FairDealRevealed"
    match_id: str
    server_seed: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class TableClosed:
    TYPE: ClassVar[str] = "TableClosed"
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchForfeited:
    """In ``match-<id>``, after the core's last event: a seat left, its side lost."""

    TYPE: ClassVar[str] = "MatchForfeited"
    leaver: int
    winner_side: int
    #: The leaver's signature (hex) over :func:`fairdeal.leave.leave_message`, with the
    #: key the commitment recorded for its seat: the seat asked. Empty for a seat with no
    #: key (and in forfeits recorded before keys).
    signature: str = ""


@dataclass(frozen=True, slots=True)
class MatchAborted:
    """In ``match-<id>``: ended with no winner; who asked and why are recorded."""

    TYPE: ClassVar[str] = "MatchAborted"
    reason: str
    by: str


@dataclass(frozen=True, slots=True)
class SeatAutoplayStarted:
    """The timer played ``missed`` of ``seat``'s turns in a row (the table's
    ``autoplay_after``): a bot of the table's fallback level plays the seat, at the bots'
    pace, until its player takes it back."""

    TYPE: ClassVar[str] = "SeatAutoplayStarted"
    seat: int
    missed: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeatAutoplayEnded:
    """``seat``'s player took it back: ``by`` ``"resume"`` (asked to) or ``"move"``
    (made a move of its own)."""

    TYPE: ClassVar[str] = "SeatAutoplayEnded"
    seat: int
    by: str
    at_ms: int


TableEvent = (
    TableOpened
    | BotSeatsOpened
    | TournamentTable
    | SeatTaken
    | SeatLeft
    | FairDealOpened
    | TableMatchFinished
    | FairDealRevealed
    | TableClosed
    | MatchForfeited
    | MatchAborted
    | SeatAutoplayStarted
    | SeatAutoplayEnded
)


class TableEventError(ValueError):
    """A stored table event that does not fit its type; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


CODEC: Final = Codec(
    (
        TableOpened,
        BotSeatsOpened,
        TournamentTable,
        SeatTaken,
        SeatLeft,
        FairDealOpened,
        TableMatchFinished,
        FairDealRevealed,
        TableClosed,
        MatchForfeited,
        MatchAborted,
        SeatAutoplayStarted,
        SeatAutoplayEnded,
    ),
    converters={SeatConfig: (SeatConfig.to_json, SeatConfig.from_json)},
    schema_field=False,
    error=TableEventError,
)


def to_payload(event: TableEvent) -> dict[str, Any]:
    return CODEC.to_payload(event)


def from_payload(event_type: str, payload: dict[str, Any]) -> TableEvent:
    """The event; raises :class:`TableEventError` (``unknown_event``, ``bad_payload``)."""
    event: TableEvent = CODEC.from_payload(payload, event_type)
    return event
