"""The event store on PostgreSQL (asyncpg): append with group commit, reads, subscriptions.

How an append travels. ``append`` validates and encodes the events in the caller's task,
then queues them for the store's single writer task and waits. The writer takes
everything queued (up to ``max_batch_events``), plans it and writes it with ONE
autocommit statement, so concurrent appenders share a transaction and its commit:

1. Plan. Each append names the version its stream is at (``expected_version``). The
   writer knows stream heads (version and hash) it wrote or read before; a head it does
   not know, or that does not match, is read from the database (one query for the
   batch). Appends to the same stream within a batch chain on each other in arrival
   order. An append whose expected version is wrong fails alone with
   :class:`WrongExpectedVersion`, unless its command id was already appended: then it
   gets that earlier result (``duplicate=True``) and nothing is appended twice.
2. Write. One statement bumps the ``log_head`` counter (taking its row lock until commit),
   inserts all the batch's events with positions ``base + 1 ..`` and its command rows,
   and notifies subscribers. Positions are therefore handed out in commit order and
   without gaps: a reader that sees position p sees everything below p.
3. A unique violation means another process wrote to one of the streams (or used one of
   the command ids) since the heads were read. Nothing was written (one statement, one
   transaction); the writer forgets those heads, reads them again and re-plans, so only
   the appends that really conflict fail.

The head cache only ever holds committed facts (an event's hash never changes), so a
stale entry can only make the insert of the next version collide, never fork a stream.

The writer is started by the first append and runs until :meth:`EventStore.close`. A
batch's failure (the database away) goes to that batch's appenders and the writer goes
on; should the writer itself fail (a bug), it is logged with its stack, counted in
``belot_task_restarts_total{task="eventlog-writer"}``, and started again at once when
appends are waiting, so that no appender waits for the next append to wake it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final

import asyncpg
import orjson

from belot_platform import outage
from belot_platform.health import TASK_RESTARTS
from eventlog import metrics
from eventlog.envelope import (
    GENESIS_HASH,
    PUBLIC,
    SEAT_PREFIX,
    WITHHELD,
    NewEvent,
    RecordedEvent,
    canonical_bytes_encoded,
    chain_hash,
    check_append,
    check_event,
    check_metadata,
    check_stream_id,
    encode_json,
    format_time,
)
from eventlog.errors import (
    CommandIdReused,
    EntryMissing,
    EventLogError,
    InvalidEvent,
    StoreClosed,
    WrongExpectedVersion,
)
from eventlog.migrations import ENTRY_MISSING_SQLSTATE, migrate, quote_schema
from eventlog.reading import OneByOne
from eventlog.translog import (
    TRANSLOG_BUSY,
    EntrySource,
    PendingEntry,
    TreeSql,
    read_frontier,
)
from translog import Frontier, leaf_hash

log = logging.getLogger(__name__)

DEFAULT_SCHEMA: Final = "eventlog"
#: The writer's name in belot_task_restarts_total.
WRITER_TASK: Final = "eventlog-writer"
_MAX_PLAN_ATTEMPTS: Final = 5
_COLUMNS: Final = (
    "position, stream_id, version, type, payload::text, metadata::text, "
    "visibility, recorded_at, hash"
)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Where an append's events landed. ``duplicate``: its command id had been appended
    before, these are that earlier append's figures and nothing new was written."""

    stream_id: str
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who reads a stream through :meth:`EventStore.read_stream_as`.

    ``public``: public events only; ``at_seat(n)``: public and seat n's own. Once the
    stream has ended (a public event of one of the ``ended_by`` types) every viewer sees
    everything, seat-private and secret events included.
    """

    seat: int | None = None

    @classmethod
    def public(cls) -> Viewer:
        return cls(None)

    @classmethod
    def at_seat(cls, seat: int) -> Viewer:
        if seat < 0:
            raise ValueError(f"seat {seat} is negative")
        return cls(seat)


@dataclass(slots=True, eq=False)
class _Encoded:
    type: str
    payload: Any
    payload_json: str
    metadata: dict[str, Any]
    metadata_json: str
    visibility: str
    entry: PendingEntry | None = None


@dataclass(slots=True, eq=False)
class _Append:
    stream_id: str
    expected_version: int
    events: list[_Encoded]
    command_id: str | None
    future: asyncio.Future[AppendResult]
    started: float = field(default_factory=time.perf_counter)
    #: Some of its events get a transparency-log entry.
    logged: bool = False


@dataclass(slots=True)
class _Plan:
    # The events' rows as _write sends them: stream, version, type, payload and
    # metadata (orjson fragments of their encoded JSON), visibility, hash (hex), command
    # id (the append's first event only). One list per row, built where it is known.
    rows: list[list[Any]] = field(default_factory=list)
    # (append, first version, ordinal of its first event, ordinal of its last) from 1.
    accepted: list[tuple[_Append, int, int, int]] = field(default_factory=list)
    heads: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    # An append repeating the command id of an earlier one in the same batch.
    aliases: list[tuple[_Append, _Append]] = field(default_factory=list)
    # The transparency log: each entry's bytes and the ordinal of its event; the tree
    # after them and the nodes they complete.
    entries: list[bytes] = field(default_factory=list)
    entry_ordinals: list[int] = field(default_factory=list)
    frontier: Frontier | None = None
    entry_indexes: list[int] = field(default_factory=list)
    node_levels: list[int] = field(default_factory=list)
    node_indexes: list[int] = field(default_factory=list)
    node_hashes: list[bytes] = field(default_factory=list)


def _record(r: Sequence[Any]) -> RecordedEvent:
    return RecordedEvent(
        position=r[0],
        stream_id=r[1],
        version=r[2],
        type=r[3],
        payload=orjson.loads(r[4]),
        metadata=orjson.loads(r[5]),
        visibility=r[6],
        recorded_at=r[7],
        hash=bytes(r[8]),
    )


def _resolve(fut: asyncio.Future[AppendResult], result: AppendResult | BaseException) -> None:
    if fut.done():
        return
    if isinstance(result, BaseException):
        fut.set_exception(result)
    else:
        fut.set_result(result)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class EventStore:
    """An append-only event log in one PostgreSQL schema.

    Build it with :meth:`open` (applies migrations) or the constructor (schema already
    migrated), and :meth:`close` it to stop the writer. One store per process: its writer
    is what makes concurrent appenders share transactions.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        schema: str = DEFAULT_SCHEMA,
        *,
        producer: str | None = None,
        max_batch_events: int = 1000,
        writers: int = 2,
        head_cache_size: int = 100_000,
        entries: EntrySource | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        """``clock``: the recorded time of each batch (default: now, in UTC); a test that
        needs two logs alike to the byte (the twins of tests/integration/
        test_information_flow.py) gives one of its own."""
        self._pool = pool
        self._now = clock or _utc_now
        self._entries = entries
        self._tree = TreeSql(schema)
        # The transparency log's tree as this store last committed or read it (None:
        # read it before the next append with entries).
        self._frontier: Frontier | None = None
        self.schema = schema
        s = quote_schema(schema)
        self.channel = f"eventlog_{schema}"
        self.producer = producer
        self._max_batch_events = max_batch_events
        self._head_cache_size = head_cache_size
        self._heads: OrderedDict[str, tuple[int, bytes]] = OrderedDict()
        self._queue: deque[_Append] = deque()
        self._wakeup = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._writers = writers
        self._checked_kinds: set[tuple[str, str]] = set()
        self._idle_conns: list[Any] = []
        self._closing = False

        self._sql_write = f"""
WITH head AS (
    UPDATE {s}.log_head SET position = position + $1 RETURNING position - $1 AS base
), ev AS (
    INSERT INTO {s}.events (position, stream_id, version, type, payload, metadata,
                            visibility, recorded_at, hash, command_id)
    SELECT head.base + r.n, r.e->>0, (r.e->>1)::int, r.e->>2, r.e->3, r.e->4, r.e->>5, $2,
           decode(r.e->>6, 'hex'), r.e->>7
    FROM head, jsonb_array_elements($3::jsonb) WITH ORDINALITY AS r(e, n)
)
SELECT head.base, pg_notify($4, (head.base + $1)::text) FROM head"""
        # The same, with transparency-log entries: each references its event's position
        # (head.base + its ordinal), and the nodes they complete go in with them.
        self._sql_write_logged = self._sql_write.replace(
            "\nSELECT head.base",
            f""", te AS (
    INSERT INTO {s}.translog_entries (index, entry, event_position)
    SELECT t.idx, t.entry, head.base + t.n
    FROM head, unnest($5::bigint[], $6::bytea[], $7::bigint[]) AS t(idx, entry, n)
), tn AS (
    INSERT INTO {s}.translog_nodes (level, index, hash)
    SELECT * FROM unnest($8::smallint[], $9::bigint[], $10::bytea[])
)
SELECT head.base""",
        )
        self._sql_heads = f"""
SELECT s.id, h.version, h.hash
FROM unnest($1::text[]) AS s(id)
LEFT JOIN LATERAL (
    SELECT version, hash FROM {s}.events WHERE stream_id = s.id
    ORDER BY version DESC LIMIT 1
) h ON true"""
        # A command's events are consecutive versions of one stream; the first carries
        # the command id in its column (unique), all carry it in their metadata.
        self._sql_commands = f"""
SELECT f.command_id, f.stream_id, f.version, max(e.version), f.position, max(e.position)
FROM {s}.events f
JOIN {s}.events e ON e.stream_id = f.stream_id AND e.version >= f.version
                 AND e.metadata->>'command_id' = f.command_id
WHERE f.command_id = ANY($1::text[])
GROUP BY f.command_id, f.stream_id, f.version, f.position"""
        self._sql_stream = f"""
SELECT {_COLUMNS} FROM {s}.events
WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3"""
        self._sql_stream_as = f"""
SELECT {_COLUMNS} FROM {s}.events e
WHERE e.stream_id = $1 AND e.version >= $2
  AND (e.visibility = 'public' OR e.visibility = $3
       OR EXISTS (SELECT 1 FROM {s}.events x
                  WHERE x.stream_id = $1 AND x.type = ANY($4::text[])
                    AND x.visibility = 'public'))
ORDER BY e.version"""
        self._sql_stream_ended = f"""
SELECT EXISTS (SELECT 1 FROM {s}.events WHERE stream_id = $1 AND type = ANY($2::text[])
               AND visibility = 'public')"""
        self._sql_all = f"""
SELECT {_COLUMNS} FROM {s}.events WHERE position > $1 ORDER BY position LIMIT $2"""
        self._sql_all_stream = f"""
SELECT {_COLUMNS} FROM {s}.events
WHERE position > $1 AND stream_id = $3 ORDER BY position LIMIT $2"""
        self._sql_head_position = f"SELECT position FROM {s}.log_head"
        self._sql_lock_head = f"SELECT position FROM {s}.log_head FOR UPDATE"
        self._sql_stream_version = (
            f"SELECT coalesce(max(version), 0) FROM {s}.events WHERE stream_id = $1"
        )

    @classmethod
    async def open(
        cls,
        pool: asyncpg.Pool,
        schema: str = DEFAULT_SCHEMA,
        *,
        app_role: str | None = None,
        **options: Any,
    ) -> EventStore:
        """Apply the migrations to ``schema`` and return a store on it."""
        async with pool.acquire() as conn:
            await migrate(conn, schema, app_role=app_role)
        return cls(pool, schema, **options)

    @property
    def pool(self) -> asyncpg.Pool:
        return self._pool

    # ---------------------------------------------------------------- appending

    def _encode(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None,
    ) -> list[_Encoded]:
        if stream_id not in self._heads:  # the cache holds only valid ids
            check_stream_id(stream_id)
        check_append(expected_version, events, command_id)
        out = []
        checked = self._checked_kinds
        source = self._entries
        # Events of one append often share their metadata (one object: a run of a bot's
        # moves): checked and encoded once, then shared (it is never changed after).
        shared: Any = None
        meta: dict[str, Any] = {}
        meta_json = ""
        for e in events:
            if (e.type, e.visibility) not in checked:
                check_event(e)
                if len(checked) > 10_000:
                    checked.clear()
                checked.add((e.type, e.visibility))
            if e.metadata is not shared:
                shared = e.metadata
                meta = dict(e.metadata)
                check_metadata(meta)
                if command_id is not None:
                    meta["command_id"] = command_id
                if self.producer is not None:
                    meta.setdefault("producer", self.producer)
                meta_json = encode_json(meta, e.type, "metadata").decode()
            pending = None
            if source is not None:
                try:
                    pending = source.prepare(stream_id, e.type, e.payload)
                except ValueError as exc:
                    # An event the transparency log must hold and cannot: not written.
                    raise InvalidEvent(f"{e.type} cannot be logged: {exc}") from None
            out.append(
                _Encoded(
                    e.type,
                    e.payload,
                    encode_json(e.payload, e.type, "payload").decode(),
                    meta,
                    meta_json,
                    e.visibility,
                    pending,
                )
            )
        return out

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        command_id: str | None = None,
    ) -> AppendResult:
        """Append ``events`` to ``stream_id`` if it is at ``expected_version`` (0: new).

        Idempotent on ``command_id``: a repeated command returns the first append's
        result with ``duplicate=True``. Raises :class:`InvalidEvent`,
        :class:`WrongExpectedVersion`, :class:`CommandIdReused`, :class:`StoreClosed`, or
        the database's error. If the caller is cancelled or the connection drops, the
        append may still have been written: retry with the same command id to find out.
        """
        if self._closing:
            raise StoreClosed("the event store is closed")
        encoded = self._encode(stream_id, expected_version, events, command_id)
        loop = asyncio.get_running_loop()
        item = _Append(stream_id, expected_version, encoded, command_id, loop.create_future())
        item.logged = any(e.entry is not None for e in encoded)
        self._queue.append(item)
        self._wakeup.set()
        if self._writer is None or self._writer.done():
            self._start_writer()
        result = await item.future
        metrics.APPEND_SECONDS.observe(time.perf_counter() - item.started)
        return result

    async def append_in(
        self,
        conn: Any,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        command_id: str | None = None,
    ) -> AppendResult:
        """Append inside the caller's transaction on ``conn`` (no group commit).

        For effects that must commit together with the events (a consumer recording its
        position, a projection). The append holds the log's position lock until that
        transaction ends, which stalls every other appender: keep it short. Raises as
        :meth:`append`.
        """
        encoded = self._encode(stream_id, expected_version, events, command_id)
        fut: asyncio.Future[AppendResult] = asyncio.get_running_loop().create_future()
        item = _Append(stream_id, expected_version, encoded, command_id, fut)
        if not conn.is_in_transaction():
            raise EventLogError("append_in needs a connection inside a transaction")
        await self._write_batch(conn, [item], self._now(), cache=False)
        if any(e.entry is not None for e in encoded):
            # Committed or not, that is the caller's: read the tree again next time.
            self._frontier = None
        return fut.result()

    def _start_writer(self) -> None:
        self._writer = asyncio.create_task(
            self._run_writer(), name=f"eventlog-writer-{self.schema}"
        )
        self._writer.add_done_callback(self._writer_ended)

    def _writer_ended(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        log.error(
            "event store writer failed; restarting",
            exc_info=(type(exc), exc, exc.__traceback__) if exc else None,
            extra={"task": WRITER_TASK, "schema": self.schema},
        )
        TASK_RESTARTS.labels(WRITER_TASK).inc()
        if self._queue and self._writer is task:
            self._start_writer()

    async def _run_writer(self) -> None:
        # Up to ``writers`` batches are in flight, each on its own connection, so that
        # Python plans and encodes one batch while PostgreSQL executes the other (their
        # inserts still queue on the log_head lock, which keeps positions in commit
        # order). A stream is in at most one batch in flight: its later appends wait for
        # the next batch, which keeps each stream's appends in arrival order and the
        # head cache exact.
        slots = asyncio.Semaphore(self._writers)
        busy: set[str] = set()
        in_flight: set[asyncio.Task[None]] = set()
        while True:
            await slots.acquire()
            while True:
                # With nothing in flight, take only a share of the queue so the next
                # slot has work at once: that is what lets the two overlap.
                share = len(self._queue) if in_flight else -(-len(self._queue) // self._writers)
                batch = self._take_batch(busy, share)
                if batch:
                    break
                if self._closing and not self._queue and not in_flight:
                    return
                self._wakeup.clear()
                await self._wakeup.wait()
            streams = {a.stream_id for a in batch}
            if any(a.logged for a in batch):
                # One batch with entries in flight at a time: the next one must start
                # from the tree this one leaves.
                streams.add(TRANSLOG_BUSY)
            busy |= streams

            def done(
                task: asyncio.Task[None], streams: set[str] = streams, busy: set[str] = busy
            ) -> None:
                in_flight.discard(task)
                busy.difference_update(streams)
                slots.release()
                self._wakeup.set()

            task = asyncio.create_task(self._run_batch(batch))
            in_flight.add(task)
            task.add_done_callback(done)

    def _take_batch(self, busy: set[str], max_appends: int) -> list[_Append]:
        batch: list[_Append] = []
        skipped: list[_Append] = []
        n = 0
        queue = self._queue
        while queue:
            item = queue[0]
            if item.stream_id in busy or (item.logged and TRANSLOG_BUSY in busy):
                skipped.append(queue.popleft())
                continue
            if batch and (
                n + len(item.events) > self._max_batch_events or len(batch) >= max_appends
            ):
                break
            batch.append(queue.popleft())
            n += len(item.events)
        queue.extendleft(reversed(skipped))
        return batch

    async def _run_batch(self, batch: list[_Append]) -> None:
        conn = None
        try:
            while self._idle_conns and conn is None:
                kept = self._idle_conns.pop()
                conn = kept if _attached(kept) else None
            if conn is None:
                conn = await self._pool.acquire()
            await self._write_batch(conn, batch, self._now(), cache=True)
        except asyncio.CancelledError:
            for item in batch:
                _resolve(item.future, StoreClosed("the event store closed during the append"))
            raise
        except Exception as exc:
            # The connection failed or the server refused the batch as a whole: every
            # waiting appender gets the error (retry with the same command id is safe).
            for item in batch:
                _resolve(item.future, exc)
            if conn is not None:
                await self._release(conn)
                conn = None
        finally:
            if conn is not None:
                if self._closing or not _attached(conn):
                    await self._release(conn)
                else:
                    self._idle_conns.append(conn)

    async def _release(self, conn: Any) -> None:
        if not _attached(conn):
            return  # the pool took it back when the server closed it
        try:
            await self._pool.release(conn)
        except Exception:
            conn.terminate()

    def _remember(self, stream_id: str, head: tuple[int, bytes]) -> None:
        self._heads[stream_id] = head
        self._heads.move_to_end(stream_id)
        if len(self._heads) > self._head_cache_size:
            self._heads.popitem(last=False)

    async def _write_batch(
        self, conn: Any, batch: list[_Append], now: datetime, *, cache: bool
    ) -> None:
        """Write ``batch``, resolving every item's future. Raises only for errors that
        concern the whole batch (connection lost, server down)."""
        pending = batch
        recheck = False
        for _ in range(_MAX_PLAN_ATTEMPTS):
            # After a collision, a batch with transparency-log entries is planned and
            # written under the log_head lock every appender takes: nobody can commit
            # events (nor so entries) meanwhile, so the tree and the heads it reads stay
            # current and this attempt cannot collide again. Without it, two processes
            # appending entries all the time could keep taking each other's index.
            locked = recheck and any(a.logged for a in pending)
            plan: _Plan | None = None
            try:
                if locked:
                    async with conn.transaction():
                        await conn.execute(self._sql_lock_head)
                        plan = await self._plan(conn, pending, now, recheck=True, use_cache=cache)
                        base = await self._write(conn, plan, now) if plan.accepted else 0
                else:
                    plan = await self._plan(conn, pending, now, recheck=recheck, use_cache=cache)
                    base = await self._write(conn, plan, now) if plan.accepted else 0
            except asyncpg.UniqueViolationError:
                # Another process appended to one of these streams, or used one of these
                # command ids, or appended to the transparency log, after we read the
                # heads. Nothing was written.
                for a in pending:
                    self._heads.pop(a.stream_id, None)
                self._frontier = None
                recheck = True
                pending = [a for a in pending if not a.future.done()]
                continue
            except asyncpg.PostgresError as exc:
                # The server going away (a fast shutdown sends 57P01 before it closes)
                # is not data it refused: the connection is finished, so the batch
                # fails as an outage rather than being written again on it.
                if not _attached(conn) or outage.is_outage(exc):
                    raise
                missing = exc.sqlstate == ENTRY_MISSING_SQLSTATE
                if (locked and not missing) or plan is None:  # not the write's: the batch's
                    raise
                await self._isolate(conn, plan, now, exc, cache=cache)
                return
            if plan.accepted:
                self._settle(plan, base, cache=cache)
            for alias, original in plan.aliases:
                _settle_alias(alias, original)
            return
        for a in pending:
            _resolve(a.future, EventLogError("append kept colliding with concurrent writers"))

    async def _isolate(
        self, conn: Any, plan: _Plan, now: datetime, exc: BaseException, *, cache: bool
    ) -> None:
        # The server refused the whole statement for a reason that is not a collision
        # (data it would not take). Write each append alone so only the bad one fails.
        items = [a for a, *_ in plan.accepted]
        if len(items) == 1:
            _resolve(items[0].future, _refusal(exc))
        else:
            for a in items:
                await self._write_batch(conn, [a], now, cache=cache)
        for alias, original in plan.aliases:
            _settle_alias(alias, original)

    async def _plan(
        self, conn: Any, pending: list[_Append], now: datetime, *, recheck: bool, use_cache: bool
    ) -> _Plan:
        plan = _Plan()
        heads: dict[str, tuple[int, bytes]] = {}
        when = format_time(now)

        # Command ids seen in the database. On a re-check every command id is looked up
        # first; otherwise only those of appends that do not fit their stream's head
        # (a retry of a command that succeeded always has a stale expected version).
        found: dict[str, Sequence[Any]] = {}
        if recheck:
            ids = [a.command_id for a in pending if a.command_id is not None]
            if ids:
                found = {r[0]: r for r in await conn.fetch(self._sql_commands, ids)}

        # Which heads must be read: unknown ones and those the first append misses.
        need: set[str] = set()
        if recheck or not use_cache:
            need = {a.stream_id for a in pending}
        else:
            sim: dict[str, int] = {}
            for a in pending:
                if a.stream_id in need:
                    continue
                v = sim.get(a.stream_id)
                if v is None:
                    h = self._heads.get(a.stream_id)
                    v = None if h is None else h[0]
                if v != a.expected_version:
                    need.add(a.stream_id)
                else:
                    sim[a.stream_id] = v + len(a.events)
        for sid in self._heads.keys() & ({a.stream_id for a in pending} - need):
            heads[sid] = self._heads[sid]
        if need:
            for sid, version, h in await conn.fetch(self._sql_heads, list(need)):
                head = (0, GENESIS_HASH) if version is None else (version, bytes(h))
                heads[sid] = head
                if use_cache:
                    self._remember(sid, head)

        # The heads of other streams that entries record (a match's randomness stream
        # at its end): those in the batch as the batch goes, the others as committed.
        others: dict[str, tuple[int, bytes]] = {}
        wanted = {
            sid
            for a in pending
            if a.logged
            for e in a.events
            if e.entry is not None
            for sid in e.entry.heads_needed
        } - heads.keys()
        if wanted:
            for sid, version, h in await conn.fetch(self._sql_heads, list(wanted)):
                others[sid] = (0, GENESIS_HASH) if version is None else (version, bytes(h))

        misfits: list[_Append] = []
        by_command: dict[str, _Append] = {}
        ordinal = 0
        add_row, fragment = plan.rows.append, orjson.Fragment
        for a in pending:
            if a.command_id is not None:
                if a.command_id in by_command:
                    plan.aliases.append((a, by_command[a.command_id]))
                    continue
                by_command[a.command_id] = a
                row = found.get(a.command_id)
                if row is not None:
                    _settle_found(a, row)
                    continue
            version, prev = heads[a.stream_id]
            if a.expected_version != version:
                misfits.append(a)
                continue
            first_version = version + 1
            stream_id, command_id = a.stream_id, a.command_id
            for i, e in enumerate(a.events):
                v = first_version + i
                prev = chain_hash(
                    prev,
                    canonical_bytes_encoded(
                        stream_id, v, e.type, e.payload_json, e.metadata_json, e.visibility,
                        when,
                    ),
                )  # fmt: skip
                add_row(
                    [
                        stream_id, v, e.type, fragment(e.payload_json),
                        fragment(e.metadata_json), e.visibility, prev.hex(), command_id,
                    ]
                )  # fmt: skip
                command_id = None
                if e.entry is not None:
                    known = {**others, **heads} if e.entry.heads_needed else others
                    plan.entries.append(e.entry.encode(v, prev, when, known))
                    plan.entry_ordinals.append(ordinal + i + 1)
            plan.accepted.append((a, first_version, ordinal + 1, ordinal + len(a.events)))
            ordinal += len(a.events)
            heads[a.stream_id] = (version + len(a.events), prev)
        plan.heads = heads
        if plan.entries:
            await self._plan_tree(conn, plan, use_cache=use_cache)

        if misfits:
            ids = [a.command_id for a in misfits if a.command_id and a.command_id not in found]
            if ids:
                found.update({r[0]: r for r in await conn.fetch(self._sql_commands, ids)})
            for a in misfits:
                row = found.get(a.command_id) if a.command_id else None
                if row is not None:
                    _settle_found(a, row)
                else:
                    metrics.APPEND_CONFLICTS.inc()
                    actual = heads[a.stream_id][0]
                    _resolve(
                        a.future, WrongExpectedVersion(a.stream_id, a.expected_version, actual)
                    )
        return plan

    async def _plan_tree(self, conn: Any, plan: _Plan, *, use_cache: bool) -> None:
        """The transparency log's part of a write: the entries' leaves and the tree
        nodes they complete, from the frontier this store knows (or reads)."""
        frontier = self._frontier if use_cache else None
        if frontier is None:
            frontier = await read_frontier(conn, self._tree)
            if use_cache:
                self._frontier = frontier
        start = frontier.size
        for entry in plan.entries:
            frontier, nodes = frontier.append(leaf_hash(entry))
            for node, h in nodes:
                plan.node_levels.append(node.level)
                plan.node_indexes.append(node.index)
                plan.node_hashes.append(h)
        plan.frontier = frontier
        plan.entry_indexes = list(range(start, frontier.size))

    async def _write(self, conn: Any, plan: _Plan, now: datetime) -> int:
        logged: tuple[Any, ...] = ()
        if plan.entries:
            logged = (
                plan.entry_indexes,
                plan.entries,
                plan.entry_ordinals,
                plan.node_levels,
                plan.node_indexes,
                plan.node_hashes,
            )
        # The batch's rows as ONE JSON array (payload and metadata spliced in as the
        # JSON they were encoded to): one parameter for the server to parse, where eight
        # arrays cost the driver a type check of every element.
        rows = orjson.dumps(plan.rows).decode()
        args = (
            self._sql_write_logged if plan.entries else self._sql_write,
            len(plan.rows),
            now,
            rows,
            self.channel,
            *logged,
        )
        if conn.is_in_transaction():
            # Inside a caller's transaction (append_in): a savepoint, so that a collision
            # rolls back only this attempt and the caller's transaction stays usable.
            async with conn.transaction():
                row = await conn.fetchrow(*args)
        else:
            row = await conn.fetchrow(*args)
        return int(row[0])

    def _settle(self, plan: _Plan, base: int, *, cache: bool) -> None:
        metrics.BATCH_EVENTS.observe(len(plan.rows))
        metrics.EVENTS_APPENDED.inc(len(plan.rows))
        if plan.entries:
            metrics.TRANSLOG_ENTRIES.inc(len(plan.entries))
            if cache:
                self._frontier = plan.frontier
        if cache:
            # Only now, after the commit, are these heads facts worth remembering.
            for a, *_ in plan.accepted:
                self._remember(a.stream_id, plan.heads[a.stream_id])
        for a, first_version, first_n, last_n in plan.accepted:
            _resolve(
                a.future,
                AppendResult(
                    a.stream_id,
                    first_version,
                    first_version + len(a.events) - 1,
                    base + first_n,
                    base + last_n,
                ),
            )

    # ---------------------------------------------------------------- reading

    async def read_stream(
        self, stream_id: str, from_version: int = 1, limit: int | None = None
    ) -> list[RecordedEvent]:
        """A stream's events from ``from_version`` on, in version order, unfiltered
        (for the stream's owner; public readers use :meth:`read_stream_as`)."""
        rows = await self._pool.fetch(self._sql_stream, stream_id, from_version, limit)
        return [_record(r) for r in rows]

    async def read_stream_as(
        self,
        stream_id: str,
        viewer: Viewer,
        *,
        ended_by: Collection[str],
        from_version: int = 1,
    ) -> list[RecordedEvent]:
        """The events of ``stream_id`` that ``viewer`` may see (see :class:`Viewer`).

        ``ended_by``: the event types that end the stream's match (e.g. ``MatchEnded``);
        once one of them is in the stream, as a public event, nothing is hidden.

        Until then no event read here carries its hash (each is :data:`WITHHELD`): a
        stream's chain runs through its hidden events, so the hash of a public event
        after one is a test of every guess at it (docs/threat-model.md, "Hidden cards
        stay hidden"), and a reader's own seat's hash no less. The salts of the hidden
        events (:mod:`belot.salts`) already make such a search hopeless; not serving the
        hashes at all makes what a reader gets the same, byte for byte, whatever the
        hidden events hold, which a test can check and a salt alone could not show.
        """
        own = None if viewer.seat is None else f"{SEAT_PREFIX}{viewer.seat}"
        ends = list(ended_by)
        rows = await self._pool.fetch(
            self._sql_stream_as, stream_id, from_version, own or PUBLIC, ends
        )
        events = [_record(r) for r in rows]
        if from_version == 1 and any(e.type in ended_by and e.visibility == PUBLIC for e in events):
            return events
        if from_version > 1 and await self._pool.fetchval(self._sql_stream_ended, stream_id, ends):
            return events
        return [dataclasses.replace(e, hash=WITHHELD) for e in events]

    async def read_all(
        self, after_position: int = 0, limit: int = 1000, *, stream_id: str | None = None
    ) -> list[RecordedEvent]:
        """Up to ``limit`` events with positions above ``after_position``, in order."""
        if stream_id is None:
            rows = await self._pool.fetch(self._sql_all, after_position, limit)
        else:
            rows = await self._pool.fetch(self._sql_all_stream, after_position, limit, stream_id)
        return [_record(r) for r in rows]

    async def iter_all(
        self, after_position: int = 0, batch_size: int = 1000
    ) -> AsyncIterator[RecordedEvent]:
        """Every event after ``after_position`` up to the head when each page is read."""
        last = after_position
        while True:
            page = await self.read_all(last, batch_size)
            for e in page:
                yield e
            if len(page) < batch_size:
                return
            last = page[-1].position

    def subscribe(
        self,
        after_position: int = 0,
        *,
        stream_id: str | None = None,
        types: frozenset[str] | None = None,
        batch_size: int = 500,
        poll_interval: float = 1.0,
    ) -> Subscription:
        """Catch up from ``after_position``, then follow new events live.

        Use as ``async with store.subscribe(p) as sub: async for event in sub: ...``.
        ``types``: only events of these types are read (by the database: the others are
        never sent, nor parsed here); ``sub.position`` still moves past the others.
        """
        if types is not None and stream_id is not None:
            raise ValueError("a subscription filters by stream or by type, not both")
        return Subscription(self, after_position, stream_id, batch_size, poll_interval, types)

    async def head_position(self) -> int:
        """The last global position handed out (0 for an empty log)."""
        return int(await self._pool.fetchval(self._sql_head_position))

    async def stream_version(self, stream_id: str) -> int:
        """The version ``stream_id`` is at (0: no such stream)."""
        return int(await self._pool.fetchval(self._sql_stream_version, stream_id))

    async def close(self) -> None:
        """Finish the queued appends, stop the writer, release its connection."""
        self._closing = True
        self._wakeup.set()
        for _ in range(2):  # a writer that failed was restarted for the appends left
            writer = self._writer
            if writer is None:
                break
            with contextlib.suppress(Exception):  # logged by _writer_ended
                await writer
            if self._writer is writer:
                break
        self._writer = None
        while self._idle_conns:
            await self._release(self._idle_conns.pop())


def _attached(conn: Any) -> bool:
    """Is the writer's kept connection still usable? When the server closes a pooled
    connection (a restart, a fast shutdown, a terminated backend), asyncpg hands it back
    to the pool by itself and detaches the proxy we kept: every later call on it raises
    ``InterfaceError: ... released back to the pool``, which is no outage error and
    would be answered as an internal one. Such a proxy is dropped, and the batch takes
    a fresh connection (or meets the outage as a connection error)."""
    try:
        return not conn.is_closed()
    except asyncpg.InterfaceError:
        return False


def _refusal(exc: BaseException) -> BaseException:
    """What an appender whose append the database refused is told: the event log's own
    error where the refusal is one of its triggers' (a logged event without its entry),
    else the database's error as it came."""
    if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate == ENTRY_MISSING_SQLSTATE:
        message = getattr(exc, "message", None) or str(exc)
        hint = getattr(exc, "hint", None)
        refused = EntryMissing(f"{message}; {hint}" if hint else message)
        refused.__cause__ = exc
        return refused
    return exc


def _settle_found(a: _Append, row: Sequence[Any]) -> None:
    _cmd, stream_id, first_v, last_v, first_p, last_p = row
    if stream_id != a.stream_id:
        _resolve(a.future, CommandIdReused(a.command_id or "", a.stream_id, stream_id))
        return
    metrics.APPEND_DUPLICATES.inc()
    _resolve(a.future, AppendResult(stream_id, first_v, last_v, first_p, last_p, duplicate=True))


def _settle_alias(alias: _Append, original: _Append) -> None:
    def copy(fut: asyncio.Future[AppendResult]) -> None:
        if fut.cancelled():
            _resolve(alias.future, StoreClosed("the first copy of this command was cancelled"))
            return
        exc = fut.exception()
        if exc is not None:
            _resolve(alias.future, exc)
            return
        r = fut.result()
        if r.stream_id != alias.stream_id:
            _resolve(
                alias.future, CommandIdReused(alias.command_id or "", alias.stream_id, r.stream_id)
            )
        else:
            _resolve(
                alias.future,
                AppendResult(
                    r.stream_id,
                    r.first_version,
                    r.last_version,
                    r.first_position,
                    r.last_position,
                    duplicate=True,
                ),
            )

    original.future.add_done_callback(copy)


class Subscription(OneByOne):
    """Catch-up then live reading of the log; see :meth:`EventStore.subscribe`.

    It LISTENs before its first read, so a commit is either in a read or wakes the next
    one. Because positions follow commit order without gaps, reading "position above the
    last one delivered" neither skips nor repeats an event. ``position`` is the last
    position delivered. Polls every ``poll_interval`` seconds even without notifications.
    """

    def __init__(
        self,
        store: EventStore,
        after_position: int,
        stream_id: str | None,
        batch_size: int,
        poll_interval: float,
        types: frozenset[str] | None = None,
    ) -> None:
        self._store = store
        self.position = after_position
        self._stream_id = stream_id
        self._types = None if types is None else sorted(types)
        self._batch_size = batch_size
        self._poll_interval = poll_interval
        self._wake = asyncio.Event()
        self._conn: Any = None
        s = quote_schema(store.schema)
        if types is not None:
            # The head read in the same snapshot as the events: positions follow commit
            # order, so a short read has seen every event up to it, of any type.
            self._sql = (
                f"SELECT h.position, e.* FROM {s}.log_head h LEFT JOIN LATERAL "
                f"(SELECT {_COLUMNS} FROM {s}.events WHERE position > $1 "
                "AND type = ANY($3::text[]) ORDER BY position LIMIT $2) e ON true"
            )
        elif stream_id is None:
            self._sql = (
                f"SELECT {_COLUMNS} FROM {s}.events WHERE position > $1 ORDER BY position LIMIT $2"
            )
        else:
            self._sql = (
                f"SELECT {_COLUMNS} FROM {s}.events WHERE position > $1 AND stream_id = $3 "
                "ORDER BY position LIMIT $2"
            )

    def _on_notify(self, *_: Any) -> None:
        self._wake.set()

    async def __aenter__(self) -> Subscription:
        conn = await self._store.pool.acquire()
        try:
            await conn.add_listener(self._store.channel, self._on_notify)
        except BaseException:
            # Cancelled (the service stopping) or failed between the two: __aexit__ will
            # not run, so the connection goes back here, or the pool never closes.
            await self._store.pool.release(conn)
            raise
        self._conn = conn
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        conn, self._conn = self._conn, None
        if conn is None or not _attached(conn):
            return  # the server closed it and the pool took it back (see _attached)
        try:
            await conn.remove_listener(self._store.channel, self._on_notify)
        finally:
            await self._store.pool.release(conn)

    async def batches(self) -> AsyncIterator[list[RecordedEvent]]:
        """The events as they are read, one list per read: a reader that awaits each
        event pays the event loop's round trip per event, one that awaits each read pays
        it once for up to ``batch_size`` (:class:`eventlog.follow.Follower`). A list is
        empty only when a read filtered by type moved ``position`` past events of other
        types and found none of its own."""
        if self._conn is None:
            raise EventLogError("use the subscription as 'async with store.subscribe() as sub'")
        args: tuple[Any, ...] = (
            (self._stream_id,) if self._stream_id is not None
            else (self._types,) if self._types is not None else ()
        )  # fmt: skip
        while True:
            self._wake.clear()
            rows = await self._conn.fetch(self._sql, self.position, self._batch_size, *args)
            if self._types is None:
                if rows:
                    batch = [_record(r) for r in rows]
                    self.position = batch[-1].position
                    yield batch
            else:
                batch = [_record(r[1:]) for r in rows if r[1] is not None]
                head, last = rows[0][0], self.position
                short = len(batch) < self._batch_size
                self.position = max(self.position, head) if short else batch[-1].position
                if batch or self.position > last:
                    yield batch
                rows = batch
            if len(rows) < self._batch_size:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self._poll_interval)
