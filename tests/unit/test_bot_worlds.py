"""Worlds for the hard bot (belot.bots.worlds): every world agrees with what the seat
saw, and the bidding weights worlds the way the bidders' evaluation says."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from belot import RULESETS, view
from belot.bots import worlds
from belot.bots.knowledge import knowledge
from belot.bots.medium import suit_strength
from belot.cards import FULL_DECK, SUIT_MASKS, Card, cards_in, mask_of
from belot.match import DueKind, due
from belot.ruleset import Strain
from belot.view import SeatView
from tests.unit.game_support import Table, mask


@pytest.mark.parametrize("name", sorted(RULESETS))
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_every_world_agrees_with_what_the_seat_saw(name: str, seed: int, steps: int) -> None:
    """Random legal play to a random point; then every world drawn for every seat holds
    the seat's own hand, the cards known elsewhere, no card played, no card a void or a
    ceiling excludes, and each seat's number of cards."""
    rng = random.Random(seed)
    table = Table(RULESETS[name])
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    table.deck([Card(c) for c in deck])
    for _ in range(steps):
        d = due(table.state)
        if d.kind is not DueKind.CARD and d.kind is not DueKind.BID:
            break
        table.do(rng.choice(view(table.state, d.seat).legal))  # type: ignore[arg-type]
    deal = table.state.deal
    if deal is None or deal.strain < 0:
        return
    played = 0
    for trick in deal.tricks:
        played |= mask_of(trick.cards)
    played |= mask_of(list(deal.trick))
    n = table.ruleset.players
    for seat in range(n):
        v = view(table.state, seat)
        kn = knowledge(v)
        for hands in worlds.draw(v, kn, rng, 6):
            assert hands[seat] == deal.hands[seat]
            assert [h.bit_count() for h in hands] == [h.bit_count() for h in deal.hands]
            seen = 0
            for other, hand in enumerate(hands):
                assert hand & seen == 0, "a card dealt twice"
                seen |= hand
                assert hand & kn.absent[other] == 0, "a card the seat's play excludes"
                assert kn.known[other] & ~hand == 0, "a known card missing"
            assert seen & played == 0, "a played card dealt"


def _after_bidding(calls: list[Strain | None], first: list[str], turned: str) -> Table:
    """A classic deal, dealer 3 (seat 0 speaks first), with ``first`` dealt and
    ``calls`` made in order from seat 0."""
    from tests.unit.game_support import stack

    ruleset = RULESETS["classic"]
    table = Table(ruleset, first_dealer=3)
    table.deck(stack(ruleset, 3, first, turned))
    for i, call in enumerate(calls):
        table.bid(i % 4, call)
    return table


def test_the_bidding_weights_worlds_by_the_bidders_evaluation() -> None:
    """Seat 1 passed the turned heart, seat 2 took it: a world where the taker holds the
    jack and nine of hearts is much likelier than one where the passer does."""
    first = ["7C 8C 9C 7D 8D", "", "", ""]
    table = _after_bidding([None, None, Strain.HEARTS], first, "AH")
    v = view(table.state, 0)
    calls = worlds.calls_of(v)
    assert [(c.seat, c.strain) for c in calls] == [(0, None), (1, None), (2, Strain.HEARTS)]
    kn = knowledge(v)
    assert kn.known[2] >> mask("AH").bit_length() - 1 & 1  # the taker holds the turned card
    own = mask_of(list(v.hand))
    trumps = mask("JH 9H TH KH")
    rest = [c for c in range(32) if not (own | trumps | mask("AH")) >> c & 1 and c >> 3 != 2]
    rest += [c for c in range(32) if c >> 3 == 2 and not (own | trumps | mask("AH")) >> c & 1]
    plain1 = mask_of([Card(c) for c in rest[:8]])  # no heart
    seat2 = mask_of([Card(c) for c in rest[8:11]])
    seat3 = mask_of([Card(c) for c in rest[11:19]])
    four_plain = mask_of([Card(c) for c in rest[:4]])
    likely = [own, plain1, trumps | seat2 | mask("AH"), seat3]
    unlikely = [own, plain1 & ~four_plain | trumps, four_plain | seat2 | mask("AH"), seat3]
    assert [h.bit_count() for h in likely] == [h.bit_count() for h in unlikely] == [8] * 4
    w_likely = worlds.bidding_weight(v, calls, likely)
    w_unlikely = worlds.bidding_weight(v, calls, unlikely)
    assert w_likely > 20 * w_unlikely
    # Drawn worlds lean the same way: the taker holds more trumps than uniform worlds give.
    from belot.bots.knowledge import sample_hands

    hearts = SUIT_MASKS[2]
    drawn = worlds.draw(v, kn, random.Random(1), 200)
    uniform = [sample_hands(kn, random.Random(i)) for i in range(200)]
    mean_drawn = sum((w[2] & hearts).bit_count() for w in drawn) / len(drawn)
    mean_uniform = sum((w[2] & hearts).bit_count() for w in uniform) / len(uniform)
    assert mean_drawn > mean_uniform + 0.5


def test_the_expected_strength_is_the_mean_over_first_packets() -> None:
    """The evaluation of a hand whose first five cards are unknown is the mean of
    medium's evaluation over every five of them."""
    rng = random.Random(9)
    for _ in range(20):
        deck = list(range(32))
        rng.shuffle(deck)
        held = sum(1 << c for c in deck[:7])
        extra = deck[8]
        strain = rng.randrange(6)
        subsets = list(itertools.combinations(cards_in(held), 5))
        scale = 2 / 3 if strain == Strain.ALL_TRUMPS else 1
        mean = sum(suit_strength([*s, extra], strain) * scale for s in subsets) / len(subsets)
        assert worlds.expected_strength(held, 5, extra, strain) == pytest.approx(mean)


def test_no_bidding_no_weighting() -> None:
    v: SeatView = view(_after_bidding([Strain.CLUBS], ["", "", "", ""], "7C").state, 1)
    assert [(c.seat, c.strain) for c in worlds.calls_of(v)] == [(0, Strain.CLUBS)]
    assert worlds.bidding_weight(v, (), [0, 0, 0, 0]) == 1.0
