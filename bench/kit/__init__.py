"""What the benches that run bot tables on real processes share: a free port, the
randomness service in the bench's own process (a local relay of recorded drand beacons
on a virtual clock, as the tests run it), stopping ``belot serve`` children, and
removing what a run left in PostgreSQL and NATS.

A package, not a ``bench/*.py`` file: ``make bench`` runs every one of those."""

from __future__ import annotations

import contextlib
import socket
import subprocess
from collections.abc import AsyncIterator, Iterable
from typing import Any

from belot_platform import messaging
from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app, load_beacons
from eventlog import EventStore
from services.randomness.handlers import Handlers
from services.randomness.service import RandomnessService
from services.randomness.store import SeedStore
from tools.drand_vectors import BEACONS_FILE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def recorded_drand() -> AsyncIterator[tuple[ScaledClock, DrandClient]]:
    """A local relay of recorded quicknet beacons on a clock ten times real time (half
    a period into round 1000), and a drand client of it."""
    from aiohttp.test_utils import TestServer

    clock = ScaledClock(QUICKNET.time_of_round(1000) + 0.5, 10.0)
    beacons = {"quicknet": load_beacons(BEACONS_FILE, QUICKNET)}
    relay = TestServer(create_relay_app(beacons, clock, Mode.parse("ok")))
    await relay.start_server()
    drand = DrandClient([str(relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.3)
    try:
        yield clock, drand
    finally:
        await drand.close()
        await relay.close()


@contextlib.asynccontextmanager
async def randomness_here(
    nc: Any, pool: Any, store: EventStore, prefix: str, *, start: bool = False
) -> AsyncIterator[RandomnessService]:
    """The randomness service in this process, answering on ``<prefix>.randomness``, on
    :func:`recorded_drand`. ``start``: its timers too (seed windows, fallbacks)."""
    async with recorded_drand() as (clock, drand):
        seeds = SeedStore(pool, store.schema)
        await seeds.migrate()
        randomness = RandomnessService(store, seeds, drand, clock)
        if start:
            await randomness.start()
        routes = Handlers(randomness, "quicknet", f"{prefix}.randomness").routes()
        subs = [await messaging.serve(nc, s, h) for s, h in routes.items()]
        try:
            yield randomness
        finally:
            for sub in subs:
                await sub.unsubscribe()
            await randomness.stop()


def stop_all(procs: Iterable[subprocess.Popen[bytes]], timeout: float = 30) -> None:
    """SIGTERM every child, then wait for each (killed after ``timeout``)."""
    procs = list(procs)
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()


async def remove_run(
    nc: Any, pool: Any, *, prefix: str, stream: str, schemas: Iterable[str]
) -> None:
    """What a run left: its buckets, its events stream, its schemas; closes ``nc``
    (drained)."""
    js = nc.jetstream()
    for bucket in (f"{prefix}_table_leases", f"{prefix}_tables"):
        with contextlib.suppress(Exception):
            await js.delete_key_value(bucket)
    with contextlib.suppress(Exception):
        await js.delete_stream(stream)
    await nc.drain()
    for schema in schemas:
        with contextlib.suppress(Exception):
            await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
