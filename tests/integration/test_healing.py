"""Nothing dies quietly, on real servers, with PostgreSQL or NATS taken away from one
service alone (a proxy: tests/integration/proxy.py), then given back.

- The table service's outbox relay, away longer than its acknowledgement timeout:
  it resumes by itself, the stream's relay positions are exactly 1..n, and ``/readyz``
  says not ready while it is down and ready after.
- The randomness service, PostgreSQL away at a match's due + 5 s: the match gets its
  fallback and its deck on a later tick, without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer
from nats.js import JetStreamContext
from prometheus_client import REGISTRY

from belot_platform.app import TASKS
from belot_platform.messaging import reconcile_bucket
from belot_platform.settings import Settings
from belot_platform.supervise import Supervisor
from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app
from eventlog import EventStore, NewEvent
from eventlog.relay import OutboxRelay
from fairdeal import logentries
from fairdeal.fairness import SeatSpec
from services.randomness.service import MATCH_TASK, RandomnessService
from services.randomness.store import SeedStore
from services.relay.app import create_app as build_relay
from services.table import table as table_driver
from services.table.worker import TableWorker
from tests.integration import roles
from tests.integration.conftest import Servers, StreamNames
from tests.integration.proxy import proxy
from tests.integration.table_support import BEACONS, ORIGIN, SPEED, eventually

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

RELAY = "outbox-relay"


async def relay_positions(store: EventStore, js: JetStreamContext, stream: str) -> list[int]:
    """The positions of the relay's own messages (their seal checked), in stream order."""
    return await OutboxRelay(store, js, stream=stream, subject_prefix="unused").positions()


async def append(store: EventStore, tag: str, n: int) -> None:
    await store.append(f"match-{tag}", 0, [NewEvent("E", {"i": i}) for i in range(n)])


def table_settings(
    servers: Servers, schema: str, names: StreamNames, *, pg: str | None = None,
    nats: str | None = None, role: str = "table",
) -> Settings:  # fmt: skip
    return Settings(
        pg_dsn=pg or roles.dsn_for(role, servers.pg_dsn),
        nats_url=nats or servers.nats_url,
        pg_schema=schema,
        pg_pool_max=4,
        events_stream=names.stream,
        events_subject=names.subject_prefix,
        subject_prefix=f"t{uuid.uuid4().hex[:10]}",
        nats_timeout=1.0,
    )


async def ready(client: TestClient) -> tuple[int, dict[str, Any]]:  # type: ignore[type-arg]
    r = await client.get("/readyz")
    return r.status, await r.json()


async def relay_ready(client: TestClient) -> bool:  # type: ignore[type-arg]
    status, body = await ready(client)
    return status == 200 and body["tasks"][RELAY] == "ok"


async def published_up_to(js: JetStreamContext, stream: str, n: int) -> bool:
    try:
        info = await js.stream_info(stream)
    except Exception:
        return False
    if info.state.last_seq == 0:
        return False
    msg = await js.get_msg(stream, seq=info.state.last_seq)
    return int((msg.headers or {}).get("Belot-Position", 0)) >= n


