"""The facts a tournament is made of: frozen, past tense, versioned (one codec: codec.py).

A tournament's stream, in order::

    TournamentCreated                 the settings
    SettingsChanged*                  the organiser's edits, before the start only
    Entered* / Withdrew*              registration (withdrawing later is allowed too)
    DrawRoundNamed                    random seeding: entries closed, the entrants fixed,
                                      the drand round that will order them named
    Withdrew*                         (random seeding) withdrawals while the round is
                                      awaited: kept, applied after the draw
    DrawMade                          random seeding: the round's value, the order it gives
    Started                           seeding fixed; teams formed; round-robin schedule
                                      drawn; ladder window opened
    RoundPaired                       a round's matches (byes: a side with nobody)
    MatchReported* | SeatNoShow* | Withdrew* | RoundTimedOut
                                      how each match was decided
    ResultCorrected*                  an organiser's correction of a recorded game
    LadderMatchReported*              ladder only: a rated match from the lobby
    TournamentFinished                why it ended, and the final order

Times are whole unix milliseconds from the service's clock (integers: the event log
hashes exact JSON and refuses floats), carried in the events: the core never
reads a clock, so a deadline is data (a round's ``ends_at_ms``, a table's opening time)
that survives a restart of the service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tournament.settings import Outcome, Settings


@dataclass(frozen=True, slots=True)
class Team:
    """Two players who play as one entrant at tables of four, for the whole tournament."""

    id: str
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: side ``a`` against side ``b``.

    A side is a tuple of entrant ids: one entrant, or two players at the rotating-partners
    round-robin. ``b == ()`` is a bye: ``a`` sits the round out and scores a win.
    """

    match: int
    a: tuple[str, ...]
    b: tuple[str, ...]

    @property
    def is_bye(self) -> bool:
        return not self.b

    @property
    def entrants(self) -> tuple[str, ...]:
        return (*self.a, *self.b)


@dataclass(frozen=True, slots=True)
class LadderScore:
    """One entrant's part in a ladder match; ``left`` means they left it (a loss)."""

    entrant: str
    outcome: Outcome
    left: bool = False


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    TYPE: ClassVar[str] = "TournamentCreated"
    SCHEMA: ClassVar[int] = 1
    tournament_id: str
    settings: Settings
    at_ms: int


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The organiser changed the tournament's numbers before it started (the new
    settings replace the old ones whole; entrants already in stay in)."""

    TYPE: ClassVar[str] = "SettingsChanged"
    SCHEMA: ClassVar[int] = 1
    settings: Settings
    at_ms: int


@dataclass(frozen=True, slots=True)
class Entered:
    TYPE: ClassVar[str] = "Entered"
    SCHEMA: ClassVar[int] = 1
    entrant: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class Withdrew:
    """The entrant (a team, where teams play) stops; it keeps its score, is not paired
    again, and loses the match it was in, if that match was still undecided."""

    TYPE: ClassVar[str] = "Withdrew"
    SCHEMA: ClassVar[int] = 1
    entrant: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class Started:
    TYPE: ClassVar[str] = "Started"
    SCHEMA: ClassVar[int] = 1
    #: The entrants in seed order (seed 1 first); teams where teams play.
    order: tuple[str, ...]
    teams: tuple[Team, ...]
    #: Round-robin: every round's pairings, drawn before round 1 and never changed.
    schedule: tuple[tuple[Pairing, ...], ...]
    #: Ladder: the end of its window; None for formats with rounds.
    ends_at_ms: int | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrawRoundNamed:
    """A random seeding's entries close: ``entrants`` (entry order) are the field, fixed,
    and the draw will order them with the value of drand round ``round`` of ``chain``:
    the first due more than ``round_lead_ms`` after ``at_ms`` (``fairdeal.draw``), whose
    value nobody knows now. Once per tournament."""

    TYPE: ClassVar[str] = "DrawRoundNamed"
    SCHEMA: ClassVar[int] = 1
    entrants: tuple[str, ...]
    chain: str
    round: int
    due_at_ms: int
    round_lead_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrawMade:
    """The named round's beacon (its BLS ``signature``, checked by the service against
    the chain's pinned key, and ``randomness`` = SHA-256 of it) and the seed order the
    recipe gives from it: the named entrants, seed 1 first (``fairdeal.draw.draw_order``).
    ``Started`` follows in the same append, from this order."""

    TYPE: ClassVar[str] = "DrawMade"
    SCHEMA: ClassVar[int] = 1
    chain: str
    round: int
    signature: bytes
    randomness: bytes
    order: tuple[str, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """A round's matches; every table opens now_ms, and the round ends at ``ends_at_ms``."""

    TYPE: ClassVar[str] = "RoundPaired"
    SCHEMA: ClassVar[int] = 1
    round: int
    pairings: tuple[Pairing, ...]
    ends_at_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchReported:
    """A game's result from the table: each side's outcome and belot points.

    ``game`` counts from 1 within a meeting (elimination: best of three, replays);
    elsewhere it is always 1. ``no_show`` names entrants that never turned up (they are
    out of the tournament); ``timed_out`` marks a game stopped by the clock.
    """

    TYPE: ClassVar[str] = "MatchReported"
    SCHEMA: ClassVar[int] = 1
    round: int
    match: int
    game: int
    a: Outcome
    b: Outcome
    a_points: int
    b_points: int
    no_show: tuple[str, ...]
    timed_out: bool
    at_ms: int


