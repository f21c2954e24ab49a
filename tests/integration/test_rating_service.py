"""The rating service on real PostgreSQL and NATS: the real ``create_app`` under a test
client, the table service stood in for by appending ``TableMatchFinished`` to ``table-*``
streams with the event store.

What it proves (issue 9): a finished match is rated once however often it is delivered;
bot seats, unfinished matches, leavers and malformed reports get their verdicts through
the service; the service's tables equal the pure core's fold of the same deliveries;
dropping the projection and replaying the log gives the same tables; a consumer
stopped or killed part-way resumes from its checkpoint without counting anything twice;
the HTTP API and the NATS look-up answer, and refuse bad input with 4xx JSON.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import orjson
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from nats.aio.client import Client

from belot_platform import messaging
from belot_platform.settings import Settings
from eventlog import EventStore, NewEvent
from rating import (
    DEFAULT_SETTINGS,
    MatchNotRated,
    MatchRated,
    MatchSummary,
    RatingState,
    Seat,
    empty,
    evolve,
    from_payload,
    history,
    leaderboard,
    rating_of,
    standings,
)
from services.rating.app import CONSUMER, create_app, lookup_subject_of, rebuild
from services.rating.consumer import MATCHES_CONSUMED, Consumer
from services.rating.domain import (
    TABLE_MATCH_FINISHED,
    decide_delivery,
    summary_from_payload,
    summary_to_payload,
)
from services.rating.handlers import PROJECTION
from services.rating.store import Projection
from tests.integration import roles
from tests.integration.conftest import Servers

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

ROOT = Path(__file__).resolve().parents[2]
DAY = 86_400_000
T0 = 1_767_225_600_000  # 2026-01-01, unix milliseconds
AT = T0 + DAY  # the time the tables are read at


@pytest_asyncio.fixture(loop_scope="session")
async def rating_schema(pg_pool: asyncpg.Pool, schema: str) -> AsyncIterator[str]:
    name = f"{schema}_rating"
    yield name
    await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture
def settings(servers: Servers, schema: str, rating_schema: str) -> Settings:
    # The test's own subject prefix: another test run on the same NATS answers elsewhere.
    return Settings(
        pg_schema=schema,
        rating_schema=rating_schema,
        pg_pool_max=6,
        subject_prefix=f"t{uuid.uuid4().hex[:10]}",
    ).with_servers(roles.dsn_for("rating", servers.pg_dsn), servers.nats_url)


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[TestClient[Any, Any]]:
    app = create_app(settings, flush_interval=0.05, poll_interval=0.2)
    async with TestClient(TestServer(app)) as client:
        yield client


def summary(
    match_id: str,
    players: Sequence[str | None],
    winner: int | None = 0,
    *,
    pool: str = "club",
    finished: bool = True,
    leaver: int | None = None,
    at: int = T0,
    rated: bool = True,
) -> MatchSummary:
    seats = tuple(Seat(i, p) for i, p in enumerate(players))
    return MatchSummary(match_id, pool, seats, winner, finished, leaver, at, rated)


async def finish(store: EventStore, table: str, payload: Any) -> int:
    """Append what the table service appends when a match ends; its log position."""
    stream = f"table-{table}"
    version = await store.stream_version(stream)
    result = await store.append(stream, version, [NewEvent(TABLE_MATCH_FINISHED, payload)])
    return result.last_position


async def caught_up(client: TestClient[Any, Any], position: int, timeout: float = 15) -> None:
    projection = client.app[PROJECTION]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (await projection.checkpoint() or 0) < position:
        assert loop.time() < deadline, f"the consumer did not reach position {position}"
        await asyncio.sleep(0.02)


async def verdicts(store: EventStore) -> list[tuple[str, MatchRated | MatchNotRated]]:
    """Every verdict in the log: (stream, event), in log order."""
    return [
        (e.stream_id, from_payload(e.type, e.payload))
        async for e in store.iter_all(0)
        if e.stream_id.startswith("rating-")
    ]


def season(seed: int, n: int) -> list[MatchSummary]:
    """Random matches: two against two in club among 8 players, one against one in
    gambler among 4 (often enough that some become established), a few draws, leavers,
    bots and unfinished matches, and some match ids reported twice."""
    rng = random.Random(seed)
    club = [f"c{i}" for i in range(8)]
    gambler = [f"g{i}" for i in range(4)]
    out: list[MatchSummary] = []
    for i in range(n):
        at = T0 - DAY + i * 60_000
        if rng.random() < 0.6:
            players: list[str | None] = list(rng.sample(gambler, 2))
            pool = "gambler"
        else:
            players = list(rng.sample(club, 4))
            pool = "club"
        roll = rng.random()
        winner: int | None = rng.choice((0, 1)) if roll > 0.05 else None
        leaver = rng.randrange(len(players)) if 0.05 < roll < 0.1 else None
        finished = not (0.1 < roll < 0.13)
        if 0.13 < roll < 0.16:
            players[rng.randrange(len(players))] = None  # a bot
        out.append(
            summary(
                f"s{seed}-{i}", players, winner, pool=pool, finished=finished, leaver=leaver, at=at
            )
        )
        if rng.random() < 0.05:
            out.append(out[rng.randrange(len(out))])  # reported again
    return out


def core_fold(payloads: Sequence[Any]) -> RatingState:
    """The pure core's answer for the same deliveries, in the same order."""
    state = empty()
    for i, payload in enumerate(payloads):
        for event in decide_delivery(state, summary_from_payload(payload, source=f"x@{i}")):
            state = evolve(state, event)
    return state


