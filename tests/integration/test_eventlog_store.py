"""EventStore on a real PostgreSQL: appends, optimistic concurrency, idempotent retries,
group commit isolation of failures, visibility, migrations."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from eventlog import (
    EventStore,
    NewEvent,
    WrongExpectedVersion,
    migrate,
)
from eventlog.envelope import GENESIS_HASH, canonical_bytes, chain_hash
from eventlog.migrations import MIGRATIONS
from tests.integration.table_support import eventually

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


def ev(n: int, **kw: object) -> NewEvent:
    return NewEvent("Thing", {"n": n}, **kw)  # type: ignore[arg-type]


async def test_concurrent_appenders_on_one_stream_one_wins_each_version(
    store: EventStore,
) -> None:
    """Many writers race for each version: exactly one append per version lands."""

    async def writer(w: int) -> int:
        wins = 0
        for _ in range(10):
            v = await store.stream_version("match-race")
            try:
                await store.append("match-race", v, [NewEvent("Move", {"w": w})])
                wins += 1
            except WrongExpectedVersion:
                pass
        return wins

    wins = await asyncio.gather(*(writer(w) for w in range(12)))
    events = await store.read_stream("match-race")
    assert sum(wins) == len(events)
    assert [e.version for e in events] == list(range(1, len(events) + 1))


async def test_conflict_between_two_processes_with_stale_caches(
    pg_pool: asyncpg.Pool, schema: str
) -> None:
    """Two stores (two processes) each remember stream heads; a head that moved under
    one of them makes its next append collide, and it is refused, not forked."""
    a = await EventStore.open(pg_pool, schema)
    b = await EventStore.open(pg_pool, schema)
    try:
        await a.append("match-x", 0, [ev(1)])  # a remembers head 1
        await b.append("match-x", 1, [ev(2)])  # b moves it to 2
        with pytest.raises(WrongExpectedVersion) as info:
            await a.append("match-x", 1, [ev(3)])
        assert info.value.actual == 2
        await a.append("match-x", 2, [ev(3)])
        events = await a.read_stream("match-x")
        assert [e.payload["n"] for e in events] == [1, 2, 3]
        prev = GENESIS_HASH
        for e in events:
            prev = chain_hash(prev, e.canonical_bytes())
            assert e.hash == prev
    finally:
        await a.close()
        await b.close()


async def test_concurrent_copies_of_a_command_append_once(
    pg_pool: asyncpg.Pool, schema: str
) -> None:
    """The same command sent at once through one store (one batch) and through two
    stores (two processes): one append, every caller told where it landed."""
    a = await EventStore.open(pg_pool, schema)
    b = await EventStore.open(pg_pool, schema)
    try:
        results = await asyncio.gather(
            *(s.append("match-dup", 0, [ev(1)], command_id="same") for s in (a, a, b, b))
        )
        assert {r.first_position for r in results} == {1}
        assert sum(not r.duplicate for r in results) == 1
        assert len(await a.read_stream("match-dup")) == 1
    finally:
        await a.close()
        await b.close()


async def test_migrations_are_idempotent_and_safe_concurrently(pg_pool: asyncpg.Pool) -> None:
    name = f"t_{uuid.uuid4().hex[:12]}"
    try:

        async def run() -> list[int]:
            async with pg_pool.acquire() as conn:
                return await migrate(conn, name)

        results = await asyncio.gather(*(run() for _ in range(8)))
        every = tuple(m.version for m in MIGRATIONS)  # one starter applies them all
        assert sorted(map(tuple, results)) == [()] * 7 + [every]
        async with pg_pool.acquire() as conn:
            assert await migrate(conn, name) == []
    finally:
        await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


async def test_canonical_bytes_match_what_a_third_party_recomputes(store: EventStore) -> None:
    """A verifier with only the stored row and the standard json module gets the hash."""
    import hashlib
    import json

    await store.append("match-j", 0, [NewEvent("Bid", {"seat": 1, "bid": "pass", "ü": [1, None]})])
    (e,) = await store.read_stream("match-j")
    doc = {
        "metadata": e.metadata,
        "payload": e.payload,
        "recorded_at": e.recorded_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "stream": e.stream_id,
        "type": e.type,
        "version": e.version,
        "visibility": e.visibility,
    }
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert text.encode() == canonical_bytes(
        e.stream_id, e.version, e.type, e.payload, e.metadata, e.visibility, e.recorded_at
    )
    assert hashlib.sha256(bytes(32) + text.encode()).digest() == e.hash


def _batches() -> tuple[float, float]:
    """(transactions, events) the group commit has written so far in this process."""
    from prometheus_client import REGISTRY

    count = REGISTRY.get_sample_value("belot_eventlog_batch_events_count") or 0.0
    total = REGISTRY.get_sample_value("belot_eventlog_batch_events_sum") or 0.0
    return count, total


async def appends_in_transactions(store: EventStore) -> float:
    """Append one event to each of 64 new streams at once; the transactions it took."""
    before = _batches()
    streams = [f"group-{uuid.uuid4().hex[:8]}" for _ in range(64)]
    results = await asyncio.gather(*(store.append(s, 0, [ev(1)]) for s in streams))
    after = _batches()
    transactions, events = after[0] - before[0], after[1] - before[1]
    assert events == 64 and len({r.first_position for r in results}) == 64
    # And every append is where its result says, one event per stream.
    for stream, result in zip(streams, results, strict=True):
        assert [e.position for e in await store.read_stream(stream)] == [result.first_position]
    return transactions


async def test_concurrent_appends_share_group_commits(
    store: EventStore, pg_pool: asyncpg.Pool, schema: str
) -> None:
    """64 appenders, one event each: the writer merges what waits into few transactions
    (one per append would be the throughput of bench/eventlog.py's first version)."""
    transactions = await appends_in_transactions(store)
    assert transactions <= 16, f"{transactions:.0f} transactions for 64 appends"
    # The measure sees transactions: a writer allowed one event a batch takes 64.
    one_by_one = await EventStore.open(pg_pool, schema, producer="tests", max_batch_events=1)
    try:
        assert await appends_in_transactions(one_by_one) == 64
    finally:
        await one_by_one.close()


async def test_a_kept_connection_the_server_closed_is_dropped_not_used(
    store: EventStore, pg_pool: asyncpg.Pool
) -> None:
    """The writer keeps its connection between batches. When the server closes it (a
    restart, a fast shutdown), asyncpg takes it back into the pool and detaches the
    proxy: the next batch must take a fresh connection, not answer ``InterfaceError:
    ... released back to the pool`` (which a client would get as a 500)."""
    await store.append("kept-1", 0, [ev(1)])
    assert store._idle_conns, "the writer keeps its connection between batches"
    pid = store._idle_conns[-1].get_server_pid()
    assert await pg_pool.fetchval("SELECT pg_terminate_backend($1)", pid)
    for _ in range(100):  # asyncpg notices the close on its own, a moment later
        try:
            if store._idle_conns[-1].is_closed():
                break
        except asyncpg.InterfaceError:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("asyncpg never saw the terminated connection close")
    r = await store.append("kept-1", 1, [ev(2)])
    assert r.last_version == 2
    assert [e.payload["n"] for e in await store.read_stream("kept-1")] == [1, 2]


async def test_a_batch_whose_connection_the_server_ends_fails_as_an_outage(
    store: EventStore, pg_pool: asyncpg.Pool, schema: str
) -> None:
    """A fast shutdown ends a writer's connection in the middle of a batch: the server
    sends ``57P01 terminating connection due to administrator command`` before it
    closes. That is the server going away, not data it refused: the batch must not be
    written again append by append on the same connection (asyncpg, still reading the
    error, answers ``InternalClientError: cannot switch to state 12``, which a player
    got as a 500 in the chaos test). Every appender gets an outage and may retry."""
    from belot_platform import outage

    await store.append("cut-0", 0, [ev(0)])  # the writer has its connection
    async with pg_pool.acquire() as blocker:
        tx = blocker.transaction()
        await tx.start()
        # Inserts wait on this lock; the writer's reads (its plan) do not.
        await blocker.execute(f"LOCK TABLE {schema}.events IN EXCLUSIVE MODE")
        appends = [asyncio.ensure_future(store.append(f"cut-{i}", 0, [ev(i)])) for i in range(1, 5)]
        waiting: int | None = None

        async def batch_waits() -> bool:
            nonlocal waiting
            waiting = await pg_pool.fetchval(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query ILIKE '%events%' AND pid <> $1",
                blocker.get_server_pid(),
            )
            return waiting is not None

        await eventually(batch_waits, 5)
        assert waiting is not None, "the batch never waited on the lock"
        assert await pg_pool.fetchval("SELECT pg_terminate_backend($1)", waiting)
        await tx.rollback()  # appends in another batch, on another connection, go on
        results = await asyncio.gather(*appends, return_exceptions=True)
    failed = [i for i, r in zip(range(1, 5), results, strict=True) if isinstance(r, BaseException)]
    assert failed, "the terminated batch's appends must fail"
    assert all(outage.is_outage(results[i - 1]) for i in failed), [repr(r) for r in results]
    # Retried (as a client does after the 503), every failed append goes in, once.
    again = await asyncio.gather(*(store.append(f"cut-{i}", 0, [ev(i)]) for i in failed))
    assert [r.last_version for r in again] == [1] * len(failed)
    for i in range(1, 5):
        assert [e.payload["n"] for e in await store.read_stream(f"cut-{i}")] == [i]


async def test_the_server_saying_it_shuts_down_is_not_answered_by_writing_again(
    store: EventStore, pg_pool: asyncpg.Pool, schema: str
) -> None:
    """The server's ``57P01 terminating connection`` may reach the writer while asyncpg
    still holds the connection open (the chaos test's fast shutdown did: the batch was
    then written again append by append on that connection, and the first of those
    writes failed with ``InternalClientError: cannot switch to state 12``, a 500). A
    going-away server is an outage for the whole batch, written once, not again,
    and every appender told to retry. Here a statement trigger plays the server's
    message on a connection that stays open, and a sequence counts the statements."""
    from belot_platform import outage

    await store.append("bye-0", 0, [ev(0)])
    await pg_pool.execute(
        f"""
        CREATE SEQUENCE {schema}.bye_tries;
        CREATE FUNCTION {schema}.bye() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM nextval('{schema}.bye_tries');
            RAISE EXCEPTION 'terminating connection due to administrator command'
                USING ERRCODE = '57P01';
        END $$;
        CREATE TRIGGER bye BEFORE INSERT ON {schema}.events
            FOR EACH STATEMENT EXECUTE FUNCTION {schema}.bye();
        """
    )
    results = await asyncio.gather(
        *(store.append(f"bye-{i}", 0, [ev(i)]) for i in range(1, 5)), return_exceptions=True
    )
    assert all(isinstance(r, asyncpg.AdminShutdownError) for r in results), results
    assert all(outage.is_outage(r) for r in results)
    tries = await pg_pool.fetchval(f"SELECT last_value FROM {schema}.bye_tries WHERE is_called")
    # One statement per batch, each append in one batch: never more statements than
    # appends (the old isolation wrote a batch of k, then each of its k again).
    assert tries <= 4, f"{tries} statements for 4 appends: some were written again"
    await pg_pool.execute(f"DROP TRIGGER bye ON {schema}.events")
    again = await asyncio.gather(*(store.append(f"bye-{i}", 0, [ev(i)]) for i in range(1, 5)))
    assert [r.last_version for r in again] == [1, 1, 1, 1]
