"""Transactional outbox: the events table is the outbox, this relay carries it to JetStream.

Each event becomes one JetStream message on ``<prefix>.<category>.<stream id>`` (e.g.
``belot.events.match.match-42``) with the headers ``Belot-Position`` (the event's global
position), ``Belot-Stream``, ``Belot-Version``, ``Belot-Type`` and ``Belot-Visibility``,
``Nats-Expected-Last-Sequence`` and ``Nats-Msg-Id`` (both below). Events are published
in position order. Consumers key on ``Belot-Position`` (and the stream and version),
never on ``Nats-Msg-Id``, and ignore a message without the relay's headers.

The body (:func:`message_body`) is the envelope as JSON (``RecordedEvent.to_json_dict``)
for public and seat-private events, without its hash (``"hash": null``): a stream's hash
chain runs through its hidden events, so the hash of a public event after a deck or a
seat's cards is a test of every guess at them (docs/threat-model.md, "Hidden cards stay
hidden"; the salts of :mod:`belot.salts` defeat that test, and nothing that reads these
subjects needs the hash: it is the log's, served once the match has ended). A secret
event travels as a stub: the same subject, headers and envelope, except ``"payload":
null`` and ``"withheld": true`` (a key no full envelope has). Its content stays in the
log: the relay's subjects are read by the gateway's NATS user, which must not see a
deck, and no one consumes secret events from NATS (the table workers, verify, rating
and tournament read the log). Seat-private events (``seat:<n>``) travel whole: the gateway
exists to deliver each one to its seat as it happens, and reads them in the log anyway,
so withholding them would hide nothing from it and would stop live play. A stub keeps
its stream's versions contiguous on NATS, so a consumer tells a withheld event from a
lost message.

Exactly once, in order, across restarts and crashes (stubs included: a secret event is
still one message at its own position, so nothing below depends on the body), whatever
else lands in the stream. Only NATS permissions keep others off the relay's subjects
(deploy/nats/auth.conf: the table and relay users alone may publish there), and a
mistake or a forger there must cost no position. So the relay never infers a position
from a sequence number (it used to count sequences: K foreign messages made it skip K
positions, and one as the stream's last stopped it); it reads what it published:

- The seal. Every message's ``Nats-Msg-Id`` is an HMAC-SHA256 (128 bits, hex), under
  the relay's key, of its position, its expected last sequence, its subject, its
  ``Belot-*`` headers and its body (:func:`seal`). The key is 32 random bytes made once
  and kept in ``relay_offsets.mac_key``, which only the relay's database roles read
  (the table and relay roles; not the gateway, whose NATS user reads the subjects). A
  message is the relay's if and only if its seal checks and it sits at the sequence
  after its expected last sequence, i.e. where the relay put it: a copy of one of its
  messages published again later has a valid seal, but not its place, and is foreign.
- Why a seal, not the position, as the message id. A forger who publishes first with
  the id the relay will use next makes JetStream drop the relay's real message as a
  duplicate: a hole. Either the id is something the forger cannot predict, or the
  relay detects the forged duplicate and recovers. The seal is the first: without the
  key nobody can compute it, so nobody can take an id before the relay does. It is
  also what tells the relay's messages from foreign ones when it walks back (below),
  which a random id would not (the relay would have to remember every id it used);
  and, being a function of the message, a retried publish of the same position after
  the same sequence carries the same id, so JetStream's duplicate window still drops
  the relay's own repeat. (Detecting and recovering would leave the relay chasing
  whatever a forger publishes, with the next position's id at stake each time.)
- Where it got to. A (re)starting relay, and one that a refusal or a timeout
  interrupted, reads the stream's last message and walks back past every message that
  is not the relay's to the last one that is: its position is the last published,
  however long ago (the duplicate window is not relied upon). The walk stops at the
  anchor: ``relay_offsets`` records the position and sequence of the last batch
  JetStream acknowledged (after the acknowledgement), so it reads only what came since
  (the relay's own last batch, if it crashed between the two, and foreign messages).
  The anchor is checked against the stream: the message at its sequence must be the
  relay's, at its position (a stream deleted and made again is walked whole), unless
  the stream's limits removed it.
- Order, no hole, no repeat. A batch is pipelined: its messages are published one after
  the other before any acknowledgement is awaited, so each must say what it follows,
  and JetStream refuses one that does not. The first carries
  ``Nats-Expected-Last-Sequence``: the stream's last sequence as the relay just read it
  (its own last message's, or a foreign one's after it). Each next one carries both the
  sequence that follows and ``Nats-Expected-Last-Msg-Id``: the seal of the message before
  it in the batch. The sequence alone is not enough: a foreign message that lands in the
  place of the batch's k-th message gets the k-th refused, but the (k+1)-th then finds
  exactly the sequence it expects and would be stored after the foreign one: a hole at
  k. With the id, it finds the foreign message's id (or none) instead of its
  predecessor's seal and is refused too, and so is all the rest of the batch. So a lost
  or refused message is never overtaken by the next one, two relays racing cannot
  interleave, and after a refusal the relay walks back and goes on after whatever came.
  A flood of foreign messages can slow the relay down, never make it skip or repeat.
- One acknowledgement a batch. The same chain makes the last message's acknowledgement
  speak for the batch: stored, it found the seal of the one before it as the stream's
  last message at the sequence before its own, and that one found its predecessor's, back
  to the first, which found the sequence the relay read. So only the last asks for one
  (the others are published without a reply subject: a refusal of theirs is silent, and
  refuses the last). Refused or unanswered, nothing of the batch counts as acknowledged,
  and the relay walks back (above). An acknowledgement a message cost the server a reply
  and the relay a message to read, each (the relay's CPU per event: bench/capacity.py).
- One active relay per (schema, name): a PostgreSQL advisory lock.
- Upgrading from the relay whose ``Nats-Msg-Id`` was the position: its offset row has
  a position but no anchor sequence. That once, the walk also takes a message of the
  old form (a decimal ``Nats-Msg-Id`` equal to its body's position, no seal) as the
  relay's, and writes its anchor at once; sealed from then on.

Lag. ``belot_eventlog_relay_lag_events`` is the log's head in PostgreSQL minus the
relay's last position in JetStream, both read as it is scraped (:meth:`OutboxRelay.lag`,
run before /metrics renders), in every table worker, the active relay's and those
waiting for the lock alike. An end that cannot be read counts at its last known value:
while the relay is down and appends go on, the lag grows instead of freezing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import asyncpg
import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import PubAck, RawStreamMsg, StreamConfig
from nats.js.errors import (
    APIError,
    BadRequestError,
    NoStreamResponseError,
    NotFoundError,
    ServerError,
    ServiceUnavailableError,
)

from belot_platform import pgpool
from eventlog import metrics
from eventlog.envelope import SECRET, RecordedEvent, stream_category
from eventlog.errors import EventLogError
from eventlog.migrations import quote_schema
from eventlog.store import EventStore

log = logging.getLogger(__name__)

MSG_ID: Final = "Nats-Msg-Id"
EXPECTED_LAST_SEQUENCE: Final = "Nats-Expected-Last-Sequence"
EXPECTED_LAST_MSG_ID: Final = "Nats-Expected-Last-Msg-Id"
POSITION: Final = "Belot-Position"
#: The relay's own headers besides the position, in the order the seal covers them.
EVENT_HEADERS: Final = ("Belot-Stream", "Belot-Version", "Belot-Type", "Belot-Visibility")
#: JetStream's error codes for a publish whose expected last message id, or sequence, is
#: not the stream's last: another message came first.
WRONG_LAST_MSG_ID: Final = 10070
WRONG_LAST_SEQUENCE: Final = 10071
#: Refusals in a row (each resynced) after which ``relay_once`` gives up for this round.
MAX_REFUSALS: Final = 20
#: Hex digits of the seal (128 bits of the HMAC).
SEAL_HEX: Final = 32
#: Readiness: a lag above this many events for longer than the grace is not ready.
READY_LAG_EVENTS: Final = 1000
READY_LAG_GRACE_S: Final = 30.0
#: How long a lag read is reused (a scrape of /metrics and /readyz together), and how
#: long each end may take to answer before its last known value stands in (the scrape
#: waits for neither server longer).
LAG_CACHE_S: Final = 0.5
LAG_READ_TIMEOUT_S: Final = 0.5
#: Messages fetched at once while walking a stream whole (:meth:`OutboxRelay.positions`).
_FETCH_AT_ONCE: Final = 64


class RelayError(EventLogError):
    """JetStream refused or did not acknowledge a message (the relay resyncs and retries)."""

    code = "relay_error"


class _Overtaken(RelayError):
    """A publish refused because another message took its place (its expected last
    sequence is no longer the last): nothing is wrong, the relay goes on after it."""


@dataclass(frozen=True, slots=True)
class Published:
    """Where the relay is in the JetStream stream: the last position it published and that
    message's sequence, and the stream's last sequence (the next publish's expected last
    sequence: a foreign message's, when one came after the relay's)."""

    position: int
    sequence: int
    last_sequence: int


@dataclass(frozen=True, slots=True)
class _Offsets:
    """The relay's row in ``relay_offsets``: its key, its anchor (position and sequence
    of the last acknowledged batch; sequence None: no anchor yet) and whether the stream
    may still end in messages of the old, unsealed form."""

    key: bytes
    position: int
    sequence: int | None
    legacy: bool


def subject_for(prefix: str, event: RecordedEvent) -> str:
    return f"{prefix}.{stream_category(event.stream_id)}.{event.stream_id}"


def withheld(event: RecordedEvent) -> bool:
    """Does ``event`` travel as a stub? Secret ones only (see the module docstring)."""
    return event.visibility == SECRET


def message_body(event: RecordedEvent) -> dict[str, Any]:
    """The JSON body of ``event``'s message: its envelope without its hash, or its stub if
    withheld (the module docstring says why neither carries a hash)."""
    body = event.to_json_dict()
    body["hash"] = None
    if withheld(event):
        body["payload"] = None
        body["withheld"] = True
    return body


def event_headers(event: RecordedEvent) -> dict[str, str]:
    """The relay's own headers of ``event``'s message (without the id and expectation)."""
    return {
        POSITION: str(event.position),
        "Belot-Stream": event.stream_id,
        "Belot-Version": str(event.version),
        "Belot-Type": event.type,
        "Belot-Visibility": event.visibility,
    }


def seal(key: bytes, expected: int, subject: str, headers: Mapping[str, str], body: bytes) -> str:
    """The ``Nats-Msg-Id`` of a relay message (module docstring). Each part is length-
    prefixed, so no two different messages share an input. Raises KeyError for a
    missing relay header."""
    parts = [
        b"%d:%s" % (len(data), data)
        for data in (
            p.encode()
            for p in (
                str(expected),
                subject,
                headers[POSITION],
                *(headers[h] for h in EVENT_HEADERS),
            )
        )
    ]
    parts.append(b"%d:%s" % (len(body), body))
    # One call over the joined parts: HMAC's input is their concatenation either way, and
    # hmac.digest is the C one-shot (an update a part cost the relay a fifth of its CPU).
    return hmac.digest(key, b"".join(parts), "sha256").hex()[:SEAL_HEX]


def _legacy_position(msg: RawStreamMsg) -> int | None:
    """The position of a message of the old relay (``Nats-Msg-Id`` = position, no
    ``Belot-Position``), or None."""
    headers = msg.headers or {}
    msg_id = headers.get(MSG_ID, "")
    if POSITION in headers or not msg_id.isdigit() or msg.data is None:
        return None
    try:
        body = orjson.loads(msg.data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(body, dict) or body.get("position") != int(msg_id):
        return None
    return int(msg_id)


#: JetStream's error replies, by status: as nats-py names them.
_API_ERRORS: Final[dict[int, type[APIError]]] = {
    400: BadRequestError,
    404: NotFoundError,
    500: ServerError,
    503: ServiceUnavailableError,
}


class _Acks:
    """Pipelined publishes to JetStream, and the acknowledgement of a batch's last, on an
    inbox of the relay's own. (nats-py's ``publish_async`` loses an error reply: its callback raises
    the error instead of setting it on the future, which then never ends, so a refusal,
    say a foreign message's sequence, would look like a timeout after the whole ack
    timeout.) Replies are matched by their inbox token; one that comes after its
    publish was given up is dropped."""

    def __init__(self, nc: Client) -> None:
        self.nc = nc
        self._prefix: str | None = None
        self._pending: dict[str, asyncio.Future[PubAck]] = {}
        self._n = 0

    async def publish(
        self, subject: str, body: bytes, headers: dict[str, str]
    ) -> asyncio.Future[PubAck]:
        if self._prefix is None:
            prefix = self.nc.new_inbox()
            await self.nc.subscribe(f"{prefix}.*", cb=self._on_reply)
            self._prefix = prefix
        self._n += 1
        token = str(self._n)
        future: asyncio.Future[PubAck] = asyncio.get_running_loop().create_future()
        self._pending[token] = future
        future.add_done_callback(lambda _: self._pending.pop(token, None))
        await self.nc.publish(subject, body, reply=f"{self._prefix}.{token}", headers=headers)
        return future

    async def send(self, subject: str, body: bytes, headers: dict[str, str]) -> None:
        """Publish asking for no acknowledgement (a batch's messages but its last)."""
        await self.nc.publish(subject, body, headers=headers)

    async def _on_reply(self, msg: Msg) -> None:
        future = self._pending.get(msg.subject.rsplit(".", 1)[-1])
        if future is None or future.done():
            return
        if msg.headers and msg.headers.get("Status") == "503":
            future.set_exception(NoStreamResponseError())
            return
        try:
            reply = orjson.loads(msg.data)
        except orjson.JSONDecodeError:
            future.set_exception(APIError(description="an acknowledgement that is not JSON"))
            return
        error = reply.get("error") if isinstance(reply, dict) else None
        if isinstance(error, dict):
            kind = _API_ERRORS.get(error.get("code", 0), APIError)
            future.set_exception(
                kind(
                    code=error.get("code"),
                    err_code=error.get("err_code"),
                    description=error.get("description"),
                )
            )
            return
        future.set_result(PubAck.from_response(reply))


class OutboxRelay:
    """Publishes the log of ``store`` to the JetStream stream ``stream``.

    ``run(stop)`` is the service loop; ``relay_once()`` publishes up to the current head
    and returns (tests and tools); ``lag()`` reads both ends (metrics, readiness);
    ``positions()`` lists what the relay published, in stream order (tests, operators).
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
        duplicate_window: float = 120.0,
    ) -> None:
        self.store = store
        self.js = js
        self.stream = stream
        self.subject_prefix = subject_prefix
        self.name = name
        self.batch_size = batch_size
        self.ack_timeout = ack_timeout
        self.poll_interval = poll_interval
        self.duplicate_window = duplicate_window
        #: Seconds without a round done (a batch published, a poll, a look at the lock)
        #: after which a running relay counts as stalled.
        self.stall_after = 6 * ack_timeout
        self._published: Published | None = None
        # The client under the context (nats-py keeps it there): publishes and acks.
        self._acks = _Acks(js._nc)
        self._key: bytes | None = None
        self._beat: Callable[[], None] = lambda: None
        # The ends last read for the lag (each kept when it cannot be read again).
        self._seen: Published | None = None
        self._unread: list[tuple[int, int]] = []  # sequences (low, high] to read still
        self._head: int | None = None
        self._lag_read: tuple[float, int] | None = None
        s = quote_schema(store.schema)
        self._sql_offset = (
            f"INSERT INTO {s}.relay_offsets (relay, position, sequence) VALUES ($1, $2, $3)"
            " ON CONFLICT (relay) DO UPDATE SET position = excluded.position,"
            " sequence = excluded.sequence, updated_at = now()"
        )
        self._sql_new_row = (
            f"INSERT INTO {s}.relay_offsets (relay, position, mac_key) VALUES ($1, 0, $2)"
            " ON CONFLICT (relay) DO NOTHING"
        )
        self._sql_row = (
            f"SELECT position, sequence, mac_key FROM {s}.relay_offsets WHERE relay = $1"
        )
        self._sql_set_key = (
            f"UPDATE {s}.relay_offsets SET mac_key = $2 WHERE relay = $1 AND mac_key IS NULL"
        )
        digest = hashlib.sha256(f"eventlog:relay:{store.schema}:{name}".encode()).digest()
        self._lock_key = int.from_bytes(digest[:8], "big", signed=True)

    async def ensure_stream(self, *, duplicate_window: float | None = None) -> None:
        """Create the JetStream stream if it does not exist (file storage, limits
        retention). An existing one whose duplicate window differs is updated to it;
        one that does not take the relay's subjects is refused (:class:`RelayError`,
        one line): it is someone else's stream, never silently used as it is."""
        window = self.duplicate_window if duplicate_window is None else duplicate_window
        subjects = f"{self.subject_prefix}.>"
        try:
            info = await self.js.stream_info(self.stream)
        except NotFoundError:
            await self.js.add_stream(
                StreamConfig(name=self.stream, subjects=[subjects], duplicate_window=window)
            )
            return
        config = info.config
        if subjects not in (config.subjects or []):
            raise RelayError(
                f"JetStream stream {self.stream} takes {config.subjects}, not {subjects}: "
                f"BELOT_EVENTS_STREAM or BELOT_EVENTS_SUBJECT names another stream"
            )
        if abs(float(config.duplicate_window or 0) - window) > 0.001:
            try:
                await self.js.update_stream(dataclasses.replace(config, duplicate_window=window))
            except (APIError, NatsTimeoutError) as exc:
                raise RelayError(
                    f"JetStream stream {self.stream} has a duplicate window of "
                    f"{config.duplicate_window:g} s, not {window:g} s, and updating it "
                    f"failed: {exc}"
                ) from None
            log.warning(
                "JetStream stream %s: duplicate window %g s -> %g s",
                self.stream, config.duplicate_window or 0, window,
            )  # fmt: skip

    # ------------------------------------------------------------------ where it is

    async def _offsets(self) -> _Offsets:
        """The relay's row, made (with a new key) if it has none, and given a key if it
        was the old relay's (module docstring)."""
        async with self.store.pool.acquire() as conn, conn.transaction():
            await conn.execute(self._sql_new_row, self.name, secrets.token_bytes(32))
            row = await conn.fetchrow(self._sql_row + " FOR UPDATE", self.name)
            key = row["mac_key"]
            if key is None:
                key = secrets.token_bytes(32)
                await conn.execute(self._sql_set_key, self.name, key)
        self._key = bytes(key)
        sequence = row["sequence"]
        legacy = sequence is None and row["position"] > 0
        return _Offsets(self._key, row["position"], sequence, legacy)

    def owns(self, msg: RawStreamMsg, key: bytes | None = None) -> int | None:
        """The position of ``msg`` if the relay published it where it is, else None (a
        foreign message, or a copy of the relay's published again elsewhere)."""
        key = key or self._key
        headers = msg.headers or {}
        if key is None or msg.data is None or msg.seq is None or msg.subject is None:
            return None
        try:
            expected = int(headers[EXPECTED_LAST_SEQUENCE])
            position = int(headers[POSITION])
            expected_seal = seal(key, expected, msg.subject, headers, msg.data)
        except (KeyError, ValueError):
            return None
        if expected + 1 != msg.seq or position < 1:
            return None
        if not hmac.compare_digest(expected_seal, headers.get(MSG_ID, "")):
            return None
        return position

    async def _message(self, seq: int) -> RawStreamMsg | None:
        try:
            return await self.js.get_msg(self.stream, seq=seq)
        except NotFoundError:  # deleted, or removed by the stream's limits
            return None

    async def published(self) -> Published:
        """Read from the JetStream stream where the relay is: walk back from its last
        message to the relay's last (module docstring)."""
        offsets = await self._offsets()
        info = await self.js.stream_info(self.stream)
        first, last = info.state.first_seq, info.state.last_seq
        floor = Published(0, 0, last)
        if offsets.sequence is not None and offsets.sequence <= last:
            if offsets.sequence < first:
                floor = Published(offsets.position, offsets.sequence, last)
            else:
                anchor = await self._message(offsets.sequence)
                if anchor is not None and self.owns(anchor, offsets.key) == offsets.position:
                    floor = Published(offsets.position, offsets.sequence, last)
        found = await self._walk_back(last, floor, offsets)
        if offsets.legacy and found.sequence:
            await self.store.pool.execute(
                self._sql_offset, self.name, found.position, found.sequence
            )
        return found

    async def _walk_back(self, last: int, floor: Published, offsets: _Offsets) -> Published:
        """From ``last`` down, the first message that is the relay's; ``floor`` if none
        is above it."""
        seq = last
        while seq > max(floor.sequence, 0):
            msg = await self._message(seq)
            if msg is not None:
                position = self.owns(msg, offsets.key)
                if position is None and offsets.legacy:
                    position = _legacy_position(msg)
                if position is not None:
                    return Published(position, seq, last)
            seq -= 1
        return Published(floor.position, floor.sequence, last)

    async def positions(self) -> list[int]:
        """Every position the relay published, in stream order, read from the stream
        whole (for tests and operators: a request per message)."""
        key = self._key or (await self._offsets()).key
        info = await self.js.stream_info(self.stream)
        out: list[int] = []
        seqs = range(info.state.first_seq, info.state.last_seq + 1)
        for i in range(0, len(seqs), _FETCH_AT_ONCE):
            chunk = seqs[i : i + _FETCH_AT_ONCE]
            for msg in await asyncio.gather(*(self._message(s) for s in chunk)):
                position = None if msg is None else self.owns(msg, key)
                if position is not None:
                    out.append(position)
        return out

    # ------------------------------------------------------------------ lag

    async def lag(self) -> int:
        """Events appended but not yet published: the log's head in PostgreSQL minus the
        relay's last position in JetStream, each read now, or at its last known value if
        its server does not answer (module docstring). Sets the relay's lag and position
        gauges. Raises what an end's server raised if that end was never read."""
        now = time.monotonic()
        if self._lag_read is not None and now - self._lag_read[0] < LAG_CACHE_S:
            return self._lag_read[1]
        head_read, end_read = await asyncio.gather(
            asyncio.wait_for(self.store.head_position(), LAG_READ_TIMEOUT_S),
            asyncio.wait_for(self._our_end(), LAG_READ_TIMEOUT_S),
            return_exceptions=True,
        )
        if isinstance(head_read, BaseException):
            if not isinstance(head_read, Exception) or self._head is None:
                raise head_read
            log.debug("relay lag: the log's head unread: %r", head_read)
        else:
            self._head = max(self._head or 0, head_read)
        if isinstance(end_read, BaseException):
            if not isinstance(end_read, Exception) or self._seen is None:
                raise end_read
            log.debug("relay lag: JetStream unread: %r", end_read)
        else:
            self._seen = end_read
        lag = max(0, self._head - self._seen.position)
        metrics.RELAY_LAG.set(lag)
        metrics.RELAY_POSITION.set(self._seen.position)
        self._lag_read = (now, lag)
        return lag

    async def refresh_metrics(self) -> None:
        """For the app's ``METRICS_REFRESH``: :meth:`lag`, its value dropped."""
        await self.lag()

    async def _our_end(self) -> Published:
        """Where the relay is in JetStream, read incrementally from what this process
        last knew: its own publishing (the active relay knows its end), or its last
        read (a relay waiting for the lock). Only what came after is read, from the
        stream's end down (the relay's last message is usually the last one), and the
        progress is kept at each message, so that a read cut short by the scrape's
        timeout goes on where it stopped: a flood of foreign messages is read once,
        over as many scrapes as it takes."""
        if not self._acks.nc.is_connected:
            raise ConnectionError("not connected to NATS")
        published, seen = self._published, self._seen
        if published is not None and (
            seen is None or published.last_sequence >= seen.last_sequence
        ):
            known, unread = published, []
        elif seen is not None and self._key is not None:
            known, unread = seen, list(self._unread)
        else:
            return await self.published()
        info = await self.js.stream_info(self.stream)
        last = info.state.last_seq
        if last < known.last_sequence:  # the stream was made again
            self._unread = []
            return await self.published()
        assert self._key is not None
        # Ranges (low, high] not looked at yet, the newest first: the first message of
        # the relay's found from the top down is its end.
        todo = [(known.last_sequence, last), *unread]
        self._seen, self._unread = Published(known.position, known.sequence, last), todo
        loop = asyncio.get_running_loop()
        # Its own deadline, not only the caller's timeout: Python 3.11's wait_for, which
        # nats-py's requests use, may swallow a cancellation that meets a reply.
        deadline = loop.time() + LAG_READ_TIMEOUT_S
        for i, (low, high) in enumerate(todo):
            for seq in range(high, low, -1):
                if loop.time() > deadline:
                    raise TimeoutError("the stream's new messages were not all read yet")
                msg = await self._message(seq)
                position = None if msg is None else self.owns(msg, self._key)
                if position is not None:
                    self._seen, self._unread = Published(position, seq, last), []
                    return self._seen
                self._unread = [(low, seq - 1), *todo[i + 1 :]] if seq - 1 > low else todo[i + 1 :]
        self._unread = []
        return self._seen

    # ------------------------------------------------------------------ publishing

    async def relay_once(self) -> int:
        """Publish every event after the last published one, up to the head; return how
        many were acknowledged. A batch overtaken by another message (a foreign one,
        another relay's) is resumed after it at once. Raises :class:`RelayError`, after
        resyncing, if a message was not acknowledged in time or was refused otherwise,
        or overtaken :data:`MAX_REFUSALS` times in a row (call again to go on); and what
        PostgreSQL or NATS raise when they do not answer."""
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
        refusals = 0
        while True:
            events = await self.store.read_all(self._published.position, self.batch_size)
            if not events:
                break
            try:
                total += await self._publish(events)
            except _Overtaken as exc:
                # Another message came first (a foreign one, another relay): resynced,
                # go on after it, unless it keeps happening.
                refusals += 1
                if refusals >= MAX_REFUSALS:
                    raise RelayError(f"{exc} ({refusals} times in a row)") from exc
                continue
            refusals = 0
            self._beat()
            if len(events) < self.batch_size:
                break
        head = await self.store.head_position()
        self._head = max(self._head or 0, head)
        self._seen, self._unread = self._published, []
        self._lag_read = None
        metrics.RELAY_LAG.set(max(0, head - self._published.position))
        return total

    def _message_for(self, e: RecordedEvent, expected: int) -> tuple[str, bytes, dict[str, str]]:
        assert self._key is not None
        subject = subject_for(self.subject_prefix, e)
        body = orjson.dumps(message_body(e))
        headers = event_headers(e)
        headers[EXPECTED_LAST_SEQUENCE] = str(expected)
        headers[MSG_ID] = seal(self._key, expected, subject, headers, body)
        return subject, body, headers

    async def _publish(self, events: list[RecordedEvent]) -> int:
        assert self._published is not None
        start = self._published
        last: asyncio.Future[PubAck] | None = None
        previous: str | None = None
        for i, e in enumerate(events):
            # Each message expects the one before it in this batch, by sequence and by
            # id (module docstring): a message refused, lost, or overtaken by a foreign
            # one stops the rest of the batch. So only the last asks for an
            # acknowledgement: stored, it proves every one before it stored in order.
            subject, body, headers = self._message_for(e, start.last_sequence + i)
            if previous is not None:
                headers[EXPECTED_LAST_MSG_ID] = previous
            previous = headers[MSG_ID]
            if i + 1 < len(events):
                await self._acks.send(subject, body, headers)
            else:
                last = await self._acks.publish(subject, body, headers)
        acked = start
        failure: BaseException | None = None
        if last is not None:
            try:
                ack = await asyncio.wait_for(last, self.ack_timeout)
            except TimeoutError:
                failure = TimeoutError(f"no acknowledgement of position {events[-1].position}")
            except (APIError, NoStreamResponseError) as exc:
                failure = exc
            else:
                if ack.duplicate:
                    # The same sealed message is in the stream already (a publish whose
                    # ack we never saw, another relay's): only the relay makes a seal, so
                    # this is its own. Resync below and go on after it.
                    failure = _Overtaken(f"position {events[-1].position} was already published")
                else:
                    acked = Published(events[-1].position, ack.seq, ack.seq)
        if failure is None:
            if acked != start:
                await self.store.pool.execute(
                    self._sql_offset, self.name, acked.position, acked.sequence
                )
                metrics.RELAY_PUBLISHED.inc(len(events))
                metrics.RELAY_POSITION.set(acked.position)
            self._published = acked
            return len(events)
        # Whatever happened, the stream says how far it got: go on from there. Nothing of
        # this batch was acknowledged (a refused message stops the rest of the batch, and
        # what it stored before may be another relay's as well as its own).
        published = self._published = await self.published()
        metrics.RELAY_POSITION.set(published.position)
        # The last was refused for its chain: the batch was overtaken when a message not
        # the relay's came after its last, or when the stream holds the whole batch (a
        # relay that thought it was behind); otherwise one of the batch was refused for
        # itself, and the ones after it for expecting it.
        chained = isinstance(failure, APIError) and failure.err_code in (
            WRONG_LAST_MSG_ID,
            WRONG_LAST_SEQUENCE,
        )
        overtaken = isinstance(failure, _Overtaken) or (
            chained
            and (
                published.last_sequence > published.sequence
                or published.position >= events[-1].position
            )
        )
        if overtaken:
            why = "another message was published on the stream meanwhile"
        elif chained:
            why = f"JetStream refused position {published.position + 1}"
        else:
            why = str(failure) or type(failure).__name__
        message = (
            f"JetStream did not acknowledge positions {events[0].position}-"
            f"{events[-1].position} ({why}); resuming after position {published.position}"
        )
        if overtaken:
            raise _Overtaken(message) from failure
        raise RelayError(message) from failure

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
        self._beat = beat
        self._published = None  # whatever happened before, JetStream says where we are
        await self.ensure_stream()
        listening: Callable[..., None] | None = None
        async with self.store.pool.acquire() as conn:
            try:
                # Session state (belot_platform.pgpool): undone in _let_go, else by the reset.
                pgpool.took_session_state(conn)
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
