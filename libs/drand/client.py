"""An HTTP client for drand's v1 API over several relays, with a deadline.

Every relay is asked in parallel; the first beacon whose signature verifies against the
pinned public key wins. A relay that answers with a bad signature, the wrong round, a
randomness that is not SHA-256 of the signature, or garbage is ignored for that round and
counted. Relays that are not ready yet (425 Too Early, 404, 5xx, connection errors) are
asked again every ``retry_interval`` seconds until the deadline, and then the caller gets
``None``: the randomness service's 5-second fallback is ``beacon_by(r, time_of(r) + 5)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

import aiohttp
import orjson
from prometheus_client import Counter, Histogram

from drand.bls import Beacon, BeaconError, verify
from drand.chain import DEFAULT_RELAYS, QUICKNET, Chain
from drand.clock import Clock, SystemClock, sleep_until

FETCH_SECONDS = Histogram(
    "belot_drand_fetch_seconds",
    "Time from asking a drand relay for a round to its verified answer.",
    ["relay"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10),
)
BEACONS = Counter(
    "belot_drand_beacons_total",
    "Beacons received from drand relays, by result (verified or why rejected).",
    ["relay", "result"],
)
RELAY_ERRORS = Counter(
    "belot_drand_relay_errors_total",
    "drand relay requests that gave no beacon (not ready, HTTP error, network error).",
    ["relay", "kind"],
)


#: The longest pause between two asks of a patient poll (``beacon_by(patient=True)``).
MAX_PATIENT_PAUSE_S = 8.0


class RejectedBeacon(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def parse_beacon(chain: Chain, round_: int, body: bytes) -> Beacon:
    """Check a relay's JSON answer for ``round_`` and verify it; raise RejectedBeacon."""
    try:
        data: Any = orjson.loads(body)
        got_round = data["round"]
        signature = bytes.fromhex(data["signature"])
        previous = data.get("previous_signature")
        previous_signature = bytes.fromhex(previous) if chain.is_chained and previous else None
        claimed = data.get("randomness")
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RejectedBeacon("garbage", f"not a beacon: {exc}") from None
    if got_round != round_:
        raise RejectedBeacon("wrong_round", f"asked for round {round_}, got {got_round!r}")
    try:
        beacon = verify(chain, round_, signature, previous_signature)
    except BeaconError as exc:
        raise RejectedBeacon("bad_signature", str(exc)) from None
    if claimed is not None and claimed != beacon.randomness.hex():
        raise RejectedBeacon("bad_randomness", "randomness is not SHA-256 of the signature")
    return beacon


class DrandClient:
    def __init__(
        self,
        urls: Sequence[str] = DEFAULT_RELAYS,
        chain: Chain = QUICKNET,
        *,
        session: aiohttp.ClientSession | None = None,
        clock: Clock | None = None,
        retry_interval: float = 0.5,
        request_timeout: float = 10.0,
    ) -> None:
        if not urls:
            raise ValueError("at least one drand relay URL is needed")
        self.urls = [u.rstrip("/") for u in urls]
        self.chain = chain
        self.clock: Clock = clock or SystemClock()
        self.retry_interval = retry_interval
        self.request_timeout = request_timeout
        self._session = session
        self._own_session = session is None

    async def __aenter__(self) -> DrandClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.request_timeout)
            )
        return self._session

    async def beacon_by(
        self, round_: int, deadline: float, *, patient: bool = False
    ) -> Beacon | None:
        """The verified beacon of ``round_``, or ``None`` once the clock reaches ``deadline``.

        Relays are first asked when the round is due (``chain.time_of_round``). ``None``
        comes at the deadline and never earlier, even when every relay has lied, so a
        fallback's time is always the round's due time plus the grace. ``patient``: a
        value wanted for the record, not for a deal (a round's late value after its
        fallback), for which a relay is asked again after a pause that doubles from
        ``retry_interval`` up to :data:`MAX_PATIENT_PAUSE_S`: a minute of asking is then a
        dozen requests a relay, not a hundred and twenty."""
        due = self.chain.time_of_round(round_)
        if self.clock.now() < due:
            wait = asyncio.ensure_future(sleep_until(self.clock, min(due, deadline)))
            try:
                await wait
            finally:
                wait.cancel()
        if self.clock.now() >= deadline:
            return None
        pollers = [asyncio.ensure_future(self._poll(url, round_, patient)) for url in self.urls]
        timer = asyncio.ensure_future(sleep_until(self.clock, deadline))
        pending: set[asyncio.Future[Any]] = {*pollers, timer}
        try:
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    if fut is timer:
                        return None
                    beacon = fut.result()
                    if beacon is not None:
                        return beacon  # type: ignore[no-any-return]
            return None
        finally:
            for fut in pending:
                fut.cancel()
            for fut in pending:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await fut

    async def _poll(self, base: str, round_: int, patient: bool = False) -> Beacon | None:
        url = f"{base}/{self.chain.hash}/public/{round_}"
        http = self._http()
        pause = self.retry_interval
        while True:
            started = time.monotonic()
            try:
                async with http.get(url) as resp:
                    body = await resp.read()
                    status = resp.status
            except (aiohttp.ClientError, TimeoutError) as exc:
                RELAY_ERRORS.labels(base, type(exc).__name__).inc()
            else:
                if status == 200:
                    try:
                        beacon = parse_beacon(self.chain, round_, body)
                    except RejectedBeacon as exc:
                        BEACONS.labels(base, exc.reason).inc()
                        return None  # a relay that lies once is not asked again for this round
                    BEACONS.labels(base, "verified").inc()
                    FETCH_SECONDS.labels(base).observe(time.monotonic() - started)
                    return beacon
                RELAY_ERRORS.labels(base, "too_early" if status == 425 else f"http_{status}").inc()
            await self.clock.sleep(pause)
            if patient:
                pause = min(MAX_PATIENT_PAUSE_S, pause * 2)
