"""The transparency log's costs: what its entries cost the event log's append rate, the
time of a proof at 10^6 entries, the time to sign a checkpoint. Writes
docs/bench/translog.md.

1. Append rate. The event log's own workload (bench/eventlog.py's: 64 concurrent
   streams, one event at a time, each with its expected version and a command id)
   through ``EventStore.append``, where, as in a match, one append in 50 is an event
   that gets an entry (a ``MatchAborted``, whose entry also reads the randomness
   stream's head; a real match has at most 6 logged events among hundreds): once with a
   store that writes no entries, once with the platform's entry source
   (``fairdeal.logentries``). A warm-up round of each, then pairs of rounds back to back in
   alternating order; the cost is the median over the pairs (the best of each printed).
   Target: the entries cost at most 10% of the event log's rate. Also printed,
   not judged: every append logged.
2. Proofs at 10^6 entries. A tree of 10^6 leaves (every node, 2 * 10^6 rows) in
   ``translog_nodes``; inclusion and consistency proofs between random sizes as the log
   service makes them: plan, one query of the stored nodes, assemble; then verified.
   Target: p50 under 1 ms, served from PostgreSQL (the pure part, from a dictionary, is
   printed too).
3. Signing: ``sign_checkpoint`` alone, and the service's whole ``sign_once`` at 10^6
   (size, frontier, consistency check with the last checkpoint, sign, insert).

    python bench/translog.py [--rounds R] [--events-per-stream N] [--entries N]

Uses BELOT_PG_DSN, else starts the embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

import asyncpg

from eventlog import EventStore, NewEvent
from eventlog.translog import TreeReader
from fairdeal import logentries
from translog import (
    Checkpoint,
    Ed25519Signer,
    Frontier,
    consistency_nodes,
    inclusion_nodes,
    leaf_hash,
    range_nodes,
    sign_checkpoint,
    verify_consistency,
    verify_inclusion,
)

COST_TARGET = 0.10
PROOF_TARGET_MS = 1.0
STREAMS = 64
LOGGED_EVERY = 50
PAYLOAD = {"seat": 2, "card": "TS", "trick": 5, "deal": 3}
OUT = Path(__file__).resolve().parents[1] / "docs" / "bench" / "translog.md"


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q * 100) - 1]


async def append_round(
    store: EventStore, tag: str, per_stream: int, logged_every: int, marker: str = "MatchAborted"
) -> float:
    async def stream(i: int) -> None:
        sid = f"match-{tag}-{i}"
        for v in range(per_stream):
            logged = logged_every and v % logged_every == logged_every - 1
            event = (
                NewEvent(marker, {"reason": "bench", "by": "bench"})
                if logged
                else NewEvent("CardPlayed", PAYLOAD, metadata={"correlation_id": sid})
            )
            await store.append(sid, v, [event], command_id=str(uuid.uuid4()))

    t0 = time.perf_counter()
    await asyncio.gather(*(stream(i) for i in range(STREAMS)))
    return STREAMS * per_stream / (time.perf_counter() - t0)


async def append_rates(pool: Any, schema: str, rounds: int, per_stream: int) -> dict[str, float]:
    # Where the logged side appends a logged event, the plain side (a store without the
    # entry source, which the database refuses a logged event: event-log migration 5)
    # appends the same payload under a type the log does not hold.
    plain = EventStore(pool, schema, producer="bench")
    unlogged = "BenchMarked"
    logged = EventStore(pool, schema, producer="bench", entries=logentries)
    rates: dict[str, list[float]] = {"plain": [], "mixed": [], "all": []}
    try:
        # A warm-up of each (connections, statements, caches), not counted; then pairs
        # run back to back in alternating order, so that a busy moment of the (shared)
        # machine hits both sides of a pair alike: the cost is the median over pairs.
        await append_round(plain, "wp", per_stream // 4, LOGGED_EVERY, unlogged)
        await append_round(logged, "wm", per_stream // 4, LOGGED_EVERY)
        for r in range(rounds):
            # The same events on both sides, the logged ones under another type on the
            # plain side: only the entries (and their check) differ.
            sides = [("plain", plain, unlogged), ("mixed", logged, "MatchAborted")]
            for name, store, marker in sides if r % 2 == 0 else reversed(sides):
                rates[name].append(
                    await append_round(store, f"{name}{r}", per_stream, LOGGED_EVERY, marker)
                )
            if r % 2 == 0:
                rates["all"].append(await append_round(logged, f"a{r}", per_stream // 4, 1))
    finally:
        await plain.close()
        await logged.close()
    ratios = [m / p for m, p in zip(rates["mixed"], rates["plain"], strict=True)]
    return {
        "plain": max(rates["plain"]),
        "mixed": max(rates["mixed"]),
        "all": max(rates["all"]),
        "cost": 1 - statistics.median(ratios),
        "spread": max(rates["plain"]) / min(rates["plain"]),
    }


async def fill_tree(pool: Any, schema: str, n: int) -> list[bytes]:
    """A tree of ``n`` leaves in translog_nodes (COPY); returns the leaf hashes."""
    leaves = [leaf_hash(b"bench entry %d" % i) for i in range(n)]
    rows = []
    frontier = Frontier()
    for leaf in leaves:
        frontier, nodes = frontier.append(leaf)
        rows.extend((node.level, node.index, h) for node, h in nodes)
    async with pool.acquire() as conn:
        await conn.copy_records_to_table(
            "translog_nodes", schema_name=schema, records=rows, columns=["level", "index", "hash"]
        )
        await conn.execute(f'ANALYZE "{schema}".translog_nodes')
    return leaves


async def proof_times(pool: Any, schema: str, leaves: list[bytes], samples: int) -> dict[str, Any]:
    n = len(leaves)
    reader = TreeReader(pool, schema)
    rng = random.Random(16)
    roots: dict[int, bytes] = {}

    async def root(size: int) -> bytes:
        if size not in roots:
            roots[size] = Frontier(size, tuple(await reader.nodes(range_nodes(0, size)))).root()
        return roots[size]

    sizes = [n, *(rng.randrange(n // 2, n) for _ in range(4))]
    for size in sizes:
        await root(size)
    inclusion: list[float] = []
    consistency: list[float] = []
    reads: list[int] = []
    pure: list[float] = []
    store = {}  # the pure timing: the same nodes from a dictionary
    for _ in range(samples):
        size = rng.choice(sizes)
        index = rng.randrange(size)
        t = time.perf_counter()
        plan = inclusion_nodes(index, size)
        proof = plan.assemble(await reader.nodes(plan.nodes))
        verify_inclusion(leaves[index], index, size, proof, roots[size])
        inclusion.append(time.perf_counter() - t)
        reads.append(len(plan.nodes))
        for node, h in zip(plan.nodes, await reader.nodes(plan.nodes), strict=True):
            store[node] = h
        t = time.perf_counter()
        plan = inclusion_nodes(index, size)
        verify_inclusion(
            leaves[index], index, size, plan.assemble([store[x] for x in plan.nodes]), roots[size]
        )
        pure.append(time.perf_counter() - t)
        first = rng.choice([s for s in sizes if s < n] or [n // 2])
        t = time.perf_counter()
        plan = consistency_nodes(first, n)
        proof = plan.assemble(await reader.nodes(plan.nodes))
        verify_consistency(first, n, proof, roots[first], roots[n])
        consistency.append(time.perf_counter() - t)
    return {
        "inclusion_p50": pct(inclusion, 0.5) * 1e3,
        "inclusion_p99": pct(inclusion, 0.99) * 1e3,
        "consistency_p50": pct(consistency, 0.5) * 1e3,
        "consistency_p99": pct(consistency, 0.99) * 1e3,
        "pure_p50": pct(pure, 0.5) * 1e3,
        "reads": max(reads),
    }


async def signing_times(pool: Any, schema: str, n: int) -> dict[str, float]:
    from services.verify.store.translog import TRANSLOG_MIGRATION
    from services.verify.translog import LogService

    signer = Ed25519Signer("bench.example/log", bytes(32))
    checkpoint = Checkpoint(signer.name, n, bytes(32))
    t = time.perf_counter()
    for _ in range(1000):
        sign_checkpoint(checkpoint, signer)
    pure = (time.perf_counter() - t) / 1000 * 1e6
    # The service's whole round, against a tree of n: entries' size is read from
    # translog_entries, so the bench's tree gets stand-in rows there (no events: an entry
    # holds its event's position but no foreign key to it, event-log migration 4).
    s = f'"{schema}"'
    await pool.execute(
        f"INSERT INTO {s}.translog_entries SELECT i, 'x', -1 - i FROM generate_series(0, $1) i",
        n - 2,
    )
    await pool.execute(TRANSLOG_MIGRATION.format(s=s))
    service = LogService(pool, schema, schema, signer)
    await service.sign_once()  # the first checkpoint, at n - 1
    await pool.execute(
        f"INSERT INTO {s}.translog_entries VALUES ($1::bigint, 'x', -$1::bigint - 1)", n - 1
    )
    t = time.perf_counter()
    signed = await service.sign_once()
    whole = (time.perf_counter() - t) * 1e3
    assert signed is not None and signed.size == n
    return {"sign_us": pure, "sign_once_ms": whole}


def report(lines: list[str]) -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        "<!-- generated by bench/translog.py: do not edit, run it again -->\n"
        "# Transparency log: benchmark\n\n"
        "What [the transparency log](../transparency-log.md) costs, measured by "
        "`python bench/translog.py` on the machine named below.\n\n```\n"
        + "\n".join(lines)
        + "\n```\n",
        encoding="utf-8",
    )


async def run(dsn: str, rounds: int, per_stream: int, n: int) -> int:
    schema = f"bench_tl_{os.getpid()}"
    tree_schema = f"bench_tlt_{os.getpid()}"
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=6)
    try:
        await EventStore.open(pool, schema)
        await EventStore.open(pool, tree_schema)
        rates = await append_rates(pool, schema, rounds, per_stream)
        cost = rates["cost"]
        t = time.perf_counter()
        leaves = await fill_tree(pool, tree_schema, n)
        filled = time.perf_counter() - t
        proofs = await proof_times(pool, tree_schema, leaves, 400)
        signing = await signing_times(pool, tree_schema, n)
        version = await pool.fetchval("SHOW server_version")
        cost_ok = cost <= COST_TARGET
        proof_ok = max(proofs["inclusion_p50"], proofs["consistency_p50"]) < PROOF_TARGET_MS
        mark = {True: "PASS", False: "FAIL"}
        lines = [
            f"PostgreSQL {version}, {os.cpu_count()} CPUs; {rounds} rounds of {STREAMS} "
            f"streams x {per_stream} events",
            f"event log alone                      : {rates['plain']:>9,.0f} events/s",
            f"with entries, 1 append in {LOGGED_EVERY} logged  : {rates['mixed']:>9,.0f} events/s"
            f"  ({rates['mixed'] / LOGGED_EVERY:,.0f} entries/s)",
            f"cost to the event log's rate         : {cost:>9.1%}  (median of {rounds} "
            f"pairs; target at most {COST_TARGET:.0%}) {mark[cost_ok]}",
            f"(the machine's noise: the log alone's best / worst round = {rates['spread']:.2f})",
            f"(every append logged                 : {rates['all']:>9,.0f} events/s = entries/s,"
            f" {rates['all'] / rates['plain']:.2f} of the log alone)",
            f"tree of {n:,} entries written (COPY)  : {filled:>9.1f} s",
            f"inclusion proof, from PostgreSQL     : p50 {proofs['inclusion_p50']:.3f} ms, "
            f"p99 {proofs['inclusion_p99']:.3f} ms  (target p50 < {PROOF_TARGET_MS:g} ms)",
            f"consistency proof, from PostgreSQL   : p50 {proofs['consistency_p50']:.3f} ms, "
            f"p99 {proofs['consistency_p99']:.3f} ms  {mark[proof_ok]}",
            f"inclusion proof, pure (nodes in hand): p50 {proofs['pure_p50']:.3f} ms; at most "
            f"{proofs['reads']} stored nodes read per proof",
            f"sign a checkpoint (Ed25519)          : {signing['sign_us']:>9.0f} µs",
            f"the signer's whole round at {n:,}     : {signing['sign_once_ms']:>9.2f} ms "
            "(size, frontier, consistency with the last, sign, store)",
        ]
        print("\n".join(lines))
        report(lines)
        return 0 if cost_ok and proof_ok else 1
    finally:
        for s in (schema, tree_schema):
            await pool.execute(f'DROP SCHEMA IF EXISTS "{s}" CASCADE')
        await pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--events-per-stream", type=int, default=100)
    parser.add_argument("--entries", type=int, default=1_000_000)
    args = parser.parse_args()
    dsn = os.environ.get("BELOT_PG_DSN")
    if dsn:
        return asyncio.run(run(dsn, args.rounds, args.events_per_stream, args.entries))
    from belot_platform.embedded import EmbeddedPostgres

    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
        pg = EmbeddedPostgres(Path(tmp) / "pg", port=0)
        pg.start()
        try:
            return asyncio.run(run(pg.dsn(), args.rounds, args.events_per_stream, args.entries))
        finally:
            pg.stop()


if __name__ == "__main__":
    sys.exit(main())
