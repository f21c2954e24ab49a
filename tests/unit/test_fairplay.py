"""The fair-play evidence of a finished match (belot.fairplay): each card played with the
double-dummy best cards and the known-best card (what the seat could know gives, the
hard bot's on a fixed budget: recomputed the same), the decisions that discriminate, a
seat's hits and the binomial tail against an honest rate. A seat that always plays the
double-dummy best card hits on every discriminating decision; a seat that plays the
known-best card never does."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import pytest

from belot.analysis import analyse, card_values
from belot.bots.solver import Solver
from belot.cards import to_code
from belot.commands import PlayCard
from belot.events import CardPlayed
from belot.fairplay import Decision, binomial_tail, decisions, evidence
from belot.ruleset import RULESETS
from belot.view import view
from tests.unit.game_support import Table, play_cards
from tests.unit.test_game_properties import random_match


def brute_tail(k: int, n: int, p: float) -> float:
    """``P(X >= k)`` over every outcome of ``n`` trials, one by one."""
    total = 0.0
    for outcome in itertools.product((0, 1), repeat=n):
        if sum(outcome) >= k:
            total += math.prod(p if x else 1 - p for x in outcome)
    return total


@pytest.mark.parametrize(("k", "n", "p"), [(0, 5, 0.3), (3, 8, 0.2), (8, 8, 0.5), (5, 10, 0.25),
                                           (1, 1, 0.9), (9, 8, 0.1), (0, 0, 0.4)])  # fmt: skip
def test_the_binomial_tail_is_the_sum_over_every_outcome(k: int, n: int, p: float) -> None:
    assert binomial_tail(k, n, p) == pytest.approx(brute_tail(k, n, p), abs=1e-12)


def test_the_binomial_tail_refuses_what_is_no_binomial() -> None:
    for args in ((-1, 3, 0.5), (1, -3, 0.5), (1, 3, 1.5), (1, 3, -0.1)):
        with pytest.raises(ValueError):
            binomial_tail(*args)


def lowest_legal(seat_view, rng):  # type: ignore[no-untyped-def]
    """A stand-in for the known-best card: the lowest legal card (cheap, deterministic)."""
    return min(m.card for m in seat_view.legal if isinstance(m, PlayCard))


def test_every_card_is_a_decision_with_the_analysis_best_cards() -> None:
    ruleset = RULESETS["club"]
    table = random_match("club", 4, target=None)
    analysis = analyse(ruleset, table.log, contracts=False)
    made = decisions(ruleset, table.log, analysis, lowest_legal)
    played = [e for e in table.log if isinstance(e, CardPlayed)]
    assert [(d.seat, d.played) for d in made] == [(e.seat, to_code(e.card)) for e in played]
    best = {(c.deal, c.trick, c.index): c.best for d in analysis.deals for c in d.cards}
    for d in made:
        assert d.dd_best == best[(d.deal, d.trick, d.index)]
        assert d.discriminating == (d.known_best not in d.dd_best)
        assert d.hit == (d.discriminating and d.played in d.dd_best)
    assert any(d.discriminating for d in made) and any(not d.discriminating for d in made)


def test_a_seat_that_sees_every_card_hits_every_time_and_stands_out() -> None:
    """Seat 0 plays a double-dummy best card every time (it sees every hand); seat 2 plays
    the known-best card (what it could know). Seat 0 hits on each of its discriminating
    decisions, seat 2 on none, and seat 0's tail against a generous honest rate is rare."""
    rng = random.Random(9)
    ruleset = RULESETS["club"]
    table = Table(ruleset, target=1001, first_dealer=1)

    def card_of(seat: int):  # type: ignore[no-untyped-def]
        deal = table.state.deal
        if seat == 0 and deal is not None:  # every hand seen
            values = card_values(Solver(ruleset, deal.strain), ruleset, deal)
            return max(values, key=lambda c: (values[c], -c))
        return lowest_legal(view(table.state, 2), rng) if seat == 2 else None

    play_cards(table, rng, card_of)
    analysis = analyse(ruleset, table.log, contracts=False)
    made = decisions(ruleset, table.log, analysis, lowest_legal)
    seer = evidence([d for d in made if d.seat == 0], p0=0.3)
    known = evidence([d for d in made if d.seat == 2], p0=0.3)
    assert seer.n >= 5 and seer.k == seer.n and seer.rate == 1.0, seer
    assert known.k == 0 and known.tail == 1.0, known
    assert seer.tail == pytest.approx(0.3**seer.n) and seer.tail < 0.01
    assert all(isinstance(d, Decision) and d.discriminating for d in seer.decisions)


def test_the_known_best_card_is_the_hard_bots_and_recomputes_the_same() -> None:
    ruleset = RULESETS["gambler"]
    table = random_match("gambler", 2, target=None)
    analysis = analyse(ruleset, table.log, contracts=False)
    first = decisions(ruleset, table.log, analysis)
    again = decisions(ruleset, table.log, analysis)
    assert [d.known_best for d in first] == [d.known_best for d in again]
    assert len(first) == sum(isinstance(e, CardPlayed) for e in table.log)
    # Each known-best card is one the seat could play, as the hard bot chose it.
    for d in first[:6]:
        assert d.known_best in analysis_values(analysis, d)


def analysis_values(analysis, d):  # type: ignore[no-untyped-def]
    return next(
        c.values for x in analysis.deals for c in x.cards
        if (c.deal, c.trick, c.index) == (d.deal, d.trick, d.index)
    )  # fmt: skip


def test_cards_the_clock_or_autoplay_played_for_a_seat_are_no_evidence() -> None:
    """The seer of the test above, but the turn clock played some of its cards and
    autoplay others (their events' acted_by, as the record holds it): those cards hit as
    well (they are double-dummy best), yet the evidence counts only the player's own."""
    rng = random.Random(9)
    ruleset = RULESETS["club"]
    table = Table(ruleset, target=1001, first_dealer=1)

    def card_of(seat: int):  # type: ignore[no-untyped-def]
        deal = table.state.deal
        if seat == 0 and deal is not None:
            values = card_values(Solver(ruleset, deal.strain), ruleset, deal)
            return max(values, key=lambda c: (values[c], -c))
        return None

    play_cards(table, rng, card_of)
    analysis = analyse(ruleset, table.log, contracts=False)
    played = [e for e in table.log if isinstance(e, CardPlayed)]
    mine = [i for i, e in enumerate(played) if e.seat == 0]
    acted = ["player"] * len(played)
    for n, i in enumerate(mine):
        if n % 3 == 1:
            acted[i] = "timer"
        elif n % 3 == 2:
            acted[i] = "autoplay"
    made = decisions(ruleset, table.log, analysis, lowest_legal, acted_by=acted)
    seat0 = [d for d in made if d.seat == 0]
    everything = evidence([replace(d, acted_by=None) for d in seat0], p0=0.3)
    own = evidence(seat0, p0=0.3)
    assert [d.acted_by for d in seat0] == [acted[i] for i in mine]
    assert all(d.by_player for d in own.decisions)
    assert own.n == sum(d.discriminating for d in seat0 if d.acted_by == "player")
    assert 0 < own.n < everything.n and own.k == own.n, (own.n, everything.n)
    assert own.tail > everything.tail
    # A list that does not name every card is refused.
    with pytest.raises(ValueError, match="acted_by"):
        decisions(ruleset, table.log, analysis, lowest_legal, acted_by=acted[:-1])
    with pytest.raises(ValueError, match="acted_by"):
        decisions(ruleset, table.log, analysis, lowest_legal, acted_by=[*acted, "player"])