def lag_of(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("belot_eventlog_relay_lag_events "):
            return float(line.split()[1])
    raise AssertionError("no belot_eventlog_relay_lag_events")


async def relay_app(settings: Settings) -> AsyncIterator[TestClient]:  # type: ignore[type-arg]
    client = TestClient(TestServer(build_relay(settings)))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


@pytest.mark.parametrize("outage", ["postgres", "nats"])
async def test_the_relay_outlives_an_outage_longer_than_its_ack_timeout(
    outage: str, servers: Servers, store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    url = roles.dsn_for("relay", servers.pg_dsn) if outage == "postgres" else servers.nats_url
    async with proxy(url) as cut:
        settings = table_settings(
            servers, store.schema, js_names,
            pg=cut.proxied_url if outage == "postgres" else None,
            nats=cut.proxied_url if outage == "nats" else None,
            role="relay",
        )  # fmt: skip
        gen = relay_app(settings)
        client = await anext(gen)
        try:
            await append(store, "before", 20)
            await eventually(lambda: published_up_to(js, js_names.stream, 20), 30)
            # Ready before the cut (a relay task restarted by a slow moment says
            # "starting" for a while first).
            await eventually(lambda: relay_ready(client), 15)
            await cut.stop()
            await append(store, "during", 30)  # the test's own connection: still up
            # Longer than the relay's 5 s acknowledgement timeout.
            await asyncio.sleep(12)
            status, body = await ready(client)
            assert status == 503, body
            assert body["tasks"][RELAY] != "ok", body
            if outage == "nats":
                # The lag is read from both ends as it is scraped: the log's head goes on.
                text = await (await client.get("/metrics")).text()
                assert lag_of(text) >= 30, text
            await cut.start()
            await append(store, "after", 10)
            await eventually(lambda: published_up_to(js, js_names.stream, 60), 60)
            assert await relay_positions(store, js, js_names.stream) == list(range(1, 61))

            async def is_ready() -> bool:
                return (await ready(client))[0] == 200

            await eventually(is_ready, 60)
            assert lag_of(await (await client.get("/metrics")).text()) == 0
            assert client.app is not None
            assert client.app[TASKS].tasks[RELAY].restarts >= 1
        finally:
            await gen.aclose()


async def test_a_match_due_for_its_fallback_while_postgresql_is_away_gets_it_once_back(
    servers: Servers, store: EventStore, pg_pool: Any
) -> None:
    """PostgreSQL away for the randomness service alone at a match's due + 5 s: the
    fallback's append fails, the oldest due work is reported late, and once the database
    is back the next tick drives the match again: its fallback and its deck come, without
    a restart."""
    dsn = roles.dsn_for("randomness", servers.pg_dsn)
    clock = ScaledClock(ORIGIN, SPEED)
    relay = TestServer(create_relay_app({"quicknet": BEACONS}, clock, Mode.parse("down")))
    await relay.start_server()
    client = DrandClient([str(relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.3)
    await SeedStore(pg_pool, store.schema).migrate()
    supervisor = Supervisor()
    match_id = uuid.uuid4().hex
    failures = REGISTRY.get_sample_value("belot_task_restarts_total", {"task": MATCH_TASK}) or 0
    async with proxy(dsn) as cut:
        pool = await asyncpg.create_pool(cut.proxied_url, min_size=1, max_size=4)
        service_store = EventStore(pool, store.schema, producer="randomness", entries=logentries)
        service = RandomnessService(
            service_store, SeedStore(pool, store.schema), client, clock, supervisor=supervisor,
            tick_s=0.2,
        )  # fmt: skip
        await service.start()
        try:
            bots = ({"seat": 0, "player": None}, {"seat": 1, "player": None})
            await service.open(match_id, tuple(SeatSpec(**b) for b in bots), "quicknet", None)

            async def named() -> bool:
                return any(e.type == "DrandRoundNamed" for e in await store.read_stream(
                    f"randomness-{match_id}"))  # fmt: skip

            await eventually(named, 30)
            due_ms = next(
                e.payload["due_at_ms"]
                for e in await store.read_stream(f"randomness-{match_id}")
                if e.type == "DrandRoundNamed"
            )
            await cut.stop()
            # Past due + 5 s (virtual time), and then some.
            while clock.now() * 1000 < due_ms + 5_000 + 3_000:
                await asyncio.sleep(0.1)

            async def failed() -> bool:
                now = REGISTRY.get_sample_value("belot_task_restarts_total", {"task": MATCH_TASK})
                return (now or 0) > failures

            await eventually(failed, 30)
            types = [e.type for e in await store.read_stream(f"randomness-{match_id}")]
            assert "DrandFallback" not in types

            # Set by the ticker, which backs off while PostgreSQL is away (the round's lead
            # puts due + 5 s a few backoffs after the cut).
            async def reported_late() -> bool:
                return (REGISTRY.get_sample_value("belot_randomness_oldest_due_seconds") or 0) > 0

            await eventually(reported_late, 30)
            types = [e.type for e in await store.read_stream(f"randomness-{match_id}")]
            assert "DrandFallback" not in types
            await cut.start()

            async def fell_back() -> bool:
                return any(e.type == "DrandFallback" for e in await store.read_stream(
                    f"randomness-{match_id}"))  # fmt: skip

            await eventually(fell_back, 30)
            deck = await service.deck(match_id, 0, 32, 5.0)
            assert deck["fallback"] is True and len(deck["cards"]) == 32
            await eventually(lambda: _no_due_work(), 30)
        finally:
            await service.stop()
            await service_store.close()
            await pool.close()
            await client.close()
            await relay.close()


async def _no_due_work() -> bool:
    return REGISTRY.get_sample_value("belot_randomness_oldest_due_seconds") == 0


async def test_a_table_waiting_for_the_randomness_service_says_so_once_then_seldom(
    store: EventStore, nc: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No randomness service answers: the table logs when its wait starts, then at most
    every WAIT_LOG_S (here made 1 s), not at each retry (every RETRY_S); the wait is in
    belot_table_randomness_wait_seconds."""
    monkeypatch.setattr(table_driver, "WAIT_LOG_S", 1.0)
    prefix = f"t{uuid.uuid4().hex[:10]}"  # nobody serves its randomness subjects
    worker = TableWorker(nc, store, prefix=prefix, lease_ttl=3.0)
    await worker.start()
    try:
        with caplog.at_level(logging.INFO, logger="services.table.table"):
            created = await worker.create({"ruleset": "club", "seats": ["bot:easy"] * 4})
            loop = asyncio.get_running_loop()
            started = loop.time()
            while loop.time() - started < 2.6:  # about five retries
                await asyncio.sleep(0.1)
            wait = REGISTRY.get_sample_value("belot_table_randomness_wait_seconds")
            assert wait is not None and wait >= 2.0
        said = [r.getMessage() for r in caplog.records if "randomness service" in r.getMessage()]
        assert said[0].startswith("waiting for the randomness service")
        assert 1 <= sum(m.startswith("still waiting") for m in said) <= 3, said
        assert len(said) <= 4, said
        assert worker.tables[created["table_id"]].waiting_since is not None
    finally:
        await worker.stop(handover=False)
        with contextlib.suppress(Exception):
            await nc.jetstream().delete_key_value(f"{prefix}_table_leases")
        with contextlib.suppress(Exception):
            await nc.jetstream().delete_key_value(f"{prefix}_tables")
    assert REGISTRY.get_sample_value("belot_table_randomness_wait_seconds") == 0


async def test_a_lease_bucket_made_with_another_ttl_gets_the_configured_one(
    store: EventStore, nc: Any, js: JetStreamContext, caplog: pytest.LogCaptureFixture
) -> None:
    """BELOT_LEASE_TTL changed since the lease bucket was made: the worker's start
    updates the bucket (its stream's max_age), and says so; a second start changes
    nothing."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    leases, lobby = f"{prefix}_table_leases", f"{prefix}_tables"
    await js.create_key_value(bucket=leases, ttl=10.0, history=1)
    await js.create_key_value(bucket=lobby, history=5)
    try:
        with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
            worker = TableWorker(nc, store, prefix=prefix, lease_ttl=3.0)
            await worker.start()
            await worker.stop(handover=False)
        assert (await js.stream_info(f"KV_{leases}")).config.max_age == 3.0
        assert (await js.stream_info(f"KV_{lobby}")).config.max_msgs_per_subject == 1
        said = [r.getMessage() for r in caplog.records if "updated" in r.getMessage()]
        assert any("TTL 10 s -> 3 s" in m for m in said), said
        assert any("history 5 -> 1" in m for m in said), said
        assert not await reconcile_bucket(js, leases, ttl=3.0, history=1)
    finally:
        for bucket in (leases, lobby):
            with contextlib.suppress(Exception):
                await js.delete_key_value(bucket)
