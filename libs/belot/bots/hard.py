"""Hard (docs/specification.md §4): remembers the cards, infers voids, and weighs each move over
deals sampled to agree with everything it knows (perfect-information Monte Carlo).

For a card: draw deals consistent with :mod:`belot.bots.knowledge` (played cards,
known holdings, voids and trump ceilings), play each legal card on each, finish the deal
with :func:`belot.bots.sim.greedy_card` for every seat, score it as the match would
(contract, capot, belote, melds), and play the card with the best total.

Bidding is medium's hand evaluation: sampled play-outs of whole deals for each
contract were tried and bid worse against medium than the evaluation does (docs/bots.md).

The work per decision is at most ``budget`` play-outs, so a seeded ``random.Random``
makes every decision reproducible. A caller with a time budget (the table service) also
passes ``out_of_time``, asked after each sampled deal once ``MIN_SAMPLES`` are done: when
it answers True the bot plays the best card so far. The bot itself reads no clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from belot.bots import medium
from belot.bots.knowledge import knowledge, sample_hands
from belot.bots.sim import Position, belote_bonus, finish, outcome, play
from belot.cards import Mask
from belot.commands import Bid, Command, PlayCard
from belot.melds import MeldKind, meld_points, winning_claim
from belot.seats import side_of
from belot.view import SeatView

#: Play-outs per card decision, shared among the legal cards.
DEFAULT_BUDGET: Final = 160
MIN_SAMPLES: Final = 4
#: Bidding threshold on medium's evaluation, by table size (tuned against medium).
TAKE_AT: Final = dict(medium.TAKE_AT)


def choose(
    view: SeatView,
    rng: random.Random,
    budget: int = DEFAULT_BUDGET,
    out_of_time: Callable[[], bool] | None = None,
) -> Command:
    bids = [m for m in view.legal if isinstance(m, Bid)]
    if bids:
        return medium.bid(view, bids, TAKE_AT[view.ruleset.players])
    extra = medium.optional(view)
    if extra is not None:
        return extra
    cards = sorted({m.card for m in view.legal if isinstance(m, PlayCard)})
    card = cards[0] if len(cards) == 1 else _best_card(view, cards, rng, budget, out_of_time)
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
    table = ruleset.melds
    if table is not None:
        for seat, shown in view.melds_shown:
            melds[side_of(seat)] += meld_points(shown, table)
        if not view.tricks and view.meld_claims:
            # Not shown yet: count at least the best declared meld for its side.
            best = winning_claim(view.meld_claims)
            claim = next(c for s, c in view.meld_claims if s == best)
            value = (
                table.four_value(claim.rank)
                if claim.kind is MeldKind.FOUR
                else table.sequence_value(claim.length)
            )
            melds[side_of(best)] += value  # type: ignore[arg-type]
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


def _best_card(
    view: SeatView,
    cards: Sequence[int],
    rng: random.Random,
    budget: int,
    out_of_time: Callable[[], bool] | None = None,
) -> int:
    kn = knowledge(view)
    side = side_of(view.seat)
    samples = max(MIN_SAMPLES, budget // len(cards))
    totals = dict.fromkeys(cards, 0)
    for i in range(samples):
        if i >= MIN_SAMPLES and out_of_time is not None and out_of_time():
            break
        base = _position(view, sample_hands(kn, rng))
        for card in cards:
            pos = base.copy()
            play(pos, card)
            finish(pos)
            totals[card] += outcome(pos, side)
    return max(cards, key=lambda c: (totals[c], -c))
