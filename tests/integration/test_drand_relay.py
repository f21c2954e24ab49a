"""The drand client against the local relay serving recorded real beacons, in every mode.

Client and relays share one virtual clock running SPEED times faster than real time, so
the 5-second fallback takes a fraction of a second; times asserted are virtual seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from prometheus_client import REGISTRY

from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app, load_beacons
from tools.drand_vectors import BEACONS_FILE

SPEED = 20.0
GRACE = 5.0
ROUND = 1001  # recorded rounds 1000..1003 are consecutive
BEACONS = load_beacons(BEACONS_FILE, QUICKNET)


@contextlib.asynccontextmanager
async def relays(clock: ScaledClock, *modes: str) -> AsyncIterator[list[str]]:
    servers = [
        TestServer(create_relay_app({"quicknet": BEACONS}, clock, Mode.parse(m))) for m in modes
    ]
    for s in servers:
        await s.start_server()
    try:
        yield [str(s.make_url("")) for s in servers]
    finally:
        for s in servers:
            await s.close()


def clock_before(round_: int, seconds: float) -> ScaledClock:
    return ScaledClock(QUICKNET.time_of_round(round_) - seconds, SPEED)


async def fetch(clock: ScaledClock, urls: list[str], round_: int = ROUND):
    due = QUICKNET.time_of_round(round_)
    async with DrandClient(
        urls, QUICKNET, clock=clock, retry_interval=0.5, request_timeout=5
    ) as client:
        beacon = await client.beacon_by(round_, due + GRACE)
    return beacon, clock.now() - due


def metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_ok_relay_gives_the_verified_beacon_when_due() -> None:
    clock = clock_before(ROUND, 1.0)
    async with relays(clock, "ok") as urls:
        beacon, late = await fetch(clock, urls)
    assert beacon is not None and beacon.round == ROUND
    assert beacon.signature == BEACONS[ROUND].signature
    assert 0 <= late < 2.0  # served once due, well before the fallback


async def test_next_round_request_waits_until_produced() -> None:
    clock = clock_before(ROUND, 0.2)
    async with relays(clock, "ok") as urls, aiohttp.ClientSession() as http:
        resp = await http.get(f"{urls[0]}/{QUICKNET.hash}/public/{ROUND}")
        assert resp.status == 200
        assert clock.now() >= QUICKNET.time_of_round(ROUND)
        early = await http.get(f"{urls[0]}/{QUICKNET.hash}/public/{ROUND + 2}")
        assert early.status == 425
        missing = await http.get(f"{urls[0]}/{QUICKNET.hash}/public/999")
        assert missing.status == 404 and (await missing.json())["error"] == "not_recorded"
        # Browsers may ask it, as they may ask the public relays (the web client's tab).
        for r in (resp, early, missing):
            assert r.headers["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("mode", ["slow:6", "down"])
async def test_slow_or_down_relay_falls_back_at_due_plus_5_not_earlier(mode: str) -> None:
    clock = clock_before(ROUND, 1.0)
    async with relays(clock, mode) as urls:
        beacon, late = await fetch(clock, urls)
    assert beacon is None
    assert GRACE <= late < GRACE + 0.5 * SPEED / 10  # at due + 5 s, within 1 virtual second


async def test_a_patient_poll_asks_a_dozen_times_a_minute_not_every_pause() -> None:
    """A round's late value (after its fallback) is wanted for the record only: a patient
    poll doubles its pause up to 8 s, where a poll for a deal asks every retry_interval.
    The relay has no beacon of the round (404, as a relay that lost it would say)."""

    def asks(url: str) -> float:
        return sum(
            s.value
            for m in REGISTRY.collect()
            if m.name == "belot_drand_relay_errors"
            for s in m.samples
            if s.name.endswith("_total") and s.labels.get("relay") == url.rstrip("/")
        )

    counts = {}
    for patient in (False, True):
        unrecorded = 999
        clock = clock_before(unrecorded, 0.0)
        due = QUICKNET.time_of_round(unrecorded)
        async with (
            relays(clock, "ok") as urls,
            DrandClient(
                urls, QUICKNET, clock=clock, retry_interval=0.5, request_timeout=5
            ) as client,
        ):
            before = asks(urls[0])
            beacon = await client.beacon_by(unrecorded, due + 60, patient=patient)
            counts[patient] = asks(urls[0]) - before
        assert beacon is None
    assert counts[False] >= 100  # every half second for a minute
    assert 8 <= counts[True] <= 14, counts  # 0.5, 1, 2, 4, then every 8 s


async def test_slow_relay_within_the_grace_is_used() -> None:
    clock = clock_before(ROUND, 0.5)
    async with relays(clock, "slow:2") as urls:
        beacon, late = await fetch(clock, urls)
    assert beacon is not None and beacon.round == ROUND
    assert 2.0 <= late < GRACE


async def test_lying_relay_is_rejected_and_counted() -> None:
    clock = clock_before(ROUND, 0.5)
    async with relays(clock, "lying") as urls:
        before = metric(
            "belot_drand_beacons_total", relay=urls[0].rstrip("/"), result="bad_signature"
        )
        beacon, late = await fetch(clock, urls)
        after = metric(
            "belot_drand_beacons_total", relay=urls[0].rstrip("/"), result="bad_signature"
        )
    assert beacon is None  # the only relay lied: no value to deal from
    assert GRACE <= late < GRACE + 1
    assert after == before + 1


async def test_honest_relay_wins_over_a_lying_and_a_down_one() -> None:
    clock = clock_before(ROUND, 0.5)
    async with relays(clock, "lying", "down", "ok") as urls:
        beacon, late = await fetch(clock, urls)
    assert beacon is not None and beacon.signature == BEACONS[ROUND].signature
    assert late < GRACE


async def test_unreachable_relay_falls_back() -> None:
    clock = clock_before(ROUND, 0.5)
    beacon, late = await fetch(clock, ["http://127.0.0.1:9"])  # discard port: refused
    assert beacon is None and late >= GRACE


async def test_garbage_and_wrong_round_are_rejected() -> None:
    from aiohttp import web

    async def wrong_round(request: web.Request) -> web.Response:
        b = BEACONS[1000]
        return web.json_response({"round": 1000, "signature": b.signature.hex()})

    async def garbage(request: web.Request) -> web.Response:
        return web.Response(text="<html>not json</html>")

    servers = []
    for handler in (wrong_round, garbage):
        app = web.Application()
        app.router.add_get("/{chain}/public/{round}", handler)
        servers.append(TestServer(app))
    for s in servers:
        await s.start_server()
    try:
        urls = [str(s.make_url("")).rstrip("/") for s in servers]
        before = [
            metric("belot_drand_beacons_total", relay=urls[0], result="wrong_round"),
            metric("belot_drand_beacons_total", relay=urls[1], result="garbage"),
        ]
        clock = clock_before(ROUND, 0.2)
        beacon, _ = await fetch(clock, urls)
        assert beacon is None
        assert (
            metric("belot_drand_beacons_total", relay=urls[0], result="wrong_round")
            == before[0] + 1
        )
        assert metric("belot_drand_beacons_total", relay=urls[1], result="garbage") == before[1] + 1
    finally:
        for s in servers:
            await s.close()


async def test_relay_info_matches_pinned_chain() -> None:
    clock = clock_before(ROUND, 0)
    async with relays(clock, "ok") as urls, aiohttp.ClientSession() as http:
        info = await (await http.get(f"{urls[0]}/{QUICKNET.hash}/info")).json()
        chains = await (await http.get(f"{urls[0]}/chains")).json()
    assert info["public_key"] == QUICKNET.public_key.hex() and info["period"] == 3
    assert chains == [QUICKNET.hash]
    await asyncio.sleep(0)
