"""Events round-trip through JSON; standings export as JSON, NDJSON and CSV; doctests."""

from __future__ import annotations

import csv
import doctest
import io
import json

import pytest

import tournament.elimination
import tournament.roundrobin
from tests.tournament_kit import (
    DRAW_T0,
    SECOND,
    T0,
    D,
    L,
    Run,
    W,
    knockout,
    ladder,
    robin,
    swiss,
)
from tournament import codec, export
from tournament import commands as c
from tournament.errors import TournamentError
from tournament.events import EVENT_CLASSES, Entered
from tournament.settings import Seeding
from tournament.standings import TIE_BREAKS, standings
from tournament.state import replay


def every_event() -> list:
    """A stream of every event type, made by the commands."""
    events = []
    run = Run(robin(table_size=4), ["p1", "p2", "p3", "p4"])
    run.pair()
    run.do(c.no_show(run.state, "p1", T0 + 180 * SECOND))
    run.do(c.withdraw(run.state, "p2", T0 + 200 * SECOND))
    run.pair()
    events += run.events
    run = Run(swiss(rounds=2), "abcd")
    run.do(c.edit(run.state, swiss(rounds=1), T0))
    run.pair()
    run.result("a", W, 90, 72)
    run.do(c.correct_result(run.state, 1, 1, 1, W, L, T0, 91, 72, reason="typo"))
    run.do(c.round_timeout(run.state, T0 + 3600 * SECOND, never_seated=["d"]))
    run.pair()
    events += run.events
    run = Run(swiss(rounds=1, seeding=Seeding.RANDOM), "abcd", now_ms=DRAW_T0)
    run.pair()
    run.do(c.withdraw(run.state, "c", run.now_ms + SECOND))
    run.draw()
    events += run.events
    run = Run(ladder(), "ab")
    run.do(c.start(run.state, T0))
    run.do(c.record_ladder_match(run.state, "m1", {"a": W, "b": L}, T0, T0, left=["b"]))
    events += run.events
    return events


def test_every_event_type_round_trips_through_json() -> None:
    events = every_event()
    assert {type(e) for e in events} == set(EVENT_CLASSES)
    for e in events:
        text = json.dumps(codec.to_payload(e))
        back = codec.from_payload(codec.event_type(e), json.loads(text))
        assert back == e
        assert json.loads(text)["schema"] == e.SCHEMA == 1
        assert not _floats(codec.to_payload(e)), "the event log refuses floats"


def _floats(value) -> list:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    return []


def test_a_replay_of_decoded_events_gives_the_same_state() -> None:
    run = Run(knockout(best_of=3), "abcde")
    run.pair()
    run.wins("d", "d")
    run.pair()
    decoded = [
        codec.from_payload(e.TYPE, json.loads(json.dumps(codec.to_payload(e)))) for e in run.events
    ]
    assert replay(decoded) == run.state


@pytest.mark.parametrize(
    "type_name,payload,code",
    [
        ("Nonsense", {}, "unknown_event"),
        ("Entered", {"schema": 1, "entrant": "a"}, "bad_payload"),
        ("Entered", {"schema": 1, "entrant": 5, "at_ms": 1}, "bad_payload"),
        ("Entered", {"schema": 1, "entrant": "a", "at_ms": 1.5}, "bad_payload"),
        ("Entered", {"schema": 2, "entrant": "a", "at_ms": 1}, "bad_payload"),
        ("Entered", {"schema": 0, "entrant": "a", "at_ms": 1}, "bad_payload"),
    ],
)
def test_a_payload_that_does_not_fit_is_refused(type_name, payload, code) -> None:
    with pytest.raises(TournamentError) as err:
        codec.from_payload(type_name, payload)
    assert err.value.code == code


def test_an_old_schema_is_upcast_on_read(monkeypatch) -> None:
    monkeypatch.setattr(Entered, "SCHEMA", 2)
    monkeypatch.setitem(
        codec.UPCASTERS, ("Entered", 1), lambda p: {"entrant": p["player"], "at_ms": p["at_ms"]}
    )
    assert codec.from_payload("Entered", {"player": "a", "at_ms": 3}) == Entered("a", 3)


def finished_swiss() -> Run:
    run = Run(swiss(rounds=2), ["a", "b,c", 'd"e', "f"])
    run.pair()
    run.result("a", W, 100, 62)
    run.result("f", D, 81, 81)
    run.pair()
    run.finish_round(W)
    return run


@pytest.mark.parametrize("settings", [robin(), swiss(), knockout(), ladder()], ids=str)
def test_exports_have_every_tie_break_column_in_the_order_applied(settings) -> None:
    run = Run(settings, "abc")
    run.do(c.start(run.state, T0))
    columns = list(export.rows(standings(run.state))[0])
    assert columns[: len(export.BASE_COLUMNS)] == list(export.BASE_COLUMNS)
    tie_breaks = [name for name, _ in TIE_BREAKS[settings.format] if name != "points"]
    assert columns[len(export.BASE_COLUMNS) :] == [*tie_breaks, "how"]


def test_json_ndjson_and_csv_say_the_same() -> None:
    table = standings(finished_swiss().state)
    rows = export.rows(table)
    assert json.loads(export.to_json(table)) == rows
    assert [json.loads(line) for line in export.to_ndjson(table).splitlines()] == rows
    parsed = list(csv.DictReader(io.StringIO(export.to_csv(table), newline="")))
    assert [r["entrant"] for r in parsed] == [r["entrant"] for r in rows]  # quoting survives
    assert [r["how"] for r in parsed] == [r["how"] for r in rows]
    assert parsed[0]["points"] == str(rows[0]["points"])


@pytest.mark.parametrize("module", [tournament.elimination, tournament.roundrobin])
def test_doctests(module) -> None:
    assert doctest.testmod(module).failed == 0
