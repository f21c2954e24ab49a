"""Players' WebSockets: each one watches tables and receives the events its seat may see.

Where the events come from. The outbox relay publishes every event of the log on
``<BELOT_EVENTS_SUBJECT>.<category>.<stream>``: public and seat-private ones whole, secret
ones as withheld stubs (their place in the stream, no payload, no hash: see
:mod:`eventlog.relay`). The hub subscribes to the streams of the tables watched here and
to nothing else (:meth:`Hub.listen`: the first watcher of a table subscribes to its three
streams and its owner's notices, the last one to leave unsubscribes), so a gateway's cost
grows with what its players watch, not with the platform's load: a gateway subscribed to
every event of every table spent 2 ms of CPU a deal parsing messages nobody watched
(bench/capacity.py). deploy/nats/auth.conf lets the gateway's NATS user read the table,
match and randomness categories and publish no event, nor reach the randomness service.
The hub hands each event to the watchers of its stream,
which forward it only if the watcher's seat may see it
(:func:`~services.gateway.domain.may_see`): public events, the seat's own, and everything
once the match has ended, but a secret event (a deck), never: a stub only moves its
stream's version on, and a secret event read whole from the log is not forwarded either
(the client recomputes a deck from the revealed seeds if it wants one). Events read from
the log in a catch-up go out marked ``"replay": true``: the tab notes only what it saw
live as seen "then" (when a round was named, say), and knows a replay was not. The
table owner's pushes are forwarded too; the owner is the one producer of what a
watcher is served (:meth:`services.table.worker.TableWorker.publish_state`). On
``<prefix>.tables.<id>`` it publishes what the table waits for, with the spectators'
reply while somebody watches; on ``<prefix>.seats.<id>.<seat>`` each connected seat's
own reply (its hand, its legal moves), which only gateways may read. A watcher that is
not seated gets the spectators' reply (``{"type": "view"}``), a seated one its seat's,
each version once and in order (``Watch.pushed``: the highest it was sent); the public
notice goes to a seated watcher as ``{"type": "state"}``. Nothing is asked of the owner
per watcher: a socket that starts watching is announced (below), and the owner pushes
the table to it.

Order and gaps. A watcher first reads what it may see from the log (catch-up), buffering
live events meanwhile, then forwards live events whose version follows the last one it
handled. A version that skips one (a message lost in a reconnection) makes it read the
missing ones from the log. The log may not return every version: a role that may not
read secret rows gets a stream with holes where they are, holes the log will never fill
for it. So a live event that was received before a read of the log began (hence
committed before it, as the relay publishes only committed events) is taken once that
read is done, whatever lies between: a version below it that the read did not return is
one this gateway cannot read. A gap in an event received during the read is checked by
one more read, after which it is taken the same way: no resync loop, no stall.

After an outage of NATS. What the relay published while this gateway's connection was
down never reaches it (core NATS keeps nothing for a subscriber that is away), and the
next event of the stream, which would show the gap, may never come (a table's last
event). So the hub's follower (:meth:`Hub.follow`, supervised) reads every watch's
streams from the log again once the connection is back; reads that overlap only ever
take versions past the last one handled, so nothing is sent twice.

The table's chat (:mod:`services.gateway.chat`). Its lines go out as ``{"type":
"chat", "table", "message"}``. The table's own lines are derived here from the public
fair-deal events as they are forwarded (:func:`~services.gateway.domain.table_line`), so
every watcher gets them, in a catch-up too. What players wrote goes only to a watcher
seated at that table (``Watch.seat``, which the table's own events set): its history
from the gateway's store once the watch is caught up and whenever the watcher sits
down, then each new message, which the gateway that stored it publishes on
``<prefix>.chat.<table id>`` for every gateway's hub (the players of one table may be
connected to different replicas). A message lost on NATS comes back with the history
that the follower sends again after a reconnection; ids already sent to a watch are not
sent again.

Presence. The table's owner keeps which seats' players have a live socket on the table
(:mod:`services.table.presence`), as every gateway tells it: for each table watched here,
the hub announces the seated players it holds sockets of and how many sockets watch it
on ``<prefix>.table.<id>.presence`` (``{gateway, players, watchers, ttl_ms}``), at once
when one sits down or starts watching, :data:`LEAVE_DELAY_S` after one stops (a page that reloads
opens its new socket meanwhile: no "disconnected" flicker), and every
``presence_seconds`` again (:meth:`Hub.presence`, supervised), each announcement living
:data:`PRESENCE_HEARTBEATS` of those. The owner's ``state`` notices carry the seats'
``presence`` lines back to every watcher.

The limit. A gateway keeps at most ``max_sockets`` player WebSockets open
(``BELOT_GATEWAY_MAX_SOCKETS``). One more is accepted and closed at once with
:data:`FULL` (1013, "try again later", the reason saying the gateway is full), counted
in ``belot_gateway_websockets_refused_total``; nothing of it reaches the hub, so the
open sockets are not touched. It is refused after the upgrade rather than with an HTTP
503 before it because a browser never sees the status of a refused handshake (its
WebSocket reports 1006 and nothing else), while a close code it does see. A player's
new socket that replaces its old one (one per player) adds none and is not refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from belot_platform.supervise import Supervised
from eventkit import streams
from eventlog import EventStore, RecordedEvent, relay
from eventlog.envelope import stream_category
from services.gateway import metrics
from services.gateway.domain import MATCH_ENDING, RANDOMNESS_OPENED_BY, may_see, table_line

log = logging.getLogger(__name__)

#: Decks: never sent to a WebSocket, not even after the match has ended.
SECRET = "secret"

#: A WebSocket whose client reads too slowly is closed past this many queued messages.
MAX_QUEUED = 5_000
#: The close code of a socket refused because the gateway is full, and its reason.
FULL = 1013
FULL_REASON = b"the gateway is full: try again later"
#: A watch whose read of the log failed reads again after this, then twice as long each
#: time, up to the most.
RESYNC_RETRY_S = 0.5
RESYNC_RETRY_MAX_S = 5.0
#: How long a new watch waits for NATS to confirm its subscriptions.
FLUSH_TIMEOUT_S = 2
#: How often the follower looks whether NATS reconnected.
FOLLOW_INTERVAL_S = 0.5
#: After a socket stops watching, its table hears of it this much later (a reloading
#: page's new socket is watching by then, and nobody is told it left).
LEAVE_DELAY_S = 1.5
#: A presence announcement lives this many heartbeats (the owner's grace, the same).
PRESENCE_HEARTBEATS = 2.5

#: A table's chat history, what players wrote (``ChatRow.to_json`` dicts), oldest first.
ChatHistory = Callable[[str], Awaitable[list[dict[str, Any]]]]


def ended_by(stream: str) -> frozenset[str]:
    return RANDOMNESS_OPENED_BY if stream.startswith(streams.RANDOMNESS) else MATCH_ENDING


@dataclass(frozen=True, slots=True)
class Withheld:
    """A secret event's stub from the relay: its place in its stream and nothing else."""

    position: int
    stream_id: str
    version: int
    type: str


