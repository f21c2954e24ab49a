"""The gateway's WebSocket limit (BELOT_GATEWAY_MAX_SOCKETS): a socket past it is closed
at once with 1013 and counted; the open ones keep receiving the table they follow; a
player's new socket that replaces its old one is not refused."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import orjson
import pytest
from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient

from services.gateway.live import FULL, FULL_REASON
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")

REFUSED = re.compile(r"^belot_gateway_websockets_refused_total (\S+)$", re.M)


async def refused(http: TestClient) -> float:
    async with http.get("/metrics") as resp:
        match = REFUSED.search(await resp.text())
    assert match is not None
    return float(match.group(1))


async def watching(http: TestClient, player: Player, table_id: str) -> ClientWebSocketResponse:
    ws = await http.ws_connect("/v1/ws", headers=player.auth)
    await ws.send_str(orjson.dumps({"op": "watch", "table": table_id}).decode())
    first = orjson.loads((await ws.receive(timeout=10)).data)
    assert first["type"] == "watching" and first["table"] == table_id, first
    return ws


async def live_event(ws: ClientWebSocketResponse, timeout: float = 30) -> dict[str, Any]:
    """The next event the gateway forwards live (not read from the log in a catch-up)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg = await ws.receive(timeout=max(0.1, deadline - loop.time()))
        assert msg.type in (WSMsgType.BINARY, WSMsgType.TEXT), msg
        m = orjson.loads(msg.data)
        if m["type"] == "event" and not m.get("replay"):
            return dict(m)


async def test_a_socket_past_the_limit_is_refused_and_the_open_ones_keep_receiving(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix, gateway_max_sockets=2) as http,
    ):
        ann, bob, cyd = [await Player(http, f"limit-{n}").register() for n in ("a", "b", "c")]
        created = await p.create(
            ruleset="club", seats=["bot:easy"] * 4, target=10_000, rated=False, bot_delay_ms=50
        )
        table_id = created["table_id"]
        ws_ann = await watching(http, ann, table_id)
        ws_bob = await watching(http, bob, table_id)
        before = await refused(http)

        ws_cyd = await http.ws_connect("/v1/ws", headers=cyd.auth)
        closed = await ws_cyd.receive(timeout=10)
        assert closed.type is WSMsgType.CLOSE, closed
        assert (closed.data, closed.extra) == (FULL, FULL_REASON.decode())
        assert await refused(http) == before + 1

        # The open sockets were not touched: both receive what the table does next.
        seen = [await live_event(ws) for ws in (ws_ann, ws_bob)]
        assert all(m["table"] == table_id for m in seen)
        later = await live_event(ws_ann)
        assert (later["stream"], later["version"]) != (seen[0]["stream"], seen[0]["version"])

        # One socket per player: ann's new one replaces her old one and is not refused.
        ws_again = await watching(http, ann, table_id)
        replaced = await ws_ann.receive(timeout=10)
        while replaced.type is WSMsgType.BINARY:  # what was sent before the replacement
            replaced = await ws_ann.receive(timeout=10)
        assert replaced.type is WSMsgType.CLOSE and replaced.data == 4000, replaced
        await live_event(ws_again)
        await live_event(ws_bob)
        assert await refused(http) == before + 1
        for ws in (ws_again, ws_bob, ws_cyd):
            await ws.close()
