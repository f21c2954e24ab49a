"""The double-dummy solver (belot.bots.solver, compiled with numba): its values are those
of a plain minimax over the ruleset's own legal cards, in every ruleset and strain; its
rules of the trick are the engine's; merging equivalent cards and the transposition
table change no value; a node limit stops it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from belot.bots.equivalent import reduce_equivalent
from belot.bots.solver import (
    NO_MERGE,
    NO_TABLE,
    Solver,
    _array,
    _reduce,
    rules_vector,
)
from belot.bots.solver import (
    playable as compiled_playable,
)
from belot.play import playable
from belot.ruleset import RULESETS, Ruleset, Strain
from tests.unit.game_support import brute_force, mask, random_hands


def random_position(
    seed: int, cards: int
) -> tuple[Ruleset, int, list[int], list[int], int, int, int]:
    """A ruleset, a strain, hands of ``cards`` cards and part of a first trick played."""
    rng = random.Random(seed)
    rules = rng.choice(sorted(RULESETS.values(), key=lambda r: r.name))
    strain = rng.randrange(7) if rules.players == 2 else rng.randrange(4)
    hands, leader, trick = random_hands(rng, rules, strain, cards)
    return rules, strain, hands, trick, leader, cards, rng.randrange(4)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 3))
def test_the_solver_equals_a_brute_force_minimax(seed: int, cards: int) -> None:
    rules, strain, hands, trick, leader, left, won = random_position(seed, cards)
    expected = brute_force(rules, strain, hands, trick, leader, left, won)
    assert Solver(rules, strain).value(hands, trick, leader, left, won) == expected


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_ruleset_and_strain_against_brute_force(name: str) -> None:
    """Each ruleset's own trick rules (partner exceptions, overtrumping, raising) and
    every strain it can play, on three-card endgames: each legal card's value."""
    rules = RULESETS[name]
    n = rules.players
    strains = range(7) if rules.second_round & {Strain.NO_TRUMPS} else range(4)
    rng = random.Random(name)
    for strain in strains:
        for _ in range(6):
            deck = list(range(32))
            rng.shuffle(deck)
            hands = [sum(1 << c for c in deck[s * 3 : (s + 1) * 3]) for s in range(n)]
            values = Solver(rules, strain).values(hands, [], 0, 3, 0)
            assert values is not None
            legal = playable(hands[0], (), strain, rules)
            assert set(values) == {c for c in range(32) if legal >> c & 1}
            for card, value in values.items():
                after = list(hands)
                after[0] &= ~(1 << card)
                expected = -brute_force(rules, strain, after, [card], 0, 3, 0)
                assert value == expected, (name, strain, card)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 8), played=st.integers(0, 3))
def test_the_compiled_rules_of_the_trick_are_the_engines(
    seed: int, cards: int, played: int
) -> None:
    """The search's legal cards (belot.bots.solver.playable) against the engine's
    belot.play.playable: random hands and tricks, every ruleset, every strain it plays
    (the partner exceptions, overtrumping and raising are the ruleset's)."""
    rng = random.Random(seed)
    rules = rng.choice(sorted(RULESETS.values(), key=lambda r: r.name))
    n = rules.players
    strain = rng.randrange(7)
    hands, leader, trick = random_hands(rng, rules, strain, cards, min(played, n - 1))
    seat = (leader + len(trick)) % n
    vector = rules_vector(rules, strain)
    assert compiled_playable(vector, hands[seat], _array(trick), leader) == playable(
        hands[seat], tuple(trick), strain, rules
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 5))
def test_equivalent_cards_and_the_table_change_no_value(seed: int, cards: int) -> None:
    rules, strain, hands, trick, leader, left, won = random_position(seed, cards)
    plain = Solver(rules, strain, flags=NO_TABLE | NO_MERGE)
    expected = plain.values(hands, trick, leader, left, won)
    for flags in (NO_MERGE, NO_TABLE, 0):
        solver = Solver(rules, strain, flags=flags)
        assert solver.values(hands, trick, leader, left, won) == expected


def test_a_tiny_table_still_gives_the_exact_values() -> None:
    """A table of 16 slots overwrites entries all the time: a lost entry costs a search
    again, never a wrong value."""
    for seed in range(20):
        rules, strain, hands, trick, leader, left, won = random_position(seed, 5)
        big = Solver(rules, strain).values(hands, trick, leader, left, won)
        assert Solver(rules, strain, table_bits=4).values(hands, trick, leader, left, won) == big


def test_the_table_saves_work_on_whole_deals() -> None:
    rules = RULESETS["classic"]
    rng = random.Random(3)
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * 6 : (s + 1) * 6]) for s in range(4)]
    with_table = Solver(rules, Strain.HEARTS)
    without = Solver(rules, Strain.HEARTS, flags=NO_TABLE)
    assert with_table.values(hands, [], 0, 6, 0) == without.values(hands, [], 0, 6, 0)
    assert with_table.nodes * 2 < without.nodes


