"""The gateway's watchers against a fake log and fake NATS messages: a secret event's stub
moves its stream's version on and is never forwarded, and a log that never returns some
versions (rows the gateway's role may not read) causes neither a resync loop nor a stall."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from belot_platform.supervise import Supervisor
from eventlog import RecordedEvent
from eventlog.relay import event_headers, message_body
from services.gateway.live import Connection, Hub, Watch
from tests.fakenats import FakeNats

TABLE, MATCH = "t1", "m1"
STREAM = f"match-{MATCH}"
#: Reads past this are a resync loop: the fake log stops answering so the test ends.
MAX_READS = 60


@dataclass
class FakeLog:
    """``read_stream`` as a role that may not read secret rows sees it: holes."""

    events: dict[str, list[RecordedEvent]] = field(default_factory=dict)
    hide_secret: bool = True
    reads: int = 0
    failing: int = 0  # reads that fail (the database away) before they work again
    during_read: list[Callable[[], None]] = field(default_factory=list)
    positions: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def add(self, stream: str, type_: str, visibility: str = "public") -> RecordedEvent:
        events = self.events.setdefault(stream, [])
        e = RecordedEvent(
            position=next(self.positions),
            stream_id=stream,
            version=len(events) + 1,
            type=type_,
            payload={"cards": ["7S", "8S", "AS"]} if visibility == "secret" else {"n": 1},
            metadata={},
            visibility=visibility,
            recorded_at=datetime(2026, 1, 2, tzinfo=UTC),
            hash=hashlib.sha256(f"{stream}{len(events)}".encode()).digest(),
        )
        events.append(e)
        return e

    async def read_stream(self, stream: str, from_version: int = 1) -> list[RecordedEvent]:
        self.reads += 1
        if self.failing > 0:
            self.failing -= 1
            raise ConnectionRefusedError("PostgreSQL is away")
        if self.reads > MAX_READS:
            raise AssertionError("resync loop")
        await asyncio.sleep(0)
        found = [
            e
            for e in self.events.get(stream, [])
            if e.version >= from_version and not (self.hide_secret and e.visibility == "secret")
        ]
        # What arrives while the read is under way (after its snapshot).
        hooks, self.during_read = self.during_read, []
        for hook in hooks:
            hook()
        await asyncio.sleep(0)
        return found


class FakeWebSocket:
    closed = False

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(orjson.loads(data))

    async def close(self, **_: Any) -> None:
        self.closed = True


@dataclass
class Rig:
    log: FakeLog
    hub: Hub
    conn: Connection
    ws: FakeWebSocket
    watch: Watch
    arrivals: list[asyncio.Task[None]] = field(default_factory=list)

    def publish(self, e: RecordedEvent) -> None:
        """What the relay would publish for ``e``, as the hub's NATS callback gets it."""
        msg = SimpleNamespace(
            data=orjson.dumps(message_body(e)), subject=f"x.match.{STREAM}",
            headers=event_headers(e),
        )  # fmt: skip
        self.arrivals.append(asyncio.create_task(self.hub._on_event(msg)))  # type: ignore[arg-type]

    async def settle(self) -> None:
        """Until every message is handled, every resync done and every message sent."""
        while pending := [t for t in (*self.arrivals, *self.hub._tasks) if not t.done()]:
            await asyncio.gather(*pending)
        while not self.conn.queue.empty():
            await asyncio.sleep(0)
        await asyncio.sleep(0)

    def events(self) -> list[tuple[str, int, str]]:
        return [
            (m["stream"], m["version"], m["event"]) for m in self.ws.sent if m["type"] == "event"
        ]


async def rig(log: FakeLog, seat: int | None = 0) -> Rig:
    hub = Hub(FakeNats(), log, events_subject="x", prefix="p")  # type: ignore[arg-type]
    ws = FakeWebSocket()
    conn = Connection(hub, ws, "alice")  # type: ignore[arg-type]
    await hub.watch(conn, TABLE, MATCH, seat)
    r = Rig(log, hub, conn, ws, conn.watches[TABLE])
    await r.settle()
    return r


async def close(r: Rig) -> None:
    await r.conn.close()


