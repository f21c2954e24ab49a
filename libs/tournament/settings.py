"""A tournament's own numbers (docs/specification.md §5: "each tournament sets its own numbers").

Points are integers. A tournament that wants half points (1, ½, 0) doubles all three
(2, 1, 0), as lichess stores half points: scoring never touches a float.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from tournament.errors import BadSettings

#: docs/specification.md §5: "take your seat within 3 minutes of the table opening".
SEAT_WINDOW_MS: Final = 180_000
#: The rating the ratings port is assumed to give an entrant it does not know.
DEFAULT_RATING: Final = 1500.0
MS_PER_DAY: Final = 86_400_000


class Format(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    ELIMINATION = "elimination"
    LADDER = "ladder"


class Seeding(StrEnum):
    """How the entrants are placed when the tournament starts."""

    RATING = "rating"  # highest rating first (ratings port; 1500 for the unknown)
    MANUAL = "manual"  # the order the organiser gives
    RANDOM = "random"  # drawn from a named drand round's value (fairdeal.draw)


class Outcome(StrEnum):
    """One side's result of a match."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class Points:
    """What a win, a draw and a loss score. Doubled integers for half points."""

    win: int = 2
    draw: int = 1
    loss: int = 0

    def of(self, outcome: Outcome) -> int:
        if outcome is Outcome.WIN:
            return self.win
        if outcome is Outcome.DRAW:
            return self.draw
        return self.loss


@dataclass(frozen=True, slots=True)
class Settings:
    """One tournament's rules. ``validated()`` is the only check; commands call it."""

    format: Format
    points: Points = Points()
    #: 2: one player a side; 4: teams of two, formed when round 1 is paired.
    table_size: int = 2
    #: Swiss: the set number of rounds. Other formats derive theirs.
    rounds: int = 0
    #: Elimination: a meeting is one match or the best of three.
    best_of: int = 1
    #: Each round's time limit, from the moment it is paired.
    round_ms: int = 3_600_000
    seat_window_ms: int = SEAT_WINDOW_MS
    #: Ladder: how many days it runs from its start.
    ladder_days: int = 7
    #: Round-robin of exactly one table of four: partners change every round.
    rotate_partners: bool = False
    seeding: Seeding = Seeding.RATING
    #: Registration cap (None: no cap) and rating band (None: open at that end).
    max_entrants: int | None = None
    min_rating: int | None = None
    max_rating: int | None = None
    #: The ruleset whose matches count (ladder) or are played (formats with rounds).
    ruleset: str = "club"

    def validated(self) -> Settings:
        """Return self, or raise BadSettings naming the first number that makes no sense."""
        if self.table_size not in (2, 4):
            raise BadSettings("a table seats 2 or 4 players")
        if self.round_ms <= 0 or self.seat_window_ms <= 0:
            raise BadSettings("the round time and the seat window are positive durations")
        if not self.points.win > self.points.draw >= self.points.loss:
            raise BadSettings("a win must score more than a draw, a draw at least a loss")
        if self.format is Format.SWISS and self.rounds < 1:
            raise BadSettings("a Swiss tournament sets its number of rounds (1 or more)")
        if self.format is not Format.SWISS and self.rounds != 0:
            raise BadSettings("only a Swiss tournament sets its number of rounds")
        if self.best_of not in (1, 3):
            raise BadSettings("a meeting is a single match or the best of three")
        if self.best_of != 1 and self.format is not Format.ELIMINATION:
            raise BadSettings("best of three is for elimination meetings")
        if self.rotate_partners and (self.format is not Format.ROUND_ROBIN or self.table_size != 4):
            raise BadSettings("rotating partners is a round-robin of one table of four")
        if self.format is Format.LADDER and self.ladder_days < 1:
            raise BadSettings("a ladder runs for one day or more")
        if self.max_entrants is not None and self.max_entrants < 2:
            raise BadSettings("a registration cap below 2 leaves no tournament")
        if (
            self.min_rating is not None
            and self.max_rating is not None
            and self.min_rating > self.max_rating
        ):
            raise BadSettings("the rating band's bottom is above its top")
        return self

    @property
    def is_teams(self) -> bool:
        """Teams of two are the entrants (tables of four, partners not rotating)."""
        return self.table_size == 4 and not self.rotate_partners

    @property
    def has_rounds(self) -> bool:
        return self.format is not Format.LADDER
