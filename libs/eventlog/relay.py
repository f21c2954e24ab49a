"""Transactional outbox: the events table is the outbox, this relay carries it to JetStream.

Each event becomes one JetStream message on ``<prefix>.<category>.<stream id>`` (e.g.
``belot.events.match.match-42``) whose ``Nats-Msg-Id`` is the event's global position,
with the headers ``Belot-Stream``, ``Belot-Version``, ``Belot-Type`` and
``Belot-Visibility``. Events are published in position order.

The body (:func:`message_body`) is the envelope as JSON (``RecordedEvent.to_json_dict``)
for public and seat-private events. A secret event travels as a stub: the same subject,
headers and envelope, except ``"payload": null``, ``"hash": null`` and ``"withheld":
true`` (a key no full envelope has). Its content stays in the log: the relay's subjects
are read by the gateway's NATS user, which must not see a deck (nor its chain hash, which
checks a guess: the cards still to be dealt are few enough to try every order of them),
and no one consumes secret events from NATS (the table workers, verify, rating and
tournament read the log). Seat-private events (``seat:<n>``) travel whole: the gateway
exists to deliver each one to its seat as it happens, and reads them in the log anyway,
so withholding them would hide nothing from it and would stop live play. A stub keeps
its stream's versions contiguous on NATS, so a consumer tells a withheld event from a
lost message.

Exactly once, in order, across restarts and crashes (stubs included: a secret event is
still one message at its own position, so nothing below depends on the body):

- The JetStream stream is the record of what was published: its last message's
  ``Nats-Msg-Id`` is the last position published. A (re)starting relay reads it and goes
  on from the next position, so an event acknowledged just before a crash is not
  published again however long ago that was (the duplicate window is not relied on),
  and nothing after it is skipped.
- Every publish carries ``Nats-Expected-Last-Sequence``: the stream sequence its
  predecessor got. JetStream refuses a message that does not follow on, so a lost or
  refused message can never be overtaken by the next one (no hole), and two relays
  racing cannot interleave. After any refusal or timeout the relay re-reads the stream's
  last message and resumes from there.
- ``Nats-Msg-Id`` also lets JetStream drop a duplicate within its duplicate window.
- ``relay_offsets`` records the last acknowledged position (for lag and operators); a
  PostgreSQL advisory lock makes one relay per (schema, name) active at a time.

Nothing else may publish on the relay's subjects.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import asyncpg
import orjson
from nats.js import JetStreamContext
from nats.js.api import StreamConfig
from nats.js.errors import APIError, NotFoundError

from eventlog import metrics
from eventlog.envelope import SECRET, RecordedEvent, stream_category
from eventlog.errors import EventLogError
from eventlog.migrations import quote_schema
from eventlog.store import EventStore

log = logging.getLogger(__name__)

MSG_ID: Final = "Nats-Msg-Id"
EXPECTED_LAST_SEQUENCE: Final = "Nats-Expected-Last-Sequence"


class RelayError(EventLogError):
    """JetStream refused or did not acknowledge a message (the relay resyncs and retries)."""


@dataclass(frozen=True, slots=True)
class Published:
    """What the JetStream stream holds: the last position published and its sequence."""

    position: int
    sequence: int


def subject_for(prefix: str, event: RecordedEvent) -> str:
    return f"{prefix}.{stream_category(event.stream_id)}.{event.stream_id}"


def withheld(event: RecordedEvent) -> bool:
    """Does ``event`` travel as a stub? Secret ones only (see the module docstring)."""
    return event.visibility == SECRET


def message_body(event: RecordedEvent) -> dict[str, Any]:
    """The JSON body of ``event``'s message: its envelope, or its stub if withheld."""
    body = event.to_json_dict()
    if withheld(event):
        body["payload"] = None
        body["hash"] = None
        body["withheld"] = True
    return body


