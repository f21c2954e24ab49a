"""An event the transparency log must hold commits only with its entry (event-log
migration 5), on a real PostgreSQL: a store built without the entry source is refused
(:class:`EntryMissing`, nothing written) for exactly the events ``fairdeal.logentries``
logs, alone in its batch and inside a caller's transaction; the same append with the
source commits; the migration goes onto a log that already has events without checking
them, and TRUNCATE still meets the append-only trigger first."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from eventlog import EntryMissing, EventStore, NewEvent, migrate
from eventlog.migrations import (
    APPEND_ONLY_SQLSTATE,
    ENTRY_MISSING_SQLSTATE,
    LOG,
    Component,
    apply,
)
from fairdeal import logentries
from tests.integration import roles
from translog import leaf_hash

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

ENDED = NewEvent("MatchEnded", {"winner": 0})


@contextlib.asynccontextmanager
async def role_store(
    pg_pool: asyncpg.Pool, schema: str, role: str, *, logged: bool
) -> AsyncIterator[EventStore]:
    """A store as service ``role`` (in role mode), with the entry source or without."""
    dsn = roles.dsn_for(role, "")
    pool = pg_pool if not dsn else await asyncpg.create_pool(dsn, min_size=1, max_size=3)
    store = EventStore(pool, schema, producer=role, entries=logentries if logged else None)
    try:
        yield store
    finally:
        await store.close()
        if pool is not pg_pool:
            await pool.close()


@pytest_asyncio.fixture(loop_scope="session")
async def plain(pg_pool: asyncpg.Pool, schema: str) -> AsyncIterator[EventStore]:
    """A store of the test's superuser built without the entry source."""
    s = await EventStore.open(pg_pool, schema, producer="tests")
    yield s
    await s.close()


async def counts(pg_pool: asyncpg.Pool, schema: str) -> tuple[int, int, int]:
    """(events, log head, entries)."""
    row = await pg_pool.fetchrow(
        f'SELECT (SELECT count(*) FROM "{schema}".events),'
        f' (SELECT position FROM "{schema}".log_head),'
        f' (SELECT count(*) FROM "{schema}".translog_entries)'
    )
    return (row[0], row[1], row[2])


async def test_an_appender_without_the_entry_source_is_refused(
    pg_pool: asyncpg.Pool, schema: str, store: EventStore
) -> None:
    async with role_store(pg_pool, schema, "table", logged=False) as plain:
        await plain.append("match-r1", 0, [NewEvent("MatchStarted", {"n": 1})])
        before = await counts(pg_pool, schema)
        with pytest.raises(EntryMissing) as info:
            await plain.append("match-r1", 1, [NewEvent("CardPlayed", {"c": "TS"}), ENDED])
    assert info.value.code == "translog_entry_missing"
    assert "MatchEnded at version 3 of match-r1 has no transparency-log entry" in str(info.value)
    assert "entries=logentries" in str(info.value)
    assert isinstance(info.value.__cause__, asyncpg.PostgresError)
    assert info.value.__cause__.sqlstate == ENTRY_MISSING_SQLSTATE
    # Nothing of the append: not the move before the ending, not a position.
    assert await counts(pg_pool, schema) == before
    assert await store.stream_version("match-r1") == 1

    async with role_store(pg_pool, schema, "table", logged=True) as table:
        r = await table.append("match-r1", 1, [NewEvent("CardPlayed", {"c": "TS"}), ENDED])
    assert await counts(pg_pool, schema) == (before[0] + 2, before[1] + 2, before[2] + 1)
    position = await pg_pool.fetchval(f'SELECT event_position FROM "{schema}".translog_entries')
    assert position == r.last_position


async def test_the_database_refuses_exactly_what_logentries_logs(
    pg_pool: asyncpg.Pool, schema: str, plain: EventStore
) -> None:
    # Every logged type and a few others, in every kind of stream: the trigger's list is
    # written out in the migration, this is what keeps it the same as LOGGED_TYPES.
    logged = sorted(set().union(*logentries.LOGGED_TYPES.values()))
    assert len(logged) == 8
    types = [*logged, "MatchStarted", "CardPlayed", "SeatSeedReceived", "TableOpened"]
    prefixes = [*logentries.LOGGED_TYPES, "table-", "tournament-", "rating-", "matches-"]
    refused, expected = set(), set()
    for i, (prefix, type_) in enumerate((p, t) for p in prefixes for t in types):
        stream = f"{prefix}agree{i}"
        if logentries.is_logged(stream, type_):
            expected.add((prefix, type_))
        try:
            await plain.append(stream, 0, [NewEvent(type_, {"i": i})])
        except EntryMissing:
            refused.add((prefix, type_))
    assert len(expected) == 8
    assert refused == expected


async def test_concurrent_appenders_lose_only_the_refused_append(
    pg_pool: asyncpg.Pool, schema: str, plain: EventStore
) -> None:
    # One batch (group commit): the refused append fails alone, the others commit.
    others = [
        plain.append(f"match-ok{i}", 0, [NewEvent("MatchStarted", {"i": i})]) for i in range(8)
    ]
    results = await asyncio.gather(
        *others, plain.append("match-bad", 0, [ENDED]), return_exceptions=True
    )
    assert [type(r) for r in results[-1:]] == [EntryMissing]
    assert all(not isinstance(r, BaseException) for r in results[:-1])
    assert [await plain.stream_version(f"match-ok{i}") for i in range(8)] == [1] * 8
    assert await plain.stream_version("match-bad") == 0


