"""Bot tables on one and on two table workers, against the event log's raw limit.

For each case (N tables, W workers): W ``belot serve table`` processes, N tables of four
easy bots (club, target 10,000 so that no match ends during the measurement), the
randomness service in this process (a local relay of recorded drand beacons on a
virtual clock, as the tests run it). After a warm-up, for ``--window`` seconds: deals
scored per second and events appended per second (counted in the log), and the latency
of the tables' commands (decide + append with its expected version, each bot move or
deck; the workers' ``belot_table_command_seconds`` histograms, p50/p99 interpolated
within buckets). In the same run and on the same database, the event log's raw limit
as bench/eventlog.py measures it (one connection, 64-row INSERT per transaction).

    python bench/tables.py [--tables 50,200] [--window 15] [--level easy]

Uses BELOT_PG_DSN and BELOT_NATS_URL, else starts the embedded servers in a temporary
directory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))

import asyncpg

from belot_platform import messaging
from bench import kit
from eventlog import EventStore
from fairdeal import logentries

_spec = importlib.util.spec_from_file_location("bench_eventlog", ROOT / "bench" / "eventlog.py")
assert _spec is not None and _spec.loader is not None
bench_eventlog = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_eventlog)

BUCKET_RE = re.compile(r'^belot_table_command_seconds_bucket\{by="(\w+)",le="([^"]+)"\} (\S+)$')


def scrape(ports: list[int]) -> dict[float, float]:
    """The command-latency histogram summed over workers and kinds: le -> count."""
    out: dict[float, float] = {}
    for port in ports:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
        for line in text.decode().splitlines():
            m = BUCKET_RE.match(line)
            if m:
                le = float("inf") if m.group(2) == "+Inf" else float(m.group(2))
                out[le] = out.get(le, 0.0) + float(m.group(3))
    return out


def percentile(hist: dict[float, float], q: float) -> float:
    """From cumulative bucket counts, interpolating linearly inside the bucket."""
    les = sorted(hist)
    total = hist[les[-1]]
    if total <= 0:
        return float("nan")
    want = q * total
    prev_le, prev_count = 0.0, 0.0
    for le in les:
        count = hist[le]
        if count >= want:
            if le == float("inf"):
                return prev_le
            share = (want - prev_count) / max(count - prev_count, 1e-9)
            return prev_le + share * (le - prev_le)
        prev_le, prev_count = le, count
    return les[-1]


async def raw_limit(pool: Any, schema: str) -> float:
    s = f'"{schema}"'
    await pool.execute(f"CREATE TABLE {s}.raw_events (LIKE {s}.events INCLUDING ALL)")
    best = 0.0
    async with pool.acquire() as conn:
        pos = 0
        for _ in range(3):
            best = max(best, await bench_eventlog.raw_round(conn, s, 200, 64, pos))
            pos += 200 * 64
    return best


async def count(pool: Any, schema: str) -> tuple[int, int]:
    row = await pool.fetchrow(
        f"""SELECT count(*) FILTER (WHERE type = 'DealScored') AS deals,
                   (SELECT position FROM "{schema}".log_head) AS events
            FROM "{schema}".events"""
    )
    return int(row["deals"]), int(row["events"])


async def run_case(
    pg_dsn: str, nats_url: str, tables: int, workers: int, window: float, level: str
) -> dict[str, float]:
    tag = uuid.uuid4().hex[:8]
    schema, prefix = f"bench_tables_{tag}", f"bt{tag}"
    pool = await asyncpg.create_pool(pg_dsn, min_size=2, max_size=8)
    nc = await messaging.connect(nats_url, name="bench-tables")
    store = await EventStore.open(pool, schema, producer="bench", entries=logentries)
    ports = [kit.free_port() for _ in range(workers)]
    procs = []
    tmp = Path(tempfile.mkdtemp(prefix="belot-bench-tables-"))
    for i, port in enumerate(ports):
        env = {
            **os.environ,
            "BELOT_PG_DSN": pg_dsn,
            "BELOT_NATS_URL": nats_url,
            "BELOT_PG_SCHEMA": schema,
            "BELOT_SUBJECT_PREFIX": prefix,
            "BELOT_TABLE_PORT": str(port),
            "BELOT_EVENTS_STREAM": f"BENCH_{tag}",
            "BELOT_EVENTS_SUBJECT": f"bench{tag}.events",
            "BELOT_LOG_LEVEL": "WARNING",
            "BELOT_DATA_DIR": str(tmp),
            "BELOT_PG_POOL_MAX": "10",
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "commands.cli", "serve", "table"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=(tmp / f"worker{i}.log").open("wb"),
            )
        )
    try:
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(kit.randomness_here(nc, pool, store, prefix))
            stack.callback(kit.stop_all, procs)
            for port in ports:
                for _ in range(300):
                    with contextlib.suppress(OSError):
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                        break
                    await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
            for _ in range(tables):
                await messaging.request(
                    nc,
                    f"{prefix}.table.create",
                    {"ruleset": "club", "seats": [f"bot:{level}"] * 4, "target": 10_000},
                    timeout=10,
                )
            await asyncio.sleep(4.0)  # warm-up: seeds, drand, first decks
            h0, (d0, e0), t0 = scrape(ports), await count(pool, schema), time.perf_counter()
            await asyncio.sleep(window)
            h1, (d1, e1), t1 = scrape(ports), await count(pool, schema), time.perf_counter()
            hist = {le: h1.get(le, 0) - h0.get(le, 0) for le in h1}
            elapsed = t1 - t0
            return {
                "deals_per_s": (d1 - d0) / elapsed,
                "events_per_s": (e1 - e0) / elapsed,
                "p50_ms": percentile(hist, 0.5) * 1000,
                "p99_ms": percentile(hist, 0.99) * 1000,
                "commands": hist.get(float("inf"), 0),
            }
    finally:
        await store.close()
        await kit.remove_run(nc, pool, prefix=prefix, stream=f"BENCH_{tag}", schemas=[schema])
        await pool.close()


async def run(pg_dsn: str, nats_url: str, sizes: list[int], window: float, level: str) -> int:
    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=2)
    schema = f"bench_raw_{os.getpid()}"
    try:
        await EventStore.open(pool, schema, producer="bench")
        limit = await raw_limit(pool, schema)
        version = await pool.fetchval("SHOW server_version")
    finally:
        await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await pool.close()
    print(f"PostgreSQL {version}; {os.cpu_count()} cores; bots: {level}; window {window:.0f} s")
    print(f"event-log raw limit (64-row INSERT per transaction): {limit:,.0f} rows/s")
    print(
        f"{'tables':>6} {'workers':>7} {'deals/s':>8} {'events/s':>9} {'of raw':>7} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'vs 1 worker':>11}"
    )
    for n in sizes:
        one = 0.0
        for w in (1, 2):
            r = await run_case(pg_dsn, nats_url, n, w, window, level)
            if w == 1:
                one = r["deals_per_s"]
            ratio = r["deals_per_s"] / one if one else float("nan")
            print(
                f"{n:>6} {w:>7} {r['deals_per_s']:>8.1f} {r['events_per_s']:>9,.0f} "
                f"{r['events_per_s'] / limit:>7.2f} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} "
                f"{ratio:>11.2f}",
                flush=True,
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="50,200", help="comma-separated table counts")
    parser.add_argument("--window", type=float, default=15.0, help="seconds measured per case")
    parser.add_argument("--level", default="easy", choices=("easy", "medium", "hard"))
    args = parser.parse_args()
    sizes = [int(x) for x in args.tables.split(",")]
    pg, nats_url = os.environ.get("BELOT_PG_DSN"), os.environ.get("BELOT_NATS_URL")
    if pg and nats_url:
        return asyncio.run(run(pg, nats_url, sizes, args.window, args.level))
    from belot_platform.embedded import EmbeddedStack
    from belot_platform.settings import Settings

    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
        stack = EmbeddedStack(Settings(embedded_pg_port=0, embedded_nats_port=0), Path(tmp))
        try:
            pg = pg or stack.start_postgres()
            nats_url = nats_url or stack.start_nats()
            return asyncio.run(run(pg, nats_url, sizes, args.window, args.level))
        finally:
            stack.stop()


if __name__ == "__main__":
    sys.exit(main())
