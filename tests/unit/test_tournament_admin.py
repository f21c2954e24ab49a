"""The organiser's commands of the core: edit before the start, cancel, terminate."""

from __future__ import annotations

import dataclasses

import pytest

from tests.tournament_kit import T0, Run
from tournament import codec
from tournament import commands as c
from tournament.errors import TournamentError
from tournament.events import CANCELLED, TERMINATED, SettingsChanged
from tournament.settings import Format, Settings
from tournament.state import replay


def _swiss(n: int = 4) -> Run:
    return Run(Settings(Format.SWISS, rounds=2), [f"p{i}" for i in range(1, n + 1)])


def test_edit_before_the_start_replaces_the_settings() -> None:
    run = _swiss()
    new = dataclasses.replace(run.state.settings, rounds=3, max_entrants=6)
    events = run.do(c.edit(run.state, new, T0))
    assert events == [SettingsChanged(new, T0)]
    assert run.state.settings.rounds == 3
    assert replay(run.events).settings == new
    payload = codec.to_payload(events[0])
    assert codec.from_payload("SettingsChanged", payload) == events[0]
    assert c.edit(run.state, new, T0) == []  # the same again: nothing


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"rounds": 0}, "bad_settings"),
        ({"max_entrants": 3}, "bad_settings"),  # four have entered
        ({"format": Format.ROUND_ROBIN, "rounds": 0}, "bad_settings"),
    ],
)
def test_edit_refuses_what_makes_no_sense(change: dict[str, object], code: str) -> None:
    run = _swiss()
    with pytest.raises(TournamentError) as info:
        c.edit(run.state, dataclasses.replace(run.state.settings, **change), T0)  # type: ignore[arg-type]
    assert info.value.code == code


def test_edit_after_the_start_is_refused() -> None:
    run = _swiss()
    run.pair()
    with pytest.raises(TournamentError) as info:
        c.edit(run.state, dataclasses.replace(run.state.settings, rounds=3), T0)
    assert info.value.code == "already_started"


def test_cancel_before_the_start_finishes_with_nobody_placed() -> None:
    run = _swiss()
    (event,) = run.do(c.cancel(run.state, T0))
    assert run.state.is_finished and event.reason == CANCELLED and event.standings == ()
    with pytest.raises(TournamentError) as info:
        c.cancel(run.state, T0)
    assert info.value.code == "already_finished"


def test_cancel_after_the_start_is_refused_and_terminate_before_it_too() -> None:
    run = _swiss()
    with pytest.raises(TournamentError) as info:
        c.terminate(run.state, T0)
    assert info.value.code == "not_started"
    run.pair()
    with pytest.raises(TournamentError) as info:
        c.cancel(run.state, T0)
    assert info.value.code == "already_started"


def test_terminate_fixes_the_standings_as_they_stand() -> None:
    run = _swiss()
    run.pair()
    first = run.pairs()[0]
    run.wins(first[1])
    (event,) = run.do(c.terminate(run.state, T0))
    assert event.reason == TERMINATED
    assert event.standings[0] == first[1]
    assert c.deadlines(run.state) == []
    assert c.pair_next_round(run.state, 2, T0) == []  # the end: no round 2
    with pytest.raises(TournamentError) as info:
        c.terminate(run.state, T0)
    assert info.value.code == "already_finished"