#: What arrives from NATS: an event, or the stub of one the relay withheld.
Live = RecordedEvent | Withheld


@dataclass(eq=False)
class Watch:
    """One table watched by one connection."""

    table_id: str
    match_id: str
    seat: int | None
    streams: tuple[str, ...]
    ready: bool = False
    last: dict[str, int] = field(default_factory=dict)
    opened: set[str] = field(default_factory=set)  # streams whose match has ended
    buffer: list[Live] = field(default_factory=list)
    pushed: int = -1  # the version of the last reply sent (table.views)
    chat_sent: set[str] = field(default_factory=set)  # ids of the chat lines sent


class Connection:
    """One player's WebSocket: an ordered send queue and the tables it watches."""

    def __init__(self, hub: Hub, ws: web.WebSocketResponse, player: str) -> None:
        self.hub = hub
        self.ws = ws
        self.player = player
        self.watches: dict[str, Watch] = {}
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.writer = asyncio.create_task(self._write(), name=f"ws-{player}")

    def send(self, message: dict[str, Any]) -> None:
        self.send_encoded(orjson.dumps(message))

    def send_encoded(self, data: bytes) -> None:
        """A message already encoded: what several watchers receive alike is encoded
        once (:meth:`Hub.encoded_event`)."""
        if self.queue.qsize() > MAX_QUEUED:
            self.hub.spawn(self.ws.close(code=1013, message=b"too slow"))
            return
        self.queue.put_nowait(data)

    async def _write(self) -> None:
        while True:
            data = await self.queue.get()
            if data is None or self.ws.closed:
                return
            try:
                await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                return

    async def close(self) -> None:
        self.queue.put_nowait(None)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.writer, 2)

    # ------------------------------------------------------------------ events

    def _forward(self, w: Watch, e: RecordedEvent, *, replay: bool = False) -> None:
        if e.stream_id.startswith(streams.MATCH) and e.type in MATCH_ENDING:
            w.opened.add(e.stream_id)
        if e.stream_id.startswith(streams.RANDOMNESS) and e.type in RANDOMNESS_OPENED_BY:
            w.opened.add(e.stream_id)
        if e.stream_id.startswith(streams.TABLE) and e.payload.get("player") == self.player:
            if e.type == "SeatTaken":
                sat_down = w.seat is None
                w.seat = e.payload["seat"]
                if sat_down and w.ready:  # a catch-up's resync sends the history itself
                    self.hub.spawn(self.hub.send_chat_history(self, w))
                self.hub.spawn(self.hub.announce(w.table_id))
            elif e.type == "SeatLeft" and not e.payload.get("forfeit"):
                w.seat = None
                self.hub.spawn(self.hub.announce(w.table_id))
        if e.visibility == SECRET or not may_see(e.visibility, w.seat, e.stream_id in w.opened):
            return
        self.send_encoded(self.hub.encoded_event(w.table_id, e, replay))
        line = table_line(e.stream_id, e.version, e.type, e.payload, e.visibility)
        if line is not None:
            self.send_chat(w, line)

    def send_chat(self, w: Watch, line: dict[str, Any]) -> None:
        """A chat line for this watch, once (the history and the live feed overlap)."""
        if line["id"] in w.chat_sent:
            return
        w.chat_sent.add(line["id"])
        self.send({"type": "chat", "table": w.table_id, "message": line})

    def _take(self, w: Watch, e: Live) -> None:
        w.last[e.stream_id] = e.version
        if isinstance(e, Withheld):
            return  # nothing to show, ever: the version is all it brings
        self._forward(w, e)

    def deliver(self, w: Watch, e: Live) -> None:
        if not w.ready:
            w.buffer.append(e)
            return
        last = w.last.get(e.stream_id, 0)
        if e.version <= last:
            return
        if e.version > last + 1:
            w.ready = False
            w.buffer.append(e)
            self.hub.spawn(self.hub.resync(self, w))
            return
        self._take(w, e)


