"""The tournament service's pure glue: seats at a pairing's table, a table's result read
as the core's, who sat down, requests parsed into settings, the stream's fold."""

from __future__ import annotations

import pytest

from services.tournament import domain
from services.tournament.domain import Assigned, Config, Refused, Seat
from tests.tournament_kit import T0, Run
from tournament import codec
from tournament.settings import Format, Settings


def test_a_side_is_a_table_side_teams_sit_opposite() -> None:
    run = Run(Settings(Format.SWISS, rounds=1, table_size=4), ["p1", "p2", "p3", "p4"])
    run.pair()
    pairing = run.state.rounds[0].matches[0].pairing
    seats = domain.seats_for(run.state, pairing)
    a, b = run.state.players_of(pairing.a[0]), run.state.players_of(pairing.b[0])
    assert [s.player for s in seats] == [a[0], b[0], a[1], b[1]]
    assert [s.entrant for s in seats] == [pairing.a[0], pairing.b[0], pairing.a[0], pairing.b[0]]


def test_bots_sit_as_bots_and_humans_on_reserved_seats() -> None:
    run = Run(Settings(Format.SWISS, rounds=1, ruleset="gambler"), ["bot:hard:1", "ann"])
    run.pair()
    pairing = run.state.rounds[0].matches[0].pairing
    seats = domain.seats_for(run.state, pairing)
    loaded = domain.Loaded(run.state, Config(name="x"))
    request = domain.table_request(loaded, pairing, seats, "r1m1g1")
    kinds = {s.player: s.bot for s in seats}
    assert kinds == {"bot:hard:1": "hard", "ann": None}
    by_player = dict(zip([s.player for s in seats], request["seats"], strict=True))
    assert by_player == {"bot:hard:1": "bot:hard", "ann": {"kind": "human", "player": "ann"}}
    assert request["creator"] == "tournament:t1" and request["ruleset"] == "gambler"


@pytest.mark.parametrize(
    ("payload", "scores", "expected"),
    [
        ({"winner": 0, "finished": True}, (1001, 540), ("win", "loss", 1001, 540)),
        ({"winner": 1, "finished": False, "leaver": 0}, None, ("loss", "win", 0, 0)),
        ({"winner": None, "finished": True}, (500, 500), ("draw", "draw", 500, 500)),
        ({"winner": None, "finished": False}, None, None),  # an abort: no result
    ],
)
def test_a_tables_result(payload, scores, expected) -> None:
    result = domain.result_of(payload, scores)
    got = None if result is None else (result.a, result.b, result.a_points, result.b_points)
    assert got == expected


def test_who_sat_down() -> None:
    events = [
        ("TableOpened", {}),
        ("SeatTaken", {"seat": 0, "player": "ann"}),
        ("SeatTaken", {"seat": 2, "player": "bob"}),
        ("SeatLeft", {"seat": 2, "player": "bob", "forfeit": False}),
    ]
    seated, began = domain.seated_players(events)
    assert seated == {"ann"} and not began
    a = Assigned(
        1,
        1,
        1,
        "t",
        "t-1",
        (
            Seat(0, "team-1", "ann", None),
            Seat(1, "team-2", "bot:easy:1", "easy"),
            Seat(2, "team-1", "bob", None),
            Seat(3, "team-2", "bot:easy:2", "easy"),
        ),
        T0,
    )
    assert domain.missing_entrants(a, seated) == ["team-1"]
    seated, began = domain.seated_players(
        [*events, ("FairDealOpened", {"seats": [{"seat": 2, "player": "bob"}]})]
    )
    assert began and domain.missing_entrants(a, seated) == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"format": "chess"}, "bad_request"),
        ({"format": "swiss"}, "bad_settings"),  # a Swiss sets its rounds
        ({"format": "swiss", "rounds": 2, "ruleset": "gambler", "table_size": 4}, "bad_settings"),
        ({"format": "swiss", "rounds": "2"}, "bad_request"),
        ({"format": "elimination", "best_of": 2}, "bad_settings"),
        ({"format": "swiss", "rounds": 2, "seat_window_seconds": 0.1}, "bad_request"),
        ({"format": "swiss", "rounds": 2, "points": {"win": 1, "draw": 1}}, "bad_settings"),
        ({"format": "swiss", "rounds": 2, "min_rating": 1800, "max_rating": 1200}, "bad_settings"),
        ({"format": "ladder", "seeding": "lottery"}, "bad_request"),
    ],
)
def test_bad_settings_are_refused(body, code) -> None:
    with pytest.raises(Refused) as err:
        domain.parse_format(body)
    assert err.value.code == code


def test_settings_and_options_from_a_request() -> None:
    s = domain.parse_format(
        {
            "format": "swiss",
            "rounds": 3,
            "ruleset": "gambler",
            "round_seconds": 90,
            "seat_window_seconds": 1.5,
            "points": {"win": 3},
            "max_entrants": 8,
        }
    )
    assert (s.table_size, s.round_ms, s.seat_window_ms, s.points.win, s.points.draw) == (
        2,
        90_000,
        1500,
        3,
        1,
    )
    assert domain.parse_format({"format": "round_robin"}).table_size == 4  # club by default
    c = domain.parse_config({"name": " cup ", "target": 301, "turn_seconds": 5}, Config(), None)
    assert (c.name, c.table.target, c.table.turn_ms) == ("cup", 301, 5000)
    assert Config.from_payload(c.to_payload(T0)) == c


def test_bot_entrants() -> None:
    assert domain.parse_bot("easy", ["bot:easy:1", "ann"]) == "bot:easy:2"
    assert domain.bot_level("bot:hard:7") == "hard"
    assert domain.bot_level("bot:genius:1") is None and domain.bot_level("ann") is None
    with pytest.raises(Refused):
        domain.parse_bot("genius", [])
    assert domain.parse_pairs([["b", "a"], ["a", "b"]]) == (("a", "b"),)
    with pytest.raises(Refused):
        domain.parse_pairs([["a"]])


def test_the_stream_folds_core_and_service_events() -> None:
    run = Run(Settings(Format.SWISS, rounds=1, ruleset="gambler"), ["a", "b"])
    run.pair()
    a = Assigned(1, 1, 1, "tab", "tab-1", (), T0)
    rows = [(i + 1, e.TYPE, codec.to_payload(e), None) for i, e in enumerate(run.events)]
    n = len(rows)
    rows += [
        (n + 1, domain.CONFIGURED, Config(name="cup").to_payload(T0), "c1"),
        (n + 2, domain.TABLE_ASSIGNED, a.to_payload(), "c2"),
        (n + 3, domain.PAUSED, {"at_ms": T0}, None),
        (n + 4, "SomethingNewer", {}, None),
    ]
    loaded = domain.fold(domain.Loaded(), rows)
    assert loaded.state == run.state and loaded.config.name == "cup"
    assert loaded.tables[(1, 1, 1)] == a and loaded.paused and loaded.version == n + 4
    assert loaded.command_ids == {"c1", "c2"} and loaded.status == "paused"
    m = loaded.state.rounds[0].matches[0]
    assert loaded.table_for(1, m) == a
    assert domain.tournament_json(loaded)["rounds"][0]["matches"][0]["table_id"] == "tab"
