"""Players for the gateway tests: each registers, opens a session, watches its table on
its own WebSocket and plays with a bot of its choice choosing from the view the gateway
sends it (client side). Everything each one receives is recorded."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from argon2 import PasswordHasher

from belot import Bid, Command, DeclareMelds, DemandRedeal, PlayCard, SwapTrumpSeven
from belot.bots import choose
from belot.cards import to_code
from belot_platform.settings import Settings
from services.gateway.app import create_app
from table.views import seat_to_move, view_from_json
from tests.integration import roles

#: Cheap argon2 parameters: the tests register many accounts.
TEST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@contextlib.asynccontextmanager
async def gateway(
    servers: Any,
    schema: str,
    js_names: Any,
    prefix: str,
    clock: Callable[[], float] = time.monotonic,
    **overrides: Any,
) -> AsyncIterator[TestClient]:
    """The gateway's real app on the test's servers; ``clock``: its rate limiter's
    (seconds), which a test moves instead of waiting for a bucket to refill."""
    data_dir = Path(tempfile.mkdtemp(prefix="belot-gw-"))
    settings = Settings(
        **{
            "pg_dsn": roles.dsn_for("gateway", servers.pg_dsn),
            "nats_url": servers.nats_url,
            "pg_schema": schema,
            "gateway_schema": schema,
            "subject_prefix": prefix,
            "events_stream": js_names.stream,
            "events_subject": js_names.subject_prefix,
            "data_dir": data_dir,
            "rate_per_second": 1000.0,
            "rate_burst": 1000,
            **overrides,  # the servers' URLs too (a test's proxy in front of them)
        }
    )
    client = TestClient(TestServer(create_app(settings, hasher=TEST_HASHER, clock=clock)))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


def move_request(command: Command) -> tuple[str, dict[str, Any]]:
    """The gateway route and body for a core command."""
    if isinstance(command, Bid):
        return "bid", {"strain": None if command.strain is None else command.strain.name.lower()}
    if isinstance(command, PlayCard):
        return "play", {"card": to_code(command.card), "belote": command.belote}
    if isinstance(command, DeclareMelds):
        return "announce", {"melds": True}
    if isinstance(command, SwapTrumpSeven):
        return "swap", {}
    if isinstance(command, DemandRedeal):
        return "redeal", {}
    raise ValueError(command)


@dataclass
class Player:
    http: TestClient
    name: str
    level: str = "easy"
    token: str = ""
    player: str = ""
    received: list[Any] = field(default_factory=list)  # every WS message, in order
    http_replies: list[Any] = field(default_factory=list)
    moves: int = 0
    seed: str = ""
    saw_commitment_before_seed: bool | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http.request(method, path, json=body, headers=self.auth) as resp:
            data = await resp.json()
            self.http_replies.append(data)
            return resp.status, data

    async def register(self) -> Player:
        status, body = await self.call(
            "POST", "/v1/accounts", {"name": self.name, "password": "correct horse"}
        )
        assert status == 201, body
        status, body = await self.call(
            "POST", "/v1/sessions", {"name": self.name, "password": "correct horse"}
        )
        assert status == 201, body
        self.token, self.player = body["token"], body["player"]
        return self

    async def play(self, table_id: str, *, send_seed: bool = True, timeout: float = 120) -> None:
        """Watch the table and play each turn the gateway announces until it closes."""
        rng = random.Random(self.name)
        commitment_seen = False
        ws = await self.http.ws_connect("/v1/ws", headers=self.auth)
        try:
            await ws.send_str(orjson.dumps({"op": "watch", "table": table_id}).decode())
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                msg = await ws.receive(timeout=max(0.1, deadline - loop.time()))
                if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR):
                    raise AssertionError(f"{self.name}: WebSocket closed: {msg}")
                m = orjson.loads(msg.data)
                self.received.append(m)
                if m["type"] == "event":
                    if m["event"] in ("FairDealOpened", "ServerSeedCommitted"):
                        commitment_seen = True
                    if m["event"] == "FairDealOpened" and send_seed and not self.seed:
                        self.saw_commitment_before_seed = commitment_seen
                        self.seed = os.urandom(16).hex()
                        status, body = await self.call(
                            "POST", f"/v1/tables/{table_id}/seed", {"seed": self.seed}
                        )
                        assert status == 200, body
                    if m["event"] == "TableClosed":
                        return
                elif m["type"] == "view" and m["seat"] is not None and seat_to_move(m["view"]):
                    view = view_from_json(m["view"])
                    verb, body = move_request(choose(view, rng, self.level))
                    status, reply = await self.call("POST", f"/v1/tables/{table_id}/{verb}", body)
                    if status == 200:
                        self.moves += 1
                    else:  # a stale view (the timer played first): wait for the next
                        assert status == 409, reply
        finally:
            await ws.close()