def rows(table: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "rank": r.rank,
            "player": r.player,
            "rating": r.rating,
            "rd": r.rd,
            "games": r.games,
            "provisional": r.provisional,
        }
        for r in table
    ]


async def board(client: TestClient[Any, Any], pool: str, *, everyone: bool) -> dict[str, Any]:
    query = f"?at={AT}&limit=1000" + ("&all=1" if everyone else "")
    response = await client.get(f"/v1/leaderboards/{pool}{query}")
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


def consumed(verdict: str) -> float:
    return MATCHES_CONSUMED.labels(verdict)._value.get()


# ---------------------------------------------------------------------------------------


async def test_a_match_delivered_twice_is_rated_once(store: EventStore, settings: Settings) -> None:
    duplicates = consumed("duplicate")
    first = summary("m-1", ["ana", "bo", "cy", "di"], 0)
    async with running(settings) as client:
        await finish(store, "1", summary_to_payload(first))
        # The same match reported again, from another table's stream, with a changed
        # result: the first report stands.
        again = summary("m-1", ["ana", "bo", "cy", "di"], 1)
        last = await finish(store, "2", summary_to_payload(again))
        await caught_up(client, last)
        for player in ("ana", "bo"):
            r = await client.get(f"/v1/players/{player}/history?pool=club")
            body = await r.json()
            assert [m["match_id"] for m in body["matches"]] == ["m-1"]
        assert body["matches"][0]["result"] == "loss"  # bo sat on side 1, side 0 won
        r = await client.get("/v1/ratings/club/ana")
        assert (await r.json())["games"] == 1
    log = await verdicts(store)
    assert [(s, e.match_id, type(e).__name__) for s, e in log] == [
        ("rating-club", "m-1", "MatchRated")
    ]
    assert consumed("duplicate") == duplicates + 1