class OutboxRelay:
    """Publishes the log of ``store`` to the JetStream stream ``stream``.

    ``run(stop)`` is the service loop; ``relay_once()`` publishes up to the current head
    and returns (tests and tools).
    """

    def __init__(
        self,
        store: EventStore,
        js: JetStreamContext,
        *,
        stream: str,
        subject_prefix: str,
        name: str = "jetstream",
        batch_size: int = 500,
        ack_timeout: float = 5.0,
        poll_interval: float = 1.0,
    ) -> None:
        self.store = store
        self.js = js
        self.stream = stream
        self.subject_prefix = subject_prefix
        self.name = name
        self.batch_size = batch_size
        self.ack_timeout = ack_timeout
        self.poll_interval = poll_interval
        self._published: Published | None = None
        #: Seconds without a round done (a batch published, a poll, a look at the lock)
        #: after which a running relay counts as stalled.
        self.stall_after = 6 * ack_timeout
        s = quote_schema(store.schema)
        self._sql_offset = (
            f"INSERT INTO {s}.relay_offsets (relay, position) VALUES ($1, $2)"
            f" ON CONFLICT (relay) DO UPDATE SET position = excluded.position, updated_at = now()"
        )
        digest = hashlib.sha256(f"eventlog:relay:{store.schema}:{name}".encode()).digest()
        self._lock_key = int.from_bytes(digest[:8], "big", signed=True)

    async def ensure_stream(self, *, duplicate_window: float = 120.0) -> None:
        """Create the JetStream stream if it does not exist (file storage, limits retention)."""
        try:
            await self.js.stream_info(self.stream)
        except NotFoundError:
            await self.js.add_stream(
                StreamConfig(
                    name=self.stream,
                    subjects=[f"{self.subject_prefix}.>"],
                    duplicate_window=duplicate_window,
                )
            )

    async def published(self) -> Published:
        """Read the last published position from the JetStream stream itself."""
        info = await self.js.stream_info(self.stream)
        last_seq = info.state.last_seq
        if info.state.messages == 0 or last_seq == 0:
            return Published(0, last_seq)
        msg = await self.js.get_msg(self.stream, seq=last_seq)
        headers = msg.headers or {}
        if MSG_ID not in headers:
            raise RelayError(
                f"the last message of stream {self.stream} (sequence {last_seq}) has no "
                f"{MSG_ID}: something other than the relay publishes on its subjects"
            )
        return Published(int(headers[MSG_ID]), last_seq)

    async def relay_once(self) -> int:
        """Publish every event after the last published one, up to the head; return how
        many were acknowledged. Raises :class:`RelayError` after resyncing if JetStream
        refused one (call again to go on)."""
        if self._published is None:
            self._published = await self.published()
            offset = await self.store.pool.fetchval(
                f"SELECT position FROM {quote_schema(self.store.schema)}.relay_offsets"
                " WHERE relay = $1",
                self.name,
            )
            if offset is not None and offset > self._published.position:
                log.warning(
                    "JetStream stream %s ends at position %d but the relay had reached %d: "
                    "republishing from %d",
                    self.stream,
                    self._published.position,
                    offset,
                    self._published.position + 1,
                )
        total = 0
        while True:
            events = await self.store.read_all(self._published.position, self.batch_size)
            if not events:
                break
            total += await self._publish(events)
            if len(events) < self.batch_size:
                break
        head = await self.store.head_position()
        metrics.RELAY_LAG.set(max(0, head - self._published.position))
        return total

    async def _publish(self, events: list[RecordedEvent]) -> int:
        assert self._published is not None
        start = self._published
        futures = []
        for i, e in enumerate(events):
            headers = {
                MSG_ID: str(e.position),
                EXPECTED_LAST_SEQUENCE: str(start.sequence + i),
                "Belot-Stream": e.stream_id,
                "Belot-Version": str(e.version),
                "Belot-Type": e.type,
                "Belot-Visibility": e.visibility,
            }
            futures.append(
                await self.js.publish_async(
                    subject_for(self.subject_prefix, e),
                    orjson.dumps(message_body(e)),
                    headers=headers,
                )
            )
        acked = start
        failure: BaseException | None = None
        for e, fut in zip(events, futures, strict=True):
            if failure is not None:
                fut.cancel()
                continue
            try:
                ack = await asyncio.wait_for(fut, self.ack_timeout)
            except (APIError, TimeoutError) as exc:
                failure = exc
                continue
            if ack.duplicate:
                # Already in the stream (a publish whose ack we never saw): resync below.
                failure = RelayError(f"position {e.position} was already published")
                continue
            acked = Published(e.position, ack.seq)
        count = sum(1 for e in events if start.position < e.position <= acked.position)
        if acked != start:
            await self.store.pool.execute(self._sql_offset, self.name, acked.position)
            metrics.RELAY_PUBLISHED.inc(count)
            metrics.RELAY_POSITION.set(acked.position)
        self._published = acked
        if failure is not None:
            # Whatever happened, the stream says how far it got: go on from there.
            self._published = await self.published()
            raise RelayError(
                f"JetStream refused position {acked.position + 1}: {failure}; "
                f"resuming after position {self._published.position}"
            ) from failure
        return count

    async def run(self, stop: asyncio.Event, progress: Callable[[], None] | None = None) -> None:
        """Relay until ``stop`` is set: wait to be the active relay (advisory lock), then
        publish, waking on each commit (LISTEN) or every ``poll_interval`` seconds;
        ``progress()`` is called after each round (published or waiting for the lock).

        Any failure but a refusal it resolves (:class:`RelayError`: it resynced) ends it
        with the error: PostgreSQL or NATS away, an acknowledgement that did not come.
        Run it under a :class:`~belot_platform.supervise.Supervisor`, which restarts it;
        a run starts by reading from JetStream what was published, so a restart neither
        repeats nor skips."""
        wake = asyncio.Event()

        def on_notify(*_: Any) -> None:
            wake.set()

        beat = progress or (lambda: None)
        self._published = None  # whatever happened before, JetStream says where we are
        await self.ensure_stream()
        listening: Callable[..., None] | None = None
        async with self.store.pool.acquire() as conn:
            try:
                while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", self._lock_key):
                    beat()  # a relay in waiting is well
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), self.poll_interval)
                    if stop.is_set():
                        return
                await conn.add_listener(self.store.channel, on_notify)
                listening = on_notify
                while not stop.is_set():
                    if conn.is_closed():
                        # The server went away with our session: the lock and LISTEN too.
                        raise ConnectionError("the relay's PostgreSQL session was lost")
                    wake.clear()
                    try:
                        await self.relay_once()
                    except RelayError as exc:
                        log.warning("relay: %s", exc)
                        await asyncio.sleep(min(self.poll_interval, 0.2))
                        continue
                    beat()
                    waiter = asyncio.ensure_future(wake.wait())
                    stopper = asyncio.ensure_future(stop.wait())
                    await asyncio.wait(
                        {waiter, stopper},
                        timeout=self.poll_interval,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    waiter.cancel()
                    stopper.cancel()
            finally:
                await self._let_go(conn, listening)

    async def _let_go(self, conn: Any, listener: Callable[..., None] | None) -> None:
        """Stop listening and unlock, if the session still exists. A session that is gone
        (PostgreSQL restarted, the connection cut) took both with it, and asyncpg refuses
        calls on it (``InterfaceError``): nothing is left to undo, and the error that
        ended the run, not this one, is the one to report."""
        if conn.is_closed():
            return
        try:
            if listener is not None:
                await conn.remove_listener(self.store.channel, listener)
            await conn.execute("SELECT pg_advisory_unlock($1)", self._lock_key)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            log.info("relay: the lock went with its session (%s)", exc)
