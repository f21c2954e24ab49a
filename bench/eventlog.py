"""Event-log append throughput against the raw insert limit measured in the same run.

The raw limit: equal rows (same columns, same indexes as the events table, no trigger)
inserted with one multi-row INSERT per transaction on one connection, 64 rows per
statement: the most that 64 appenders waiting one event at a time can ever hand a
writer at once. The log: 64 concurrent streams, each appending one event at a time with
its expected version, through ``EventStore.append`` (group commit, hash chain, command
ids). Also printed: append latency p50/p99, and replay speed (every event read back in
position order and folded into per-stream state). Each throughput is the best of
interleaved rounds on the same database, so a busy moment hits both sides alike.

    python bench/eventlog.py [--rounds R] [--events-per-stream N]

Uses BELOT_PG_DSN, else starts the embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

import asyncpg
import orjson

from eventkit.envelope import canonical_bytes, chain_hash
from eventlog import EventStore, NewEvent

TARGET = 0.60
STREAMS = 64
PAYLOAD = {"seat": 2, "card": "TS", "trick": 5, "deal": 3}


async def raw_round(conn: Any, s: str, batches: int, rows_per_batch: int, start: int) -> float:
    payload = orjson.dumps(PAYLOAD).decode()
    meta = orjson.dumps({"command_id": str(uuid.uuid4()), "producer": "bench"}).decode()
    h = bytes(32)
    now = datetime.now(UTC)
    sql = f"""
INSERT INTO {s}.raw_events (position, stream_id, version, type, payload, metadata,
                            visibility, recorded_at, hash)
SELECT e.position, e.stream_id, e.version, e.type, e.payload::jsonb, e.metadata::jsonb,
       e.visibility, $1, e.hash
FROM unnest($2::bigint[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[],
            $8::text[], $9::bytea[])
     AS e(position, stream_id, version, type, payload, metadata, visibility, hash)"""
    pos = start
    t0 = time.perf_counter()
    for b in range(batches):
        n = rows_per_batch
        positions = list(range(pos + 1, pos + n + 1))
        pos += n
        await conn.execute(
            sql,
            now,
            positions,
            [f"raw-{start}-{i % STREAMS}-{i // STREAMS}" for i in range(b * n, b * n + n)],
            [1] * n,
            ["CardPlayed"] * n,
            [payload] * n,
            [meta] * n,
            ["public"] * n,
            [h] * n,
        )
    return batches * rows_per_batch / (time.perf_counter() - t0)


async def log_round(store: EventStore, round_no: int, per_stream: int) -> tuple[float, list[float]]:
    latencies: list[float] = []

    async def stream(i: int) -> None:
        sid = f"bench-{round_no}-{i}"
        for v in range(per_stream):
            t = time.perf_counter()
            await store.append(
                sid,
                v,
                [NewEvent("CardPlayed", PAYLOAD, metadata={"correlation_id": sid})],
                command_id=str(uuid.uuid4()),
            )
            latencies.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    await asyncio.gather(*(stream(i) for i in range(STREAMS)))
    return STREAMS * per_stream / (time.perf_counter() - t0), latencies


async def replay(store: EventStore) -> tuple[int, float]:
    """Read every event in position order and fold it into per-stream state, checking
    versions follow on and recomputing each stream's hash chain as a verifier would."""
    state: dict[str, tuple[int, bytes]] = {}
    n = 0
    t0 = time.perf_counter()
    async for e in store.iter_all(0, batch_size=2000):
        version, prev = state.get(e.stream_id, (0, bytes(32)))
        assert e.version == version + 1
        h = chain_hash(
            prev,
            canonical_bytes(
                e.stream_id, e.version, e.type, e.payload, e.metadata, e.visibility, e.recorded_at
            ),
        )
        assert h == e.hash
        state[e.stream_id] = (e.version, h)
        n += 1
    return n, n / (time.perf_counter() - t0)


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1]


async def run(dsn: str, rounds: int, per_stream: int) -> int:
    schema = f"bench_{os.getpid()}"
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=4)
    try:
        store = await EventStore.open(pool, schema, producer="bench")
        s = f'"{schema}"'
        await pool.execute(f"CREATE TABLE {s}.raw_events (LIKE {s}.events INCLUDING ALL)")
        raw64: list[float] = []
        raw1000: list[float] = []
        logs: list[float] = []
        lat: list[float] = []
        async with pool.acquire() as conn:
            pos = 0
            for r in range(rounds):
                raw64.append(await raw_round(conn, s, per_stream, STREAMS, pos))
                pos += per_stream * STREAMS
                rate, latencies = await log_round(store, r, per_stream)
                logs.append(rate)
                lat.extend(latencies)
                raw1000.append(await raw_round(conn, s, per_stream * STREAMS // 1000, 1000, pos))
                pos += per_stream * STREAMS // 1000 * 1000
        n, replay_rate = await replay(store)
        await store.close()
        limit, log, big = max(raw64), max(logs), max(raw1000)
        ratio = log / limit
        print(
            f"PostgreSQL: {(await pool.fetchval('SHOW server_version'))}, "
            f"{rounds} rounds of {STREAMS} streams x {per_stream} events"
        )
        print(f"raw limit, 64-row INSERT per transaction : {limit:>10,.0f} rows/s")
        print(f"(raw, 1000-row INSERT per transaction    : {big:>10,.0f} rows/s)")
        print(f"log append, 64 streams one event at a time: {log:>10,.0f} events/s")
        print(f"ratio log / raw limit                     : {ratio:>10.2f} (target {TARGET})")
        print(
            f"append latency p50 / p99                  : {pct(lat, 0.5) * 1e3:.2f} ms / "
            f"{pct(lat, 0.99) * 1e3:.2f} ms"
        )
        print(
            f"replay (read + fold + hash check)         : {replay_rate:>10,.0f} events/s "
            f"over {n:,} events"
        )
        return 0 if ratio >= TARGET else 1
    finally:
        await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events-per-stream", type=int, default=200)
    args = parser.parse_args()
    dsn = os.environ.get("BELOT_PG_DSN")
    if dsn:
        return asyncio.run(run(dsn, args.rounds, args.events_per_stream))
    from belot_platform.embedded import EmbeddedPostgres

    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
        pg = EmbeddedPostgres(Path(tmp) / "pg", port=0)
        pg.start()
        try:
            return asyncio.run(run(pg.dsn(), args.rounds, args.events_per_stream))
        finally:
            pg.stop()


if __name__ == "__main__":
    sys.exit(main())