async def test_verdicts_through_the_service(store: EventStore, settings: Settings) -> None:
    cases = [
        summary("bot", ["ana", None, "cy", "di"]),
        summary("unfinished", ["ana", "bo", "cy", "di"], None, finished=False),
        summary("left", ["ana", "bo", "cy", "di"], None, finished=False, leaver=2),
        summary("casual", ["ana", "bo", "cy", "di"], rated=False),
        summary("draw", ["ana", "bo"], None, pool="gambler"),
        summary("four-at-gambler", ["ana", "bo", "cy", "di"], pool="gambler"),
    ]
    payloads: list[Any] = [summary_to_payload(s) for s in cases]
    payloads += ["not an object", {**payloads[0], "match_id": "poker", "ruleset": "poker"}]
    async with running(settings) as client:
        for i, payload in enumerate(payloads):
            last = await finish(store, str(i), payload)
        await caught_up(client, last)
        r = await client.get("/v1/players/cy/history?pool=club")
        (left,) = (await r.json())["matches"]
        # A leaver's side loses whatever the score: cy (seat 2, side 0) left.
        assert (left["match_id"], left["result"], left["left_by"]) == ("left", "loss", "cy")
        assert left["partners"] == ["ana"] and left["opponents"] == ["bo", "di"]
        r = await client.get("/v1/players/bo/history?pool=club")
        assert [(m["match_id"], m["result"]) for m in (await r.json())["matches"]] == [
            ("left", "win")
        ]
        r = await client.get("/v1/players/ana/history?pool=gambler")
        assert [(m["match_id"], m["result"]) for m in (await r.json())["matches"]] == [
            ("draw", "draw")
        ]
    got = {
        e.match_id: (s, type(e).__name__, getattr(e, "reason", ""))
        for s, e in await verdicts(store)
    }
    assert got == {
        "bot": ("rating-club", "MatchNotRated", "bot-seat"),
        "unfinished": ("rating-club", "MatchNotRated", "unfinished"),
        "left": ("rating-club", "MatchRated", ""),
        "casual": ("rating-club", "MatchNotRated", "casual"),
        "draw": ("rating-gambler", "MatchRated", ""),
        "four-at-gambler": ("rating-gambler", "MatchNotRated", "side-size"),
        "table-6@1": ("rating-malformed", "MatchNotRated", "malformed"),
        "poker": ("rating-malformed", "MatchNotRated", "malformed"),
    }


async def test_the_service_equals_the_core_and_a_rebuild_equals_the_service(
    store: EventStore, settings: Settings, pg_pool: asyncpg.Pool
) -> None:
    # Newcomers after a long season: provisional, on the standings but not the board.
    matches = [*season(1, 400), summary("fresh", ["n1", "n2", "n3", "n4"])]
    payloads = [summary_to_payload(s) for s in matches]
    expected = core_fold(payloads)
    async with running(settings) as client:
        for i, payload in enumerate(payloads):
            last = await finish(store, str(i % 7), payload)
        await caught_up(client, last)
        projection = client.app[PROJECTION]
        live = await projection.dump()
        boards = {
            (pool, everyone): await board(client, pool, everyone=everyone)
            for pool in ("club", "gambler")
            for everyone in (False, True)
        }
        # The same tables as the pure core's, through HTTP.
        for (pool, everyone), body in boards.items():
            view = standings if everyone else leaderboard
            assert body["rows"] == rows(view(expected, pool, AT)), (pool, everyone)
        assert boards[("gambler", False)]["rows"], "no established player: play more matches"
        assert all(not r["provisional"] for r in boards[("gambler", False)]["rows"])
        assert {r["player"] for r in boards[("club", True)]["rows"] if r["provisional"]} == {
            "n1",
            "n2",
            "n3",
            "n4",
        }
        assert boards[("club", False)]["rows"]
        for player in ("c0", "c5"):
            r = await client.get(f"/v1/players/{player}/history?pool=club")
            got = (await r.json())["matches"]
            assert [m["match_id"] for m in got] == [
                h.match_id for h in history(expected, "club", player)
            ]
            assert [m["rating_after"] for m in got] == [
                h.rating_after for h in history(expected, "club", player)
            ]

        # Rebuild while the service runs: the same rows, the same answers.
        report = await rebuild(settings)
        assert report.matches == len(expected.seen)
        assert await projection.dump() == live
        for (pool, everyone), body in boards.items():
            assert await board(client, pool, everyone=everyone) == body

    # Drop the whole schema (projection and checkpoint): the next start rebuilds it from
    # the log and goes on from the furthest delivery a verdict names.
    await pg_pool.execute(f'DROP SCHEMA "{settings.rating_schema}" CASCADE')
    # With service roles, the rating role may not make a schema: the operator runs
    # belot db setup (an empty projection, no checkpoint) before the service starts.
    await roles.prepare(pg_pool, settings.pg_schema)
    async with running(settings) as client:
        await caught_up(client, last)
        assert await client.app[PROJECTION].dump() == live
        assert await board(client, "gambler", everyone=False) == boards[("gambler", False)]
    assert len(await verdicts(store)) == len(expected.seen)


