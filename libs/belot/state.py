"""The state of a match: frozen records folded from its events, and what it waits for.

:class:`Match` holds the scores, the dealer, the deal number and the deal in progress
(:class:`Deal`); :func:`due` says whether a deck (and for which deal number: redeals
count), a bid or a card is awaited, and from whom.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final, NamedTuple

from belot.cards import (
    Card,
    Mask,
)
from belot.errors import (
    UnknownSeat,
)
from belot.events import (
    MatchStarted,
)
from belot.melds import (
    Meld,
    MeldClaim,
)
from belot.play import Trick
from belot.ruleset import Ruleset
from belot.seats import BySeat, BySide

NO_STRAIN: Final = -1
NO_SEAT: Final = -1


class Phase(enum.Enum):
    DECK = "deck"  # waiting for deal ``deal_number``'s deck
    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


class Deal(NamedTuple):
    """The deal in progress. Hands are card masks by seat.

    A NamedTuple rather than a frozen dataclass: as immutable, and built ten times faster,
    which is most of what a deal costs (see bench/game.py)."""

    number: int
    dealer: int
    deck: tuple[Card, ...]
    #: The card face up: the turned card, or the trump seven after a swap.
    turned: Card
    hands: BySeat[Mask]
    #: Passes so far (the first take ends bidding).
    passes: int
    #: The contract's strain, or NO_STRAIN during bidding.
    strain: int
    #: The seat that took, or NO_SEAT (bidding, misère).
    taker: int
    #: The seat due to act (bid or card).
    turn: int
    trick: tuple[Card, ...]
    leader: int
    #: Finished tricks, in order.
    tricks: tuple[Trick, ...]
    #: Card points taken by each side, the last trick's 10 included.
    points: BySide[int]
    tricks_won: BySeat[int]
    #: Cards each seat has played this deal.
    played: BySeat[Mask]
    #: Valid belote announcements: (seat, card announced with).
    belote_calls: tuple[tuple[int, Card], ...]
    #: Meld declarations in order: (seat, claim, the melds the seat held).
    claims: tuple[tuple[int, MeldClaim, tuple[Meld, ...]], ...]
    #: Melds shown after the first trick: (seat, melds).
    shown: tuple[tuple[int, tuple[Meld, ...]], ...]
    bottom: Card | None
    #: The seat that swapped the trump seven, or NO_SEAT.
    swapped_by: int
    #: The salts of the deal's hidden events (:mod:`belot.salts`; empty: none).
    salts: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """How the match ended: ``winner`` a side or None for a draw; ``scores`` as recorded."""

    winner: int | None
    scores: tuple[int, int]


class Match(NamedTuple):
    """A match's state: a fold of its events (immutable, see :class:`Deal` for why a
    NamedTuple)."""

    ruleset: Ruleset
    match_id: str
    target: int
    first_dealer: int
    phase: Phase
    scores: BySide[int]
    #: Points hanging from level deals, waiting for the next deal's winner.
    hanging: int
    #: The current deal's number, or the next deck's while ``phase`` is DECK.
    deal_number: int
    dealer: int
    deals_scored: int
    deal: Deal | None
    #: The side that defended the last scored deal (None: misère or none yet).
    last_defender: int | None
    #: The side that won the last scored deal (None: level or none yet).
    last_winner: int | None
    result: Result | None


class DueKind(enum.Enum):
    DECK = "deck"
    BID = "bid"
    CARD = "card"
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class Due:
    """What the match waits for: a deck (with its deal number), a seat's bid or card."""

    kind: DueKind
    seat: int | None
    deal_number: int


# --- Starting, replaying --------------------------------------------------------------


def new_match(
    ruleset: Ruleset, match_id: str = "", *, target: int | None = None, first_dealer: int = 0
) -> Match:
    """A match waiting for deal 0's deck. ``target`` defaults to the ruleset's; the first
    dealer comes from outside (gambler draws it at random: the table does that)."""
    if not 0 <= first_dealer < ruleset.players:
        raise UnknownSeat(f"first dealer {first_dealer}: seats are 0..{ruleset.players - 1}")
    goal = ruleset.target if target is None else target
    if goal <= 0:
        raise ValueError(f"target {goal}: it must be positive")
    return Match(
        ruleset=ruleset,
        match_id=match_id,
        target=goal,
        first_dealer=first_dealer,
        phase=Phase.DECK,
        scores=BySide((0, 0)),
        hanging=0,
        deal_number=0,
        dealer=first_dealer,
        deals_scored=0,
        deal=None,
        last_defender=None,
        last_winner=None,
        result=None,
    )


def started_event(state: Match) -> MatchStarted:
    """The event that opens the match's log (replay starts from it)."""
    return MatchStarted(state.match_id, state.ruleset.name, state.target, state.first_dealer)


# --- What is due -----------------------------------------------------------------------


def due(state: Match) -> Due:
    if state.phase is Phase.OVER:
        return Due(DueKind.NOTHING, None, state.deal_number)
    if state.phase is Phase.DECK:
        return Due(DueKind.DECK, None, state.deal_number)
    deal = state.deal
    assert deal is not None
    kind = DueKind.BID if state.phase is Phase.BIDDING else DueKind.CARD
    return Due(kind, deal.turn, state.deal_number)


def whose_turn(state: Match) -> int | None:
    """The seat due to bid or play, or None (a deck is due, or the match is over)."""
    if state.phase is Phase.BIDDING or state.phase is Phase.PLAYING:
        assert state.deal is not None
        return state.deal.turn
    return None
