"""Nothing dies quietly: the table service's outbox relay, on real servers, with
PostgreSQL or NATS taken away from it alone (a proxy: tests/integration/proxy.py) for
longer than its acknowledgement timeout, then given back. It resumes by itself, the
stream's relay positions are exactly 1..n, and ``/readyz`` says not ready while it is
down and ready after."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient, TestServer
from nats.js import JetStreamContext

from belot_platform.app import TASKS
from belot_platform.settings import Settings
from eventlog import EventStore, NewEvent
from services.table.app import build_app as build_table
from tests.integration import roles
from tests.integration.conftest import Servers, StreamNames
from tests.integration.proxy import proxy
from tests.integration.table_support import eventually

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

RELAY = "outbox-relay"


async def relay_positions(js: JetStreamContext, stream: str) -> list[int]:
    """The positions of the relay's messages (those with its position header), in
    stream order."""
    info = await js.stream_info(stream)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(stream, seq=seq)
        headers = msg.headers or {}
        if "Nats-Msg-Id" in headers:
            assert msg.data is not None
            assert orjson.loads(msg.data)["position"] == int(headers["Nats-Msg-Id"])
            out.append(int(headers["Nats-Msg-Id"]))
    return out


async def append(store: EventStore, tag: str, n: int) -> None:
    await store.append(f"match-{tag}", 0, [NewEvent("E", {"i": i}) for i in range(n)])


def table_settings(
    servers: Servers, schema: str, names: StreamNames, *, pg: str | None = None,
    nats: str | None = None,
) -> Settings:  # fmt: skip
    return Settings(
        pg_dsn=pg or roles.dsn_for("table", servers.pg_dsn),
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


async def published_up_to(js: JetStreamContext, stream: str, n: int) -> bool:
    try:
        info = await js.stream_info(stream)
    except Exception:
        return False
    if info.state.last_seq == 0:
        return False
    msg = await js.get_msg(stream, seq=info.state.last_seq)
    return int((msg.headers or {}).get("Nats-Msg-Id", 0)) >= n


async def table_app(settings: Settings) -> AsyncIterator[TestClient]:  # type: ignore[type-arg]
    client = TestClient(TestServer(build_table(settings)))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


@pytest.mark.parametrize("outage", ["postgres", "nats"])
async def test_the_relay_outlives_an_outage_longer_than_its_ack_timeout(
    outage: str, servers: Servers, store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    url = roles.dsn_for("table", servers.pg_dsn) if outage == "postgres" else servers.nats_url
    async with proxy(url) as cut:
        settings = table_settings(
            servers, store.schema, js_names,
            pg=cut.proxied_url if outage == "postgres" else None,
            nats=cut.proxied_url if outage == "nats" else None,
        )  # fmt: skip
        gen = table_app(settings)
        client = await anext(gen)
        try:
            await append(store, "before", 20)
            await eventually(lambda: published_up_to(js, js_names.stream, 20), 30)
            status, body = await ready(client)
            assert status == 200 and body["tasks"][RELAY] == "ok", body
            await cut.stop()
            await append(store, "during", 30)  # the test's own connection: still up
            # Longer than the relay's 5 s acknowledgement timeout.
            await asyncio.sleep(12)
            status, body = await ready(client)
            assert status == 503, body
            await cut.start()
            await append(store, "after", 10)
            await eventually(lambda: published_up_to(js, js_names.stream, 60), 60)
            assert await relay_positions(js, js_names.stream) == list(range(1, 61))

            async def is_ready() -> bool:
                return (await ready(client))[0] == 200

            await eventually(is_ready, 60)
            assert client.app is not None
            assert client.app[TASKS].tasks[RELAY].restarts >= 1
        finally:
            await gen.aclose()