class Hub:
    """Every connection of this gateway, the NATS subscriptions feeding them."""

    def __init__(
        self,
        nc: Client,
        store: EventStore,
        *,
        events_subject: str,
        prefix: str,
        chat_history: ChatHistory | None = None,
        max_sockets: int = 5_000,
        presence_seconds: float = 2.0,
    ) -> None:
        self.nc = nc
        #: This gateway in its presence announcements (one set of players per gateway).
        self.gateway_id = uuid.uuid4().hex[:16]
        self.presence_seconds = presence_seconds
        self.max_sockets = max_sockets
        self.chat_history = chat_history
        self.store = store
        self.events_subject = events_subject
        self.prefix = prefix
        self.connections: dict[str, Connection] = {}
        self._by_stream: dict[str, set[tuple[Connection, Watch]]] = defaultdict(set)
        self._by_table: dict[str, set[tuple[Connection, Watch]]] = defaultdict(set)
        self._subs: list[Subscription] = []
        #: Each watched table's subscriptions (its streams' events, its owner's notices),
        #: made by its first watcher; a task while being made.
        self._listening: dict[str, asyncio.Task[list[Subscription]]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        #: The last event encoded for a WebSocket, for its next watchers (one entry).
        self._encoded: tuple[RecordedEvent, str, bool, bytes] | None = None
        #: The NATS connection's reconnections that every watch has been resynced after.
        self._resynced_reconnects = self._reconnects()

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self) -> None:
        self._subs.append(await self.nc.subscribe(f"{self.prefix}.chat.*", cb=self._on_chat))

    async def listen(self, w: Watch) -> None:
        """Subscribe to ``w``'s table (once for all its watchers here) and return once the
        server has the subscriptions: an event the relay publishes after this returns
        reaches the watch live, and one published before was committed before, so the
        catch-up read that follows finds it in the log."""
        task = self._listening.get(w.table_id)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            subjects: list[tuple[str, Callable[[Msg], Awaitable[None]]]] = [
                (f"{self.events_subject}.{stream_category(s)}.{s}", self._on_event)
                for s in w.streams
            ]
            subjects.append((f"{self.prefix}.tables.{w.table_id}", self._on_state))
            subjects.append((f"{self.prefix}.seats.{w.table_id}.*", self._on_seat))
            task = asyncio.ensure_future(self._subscribe(subjects))
            self._listening[w.table_id] = task
        await asyncio.shield(task)

    async def _subscribe(
        self, subjects: list[tuple[str, Callable[[Msg], Awaitable[None]]]]
    ) -> list[Subscription]:
        subs = [await self.nc.subscribe(subject, cb=cb) for subject, cb in subjects]
        # The PONG: the server has them. NATS away (reconnecting), the client sends them
        # again once it is back, and the follower then reads every watch from the log
        # (Hub.follow): the watch goes on either way, it does not wait for NATS.
        if self.nc.is_connected:
            with contextlib.suppress(Exception):
                await self.nc.flush(timeout=FLUSH_TIMEOUT_S)
        return subs

    def _stop_listening(self, table_id: str) -> None:
        """The last watcher of ``table_id`` here left: its subscriptions go."""
        task = self._listening.pop(table_id, None)
        if task is None:
            return

        async def unsubscribe() -> None:
            for sub in await task:
                with contextlib.suppress(Exception):
                    await sub.unsubscribe()

        self.spawn(unsubscribe())

    def _reconnects(self) -> int:
        stats = getattr(self.nc, "stats", None) or {}
        return int(stats.get("reconnects", 0))

    async def follow(self, t: Supervised) -> None:
        """The hub's follower (run it supervised): once NATS is back after an outage,
        read every watch's streams from the log again (module docstring). A watch whose
        read fails (PostgreSQL away) reads again by itself (:meth:`resync`)."""
        while not t.stopping.is_set():
            reconnects = self._reconnects()
            if reconnects != self._resynced_reconnects and self.nc.is_connected:
                log.info("NATS reconnected: reading every watched table from the log")
                for conn in list(self.connections.values()):
                    for w in list(conn.watches.values()):
                        if conn.watches.get(w.table_id) is w:
                            await self.resync(conn, w)
                self._resynced_reconnects = reconnects
            t.beat()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(t.stopping.wait(), FOLLOW_INTERVAL_S)

    async def presence(self, t: Supervised) -> None:
        """The presence heartbeat (run it supervised): every table watched here by a
        seated player announced again every ``presence_seconds``."""
        while not t.stopping.is_set():
            for table_id in list(self._by_table):
                await self.announce(table_id, idle=False)
            t.beat()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(t.stopping.wait(), self.presence_seconds)

    def seated_players(self, table_id: str) -> list[str]:
        """The players watching ``table_id`` here from a seat of it."""
        return sorted({c.player for c, w in self._by_table.get(table_id, ()) if w.seat is not None})

    async def announce(self, table_id: str, *, idle: bool = True, joined: bool = False) -> None:
        """Tell the table's owner who watches it here: the players from a seat, and how
        many sockets (NATS being away, the next heartbeat tells it). ``idle``: say it even
        when nobody watches (the last one left); the heartbeat says nothing of a table
        nobody watches here."""
        watchers = len(self._by_table.get(table_id, ()))
        if not watchers and not idle:
            return
        body = {
            "gateway": self.gateway_id,
            "players": self.seated_players(table_id),
            "watchers": watchers,
            "ttl_ms": int(self.presence_seconds * PRESENCE_HEARTBEATS * 1000),
        }
        if joined:  # a socket started watching: the owner pushes the table now
            body["joined"] = True
        with contextlib.suppress(Exception):
            await self.nc.publish(f"{self.prefix}.table.{table_id}.presence", orjson.dumps(body))

    async def _announce_later(self, table_ids: list[str]) -> None:
        await asyncio.sleep(LEAVE_DELAY_S)
        for table_id in table_ids:
            await self.announce(table_id)

    async def stop(self) -> None:
        for table_id in list(self._listening):
            self._stop_listening(table_id)
        for sub in self._subs:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

        async def shut(conn: Connection) -> None:
            await conn.ws.close(code=1001, message=b"server shutting down")
            await conn.close()

        # All at once: one after the other, thousands of sockets (each waiting for its
        # client's close frame) would outlast BELOT_SHUTDOWN_TIMEOUT.
        await asyncio.gather(
            *(shut(c) for c in list(self.connections.values())), return_exceptions=True
        )

    def encoded_event(self, table_id: str, e: RecordedEvent, replay: bool) -> bytes:
        """The ``{"type": "event"}`` message of ``e``, as every watcher that may see it
        receives it: encoded once for all of them, as they are sent one after the other
        (an event's watchers all follow the same table)."""
        last = self._encoded
        if last is not None and last[0] is e and last[1] == table_id and last[2] == replay:
            return last[3]
        message = {
            "type": "event",
            "table": table_id,
            "stream": e.stream_id,
            "version": e.version,
            "event": e.type,
            "payload": e.payload,
            "visibility": e.visibility,
            "acted_by": e.metadata.get("acted_by"),
            "bot_level": e.metadata.get("bot_level"),
        }
        if replay:
            message["replay"] = True
        data = orjson.dumps(message)
        self._encoded = (e, table_id, replay, data)
        return data

    # ------------------------------------------------------------------ connections

    async def connect(self, ws: web.WebSocketResponse, player: str) -> Connection | None:
        """One WebSocket per player: a new one replaces the old. None: refused, the
        gateway being full (closed with :data:`FULL`; the module docstring)."""
        old = self.connections.get(player)
        if old is None and len(self.connections) >= self.max_sockets:
            metrics.WEBSOCKETS_REFUSED.inc()
            await ws.close(code=FULL, message=FULL_REASON)
            return None
        if old is not None:
            self.disconnect(old)
            await old.ws.close(code=4000, message=b"replaced by a newer connection")
            await old.close()
        conn = Connection(self, ws, player)
        self.connections[player] = conn
        metrics.WEBSOCKETS.inc()
        return conn

    def disconnect(self, conn: Connection) -> None:
        if self.connections.get(conn.player) is conn:
            del self.connections[conn.player]
            metrics.WEBSOCKETS.dec()
        left = [w.table_id for w in conn.watches.values()]
        for w in list(conn.watches.values()):
            self._unindex(conn, w)
        conn.watches.clear()
        if left:
            self.spawn(self._announce_later(left))

    def _unindex(self, conn: Connection, w: Watch) -> None:
        for s in w.streams:
            self._by_stream[s].discard((conn, w))
            if not self._by_stream[s]:
                del self._by_stream[s]
        self._by_table[w.table_id].discard((conn, w))
        if not self._by_table[w.table_id]:
            del self._by_table[w.table_id]
            self._stop_listening(w.table_id)

    async def watch(self, conn: Connection, table_id: str, match_id: str, seat: int | None) -> None:
        if table_id in conn.watches:
            return
        names = (
            streams.table_stream(table_id),
            streams.match_stream(match_id),
            streams.randomness_stream(match_id),
        )
        w = Watch(table_id, match_id, seat, names)
        conn.watches[table_id] = w
        for s in names:
            self._by_stream[s].add((conn, w))
        self._by_table[table_id].add((conn, w))
        conn.send({"type": "watching", "table": table_id, "match_id": match_id, "seat": seat})
        try:
            await self.listen(w)
        except BaseException:
            self.unwatch(conn, table_id)  # NATS away: the client asks again
            raise
        if conn.watches.get(table_id) is not w:
            return  # stopped watching meanwhile
        await self.resync(conn, w)
        await self.announce(table_id, joined=True)  # the owner pushes the table to it

    def unwatch(self, conn: Connection, table_id: str) -> None:
        w = conn.watches.pop(table_id, None)
        if w is not None:
            self._unindex(conn, w)
            self.spawn(self._announce_later([table_id]))

    async def resync(self, conn: Connection, w: Watch) -> None:
        """Read from the log what ``w`` has not handled yet, then go live. A read that
        fails (PostgreSQL away) is tried again, after a pause that doubles up to
        :data:`RESYNC_RETRY_MAX_S`, for as long as the watch lasts: meanwhile its live
        events wait in its buffer (and are read from the log anyway). It had waited for
        NATS's next reconnection (:meth:`follow`), which may never come."""
        try:
            await self._resync(conn, w)
        except Exception:
            log.warning("reading %s from the log failed: trying again", w.table_id, exc_info=True)
            self.spawn(self._resync_later(conn, w))

    async def _resync_later(self, conn: Connection, w: Watch) -> None:
        pause = RESYNC_RETRY_S
        while conn.watches.get(w.table_id) is w and not conn.ws.closed:
            await asyncio.sleep(pause)
            if w.ready or conn.watches.get(w.table_id) is not w:
                return  # another read (the follower's, a gap's) has caught it up
            try:
                await self._resync(conn, w)
                return
            except Exception:
                pause = min(pause * 2, RESYNC_RETRY_MAX_S)

    async def _resync(self, conn: Connection, w: Watch) -> None:
        w.ready = False
        # Received before the reads below: committed before them, so once they are done
        # any version under one of these that they did not return is hidden from us.
        settled, w.buffer = w.buffer, []
        for stream in w.streams:
            events = await self.store.read_stream(stream, w.last.get(stream, 0) + 1)
            for e in events:
                if e.version <= w.last.get(stream, 0):
                    continue  # an overlapping read (another resync) took it already
                w.last[stream] = e.version
                conn._forward(w, e, replay=True)
        for held in sorted(settled, key=lambda x: x.position):
            if held.version > w.last.get(held.stream_id, 0):
                conn._take(w, held)
        pending, w.buffer = w.buffer, []
        w.ready = True
        for held in sorted(pending, key=lambda x: x.position):
            conn.deliver(w, held)
        await self.send_chat_history(conn, w)

    async def send_chat_history(self, conn: Connection, w: Watch) -> None:
        """What players wrote at the table, to a watcher seated there (none else)."""
        if w.seat is None or self.chat_history is None:
            return
        try:
            lines = await self.chat_history(w.table_id)
        except Exception:
            # The chat must not stop the table's own feed: the history comes again
            # with the next watch or resync.
            log.warning("the chat history of %s could not be read", w.table_id, exc_info=True)
            return
        for line in lines:
            if w.seat is None or conn.watches.get(w.table_id) is not w:
                return  # left the seat, or stopped watching, meanwhile
            conn.send_chat(w, line)

    # ------------------------------------------------------------------ NATS

    async def _on_event(self, msg: Msg) -> None:
        event: Live
        try:
            d = orjson.loads(msg.data)
            if not _relays(msg.headers or {}, d):
                log.warning("a message on %s that is not the relay's: ignored", msg.subject)
                return
            if d.get("withheld") is True:
                event = Withheld(d["position"], d["stream"], d["version"], d["type"])
            else:
                event = RecordedEvent.from_json_dict(d)  # no hash: the relay sends none
        except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
            log.warning("an event message that is not an envelope on %s", msg.subject)
            return
        for conn, w in list(self._by_stream.get(event.stream_id, ())):
            conn.deliver(w, event)

    async def _on_state(self, msg: Msg) -> None:
        """The owner's public push: the spectators' reply to the watchers not seated (a
        newer version only), the notice alone to the seated ones, whose own reply comes
        on their seat's subject."""
        try:
            state = orjson.loads(msg.data)
            table_id, version = state["table_id"], state["version"]
            if type(version) is not int:
                raise TypeError("no version")
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return
        reply = state.pop("reply", None)
        notice = orjson.dumps({"type": "state", "table": table_id, **state})
        view = None
        for conn, w in list(self._by_table.get(table_id, ())):
            if w.seat is not None or not isinstance(reply, dict):
                conn.send_encoded(notice)
            elif version > w.pushed:
                w.pushed = version
                if view is None:
                    view = orjson.dumps(_view(state["since"], reply))
                conn.send_encoded(view)

    async def _on_seat(self, msg: Msg) -> None:
        """A seat's own reply: to its player's watch from that seat, a newer version only."""
        try:
            d = orjson.loads(msg.data)
            table_id, seat, player, version = d["table_id"], d["seat"], d["player"], d["version"]
            if type(version) is not int or not isinstance(d["reply"], dict):
                raise TypeError("no version or reply")
        except (orjson.JSONDecodeError, KeyError, TypeError):
            log.warning("a seat's view that is not one on %s", msg.subject)
            return
        for conn, w in list(self._by_table.get(table_id, ())):
            if w.seat == seat and conn.player == player and version > w.pushed:
                w.pushed = version
                conn.send(_view(d.get("since"), d["reply"]))

    async def _on_chat(self, msg: Msg) -> None:
        """A message a player wrote (stored by this gateway or another): to the watchers
        of its table who are seated there."""
        try:
            d = orjson.loads(msg.data)
            table_id, line = d["table"], d["message"]
            if not isinstance(line, dict) or not isinstance(line.get("id"), str):
                raise TypeError("no message id")
        except (orjson.JSONDecodeError, KeyError, TypeError):
            log.warning("a chat message that is not one on %s", msg.subject)
            return
        for conn, w in list(self._by_table.get(table_id, ())):
            if w.seat is not None and w.ready:
                conn.send_chat(w, line)


def _view(since: Any, reply: dict[str, Any]) -> dict[str, Any]:
    """The ``{"type": "view"}`` message of a reply the table's owner pushed: the reply as
    the GET serves it, whose ``table`` is the table's line (its id is ``table_id`` there;
    an event's or a notice's ``table`` is the id itself)."""
    return {"type": "view", "since": since, **reply}


def _relays(headers: dict[str, str], body: Any) -> bool:
    """Does the message carry the relay's headers, agreeing with its envelope? Anything
    else on the events subjects is not the relay's (:mod:`eventlog.relay`): its position,
    stream and version are what a watcher keys on."""
    return (
        isinstance(body, dict)
        and headers.get(relay.POSITION) == str(body.get("position"))
        and headers.get("Belot-Stream") == body.get("stream")
        and headers.get("Belot-Version") == str(body.get("version"))
    )
