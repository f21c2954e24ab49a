"""Fixtures the unit tests share."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from aiohttp import web

from drand import QUICKNET
from drand.clock import ScaledClock
from drand.relay import create_relay_app, load_beacons
from tools.drand_vectors import BEACONS_FILE


@pytest.fixture
def drand_relay() -> Iterator[str]:
    """A local relay of the recorded quicknet beacons, its clock past round 1001."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    clock = ScaledClock(QUICKNET.time_of_round(1003), 1.0)
    app = create_relay_app({"quicknet": load_beacons(BEACONS_FILE, QUICKNET)}, clock)
    runner = web.AppRunner(app)

    async def start() -> int:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port: int = runner.addresses[0][1]
        return port

    port = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)
    yield f"http://127.0.0.1:{port}"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()
