"""Readers never skip an event: positions follow commit order, and a subscription goes
from catch-up to live without a gap or a repeat."""

from __future__ import annotations

import asyncio
import random

import asyncpg
import pytest

from eventlog import EventStore, NewEvent, RecordedEvent

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


async def _collect(store: EventStore, after: int, count: int, into: list[RecordedEvent]) -> None:
    async with store.subscribe(after, poll_interval=0.2) as sub:
        async for e in sub:
            into.append(e)
            if len(into) >= count:
                return


async def test_the_classic_trap_with_a_sequence(pg_pool: asyncpg.Pool, schema: str) -> None:
    """Why positions must follow commit order: with a plain sequence, a slow transaction
    that took position 1 commits after a fast one took 2, and a reader that saw 2 first
    never sees 1. This is the naive design the log does not use."""
    await pg_pool.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')  # role mode made it
    table = f'"{schema}".naive'
    await pg_pool.execute(f"CREATE TABLE {table} (position bigserial PRIMARY KEY, x int)")
    async with pg_pool.acquire() as slow, pg_pool.acquire() as fast:
        tx = slow.transaction()
        await tx.start()
        await slow.execute(f"INSERT INTO {table} (x) VALUES (1)")  # takes position 1
        await fast.execute(f"INSERT INTO {table} (x) VALUES (2)")  # takes 2, commits
        seen = [
            r[0] for r in await pg_pool.fetch(f"SELECT position FROM {table} WHERE position > 0")
        ]
        assert seen == [2]  # the reader moves its cursor to 2 ...
        await tx.commit()
    later = await pg_pool.fetch(f"SELECT position FROM {table} WHERE position > 2")
    assert later == []  # ... and position 1 is skipped for ever


async def test_a_slow_transaction_is_not_overtaken(
    store: EventStore, pg_pool: asyncpg.Pool
) -> None:
    """The log's answer: an append inside a slow transaction holds the position lock, so
    a fast append started later gets the next position and commits after it; a reader
    running all along sees both, in order."""
    seen: list[RecordedEvent] = []
    reader = asyncio.create_task(_collect(store, 0, 3, seen))
    await store.append("match-first", 0, [NewEvent("Early", {})])
    async with pg_pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        slow = await store.append_in(conn, "match-slow", 0, [NewEvent("Slow", {})])
        fast = asyncio.create_task(store.append("match-fast", 0, [NewEvent("Fast", {})]))
        await asyncio.sleep(0.5)
        assert not fast.done()  # waiting for the slow transaction's commit
        assert [e.type for e in seen] == ["Early"]  # the slow event is not visible yet
        await tx.commit()
    fast_result = await fast
    assert fast_result.first_position == slow.first_position + 1
    await asyncio.wait_for(reader, 10)
    assert [(e.type, e.position) for e in seen] == [("Early", 1), ("Slow", 2), ("Fast", 3)]


async def test_a_rolled_back_append_leaves_no_hole(
    store: EventStore, pg_pool: asyncpg.Pool
) -> None:
    async with pg_pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        await store.append_in(conn, "match-gone", 0, [NewEvent("Gone", {})])
        await tx.rollback()
    r = await store.append("match-kept", 0, [NewEvent("Kept", {})])
    assert r.first_position == 1
    assert await store.stream_version("match-gone") == 0


async def test_catch_up_then_live_under_concurrent_appends(
    store: EventStore, pg_pool: asyncpg.Pool
) -> None:
    """A subscriber starts while 300 events are already in and 16 writers keep
    appending, some through group commit, some in their own slow transactions: it gets
    every event exactly once, in the table's position order."""
    for i in range(30):
        await store.append(f"match-pre{i % 3}", (i // 3) * 10, [NewEvent("Pre", {"i": i})] * 10)
    rng = random.Random(7)
    per_writer = 40

    async def writer(w: int) -> None:
        for v in range(per_writer):
            if v % 7 == 3:
                async with pg_pool.acquire() as conn, conn.transaction():
                    await store.append_in(conn, f"match-w{w}", v, [NewEvent("Tx", {"v": v})])
                    await asyncio.sleep(rng.random() * 0.02)
            else:
                await store.append(f"match-w{w}", v, [NewEvent("Live", {"v": v})])
            if rng.random() < 0.2:
                await asyncio.sleep(rng.random() * 0.01)

    total = 300 + 16 * per_writer
    seen: list[RecordedEvent] = []
    reader = asyncio.create_task(_collect(store, 0, total, seen))
    await asyncio.sleep(0.01)  # let the reader start catching up mid-way
    await asyncio.gather(*(writer(w) for w in range(16)))
    await asyncio.wait_for(reader, 30)
    positions = [e.position for e in seen]
    assert positions == list(range(1, total + 1))
    in_table = [
        r[0]
        for r in await pg_pool.fetch(
            f'SELECT position FROM "{store.schema}".events ORDER BY position'
        )
    ]
    assert positions == in_table
    # And per stream, versions arrive in order.
    last: dict[str, int] = {}
    for e in seen:
        assert e.version == last.get(e.stream_id, 0) + 1
        last[e.stream_id] = e.version
