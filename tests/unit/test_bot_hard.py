"""The hard bot (belot.bots.hard): legal cards only, in every ruleset, on both of its
paths (exact solves late in the deal, play-outs earlier); its budget bounds its work."""

from __future__ import annotations

import random

import pytest

from belot import RULESETS, view
from belot.bots import choose, hard
from belot.bots.solver import Solver
from belot.cards import FULL_DECK, Card
from belot.match import DueKind, due
from tests.unit.game_support import Table


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_hard_bot_plays_only_legal_cards_over_many_random_deals(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hard bots at every seat, shuffled decks, 30 deals a ruleset: every command is one
    of the view's legal moves, and the exact solver was used on the way."""
    solves = []
    values = Solver.values

    def counted(self: Solver, *args, **kwargs):  # type: ignore[no-untyped-def]
        solves.append(1)
        return values(self, *args, **kwargs)

    monkeypatch.setattr(Solver, "values", counted)
    rng = random.Random(name)
    ruleset = RULESETS[name]
    table = Table(ruleset, target=10**6)
    deals = 0
    while deals < 30:
        d = due(table.state)
        if d.kind is DueKind.DECK:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            table.deck([Card(c) for c in deck])
            deals += 1
            continue
        assert d.seat is not None
        v = view(table.state, d.seat)
        command = choose(v, rng, "hard", 16)
        assert command in v.legal, (name, command)
        table.do(command)
    assert solves, "the exact path never ran"
    table.check_replay()


def test_the_budget_bounds_the_exact_solves() -> None:
    """A budget of one unit buys NODES_PER_UNIT positions: the bot still answers, with a
    legal card, however few worlds that solves."""
    rng = random.Random(4)
    table = Table(RULESETS["classic"], target=10**6)
    seen = 0
    while seen < 30:
        d = due(table.state)
        if d.kind is DueKind.DECK:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            table.deck([Card(c) for c in deck])
            continue
        assert d.seat is not None
        v = view(table.state, d.seat)
        command = choose(v, rng, "hard", 1)
        assert command in v.legal
        if len(v.hand) <= hard.EXACT_CARDS:
            seen += 1
        table.do(command)
