"""The verify API's ``/`` says what it serves: every route, read from the app itself, so
a newcomer who opens the service's address finds the API instead of a 404."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import create_app
from tests.integration import roles

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(loop_scope="session")
async def client(servers: Any, pg_pool: Any) -> AsyncIterator[TestClient]:  # type: ignore[type-arg]
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    settings = Settings(pg_dsn=roles.dsn_for("verify", servers.pg_dsn), pg_schema=schema)
    app = create_app(settings, schema=schema)
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    yield client
    await client.close()
    await store.close()
    await roles.drop_schemas(pg_pool, schema)


async def test_the_root_lists_every_route(client: TestClient) -> None:  # type: ignore[type-arg]
    resp = await client.get("/")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("application/json")
    body = await resp.json()
    assert body["service"] == "verify"
    assert body["reference"] == "/v1/openapi.json"
    routes = {(r["method"], r["path"]) for r in body["routes"]}
    expected = {
        (route.method, route.resource.canonical)
        for route in client.app.router.routes()
        if route.resource is not None and route.method not in ("HEAD", "OPTIONS")
    }
    assert routes == expected
    assert {
        ("GET", "/v1/matches"),
        ("GET", "/v1/matches/{match_id}/verification"),
        ("POST", "/v1/verify"),
        ("GET", "/v1/openapi.json"),
        ("GET", "/healthz"),
        ("GET", "/"),
    } <= routes


async def test_the_root_takes_only_get(client: TestClient) -> None:  # type: ignore[type-arg]
    resp = await client.post("/")
    assert resp.status == 405
    assert (await resp.json())["error"]