async def test_append_in_a_callers_transaction_is_refused_at_the_append(
    pg_pool: asyncpg.Pool, schema: str, plain: EventStore
) -> None:
    async with pg_pool.acquire() as conn, conn.transaction():
        await plain.append_in(conn, "match-tx", 0, [NewEvent("MatchStarted", {})])
        with pytest.raises(EntryMissing):
            await plain.append_in(conn, "match-tx", 1, [ENDED])
        # The caller's transaction is still usable (the append had a savepoint).
        await plain.append_in(conn, "match-tx", 1, [NewEvent("CardPlayed", {})])
    assert [e.type for e in await plain.read_stream("match-tx")] == ["MatchStarted", "CardPlayed"]


async def test_an_entry_written_later_in_the_transaction_may_be_deferred(
    pg_pool: asyncpg.Pool, schema: str, plain: EventStore
) -> None:
    s = f'"{schema}"'
    insert_event = (
        f"INSERT INTO {s}.events (position, stream_id, version, type, payload, metadata,"
        " visibility, recorded_at, hash) VALUES ($1, $2, 1, 'MatchEnded', '{}', '{}',"
        " 'public', '2026-01-01T00:00:00Z', $3)"
    )
    # The entry that stands for it, and its leaf (migration 6 checks both).
    pending = logentries.prepare("match-late", "MatchEnded", {})
    assert pending is not None
    entry = pending.encode(1, bytes(32), "2026-01-01T00:00:00.000000Z", {})
    async with pg_pool.acquire() as conn:
        position = int(await conn.fetchval(f"SELECT position FROM {s}.log_head")) + 1
        # Checked at the statement's end, by default: the entry must come with it.
        with pytest.raises(asyncpg.PostgresError) as info:
            await conn.execute(insert_event, position, "match-late", bytes(32))
        assert info.value.sqlstate == ENTRY_MISSING_SQLSTATE
        async with conn.transaction():
            await conn.execute(f"SET CONSTRAINTS {s}.events_logged_have_entries DEFERRED")
            await conn.execute(f"UPDATE {s}.log_head SET position = $1", position)
            await conn.execute(insert_event, position, "match-late", bytes(32))
            index = await conn.fetchval(f"SELECT count(*) FROM {s}.translog_entries")
            await conn.execute(
                f"INSERT INTO {s}.translog_nodes (level, index, hash) VALUES (0, $1, $2)",
                index,
                leaf_hash(entry),
            )
            await conn.execute(
                f"INSERT INTO {s}.translog_entries (index, entry, event_position)"
                " VALUES ($1, $2, $3)",
                index,
                entry,
                position,
            )
        assert (
            await conn.fetchval(f"SELECT count(*) FROM {s}.events WHERE stream_id = 'match-late'")
            == 1
        )
        # Deferred, and the entry never came: refused at COMMIT.
        with pytest.raises(asyncpg.PostgresError) as info:
            async with conn.transaction():
                await conn.execute(f"SET CONSTRAINTS {s}.events_logged_have_entries DEFERRED")
                await conn.execute(f"UPDATE {s}.log_head SET position = $1", position + 1)
                await conn.execute(insert_event, position + 1, "match-later", bytes(32))
        assert info.value.sqlstate == ENTRY_MISSING_SQLSTATE


async def test_migration_5_goes_onto_a_log_with_events(pg_pool: asyncpg.Pool) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    s = f'"{schema}"'
    before_5 = Component(LOG.name, LOG.version_table, LOG.migrations[:4])
    try:
        async with pg_pool.acquire() as conn:
            assert await apply(conn, before_5, schema) == [1, 2, 3, 4]
        # What an appender without the entry source could write before: kept.
        old = EventStore(pg_pool, schema, producer="tests")
        await old.append("match-old", 0, [NewEvent("MatchStarted", {}), ENDED])
        await old.close()
        async with pg_pool.acquire() as conn:
            assert await migrate(conn, schema) == [5, 6]
        store = EventStore(pg_pool, schema, producer="tests")
        try:
            assert [e.type for e in await store.read_stream("match-old")] == [
                "MatchStarted",
                "MatchEnded",
            ]
            with pytest.raises(EntryMissing):
                await store.append("match-new", 0, [ENDED])
            await store.append("match-old", 2, [NewEvent("Note", {})])
        finally:
            await store.close()
        # No foreign key came with it: TRUNCATE still meets the append-only trigger.
        for table in ("events", "translog_entries"):
            with pytest.raises(asyncpg.PostgresError) as info:
                await pg_pool.execute(f"TRUNCATE {s}.{table}")
            assert info.value.sqlstate == APPEND_ONLY_SQLSTATE
        with pytest.raises(asyncpg.PostgresError) as info:
            await pg_pool.execute(f"TRUNCATE {s}.events, {s}.translog_entries")
        assert info.value.sqlstate == APPEND_ONLY_SQLSTATE
    finally:
        await pg_pool.execute(f"DROP SCHEMA IF EXISTS {s} CASCADE")
