"""The play-outs (belot.bots.sim): :func:`finish`, the fast loop the hard bot's play-outs
run, plays exactly the cards that ``play(pos, greedy_card(pos))`` plays step by step,
in every ruleset and strain, from any point of a trick; and every card is legal."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from belot.bots.sim import Position, finish, greedy_card, play
from belot.play import playable
from belot.ruleset import RULESETS
from tests.unit.game_support import random_hands


def random_position(seed: int) -> Position:
    rng = random.Random(seed)
    rules = rng.choice(sorted(RULESETS.values(), key=lambda r: r.name))
    n = rules.players
    strain = rng.randrange(7)
    k = rng.randrange(1, rules.tricks + 1)
    hands, leader, trick = random_hands(rng, rules, strain, k)
    return Position(
        ruleset=rules,
        strain=strain,
        taker=rng.randrange(-1, n),
        hands=hands,
        trick=trick,
        leader=leader,
        points=[0, 0],
        tricks=[0, 0],
        tricks_left=k,
        bonus=[0, 0],
        melds=[0, 0],
    )


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_finish_plays_the_greedy_cards_step_by_step(seed: int) -> None:
    fast = random_position(seed)
    slow = fast.copy()
    finish(fast)
    played = 0
    while slow.tricks_left:
        seat = slow.to_play
        card = greedy_card(slow)
        legal = playable(slow.hands[seat], tuple(slow.trick), slow.strain, slow.ruleset)
        assert legal >> card & 1
        play(slow, card)
        played += 1
    assert played <= slow.ruleset.tricks * slow.ruleset.players
    assert (fast.points, fast.tricks, fast.leader, fast.hands, fast.trick) == (
        slow.points,
        slow.tricks,
        slow.leader,
        slow.hands,
        slow.trick,
    )
    assert fast.hands == [0] * fast.ruleset.players