async def test_a_restarted_or_killed_consumer_counts_nothing_twice(
    store: EventStore, settings: Settings
) -> None:
    matches = season(2, 150)
    payloads = [summary_to_payload(s) for s in matches]
    expected = core_fold(payloads)
    half = len(payloads) // 2

    # A graceful stop half-way, more matches while nobody consumes, a restart.
    async with running(settings) as client:
        for i, payload in enumerate(payloads[:half]):
            last = await finish(store, str(i % 5), payload)
        await caught_up(client, last)
    for i, payload in enumerate(payloads[half:]):
        last = await finish(store, str(i % 5), payload)
    async with running(settings) as client:
        await caught_up(client, last)
        projection = client.app[PROJECTION]
        live = await projection.dump()
        assert (await board(client, "club", everyone=True))["rows"] == rows(
            standings(expected, "club", AT)
        )

    # Kill the consumer again and again at random moments (mid-transaction included),
    # then lose the checkpoint altogether: every delivery is met again, none counts.
    projection = Projection(store.pool, settings.rating_schema, DEFAULT_SETTINGS)
    await store.pool.execute(f'UPDATE "{settings.rating_schema}".checkpoint SET position = 0')
    rng = random.Random(3)
    for _ in range(8):
        consumer = Consumer(store, projection, flush_interval=0.01, poll_interval=0.1)
        task = asyncio.create_task(consumer.run(asyncio.Event()))
        await asyncio.sleep(rng.uniform(0.0, 0.05))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    consumer = Consumer(store, projection, flush_interval=0.01, poll_interval=0.1)
    stop = asyncio.Event()
    task = asyncio.create_task(consumer.run(stop))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while (await projection.checkpoint() or 0) < last:
        assert loop.time() < deadline
        await asyncio.sleep(0.02)
    stop.set()
    await task
    assert await projection.dump() == live
    assert len(await verdicts(store)) == len(expected.seen)


async def test_two_consumers_at_once_count_each_match_once(
    store: EventStore, settings: Settings
) -> None:
    payloads = [summary_to_payload(s) for s in season(4, 120)]
    expected = core_fold(payloads)
    async with running(settings) as one, running(settings) as two:
        for i, payload in enumerate(payloads):
            last = await finish(store, str(i % 3), payload)
        await caught_up(one, last)
        await caught_up(two, last)
        assert (await board(two, "gambler", everyone=True))["rows"] == rows(
            standings(expected, "gambler", AT)
        )
    assert len(await verdicts(store)) == len(expected.seen)


async def test_lookup_over_nats(store: EventStore, settings: Settings, nc: Client) -> None:
    payloads = [summary_to_payload(s) for s in season(5, 60)]
    expected = core_fold(payloads)
    async with running(settings) as client:
        for i, payload in enumerate(payloads):
            last = await finish(store, str(i % 3), payload)
        await caught_up(client, last)
        players = ["c1", "c2", "nobody"]
        subject = lookup_subject_of(settings)
        assert subject == f"{settings.subject_prefix}.rating.lookup"
        reply = await messaging.request(
            nc, subject, {"pool": "club", "players": players}, timeout=5
        )
        assert reply == {"ratings": {p: rating_of(expected, "club", p) for p in players}}
        assert reply["ratings"]["nobody"] == 1500.0
        with pytest.raises(messaging.ServiceError) as info:
            await messaging.request(nc, subject, {"pool": "poker", "players": []}, timeout=5)
        assert info.value.code == "unknown_pool"
        for bad in ({"pool": "club", "players": "c1"}, {"pool": "club", "players": [""]}, [1]):
            with pytest.raises(messaging.ServiceError) as info:
                await messaging.request(nc, subject, bad, timeout=5)
            assert info.value.code == messaging.BAD_REQUEST


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/v1/leaderboards/poker", 404, "unknown_pool"),
        ("/v1/leaderboards/club?all=2", 400, "bad_request"),
        ("/v1/leaderboards/club?at=noon", 400, "bad_request"),
        ("/v1/leaderboards/club?at=-5", 400, "bad_request"),
        ("/v1/leaderboards/club?limit=0", 400, "bad_request"),
        ("/v1/players/ana/history", 400, "bad_request"),
        ("/v1/players/ana/history?pool=poker", 400, "unknown_pool"),
        (f"/v1/players/{'x' * 201}/history?pool=club", 400, "bad_request"),
        ("/v1/ratings/poker/ana", 404, "unknown_pool"),
        ("/v1/nowhere", 404, "not_found"),
    ],
)
async def test_bad_http_input_is_a_4xx_json_error(
    settings: Settings, path: str, status: int, code: str
) -> None:
    async with running(settings) as client:
        r = await client.get(path)
        body = await r.json()
        assert (r.status, body["error"]) == (status, code), body
        assert isinstance(body["message"], str) and body["message"]