@pytest.mark.parametrize("hide_secret", [False, True])
async def test_a_stub_moves_the_version_on_and_is_never_forwarded(hide_secret: bool) -> None:
    log = FakeLog(hide_secret=hide_secret)
    log.add(STREAM, "MatchStarted")
    r = await rig(log)
    reads = log.reads
    deal = [
        log.add(STREAM, "DeckSupplied", "secret"),
        log.add(STREAM, "CardsDealt", "seat:0"),
        log.add(STREAM, "CardsDealt", "seat:1"),
        log.add(STREAM, "MatchEnded"),
        # Nothing is hidden once the match has ended, but a stub has nothing to show.
        log.add(STREAM, "DeckSupplied", "secret"),
        log.add(STREAM, "Late"),
    ]
    for e in deal:
        r.publish(e)
        await r.settle()
    assert log.reads == reads, "a stub is not a gap: no resync"
    assert r.watch.last[STREAM] == 7 and r.watch.ready
    assert r.events() == [
        (STREAM, 1, "MatchStarted"),
        (STREAM, 3, "CardsDealt"),
        (STREAM, 5, "MatchEnded"),
        (STREAM, 7, "Late"),
    ]
    assert all(m.get("visibility") != "secret" for m in r.ws.sent)
    await close(r)


async def test_a_lost_stub_whose_event_the_log_hides_does_not_loop_the_resync() -> None:
    """Versions 2 and 3 are secret (the log never returns them); the stub of 2 is lost
    and 3's arrives: one read of the log, then 3 is taken as it stands."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    r = await rig(log)
    reads = log.reads
    log.add(STREAM, "DeckSupplied", "secret")  # its stub is lost
    r.publish(log.add(STREAM, "DeckSupplied", "secret"))
    await r.settle()
    assert log.reads == reads + 3  # one resync: the watch's three streams
    assert r.watch.ready and r.watch.last[STREAM] == 3
    r.publish(log.add(STREAM, "DealStarted"))
    await r.settle()
    assert log.reads == reads + 3
    assert r.events() == [(STREAM, 1, "MatchStarted"), (STREAM, 4, "DealStarted")]
    await close(r)


async def test_a_hole_behind_an_event_that_arrives_during_a_resync_costs_one_more_read() -> None:
    """A public event is lost, the next one's gap starts a resync; while the log is read,
    a secret event's stub is lost and the next stub arrives. That one may follow versions
    committed after the read began, so it is checked by a second read; the hole the
    second read confirms is taken and the watcher goes on live."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    r = await rig(log)
    reads = log.reads
    log.add(STREAM, "Bid")  # lost
    later: list[RecordedEvent] = []

    def arrive() -> None:
        log.add(STREAM, "DeckSupplied", "secret")  # lost
        later.append(log.add(STREAM, "DeckSupplied", "secret"))
        r.publish(later[-1])

    log.during_read.append(arrive)
    r.publish(log.add(STREAM, "Bid"))
    await r.settle()
    assert later, "the second stub arrived during the first resync"
    assert log.reads == reads + 6  # two resyncs, then no more
    assert r.watch.ready and r.watch.last[STREAM] == 5
    r.publish(log.add(STREAM, "DealStarted"))
    await r.settle()
    assert log.reads == reads + 6
    assert r.events() == [
        (STREAM, 1, "MatchStarted"),
        (STREAM, 2, "Bid"),
        (STREAM, 3, "Bid"),
        (STREAM, 6, "DealStarted"),
    ]
    await close(r)


async def test_a_watch_opened_on_a_stream_with_holes_goes_live_after_them() -> None:
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    log.add(STREAM, "DeckSupplied", "secret")
    log.add(STREAM, "CardsDealt", "seat:0")
    log.add(STREAM, "DeckSupplied", "secret")
    r = await rig(log)
    reads = log.reads
    assert r.watch.last[STREAM] == 3  # the last version the log showed
    r.publish(log.add(STREAM, "CardPlayed"))
    await r.settle()
    # Version 5 after 3: a resync, whose read returns 5 and not 4, and goes live.
    assert log.reads == reads + 3
    assert r.events() == [
        (STREAM, 1, "MatchStarted"),
        (STREAM, 3, "CardsDealt"),
        (STREAM, 5, "CardPlayed"),
    ]
    r.publish(log.add(STREAM, "CardPlayed"))
    await r.settle()
    assert log.reads == reads + 3
    assert r.events()[-1] == (STREAM, 6, "CardPlayed")
    await close(r)


