"""docs/specification.md §5, Swiss: the rule book, one test per rule, and the pairing
method's edges."""

from __future__ import annotations

import pytest

from tests.tournament_kit import D, L, Run, W, swiss
from tournament import swiss as pairing
from tournament.errors import NoValidPairing
from tournament.standings import standings


def points(run: Run) -> dict[str, int]:
    return {r.entrant: r.points for r in standings(run.state)}


def test_round_1_top_half_meets_bottom_half_by_seed() -> None:
    run = Run(swiss(), "abcdefgh")
    run.pair()
    assert run.pairs() == [("a", "e"), ("b", "f"), ("c", "g"), ("d", "h")]


def test_each_round_meets_the_same_points_when_it_can() -> None:
    run = Run(swiss(rounds=3), "abcdefgh")
    run.pair()
    run.wins("a", "b", "c", "d")
    run.pair()
    pts = points(run)
    assert all(pts[x] == pts[y] for x, y in run.pairs())
    # within a score group the top half meets the bottom half again
    assert run.pairs() == [("a", "c"), ("b", "d"), ("e", "g"), ("f", "h")]


def test_closest_score_when_a_group_cannot_pair_within_itself() -> None:
    run = Run(swiss(rounds=3), "abcdef")
    run.pair()  # a-d, b-e, c-f
    run.wins("a", "b")
    run.result("c", D)
    run.pair()
    pts = points(run)
    # a and b on 2 meet; c and f (on 1) have met, so each meets one of d and e (on 0)
    assert run.pairs()[0] == ("a", "b")
    assert sorted(abs(pts[x] - pts[y]) for x, y in run.pairs()) == [0, 1, 1]
    assert {x for x, _ in run.pairs()[1:]} == {"c", "f"}


def test_a_floater_meets_the_nearest_group() -> None:
    run = Run(swiss(rounds=3), "abcd")
    run.pair()  # a-c, b-d
    run.wins("a")
    run.result("b", D)
    run.pair()
    # a 2, b 1, d 1, c 0: b-d have room in their group; a floats down, c up
    pts = points(run)
    assert sum(abs(pts[x] - pts[y]) for x, y in run.pairs()) == 2
    assert all(x != "a" or y != "c" for x, y in run.pairs())  # no rematch


def test_never_the_same_opponent_twice() -> None:
    run = Run(swiss(rounds=3), "abcd")
    seen: set[frozenset[str]] = set()
    for _ in range(3):
        run.pair()
        for p in run.pairs():
            assert frozenset(p) not in seen
            seen.add(frozenset(p))
        run.finish_round(W)
    assert len(seen) == 6  # 3 rounds of 4: every pair once


def test_odd_count_the_bye_goes_to_the_lowest_placed_who_has_not_sat_out() -> None:
    run = Run(swiss(rounds=3), "abc")
    run.pair()
    assert run.pairs()[-1] == ("c",)  # the lowest seed sits out round 1
    run.result("b", W)  # b 2, c 2 (bye), a 0
    run.pair()
    assert run.pairs()[-1] == ("a",)  # a is placed lowest and has not sat out
    run.finish_round(W)
    run.pair()
    assert run.pairs()[-1] == ("b",)  # the only one left who has not sat out


def test_sitting_out_scores_a_win_and_nobody_sits_out_twice() -> None:
    run = Run(swiss(rounds=4), "abc")
    sat_out: list[str] = []
    while True:
        run.pair()
        if run.finished:
            break
        (bye,) = [p for p in run.pairs() if len(p) == 1]
        sat_out.append(bye[0])
        run.finish_round(L)
    assert sorted(sat_out) == ["a", "b", "c"]
    assert run.finished.reason == "no_valid_pairing"  # round 4: all three sat out
    assert "nobody may sit out" in run.finished.detail
    assert all(r.byes == 1 and r.wins >= 1 for r in standings(run.state))


def test_no_valid_round_ends_the_tournament_and_says_why() -> None:
    run = Run(swiss(rounds=4), "abcd")
    for _ in range(3):
        run.pair()
        run.finish_round(W)
    (finished,) = run.pair()
    assert finished.reason == "no_valid_pairing"
    assert "round 4 cannot be paired" in finished.detail
    assert finished.standings == tuple(r.entrant for r in standings(run.state))


def greedy(ranked: list[str], met: dict[str, set[str]]) -> list[tuple[str, str]] | None:
    """The top-down pass the matching replaces: each takes the first one not met."""
    left, pairs = list(ranked), []
    while left:
        x = left.pop(0)
        y = next((y for y in left if y not in met[x]), None)
        if y is None:
            return None
        left.remove(y)
        pairs.append((x, y))
    return pairs


def test_the_matching_pairs_everyone_where_a_greedy_pass_dead_ends() -> None:
    ranked = list("abcdef")
    met = {x: set() for x in ranked}
    for x, y in [("a", "b"), ("e", "f"), ("c", "e"), ("d", "e")]:
        met[x].add(y)
        met[y].add(x)
    assert greedy(ranked, met) is None  # a-c, b-d, then e and f have met
    found = pairing.pair(ranked, dict.fromkeys(ranked, 0), met, set())
    assert len(found.pairs) == 3
    assert all(y not in met[x] for x, y in found.pairs)


def test_forbidden_pairs_never_meet() -> None:
    run = Run(swiss(rounds=1), "abcd")
    run.pair(forbidden=[frozenset("ac")])
    assert ("a", "c") not in run.pairs() and len(run.pairs()) == 2


# Ranking: points, then opponents' points, then rating, then seed.
def test_ranking_opponents_points_break_a_tie_of_points() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()  # a-c, b-d
    run.wins("a", "d")
    run.pair()  # a-d, b-c
    assert run.pairs() == [("a", "d"), ("b", "c")]
    run.result("a", D)
    run.result("c", W)
    table = standings(run.state)
    assert [(r.entrant, r.points) for r in table] == [("a", 3), ("d", 3), ("c", 2), ("b", 0)]
    assert dict(table[0].tie_breaks)["opponents_points"] == 5  # c 2 + d 3
    assert dict(table[1].tie_breaks)["opponents_points"] == 3  # b 0 + a 3
    assert "c 2 + d 3 = 5" in table[0].how


def test_ranking_rating_breaks_a_tie_of_points_and_opponents_points() -> None:
    run = Run(swiss(rounds=1), "ab")
    run.pair()
    run.result("a", D)
    assert [r.entrant for r in standings(run.state, {"b": 1600})] == ["b", "a"]
    assert [r.entrant for r in standings(run.state)] == ["a", "b"]  # 1500 each: seed


def test_the_restricted_graph_widens_when_it_has_no_perfect_matching() -> None:
    ranked = [f"p{i}" for i in range(8)]
    met = {x: set() for x in ranked}
    # p0 has met everyone within reach of a window of 1, and its ideal partner's
    for y in ("p1", "p3", "p4", "p5"):
        met["p0"].add(y)
        met[y].add("p0")
    found = pairing.pair(ranked, dict.fromkeys(ranked, 0), met, set(), window=1, full_graph_up_to=0)
    assert found.widened and len(found.pairs) == 4
    assert all(y not in met[x] for x, y in found.pairs)


def test_pairing_fewer_than_two_is_refused() -> None:
    with pytest.raises(NoValidPairing) as err:
        pairing.pair(["a"], {"a": 0}, {}, set())
    assert err.value.code == "no_valid_pairing"
