"""Events: the facts of a match, past tense, each with a fixed type name and schema.

Every event declares who may see it while the match runs:

- ``PUBLIC``: every seat and spectator (bids, cards played, scores).
- ``SEAT``: only the seat named in its ``seat`` field (the cards dealt to it).
- ``SECRET``: no seat (the whole deck, kept for replay and verification).

A log shows private and secret events once the match has ended. JSON forms are in
:mod:`belot.codec`; stored type names are never reused for another shape.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from belot.cards import Card
from belot.melds import Meld, MeldClaim
from belot.ruleset import Strain
from belot.scoring import Outcome


class Visibility(enum.Enum):
    PUBLIC = "public"
    SEAT = "seat"
    SECRET = "secret"


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[str] = ""
    SCHEMA: ClassVar[int] = 1
    VISIBILITY: ClassVar[Visibility] = Visibility.PUBLIC

    def visible_to(self, seat: int | None) -> bool:
        """May ``seat`` (None: a spectator) see this event while the match runs?"""
        if self.VISIBILITY is Visibility.PUBLIC:
            return True
        if self.VISIBILITY is Visibility.SEAT:
            return seat is not None and seat == getattr(self, "seat", None)
        return False


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    """The first event of every match."""

    TYPE = "MatchStarted"
    match_id: str
    ruleset: str
    target: int
    first_dealer: int


@dataclass(frozen=True, slots=True)
class DeckSupplied(Event):
    """Deal ``deal_number``'s deck, top card first, as the fair-deal recipe made it, and
    the salts of the deal's hidden events (:mod:`belot.salts`: this event's own first)."""

    TYPE = "DeckSupplied"
    VISIBILITY = Visibility.SECRET
    deal_number: int
    cards: tuple[Card, ...]
    salts: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class DealStarted(Event):
    """The first distribution is out and ``turned`` is face up."""

    TYPE = "DealStarted"
    deal_number: int
    dealer: int
    turned: Card


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """Cards dealt to ``seat`` (first distribution or completion), in dealing order, with
    the salt that keeps their hash from being searched (:mod:`belot.salts`)."""

    TYPE = "CardsDealt"
    VISIBILITY = Visibility.SEAT
    seat: int
    cards: tuple[Card, ...]
    salt: bytes = b""


@dataclass(frozen=True, slots=True)
class Passed(Event):
    TYPE = "Passed"
    seat: int


@dataclass(frozen=True, slots=True)
class ContractTaken(Event):
    """``seat`` took: bidding is over and ``strain`` is the contract."""

    TYPE = "ContractTaken"
    seat: int
    strain: Strain


@dataclass(frozen=True, slots=True)
class MisereStarted(Event):
    """Everyone passed twice and the ruleset plays misère."""

    TYPE = "MisereStarted"


@dataclass(frozen=True, slots=True)
class BottomCardShown(Event):
    """Gambler: the deck's bottom card, shown once the hands are complete; not played."""

    TYPE = "BottomCardShown"
    card: Card


@dataclass(frozen=True, slots=True)
class RedealDemanded(Event):
    """Gambler: ``seat`` shows four cards of ``rank`` (7s or 8s) and demands a redeal."""

    TYPE = "RedealDemanded"
    seat: int
    rank: int


@dataclass(frozen=True, slots=True)
class DealAbandoned(Event):
    """The deal ends unplayed; the next deck is deal ``deal_number + 1``."""

    TYPE = "DealAbandoned"
    deal_number: int
    reason: str  # "all_passed" or "redeal_demanded"


@dataclass(frozen=True, slots=True)
class TrumpSevenSwapped(Event):
    """``seat`` put the trump seven on the table and took the turned card."""

    TYPE = "TrumpSevenSwapped"
    seat: int
    seven: Card
    taken: Card


@dataclass(frozen=True, slots=True)
class MeldDeclared(Event):
    """``seat`` declared its best meld; only its rank is said aloud."""

    TYPE = "MeldDeclared"
    seat: int
    claim: MeldClaim


@dataclass(frozen=True, slots=True)
class BeloteAnnounced(Event):
    """``seat`` announced belote (or rebelote) with ``card``, a trump king or queen."""

    TYPE = "BeloteAnnounced"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    TYPE = "CardPlayed"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickTaken(Event):
    """``seat`` took the trick ``cards`` (in play order), worth ``points`` (the last
    trick's 10 included)."""

    TYPE = "TrickTaken"
    seat: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class MeldsShown(Event):
    """After the first trick, a declared seat of the side with the best meld shows them."""

    TYPE = "MeldsShown"
    seat: int
    melds: tuple[Meld, ...]


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    """The deal's result; ``scores`` are the match totals after it."""

    TYPE = "DealScored"
    deal_number: int
    outcome: Outcome
    totals: tuple[int, int]
    awarded: tuple[int, int]
    scores: tuple[int, int]
    hanging: int
    #: The side that won the deal (None: level).
    winner: int | None


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """The last event: ``winner`` is a side (None for a draw); ``scores`` the final score
    as recorded (gambler's 1001:1000 when both sides reached the target)."""

    TYPE = "MatchEnded"
    winner: int | None
    scores: tuple[int, int]


EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        MatchStarted,
        DeckSupplied,
        DealStarted,
        CardsDealt,
        Passed,
        ContractTaken,
        MisereStarted,
        BottomCardShown,
        RedealDemanded,
        DealAbandoned,
        TrumpSevenSwapped,
        MeldDeclared,
        BeloteAnnounced,
        CardPlayed,
        TrickTaken,
        MeldsShown,
        DealScored,
        MatchEnded,
    )
}
