"""Table workers: leases, the tables a worker owns, scanning for orphans, creating.

Ownership. Each table has one owner at a time: a key in the KV bucket
``<prefix>_table_leases`` (key = table id, value = the worker's id) whose entries expire
``lease_ttl`` seconds after their last write. A worker claims a table with KV *create*
(only if the key is absent), renews it every third of the TTL with KV *update* naming the
revision it last wrote (compare-and-set: a worker whose lease expired and was taken
learns it there), and gives it up with a delete naming that revision. The bucket
``<prefix>_tables`` lists the open tables (the lobby's lines); every worker scans it and
claims the tables nobody holds a lease on. Graceful shutdown deletes the worker's
leases after its in-flight commands and says so on ``<prefix>.table.released``, so
another worker claims them at once instead of waiting for the TTL.

The lease is not what keeps a stream whole: every append names the stream version the
owner last saw (:mod:`services.table.table`, which drives each table).

Supervision. The scan and the leases' heartbeat run under the worker's supervisor
(``table-scan``, ``table-heartbeat``: :mod:`belot_platform.supervise`): a failure (NATS
away) is logged, counted and the loop started again after a back-off.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Awaitable
from typing import Any, Final

import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError
from nats.js.kv import KeyValue

from belot import due
from belot_platform import fields, messaging
from belot_platform.messaging import BAD_REQUEST, ServiceError
from belot_platform.supervise import Supervised, Supervisor, cancel
from eventkit.streams import table_stream
from eventlog import EventStore, WrongExpectedVersion
from services.table import domain, handlers, metrics, playnow
from services.table.handlers import command_callback
from services.table.metrics import CLAIMS, LOST, OWNED
from services.table.store import Loaded, load, table_events
from services.table.table import Table, log_command_id, now_ms
from table import state as table_state
from table.events import TableEvent

log = logging.getLogger(__name__)

QUEUE: Final = "table"
#: A creation with a registry line but no stream yet is left alone this long.
CREATION_GRACE_MS: Final = 30_000
#: The worker's supervised loops (the ``task`` label of belot_task_up and restarts).
SCAN_TASK: Final = "table-scan"
HEARTBEAT_TASK: Final = "table-heartbeat"
PRESENCE_TASK: Final = "table-presence"
#: How often the worker looks whether a table's presence lines changed by themselves
#: (a gateway's announcement expired, a new owner's grace ended).
PRESENCE_SWEEP_S: Final = 0.5
#: A gateway's announcement lives this many of its heartbeats (services.table.presence);
#: a new owner counts humans as connected for as long.
PRESENCE_HEARTBEATS: Final = 2.5


def table_id_for(creator: str | None, command_id: str | None) -> str:
    """A new table's id: derived from the creation's command id, so a retried creation
    names the same table; random without one."""
    if command_id is None:
        return uuid.uuid4().hex[:20]
    return hashlib.sha256(f"{creator}\x00{command_id}".encode()).hexdigest()[:20]


class TableWorker:
    """Owns tables: creates them, claims orphans, renews leases, hands over on stop."""

    def __init__(
        self,
        nc: Client,
        store: EventStore,
        *,
        prefix: str = "belot",
        lease_ttl: float = 10.0,
        turn_ms: int = 30_000,
        timeout: float = 2.0,
        worker_id: str | None = None,
        supervisor: Supervisor | None = None,
        autoplay_after: int = 2,
        presence_seconds: float = 2.0,
    ) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.store = store
        self.prefix = prefix
        self.lease_ttl = lease_ttl
        self.turn_ms = turn_ms
        self.timeout = timeout
        #: A new table's autoplay_after unless its creator says (BELOT_AUTOPLAY_AFTER).
        self.autoplay_after = autoplay_after
        #: The gateways' presence heartbeat (BELOT_PRESENCE_SECONDS): a new owner knows
        #: who is connected after this much more than one.
        self.presence_grace = presence_seconds * PRESENCE_HEARTBEATS
        # Host and pid in the id: operators (and the failover test) see who owns what.
        self.id = worker_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.tables: dict[str, Table] = {}
        self.leases: KeyValue | None = None
        self.registry: KeyValue | None = None
        self._subs: list[Subscription] = []
        self._tasks: set[asyncio.Task[None]] = set()  # hand-over claims in flight
        self._loops: list[Supervised] = []
        self._claiming: set[str] = set()
        self._spawned: set[asyncio.Future[Any]] = set()
        self._accepting = False
        #: Runs the scan and the leases' heartbeat (the app's, for its /readyz).
        self.supervisor = supervisor or Supervisor()
        metrics.watch(self)

    # ------------------------------------------------------------------ names

    @property
    def create_subject(self) -> str:
        return handlers.create_subject(self.prefix)

    def table_subject(self, table_id: str) -> str:
        return handlers.table_subject(self.prefix, table_id)

    @property
    def released_subject(self) -> str:
        return handlers.released_subject(self.prefix)

    def state_subject(self, table_id: str) -> str:
        return f"{self.prefix}.tables.{table_id}"

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        # The buckets are the table service's: made, or made to match, as configured
        # (BELOT_LEASE_TTL changed since the bucket was made applies, or start fails).
        self.leases = await messaging.kv_bucket(
            self.js, f"{self.prefix}_table_leases", ttl=self.lease_ttl, reconcile=True
        )
        self.registry = await messaging.kv_bucket(self.js, f"{self.prefix}_tables", reconcile=True)
        self._accepting = True
        self._subs.append(
            await messaging.serve(self.nc, self.create_subject, self.create, queue=QUEUE)
        )
        self._subs.append(await self.nc.subscribe(self.released_subject, cb=self._on_released))
        # Started means answering: a PING's PONG says the server has our subscriptions
        # (a create sent just after "started" was once "nobody answers").
        await self.nc.flush()
        self._loops = [
            self.supervisor.spawn(SCAN_TASK, lambda _: self._scan_loop()),
            self.supervisor.spawn(HEARTBEAT_TASK, lambda _: self._heartbeat_loop()),
            self.supervisor.spawn(PRESENCE_TASK, lambda _: self._presence_loop()),
        ]
        log.info("table worker started", extra={"worker": self.id})

    async def stop(self, *, handover: bool = True) -> None:
        """Stop taking tables, finish in-flight commands, and give the leases up (with
        ``handover``) so that other workers claim them at once."""
        self._accepting = False
        for sub in self._subs:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        self._subs.clear()
        await asyncio.gather(*(loop.stop() for loop in self._loops))
        self._loops.clear()
        await cancel(*self._tasks)
        self._tasks.clear()
        released = []
        for table in list(self.tables.values()):
            await table.stop(self.timeout)
            if handover and await self._release_lease(table):
                released.append(table.id)
        self.tables.clear()
        OWNED.set(0)
        if released:
            with contextlib.suppress(Exception):
                await self.nc.publish(self.released_subject, orjson.dumps(released))
                await self.nc.flush(timeout=2)
        log.info("table worker stopped", extra={"worker": self.id, "handed_over": len(released)})

    async def _release_lease(self, table: Table) -> bool:
        assert self.leases is not None
        try:
            await self.leases.delete(table.id, last=table.revision)
            return True
        except Exception as exc:  # lost meanwhile: nothing to hand over
            log.info("lease not released: %s", exc, extra={"table_id": table.id})
            return False

    # ------------------------------------------------------------------ owning

    async def drop(self, table: Table, *, release: bool, closed: bool = False) -> None:
        """Stop driving ``table``; with ``closed`` it is finished: off the lobby too."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        OWNED.set(len(self.tables))
        await table.stop(self.timeout)
        if closed and self.registry is not None:
            with contextlib.suppress(Exception):
                await self.registry.delete(table.id)
        if release:
            await self._release_lease(table)

    async def _adopt(self, loaded: Loaded, revision: int) -> Table:
        table = Table(self, loaded, revision)
        self.tables[table.id] = table
        OWNED.set(len(self.tables))
        sub = await self.nc.subscribe(
            f"{self.table_subject(table.id)}.*",
            cb=command_callback(table, lambda: self.spawn(self.drop(table, release=False))),
        )
        table.start(sub)
        return table

    async def claim(self, table_id: str, how: str = "scan") -> bool:
        """Try to become ``table_id``'s owner; True if this worker now drives it."""
        if table_id in self.tables or table_id in self._claiming or not self._accepting:
            return False
        assert self.leases is not None and self.registry is not None
        self._claiming.add(table_id)
        try:
            try:
                revision = await self.leases.create(table_id, self.id.encode())
            except KeyWrongLastSequenceError:
                return False  # someone holds it
            started = time.perf_counter()
            loaded = await load(self.store, table_id)
            if not loaded.table.exists:
                await self._forget_creation(table_id, revision)
                return False
            if loaded.table.status == table_state.CLOSED:
                with contextlib.suppress(Exception):
                    await self.registry.delete(table_id)
                with contextlib.suppress(Exception):
                    await self.leases.delete(table_id, last=revision)
                return False
            await self._adopt(loaded, revision)
            CLAIMS.labels(how).inc()
            log.info(
                "table claimed",
                extra={
                    "table_id": table_id,
                    "worker": self.id,
                    "how": how,
                    "replay_ms": int((time.perf_counter() - started) * 1000),
                    "match_version": loaded.match_version,
                },
            )
            return True
        finally:
            self._claiming.discard(table_id)

    async def _forget_creation(self, table_id: str, revision: int) -> None:
        """A registry line without a stream: a creation that died before its first
        append. Left alone while young; removed when old."""
        assert self.leases is not None and self.registry is not None
        with contextlib.suppress(Exception):
            entry = await self.registry.get(table_id)
            born = orjson.loads(entry.value or b"{}").get("opened_at_ms", 0)
            if now_ms() - born > CREATION_GRACE_MS:
                await self.registry.delete(table_id)
        with contextlib.suppress(Exception):
            await self.leases.delete(table_id, last=revision)

    async def _scan_loop(self) -> None:
        """Scan every quarter of the TTL (spread). A failure (NATS away) ends the loop:
        its supervisor logs it and scans again after its back-off."""
        interval = max(0.2, self.lease_ttl / 4)
        while True:
            await asyncio.sleep(interval * (0.75 + random.random() / 2))
            await self.scan()

    async def scan(self) -> int:
        """Claim the open tables nobody holds a lease on; returns how many."""
        assert self.leases is not None and self.registry is not None
        # The leases first: a table that closes leaves the lobby before its lease goes
        # (drop), so one closing meanwhile is in neither list, never an orphan whose
        # claim loads a finished match to find it closed (read the other way round, the
        # tables closing during a scan were). One opening meanwhile
        # may look orphaned: its claim fails at the lease's create, loading nothing.
        try:
            held = set(await self.leases.keys())
        except NoKeysError:
            held = set()
        try:
            open_tables = set(await self.registry.keys())
        except NoKeysError:
            return 0
        orphans = list(open_tables - held - set(self.tables))
        random.shuffle(orphans)
        claimed = 0
        for table_id in orphans:
            if await self.claim(table_id, "scan"):
                claimed += 1
        return claimed

    async def _on_released(self, msg: Msg) -> None:
        try:
            ids = orjson.loads(msg.data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(ids, list):
            return
        ids = [i for i in ids if isinstance(i, str)]
        random.shuffle(ids)

        async def take() -> None:
            await asyncio.sleep(random.random() * 0.05)  # spread the claims among workers
            for table_id in ids:
                try:
                    await self.claim(table_id, "handover")
                except Exception as exc:  # the next scan claims it: go on with the others
                    log.warning("hand-over claim failed: %r", exc, extra={"table_id": table_id})

        task = asyncio.create_task(take())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _heartbeat_loop(self) -> None:
        interval = self.lease_ttl / 3
        while True:
            await asyncio.sleep(interval)
            tables = list(self.tables.values())
            results = await asyncio.gather(
                *(self._renew(t) for t in tables), return_exceptions=True
            )
            now = time.monotonic()
            for table, ok in zip(tables, results, strict=True):
                if ok is True:
                    table.renewed = now
                    continue
                # False: another worker holds the lease. An error (NATS unreachable for
                # a moment): keep the table while the last renewal can still be alive;
                # the fence on appends covers the rest.
                if ok is False or now - table.renewed >= self.lease_ttl:
                    log.warning("lease lost", extra={"table_id": table.id, "why": str(ok)})
                    LOST.inc()
                    await self.drop(table, release=False)

    async def _presence_loop(self) -> None:
        """Tell watchers of the presence lines that changed with time alone."""
        while True:
            await asyncio.sleep(PRESENCE_SWEEP_S)
            for table in list(self.tables.values()):
                await table.say_presence()

    async def _renew(self, table: Table) -> bool:
        assert self.leases is not None
        try:
            table.revision = await self.leases.update(
                table.id, self.id.encode(), last=table.revision
            )
        except (KeyWrongLastSequenceError, KeyNotFoundError):
            return False
        return True

    # ------------------------------------------------------------------ messages

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    async def randomness(
        self, verb: str, body: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        reply: dict[str, Any] = await messaging.request(
            self.nc, f"{self.prefix}.randomness.{verb}", body, timeout=timeout or self.timeout
        )
        return reply

    def seat_subject(self, table_id: str, seat: int) -> str:
        return f"{self.prefix}.seats.{table_id}.{seat}"

    async def publish_state(self, table: Table) -> None:
        """Tell watchers (the gateways) the table as it is now. Once per append (a run of
        bots' moves is one: :class:`~services.table.table.BotRun`), when a seat's presence
        line changes, and when a gateway's watchers grow.

        The one producer of what a player sees pushed, while a socket watches the table
        (:meth:`Table.watched`; a bot table nobody watches costs nothing here). On
        ``<prefix>.tables.<id>``: what the table waits for (public facts) and the
        spectators' reply (``reply``: table.views' :func:`~table.views.table_reply`, no
        hand). On ``<prefix>.seats.<id>.<seat>``, for
        each seat whose player has a socket on it: that seat's own reply, its hand and
        legal moves; deploy/nats/auth.conf lets the gateway alone read those subjects.
        Each carries ``version`` (the table's and the match's stream versions summed: it
        grows with every append) and ``since`` (the version of the state published before
        it by this owner): a watcher keeps the highest version it was pushed."""
        presence = table.presence_lines()
        table.presence_said = presence
        if not table.watched():
            # No socket watches it (and this owner has listened long enough to know: see
            # Presence.is_watched): nobody subscribes to its subjects, so nothing is made
            # or sent. A gateway whose socket starts watching says so (``joined``), and
            # the table is pushed to it then. ``since`` stays the last version sent.
            return
        match = table.match
        d = due(match) if match is not None else None
        version = table.table_version + table.match_version
        since, table.pushed = table.pushed, version
        body: dict[str, Any] = {
            "table_id": table.id,
            "match_id": table.state.match_id,
            "status": table.status,
            "version": version,
            "since": since,
            "table_version": table.table_version,
            "match_version": table.match_version,
            "due": None if d is None else d.kind.value,
            "turn": None if d is None else d.seat,
            "deal_number": None if d is None else d.deal_number,
            "deadline_ms": table.deadline_ms(),
            "ended": table.ending is not None,
            "presence": presence,
        }
        body["reply"] = table.reply(None)
        seats: list[tuple[str, bytes]] = []
        for seat in table.connected_seats():
            player = table.state.seats[seat].player
            own = {"table_id": table.id, "seat": seat, "player": player, "version": version,
                   "since": since, "reply": table.reply(seat)}  # fmt: skip
            seats.append((self.seat_subject(table.id, seat), orjson.dumps(own)))
        with contextlib.suppress(Exception):
            for subject, data in seats:
                await self.nc.publish(subject, data)
            await self.nc.publish(self.state_subject(table.id), orjson.dumps(body))

    async def publish_summary(self, table: Table) -> None:
        """The table's lobby line in ``<prefix>_tables``."""
        if self.registry is None or table.state.status == table_state.CLOSED:
            return
        with contextlib.suppress(Exception):
            line = {**table_state.summary(table.state), "status": table.status}
            await self.registry.put(table.id, orjson.dumps(line))

    # ------------------------------------------------------------------ creating

    async def create(self, body: Any) -> dict[str, Any]:
        """``<prefix>.table.create``: open a table (and seat its creator with ``sit``).

        Order matters: every field is checked before anything is written; then the
        lease (a scanning worker never claims a table being created), the append, and
        only once the table is in the log its lobby line. A creation that fails leaves
        no line behind (and gives its lease up, so that a retry goes on at once)."""
        if not isinstance(body, dict):
            raise ServiceError(BAD_REQUEST, "the request must be a JSON object")
        if not self._accepting:
            raise ServiceError("unavailable", "this worker is stopping")
        play_now = body.get("play_now", False)
        if not isinstance(play_now, bool):
            raise ServiceError(BAD_REQUEST, "play_now must be true or false")
        if play_now:  # services/table/playnow.py
            assert self.leases is not None and self.registry is not None
            return await playnow.play_now(
                self.nc, self.prefix, self.leases, self.registry,
                lambda b: self.create(b), body,
                lock_wait_s=self.lease_ttl + 2 * self.timeout, timeout=self.timeout, now_ms=now_ms,
            )  # fmt: skip
        creator = fields.optional_text("creator", body.get("creator"), fields.MAX_ID)
        command_id = fields.command_id(body.get("command_id"))
        options = domain.parse_options(body, self.turn_ms, self.autoplay_after)
        sit = body.get("sit")
        if sit is not None and (type(sit) is not int or creator is None):
            raise ServiceError(BAD_REQUEST, "sit must be a seat number, for a creator")
        table_id = table_id_for(creator, command_id)
        match_id = f"{table_id}-1"
        now = now_ms()
        opened = domain.opened(table_id, match_id, options, creator, now)
        events: list[TableEvent] = [opened, *domain.extra_events(body, now)]
        state = table_state.TableState()
        for e in events:
            state = table_state.apply(state, e)
        if sit is not None:
            assert creator is not None
            taken = domain.take_seat(
                state, sit, creator, now, domain.seat_key(body.get("key")),
                domain.seat_name(body.get("name")),
            )  # fmt: skip
            events.append(taken)
            state = table_state.apply(state, taken)
        assert self.leases is not None and self.registry is not None
        try:
            revision = await self.leases.create(table_id, self.id.encode())
        except KeyWrongLastSequenceError:
            return await self._created_elsewhere(table_id)
        log_id = log_command_id(table_id, creator, command_id)
        try:
            appended = await self.store.append(
                table_stream(table_id), 0, table_events(events), command_id=log_id
            )
        except WrongExpectedVersion:
            with contextlib.suppress(Exception):
                await self.leases.delete(table_id, last=revision)
            return await self._created_elsewhere(table_id)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.leases.delete(table_id, last=revision)
            raise
        await self.registry.put(table_id, orjson.dumps(table_state.summary(state)))
        if appended.duplicate:  # a retry of a creation that was written: as written
            loaded = await load(self.store, table_id)
        else:  # what was just written, folded here: the log would say the same
            loaded = Loaded(state, appended.last_version, command_ids={log_id} if log_id else set())
        table = await self._adopt(loaded, revision)
        await self.publish_state(table)
        CLAIMS.labels("created").inc()
        summary = table_state.summary(table.state)
        return {"table_id": table_id, "match_id": match_id, "table": summary}

    async def _created_elsewhere(self, table_id: str) -> dict[str, Any]:
        """A creation already made (a retry of it): its table. A creation whose worker
        died between its append and its lobby line gets its line here, only if there is
        none (KV create), so that a scanning worker claims it."""
        assert self.registry is not None
        loaded = await load(self.store, table_id)
        if not loaded.table.exists:
            raise ServiceError("busy", "this table is being created: retry")
        if loaded.table.status != table_state.CLOSED:
            line = {**table_state.summary(loaded.table), "status": loaded.table.status}
            with contextlib.suppress(KeyWrongLastSequenceError):
                await self.registry.create(table_id, orjson.dumps(line))
        return {
            "table_id": table_id,
            "match_id": loaded.table.match_id,
            "table": table_state.summary(loaded.table),
        }
