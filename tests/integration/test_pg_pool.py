"""The services' pools (belot_platform.pgpool) skip asyncpg's reset round trip when a
connection took no session state, and reset in full one that did: a LISTEN, a marked
advisory lock, an open transaction never reach the next borrower."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from belot_platform import pgpool
from tests.integration.conftest import Servers

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


@pytest_asyncio.fixture(loop_scope="session")
async def one(servers: Servers) -> AsyncIterator[asyncpg.Pool]:
    """A services' pool of one connection: each acquire is the same session."""
    pool = await pgpool.create_pool(servers.pg_dsn, min_size=1, max_size=1)
    yield pool
    await pool.close()


async def last_query(observer: asyncpg.Pool, pid: int) -> str:
    """What the session ``pid`` last sent, as the server saw it."""
    query: str = await observer.fetchval("SELECT query FROM pg_stat_activity WHERE pid = $1", pid)
    return query


async def test_a_plain_release_sends_nothing_more(
    one: asyncpg.Pool, servers: Servers, pg_pool: asyncpg.Pool
) -> None:
    mark = f"SELECT 'released-{uuid.uuid4().hex}'"
    async with one.acquire() as conn:
        pid = await conn.fetchval("SELECT pg_backend_pid()")
        await conn.fetchval(mark)
    # The session's last statement is still ours: no reset query followed the release.
    assert await last_query(pg_pool, pid) == mark
    # asyncpg's own pool, for contrast: its release sends the four-statement reset.
    plain = await asyncpg.create_pool(servers.pg_dsn, min_size=1, max_size=1)
    try:
        async with plain.acquire() as conn:
            plain_pid = await conn.fetchval("SELECT pg_backend_pid()")
            await conn.fetchval(mark)
        assert "pg_advisory_unlock_all" in await last_query(pg_pool, plain_pid)
    finally:
        await plain.close()


async def test_a_listen_left_behind_is_undone(one: asyncpg.Pool, pg_pool: asyncpg.Pool) -> None:
    channel = f"c{uuid.uuid4().hex}"
    # Released still listening (asyncpg says so), as a task cancelled mid-way would.
    with pytest.warns(asyncpg.InterfaceWarning, match="active notification listener"):
        async with one.acquire() as conn:
            await conn.add_listener(channel, lambda *_: None)
            assert await conn.fetchval("SELECT count(*) FROM pg_listening_channels()") == 1
    async with one.acquire() as conn:
        assert await conn.fetchval("SELECT count(*) FROM pg_listening_channels()") == 0
        # Reset once: the next release is light again.
        pid = await conn.fetchval("SELECT pg_backend_pid()")
        await conn.fetchval("SELECT 'after the reset'")
    assert await last_query(pg_pool, pid) == "SELECT 'after the reset'"


async def test_a_marked_session_lock_left_behind_is_released(
    one: asyncpg.Pool, pg_pool: asyncpg.Pool
) -> None:
    key = uuid.uuid4().int >> 65
    async with one.acquire() as conn:
        pgpool.took_session_state(conn)
        assert await conn.fetchval("SELECT pg_try_advisory_lock($1)", key)
    async with pg_pool.acquire() as other:
        assert await other.fetchval("SELECT pg_try_advisory_lock($1)", key)
        await other.execute("SELECT pg_advisory_unlock($1)", key)
    # Unmarked, the lock would have stayed with the pooled session: this is why every
    # session-level statement in the code is marked (tests/unit/test_pg_sessions.py).
    async with one.acquire() as conn:
        assert await conn.fetchval("SELECT pg_try_advisory_lock($1)", key)
    async with pg_pool.acquire() as other:
        assert not await other.fetchval("SELECT pg_try_advisory_lock($1)", key)
    async with one.acquire() as conn:
        await conn.execute("SELECT pg_advisory_unlock($1)", key)


async def test_a_transaction_left_open_is_rolled_back(
    one: asyncpg.Pool, pg_pool: asyncpg.Pool, schema: str
) -> None:
    await pg_pool.execute(f'CREATE TABLE "{schema}".pooled (n int)')
    async with one.acquire() as conn:
        pid = await conn.fetchval("SELECT pg_backend_pid()")
        await conn.execute("BEGIN")
        await conn.execute(f'INSERT INTO "{schema}".pooled VALUES (1)')
    assert await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".pooled') == 0
    state = "SELECT state FROM pg_stat_activity WHERE pid = $1"
    assert await pg_pool.fetchval(state, pid) == "idle"  # not "idle in transaction"

