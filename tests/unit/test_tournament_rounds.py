"""docs/specification.md §5, "in every format with rounds": teams, the seat window, the round's time
limit, withdrawing; and registration, idempotence and the errors' codes."""

from __future__ import annotations

import pytest

from tests.tournament_kit import SECOND, T0, D, L, Run, W, knockout, robin, swiss
from tournament import commands as c
from tournament.errors import TournamentError
from tournament.events import MatchReported, RoundTimedOut, SeatNoShow, Started, Withdrew
from tournament.settings import Format, Points, Seeding, Settings
from tournament.standings import standings
from tournament.state import Status, replay

# --- teams at tables of four ---------------------------------------------------------


@pytest.mark.parametrize("settings", [swiss(table_size=4), robin(table_size=4)], ids=str)
def test_teams_are_formed_when_round_1_is_paired_and_kept_to_the_end(settings) -> None:
    run = Run(settings, ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"])
    assert run.state.teams == {}
    started = run.pair()[0]
    assert isinstance(started, Started)
    # balanced by seed: 1 with 8, 2 with 7, …
    assert [t.players for t in started.teams] == [
        ("p1", "p8"),
        ("p2", "p7"),
        ("p3", "p6"),
        ("p4", "p5"),
    ]
    teams = set(run.state.teams)
    while not run.finished:
        assert {e for p in run.pairs() for e in p} <= teams
        run.finish_round(W)
        run.pair()
    assert run.state.teams == {t.id: t.players for t in started.teams}
    assert {r.entrant for r in standings(run.state)} == teams


def test_teams_need_an_even_number_of_players() -> None:
    run = Run(swiss(table_size=4), ["p1", "p2", "p3", "p4", "p5"])
    with pytest.raises(TournamentError) as err:
        run.pair()
    assert err.value.code == "odd_players_for_teams"


def test_a_player_speaks_for_their_team() -> None:
    run = Run(swiss(table_size=4), ["p1", "p2", "p3", "p4"])
    run.pair()
    run.do(c.withdraw(run.state, "p4", run.now_ms))  # p4 partners p1 in team-1
    assert run.state.status["team-1"] is Status.WITHDRAWN
    assert run.events[-1] == Withdrew("team-1", run.now_ms)


# --- the seat window -------------------------------------------------------------------


def test_no_seat_within_3_minutes_means_out_of_the_tournament_and_the_match_lost() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()  # a-c, b-d
    with pytest.raises(TournamentError) as err:
        c.no_show(run.state, "c", T0 + 179 * SECOND)
    assert err.value.code == "seat_window_open"
    (event,) = run.do(c.no_show(run.state, "c", T0 + 180 * SECOND))
    assert event == SeatNoShow(1, 1, "c", T0 + 180 * SECOND)
    assert run.state.status["c"] is Status.OUT
    assert c.no_show(run.state, "c", T0 + 200 * SECOND) == []  # once is enough
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["a"].wins == 1 and rows["c"].losses == 1 and rows["c"].status == "out"
    run.result("b", W)
    run.pair()
    assert all("c" not in p for p in run.pairs())


def test_the_seat_window_of_a_later_game_runs_from_that_game() -> None:
    run = Run(knockout(best_of=3), "ab")
    run.pair()
    run.now_ms = T0 + 600 * SECOND
    run.result("a", W)  # game 2's table opens now_ms
    with pytest.raises(TournamentError):
        c.no_show(run.state, "b", T0 + (600 + 179) * SECOND)
    assert c.no_show(run.state, "b", T0 + 780 * SECOND)


def test_a_result_may_say_who_never_turned_up() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()
    run.do(c.record_result(run.state, 1, 1, W, L, run.now_ms, no_show=["c"]))
    assert run.state.status["c"] is Status.OUT


# --- the round's time limit --------------------------------------------------------------


def test_an_undecided_match_at_the_time_limit_is_lost_by_both() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()
    run.result("a", W)
    ends = run.state.current.ends_at_ms
    assert ends == T0 + 3600 * SECOND
    assert c.round_timeout(run.state, ends - 1) == []
    (event,) = run.do(c.round_timeout(run.state, ends))
    assert event == RoundTimedOut(1, (), ends)
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["b"].losses == rows["d"].losses == 1 and rows["b"].points == 0
    assert c.round_timeout(run.state, ends + 5) == []  # once


def test_unless_one_side_never_turned_up_then_only_that_side_loses() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()  # a-c, b-d
    run.do(c.round_timeout(run.state, T0 + 3600 * SECOND, never_seated=["d"]))
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["b"].wins == 1 and rows["d"].losses == 1
    assert rows["a"].losses == rows["c"].losses == 1
    assert run.state.status["d"] is Status.OUT


def test_a_table_may_report_a_game_stopped_by_the_clock() -> None:
    run = Run(swiss(rounds=1), "ab")
    run.pair()
    run.do(c.record_result(run.state, 1, 1, L, L, run.now_ms, 40, 30, timed_out=True))
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["a"].losses == rows["b"].losses == 1


# --- withdrawing -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [robin(), swiss(rounds=3), knockout()], ids=str)
def test_withdrawing_keeps_the_score_and_is_never_paired_again(fmt) -> None:
    run = Run(fmt, "abcd")
    run.pair()
    run.result("a", W)
    run.do(c.withdraw(run.state, "a", run.now_ms))
    run.finish_round(W)
    row = next(r for r in standings(run.state) if r.entrant == "a")
    assert row.status == "withdrawn" and row.wins == 1
    while not run.finished:
        run.pair()
        if not run.finished:
            assert all("a" not in p for p in run.pairs())
            run.finish_round(W)


def test_withdrawing_mid_match_loses_it() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()  # a-c
    run.do(c.withdraw(run.state, "c", run.now_ms))
    rows = {r.entrant: r for r in standings(run.state)}
    assert rows["a"].wins == 1 and rows["c"].losses == 1


def test_a_tournament_whose_entrants_all_withdrew_ends() -> None:
    run = Run(swiss(rounds=3), "ab")
    run.pair()
    run.do(c.withdraw(run.state, "a", run.now_ms))
    events = run.do(c.withdraw(run.state, "b", run.now_ms))
    assert events[-1].reason == "all_withdrew"
    assert run.state.is_finished


def test_withdrawing_before_the_start_just_leaves() -> None:
    run = Run(swiss(), "abc")
    run.do(c.withdraw(run.state, "b", run.now_ms))
    assert run.state.entered == ("a", "c")
    run.do(c.enter(run.state, "b", run.now_ms))  # and may come back before the start
    assert run.state.entered == ("a", "c", "b")


# --- registration and seeding --------------------------------------------------------------


def test_registration_cap_and_rating_band() -> None:
    run = Run(swiss(max_entrants=2, min_rating=1400, max_rating=1800), "a")
    for rating in (1399.0, 1800.5):
        with pytest.raises(TournamentError) as err:
            c.enter(run.state, "b", run.now_ms, {"b": rating})
        assert err.value.code == "rating_out_of_band"
    run.do(c.enter(run.state, "b", run.now_ms, {"b": 1800}))
    with pytest.raises(TournamentError) as err:
        c.enter(run.state, "c", run.now_ms)
    assert err.value.code == "tournament_full"


@pytest.mark.parametrize(
    "how,kw,expected",
    [
        (Seeding.RATING, {"ratings": {"c": 1900, "a": 1400}}, ("c", "b", "d", "a")),
        (Seeding.MANUAL, {"manual": ["d", "c", "b", "a"]}, ("d", "c", "b", "a")),
    ],
    ids=["rating", "manual"],
)
def test_seeding(how, kw, expected) -> None:
    run = Run(Settings(Format.SWISS, rounds=1, seeding=how), "abcd")
    started = run.pair(**kw)[0]
    assert started.order == expected
    # (random: drawn from a named drand round, tests/unit/test_tournament_draw.py)


# --- idempotence and deadlines ---------------------------------------------------------


def test_pairing_a_round_already_paired_appends_nothing() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()
    assert c.pair_next_round(run.state, 1, run.now_ms) == []
    run.finish_round(W)
    run.do(c.pair_next_round(run.state, 2, run.now_ms))
    assert c.pair_next_round(run.state, 2, run.now_ms) == []
    assert c.pair_next_round(run.state, 1, run.now_ms) == []


def test_a_repeated_result_appends_nothing_and_a_different_one_conflicts() -> None:
    run = Run(swiss(rounds=1), "ab")
    run.pair()
    (first,) = run.do(c.record_result(run.state, 1, 1, W, L, run.now_ms, 90, 72))
    assert isinstance(first, MatchReported)
    assert c.record_result(run.state, 1, 1, W, L, run.now_ms + 5, 90, 72) == []
    with pytest.raises(TournamentError) as err:
        c.record_result(run.state, 1, 1, L, W, run.now_ms, 72, 90)
    assert err.value.code == "result_conflict"


def test_deadlines_come_from_the_events_alone() -> None:
    run = Run(swiss(rounds=1, round_ms=1200 * SECOND), "abcd")
    run.pair()
    assert [(d.kind, d.at_ms) for d in c.deadlines(run.state)] == [
        ("seat", T0 + 180 * SECOND),
        ("seat", T0 + 180 * SECOND),
        ("round", T0 + 1200 * SECOND),
    ]
    replayed = c.deadlines(replay(run.events))
    assert replayed == c.deadlines(run.state)


# --- refusals: each with its code --------------------------------------------------------


def _started() -> Run:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()
    return run


REFUSALS = {
    "entering twice": (lambda: Run(swiss(), "a"), lambda s: c.enter(s, "a", T0), "already_entered"),
    "entering after the start": (_started, lambda s: c.enter(s, "e", T0), "registration_closed"),
    "withdrawing without entering": (
        lambda: Run(swiss(), "a"),
        lambda s: c.withdraw(s, "z", T0),
        "not_entered",
    ),
    "next round while one is played": (
        _started,
        lambda s: c.pair_next_round(s, 2, T0),
        "round_in_progress",
    ),
    "skipping a round": (_started, lambda s: c.pair_next_round(s, 3, T0), "wrong_round"),
    "too few to start": (
        lambda: Run(swiss(), "a"),
        lambda s: c.pair_next_round(s, 1, T0),
        "not_enough_entrants",
    ),
    "a result for no match": (
        _started,
        lambda s: c.record_result(s, 1, 9, W, L, T0),
        "unknown_match",
    ),
    "a draw that is a win": (_started, lambda s: c.record_result(s, 1, 1, W, D, T0), "bad_result"),
    "both lose without the clock": (
        _started,
        lambda s: c.record_result(s, 1, 1, L, L, T0),
        "bad_result",
    ),
    "game 2 before game 1": (
        _started,
        lambda s: c.record_result(s, 1, 1, W, L, T0, game=2),
        "bad_result",
    ),
    "a ladder match in a Swiss": (
        _started,
        lambda s: c.record_ladder_match(s, "m", {"a": W}, T0, T0),
        "wrong_format",
    ),
    "creating twice": (
        _started,
        lambda s: c.create(s, "t2", swiss(), T0),
        "tournament_exists",
    ),
    "bad settings": (
        lambda: Run(swiss(), ""),
        lambda s: c.create(type(s)(), "t", Settings(Format.SWISS), T0),
        "bad_settings",
    ),
    "manual seeding missing someone": (
        lambda: Run(Settings(Format.SWISS, rounds=1, seeding=Seeding.MANUAL), "abc"),
        lambda s: c.pair_next_round(s, 1, T0, manual=["a", "b"]),
        "bad_seeding",
    ),
}


@pytest.mark.parametrize("build,command,code", REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals_carry_a_stable_code(build, command, code) -> None:
    run = build()
    with pytest.raises(TournamentError) as err:
        command(run.state)
    assert err.value.code == code
    assert err.value.message


# --- an organiser's correction -------------------------------------------------------


def test_a_corrected_result_re_derives_points_and_tie_breaks() -> None:
    run = Run(swiss(rounds=2), "abcd")
    run.pair()  # a-c, b-d
    run.wins("a", "b")
    run.pair()  # a-b, c-d
    run.wins("a", "c")
    before = {
        r.entrant: (r.points, dict(r.tie_breaks)["opponents_points"]) for r in standings(run.state)
    }
    assert before["a"] == (4, 4) and before["c"] == (2, 4)
    (fix,) = run.do(c.correct_result(run.state, 1, 1, 1, L, W, run.now_ms, reason="reversed"))
    assert fix.reason == "reversed"
    after = {
        r.entrant: (r.points, dict(r.tie_breaks)["opponents_points"]) for r in standings(run.state)
    }
    assert after["a"] == (2, 6) and after["c"] == (4, 2)
    assert replay(run.events) == run.state  # the correction is an event like any other
    assert c.correct_result(run.state, 1, 1, 1, L, W, run.now_ms) == []  # once


def test_a_correction_that_would_change_who_went_through_is_too_late_once_paired() -> None:
    run = Run(knockout(), "abcd")
    run.pair()
    run.wins("a", "b")
    run.do(c.correct_result(run.state, 1, 1, 1, W, L, run.now_ms, 90, 10))  # points only
    run.pair()
    with pytest.raises(TournamentError) as err:
        c.correct_result(run.state, 1, 1, 1, L, W, run.now_ms)
    assert err.value.code == "correction_too_late"


def test_repeats_after_the_end_append_nothing() -> None:
    run = Run(swiss(rounds=1), "ab")
    run.pair()
    run.result("a", W, 90, 72)
    run.do(c.withdraw(run.state, "b", run.now_ms))
    (finished,) = run.pair()
    assert finished.reason == "all_rounds_played"
    late = run.now_ms + 10 * SECOND
    assert c.record_result(run.state, 1, 1, W, L, late, 90, 72) == []  # a late duplicate
    assert c.withdraw(run.state, "b", late) == []
    assert c.round_timeout(run.state, run.state.current.ends_at_ms + 1) == []  # a late timer
    assert c.pair_next_round(run.state, 2, late) == []
    for command in (
        lambda: c.withdraw(run.state, "a", late),
        lambda: c.correct_result(run.state, 1, 1, 1, L, W, late),
        lambda: c.pair_next_round(run.state, 3, late),
    ):
        with pytest.raises(TournamentError) as err:
            command()
        assert err.value.code == "already_finished"


BAD_SETTINGS = {
    "a table of three": Settings(Format.SWISS, rounds=3, table_size=3),
    "Swiss without rounds": Settings(Format.SWISS),
    "rounds outside Swiss": Settings(Format.ROUND_ROBIN, rounds=3),
    "best of two": Settings(Format.ELIMINATION, best_of=2),
    "best of three outside elimination": Settings(Format.SWISS, rounds=3, best_of=3),
    "rotating partners at a table of two": Settings(Format.ROUND_ROBIN, rotate_partners=True),
    "a draw worth a win": Settings(Format.LADDER, points=Points(1, 1, 0)),
    "no time for a round": Settings(Format.LADDER, round_ms=0),
    "a ladder of no days": Settings(Format.LADDER, ladder_days=0),
    "a cap of one": Settings(Format.LADDER, max_entrants=1),
    "an upside-down band": Settings(Format.LADDER, min_rating=1800, max_rating=1200),
}


@pytest.mark.parametrize("settings", BAD_SETTINGS.values(), ids=BAD_SETTINGS.keys())
def test_settings_that_make_no_sense_are_refused(settings) -> None:
    with pytest.raises(TournamentError) as err:
        c.create(replay([]), "t", settings, T0)
    assert err.value.code == "bad_settings"


def test_a_player_id_cannot_pass_for_a_team() -> None:
    run = Run(swiss(table_size=4))
    with pytest.raises(TournamentError) as err:
        c.enter(run.state, "team-1", T0)
    assert err.value.code == "not_entered"
