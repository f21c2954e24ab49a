"""docs/specification.md §5, round-robin: the rule book, one test per rule."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from tests.tournament_kit import D, L, Run, W, robin
from tournament import Points, roundrobin, withdraw
from tournament.events import Started
from tournament.standings import standings


@pytest.mark.parametrize("n", range(2, 13))
def test_everyone_meets_everyone_exactly_once(n: int) -> None:
    names = [f"p{i}" for i in range(n)]
    met = Counter(
        frozenset(p.entrants) for r in roundrobin.schedule(names) for p in r if not p.is_bye
    )
    assert set(met) == {frozenset(pair) for pair in combinations(names, 2)}
    assert set(met.values()) == {1}


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_odd_count_each_sits_out_exactly_one_round(n: int) -> None:
    names = [f"p{i}" for i in range(n)]
    rounds = roundrobin.schedule(names)
    assert len(rounds) == n
    sat_out = Counter(p.a[0] for r in rounds for p in r if p.is_bye)
    assert sat_out == dict.fromkeys(names, 1)
    for r in rounds:  # and everyone else plays in that round
        assert sorted(e for p in r for e in p.entrants) == sorted(names)


def test_the_schedule_is_drawn_before_round_1_and_never_changes() -> None:
    run = Run(robin(), "abcd")
    events = run.pair()
    started = events[0]
    assert isinstance(started, Started) and len(started.schedule) == 3
    while not run.finished:
        number = len(run.state.rounds)
        assert [m.pairing for m in run.state.current.matches] == list(started.schedule[number - 1])
        run.finish_round(W)
        run.pair()
    assert run.finished.reason == "all_rounds_played"


def test_sitting_out_scores_a_win() -> None:
    run = Run(robin(), "abc")
    run.pair()
    (bye,) = [m for m in run.state.current.matches if m.pairing.is_bye]
    who = bye.pairing.a[0]
    row = next(r for r in standings(run.state) if r.entrant == who)
    assert (row.points, row.wins, row.byes, row.played) == (2, 1, 1, 0)


def test_a_match_nobody_wins_is_a_draw() -> None:
    run = Run(robin(), "ab")
    run.pair()
    run.result("a", D)
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["a"].draws == rows["b"].draws == 1 and rows["a"].points == 1


def test_rotating_partners_three_rounds_each_partner_once_each_opponent_twice() -> None:
    run = Run(robin(table_size=4, rotate_partners=True), "abcd")
    run.pair()
    partners, opponents = Counter(), Counter()
    while not run.finished:
        (m,) = run.state.current.matches
        p = m.pairing
        partners.update([frozenset(p.a), frozenset(p.b)])
        opponents.update(frozenset((x, y)) for x in p.a for y in p.b)
        run.finish_round(W)
        run.pair()
    assert len(run.state.rounds) == 3
    assert set(partners.values()) == {1} and len(partners) == 6
    assert set(opponents.values()) == {2} and len(opponents) == 6
    # each player is scored as a player: a partnered b, c, d in turn and side a won
    rows = {r.entrant: r.points for r in standings(run.state)}
    assert rows == {"a": 6, "b": 2, "c": 2, "d": 2}


# Ranking: points, then the match between them (among those level: the points each
# scored in their matches against the others), then points for minus points against,
# then the seed. Each case: entrants, results as (x, outcome for x, y, x's belot points,
# y's belot points), the order expected.
RANKING = {
    "head-to-head goes before points difference": (
        "abcd",
        [
            ("a", W, "b", 90, 72),
            ("a", L, "c", 80, 82),
            ("a", W, "d", 82, 80),
            ("b", W, "c", 160, 2),
            ("b", W, "d", 160, 2),
            ("c", L, "d", 80, 82),
        ],
        ["a", "b", "d", "c"],  # a and b on 4: a won their match; d beat c, both on 2
    ),
    "points difference when head-to-head is level": (
        "abc",
        [("a", W, "b", 100, 60), ("b", W, "c", 100, 90), ("a", L, "c", 95, 100)],
        ["a", "c", "b"],  # all on 4 with 2 head to head; differences +35, -5, -30
    ),
    "seed when everything is level": (
        "ab",
        [("b", D, "a", 81, 81)],
        ["a", "b"],
    ),
}


@pytest.mark.parametrize("entrants,results,expected", RANKING.values(), ids=RANKING.keys())
def test_ranking(entrants, results, expected) -> None:
    run = Run(robin(), entrants)
    plan = {frozenset((x, y)): (x, o, px, py) for x, o, y, px, py in results}
    run.pair()
    while not run.finished:
        for m in run.state.undecided(run.state.current):
            x, outcome, px, py = plan[frozenset(m.pairing.entrants)]
            run.result(x, outcome, px, py)
        run.pair()
    assert [r.entrant for r in standings(run.state)] == expected


def test_a_withdrawn_entrants_later_opponents_sit_out_with_a_win() -> None:
    run = Run(robin(), "abcd")
    run.pair()
    run.finish_round(D)
    run.do(withdraw(run.state, "d", run.now_ms))
    run.pair()
    byes = [m.pairing.a[0] for m in run.state.current.matches if m.pairing.is_bye]
    assert len(byes) == 1  # d's scheduled opponent sits the round out
    assert all("d" not in p for p in run.pairs())
    d = next(r for r in standings(run.state) if r.entrant == "d")
    assert (d.points, d.status) == (1, "withdrawn")  # keeps the draw


def test_losses_score_the_loss_points() -> None:
    run = Run(robin(points=Points(3, 1, 1)), "ab")
    run.pair()
    run.result("a", L)
    rows = {r.entrant: r.points for r in standings(run.state)}
    assert rows == {"a": 1, "b": 3}
