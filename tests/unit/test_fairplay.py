"""The fair-play evidence of a finished match (belot.fairplay): each card played with its
double-dummy value and the known-best card's (what the seat could know gives, the hard
bot's on a fixed budget: recomputed the same), the gain between them, and a seat's score
(the gains' self-normalised sum). A seat that always plays the double-dummy best card
never loses to the known-best card and scores high; a seat that plays the known-best card
gains nothing; a seat whose gains are fair coins stays under Efron's bound."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from belot.analysis import analyse, card_values
from belot.bots.solver import Solver
from belot.cards import to_code
from belot.commands import PlayCard
from belot.events import CardPlayed
from belot.fairplay import FLAG_SCORE, Decision, decisions, evidence, score
from belot.ruleset import RULESETS
from belot.view import view
from tests.unit.game_support import Table, play_cards
from tests.unit.test_game_properties import random_match


@pytest.mark.parametrize(
    ("gains", "expected"),
    [([], 0.0), ([0, 0], 0.0), ([3, 40], 2 / math.sqrt(2)), ([-2, 20, 1], 1 / math.sqrt(3)),
     ([5, 0], 1.0), ([-5], -1.0), ([7, -7, 0, 7, 7], 2 / 2)],
)  # fmt: skip
def test_the_score_is_the_signs_sum_over_the_root_of_their_count(
    gains: list[int], expected: float
) -> None:
    assert score(gains) == pytest.approx(expected)


def test_fair_coin_gains_stay_under_efrons_bound() -> None:
    """Gains of any sizes whose signs are fair coins (an honest seat against the bot it
    is): how often the score reaches t is at most exp(-t**2 / 2), counted over 20,000
    seats of 60 decisions each."""
    rng = random.Random(5)
    sizes = [rng.choice((0, 0, 0, 2, 4, 10, 11, 20, 30, 44)) for _ in range(60)]
    scores = [score(s if rng.random() < 0.5 else -s for s in sizes) for _ in range(20_000)]
    for t in (1.0, 2.0, 2.5, FLAG_SCORE):
        assert sum(x >= t for x in scores) / len(scores) <= math.exp(-t * t / 2), t
    # ...and the bound is not empty: a seat whose gains lean positive passes it.
    leaning = [score(s if rng.random() < 0.9 else -s for s in sizes) for _ in range(2_000)]
    assert sum(x >= FLAG_SCORE for x in leaning) / len(leaning) > 0.5


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
    cards = {(c.deal, c.trick, c.index): c for d in analysis.deals for c in d.cards}
    for d in made:
        card = cards[(d.deal, d.trick, d.index)]
        assert d.dd_best == card.best
        assert d.gain == card.values[d.played] - card.values[d.known_best]
        assert d.choice == (len(set(card.values.values())) > 1)
    assert any(d.gain > 0 for d in made) and any(d.gain < 0 for d in made)
    assert any(d.choice for d in made) and any(not d.choice for d in made)


def test_a_seat_that_sees_every_card_never_loses_to_the_known_best_and_is_flagged() -> None:
    """Seat 0 plays a double-dummy best card every time (it sees every hand); seat 2 plays
    the known-best card (what it could know). Seat 0 never loses a point to the known-best
    card and its score passes the flag; seat 2 gains nothing and is not flagged."""
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
    seer = evidence([d for d in made if d.seat == 0])
    known = evidence([d for d in made if d.seat == 2])
    assert seer.n >= 10 and all(d.gain >= 0 for d in seer.decisions), seer
    assert seer.flagged and seer.score >= FLAG_SCORE and seer.bound <= 0.01, seer.score
    assert seer.gain == sum(d.gain for d in seer.decisions) > 0
    assert known.n > 0 and known.gain == 0 and known.score == 0.0 and not known.flagged
    assert all(isinstance(d, Decision) and d.choice for d in seer.decisions)
    # Both seats' decisions together: the partnership's evidence.
    pair = evidence([d for d in made if d.seat in (0, 2)])
    assert pair.n == seer.n + known.n and pair.gain == seer.gain


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
    everything = evidence([replace(d, acted_by=None) for d in seat0])
    own = evidence(seat0)
    assert [d.acted_by for d in seat0] == [acted[i] for i in mine]
    assert all(d.by_player for d in own.decisions)
    assert own.n == sum(d.choice for d in seat0 if d.acted_by == "player")
    assert 0 < own.n < everything.n and own.gain < everything.gain, (own.n, everything.n)
    assert own.score < everything.score
    # A list that does not name every card is refused.
    with pytest.raises(ValueError, match="acted_by"):
        decisions(ruleset, table.log, analysis, lowest_legal, acted_by=acted[:-1])
    with pytest.raises(ValueError, match="acted_by"):
        decisions(ruleset, table.log, analysis, lowest_legal, acted_by=[*acted, "player"])
