"""Easy (docs/specification.md §4): the lowest legal card.

"Lowest" is the weakest card by the order of its suit in this contract (a plain card
before any trump), then the fewest points. Bidding is as naive: take a suit holding its
jack and two more cards of it; a forced dealer names its longest suit. Easy never
announces belote, never declares melds, and takes no optional action.
"""

from __future__ import annotations

import random

from belot.cards import JACK, TRUMP_STRENGTH
from belot.commands import Bid, Command, PlayCard
from belot.play import CARD_POINTS
from belot.ruleset import Strain
from belot.view import SeatView


def choose(view: SeatView, rng: random.Random) -> Command:
    bids = [m for m in view.legal if isinstance(m, Bid)]
    if bids:
        return _bid(view, bids)
    plays = [m for m in view.legal if isinstance(m, PlayCard) and not m.belote]
    strain = int(view.strain) if view.strain is not None else Strain.NO_TRUMPS
    return min(plays, key=lambda m: weakness(m.card, strain))


def weakness(card: int, strain: int) -> tuple[int, int, int]:
    """Sort key: weaker cards first."""
    suit, rank = card >> 3, card & 7
    trump = strain == Strain.ALL_TRUMPS or suit == strain
    order = TRUMP_STRENGTH[rank] if trump else _PLAIN_ORDER[rank]
    return (int(trump and strain <= Strain.SPADES), order, CARD_POINTS[strain][card])


_PLAIN_ORDER = (0, 1, 2, 6, 3, 4, 5, 7)


def _bid(view: SeatView, bids: list[Bid]) -> Command:
    hand = view.hand
    for bid in bids:
        s = bid.strain
        if s is not None and s.is_suit:
            in_suit = [c for c in hand if c >> 3 == s]
            if any(c & 7 == JACK for c in in_suit) and len(in_suit) >= 3:
                return bid
    passing = [b for b in bids if b.strain is None]
    if passing:
        return passing[0]
    suits = [b for b in bids if b.strain is not None and b.strain.is_suit] or bids
    return max(suits, key=lambda b: sum(1 for c in hand if c >> 3 == b.strain))
