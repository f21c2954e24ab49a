"""The rating service end to end: finished matches consumed per second, against the pure
core deciding the same matches in memory in the same run.

N ``TableMatchFinished`` events (two against two in club among 200 players, one against
one in gambler among 100, a few bots and unfinished matches) are appended to the log
first; then the service's real consumer starts from an empty checkpoint and the clock
runs until its checkpoint reaches the last of them: each match is one transaction
(lock the checkpoint, read the seated players, decide, append the verdict with
``append_in``, write the projection rows, move the checkpoint). The limit printed beside
it is the core alone (``decide`` and ``evolve`` on the whole state, no I/O). Then a
rebuild (empty the projection, fold the ``rating-*`` streams) is timed too.

    python bench/rating_service.py [--matches 2000]

Uses BELOT_PG_DSN, else starts the embedded PostgreSQL in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

import asyncpg

from eventlog import EventStore, NewEvent
from rating import DEFAULT_SETTINGS, MatchSummary, Seat, decide, empty, evolve
from services.rating.consumer import Consumer
from services.rating.domain import TABLE_MATCH_FINISHED, summary_to_payload
from services.rating.store import Projection

T0 = 1_767_225_600_000


def matches(n: int, seed: int = 1) -> list[MatchSummary]:
    rng = random.Random(seed)
    club = [f"c{i}" for i in range(200)]
    gambler = [f"g{i}" for i in range(100)]
    out = []
    for i in range(n):
        pool, players = (
            ("gambler", rng.sample(gambler, 2)) if i % 2 else ("club", rng.sample(club, 4))
        )
        seats: list[str | None] = list(players)
        if rng.random() < 0.03:
            seats[0] = None
        finished = rng.random() > 0.03
        seats_t = tuple(Seat(k, p) for k, p in enumerate(seats))
        out.append(MatchSummary(f"m{i}", pool, seats_t, rng.choice((0, 1)), finished, None, T0 + i))
    return out


def core_rate(summaries: list[MatchSummary]) -> float:
    start = time.perf_counter()
    state = empty()
    for s in summaries:
        for e in decide(state, s):
            state = evolve(state, e)
    return len(summaries) / (time.perf_counter() - start)


async def run(dsn: str, n: int) -> int:
    summaries = matches(n)
    pool = await asyncpg.create_pool(dsn, min_size=2, max_size=6)
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    rating_schema = f"{schema}_rating"
    try:
        store = await EventStore.open(pool, schema)
        last = 0
        for i in range(0, n, 100):
            for k, s in enumerate(summaries[i : i + 100]):
                table = f"table-{(i + k) % 50}"
                result = await store.append(
                    table,
                    await store.stream_version(table),
                    [NewEvent(TABLE_MATCH_FINISHED, summary_to_payload(s))],
                )
                last = max(last, result.last_position)
        projection = Projection(pool, rating_schema, DEFAULT_SETTINGS)
        await projection.migrate()
        consumer = Consumer(store, projection, flush_interval=0.2, poll_interval=0.1)
        stop = asyncio.Event()
        start = time.perf_counter()
        task = asyncio.create_task(consumer.run(stop))
        while (await projection.checkpoint() or 0) < last:
            await asyncio.sleep(0.01)
        consumed = time.perf_counter() - start
        stop.set()
        await task
        start = time.perf_counter()
        report = await projection.rebuild(store)
        rebuilt = time.perf_counter() - start
        core = core_rate(summaries)
        service = n / consumed
        print(f"matches: {n} ({report.players} player ratings)")
        print(f"core alone (decide + evolve, in memory): {core:,.0f} matches/s")
        print(f"service, end to end (one transaction a match): {service:,.0f} matches/s")
        print(f"share of the core: {service / core:.1%}")
        print(
            f"rebuild (fold {report.events} rating events): {report.events / rebuilt:,.0f} events/s"
        )
        await store.close()
        return 0
    finally:
        await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await pool.execute(f'DROP SCHEMA IF EXISTS "{rating_schema}" CASCADE')
        await pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    args = parser.parse_args()
    dsn = os.environ.get("BELOT_PG_DSN")
    if dsn:
        return asyncio.run(run(dsn, args.matches))
    from belot_platform.embedded import EmbeddedPostgres

    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
        pg = EmbeddedPostgres(Path(tmp) / "pg", port=0)
        pg.start()
        try:
            return asyncio.run(run(pg.dsn(), args.matches))
        finally:
            pg.stop()


if __name__ == "__main__":
    sys.exit(main())
