"""What a seat knows from its view: which cards it has not seen, which each other seat
is known to hold, and which each other seat cannot hold (void inference).

Everything comes from :class:`~belot.view.SeatView`; nothing else is available here.
Sources of certainty, all public:

- cards played (every finished trick and the trick on the table);
- the turned card: in the taker's hand (four players) until played; on the table at two
  players, where the bottom card is shown too (both out of play);
- gambler's seven swap: the swapper holds the card it took;
- melds shown after the first trick: their cards, until played; before that, a declared
  four of a kind or trump sequence names its cards;
- belote announced with one card: the other card of the pair, until played;
- voids and ceilings: a card that was legal only if the seat lacked some cards
  (:func:`belot.play.implied_absent`, the inverse of the rules of the trick).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from belot.cards import FULL_MASK, KING, QUEEN, RANK_MASKS, Mask, make_card, mask_of
from belot.melds import MeldKind
from belot.play import implied_absent
from belot.view import SeatView


@dataclass(frozen=True)
class Knowledge:
    seat: int
    players: int
    strain: int
    #: Cards played so far this deal (finished tricks and the table).
    played: Mask
    #: Cards whose place the seat does not know (in another hand, or out of play).
    unknown: Mask
    #: By seat: cards known to be in that seat's hand now (the seat's own: its hand).
    known: tuple[Mask, ...]
    #: By seat: cards that seat cannot hold.
    absent: tuple[Mask, ...]
    #: By seat: how many cards it holds now.
    sizes: tuple[int, ...]
    #: Unknown cards that are out of play (gambler's undealt stock), by count.
    stock: int


def knowledge(view: SeatView) -> Knowledge:
    ruleset = view.ruleset
    n = ruleset.players
    me = view.seat
    strain = -1 if view.strain is None else int(view.strain)
    own = mask_of(view.hand)
    played = 0
    absent = [0] * n
    for trick in view.tricks:
        for i, card in enumerate(trick.cards):
            played |= 1 << card
            seat = (trick.leader + i) % n
            absent[seat] |= implied_absent(trick.cards[:i], card, strain, ruleset)
    table = tuple(c for _, c in view.trick)
    for i, (seat, card) in enumerate(view.trick):
        played |= 1 << card
        absent[seat] |= implied_absent(table[:i], card, strain, ruleset)

    known = [0] * n
    known[me] = own
    out_of_play = 0
    if view.turned is not None:
        if ruleset.taker_gets_turned:
            if view.taker is not None:
                known[view.taker] |= (1 << view.turned) & ~played
            else:
                out_of_play |= 1 << view.turned  # still on the table during bidding
        else:
            out_of_play |= 1 << view.turned
    if view.bottom is not None:
        out_of_play |= 1 << view.bottom
    if view.swap is not None:
        swapper, _seven, taken = view.swap
        known[swapper] |= (1 << taken) & ~played
    for seat, melds in view.melds_shown:
        for meld in melds:
            known[seat] |= mask_of(meld.cards) & ~played
    for seat, claim in view.meld_claims:
        # A declared four names its cards; a declared trump sequence too.
        if claim.kind is MeldKind.FOUR:
            known[seat] |= RANK_MASKS[claim.rank] & ~played
        elif claim.trump and 0 <= strain <= 3:
            run = range(claim.rank - claim.length + 1, claim.rank + 1)
            known[seat] |= mask_of([make_card(strain, r) for r in run]) & ~played
    for seat, card in view.belote_calls:
        suit, rank = card >> 3, card & 7
        other = make_card(suit, QUEEN if rank == KING else KING)
        known[seat] |= (1 << other) & ~played
    for seat in range(n):
        if seat != me:
            known[seat] &= ~own
    placed = 0
    for m in known:
        placed |= m
    unknown = FULL_MASK & ~played & ~placed & ~out_of_play
    # A seat cannot hold what is known to be elsewhere.
    for seat in range(n):
        absent[seat] |= placed & ~known[seat] | out_of_play | played
        absent[seat] &= ~known[seat]
    sizes = tuple(view.hand_sizes)
    in_hands_unknown = sum(sizes[s] - known[s].bit_count() for s in range(n) if s != me)
    stock = unknown.bit_count() - in_hands_unknown
    return Knowledge(
        seat=me,
        players=n,
        strain=strain,
        played=played,
        unknown=unknown,
        known=tuple(known),
        absent=tuple(absent),
        sizes=sizes,
        stock=stock,
    )


def _cards(mask: Mask) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sample_hands(kn: Knowledge, rng: random.Random, tries: int = 20) -> list[Mask]:
    """A deal consistent with what the seat knows (see :class:`Sampler`)."""
    return Sampler(kn, tries)(rng)


class Sampler:
    """Deals consistent with what the seat knows: every other seat gets its known cards
    and unknown cards it may hold, up to its hand size; the rest goes out of play. What
    depends on the knowledge alone is worked out once, here; each call draws one deal.

    Cards are placed most-constrained first, each to a seat drawn in proportion to the
    room left among the seats that may hold it. After ``tries`` dead ends the last
    attempt ignores voids for the cards that no longer fit (a view can be inconsistent
    with our inference only if the inference is wrong, which the tests rule out, but a
    bot must never fail to move).

    When no seat is barred from any unknown card (no void shown yet), the cards are
    simply shuffled and dealt: the same distribution, faster.
    """

    def __init__(self, kn: Knowledge, tries: int = 20) -> None:
        n = kn.players
        self.kn = kn
        self.tries = tries
        self.others = [s for s in range(n) if s != kn.seat]
        self.cards = _cards(kn.unknown)
        self.free = not any(kn.absent[s] & kn.unknown for s in self.others)
        self.room = [0] * n
        for s in self.others:
            self.room[s] = kn.sizes[s] - kn.known[s].bit_count()
        self.holders = {
            c: [s for s in self.others if not kn.absent[s] >> c & 1] for c in self.cards
        }

    def __call__(self, rng: random.Random) -> list[Mask]:
        kn = self.kn
        others = self.others
        if self.free:
            pool = list(self.cards)
            rng.shuffle(pool)
            dealt = list(kn.known)
            at = 0
            for s in others:
                space = self.room[s]
                for c in pool[at : at + space]:
                    dealt[s] |= 1 << c
                at += space
            return dealt
        room0 = self.room
        cards = list(self.cards)
        holders = self.holders
        tries = self.tries
        for attempt in range(tries + 1):
            rng.shuffle(cards)
            cards.sort(key=lambda c: len(holders[c]))
            room = list(room0)
            stock_room = kn.stock
            hands = list(kn.known)
            ok = True
            for c in cards:
                choices = [s for s in holders[c] if room[s] > 0]
                weights = [room[s] for s in choices]
                total = sum(weights) + stock_room
                if total == 0:
                    if attempt < tries:
                        ok = False
                        break
                    choices = [s for s in others if room[s] > 0]
                    weights = [room[s] for s in choices]
                    total = sum(weights)
                x = rng.random() * total
                placed = False
                for s, w in zip(choices, weights, strict=True):
                    if x < w:
                        hands[s] |= 1 << c
                        room[s] -= 1
                        placed = True
                        break
                    x -= w
                if not placed:
                    stock_room -= 1
            if ok:
                return hands
        raise AssertionError("unreachable: the last attempt always completes")
