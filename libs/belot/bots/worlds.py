"""Worlds for the hard bot: deals of the hidden cards drawn to agree with what the seat
knows, and weighted by how well they explain the bidding.

Two kinds of knowledge, treated differently:

- **Facts** exclude a world outright. They are :mod:`belot.bots.knowledge`'s: the cards
  played, the cards known to be in a hand (the turned card with the taker, a swap, a
  belote announcement, declared and shown melds), the voids and trump ceilings the play
  revealed (a card legal only if the seat lacked some cards), and the hand sizes. Every
  world :func:`draw` returns satisfies all of them (:func:`knowledge.sample_hands`).
- **Inferences** from the bidding only make a world more or less likely: a seat that
  passed the turned suit is unlikely to hold its jack, nine and two more trumps, but
  may have misjudged or played cautiously. Each call is scored with the bidding bots'
  own evaluation (:func:`belot.bots.medium.suit_strength` against the take threshold):
  a logistic in the margin, so a call far from the threshold says much and one near it
  little. A hand is judged on the cards it held when it spoke: its present cards and
  those it has played since, less a card gained later (the turned card it took, a
  swap). Which of those were dealt before the bidding (five of eight at four players)
  is unknown, so the evaluation is its expectation over the possible first packets.

:func:`draw` makes ``factor`` times more candidates than it returns, weights them, and
keeps ``count`` by systematic resampling (sampling-importance-resampling): the caller
then solves likely worlds instead of spending its time on worlds the bidding rules out,
and averages them with equal weight (a world drawn twice counts twice).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from belot.bots import medium
from belot.bots.knowledge import Knowledge, Sampler
from belot.cards import ACE, TEN, Mask
from belot.ruleset import AllPass, Strain
from belot.view import SeatView

#: Logistic softness of a call's evidence, in points of the bidding evaluation.
SOFTNESS: Final = 8.0
#: No call is certain: the weight of a world never falls below this per call.
FLOOR: Final = 0.02
#: Candidates drawn per world kept.
FACTOR: Final = 4


@dataclass(frozen=True)
class Call:
    """One call of the bidding: ``seat`` took ``strain`` (None: passed) when it could
    name ``options`` (the strains open to it then)."""

    seat: int
    strain: Strain | None
    options: tuple[Strain, ...]
    #: The club dealer forced to name a contract: its call says nothing.
    forced: bool


def calls_of(view: SeatView) -> tuple[Call, ...]:
    """The bidding of the deal, each call with the strains that were open to it."""
    ruleset = view.ruleset
    n = ruleset.players
    if view.turned is None or not view.calls:
        return ()
    turned_suit = Strain(_turned_at_bidding(view) >> 3)
    round_two = tuple(s for s in sorted(ruleset.second_round) if s != turned_suit)
    out = []
    for i, (seat, strain) in enumerate(view.calls):
        options = (turned_suit,) if i < n else round_two
        forced = ruleset.all_pass is AllPass.DEALER_MUST_CHOOSE and i == 2 * n - 1
        out.append(Call(seat, strain, options, forced))
    return tuple(out)


def _turned_at_bidding(view: SeatView) -> int:
    """The card turned during bidding (gambler's swap replaces it with the seven)."""
    assert view.turned is not None
    if view.swap is not None:
        return view.swap[2]
    return view.turned


@functools.cache
def _hypergeometric_excess(total: int, marked: int, drawn: int, over: int) -> float:
    """E[max(0, X - over)] for X the marked cards among ``drawn`` of ``total``."""
    if drawn >= total:
        return float(max(0, marked - over))
    out = 0.0
    denom = math.comb(total, drawn)
    for x in range(max(over, 0) + 1, min(marked, drawn) + 1):
        out += (x - over) * math.comb(marked, x) * math.comb(total - marked, drawn - x) / denom
    return out


def _suit_tables() -> tuple[tuple[tuple[tuple[int, int], ...], ...], ...]:
    """``[strain][suit][byte]``: (sum of medium's weights, guarded tens) of the suit's
    cards in ``byte``, with ``strain`` as the contract."""
    out = []
    for strain in range(6):
        by_suit = []
        for suit in range(4):
            row = []
            for byte in range(256):
                ranks = [r for r in range(8) if byte >> r & 1]
                is_trump = strain == Strain.ALL_TRUMPS or suit == strain
                if is_trump:
                    w = sum(medium.TRUMP_WEIGHT[r] for r in ranks)
                elif strain == Strain.NO_TRUMPS:
                    w = sum(22 if r == ACE else (10 if r == TEN else 0) for r in ranks)
                else:
                    w = sum(medium.SIDE_WEIGHT[r] for r in ranks)
                guarded = int(
                    not is_trump and strain != Strain.NO_TRUMPS and TEN in ranks and ACE in ranks
                )
                row.append((w, guarded))
            by_suit.append(tuple(row))
        out.append(tuple(by_suit))
    return tuple(out)


_SUIT_TABLES: Final = _suit_tables()


def expected_strength(held: Mask, first: int, extra: int | None, strain: int) -> float:
    """:func:`medium.suit_strength` of ``first`` cards drawn at random from ``held``,
    plus the ``extra`` card (the turned card a four-player taker receives), in
    expectation over the draw: each card's weight counts with the chance it was drawn,
    the trump-length bonus is a hypergeometric expectation, a ten guarded by its ace
    counts with the chance both were drawn."""
    m = held.bit_count()
    if m == 0:
        return 0.0
    p1 = min(1.0, first / m)
    p2 = p1 * min(1.0, (first - 1) / (m - 1)) if m > 1 else 0.0
    tables = _SUIT_TABLES[strain]
    linear = 0
    guarded = 0
    for suit in range(4):
        w, g = tables[suit][(held >> (8 * suit)) & 0xFF]
        linear += w
        guarded += g
    value = p1 * linear + p2 * 4 * guarded
    extra_trump = 0
    if extra is not None:
        value += medium.suit_strength([extra], strain)
        if strain <= Strain.SPADES and extra >> 3 == strain:
            extra_trump = 1
    if strain <= Strain.SPADES:
        # max(0, trumps - 2) * 6 over the drawn cards and the extra card.
        trumps = (held >> (8 * strain) & 0xFF).bit_count()
        value += 6 * _hypergeometric_excess(m, trumps, min(first, m), 2 - extra_trump)
    if strain == Strain.ALL_TRUMPS:
        value = value * 2 / 3
    return value


def _logistic(x: float) -> float:
    if x < -40:
        return 0.0
    if x > 40:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def bidding_weight(view: SeatView, calls: Sequence[Call], hands: Sequence[Mask]) -> float:
    """How well world ``hands`` explains the other seats' calls (1 for no evidence)."""
    return Bidding(view, calls).weight(hands)


class Bidding:
    """:func:`bidding_weight` with what depends on the view alone (the calls that say
    something, the threshold, the cards each seat has played) worked out once."""

    def __init__(self, view: SeatView, calls: Sequence[Call]) -> None:
        ruleset = view.ruleset
        n = ruleset.players
        self.calls = [c for c in calls if c.seat != view.seat and not c.forced]
        self.threshold = medium.TAKE_AT[n]
        self.extra = None
        self.first = sum(ruleset.first_packets)
        # By seat, the cards to add to a world's hand (those it has played, the seven it
        # swapped away) and to take out (gained after the bidding: the card a swap took,
        # the turned card a four-player taker received) for the cards it held when it
        # spoke; of those, ``first`` were dealt before the bidding.
        self.add = [0] * n
        self.remove = [0] * n
        self.known: dict[int, float] = {}
        if not self.calls:
            return
        turned = _turned_at_bidding(view)
        self.extra = turned if ruleset.taker_gets_turned else None
        for trick in view.tricks:
            for i, card in enumerate(trick.cards):
                self.add[(trick.leader + i) % n] |= 1 << card
        for seat, card in view.trick:
            self.add[seat] |= 1 << card
        if view.swap is not None:
            swapper, seven, taken = view.swap
            self.add[swapper] |= 1 << seven
            self.remove[swapper] |= 1 << taken
        if ruleset.taker_gets_turned and view.taker is not None:
            self.remove[view.taker] |= 1 << turned

    def weight(self, hands: Sequence[Mask]) -> float:
        weight = 1.0
        known = self.known
        for i, call in enumerate(self.calls):
            seat = call.seat
            cards = (hands[seat] | self.add[seat]) & ~self.remove[seat]
            # Worlds of one decision often give a seat the same cards: each call's
            # factor is worked out once per hand.
            key = cards << 5 | i
            p = known.get(key)
            if p is None:
                p = known[key] = self._factor(call, cards)
            weight *= p
        return weight

    def _factor(self, call: Call, cards: Mask) -> float:
        """How likely ``call`` was from a seat dealt ``cards``."""
        threshold = self.threshold
        if call.strain is None:
            best = max(expected_strength(cards, self.first, self.extra, s) for s in call.options)
            p = 1.0 - _logistic((best - threshold) / SOFTNESS)
        else:
            value = expected_strength(cards, self.first, self.extra, call.strain)
            p = _logistic((value - threshold) / SOFTNESS)
        return max(FLOOR, p)


class Drawer:
    """:func:`draw` for one decision: the sampler and the bidding's weights prepared
    once, worlds drawn as often as the caller asks."""

    def __init__(self, view: SeatView, kn: Knowledge) -> None:
        calls = calls_of(view)
        self.sample = Sampler(kn)
        self.bidding = Bidding(view, calls) if calls else None

    def draw(self, rng: random.Random, count: int, factor: int = FACTOR) -> list[list[Mask]]:
        sample = self.sample
        if self.bidding is None or factor <= 1:
            return [sample(rng) for _ in range(count)]
        pool = [sample(rng) for _ in range(count * factor)]
        weight = self.bidding.weight
        weights = [weight(hands) for hands in pool]
        total = sum(weights)
        if total <= 0:
            return pool[:count]
        # Systematic resampling: one random offset, ``count`` evenly spaced pointers.
        step = total / count
        x = rng.random() * step
        out = []
        acc = 0.0
        i = 0
        for hands, w in zip(pool, weights, strict=True):
            acc += w
            while i < count and x < acc:
                out.append(hands)
                x += step
                i += 1
        while len(out) < count:  # rounding at the very end
            out.append(pool[-1])
        return out


def draw(
    view: SeatView, kn: Knowledge, rng: random.Random, count: int, factor: int = FACTOR
) -> list[list[Mask]]:
    """``count`` worlds consistent with ``kn`` (every fact), drawn in proportion to
    :func:`bidding_weight` among ``factor * count`` candidates (see module docstring)."""
    return Drawer(view, kn).draw(rng, count, factor)
