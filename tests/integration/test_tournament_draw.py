"""A random seeding on the real platform: starting names a drand round, entries close, a
withdrawal waits, and the service draws from the round's real (recorded) beacon when a
local relay serves it; the draw recomputes from the public document, by the checker and
by ``belot verify-draw`` against the gateway. With no value to be had the tournament
waits (no fallback, no cancel once the round is out) and draws when it comes, after a
restart too.

The service's clock jumps to the recorded rounds (1000-1003 in
tests/data/drand-quicknet.json) just before the start, and runs SPEED times real time,
which the local relay and the service's drand client share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestServer

from commands.cli import main as belot
from drand import QUICKNET
from drand import verify as bls_verify
from drand.client import DrandClient
from drand.relay import create_relay_app, load_beacons
from fairdeal.draw import DRAW_ROUND_LEAD_MS, draw_order, randomness_of
from fairdeal.drawcheck import verify_draw
from tests.integration.tournament_support import Clock, Harness, harness
from tools.drand_vectors import BEACONS_FILE

pytestmark = pytest.mark.asyncio(loop_scope="session")

SPEED = 4.0
BEACONS = load_beacons(BEACONS_FILE, QUICKNET)
#: Where the clock jumps: naming now names round 1001 (the first due more than the lead
#: after it); a start up to 2.5 virtual seconds later names 1002, recorded too.
NAMING_AT_S = QUICKNET.time_of_round(1000) - DRAW_ROUND_LEAD_MS / 1000 + 0.5
#: Rounds long enough for bot matches at SPEED (a round's clock is the service's).
SLOW = {"target": 1, "bot_delay_ms": 0, "seat_window_seconds": 30, "round_seconds": 2400}


@contextlib.asynccontextmanager
async def drand_for(clock: Clock, rounds: set[int]) -> AsyncIterator[DrandClient]:
    """A local relay of the recorded ``rounds`` on ``clock``, and a client of it."""
    relay = TestServer(
        create_relay_app({"quicknet": {r: b for r, b in BEACONS.items() if r in rounds}}, clock)
    )
    await relay.start_server()
    client = DrandClient([str(relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.2)
    try:
        yield client
    finally:
        await client.close()
        await relay.close()


async def started(h: Harness, tid: str) -> dict:
    """Start (the clock at the recorded rounds): the reply shows the round named."""
    h.clock.jump(NAMING_AT_S, SPEED)
    t = await h.ok("POST", f"/v1/tournaments/{tid}/start")
    draw = t["draw"]
    assert draw["status"] == "awaiting_round" and draw["round"] in (1001, 1002), draw
    assert draw["due_at_ms"] > draw["named_at_ms"] + DRAW_ROUND_LEAD_MS
    assert t["status"] == "registering" and t["started_at_ms"] is None and not t["rounds"]
    return t


async def test_a_random_draw_is_drands_and_recomputes(servers, store, pg_pool, nc, js_names):
    clock = Clock()
    async with (
        drand_for(clock, set(BEACONS)) as client,
        harness(servers, store, pg_pool, nc, js_names, clock=clock, drand=client) as h,
    ):
        tid = await h.create(format="elimination", ruleset="gambler", seeding="random", **SLOW)
        bots = await h.bots(tid, 6)
        t = await started(h, tid)
        assert t["draw"]["entrants"] == bots
        # Entries are closed; a withdrawal is kept, and changes nothing in the draw.
        status, err = await h.call("POST", f"/v1/tournaments/{tid}/entrants", {"bot": "easy"})
        assert (status, err["error"]) == (409, "registration_closed")
        status, err = await h.call("PATCH", f"/v1/tournaments/{tid}", {"seeding": "rating"})
        assert (status, err["error"]) == (409, "draw_named")
        status, err = await h.call("POST", f"/v1/tournaments/{tid}/start")
        assert (status, err["error"]) == (409, "draw_pending")
        await h.ok("DELETE", f"/v1/tournaments/{tid}/entrants/{bots[2]}")

        t = await h.wait(tid, lambda t: t["draw"]["status"] == "made", timeout=60)
        draw = t["draw"]
        round_ = draw["round"]
        signature = BEACONS[round_].signature
        assert draw["signature"] == signature.hex()
        assert draw["randomness"] == randomness_of(signature).hex()
        expected = draw_order(randomness_of(signature), tid, bots)
        assert draw["order"] == list(expected) == t["entrants"]
        assert draw["made_at_ms"] >= draw["due_at_ms"]
        assert t["statuses"][bots[2]] == "withdrawn" and t["status"] == "running"
        types = [e.type for e in await h.events(tid)]
        assert types.index("Withdrew") < types.index("DrawMade") < types.index("Started")
        assert types.count("DrawRoundNamed") == 1

        # The public document recomputes: the checker, and the command on the gateway.
        doc = await h.ok("GET", f"/v1/tournaments/{tid}/draw", headers={})
        assert [e["type"] for e in doc["events"]] == [
            t for t in types if t not in ("TournamentConfigured", "TableAssigned")
        ]
        report = verify_draw(doc, bls=bls_verify)
        assert report.ok, report.to_json()
        api = str(h.http.make_url("")).rstrip("/")
        code = await asyncio.to_thread(belot, ["verify-draw", tid, "--api", api])
        assert code == 0
        status, err = await h.call("GET", "/v1/tournaments/nope/draw", headers={})
        assert (status, err["error"]) == (404, "unknown_tournament")

        t = await h.wait_finished(tid, timeout=120)
        assert t["finished"]["reason"] == "final_decided"
        assert bots[2] not in {e for r in t["rounds"] for m in r["matches"] for e in m["a"]}


async def test_no_value_no_draw_and_no_fallback(servers, store, pg_pool, nc, js_names):
    clock = Clock()
    async with (
        drand_for(clock, {1000}) as without,  # the round named is not to be had
        drand_for(clock, set(BEACONS)) as later,
        harness(servers, store, pg_pool, nc, js_names, clock=clock, drand=without) as h,
    ):
        tid = await h.create(format="swiss", rounds=1, ruleset="gambler", seeding="random", **SLOW)
        bots = await h.bots(tid, 4)
        t = await started(h, tid)
        due_ms = t["draw"]["due_at_ms"]
        # Well past the matches' 5-second grace: still no draw, nothing else drawn.
        while clock() < due_ms + 10_000:
            await clock.sleep(0.5)
        t = await h.get(tid)
        assert t["draw"]["status"] == "awaiting_round" and t["started_at_ms"] is None
        types = [e.type for e in await h.events(tid)]
        assert "DrawMade" not in types and "Started" not in types
        # Its value may be out: calling it off now would be a second draw.
        status, err = await h.call("POST", f"/v1/tournaments/{tid}/cancel")
        assert (status, err["error"]) == (409, "draw_named")

        # drand reachable again (after a restart): the value is the value, however late.
        await h.stop_service()
        h.drand = later
        await h.start_service()
        t = await h.wait(tid, lambda t: t["draw"]["status"] == "made", timeout=60)
        round_ = t["draw"]["round"]
        assert t["draw"]["made_at_ms"] >= due_ms + 10_000
        expected = draw_order(randomness_of(BEACONS[round_].signature), tid, bots)
        assert t["entrants"] == list(expected)
        doc = await h.ok("GET", f"/v1/tournaments/{tid}/draw", headers={})
        assert verify_draw(doc, bls=bls_verify).ok
        await h.wait_finished(tid, timeout=120)
