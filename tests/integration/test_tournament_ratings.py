"""The tournament service and the rating service together, on the test's own subject
prefix (not ``belot``): players rated by the rating service from ``TableMatchFinished``
in the log are seeded and banded by their real ratings; a look-up that fails leaves
everyone at 1500, and says so (a warning and a counter)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from prometheus_client import REGISTRY

from belot_platform import messaging
from eventlog import EventStore, NewEvent
from rating import MatchSummary, Seat, decide, empty, evolve, rating_of
from services.rating.app import create_app as create_rating_app
from services.rating.domain import TABLE_MATCH_FINISHED, summary_to_payload
from services.rating.handlers import PROJECTION
from tests.integration import roles
from tests.integration.gateway_support import Player
from tests.integration.tournament_support import Harness, harness

pytestmark = pytest.mark.asyncio(loop_scope="session")

FAILURES = "belot_tournament_rating_lookup_failures_total"


@contextlib.asynccontextmanager
async def rating_service(h: Harness) -> AsyncIterator[TestServer]:
    """The rating service's real app on the harness's schema and subject prefix."""
    settings = dataclasses.replace(
        h.settings,
        rating_schema=f"{h.settings.pg_schema}_rating",
        pg_dsn=roles.dsn_for("rating", h.settings.pg_dsn or ""),
    )
    server = TestServer(create_rating_app(settings, flush_interval=0.05, poll_interval=0.2))
    await server.start_server()
    try:
        yield server
    finally:
        await server.close()
        await h.platform.store.pool.execute(
            f'DROP SCHEMA IF EXISTS "{settings.rating_schema}" CASCADE'
        )


async def finish(store: EventStore, table: str, summary: MatchSummary) -> int:
    """Append what the table service appends when a match ends; its log position."""
    stream = f"table-{table}"
    version = await store.stream_version(stream)
    event = NewEvent(TABLE_MATCH_FINISHED, summary_to_payload(summary))
    result = await store.append(stream, version, [event])
    return result.last_position


async def caught_up(server: TestServer, position: int, timeout: float = 15) -> None:
    projection = server.app[PROJECTION]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (await projection.checkpoint() or 0) < position:
        assert loop.time() < deadline, f"the rating consumer did not reach position {position}"
        await asyncio.sleep(0.05)


def failures(reason: str) -> float:
    return REGISTRY.get_sample_value(FAILURES, {"reason": reason}) or 0.0


async def players(h: Harness, *names: str) -> list[Player]:
    return [await Player(h.http, name).register() for name in names]


async def enter(player: Player, tid: str) -> tuple[int, Any]:
    return await player.call("POST", f"/v1/tournaments/{tid}/entrants", {})


async def test_seeding_and_the_band_use_the_rating_services_ratings(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        assert h.settings.subject_prefix != "belot"
        ace, bee, cat, dan = await players(h, "rt-ace", "rt-bee", "rt-cat", "rt-dan")
        ranked = [ace.player, bee.player, cat.player, dan.player]
        # Rated one-against-one matches: every player beats everyone below, twice. The
        # ratings they give are the pure core's fold of the same matches.
        now = h.clock()
        state = empty()
        last = 0
        for i, winner in enumerate(ranked):
            for loser in ranked[i + 1 :]:
                for k in range(2):
                    seats = (Seat(0, winner), Seat(1, loser))
                    match = f"rt-{winner}-{loser}-{k}"
                    summary = MatchSummary(match, "gambler", seats, 0, True, None, now, True)
                    last = await finish(store, match, summary)
                    for event in decide(state, summary):
                        state = evolve(state, event)
        real = {p: rating_of(state, "gambler", p) for p in ranked}
        assert real[ace.player] > real[bee.player] > 1500.0 > real[cat.player] > real[dan.player]
        async with rating_service(h) as rating:
            await caught_up(rating, last)
            before = failures("unavailable") + failures("timeout")

            # The band: 1501 admits the best (1500 would not), refuses the worst.
            banded = await h.create(format="swiss", ruleset="gambler", rounds=1, min_rating=1501)
            status, reply = await enter(ace, banded)
            assert status == 201, reply
            status, reply = await enter(dan, banded)
            assert (status, reply["error"]) == (409, "rating_out_of_band")

            # Seeding by rating: entered worst first, seeded best first.
            tid = await h.create(format="elimination", ruleset="gambler", seeding="rating")
            for p in (dan, cat, bee, ace):
                status, reply = await enter(p, tid)
                assert status == 201, reply
            await h.ok("POST", f"/v1/tournaments/{tid}/start")
            started = next(e for e in await h.events(tid) if e.type == "Started")
            assert list(started.payload["order"]) == ranked
            table = await h.ok("GET", f"/v1/tournaments/{tid}/standings")
            assert table["ratings"] == real
            first = (await h.get(tid))["rounds"][0]["matches"]
            assert sorted(sorted(m["a"] + m["b"]) for m in first) == sorted(
                [sorted([ace.player, dan.player]), sorted([bee.player, cat.player])]
            )
            assert failures("unavailable") + failures("timeout") == before
            await h.ok("POST", f"/v1/tournaments/{tid}/terminate", {"reason": "test over"})


async def test_a_failed_rating_lookup_is_logged_and_counted(
    servers, store, pg_pool, nc, js_names, caplog
) -> None:
    caplog.set_level(logging.WARNING, logger="services.tournament.sequencer")
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        ann, bob = await players(h, "rl-ann", "rl-bob")
        tid = await h.create(format="swiss", ruleset="gambler", rounds=1, min_rating=1501)
        subject = f"{h.settings.subject_prefix}.rating.lookup"

        # Nobody answers: ann is a newcomer at 1500, below the band; it is counted.
        before = failures("unavailable")
        status, reply = await enter(ann, tid)
        assert (status, reply["error"]) == (409, "rating_out_of_band")
        assert failures("unavailable") == before + 1
        assert any(
            r.levelno == logging.WARNING
            and "unavailable" in r.getMessage()
            and subject in r.getMessage()
            for r in caplog.records
        )

        # A reply without ratings is no better.
        async def no_ratings(body: Any) -> dict[str, Any]:
            return {"ratings": "none"}

        sub = await messaging.serve(nc, subject, no_ratings)
        try:
            before = failures("malformed")
            status, reply = await enter(bob, tid)
            assert (status, reply["error"]) == (409, "rating_out_of_band")
            assert failures("malformed") == before + 1
        finally:
            await sub.unsubscribe()