async def test_a_secret_event_read_from_the_log_is_never_sent_and_catch_up_is_marked() -> None:
    # A watch opened after the match ended reads the whole stream from the log (the deck
    # included, when the role may read it): the deck is not sent; what the catch-up sends
    # says it is a replay, and what comes live does not.
    log = FakeLog(hide_secret=False)
    log.add(STREAM, "MatchStarted")
    log.add(STREAM, "DeckSupplied", "secret")
    log.add(STREAM, "CardsDealt", "seat:0")
    log.add(STREAM, "MatchEnded")
    r = await rig(log)
    r.publish(log.add(STREAM, "Late"))
    await r.settle()
    sent = [m for m in r.ws.sent if m.get("type") == "event"]
    assert [(m["event"], m.get("replay", False)) for m in sent] == [
        ("MatchStarted", True),
        ("CardsDealt", True),
        ("MatchEnded", True),
        ("Late", False),
    ]
    # The match has ended for this watch: even so, a deck read from the log is not sent.
    assert STREAM in r.watch.opened
    deck = log.events[STREAM][1]
    assert deck.type == "DeckSupplied" and deck.visibility == "secret"
    r.conn._forward(r.watch, deck, replay=True)
    r.conn._forward(r.watch, log.events[STREAM][2], replay=True)  # a seat's cards: sent
    await r.settle()
    assert [m["event"] for m in r.ws.sent if m.get("type") == "event"][-1] == "CardsDealt"
    assert all(m.get("event") != "DeckSupplied" for m in r.ws.sent)
    await close(r)


async def test_a_message_without_the_relays_headers_is_ignored() -> None:
    """Anything on the events subjects that is not the relay's (no position header, or
    headers that disagree with the envelope) is not forwarded and moves no version."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    r = await rig(log)
    forged = log.add(STREAM, "Bid")
    log.events[STREAM].pop()  # never in the log: a forger's
    bare = SimpleNamespace(data=orjson.dumps(message_body(forged)), subject="x", headers=None)
    wrong = {**event_headers(forged), "Belot-Position": str(forged.position + 1)}
    lying = SimpleNamespace(data=orjson.dumps(message_body(forged)), subject="x", headers=wrong)
    for msg in (bare, lying):
        await r.hub._on_event(msg)  # type: ignore[arg-type]
    await r.settle()
    assert r.watch.last[STREAM] == 1
    assert r.events() == [(STREAM, 1, "MatchStarted")]
    await close(r)


async def test_after_nats_reconnects_the_follower_reads_every_watch_again() -> None:
    """Events the relay published while this gateway's NATS connection was down never
    came, and nothing comes after the last of them: once NATS is back, the follower
    reads the watched streams from the log and sends what was missed, once."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    nc = FakeNats()
    hub = Hub(nc, log, events_subject="x", prefix="p")  # type: ignore[arg-type]
    ws = FakeWebSocket()
    conn = Connection(hub, ws, "alice")  # type: ignore[arg-type]
    hub.connections["alice"] = conn
    await hub.watch(conn, TABLE, MATCH, 0)
    r = Rig(log, hub, conn, ws, conn.watches[TABLE])
    await r.settle()
    sup = Supervisor()
    sup.spawn("gateway-follower", hub.follow)
    log.add(STREAM, "MatchEnded")  # published while the gateway was away
    nc.stats["reconnects"] = 1
    while r.watch.last.get(STREAM) != 2:
        await asyncio.sleep(0.01)
    await sup.stop()
    await r.settle()
    assert r.events() == [(STREAM, 1, "MatchStarted"), (STREAM, 2, "MatchEnded")]
    await close(r)