@dataclass(frozen=True, slots=True)
class ResultCorrected:
    """An organiser's correction of a recorded game: it replaces that game's result, and
    everything derived from results (points, tie-breaks, who goes through) follows on
    replay. Pairings already made stand: they were made from the table of their time."""

    TYPE: ClassVar[str] = "ResultCorrected"
    SCHEMA: ClassVar[int] = 1
    round: int
    match: int
    game: int
    a: Outcome
    b: Outcome
    a_points: int
    b_points: int
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeatNoShow:
    """The entrant did not take its seat within the seat window: out of the tournament,
    and its match is lost."""

    TYPE: ClassVar[str] = "SeatNoShow"
    SCHEMA: ClassVar[int] = 1
    round: int
    match: int
    entrant: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class RoundTimedOut:
    """The round's time is up: every undecided match is lost by both sides, unless one
    side never turned up (``never_seated``): then only that side loses."""

    TYPE: ClassVar[str] = "RoundTimedOut"
    SCHEMA: ClassVar[int] = 1
    round: int
    never_seated: tuple[str, ...]
    at_ms: int


@dataclass(frozen=True, slots=True)
class LadderMatchReported:
    """A rated match from the lobby during a ladder, as it scores for the entrants in it
    (players in the match who are not entrants are not listed)."""

    TYPE: ClassVar[str] = "LadderMatchReported"
    SCHEMA: ClassVar[int] = 1
    match_id: str
    scores: tuple[LadderScore, ...]
    played_at_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    """The end. ``reason`` is a stable code, ``detail`` plain words; ``standings`` is the
    final order (it depends on ratings for some tie-breaks, so it is fixed here)."""

    TYPE: ClassVar[str] = "TournamentFinished"
    SCHEMA: ClassVar[int] = 1
    reason: str
    detail: str
    standings: tuple[str, ...]
    at_ms: int


TournamentEvent = (
    TournamentCreated
    | SettingsChanged
    | Entered
    | Withdrew
    | DrawRoundNamed
    | DrawMade
    | Started
    | RoundPaired
    | MatchReported
    | ResultCorrected
    | SeatNoShow
    | RoundTimedOut
    | LadderMatchReported
    | TournamentFinished
)

EVENT_CLASSES: tuple[type[TournamentEvent], ...] = (
    TournamentCreated,
    SettingsChanged,
    Entered,
    Withdrew,
    DrawRoundNamed,
    DrawMade,
    Started,
    RoundPaired,
    MatchReported,
    ResultCorrected,
    SeatNoShow,
    RoundTimedOut,
    LadderMatchReported,
    TournamentFinished,
)

# Reasons a tournament finishes (TournamentFinished.reason).
ALL_ROUNDS_PLAYED = "all_rounds_played"
NO_VALID_PAIRING = "no_valid_pairing"
TOO_FEW_TO_PAIR = "too_few_to_pair"
FINAL_DECIDED = "final_decided"
NO_ONE_LEFT = "no_one_left"
ALL_WITHDREW = "all_withdrew"
LADDER_ENDED = "ladder_ended"
CANCELLED = "cancelled"  # called off before it started
TERMINATED = "terminated"  # stopped by the organiser while it ran
