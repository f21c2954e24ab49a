"""The verify API fuzzed from its own OpenAPI document with schemathesis: whatever comes
in, no 5xx, and every 4xx is a JSON body with an ``error`` code.

aiohttp has no in-process ASGI/WSGI entry, so the real app runs on a local port, in a
thread with its own event loop (schemathesis calls it synchronously), on a log holding a
finished match and one in progress; their ids are given to schemathesis as examples.
"""

from __future__ import annotations

import asyncio
import copy
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest
import schemathesis
from aiohttp import web
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from belot_platform.app import HTTP_LIMIT
from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import create_app
from services.verify.http import RateLimits
from services.verify.openapi import OPENAPI
from tools.matchgen import MatchSpec, generate, write

FINISHED = MatchSpec(match_id="fuzz-done", ruleset="classic", end="abort", label="fuzz")
RUNNING = MatchSpec(match_id="fuzz-live", ruleset="gambler", label="fuzz-live")
EXAMPLES_PER_OPERATION = 50


def _spec_with_examples() -> dict[str, Any]:
    spec = copy.deepcopy(OPENAPI)
    for item in spec["paths"].values():
        for param in item.get("get", {}).get("parameters", []):
            if param["name"] == "match_id":
                param["examples"] = {
                    "finished": {"value": FINISHED.match_id},
                    "running": {"value": RUNNING.match_id},
                }
    return spec


schema = schemathesis.openapi.from_dict(_spec_with_examples())


@schemathesis.check
def errors_are_json_with_a_code(ctx: Any, response: Any, case: Any) -> bool | None:
    # A request line longer than the HTTP parser's limit never reaches the app: aiohttp
    # refuses it with a plain-text 400 (docs/verifying.md, "The verify API").
    too_long = len(response.request.url) > HTTP_LIMIT
    if response.status_code >= 400 and not too_long:
        headers = {k.lower(): v for k, v in response.headers.items()}
        content_type = headers.get("content-type", [""])
        if isinstance(content_type, list):
            content_type = content_type[0] if content_type else ""
        assert content_type.startswith("application/json"), (
            f"{response.status_code} without a JSON body ({content_type!r})"
        )
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("error"), str), (
            f"{response.status_code} body has no error code: {response.text[:200]}"
        )
        assert isinstance(body.get("message"), str)
    return None


@dataclass
class Live:
    url: str
    loop: asyncio.AbstractEventLoop


@pytest.fixture(scope="module")
def live_verify(servers: Any) -> Iterator[Live]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="verify-fuzz", daemon=True)
    thread.start()
    schema_name = f"t_{uuid.uuid4().hex[:12]}"
    held: dict[str, Any] = {}

    async def start() -> int:
        pool = await asyncpg.create_pool(servers.pg_dsn, min_size=1, max_size=4)
        store = await EventStore.open(pool, schema_name, producer="tests", entries=logentries)
        await write(store, generate(FINISHED))
        await write(store, generate(RUNNING)[:40])
        settings_ = Settings(pg_dsn=servers.pg_dsn, pg_schema=schema_name)
        app = create_app(
            settings_, schema=schema_name, limits=RateLimits(rate=100_000, burst=1_000_000)
        )
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        held.update(pool=pool, store=store, runner=runner)
        port: int = runner.addresses[0][1]
        return port

    async def stop() -> None:
        await held["runner"].cleanup()
        await held["store"].close()
        await held["pool"].execute(f'DROP SCHEMA IF EXISTS "{schema_name}" CASCADE')
        await held["pool"].close()

    port = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=120)
    try:
        yield Live(f"http://127.0.0.1:{port}", loop)
    finally:
        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_survives_its_own_openapi_fuzzing(case: Any, live_verify: Live) -> None:
    response = case.call(base_url=live_verify.url)
    case.validate_response(response, checks=[not_a_server_error, errors_are_json_with_a_code])