class RecordingWebSocket(FakeWebSocket):
    """Keeps the bytes it was sent, and how it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: list[bytes] = []
        self.close_code: int | None = None

    async def send_bytes(self, data: bytes) -> None:
        self.raw.append(data)
        await super().send_bytes(data)

    async def close(self, **kw: Any) -> None:
        self.close_code = kw.get("code")
        await super().close()


async def test_watchers_of_one_table_each_get_what_their_seat_may_see_encoded_once() -> None:
    """Seats 0 and 1 and a spectator follow one table; a watch opened later catches up.
    An event is encoded once for the watchers it goes to (the same bytes), never for one
    that may not see it, and the catch-up's copy says replay."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    hub = Hub(FakeNats(), log, events_subject="x", prefix="p")  # type: ignore[arg-type]
    sockets = {name: RecordingWebSocket() for name in ("seat0", "seat1", "spectator", "late")}
    conns = {n: Connection(hub, ws, n) for n, ws in sockets.items()}  # type: ignore[arg-type]
    for name, seat in (("seat0", 0), ("seat1", 1), ("spectator", None)):
        await hub.watch(conns[name], TABLE, MATCH, seat)
    r = Rig(log, hub, conns["seat0"], sockets["seat0"], conns["seat0"].watches[TABLE])
    await r.settle()
    for e in (log.add(STREAM, "CardsDealt", "seat:0"), log.add(STREAM, "Bid")):
        r.publish(e)
        await r.settle()
    await hub.watch(conns["late"], TABLE, MATCH, None)
    r.publish(log.add(STREAM, "CardPlayed"))
    await r.settle()
    for c in conns.values():
        while not c.queue.empty():
            await asyncio.sleep(0)

    def got(name: str) -> list[tuple[str, bool]]:
        sent = sockets[name].sent
        return [(m["event"], m.get("replay", False)) for m in sent if m["type"] == "event"]

    assert got("seat0")[1:] == [("CardsDealt", False), ("Bid", False), ("CardPlayed", False)]
    assert got("seat1")[1:] == got("spectator")[1:] == [("Bid", False), ("CardPlayed", False)]
    assert got("late") == [
        ("MatchStarted", True), ("Bid", True), ("CardPlayed", False),
    ]  # fmt: skip
    bid = [
        next(b for b in sockets[n].raw if b'"Bid"' in b) for n in ("seat0", "seat1", "spectator")
    ]
    assert bid[0] is bid[1] is bid[2]  # one encoding for the three
    for c in conns.values():
        await c.close()


async def test_past_max_sockets_a_new_player_is_closed_with_1013_and_a_replacement_is_not() -> None:
    hub = Hub(None, FakeLog(), events_subject="x", prefix="p", max_sockets=1)  # type: ignore[arg-type]
    first, second, again = RecordingWebSocket(), RecordingWebSocket(), RecordingWebSocket()
    alice = await hub.connect(first, "alice")  # type: ignore[arg-type]
    assert alice is not None
    assert await hub.connect(second, "bob") is None  # type: ignore[arg-type]
    assert second.close_code == 1013 and "bob" not in hub.connections
    assert first.close_code is None and hub.connections["alice"] is alice
    newer = await hub.connect(again, "alice")  # type: ignore[arg-type]
    assert newer is not None and first.close_code == 4000 and hub.connections["alice"] is newer
    hub.disconnect(newer)
    await newer.close()


