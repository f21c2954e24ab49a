"""Whole tournaments of each format on the real services (PostgreSQL, NATS, the
randomness service, a table worker, the tournament service, the gateway), bots playing
every match to a winner; human entrants who never sit down are out after the seat
window (a no-show), and entrants withdraw mid-tournament."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from types import SimpleNamespace
from typing import Any

import pytest

from belot_platform import messaging
from services.tournament import clocks, effects
from tests.integration.gateway_support import Player
from tests.integration.table_support import eventually, wait_for_table
from tests.integration.tournament_support import Harness, harness

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Small matches and short clocks: a deal decides a match; 1.5 s to sit down.
FAST = {"target": 1, "bot_delay_ms": 0, "seat_window_seconds": 1.5, "round_seconds": 120}
DAY_MS = 86_400_000


async def ghost(h: Harness, tid: str, name: str, password: str | None = None) -> Player:
    """A human entrant who will never sit down."""
    p = await Player(h.http, name).register()
    body = {} if password is None else {"password": password}
    status, reply = await p.call("POST", f"/v1/tournaments/{tid}/entrants", body)
    assert status == 201, reply
    return p


async def check_tables(h: Harness, tid: str) -> None:
    """Every game had one table; every table the tournament opened is closed."""
    events = await h.events(tid)
    assigned = [e.payload for e in events if e.type == "TableAssigned"]
    keys = [(a["round"], a["match"], a["game"]) for a in assigned]
    assert len(keys) == len(set(keys))
    assert len({a["table_id"] for a in assigned}) == len(assigned)
    for a in assigned:
        await wait_for_table(h.platform.store, a["table_id"], "TableClosed", 20)


async def test_swiss_teams_of_bots_with_a_no_show(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="swiss", ruleset="club", rounds=2, password="letmein", **FAST)
        await h.bots(tid, 6)
        nobody = await ghost(h, tid, "swiss-ghost", "letmein")
        await h.bots(tid, 1)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait(tid, lambda t: nobody.player in t["tables"])
        team = next(team for team, ps in t["teams"].items() if nobody.player in ps)
        # The tournament tells each player where to sit; the ghost's seat is kept for it.
        where = t["tables"][nobody.player]
        events = await h.platform.table_events(where["table_id"])
        seats = events[0].payload["seats"]
        assert seats[where["seat"]] == {"kind": "human", "level": None, "reserved": nobody.player}
        t = await h.wait_finished(tid)
        assert t["finished"]["reason"] == "all_rounds_played"
        assert t["statuses"][team] == "out"
        types = [e.type for e in await h.events(tid)]
        assert types.count("SeatNoShow") == 1 and types.count("RoundPaired") == 2
        # Round 2: three teams left, one of them sits out.
        assert sum(m["bye"] for m in t["rounds"][1]["matches"]) == 1
        assert all(team not in m["a"] + m["b"] for m in t["rounds"][1]["matches"])
        assert t["finished"]["standings"][-1] == team
        await check_tables(h, tid)


async def test_round_robin_with_a_withdrawal(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="round_robin", ruleset="gambler", **FAST)
        bots = await h.bots(tid, 4)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        await h.ok("DELETE", f"/v1/tournaments/{tid}/entrants/{bots[3]}")
        t = await h.wait_finished(tid)
        assert t["finished"]["reason"] == "all_rounds_played"
        assert t["statuses"][bots[3]] == "withdrawn"
        assert len(t["rounds"]) == 3
        for r in t["rounds"][1:]:  # never paired again: its opponents sit out instead
            for m in r["matches"]:
                assert bots[3] not in m["a"] + m["b"]
        standings = await h.ok("GET", f"/v1/tournaments/{tid}/standings")
        assert [c["column"] for c in standings["columns"]] == [
            "points",
            "head_to_head",
            "points_difference",
            "seed",
        ]
        assert standings["rows"][0]["entrant"] == t["finished"]["standings"][0]
        assert all("how" in row and "head_to_head" in row for row in standings["rows"])
        await check_tables(h, tid)


async def test_elimination_with_a_no_show(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="elimination", ruleset="gambler", best_of=3, **FAST)
        bots = await h.bots(tid, 4)
        nobody = await ghost(h, tid, "ko-ghost")
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait_finished(tid)
        assert t["finished"]["reason"] == "final_decided"
        winner = t["finished"]["standings"][0]
        assert winner in bots
        assert t["statuses"][nobody.player] == "out"
        first = t["rounds"][0]["matches"]
        ghost_match = next(m for m in first if nobody.player in m["a"] + m["b"])
        assert ghost_match["forfeited"] == [nobody.player]
        assert len(t["rounds"]) == 3  # a bracket of 8: three rounds to the final
        # Best of three: each game of a meeting had its own table, opened in turn.
        final = t["rounds"][2]["matches"][0]
        assert len(final["games"]) >= 2 and len(final["tables"]) == len(final["games"])
        standings = await h.ok("GET", f"/v1/tournaments/{tid}/standings")
        assert standings["rows"][0]["how"] == "won the final"
        await check_tables(h, tid)


async def test_ladder_of_rated_lobby_matches(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names, window_ms=500) as h:
        tid = await h.create(format="ladder", ruleset="gambler", ladder_days=1)
        ann = await Player(h.http, "ladder-ann").register()
        bob = await Player(h.http, "ladder-bob").register()
        for p in (ann, bob):
            status, reply = await p.call("POST", f"/v1/tournaments/{tid}/entrants", {})
            assert status == 201, reply
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        # A rated match from the lobby: both sit, and their turn timers play for them.
        status, created = await ann.call(
            "POST",
            "/v1/tables",
            {
                "ruleset": "gambler",
                "seats": ["human", "human"],
                "sit": 0,
                "target": 1,
                "turn_seconds": 0.2,
                "rated": True,
            },
        )
        assert status == 201, created
        status, reply = await bob.call("POST", f"/v1/tables/{created['table_id']}/seats/1")
        assert status == 200, reply
        await wait_for_table(h.platform.store, created["table_id"], "TableMatchFinished", 60)

        async def reported() -> bool:
            return any(e.type == "LadderMatchReported" for e in await h.events(tid))

        await eventually(reported, 10)
        # Idle: the results consumer's pending read outlives two idle waits, and it still
        # follows (the harness checks it never failed) when the ladder's day ends.
        follower = h.engine.results.follower
        idle = follower.idle

        async def idled() -> bool:
            return follower.idle >= idle + 2

        await eventually(idled, 10)
        h.clock.offset_ms = DAY_MS + 1000  # the ladder's day is over
        t = await h.wait_finished(tid, timeout=10)
        assert t["finished"]["reason"] == "ladder_ended"
        standings = await h.ok("GET", f"/v1/tournaments/{tid}/standings")
        assert sum(r["played"] for r in standings["rows"]) == 2
        top = standings["rows"][0]
        assert top["wins"] == 1 or top["draws"] == 1


async def test_exports(servers, store, pg_pool, nc, js_names) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="swiss", ruleset="gambler", rounds=1, **FAST)
        await h.bots(tid, 3)
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait_finished(tid)
        order = t["finished"]["standings"]
        as_json = await h.ok("GET", f"/v1/tournaments/{tid}/export?format=json")
        ndjson = await h.ok("GET", f"/v1/tournaments/{tid}/export?format=ndjson")
        text = await h.ok("GET", f"/v1/tournaments/{tid}/export?format=csv")
        assert [r["entrant"] for r in as_json] == order
        assert [json.loads(line)["entrant"] for line in ndjson.splitlines()] == order
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [r["entrant"] for r in rows] == order
        assert list(rows[0])[-5:] == ["byes", "opponents_points", "rating", "seed", "how"]


async def test_a_table_opened_after_the_seat_window_still_counts_a_no_show(
    servers, store, pg_pool, nc, js_names, monkeypatch
) -> None:
    """The table service answers only after the seat window is over (a loaded machine:
    the seat deadline has fired with no table yet): the window runs from when there is a
    table to sit at. Before, the seat
    deadline fired while there was no table, did nothing and never fired again, and the
    round waited for its end (120 s) with the no-show unrecorded."""
    fired = asyncio.Event()  # the seat deadline has fired (with no table yet)
    seat_deadline = clocks.Clocks._seat_deadline

    async def seat_deadline_seen(self: clocks.Clocks, tid: str, d: Any) -> bool:
        fired.set()
        return await seat_deadline(self, tid, d)

    async def late_request(nc_: Any, subject: str, body: Any, **kw: Any) -> Any:
        if subject.endswith(".table.create"):
            await fired.wait()  # the table service answers only once the window is over
        return await messaging.request(nc_, subject, body, **kw)

    monkeypatch.setattr(clocks.Clocks, "_seat_deadline", seat_deadline_seen)
    monkeypatch.setattr(effects, "messaging", SimpleNamespace(request=late_request))
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="round_robin", ruleset="gambler", **FAST)
        await h.bots(tid, 1)
        nobody = await ghost(h, tid, "slow-ghost")
        await h.ok("POST", f"/v1/tournaments/{tid}/start")
        t = await h.wait_finished(tid, timeout=30)
        types = [e.type for e in await h.events(tid)]
        assert types.count("SeatNoShow") == 1, types
        assert t["statuses"][nobody.player] == "out"
        # The ghost had the whole window once its table was there.
        events = await h.events(tid)
        assigned = next(e for e in events if e.type == "TableAssigned")
        no_show = next(e for e in events if e.type == "SeatNoShow")
        window_ms = FAST["seat_window_seconds"] * 1000
        assert no_show.payload["at_ms"] >= assigned.payload["at_ms"] + window_ms, (
            assigned.payload, no_show.payload)  # fmt: skip
