"""A platform for the tournament tests: the randomness service and a table worker
(table_support), the tournament service's real app on its own schema with a clock the
test can move, and the gateway (with an operators' token) in front of it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from drand.client import DrandClient
from services.tournament.app import ENGINE, create_app
from services.tournament.engine import Engine
from tests.integration import roles
from tests.integration.gateway_support import TEST_HASHER, gateway
from tests.integration.table_support import Platform, platform

ADMIN_TOKEN = "operators-token-for-tests"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


class Clock:
    """The wall clock plus an offset the test can push forward (unix ms).

    After :meth:`jump` it reads a virtual time instead, running ``speed`` times real
    time from where it jumped to: a draw's test puts the service at recorded drand
    rounds. It is also a drand clock (:class:`drand.clock.Clock`: ``now()`` in seconds,
    ``sleep``), so the service's drand client and a local relay can run on it."""

    def __init__(self) -> None:
        self.offset_ms = 0
        self._jumped: tuple[float, float, float] | None = None

    def jump(self, to_s: float, speed: float = 1.0) -> None:
        self._jumped = (to_s, time.monotonic(), speed)

    def now(self) -> float:
        if self._jumped is None:
            return time.time() + self.offset_ms / 1000
        to_s, since, speed = self._jumped
        return to_s + (time.monotonic() - since) * speed + self.offset_ms / 1000

    async def sleep(self, seconds: float) -> None:
        speed = 1.0 if self._jumped is None else self._jumped[2]
        await asyncio.sleep(max(0.0, seconds) / speed)

    def __call__(self) -> int:
        if self._jumped is None:
            return time.time_ns() // 1_000_000 + self.offset_ms
        return int(self.now() * 1000)


@dataclass
class Harness:
    platform: Platform
    http: TestClient
    settings: Settings
    clock: Clock
    service: TestServer | None = None
    #: The drand client the service's draws use (None: the public relays).
    drand: DrandClient | None = None
    services: list[TestServer] = field(default_factory=list)

    @property
    def engine(self) -> Engine:
        assert self.service is not None
        return self.service.app[ENGINE]

    async def start_service(self) -> None:
        app = create_app(
            self.settings, clock=self.clock, tick=0.1, hasher=TEST_HASHER, drand=self.drand
        )
        self.service = TestServer(app)
        await self.service.start_server()
        # Until /readyz says so, the server may not hold the service's subscriptions yet
        # (a request then is a 503 "nobody answers", seen on a loaded machine).
        deadline = time.monotonic() + 30
        async with aiohttp.ClientSession() as probe:
            while True:
                async with probe.get(self.service.make_url("/readyz")) as r:
                    if r.status == 200:
                        break
                assert time.monotonic() < deadline, "the tournament service never got ready"
                await asyncio.sleep(0.05)

    async def stop_service(self) -> None:
        if self.service is not None:
            await self.service.close()
            self.service = None

    async def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        async with self.http.request(
            method, path, json=body, headers=ADMIN if headers is None else headers
        ) as resp:
            if resp.content_type == "application/json":
                return resp.status, await resp.json()
            return resp.status, await resp.text()

    async def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, reply = await self.call(method, path, body, **kw)
        assert status in (200, 201), (status, reply)
        return reply

    async def create(self, **body: Any) -> str:
        reply = await self.ok("POST", "/v1/tournaments", {"name": "test", **body})
        return str(reply["tournament_id"])

    async def bots(self, tid: str, n: int, level: str = "easy") -> list[str]:
        out = []
        for _ in range(n):
            reply = await self.ok("POST", f"/v1/tournaments/{tid}/entrants", {"bot": level})
            out.append(reply["entrant"])
        return out

    async def get(self, tid: str) -> dict[str, Any]:
        reply: dict[str, Any] = await self.ok("GET", f"/v1/tournaments/{tid}")
        return reply

    async def wait_finished(self, tid: str, timeout: float = 90.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            t = await self.get(tid)
            if t["finished"] is not None:
                return t
            if loop.time() > deadline:
                raise AssertionError(f"tournament {tid} not finished: {t['status']}, {t['rounds']}")
            await asyncio.sleep(0.2)

    async def wait(self, tid: str, check: Any, timeout: float = 60.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            t = await self.get(tid)
            if check(t):
                return t
            if loop.time() > deadline:
                raise AssertionError(f"tournament {tid}: condition not reached: {t}")
            await asyncio.sleep(0.1)

    async def events(self, tid: str) -> list[Any]:
        return await self.platform.store.read_stream(f"tournament-{tid}")


def tournament_settings(servers: Any, store: Any, js_names: Any, prefix: str) -> Settings:
    """The tournament service's settings beside a test platform: its own role, its own
    schema (the store's with "_t"), the platform's subjects and events stream."""
    return Settings(
        pg_dsn=roles.dsn_for("tournament", servers.pg_dsn),
        nats_url=servers.nats_url,
        pg_schema=store.schema,
        tournament_schema=f"{store.schema}_t",
        subject_prefix=prefix,
        events_stream=js_names.stream,
        events_subject=js_names.subject_prefix,
    )


@contextlib.asynccontextmanager
async def harness(
    servers: Any,
    store: Any,
    pg_pool: Any,
    nc: Any,
    js_names: Any,
    *,
    clock: Clock | None = None,
    drand: DrandClient | None = None,
    **options: Any,
) -> AsyncIterator[Harness]:
    # No lead for the round the matches name (the rule before it, which the verifier and
    # the tabs still take): a tournament starts its matches round after round, and the
    # lead would delay each round by 0.6 s at the platform's speed; the lead has its own
    # tests (test_randomness, test_witness, the table and gateway tests on the platform).
    options.setdefault("round_lead_ms", 0)
    async with (
        platform(store, pg_pool, nc, js_names, **options) as p,
        gateway(servers, store.schema, js_names, p.prefix, admin_token=ADMIN_TOKEN) as http,
    ):
        settings = tournament_settings(servers, store, js_names, p.prefix)
        h = Harness(p, http, settings, clock or Clock(), drand=drand)
        await h.start_service()
        try:
            yield h
            if h.service is not None:  # the results consumer never had to start again
                assert h.engine.results.consumer_failures == 0, h.engine.results.consumer_error
        finally:
            await h.stop_service()
            await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{store.schema}_t" CASCADE')
