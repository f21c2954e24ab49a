"""The transparency log's entries, appended by the event store in the same statement as
their events, on a real PostgreSQL, as the services' own roles: one entry per logged
event, none for the others, the tree's nodes complete and right, indices without gaps
when two processes append at once, nothing written for an event the log cannot hold,
and no role may change or remove an entry."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import asyncpg
import pytest
import pytest_asyncio

from eventlog import EventStore, InvalidEvent, NewEvent, migrate
from eventlog.translog import TreeReader
from fairdeal import logentries
from fairdeal.fairness import (
    DrandRoundNamed,
    SeatSpec,
    ServerSeedCommitted,
    ServerSeedRevealed,
    to_payload,
)
from tests.integration import roles
from translog import (
    inclusion_nodes,
    inclusion_path,
    leaf_hash,
    node_hash,
    tree_hash,
    verify_inclusion,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


def committed(match: str) -> NewEvent:
    event = ServerSeedCommitted(
        match, bytes(32), (SeatSpec(0, "ana"), SeatSpec(1, None)), "quicknet", 10_000, 99, 1
    )
    return NewEvent(event.TYPE, to_payload(event))


def named(round_: int = 9) -> NewEvent:
    return NewEvent(DrandRoundNamed.TYPE, to_payload(DrandRoundNamed("quicknet", round_, 5, 2)))


@contextlib.asynccontextmanager
async def role_store(pg_pool: asyncpg.Pool, schema: str, role: str) -> AsyncIterator[EventStore]:
    dsn = roles.dsn_for(role, "")
    pool = pg_pool if not dsn else await asyncpg.create_pool(dsn, min_size=1, max_size=3)
    store = EventStore(pool, schema, producer=role, entries=logentries)
    try:
        yield store
    finally:
        await store.close()
        if pool is not pg_pool:
            await pool.close()


@pytest_asyncio.fixture(loop_scope="session")
async def migrated(pg_pool: asyncpg.Pool, schema: str) -> str:
    async with pg_pool.acquire() as conn:
        await migrate(conn, schema)
    return schema


async def all_entries(pg_pool: asyncpg.Pool, schema: str) -> list[asyncpg.Record]:
    return await pg_pool.fetch(
        f'SELECT index, entry, event_position FROM "{schema}".translog_entries ORDER BY index'
    )


async def check_tree(pg_pool: asyncpg.Pool, schema: str) -> list[bytes]:
    """Every stored node is the hash its leaves make, and every complete node is stored."""
    entries = [bytes(r[1]) for r in await all_entries(pg_pool, schema)]
    assert [r[0] for r in await all_entries(pg_pool, schema)] == list(range(len(entries)))
    stored = {
        (r[0], r[1]): bytes(r[2])
        for r in await pg_pool.fetch(f'SELECT level, index, hash FROM "{schema}".translog_nodes')
    }
    expected = {}
    level, row = 0, [leaf_hash(e) for e in entries]
    while row:
        expected |= {(level, i): h for i, h in enumerate(row)}
        row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row) - 1, 2)]
        level += 1
    assert stored == expected
    return entries


async def test_logged_events_get_their_entry_in_the_same_statement(
    pg_pool: asyncpg.Pool, migrated: str
) -> None:
    async with (
        role_store(pg_pool, migrated, "randomness") as fair,
        role_store(pg_pool, migrated, "table") as table,
    ):
        await table.append("match-m1", 0, [NewEvent("MatchStarted", {"n": 1})])
        r = await fair.append("randomness-m1", 0, [committed("m1"), named()])
        seat = NewEvent("SeatSeedReceived", {"seat": 0, "seed": "00" * 32, "at_ms": 1})
        await fair.append("randomness-m1", 2, [seat])
        end = await table.append("match-m1", 1, [NewEvent("MatchAborted", {"reason": "test"})])
        reveal = ServerSeedRevealed(bytes(32), 5)
        await fair.append("randomness-m1", 3, [NewEvent(reveal.TYPE, to_payload(reveal))])

    rows = await all_entries(pg_pool, migrated)
    entries = [logentries.parse_entry(bytes(row[1])) for row in rows]
    assert [e.KIND for e in entries] == ["commitment", "round_named", "ending", "reveal"]
    assert [row[2] for row in rows] == [
        r.first_position,
        r.first_position + 1,
        end.first_position,
        end.first_position + 1,
    ]
    events = {
        (e.stream_id, e.version): e
        for sid in ("match-m1", "randomness-m1")
        for e in await EventStore(pg_pool, migrated).read_stream(sid)
    }
    for entry in entries:
        event = events[(entry.event.stream, entry.event.version)]
        assert entry.event.hash == event.hash
        assert entry.event.recorded_at == event.to_json_dict()["recorded_at"]
    ending = entries[2]
    assert isinstance(ending, logentries.Ending) and ending.ending == "MatchAborted"
    seed_received = events[("randomness-m1", 3)]
    assert [(h.stream, h.version, h.hash) for h in ending.heads] == [
        ("match-m1", 2, events[("match-m1", 2)].hash),
        ("randomness-m1", 3, seed_received.hash),
    ]
    leaves = await check_tree(pg_pool, migrated)
    # A proof from the stored nodes (one query) verifies against the tree's root.
    reader = TreeReader(pg_pool, migrated)
    size = await reader.size()
    plan = inclusion_nodes(1, size)
    path = plan.assemble(await reader.nodes(plan.nodes))
    verify_inclusion(leaf_hash(leaves[1]), 1, size, path, tree_hash(leaves))
    assert path == inclusion_path([leaf_hash(e) for e in leaves], 1)


async def test_two_processes_appending_at_once_keep_one_gapless_tree(
    pg_pool: asyncpg.Pool, migrated: str
) -> None:
    async with (
        role_store(pg_pool, migrated, "randomness") as a,
        role_store(pg_pool, migrated, "randomness") as b,
    ):

        async def match(store: EventStore, n: int) -> None:
            await store.append(f"randomness-p{n}", 0, [committed(f"p{n}")])
            await store.append(f"drand-other-{n}", 0, [NewEvent("Thing", {"n": n})])
            await store.append(f"randomness-p{n}", 1, [named(n + 10)])

        await asyncio.gather(*(match(a if n % 2 else b, n) for n in range(40)))
    entries = await check_tree(pg_pool, migrated)
    assert len(entries) == 80
    positions = [r[2] for r in await all_entries(pg_pool, migrated)]
    assert positions == sorted(positions)  # indices follow commit order


async def test_an_event_the_log_cannot_hold_is_not_written(
    pg_pool: asyncpg.Pool, migrated: str
) -> None:
    async with role_store(pg_pool, migrated, "randomness") as fair:
        with pytest.raises(InvalidEvent, match="cannot be logged"):
            await fair.append("randomness-m2", 0, [NewEvent("ServerSeedCommitted", {"x": 1})])
        with pytest.raises(InvalidEvent, match="cannot be logged"):
            await fair.append("randomness-m3", 0, [committed("m2")])
        assert await fair.stream_version("randomness-m2") == 0
        # Inside a caller's transaction too.
        async with fair.pool.acquire() as conn, conn.transaction():
            await fair.append_in(conn, "randomness-m4", 0, [committed("m4")])
        await fair.append("randomness-m5", 0, [committed("m5")])
    assert len(await check_tree(pg_pool, migrated)) == 2


async def test_no_role_may_change_an_entry_and_readers_may_not_insert(
    pg_pool: asyncpg.Pool, migrated: str
) -> None:
    async with role_store(pg_pool, migrated, "randomness") as fair:
        await fair.append("randomness-m6", 0, [committed("m6")])
    s = f'"{migrated}"'
    statements = (
        f"UPDATE {s}.translog_entries SET entry = 'x'",
        f"DELETE FROM {s}.translog_entries",
        f"TRUNCATE {s}.translog_nodes",
        f"UPDATE {s}.translog_nodes SET hash = hash",
    )
    for role in ("table", "randomness", "verify"):
        dsn = roles.dsn_for(role, "")
        if not dsn:
            pytest.skip("BELOT_TEST_PG_ROLES=0: no service roles")
        conn = await asyncpg.connect(dsn)
        try:
            for sql in statements:
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(sql)
            assert await conn.fetchval(f"SELECT count(*) FROM {s}.translog_entries") == 1
            if role == "verify":
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(
                        f"INSERT INTO {s}.translog_nodes VALUES (0, 99, '\\x00'::bytea)"
                    )
        finally:
            await conn.close()
    # The owner's triggers refuse it too (here: the test's superuser).
    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await pg_pool.execute(statements[0])
    assert len(await check_tree(pg_pool, migrated)) == 1
