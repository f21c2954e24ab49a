"""A random seeding's draw in the core: entries close and a drand round is named; the
round's beacon orders the field with ``fairdeal.draw``; nothing chosen after the naming
changes it (withdrawals are applied after the draw, the numbers are fixed, there is no
second naming)."""

from __future__ import annotations

import pytest

from fairdeal.draw import (
    DRAW_CHAIN,
    DRAW_ROUND_LEAD_MS,
    draw_order,
    draw_round_for,
    randomness_of,
)
from tests.tournament_kit import DRAW_T0, SECOND, SIGNATURES, Run, knockout, ladder, robin, swiss
from tournament import commands as c
from tournament import elimination
from tournament.errors import TournamentError
from tournament.events import (
    DrawMade,
    DrawRoundNamed,
    Entered,
    RoundPaired,
    Started,
    TournamentCreated,
)
from tournament.settings import Format, Seeding, Settings
from tournament.state import Status, replay

RANDOM = {"seeding": Seeding.RANDOM}


def refused(code: str, fn, *args, **kw) -> None:
    with pytest.raises(TournamentError) as err:
        fn(*args, **kw)
    assert err.value.code == code, err.value.message


def named_run(settings: Settings, entrants="abcdefgh") -> Run:
    run = Run(settings, entrants, now_ms=DRAW_T0)
    run.pair()
    return run


def test_starting_names_the_round_and_draws_nothing_yet() -> None:
    run = Run(knockout(**RANDOM), "abcdefgh", now_ms=DRAW_T0)
    (named,) = run.pair()
    assert named == DrawRoundNamed(
        tuple("abcdefgh"),
        DRAW_CHAIN,
        draw_round_for(DRAW_CHAIN, DRAW_T0, DRAW_ROUND_LEAD_MS),
        named.due_at_ms,
        DRAW_ROUND_LEAD_MS,
        DRAW_T0,
    )
    assert named.round == 1001 and named.due_at_ms > DRAW_T0 + DRAW_ROUND_LEAD_MS
    assert not run.state.is_started and run.state.is_draw_pending
    assert c.deadlines(run.state) == []


def test_the_draw_is_the_recipe_of_the_rounds_value() -> None:
    run = named_run(knockout(**RANDOM))
    made, started, paired = run.draw()
    randomness = randomness_of(SIGNATURES[1001])
    expected = draw_order(randomness, "t1", tuple("abcdefgh"))
    assert made == DrawMade(DRAW_CHAIN, 1001, SIGNATURES[1001], randomness, expected, made.at_ms)
    assert made.at_ms >= run.state.naming.due_at_ms
    assert isinstance(started, Started) and started.order == expected
    assert isinstance(paired, RoundPaired)
    bracket = elimination.first_round(expected)
    assert [(m.a[0], m.b[0]) for m in paired.pairings] == bracket
    assert run.state.is_started and not run.state.is_draw_pending


def test_teams_and_schedule_follow_the_draw() -> None:
    run = named_run(robin(table_size=4, **RANDOM))
    made, started, _ = run.draw()
    order = made.order
    assert [t.players for t in started.teams] == [
        (order[0], order[7]), (order[1], order[6]), (order[2], order[5]), (order[3], order[4])
    ]  # fmt: skip
    assert started.order == ("team-1", "team-2", "team-3", "team-4")
    assert len(started.schedule) == 3


def test_one_naming_per_tournament() -> None:
    run = named_run(swiss(rounds=2, **RANDOM))
    refused("draw_named", c.name_draw_round, run.state, run.now_ms + SECOND)
    refused("draw_pending", c.start, run.state, run.now_ms + SECOND)
    refused("draw_pending", c.pair_next_round, run.state, 1, run.now_ms + SECOND)
    run.draw()
    refused("already_started", c.name_draw_round, run.state, run.now_ms)


def test_entries_and_numbers_are_fixed_once_named() -> None:
    run = named_run(swiss(rounds=2, **RANDOM))
    refused("registration_closed", c.enter, run.state, "z", run.now_ms)
    for changed in (swiss(rounds=2), swiss(rounds=3, **RANDOM)):
        refused("draw_named", c.edit, run.state, changed, run.now_ms)