async def test_the_hub_listens_to_the_tables_watched_here_and_to_nothing_else() -> None:
    """A gateway subscribes to a table's streams and its owner's notices with its first
    watcher, once for all of them, before the catch-up read; the last to leave takes the
    subscriptions away. Nothing is subscribed for the tables nobody watches here."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    nc = FakeNats()
    hub = Hub(nc, log, events_subject="x", prefix="p")  # type: ignore[arg-type]
    await hub.start()
    assert set(nc.subscribed) == {"p.chat.*"}
    table_subjects = {
        f"x.table.table-{TABLE}",
        f"x.match.{STREAM}",
        f"x.randomness.randomness-{MATCH}",
        f"p.tables.{TABLE}",
        f"p.seats.{TABLE}.*",
    }
    flushed_before_read: list[int] = []
    read_stream = log.read_stream

    async def read(stream: str, from_version: int = 1) -> list[RecordedEvent]:
        flushed_before_read.append(nc.flushed)
        return await read_stream(stream, from_version)

    log.read_stream = read  # type: ignore[method-assign]
    alice = Connection(hub, FakeWebSocket(), "alice")  # type: ignore[arg-type]
    bob = Connection(hub, FakeWebSocket(), "bob")  # type: ignore[arg-type]
    await asyncio.gather(hub.watch(alice, TABLE, MATCH, None), hub.watch(bob, TABLE, MATCH, None))
    assert set(nc.subscribed) == {"p.chat.*"} | table_subjects
    assert nc.flushed == 1 and min(flushed_before_read) == 1  # subscribed, then read
    hub.unwatch(alice, TABLE)
    await asyncio.gather(*hub._tasks)
    assert set(nc.subscribed) == {"p.chat.*"} | table_subjects  # bob still watches
    hub.disconnect(bob)
    await asyncio.gather(*hub._tasks)
    assert set(nc.subscribed) == {"p.chat.*"}
    await hub.watch(alice, TABLE, MATCH, None)  # watched again: subscribed again
    assert set(nc.subscribed) == {"p.chat.*"} | table_subjects
    await alice.close()
    await bob.close()


async def test_the_owners_pushes_reach_each_watcher_once_in_order_the_hand_its_seat_alone() -> None:
    """A watcher not seated gets the spectators' reply the owner pushed; the seated one
    gets its own seat's reply (its hand) and the public notice without the spectators'
    reply; a version already sent, or older, is not sent again (a failover's new owner
    may publish what the old one did); another player's seat reply never reaches it."""
    log = FakeLog()
    log.add(STREAM, "MatchStarted")
    hub = Hub(FakeNats(), log, events_subject="x", prefix="p")  # type: ignore[arg-type]
    spectator_ws, seated_ws = FakeWebSocket(), FakeWebSocket()
    spectator = Connection(hub, spectator_ws, "sam")  # type: ignore[arg-type]
    seated = Connection(hub, seated_ws, "alice")  # type: ignore[arg-type]
    await hub.watch(spectator, TABLE, MATCH, None)
    await hub.watch(seated, TABLE, MATCH, 0)

    def public(version: int, since: int) -> Any:
        body = {"table_id": TABLE, "version": version, "since": since, "presence": [],
                "reply": {"seat": None, "version": version, "view": {"hand": []}}}  # fmt: skip
        return SimpleNamespace(data=orjson.dumps(body), subject=f"p.tables.{TABLE}")

    def own(seat: int, player: str, version: int, since: int) -> Any:
        body = {"table_id": TABLE, "seat": seat, "player": player, "version": version,
                "since": since, "reply": {"seat": seat, "version": version,
                                          "view": {"hand": [f"hand-of-{player}"]}}}  # fmt: skip
        return SimpleNamespace(data=orjson.dumps(body), subject=f"p.seats.{TABLE}.{seat}")

    for version, since in ((5, 0), (7, 5), (7, 5), (6, 5), (9, 7)):  # a repeat, a stale one
        await hub._on_seat(own(0, "alice", version, since))
        await hub._on_seat(own(1, "bob", version, since))  # bob's hand: not alice's to see
        await hub._on_state(public(version, since))
    await asyncio.gather(spectator.close(), seated.close())

    def views(ws: FakeWebSocket) -> list[tuple[int, Any]]:
        return [(m["version"], m["view"]["hand"]) for m in ws.sent if m["type"] == "view"]

    assert views(spectator_ws) == [(5, []), (7, []), (9, [])]
    assert views(seated_ws) == [(v, ["hand-of-alice"]) for v in (5, 7, 9)]
    states = [m for m in seated_ws.sent if m["type"] == "state"]
    assert [m["version"] for m in states] == [5, 7, 7, 6, 9] and all(
        "reply" not in m for m in states
    )
    assert not [m for m in spectator_ws.sent if m["type"] == "state"]


async def test_a_watch_whose_read_fails_reads_again_until_it_is_caught_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL away as a socket starts watching (or as a gap is read): the watch does
    not wait for NATS's next reconnection to be caught up; it reads again by itself,
    its live events held meanwhile, and sends each event once, in order."""
    monkeypatch.setattr("services.gateway.live.RESYNC_RETRY_S", 0.01)
    log = FakeLog(failing=3)
    log.add(STREAM, "MatchStarted")
    log.add(STREAM, "DealStarted")
    r = await rig(log)  # its first three reads fail; it settles once caught up
    assert log.failing == 0 and r.watch.ready
    r.publish(log.add(STREAM, "CardPlayed"))  # and it is live
    await r.settle()
    assert r.events() == [(STREAM, 1, "MatchStarted"), (STREAM, 2, "DealStarted"),
                          (STREAM, 3, "CardPlayed")]  # fmt: skip
    await close(r)