async def test_a_newcomer_readiness_and_metrics(store: EventStore, settings: Settings) -> None:
    async with running(settings) as client:
        last = await finish(
            store, "1", summary_to_payload(summary("m", ["a", "b"], pool="gambler"))
        )
        await caught_up(client, last)
        r = await client.get(f"/v1/ratings/gambler/someone?at={AT}")
        assert await r.json() == {
            "pool": "gambler",
            "player": "someone",
            "at_ms": AT,
            "rating": 1500,
            "rd": 246,
            "games": 0,
            "provisional": True,
        }
        r = await client.get(f"/v1/ratings/gambler/a?at={T0}")
        body = await r.json()
        assert body["games"] == 1 and body["rating"] > 1500 and body["provisional"]
        r = await client.get("/readyz")
        assert r.status == 200 and (await r.json())["checks"]["consumer"] == "ok"
        for _ in range(100):  # an idle flush updates the lag
            text = await (await client.get("/metrics")).text()
            if "belot_rating_consumer_lag_events 0.0" in text:
                break
            await asyncio.sleep(0.02)
        assert "belot_rating_consumer_lag_events 0.0" in text
        assert 'belot_rating_matches_consumed_total{verdict="rated"}' in text
        assert client.app[CONSUMER].error is None


async def test_belot_rating_rebuild_command(
    store: EventStore, settings: Settings, servers: Servers
) -> None:
    payloads = [summary_to_payload(s) for s in season(6, 20)]
    async with running(settings) as client:
        for i, payload in enumerate(payloads):
            last = await finish(store, str(i % 3), payload)
        await caught_up(client, last)
        live = await client.app[PROJECTION].dump()
        env = {
            **os.environ,
            "BELOT_PG_DSN": servers.pg_dsn,
            "BELOT_PG_SCHEMA": settings.pg_schema,
            "BELOT_RATING_SCHEMA": settings.rating_schema,
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "commands.cli",
            "rating",
            "rebuild",
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        assert out.decode().startswith("rebuilt: ")
        assert await client.app[PROJECTION].dump() == live

    # A mistyped log schema is refused, and not created.
    env["BELOT_PG_SCHEMA"] = f"{settings.pg_schema}_typo"
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "commands.cli", "rating", "rebuild"),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2 and out == b""
    assert err.decode().startswith("belot rating rebuild: error: no event log in schema")


async def test_belot_serve_rating_serves_until_sigterm(
    store: EventStore, settings: Settings, servers: Servers, nc: Client
) -> None:
    env = {
        **os.environ,
        "BELOT_PG_DSN": servers.pg_dsn,
        "BELOT_NATS_URL": servers.nats_url,
        "BELOT_PG_SCHEMA": settings.pg_schema,
        "BELOT_RATING_SCHEMA": settings.rating_schema,
        "BELOT_RATING_PORT": "0",
        "BELOT_SUBJECT_PREFIX": settings.subject_prefix,
    }
    last = await finish(store, "1", summary_to_payload(summary("m", ["a", "b"], pool="gambler")))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "commands.cli", "serve", "rating"),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        port = None
        while port is None:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            assert line, "the service stopped before listening"
            if b'"msg":"listening"' in line:
                port = orjson.loads(line)["port"]
        projection = Projection(store.pool, settings.rating_schema, DEFAULT_SETTINGS)
        async with aiohttp.ClientSession() as session:
            for _ in range(250):
                async with session.get(f"http://127.0.0.1:{port}/readyz") as r:
                    if r.status == 200 and (await projection.checkpoint() or 0) >= last:
                        break
                await asyncio.sleep(0.02)
            async with session.get(f"http://127.0.0.1:{port}/v1/ratings/gambler/a") as r:
                assert (await r.json())["games"] == 1
        # The look-up answers under BELOT_SUBJECT_PREFIX, where the tournament service asks.
        reply = await messaging.request(
            nc,
            f"{settings.subject_prefix}.rating.lookup",
            {"pool": "gambler", "players": ["a"]},
            timeout=5,
        )
        assert reply["ratings"]["a"] > 1500.0
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 20)
        assert proc.returncode == 0, err.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