def test_a_withdrawal_while_the_round_is_awaited_leaves_the_draw_as_it_is() -> None:
    run = named_run(swiss(rounds=2, **RANDOM))
    run.do(c.withdraw(run.state, "c", run.now_ms + SECOND))
    refused("registration_closed", c.enter, run.state, "c", run.now_ms + SECOND)
    made, started, paired = run.draw()
    # The field as named, withdrawn included: the draw is the same without the withdrawal.
    assert made.order == draw_order(randomness_of(SIGNATURES[1001]), "t1", tuple("abcdefgh"))
    assert started.order == made.order
    assert run.state.status["c"] is Status.WITHDRAWN
    assert run.state.withdrawn_at_ms == {"c": DRAW_T0 + SECOND}
    paired_entrants = {e for p in paired.pairings for e in p.entrants}
    assert "c" not in paired_entrants and len(paired_entrants) == 7


def test_a_players_withdrawal_withdraws_their_team() -> None:
    run = named_run(swiss(rounds=1, table_size=4, ruleset="club", **RANDOM))
    run.do(c.withdraw(run.state, "h", run.now_ms + SECOND))
    run.draw()
    team = run.state.team_of["h"]
    assert run.state.status[team] is Status.WITHDRAWN
    assert sum(s is Status.ACTIVE for s in run.state.status.values()) == 3


def test_everyone_withdrawn_before_the_draw_ends_the_tournament() -> None:
    run = named_run(swiss(rounds=1, **RANDOM), "ab")
    run.do(c.withdraw(run.state, "a", run.now_ms))
    run.do(c.withdraw(run.state, "b", run.now_ms))
    events = run.draw()
    assert [type(e).__name__ for e in events] == ["DrawMade", "Started", "TournamentFinished"]
    assert run.state.finished.reason == "too_few_to_pair"


def test_the_beacon_must_be_the_named_rounds_and_due() -> None:
    run = named_run(swiss(rounds=1, **RANDOM))
    named = run.state.naming
    due = named.due_at_ms
    refused("wrong_draw_round", c.make_draw, run.state, 1002, SIGNATURES[1002], due)
    refused("draw_pending", c.make_draw, run.state, 1001, SIGNATURES[1001], due - 1)
    run.draw()
    assert c.make_draw(run.state, 1001, SIGNATURES[1001], due + SECOND) == []
    refused("already_started", c.make_draw, run.state, 1001, SIGNATURES[1002], due)


def test_no_draw_without_a_naming() -> None:
    run = Run(swiss(rounds=1, **RANDOM), "ab", now_ms=DRAW_T0)
    refused("draw_not_named", c.make_draw, run.state, 1001, SIGNATURES[1001], run.now_ms)
    rated = Run(swiss(rounds=1), "ab", now_ms=DRAW_T0)
    refused("bad_seeding", c.name_draw_round, rated.state, DRAW_T0)
    assert isinstance(rated.pair()[0], Started)  # rating and manual are not drawn


def test_the_field_is_checked_when_named() -> None:
    run = Run(swiss(rounds=1, **RANDOM), "a", now_ms=DRAW_T0)
    refused("not_enough_entrants", c.start, run.state, DRAW_T0)
    teams = Run(robin(table_size=4, **RANDOM), "abcde", now_ms=DRAW_T0)
    refused("odd_players_for_teams", c.start, teams.state, DRAW_T0)


def test_calling_off_is_refused_once_the_round_is_out() -> None:
    run = named_run(swiss(rounds=1, **RANDOM))
    due = run.state.naming.due_at_ms
    assert c.cancel(run.state, due - 1)  # its value is unknown to all: nothing to reroll
    refused("draw_named", c.cancel, run.state, due)


def test_a_ladder_is_not_drawn() -> None:
    run = Run(ladder(**RANDOM), "ab", now_ms=DRAW_T0)
    (started,) = run.do(c.start(run.state, DRAW_T0))
    assert isinstance(started, Started) and started.order == ("a", "b")


def test_an_old_random_tournament_still_folds() -> None:
    """Streams from before the draw: Started with the order, no naming."""
    settings = Settings(Format.SWISS, rounds=1, seeding=Seeding.RANDOM)
    old = [
        TournamentCreated("old", settings, 1),
        Entered("a", 2),
        Entered("b", 3),
        Started(("b", "a"), (), (), None, 4),
    ]
    state = replay(old)
    assert state.is_started and state.order == ("b", "a") and state.naming is None
    assert state.active == ("b", "a")
    assert c.pair_next_round(state, 1, 5)[0].round == 1
