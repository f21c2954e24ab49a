"""Hard (RULES.md §4): remembers the cards, infers voids, and weighs each move over
deals sampled to agree with everything it knows (perfect-information Monte Carlo).

For a card: draw deals consistent with :mod:`belot.bots.knowledge` (played cards,
known holdings, voids and trump ceilings), play each legal card on each, finish the deal
with :func:`belot.bots.sim.greedy_card` for every seat, score it as the match would
(contract, capot, belote, melds), and play the card with the best total.

For a bid: draw the unseen cards (the completion included), play each contract it may
name on each draw with itself as taker, and take the best if its mean result beats
passing by ``TAKE_MARGIN`` (a forced dealer takes the best regardless).

The work per decision is fixed by ``budget`` (play-outs), never by a clock, so a
seeded ``random.Random`` makes every decision reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from belot.bots import medium
from belot.bots.knowledge import knowledge, sample_hands
from belot.bots.sim import Position, belote_bonus, finish, meld_bonus, outcome, play
from belot.cards import Mask, mask_of
from belot.commands import Bid, Command, PlayCard
from belot.melds import meld_points
from belot.seats import side_of
from belot.view import SeatView

#: Play-outs per card decision, shared among the legal cards.
DEFAULT_BUDGET: Final = 48
#: Play-outs per contract considered when bidding.
BID_SAMPLES: Final = 12
MIN_SAMPLES: Final = 4
#: Mean deal result (our points minus theirs) a contract must reach to be taken.
TAKE_MARGIN: Final = 8


def choose(view: SeatView, rng: random.Random, budget: int = DEFAULT_BUDGET) -> Command:
    bids = [m for m in view.legal if isinstance(m, Bid)]
    if bids:
        return _bid(view, bids, rng, max(MIN_SAMPLES, budget // 4))
    extra = medium.optional(view)
    if extra is not None:
        return extra
    cards = sorted({m.card for m in view.legal if isinstance(m, PlayCard)})
    card = cards[0] if len(cards) == 1 else _best_card(view, cards, rng, budget)
    for m in view.legal:
        if isinstance(m, PlayCard) and m.card == card and m.belote:
            return m
    return PlayCard(view.seat, card)  # type: ignore[arg-type]


def _announced_belote(view: SeatView) -> list[int]:
    bonus = [0, 0]
    pairs = {(seat, card >> 3) for seat, card in view.belote_calls}
    for seat, _ in pairs:
        bonus[side_of(seat)] += view.ruleset.belote_points
    return bonus


def _position(view: SeatView, hands: list[Mask]) -> Position:
    ruleset = view.ruleset
    points = [0, 0]
    tricks = [0, 0]
    for t in view.tricks:
        points[side_of(t.winner)] += t.points
        tricks[side_of(t.winner)] += 1
    bonus = _announced_belote(view)
    strain = int(view.strain) if view.strain is not None else -1
    extra = belote_bonus(ruleset, strain, hands)
    melds = [0, 0]
    if ruleset.melds is not None:
        for seat, shown in view.melds_shown:
            melds[side_of(seat)] += meld_points(shown, ruleset.melds)
    leader = view.trick[0][0] if view.trick else view.seat
    return Position(
        ruleset=ruleset,
        strain=strain,
        taker=-1 if view.taker is None else view.taker,
        hands=hands,
        trick=[c for _, c in view.trick],
        leader=leader,
        points=points,
        tricks=tricks,
        tricks_left=ruleset.tricks - len(view.tricks),
        bonus=[bonus[0] + extra[0], bonus[1] + extra[1]],
        melds=melds,
    )


def _best_card(view: SeatView, cards: Sequence[int], rng: random.Random, budget: int) -> int:
    kn = knowledge(view)
    side = side_of(view.seat)
    samples = max(MIN_SAMPLES, budget // len(cards))
    totals = dict.fromkeys(cards, 0)
    for _ in range(samples):
        base = _position(view, sample_hands(kn, rng))
        for card in cards:
            pos = base.copy()
            play(pos, card)
            finish(pos)
            totals[card] += outcome(pos, side)
    return max(cards, key=lambda c: (totals[c], -c))


def _bid(view: SeatView, bids: list[Bid], rng: random.Random, samples: int) -> Bid:
    ruleset = view.ruleset
    n = ruleset.players
    me = view.seat
    side = side_of(me)
    own = mask_of(view.hand)
    turned = view.turned
    assert turned is not None
    unseen = [c for c in range(32) if not own >> c & 1 and c != turned]
    mine_final = ruleset.hand_size - len(view.hand)
    if ruleset.taker_gets_turned:
        own |= 1 << turned
        mine_final -= 1
    candidates = [b for b in bids if b.strain is not None]
    totals = {b.strain: 0 for b in candidates}
    leader = (view.dealer + 1) % n
    for _ in range(samples):
        rng.shuffle(unseen)
        hands = [0] * n
        i = 0
        for seat in range(n):
            take = mine_final if seat == me else ruleset.hand_size
            m = own if seat == me else 0
            for c in unseen[i : i + take]:
                m |= 1 << c
            i += take
            hands[seat] = m
        for b in candidates:
            strain = int(b.strain)  # type: ignore[arg-type]
            pos = Position(
                ruleset=ruleset,
                strain=strain,
                taker=me,
                hands=list(hands),
                trick=[],
                leader=leader,
                points=[0, 0],
                tricks=[0, 0],
                tricks_left=ruleset.tricks,
                bonus=belote_bonus(ruleset, strain, hands),
                melds=meld_bonus(ruleset, strain, hands, leader),
            )
            finish(pos)
            totals[b.strain] += outcome(pos, side)
    passing = [b for b in bids if b.strain is None]
    if not candidates:
        return passing[0]
    best = max(candidates, key=lambda b: (totals[b.strain], -int(b.strain or 0)))
    if not passing or totals[best.strain] > TAKE_MARGIN * samples:
        return best
    return passing[0]
