"""Clocks the drand client, the relay and the randomness service take as a parameter,
so tests can run a 5-second fallback in a fraction of a real second."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Unix time in seconds."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ScaledClock:
    """A virtual clock that starts at ``origin`` (unix seconds) and runs ``speed`` times
    faster than real time. ``ScaledClock(chain.time_of_round(1000), speed=20)`` makes a
    recorded beacon of round 1000 "current" and lets 5 virtual seconds pass in 0.25 s."""

    def __init__(self, origin: float, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.origin = origin
        self.speed = speed
        self._start = time.monotonic()

    def now(self) -> float:
        return self.origin + (time.monotonic() - self._start) * self.speed

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.speed)


async def sleep_until(clock: Clock, unix_time: float) -> None:
    """Sleep until the clock reads ``unix_time`` (re-checking, as sleeps may end early)."""
    while (left := unix_time - clock.now()) > 0:
        await clock.sleep(left)
