"""Medium (docs/specification.md §4): judges the trick, saves high trumps, trumps when needed,
supports its partner. No card counting: it sees its hand and the table only.

Bidding weighs the cards it would hold (four players: the turned card goes to the
taker) with :func:`suit_strength` against a threshold per ruleset size. It always
announces belote, declares melds, swaps gambler's trump seven, and demands a redeal
with four 7s or 8s when its side did not take.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from belot.cards import ACE, JACK, NINE, PLAIN_STRENGTH, TEN, TRUMP_STRENGTH
from belot.commands import Bid, Command, DeclareMelds, DemandRedeal, PlayCard, SwapTrumpSeven
from belot.play import CARD_POINTS, power_table
from belot.ruleset import Strain
from belot.seats import side_of
from belot.view import SeatView

#: Bidding weights by rank (7 8 9 T J Q K A): as trump, and as a side card.
TRUMP_WEIGHT: Final = (5, 5, 22, 12, 30, 7, 8, 14)
SIDE_WEIGHT: Final = (0, 0, 0, 3, 0, 0, 1, 11)
#: Take when the strength reaches this (four players: six cards known; two: six).
TAKE_AT: Final = {4: 52, 2: 50}


def suit_strength(cards: Sequence[int], strain: int) -> int:
    """A rough worth of ``cards`` with ``strain`` as trump (higher takes)."""
    value = 0
    trumps = 0
    for c in cards:
        suit, rank = c >> 3, c & 7
        if strain == Strain.ALL_TRUMPS or suit == strain:
            value += TRUMP_WEIGHT[rank]
            trumps += 1
        elif strain == Strain.NO_TRUMPS:
            value += 22 if rank == ACE else (10 if rank == TEN else 0)
        else:
            value += SIDE_WEIGHT[rank]
            if rank == TEN and any(o == c + 4 for o in cards):  # ten guarded by the ace
                value += 4
    if strain <= Strain.SPADES:
        value += max(0, trumps - 2) * 6
    return value


def bid(view: SeatView, bids: list[Bid], take_at: int | None = None) -> Bid:
    """Take the strongest contract if its strength reaches ``take_at`` (a forced dealer
    takes it regardless)."""
    n = view.ruleset.players
    threshold = TAKE_AT[n] if take_at is None else take_at
    best: tuple[int, Bid] | None = None
    for b in bids:
        if b.strain is None:
            continue
        cards = list(view.hand)
        if view.ruleset.taker_gets_turned and view.turned is not None:
            cards.append(view.turned)
        value = suit_strength(cards, b.strain)
        if b.strain == Strain.ALL_TRUMPS:
            value = value * 2 // 3
        if best is None or value > best[0]:
            best = (value, b)
    passing = [b for b in bids if b.strain is None]
    if best is not None and (best[0] >= threshold or not passing):
        return best[1]
    return passing[0] if passing else bids[0]


def optional(view: SeatView) -> Command | None:
    """The free actions before one's first card: swap, redeal, melds."""
    for m in view.legal:
        if isinstance(m, SwapTrumpSeven | DeclareMelds):
            return m
        if isinstance(m, DemandRedeal) and (
            view.taker is None or side_of(view.taker) != side_of(view.seat)
        ):
            return m
    return None


def choose(view: SeatView, rng: random.Random) -> Command:
    bids = [m for m in view.legal if isinstance(m, Bid)]
    if bids:
        return bid(view, bids)
    extra = optional(view)
    if extra is not None:
        return extra
    return _with_belote(view, play_card(view))


def _with_belote(view: SeatView, card: int) -> PlayCard:
    for m in view.legal:
        if isinstance(m, PlayCard) and m.card == card and m.belote:
            return m
    return PlayCard(view.seat, card)  # type: ignore[arg-type]


def play_card(view: SeatView) -> int:
    legal = sorted({m.card for m in view.legal if isinstance(m, PlayCard)})
    if len(legal) == 1:
        return legal[0]
    strain = int(view.strain) if view.strain is not None else Strain.NO_TRUMPS
    pts = CARD_POINTS[strain]
    n = view.ruleset.players

    def is_trump(c: int) -> bool:
        return strain == Strain.ALL_TRUMPS or (strain <= Strain.SPADES and c >> 3 == strain)

    if strain == Strain.MISERE:
        return _misere(view, legal)
    if not view.trick:
        return _lead(view, legal, strain)
    table = [c for _, c in view.trick]
    keys = power_table(strain, table[0] >> 3)
    best_i = max(range(len(table)), key=lambda i: keys[table[i]])
    best = table[best_i]
    last = len(table) == n - 1
    partner_winning = n == 4 and best_i == len(table) - 2
    if partner_winning and (last or _is_strong(best, strain)):
        # Support the partner: add points, sparing trumps.
        return max(legal, key=lambda c: (not is_trump(c), pts[c], -keys[c]))
    if partner_winning:
        return min(legal, key=lambda c: (is_trump(c), pts[c], keys[c]))
    winners = [c for c in legal if keys[c] > keys[best]]
    if winners:
        if last:
            return min(winners, key=lambda c: (keys[c], pts[c]))
        strong = [c for c in winners if _is_strong(c, strain)]
        ruffs = [c for c in winners if is_trump(c) and not is_trump(table[0])]
        if ruffs and len(ruffs) == len(winners):
            return min(ruffs, key=lambda c: keys[c])  # trump low: save the high trumps
        if strong:
            return min(strong, key=lambda c: keys[c])
        if sum(pts[c] for c in table) >= 10:
            return max(winners, key=lambda c: keys[c])
    return min(legal, key=lambda c: (is_trump(c), pts[c], keys[c]))


def _is_strong(card: int, strain: int) -> bool:
    """Likely to hold the trick without counting: the trump jack or nine, a plain ace."""
    rank = card & 7
    if strain == Strain.ALL_TRUMPS or card >> 3 == strain:
        return TRUMP_STRENGTH[rank] >= TRUMP_STRENGTH[NINE]
    return PLAIN_STRENGTH[rank] == PLAIN_STRENGTH[ACE]


def _lead(view: SeatView, legal: Sequence[int], strain: int) -> int:
    pts = CARD_POINTS[strain]
    trumps = [c for c in legal if strain <= Strain.SPADES and c >> 3 == strain]
    our_contract = view.taker is not None and side_of(view.taker) == side_of(view.seat)
    if trumps and our_contract:
        jack = [c for c in trumps if c & 7 == JACK]
        if jack or len(trumps) >= 3:
            return max(trumps, key=lambda c: TRUMP_STRENGTH[c & 7])
    plain = [c for c in legal if c not in trumps]
    aces = [c for c in plain if c & 7 == ACE] if strain != Strain.ALL_TRUMPS else []
    if strain == Strain.ALL_TRUMPS:
        aces = [c for c in plain if c & 7 == JACK]
    if aces:
        return aces[0]
    pool = plain or legal

    def short_low(c: int) -> tuple[int, int]:
        return (sum(1 for o in view.hand if o >> 3 == c >> 3), pts[c])

    return min(pool, key=short_low)


def _misere(view: SeatView, legal: Sequence[int]) -> int:
    strain = int(Strain.MISERE)
    if not view.trick:
        return min(legal, key=lambda c: PLAIN_STRENGTH[c & 7])
    keys = power_table(strain, view.trick[0][1] >> 3)
    best = max(keys[c] for _, c in view.trick)
    losing = [c for c in legal if keys[c] < best]
    if losing:
        return max(losing, key=lambda c: keys[c])
    return max(legal, key=lambda c: keys[c])
