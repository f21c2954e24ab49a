"""docs/specification.md §5, ladder: the rule book, one test per rule."""

from __future__ import annotations

import pytest

from tests.tournament_kit import T0, D, L, Run, W, ladder
from tournament import commands as c
from tournament.errors import TournamentError
from tournament.settings import MS_PER_DAY
from tournament.standings import standings

DAY = MS_PER_DAY


def started(days: int = 2, entrants: str = "abc") -> Run:
    run = Run(ladder(ladder_days=days), entrants)
    run.do(c.start(run.state, T0))
    return run


def record(run: Run, match_id: str, outcomes: dict, at: int, **kw) -> list:
    return run.do(c.record_ladder_match(run.state, match_id, outcomes, at, at, **kw))


def points(run: Run, ratings=None) -> list[tuple[str, int]]:
    return [(r.entrant, r.points) for r in standings(run.state, ratings)]


def test_every_rated_match_in_the_window_scores_as_many_as_you_play() -> None:
    run = started()
    for k in range(3):
        record(run, f"m{k}", {"a": W, "b": L}, T0 + k)
    record(run, "m3", {"a": D, "c": D}, T0 + 10)
    assert points(run) == [("a", 7), ("c", 1), ("b", 0)]


@pytest.mark.parametrize(
    "at,counts", [(T0 - 1, False), (T0, True), (T0 + 2 * DAY - 1, True), (T0 + 2 * DAY, False)]
)
def test_only_matches_within_the_days_count(at: int, counts: bool) -> None:
    run = started(days=2)
    assert bool(c.record_ladder_match(run.state, "m", {"a": W}, at, at)) is counts


def test_leaving_a_match_counts_as_a_loss() -> None:
    run = started()
    record(run, "m", {"a": W, "b": L}, T0 + 1, left=["a"])
    assert dict(points(run))["a"] == 0
    row = next(r for r in standings(run.state) if r.entrant == "a")
    assert row.losses == 1


def test_withdrawing_keeps_the_points_and_later_matches_do_not_count() -> None:
    run = started()
    record(run, "m1", {"a": W, "b": L}, T0 + 1)
    run.do(c.withdraw(run.state, "a", T0 + 100))
    assert c.record_ladder_match(run.state, "m2", {"a": W}, T0 + 200, T0 + 200) == []
    # a match played before the withdrawal but reported after it still counts
    record(run, "m0", {"a": W, "c": L}, T0 + 50)
    assert dict(points(run))["a"] == 4


def test_ranking_total_then_rating() -> None:
    run = started()
    record(run, "m", {"a": D, "b": D}, T0 + 1)
    assert points(run, {"b": 1700})[:2] == [("b", 1), ("a", 1)]
    assert points(run)[:2] == [("a", 1), ("b", 1)]  # 1500 each: entry order


def test_the_same_match_twice_or_another_ruleset_scores_nothing() -> None:
    run = started()
    record(run, "m", {"a": W}, T0 + 1)
    assert c.record_ladder_match(run.state, "m", {"a": W}, T0 + 1, T0 + 2) == []
    assert c.record_ladder_match(run.state, "x", {"a": W}, T0 + 1, T0 + 2, ruleset="gambler") == []


def test_late_entrants_join_a_running_ladder() -> None:
    run = started()
    run.do(c.enter(run.state, "d", T0 + 10))
    record(run, "m", {"d": W}, T0 + 11)
    assert dict(points(run))["d"] == 2


def test_the_ladder_finishes_when_its_days_are_over() -> None:
    run = started(days=1)
    record(run, "m", {"b": W}, T0 + 1)
    assert c.finish_if_due(run.state, T0 + DAY - 1) == []
    (finished,) = run.do(c.finish_if_due(run.state, T0 + DAY))
    assert finished.reason == "ladder_ended" and finished.standings[0] == "b"
    with pytest.raises(TournamentError) as err:
        c.enter(run.state, "z", T0 + DAY + 1)
    assert err.value.code == "already_finished"


def test_a_ladder_has_no_rounds() -> None:
    run = started()
    with pytest.raises(TournamentError) as err:
        c.pair_next_round(run.state, 1, T0)
    assert err.value.code == "wrong_format"
