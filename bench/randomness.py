"""Randomness service throughput through NATS, and BLS verifications per second.

In one run: a bare NATS request/reply echo (the transport's limit here); N bot matches
opened concurrently through ``belot.randomness.open`` (each draws and stores a seed,
appends its commitment, closes its seed window at once and names a drand round); the
wait for that round from a local relay of recorded real beacons on a real-time clock;
then D decks dealt per match through ``belot.randomness.deck``; and single-threaded BLS
verifications of the recorded quicknet and default beacons.

Servers: ``BELOT_PG_DSN`` / ``BELOT_NATS_URL`` if set, else the embedded ones.

    python bench/randomness.py [--matches N] [--decks D]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

# The repository root replaces this directory on the path: bench/eventlog.py would
# shadow the eventlog package.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import asyncpg
from aiohttp.test_utils import TestServer

from belot_platform import messaging
from belot_platform.embedded import servers
from belot_platform.settings import Settings
from drand import DEFAULT, QUICKNET, verify
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import create_relay_app, load_beacons
from eventlog import EventStore
from fairdeal import logentries
from services.randomness.handlers import Handlers
from services.randomness.service import RandomnessService
from services.randomness.store import SeedStore
from tools.drand_vectors import BEACONS_FILE, DEFAULT_BEACONS, QUICKNET_BEACONS


def bls_rates(seconds: float = 2.0) -> tuple[float, float]:
    def rate(fn) -> float:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            fn()
            n += 1
        return n / (time.perf_counter() - start)

    q = QUICKNET_BEACONS[0]
    d = DEFAULT_BEACONS[0]
    qs, ds, dp = (
        bytes.fromhex(q["signature"]),
        bytes.fromhex(d["signature"]),
        bytes.fromhex(d["previous_signature"]),
    )
    return rate(lambda: verify(QUICKNET, q["round"], qs)), rate(
        lambda: verify(DEFAULT, d["round"], ds, dp)
    )


async def run(settings: Settings, matches: int, decks: int) -> None:
    pool = await asyncpg.create_pool(settings.pg_dsn, min_size=2, max_size=10)
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    nc = await messaging.connect(settings.nats_url, name="bench")
    store = await EventStore.open(pool, schema, producer="bench", entries=logentries)
    seeds = SeedStore(pool, schema)
    await seeds.migrate()
    # Half a period into round 1000: every match names round 1001, served when it is due.
    clock = ScaledClock(QUICKNET.time_of_round(1000) + 0.5, 1.0)
    relay = TestServer(create_relay_app({"quicknet": load_beacons(BEACONS_FILE, QUICKNET)}, clock))
    await relay.start_server()
    client = DrandClient([str(relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.2)
    service = RandomnessService(store, seeds, client, clock)
    subject = f"bench{uuid.uuid4().hex[:8]}.randomness"
    subs = [
        await messaging.serve(nc, s, h)
        for s, h in Handlers(service, "quicknet", subject).routes().items()
    ]
    echo = await messaging.serve(nc, f"{subject}.echo", lambda body: asyncio.sleep(0, body))
    try:
        n_echo = matches * decks
        start = time.perf_counter()
        await asyncio.gather(
            *(messaging.request(nc, f"{subject}.echo", {"i": i}, timeout=30) for i in range(n_echo))
        )
        echo_rate = n_echo / (time.perf_counter() - start)

        ids = [uuid.uuid4().hex for _ in range(matches)]
        bots = [{"seat": s, "player": None} for s in range(4)]
        t0 = time.perf_counter()
        await asyncio.gather(
            *(
                messaging.request(nc, f"{subject}.open", {"match_id": m, "seats": bots}, timeout=60)
                for m in ids
            )
        )
        t_open = time.perf_counter() - t0
        # The first deck of each match waits for the drand round (or its fallback).
        await asyncio.gather(
            *(
                messaging.request(
                    nc, f"{subject}.deck", {"match_id": m, "deal": 0, "wait_ms": 15000}, timeout=60
                )
                for m in ids
            )
        )
        t_fixed = time.perf_counter() - t0
        t1 = time.perf_counter()
        await asyncio.gather(
            *(
                messaging.request(nc, f"{subject}.deck", {"match_id": m, "deal": k}, timeout=60)
                for m in ids
                for k in range(1, decks)
            )
        )
        t_decks = time.perf_counter() - t1
        total = time.perf_counter() - t0
        fallbacks = sum([(await service.state(m)).fallback for m in ids])
    finally:
        for s in [*subs, echo]:
            await s.unsubscribe()
        await service.stop()
        await client.close()
        await relay.close()
        await store.close()
        await nc.drain()
        await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await pool.close()

    deck_rate = matches * (decks - 1) / t_decks
    show("NATS echo request/reply (transport limit)", f"{echo_rate:,.0f} req/s")
    show(
        "open (seed, commitment, window, round)",
        f"{matches / t_open:,.0f} matches/s",
        f"{matches} at once",
    )
    show(
        "deck requests on fixed matches",
        f"{deck_rate:,.0f} decks/s",
        f"{deck_rate / echo_rate:.0%} of echo",
    )
    show(
        "wait for drand round 1001 after the opens", f"{t_fixed - t_open:.2f} s", "real-time clock"
    )
    show(f"opened + {decks} decks dealt, end to end", f"{matches / total:,.1f} matches/s",
         f"drand wait included; fallbacks {fallbacks}")  # fmt: skip


def show(label: str, figure: str, note: str = "") -> None:
    print(f"{label:<44} {figure:>18}" + (f"  ({note})" if note else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--decks", type=int, default=10)
    args = parser.parse_args()
    q_rate, d_rate = bls_rates()
    show("BLS verify, quicknet (G1 signature)", f"{q_rate:,.0f} /s", f"{1000 / q_rate:.2f} ms each")
    show(
        "BLS verify, default (G2 signature, chained)",
        f"{d_rate:,.0f} /s",
        f"{1000 / d_rate:.2f} ms",
    )
    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)
        base = Settings.from_env()
        from dataclasses import replace

        with servers(
            replace(base, embedded_pg_port=0, embedded_nats_port=0), Path(tmp)
        ) as resolved:
            asyncio.run(run(resolved, args.matches, args.decks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
