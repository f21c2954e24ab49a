"""The event log in memory: :class:`MemoryEventStore`, the same contract as
:class:`eventlog.EventStore` without a server, so that a service's logic can be tested
alone (as the ``eventsourcing`` library runs one recorder test suite over every backend).

What holds here as there, checked by one test suite run over both
(``tests/integration/test_eventlog_contract.py``):

- an append is all or nothing, on the stream's expected version (0: new), refused with
  :class:`~eventlog.errors.WrongExpectedVersion` otherwise; its events are checked and
  encoded as the PostgreSQL store checks them (:mod:`eventlog.envelope`), before anything
  is written;
- a command id appends once: its retry answers the first append's figures with
  ``duplicate``, and the same id on another stream is
  :class:`~eventlog.errors.CommandIdReused`;
- positions run 1, 2, 3, ... without a hole, in append order; each stream's hash chain is
  the envelope's (:func:`eventkit.envelope.chain_hash`), recorded times in UTC;
- reads by stream, by position, and as a viewer (:class:`eventlog.store.Viewer`: public
  events, and a seat's own, until the match ends; no hash until then), and a
  subscription that catches up and then follows live.

What it leaves to PostgreSQL: the transparency log's entries (no entry source: a store
that must log its fair-deal events is the PostgreSQL one), ``append_in`` (a caller's
transaction), the group commit and the pool. Appends are serialised by the event loop:
each one is written whole before the next is looked at.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from eventlog import envelope
from eventlog.errors import CommandIdReused, StoreClosed, WrongExpectedVersion
from eventlog.reading import OneByOne
from eventlog.store import AppendResult, Viewer


def _utc_now() -> datetime:
    return datetime.now(UTC)


class MemoryEventStore:
    """An event log held in this process (see the module)."""

    def __init__(
        self, *, producer: str | None = None, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.producer = producer
        self._now = clock or _utc_now
        self._events: list[envelope.RecordedEvent] = []  # by position - 1
        self._streams: dict[str, list[envelope.RecordedEvent]] = {}
        self._commands: dict[str, AppendResult] = {}
        self._appended = asyncio.Condition()
        self._closed = False

    # ---------------------------------------------------------------- appending

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[envelope.NewEvent],
        *,
        command_id: str | None = None,
    ) -> AppendResult:
        """As :meth:`eventlog.EventStore.append`."""
        if self._closed:
            raise StoreClosed("the event store is closed")
        envelope.check_stream_id(stream_id)
        envelope.check_append(expected_version, events, command_id)
        encoded = [self._encode(e, command_id) for e in events]
        if command_id is not None and command_id in self._commands:
            first = self._commands[command_id]
            if first.stream_id != stream_id:
                raise CommandIdReused(command_id, stream_id, first.stream_id)
            return dataclasses.replace(first, duplicate=True)
        stream = self._streams.get(stream_id, [])
        if len(stream) != expected_version:
            raise WrongExpectedVersion(stream_id, expected_version, len(stream))
        when = self._now()
        at = envelope.format_time(when)
        prev = stream[-1].hash if stream else envelope.GENESIS_HASH
        written = []
        for i, (e, payload_json, meta, meta_json) in enumerate(encoded):
            version = expected_version + 1 + i
            prev = envelope.chain_hash(
                prev,
                envelope.canonical_bytes_encoded(
                    stream_id, version, e.type, payload_json, meta_json, e.visibility, at
                ),
            )
            written.append(
                envelope.RecordedEvent(
                    position=len(self._events) + 1 + i,
                    stream_id=stream_id,
                    version=version,
                    type=e.type,
                    payload=orjson.loads(payload_json),  # the reader's own copy
                    metadata=meta,
                    visibility=e.visibility,
                    recorded_at=when,
                    hash=prev,
                )
            )
        self._events.extend(written)
        self._streams[stream_id] = [*stream, *written]
        result = AppendResult(
            stream_id,
            written[0].version,
            written[-1].version,
            written[0].position,
            written[-1].position,
        )
        if command_id is not None:
            self._commands[command_id] = result
        async with self._appended:
            self._appended.notify_all()
        return result

    def _encode(
        self, e: envelope.NewEvent, command_id: str | None
    ) -> tuple[envelope.NewEvent, str, dict[str, Any], str]:
        envelope.check_event(e)
        meta = dict(e.metadata)
        envelope.check_metadata(meta)
        if command_id is not None:
            meta["command_id"] = command_id
        if self.producer is not None:
            meta.setdefault("producer", self.producer)
        meta_json = envelope.encode_json(meta, e.type, "metadata").decode()
        return e, envelope.encode_json(e.payload, e.type, "payload").decode(), meta, meta_json

    # ---------------------------------------------------------------- reading

    async def read_stream(
        self, stream_id: str, from_version: int = 1, limit: int | None = None
    ) -> list[envelope.RecordedEvent]:
        """As :meth:`eventlog.EventStore.read_stream`."""
        events = self._streams.get(stream_id, [])[max(0, from_version - 1) :]
        return events if limit is None else events[:limit]

    async def read_stream_as(
        self, stream_id: str, viewer: Viewer, *, ended_by: Collection[str], from_version: int = 1
    ) -> list[envelope.RecordedEvent]:
        """As :meth:`eventlog.EventStore.read_stream_as`."""
        stream = self._streams.get(stream_id, [])
        ended = any(e.type in ended_by and e.visibility == envelope.PUBLIC for e in stream)
        events = stream[max(0, from_version - 1) :]
        if ended:
            return events
        own = None if viewer.seat is None else f"{envelope.SEAT_PREFIX}{viewer.seat}"
        return [
            dataclasses.replace(e, hash=envelope.WITHHELD)
            for e in events
            if e.visibility == envelope.PUBLIC or e.visibility == own
        ]

    async def read_all(
        self, after_position: int = 0, limit: int = 1000, *, stream_id: str | None = None
    ) -> list[envelope.RecordedEvent]:
        """As :meth:`eventlog.EventStore.read_all`."""
        after = self._events[max(0, after_position) :]
        if stream_id is not None:
            after = [e for e in after if e.stream_id == stream_id]
        return after[:limit]

    async def iter_all(
        self, after_position: int = 0, batch_size: int = 1000
    ) -> AsyncIterator[envelope.RecordedEvent]:
        """As :meth:`eventlog.EventStore.iter_all`."""
        for e in await self.read_all(after_position, len(self._events)):
            yield e

    def subscribe(
        self,
        after_position: int = 0,
        *,
        stream_id: str | None = None,
        types: frozenset[str] | None = None,
        **_paging: float,
    ) -> MemorySubscription:
        """As :meth:`eventlog.EventStore.subscribe` (``async with``, then ``async for``);
        its ``batch_size`` and ``poll_interval`` mean nothing here: an append wakes it."""
        if types is not None and stream_id is not None:
            raise ValueError("a subscription filters by stream or by type, not both")
        return MemorySubscription(self, after_position, stream_id, types)

    async def _wait_past(self, position: int) -> None:
        """Until an event past ``position`` is in the log."""
        async with self._appended:
            await self._appended.wait_for(lambda: len(self._events) > position)

    async def head_position(self) -> int:
        return len(self._events)

    async def stream_version(self, stream_id: str) -> int:
        return len(self._streams.get(stream_id, ()))

    async def close(self) -> None:
        self._closed = True


class MemorySubscription(OneByOne):
    """Catch-up then live reading of a :class:`MemoryEventStore`; ``position`` is the last
    position delivered."""

    def __init__(
        self,
        store: MemoryEventStore,
        after_position: int,
        stream_id: str | None,
        types: frozenset[str] | None = None,
    ):
        self._store = store
        self.position = after_position
        self._stream_id = stream_id
        self._types = types

    async def __aenter__(self) -> MemorySubscription:
        return self

    async def __aexit__(self, *_: object) -> None:
        return None

    async def batches(self) -> AsyncIterator[list[envelope.RecordedEvent]]:
        """As :meth:`eventlog.store.Subscription.batches`: what is there, one list a look."""
        store = self._store
        scanned = self.position  # the last global position looked at
        while True:
            if len(store._events) <= scanned:
                await store._wait_past(scanned)
                continue
            page = store._events[scanned:]
            scanned += len(page)
            batch = [e for e in page if self._stream_id is None or e.stream_id == self._stream_id]
            if self._types is not None:
                batch = [e for e in batch if e.type in self._types]
                self.position = scanned  # past the other types too, as the store's
                yield batch
            elif batch:
                self.position = batch[-1].position
                yield batch
