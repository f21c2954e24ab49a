"""docs/specification.md §5, elimination: the rule book, one test per rule."""

from __future__ import annotations

import pytest

from tests.tournament_kit import D, L, Run, W, knockout
from tournament import commands as c
from tournament import elimination
from tournament.standings import standings

SEEDING = {
    "bracket of 2": (2, [1, 2]),
    "bracket of 4": (4, [1, 4, 2, 3]),
    "bracket of 8": (8, [1, 8, 4, 5, 2, 7, 3, 6]),
    "bracket of 16": (16, [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]),
}


@pytest.mark.parametrize("size,order", SEEDING.values(), ids=SEEDING.keys())
def test_standard_seeding(size: int, order: list[int]) -> None:
    assert elimination.seed_positions(size) == order


@pytest.mark.parametrize("n,size", [(2, 2), (3, 4), (4, 4), (5, 8), (8, 8), (9, 16), (16, 16)])
def test_the_bracket_is_the_next_power_of_two(n: int, size: int) -> None:
    assert elimination.bracket_size(n) == size


@pytest.mark.parametrize(
    "n,through", [(3, ["a"]), (5, ["a", "b", "c"]), (6, ["a", "b"]), (7, ["a"]), (8, [])]
)
def test_the_highest_seeds_go_through_round_1_without_playing(n: int, through) -> None:
    run = Run(knockout(), "abcdefgh"[:n])
    run.pair()
    assert sorted(p[0] for p in run.pairs() if len(p) == 1) == through


def test_seeds_1_and_2_can_meet_only_in_the_final() -> None:
    run = Run(knockout(), "abcdefgh")
    run.pair()
    run.wins("a", "b", "c", "d")
    run.pair()
    assert sorted(run.pairs()) == [("a", "d"), ("b", "c")]
    run.wins("a", "b")
    run.pair()
    assert run.pairs() == [("a", "b")]


def test_win_and_go_on_lose_and_you_are_out_until_one_winner() -> None:
    run = Run(knockout(), "abcd")
    run.pair()
    run.wins("d", "b")  # d beats a, b beats c
    run.pair()
    assert run.pairs() == [("d", "b")]
    run.wins("b")
    (finished,) = run.pair()
    assert finished.reason == "final_decided" and finished.standings[0] == "b"
    places = [(r.entrant, dict(r.tie_breaks)["reached"]) for r in standings(run.state)]
    assert places == [("b", 3), ("d", 2), ("a", 1), ("c", 1)]


def test_best_of_three_first_to_two_wins() -> None:
    run = Run(knockout(best_of=3), "ab")
    run.pair()
    run.wins("a")
    assert run.state.undecided(run.state.current), "one win is not enough"
    run.wins("a")
    assert not run.state.undecided(run.state.current)
    assert run.pair()[0].standings[0] == "a"


def test_best_of_three_goes_to_a_third_game_at_one_all() -> None:
    run = Run(knockout(best_of=3), "abcd")
    run.pair()
    run.wins("a", "d")  # a-d: a 1-0
    run.result("b", W)
    run.wins("a")  # a 2-0: through; d is out
    run.result("c", W)  # b-c: 1-1
    assert len(run.match("b").games) == 2
    run.wins("b")
    assert run.pair()[0].pairings[0].entrants == ("a", "b")


def test_a_drawn_meeting_is_played_again_in_the_same_round() -> None:
    run = Run(knockout(), "abcd")
    run.pair()
    run.result("a", D)
    m = run.match("a")
    assert len(m.games) == 1 and len(run.state.rounds) == 1, "replayed, same round"
    with pytest.raises(Exception) as err:
        c.pair_next_round(run.state, 2, run.now_ms)
    assert getattr(err.value, "code", "") == "round_in_progress"
    run.result("a", L)  # the replay (game 2) decides: d goes through
    run.wins("b")
    run.pair()
    assert run.pairs() == [("d", "b")]


def test_a_best_of_three_ending_level_is_played_again() -> None:
    run = Run(knockout(best_of=3), "abcd")
    run.pair()
    for outcome in (W, L, D):  # 1-1 after three games: level
        run.result("a", outcome)
    assert run.state.match_of("a") is not None
    run.result("a", W)  # the replay's first game
    run.result("a", W)
    assert run.state.match_of("a") is None and len(run.state.rounds[0].matches[0].games) == 5


def test_a_drawn_final_goes_to_the_higher_seed() -> None:
    run = Run(knockout(), "abcd")
    run.pair()
    run.wins("d", "c")  # the final is c (seed 3) against d (seed 4)
    run.pair()
    run.result("d", D)
    finished = run.pair()[0]
    assert finished.reason == "final_decided" and finished.standings[:2] == ("c", "d")


def test_a_meeting_undecided_at_the_time_limit_sends_neither_on() -> None:
    run = Run(knockout(), "abcd")
    run.pair()
    run.wins("a")
    run.do(c.round_timeout(run.state, run.state.current.ends_at_ms))  # b-c undecided
    assert run.state.status["b"] == run.state.status["c"] == "active"  # lost, not "out"
    (finished,) = run.pair()  # nobody came through the other half: a has won
    assert finished.reason == "final_decided" and finished.standings[0] == "a"
    assert "a is the last one left" in finished.detail


def test_nobody_left_ends_without_a_winner() -> None:
    run = Run(knockout(), "ab")
    run.pair()
    run.do(c.round_timeout(run.state, run.state.current.ends_at_ms))
    finished = run.pair()[0]
    assert finished.reason == "no_one_left"