def test_equivalent_cards_are_pointless_neighbours_in_the_order() -> None:
    # Spades plain (hearts trump): 7 8 9 of spades with nothing between them merge to
    # the 9; another hand's 8 splits them; a ten is never merged (it has points).
    assert reduce_equivalent(mask("7S 8S 9S TS"), mask("8C AH"), Strain.HEARTS) == mask("9S TS")
    assert reduce_equivalent(mask("7S 9S TS"), mask("8S"), Strain.HEARTS) == mask("7S 9S TS")
    assert reduce_equivalent(mask("7S 9S TS"), mask("8C"), Strain.HEARTS) == mask("9S TS")
    # Trump: the 9 is worth 14, so only 7 and 8 merge.
    assert reduce_equivalent(mask("7H 8H 9H"), 0, Strain.HEARTS) == mask("8H 9H")


@settings(max_examples=200, deadline=None)
@given(moves=st.integers(0, 2**32 - 1), others=st.integers(0, 2**32 - 1), strain=st.integers(0, 6))
def test_the_compiled_merge_is_the_rules(moves: int, others: int, strain: int) -> None:
    others &= ~moves
    assert _reduce(moves, others, strain) == reduce_equivalent(moves, others, strain)


def test_a_node_limit_stops_the_solve() -> None:
    rules, strain, hands, trick, leader, left, won = random_position(7, 5)
    solver = Solver(rules, strain)
    assert solver.values(hands, trick, leader, left, won, node_limit=50) is None
    assert solver.value(hands, trick, leader, left, won, node_limit=50) is None
    # The same solver answers once given the room (the aborted solve left no harm).
    assert solver.values(hands, trick, leader, left, won) == Solver(rules, strain).values(
        hands, trick, leader, left, won
    )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 5))
def test_one_search_gives_the_best_cards_value(seed: int, cards: int) -> None:
    rules, strain, hands, trick, leader, left, won = random_position(seed, cards)
    values = Solver(rules, strain).values(hands, trick, leader, left, won)
    assert values is not None
    assert Solver(rules, strain).value(hands, trick, leader, left, won) == max(values.values())


def test_one_solver_serves_many_worlds() -> None:
    """A decision's solver keeps one table for all its worlds (a generation each): each
    world's values are those of a fresh solver."""
    rules = RULESETS["club"]
    shared = Solver(rules, Strain.SPADES)
    for seed in range(12):
        rng = random.Random(seed)
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[s * 5 : (s + 1) * 5]) for s in range(4)]
        fresh = Solver(rules, Strain.SPADES).values(hands, [], seed % 4, 5, 0)
        assert shared.values(hands, [], seed % 4, 5, 0) == fresh


def brute_values(
    rules: Ruleset,
    strain: int,
    hands: list[int],
    trick: list[int],
    leader: int,
    left: int,
    won: int,
) -> dict[int, int]:
    """Each legal card's value by the brute-force minimax."""
    seat = (leader + len(trick)) % rules.players
    legal = playable(hands[seat], tuple(trick), strain, rules)
    return {
        c: brute_force(rules, strain, hands, trick, leader, left, won, only=c)
        for c in range(32)
        if legal >> c & 1
    }  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 4))
def test_values_below_a_known_best_are_the_brute_forces(seed: int, cards: int) -> None:
    """Solver.values_below (the match analysis's, given the best card's value): every
    legal card's value, and those of a subset of them, are the brute force's."""
    rules, strain, hands, trick, leader, left, won = random_position(seed, cards)
    expected = brute_values(rules, strain, hands, trick, leader, left, won)
    best = max(expected.values())
    solver = Solver(rules, strain)
    assert solver.values_below(hands, trick, leader, left, won, best) == expected
    some = sorted(expected)[::2]
    got = solver.values_below(hands, trick, leader, left, won, best, some)
    assert got == {c: expected[c] for c in some}


def test_values_below_stop_at_the_node_limit() -> None:
    # Five cards to choose from, of three values (seed 7's one card is a capot, which the
    # bounds on the points still to take prove without a search).
    rules, strain, hands, trick, leader, left, won = random_position(5, 5)
    best = max(brute_values(rules, strain, hands, trick, leader, left, won).values())
    solver = Solver(rules, strain)
    assert solver.values_below(hands, trick, leader, left, won, best, node_limit=20) is None


def test_one_world_solver_starts_new_worlds_and_strains() -> None:
    """One table for many deals and strains (Solver one_world, new_world between them, as
    the match analysis keeps one a match): each solve's values are the brute force's."""
    rules = RULESETS["club"]
    shared = Solver(rules, Strain.SPADES, one_world=True, table_bits=10)
    for seed in range(16):
        rng = random.Random(seed)
        strain = seed % 4
        hands, leader, trick = random_hands(rng, rules, strain, 3)
        shared.new_world(strain)
        expected = brute_values(rules, strain, hands, trick, leader, 3, 0)
        assert shared.values(hands, trick, leader, 3, 0) == expected, seed
        assert shared.value(hands, trick, leader, 3, 0) == max(expected.values()), seed
