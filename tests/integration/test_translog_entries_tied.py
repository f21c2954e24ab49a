"""A transparency-log entry stands for the event it names (event-log migration 6), on a
real PostgreSQL, as every service role.

The attack, played live first by the session that filed issue 28: the table's role
inserted a second ``round_named`` entry for an honest finished match, hung on one of its
``CardPlayed`` events, its bytes well formed, its leaf right, its tree index the next;
the signer signed it, and the honest match then failed its verification. Here the same
forgery, and its neighbours (a true entry moved to another event, a hash or time that is
not the event's, a leaf that is not the entry's, bytes that are not JSON), are refused by
the database whoever inserts them; the roles that may not insert entries at all are
refused for lack of the privilege; the entries the store writes itself still go in."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import asyncpg
import pytest

from belot_platform.settings import DB_ROLES
from eventlog import EventStore
from eventlog.envelope import format_time
from eventlog.migrations import ENTRY_MISMATCH_SQLSTATE
from fairdeal import logentries
from tests.integration import roles
from tools.matchgen import MatchSpec, generate, write
from translog import leaf_hash

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

HONEST = MatchSpec(match_id="tied-1", ruleset="classic", label="tied")
#: The roles the store's entries are written as (docs/database-roles.md); the others hold
#: no INSERT on the entries at all.
APPENDERS = ("table", "randomness")


@contextlib.asynccontextmanager
async def connected(pg_pool: asyncpg.Pool, role: str | None) -> AsyncIterator[Any]:
    """A connection as service ``role`` (None, or outside role mode: the superuser)."""
    dsn = roles.dsn_for(role, "") if role else ""
    if not dsn:
        async with pg_pool.acquire() as conn:
            yield conn
        return
    conn = await asyncpg.connect(dsn)
    try:
        yield conn
    finally:
        await conn.close()


async def insert_entry(
    conn: Any, schema: str, entry: bytes, position: int, leaf: bytes | None = None
) -> None:
    """An entry at the tree's next index, with its leaf node, in one statement (as the
    store writes them: the trigger sees both)."""
    s = f'"{schema}"'
    await conn.execute(
        f"""WITH i AS (SELECT count(*) AS n FROM {s}.translog_entries),
                node AS (INSERT INTO {s}.translog_nodes (level, index, hash)
                         SELECT 0, i.n, $3 FROM i)
            INSERT INTO {s}.translog_entries (index, entry, event_position)
            SELECT i.n, $1, $2 FROM i""",
        entry,
        position,
        leaf if leaf is not None else leaf_hash(entry),
    )


def _entry(event: Any, kind: str, **fields: Any) -> bytes:
    doc = {
        "v": 1,
        "kind": kind,
        "event": {
            "stream": event.stream_id,
            "version": event.version,
            "hash": event.hash.hex(),
            "recorded_at": format_time(event.recorded_at),
        },
        **fields,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


async def test_a_false_entry_is_refused_whoever_writes_it(
    pg_pool: asyncpg.Pool, schema: str, store: EventStore
) -> None:
    await write(store, generate(HONEST))
    match = await store.read_stream("match-tied-1")
    fair = await store.read_stream("randomness-tied-1")
    played = next(e for e in match if e.type == "CardPlayed")
    named = next(e for e in fair if e.type == "DrandRoundNamed")
    true_named = await pg_pool.fetchval(
        f'SELECT entry FROM "{schema}".translog_entries WHERE event_position = $1',
        named.position,
    )
    p = named.payload
    forgeries: dict[str, Callable[[], tuple[bytes, int, bytes | None]]] = {
        # The issue's: a second round_named, consistent in itself, hung on a card play.
        "round_named on a CardPlayed": lambda: (
            _entry(
                played,
                "round_named",
                match="tied-1",
                chain=p["chain"],
                round=p["round"] + 1,
                due_at_ms=p["due_at_ms"] + 3000,
            ),
            played.position,
            None,
        ),
        "the true entry moved to another event": lambda: (
            bytes(true_named),
            played.position,
            None,
        ),
        "bytes that are not JSON": lambda: (b"\xff not json", played.position, None),
    }
    before = await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".translog_entries')
    writers = [None, *APPENDERS] if roles.CURRENT is not None else [None]
    tried = 0
    for role in writers:
        async with connected(pg_pool, role) as conn:
            for what, forge in forgeries.items():
                entry, position, leaf = forge()
                with pytest.raises(asyncpg.PostgresError) as info:
                    await insert_entry(conn, schema, entry, position, leaf)
                assert info.value.sqlstate == ENTRY_MISMATCH_SQLSTATE, (role, what, info.value)
                tried += 1
    assert tried >= len(forgeries)
    after = await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".translog_entries')
    assert after == before  # nothing of any of them was written
    # The honest match's entries, written by the store, went in under the same check.
    logged = [e for e in (*match, *fair) if logentries.is_logged(e.stream_id, e.type)]
    held = await pg_pool.fetchval(
        f'SELECT count(*) FROM "{schema}".translog_entries WHERE event_position = ANY($1)',
        [e.position for e in logged],
    )
    assert len(logged) >= 4 and held == len(logged)


async def test_the_other_roles_may_not_insert_an_entry_at_all(
    pg_pool: asyncpg.Pool, schema: str, store: EventStore
) -> None:
    if roles.CURRENT is None:
        pytest.skip("BELOT_TEST_PG_ROLES=0: the services' roles are not made")
    await write(store, generate(HONEST))
    named = next(
        e for e in await store.read_stream("randomness-tied-1") if e.type == "DrandRoundNamed"
    )
    entry = _entry(named, "round_named", match="tied-1", chain="quicknet", round=1, due_at_ms=1)
    for role in sorted(set(DB_ROLES) - set(APPENDERS)):
        async with connected(pg_pool, role) as conn:
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await insert_entry(conn, schema, entry, named.position)


async def test_each_part_of_an_entry_is_held_to_its_event(
    pg_pool: asyncpg.Pool, schema: str, store: EventStore
) -> None:
    """Every check of migration 6 on its own, against a logged event that has no entry yet
    (written with migration 5's check deferred, as a writer that logs later may): each
    false entry is refused, and the true one then goes in."""
    await write(store, generate(HONEST))
    fair = await store.read_stream("randomness-tied-1")
    s = f'"{schema}"'
    async with pg_pool.acquire() as conn, conn.transaction():
        await conn.execute(f"SET CONSTRAINTS {s}.events_logged_have_entries DEFERRED")
        position = int(await conn.fetchval(f"SELECT position FROM {s}.log_head")) + 1
        await conn.execute(f"UPDATE {s}.log_head SET position = $1", position)
        await conn.execute(
            f"INSERT INTO {s}.events (position, stream_id, version, type, payload, metadata,"
            " visibility, recorded_at, hash) VALUES ($1, 'randomness-tied-1', $2,"
            " 'DrandRoundNamed', '{}', '{}', 'public', '2026-01-01T00:00:00Z', $3)",
            position, fair[-1].version + 1, bytes(range(32)),
        )  # fmt: skip
        event = SimpleNamespace(
            stream_id="randomness-tied-1",
            version=fair[-1].version + 1,
            hash=bytes(range(32)),
            recorded_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        fields = {"match": "tied-1", "chain": "quicknet", "round": 1001, "due_at_ms": 1}
        true = _entry(event, "round_named", **fields)
        doc = json.loads(true)
        wrong = {
            "its hash": {**doc, "event": {**doc["event"], "hash": "00" * 32}},
            "its version": {**doc, "event": {**doc["event"], "version": event.version - 1}},
            "its stream": {**doc, "event": {**doc["event"], "stream": "randomness-tied-2"}},
            "its time": {
                **doc,
                "event": {**doc["event"], "recorded_at": "2026-01-01T00:00:01.000000Z"},
            },
            "its kind": {**doc, "kind": "fallback"},
            "its match": {**doc, "match": "tied-2"},
            "the format": {**doc, "v": 2},
        }
        for what, forged in wrong.items():
            data = json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()
            with pytest.raises(asyncpg.PostgresError) as info:
                async with conn.transaction():  # a savepoint: the transaction goes on
                    await insert_entry(conn, schema, data, position)
            assert info.value.sqlstate == ENTRY_MISMATCH_SQLSTATE, what
        with pytest.raises(asyncpg.PostgresError) as info:
            async with conn.transaction():
                await insert_entry(conn, schema, true, position, leaf=bytes(32))
        assert info.value.sqlstate == ENTRY_MISMATCH_SQLSTATE  # the leaf
        await insert_entry(conn, schema, true, position)  # the true one, with its leaf
        assert (
            await conn.fetchval(
                f"SELECT count(*) FROM {s}.translog_entries WHERE event_position = $1", position
            )
            == 1
        )
