"""The double-dummy analysis of finished matches (belot.analysis) against an independent
brute force: a plain minimax over the remaining cards (tests/unit/game_support.py), with
no pruning, no table and no merged cards, on positions sampled from random matches of
all four rulesets, every legal card's value; and whole matches analysed: every card
played is there once, with its loss against the best card, and each seat's figures add
up."""

from __future__ import annotations

import random

import pytest

from belot.analysis import analyse, card_values, contract_table
from belot.bots.solver import Solver
from belot.cards import Card, to_code
from belot.errors import BadEvent
from belot.events import (
    CardPlayed,
    DealScored,
    DealStarted,
    MatchStarted,
    TrickTaken,
    TrumpSevenSwapped,
)
from belot.evolve import evolve
from belot.play import MISERE, playable
from belot.ruleset import RULESETS
from belot.seats import side_of
from belot.state import new_match
from tests.unit.game_support import Table, brute_force, play_cards
from tests.unit.test_game_properties import random_match

NAMES = sorted(RULESETS)
#: Positions the brute force is asked about, at most this many tricks from the deal's end.
TRICKS_FROM_END = 3


def late_positions(name: str, seed: int):  # type: ignore[no-untyped-def]
    """Each card of a random match played within TRICKS_FROM_END tricks of its deal's end:
    the deal before it, and the card."""
    ruleset = RULESETS[name]
    table = random_match(name, seed, target=None, pass_bias=0.3 if name == "gambler" else 0)
    log = table.log
    assert isinstance(log[0], MatchStarted)
    state = new_match(ruleset, "m", target=log[0].target, first_dealer=log[0].first_dealer)
    for event in log[1:]:
        if isinstance(event, CardPlayed):
            deal = state.deal
            assert deal is not None
            if ruleset.tricks - len(deal.tricks) <= TRICKS_FROM_END:
                yield deal, event
        state = evolve(state, event)


def trick_points_by_deal(log, ruleset):  # type: ignore[no-untyped-def]
    """Each deal's card points and tricks taken by each side, from its TrickTaken events:
    {deal: [points 0, points 1, tricks 0, tricks 1]}."""
    out: dict[int, list[int]] = {}
    deal = -1
    for e in log:
        if isinstance(e, DealStarted):
            deal = e.deal_number
        elif isinstance(e, TrickTaken):
            side = side_of(e.seat)
            got = out.setdefault(deal, [0, 0, 0, 0])
            got[side] += e.points
            got[2 + side] += 1
    return out


def brute_values(ruleset, deal):  # type: ignore[no-untyped-def]
    """Each legal card's value by the brute force."""
    n = ruleset.players
    seat = (deal.leader + len(deal.trick)) % n
    legal = playable(deal.hands[seat], deal.trick, deal.strain, ruleset)
    won = 0
    for t in deal.tricks:
        won |= 1 << side_of(t.winner)
    if deal.strain == MISERE:
        won = 3
    left = ruleset.tricks - len(deal.tricks)
    hands, trick = list(deal.hands), list(deal.trick)
    return {
        c: brute_force(ruleset, deal.strain, hands, trick, deal.leader, left, won, only=c)
        for c in range(32)
        if legal >> c & 1
    }


def test_the_analysis_equals_a_brute_force_on_2000_positions_of_every_ruleset() -> None:
    counted = {name: 0 for name in NAMES}
    strains: set[tuple[str, int]] = set()
    for name in NAMES:
        ruleset = RULESETS[name]
        seed = 0
        while counted[name] < 500:
            for deal, _ in late_positions(name, seed):
                values = card_values(Solver(ruleset, deal.strain), ruleset, deal)
                assert values == brute_values(ruleset, deal), (name, seed, deal.number)
                counted[name] += 1
                strains.add((name, deal.strain))
            seed += 1
    assert sum(counted.values()) >= 2000, counted
    # Trump suits, and all trumps, no trumps and misère where the rules have them.
    assert {s for n, s in strains if n == "gambler"} >= {4, 5}, strains


@pytest.mark.parametrize("name", NAMES)
def test_a_whole_match_is_analysed_card_by_card(name: str) -> None:
    ruleset = RULESETS[name]
    table = random_match(name, 11, target=None)
    analysis = analyse(ruleset, table.log)
    played = [e for e in table.log if isinstance(e, CardPlayed)]
    cards = [c for d in analysis.deals for c in d.cards]
    assert [(c.seat, c.card) for c in cards] == [(e.seat, to_code(e.card)) for e in played]
    numbers = [d.deal for d in analysis.deals]
    assert numbers == sorted(set(numbers)), numbers  # one entry a deal played, in order
    scored = {e.deal_number for e in table.log if isinstance(e, DealScored)}
    assert set(numbers) <= scored
    for c in cards:
        best = max(c.values.values())
        assert c.card in c.values and c.loss == best - c.values[c.card] >= 0, c
        assert c.best and all(c.values[b] == best for b in c.best), c
    for seat in analysis.seats:
        mine = [c for c in cards if c.seat == seat.seat]
        assert seat.cards == len(mine) and seat.lost == sum(c.loss for c in mine)
        assert seat.best == sum(c.loss == 0 for c in mine)
        assert 0 <= seat.best_of_choices <= seat.choices <= seat.cards
    # The contract table: each strain's sides' points make the deal's whole (162 with
    # 32 cards in play, 252 with a capot), and a strain the rules offer is in it.
    for deal in analysis.deals:
        assert {c.strain for c in deal.contracts} >= {"clubs", "diamonds", "hearts", "spades"}
        for contract in deal.contracts:
            assert min(contract.points) >= 0, contract
            if ruleset.players == 4:
                assert sum(contract.points) in (162, 162 + ruleset.capot_bonus), contract
    # The margin, card by card: each card moves it by exactly the points it gave away,
    # and after the deal's last card it is what the tricks gave (the capot bonus aside).
    taken = trick_points_by_deal(table.log, ruleset)
    for deal in analysis.deals:
        margins = [deal.start, *(c.margin for c in deal.cards)]
        for c, before, after in zip(deal.cards, margins[:-1], margins[1:], strict=True):
            assert abs(after - before) == c.loss, (deal.deal, c)
        if len(deal.cards) == ruleset.players * ruleset.tricks:  # played to its end
            p0, p1, t0, t1 = taken[deal.deal]
            capot = ruleset.capot_bonus if min(t0, t1) == 0 and deal.strain != "misere" else 0
            want = p0 - p1 + (capot if t0 else -capot)
            assert deal.cards[-1].margin == want, (deal.deal, p0, p1, t0, t1)
    doc = analysis.to_json()
    assert doc["format"] == "belot-analysis/1" and len(doc["deals"]) == len(analysis.deals)


