"""Following the log from a checkpoint: the one loop with which the rating, tournament
and verify services read what happened.

A :class:`Follower` reads every event after its checkpoint in position order (catch-up,
then live: :meth:`EventStore.subscribe <eventlog.store.EventStore.subscribe>`) and hands
each to the service's ``handle``. How far it got is written down in one of two ways:

- **by the handler, with its effect.** An event that changes something (a rating, a
  tournament's result, a finished match's row) is handled in one transaction that also
  moves the service's checkpoint, and ``handle`` answers True. An effect and its
  position commit together or not at all; an event met again after a crash finds its
  effect made (the service's command id, or its checkpoint lock, refuses the second one).
- **by the follower, for the rest.** Events without effect only move the position in
  memory; it is written (``save``) at most every ``flush_interval`` seconds while events
  come, at once when the log goes quiet, and when the follower stops. Losing such a
  position costs nothing but reading those events again.

``start`` gives the position to start after (each service decides what a first start
means: the rating service rebuilds its projection, the tournament service starts at the
head, verify at 0). A failure (the database away) is said in :attr:`Follower.error` (the
readiness checks read it), counted, and raised: run :meth:`Follower.run` under a
:class:`~belot_platform.supervise.Supervisor`, which starts it again from the
checkpoint. ``on_flush`` hears each flush, for the service's metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from eventlog.envelope import RecordedEvent
from eventlog.store import EventStore

#: The handler: True when it wrote the checkpoint with the event's effect.
Handle = Callable[[RecordedEvent], Awaitable[bool]]

FLUSH_INTERVAL: Final = 1.0


class Follower:
    def __init__(
        self,
        log: EventStore,
        *,
        start: Callable[[], Awaitable[int]],
        save: Callable[[int], Awaitable[None]],
        handle: Handle,
        flush_interval: float = FLUSH_INTERVAL,
        poll_interval: float = 1.0,
        batch_size: int = 500,
        on_flush: Callable[[int], Awaitable[None]] | None = None,
        types: frozenset[str] | None = None,
    ) -> None:
        self.log = log
        #: The event types ``handle`` acts on (None: all); the others are not even read.
        self.types = types
        self._start = start
        self._save = save
        self._handle = handle
        self._on_flush = on_flush
        self.flush_interval = flush_interval
        self.poll_interval = poll_interval
        self.batch_size = batch_size
        #: The last position handled (in memory).
        self.position = 0
        #: The last position written down.
        self.flushed = 0
        #: Why the follower is not following (None: it is).
        self.error: str | None = "not started"
        self.failures = 0
        #: Set once the follower has read up to the head it found when it started.
        self.caught_up = asyncio.Event()
        #: Idle waits (flush_interval with no event) the pending read has outlived.
        self.idle = 0
        self._last_flush = 0.0

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Follow the log until ``stop`` is set (or the task is cancelled); raises what
        made it fail, having said it in :attr:`error`."""
        try:
            await self._follow(stop or asyncio.Event())
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            self.failures += 1
            raise

    async def _follow(self, stop: asyncio.Event) -> None:
        self.position = self.flushed = await self._start()
        async with self.log.subscribe(
            self.position,
            types=self.types,
            batch_size=self.batch_size,
            poll_interval=self.poll_interval,
        ) as sub:
            head = await self.log.head_position()
            self.error = None
            await self.flush()
            if self.position >= head:
                self.caught_up.set()
            reads = aiter(sub.batches())
            stopper: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
            # One pending read, kept across idle timeouts: cancelling a read would close
            # the subscription's generator. A read's events are handled one after the
            # other without going back to the event loop's wait: awaiting each event
            # (a task and a timer each) cost verify twice what handling it did.
            nxt: asyncio.Future[Any] | None = None
            try:
                while not stop.is_set():
                    if nxt is None:
                        nxt = asyncio.ensure_future(anext(reads))
                    done, _ = await asyncio.wait(
                        {nxt, stopper},
                        timeout=self.flush_interval,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    if nxt in done:
                        batch, nxt = nxt.result(), None
                        for event in batch:
                            if stop.is_set():
                                break  # the rest is read again from the position
                            if await self._handle(event):
                                self.flushed = max(self.flushed, event.position)
                            self.position = event.position
                            if time.monotonic() - self._last_flush >= self.flush_interval:
                                await self.flush()
                        else:  # all of it handled: past the events of other types too
                            self.position = max(self.position, sub.position)
                        if self.position >= head:
                            self.caught_up.set()
                        if time.monotonic() - self._last_flush >= self.flush_interval:
                            await self.flush()
                    elif not done:
                        self.idle += 1
                        await self.flush()  # idle: write down how far we got
            finally:
                stopper.cancel()
                if nxt is not None:
                    nxt.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                        await nxt
        await self.flush()

    async def flush(self) -> None:
        """Write down the position past events without effect."""
        if self.position > self.flushed:
            await self._save(self.position)
            self.flushed = self.position
        self._last_flush = time.monotonic()
        if self._on_flush is not None:
            await self._on_flush(self.flushed)