def test_a_seat_that_plays_the_best_cards_loses_nothing() -> None:
    """Seat 0 plays, at every card, one the solver gives the best value (the others play
    at random): the analysis finds it gave nothing away, and the others gave some."""
    rng = random.Random(5)
    ruleset = RULESETS["club"]
    table = Table(ruleset, target=300, first_dealer=1)

    def best_for_seat_0(seat: int) -> Card | None:
        deal = table.state.deal
        if seat != 0 or deal is None:
            return None
        values = card_values(Solver(ruleset, deal.strain), ruleset, deal)
        best = max(values.values())
        return rng.choice([c for c, v in values.items() if v == best])

    play_cards(table, rng, best_for_seat_0)
    analysis = analyse(ruleset, table.log, contracts=False)
    seats = {s.seat: s for s in analysis.seats}
    assert seats[0].cards >= 8 and seats[0].lost == 0 and seats[0].best == seats[0].cards
    assert sum(seats[s].lost for s in (1, 2, 3)) > 0, analysis.seats


def test_a_log_that_does_not_start_a_match_is_refused() -> None:
    table = random_match("club", 1, target=None)
    with pytest.raises(BadEvent):
        analyse(RULESETS["club"], table.log[1:])


@pytest.mark.parametrize("name", NAMES)
def test_one_table_for_a_whole_deal_gives_the_values_of_a_table_a_position(name: str) -> None:
    """The analysis solves a deal's positions with one solver table (Solver one_world):
    every card of the match's first deal has the values a fresh solver gives at its
    position, and the contract table's row of the deal's own strain, taken from the first
    card's values, is a fresh solve's."""
    ruleset = RULESETS[name]
    table = random_match(name, 5, target=None)
    analysis = analyse(ruleset, table.log)
    first = analysis.deals[0]
    log = table.log
    assert isinstance(log[0], MatchStarted)
    state = new_match(ruleset, "m", target=log[0].target, first_dealer=log[0].first_dealer)
    at_lead = None
    checked = 0
    for event in log[1:]:
        if isinstance(event, CardPlayed):
            deal = state.deal
            assert deal is not None
            if deal.number != first.deal:
                break
            at_lead = at_lead or deal
            fresh = card_values(Solver(ruleset, deal.strain), ruleset, deal)
            assert {to_code(c): v for c, v in fresh.items()} == first.cards[checked].values
            checked += 1
        state = evolve(state, event)
    assert checked == len(first.cards) > 0
    assert at_lead is not None
    assert first.contracts == contract_table(ruleset, at_lead)  # every row solved afresh


def test_a_value_carried_from_the_card_before_is_a_fresh_solves() -> None:
    """After a deal's first card the analysis knows the best card's value from the card
    before (its margin) and solves below it (Solver.values_below), except where the hands
    are not that position's less the card: in gambler a seat may swap the trump seven for
    the turned card before its first card, after the leader's. A gambler match with such
    swaps (deal 5 of this one) and a club match: every card's values are a fresh solver's
    at its position."""
    for name, seed in (("gambler", 10), ("club", 3)):
        ruleset = RULESETS[name]
        table = random_match(name, seed, target=None, pass_bias=0)
        log = table.log
        played, late_swaps = 0, 0  # cards of the deal so far; swaps after one of them
        for e in log:
            played = 0 if isinstance(e, DealStarted) else played + isinstance(e, CardPlayed)
            late_swaps += isinstance(e, TrumpSevenSwapped) and played > 0
        assert late_swaps > 0 if name == "gambler" else late_swaps == 0
        cards = iter(c for d in analyse(ruleset, log, contracts=False).deals for c in d.cards)
        assert isinstance(log[0], MatchStarted)
        state = new_match(ruleset, "m", target=log[0].target, first_dealer=log[0].first_dealer)
        checked = 0
        for event in log[1:]:
            if isinstance(event, CardPlayed):
                deal = state.deal
                assert deal is not None
                fresh = card_values(Solver(ruleset, deal.strain), ruleset, deal)
                assert {to_code(c): v for c, v in fresh.items()} == next(cards).values
                checked += 1
            state = evolve(state, event)
        assert checked > 8 * ruleset.players, checked
