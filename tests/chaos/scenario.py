"""An operator's worst week, in one run: tables in play through four outages, one after
the other, and everything the platform did recorded for the checks (tests/chaos/checks.py).

The timeline (each step waits for the one before):

1. wave A of tables (all-bot ones, and one of four scripted players) starts playing;
   PostgreSQL is shut down fast and back 5 s later; meanwhile, and in every outage,
   requests with a NUL or an oversized field go to the gateway;
2. wave B starts playing; messages that are not the relay's are published on the events
   subject; PostgreSQL's postmaster is killed (-9), and back 30 s later;
3. wave C; nats-server gets SIGTERM, back 5 s later;
4. wave D; nats-server gets SIGKILL, back 30 s later;
5. nobody touches anything: every table must close, every socket catch up, the relay
   reach the log's head. What each did within its bound is recorded, then the matches
   are verified through the verify API.

A wave starts each time, so that every outage strikes tables that have just started
playing as well as older ones; and one more all-bot table opens just before each
outage, so that its seed window, drand round and fallback fall into it. Throughout, a
monitor reads the relay service's /readyz, the log's head and the relay's last
position in JetStream twice a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp
import asyncpg
import nats
import orjson
from nats.aio.client import Client
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from tests.chaos.checks import streams_of
from tests.chaos.players import Account, Api, Reply, Watcher, retry_after, sign_up
from tests.chaos.records import MSG_ID, Logged, Message, Sample
from tests.chaos.stack import Outage, Stack, problems_in_logs

#: How long each wait of the run may last before the run records what it has and goes on.
PLAYING_TIMEOUT: Final = 45.0
FINISH_TIMEOUT: Final = 150.0
#: A table with no new event for this long is stuck (a bot or the turn timer acts
#: every few seconds, a deal takes one deck, each within seconds once all is up).
STUCK_S: Final = 30.0
VERIFY_TIMEOUT: Final = 10.0
CATCH_UP_TIMEOUT: Final = 20.0
SAMPLE_EVERY: Final = 0.5
READYZ_TIMEOUT: Final = aiohttp.ClientTimeout(total=1.5)
#: The bots' pace (ms a move) and the targets keep a match in play for a minute or so.
BOT_DELAY_MS: Final = 120
FOREIGN_HEADER: Final = "Chaos-Foreign"
#: Every string the bad requests carry holds this: the log must never hold it.
MARK: Final = "chaosbad"


@dataclass(frozen=True)
class TableSpec:
    ruleset: str
    seats: tuple[str, ...]
    target: int


#: Four waves: two all-bot tables and one with scripted players each (and FRESH).
WAVES: Final = {
    "a": (
        TableSpec("club", ("bot:easy",) * 4, 501),
        TableSpec("gambler", ("bot:medium",) * 2, 401),
        TableSpec("club", ("human",) * 4, 501),
    ),
    "b": (
        TableSpec("classic", ("bot:hard", "bot:easy") * 2, 501),
        TableSpec("french", ("bot:medium",) * 4, 501),
        TableSpec("classic", ("human", "bot:easy") * 2, 501),
    ),
    "c": (
        TableSpec("club", ("bot:medium",) * 4, 501),
        TableSpec("gambler", ("bot:easy",) * 2, 401),
        TableSpec("french", ("human", "bot:medium") * 2, 501),
    ),
    "d": (
        TableSpec("classic", ("bot:easy",) * 4, 401),
        TableSpec("club", ("bot:hard",) * 4, 401),
        TableSpec("gambler", ("human",) * 2, 401),
    ),
}


#: The week: after each wave starts playing, which server goes, how, for how long.
WEEK: Final = (
    ("a", "postgres", "fast shutdown", 5.0),
    ("b", "postgres", "kill -9", 30.0),
    ("c", "nats", "SIGTERM", 5.0),
    ("d", "nats", "SIGKILL", 30.0),
)
#: Opened just before each outage.
FRESH: Final = TableSpec("club", ("bot:easy",) * 4, 301)


@dataclass
class Table:
    wave: str
    spec: TableSpec
    table_id: str
    match_id: str
    players: list[Account]


@dataclass
class BadRequest:
    """A request the gateway (or the verify API) must refuse with a 400 naming ``field``."""

    when: str
    what: str
    field: str
    reply: Reply


@dataclass(repr=False)  # pytest shows a failed test's arguments: keep it one line
class Week:
    """Everything the run recorded, for the checks."""

    stack: Stack
    tables: list[Table] = field(default_factory=list)
    watchers: list[Watcher] = field(default_factory=list)
    outages: list[Outage] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    bad: list[BadRequest] = field(default_factory=list)
    #: The lobby after each batch of bad requests: (when, reply, its lines whose table
    #: the log does not hold).
    lobbies: list[tuple[str, Reply, list[str]]] = field(default_factory=list)
    #: Every answer of the gateway or the verify API that no outage excuses (a 500, a
    #: 503 without Retry-After), as "method path: reply".
    odd_answers: list[str] = field(default_factory=list)
    foreign_sent: int = 0
    #: The log when every table had closed (or the wait ran out), and after the sockets
    #: closed: stream -> its events in version order.
    expected: dict[str, list[Logged]] = field(default_factory=dict)
    recorded: dict[str, list[Logged]] = field(default_factory=dict)
    #: The log's head once the sockets closed: the relay must have published 1..head.
    head: int = 0
    #: The log by position once the stream's messages were read.
    by_position: dict[int, Logged] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    verifications: dict[str, Reply] = field(default_factory=dict)
    #: Events that carry what a bad request sent: (position, stream, type).
    marked: list[tuple[int, str, str]] = field(default_factory=list)
    relay_caught_up: bool = False
    finished_in: float | None = None
    recovered_at: float = 0.0
    log_problems: list[str] = field(default_factory=list)
    restarts: dict[str, list[int]] = field(default_factory=dict)
    timeline: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def __repr__(self) -> str:
        return f"<the chaos run under {self.stack.base}: {len(self.tables)} tables>"

    def note(self, text: str) -> None:
        self.timeline.append(f"{time.monotonic() - self.started:6.1f} s  {text}")

    @property
    def matches(self) -> dict[str, str]:
        return {t.table_id: t.match_id for t in self.tables}


# ---------------------------------------------------------------------- the run


async def worst_week(stack: Stack) -> Week:
    week = Week(stack)
    stop_sockets = asyncio.Event()
    stop_monitor = asyncio.Event()
    async with aiohttp.ClientSession() as http:
        gateway = Api(http, stack.url("gateway"))
        nc = await nats.connect(
            stack.nats_url,
            name="chaos",
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            error_cb=_quiet,  # the outages are the point: no traceback for each
        )
        monitor = asyncio.create_task(_monitor(stack, nc, http, week, stop_monitor))
        socket_tasks: list[asyncio.Task[None]] = []
        try:
            bad_account = await sign_up(gateway, f"{MARK}-sender")
            host = await sign_up(gateway, "bot-host")
            week.note("services up, accounts made")
            for wave, server, how, seconds in WEEK:
                tables = await _open_wave(
                    gateway, http, wave, host, week, socket_tasks, stop_sockets
                )
                await _wait_playing(stack, tables, week)
                if wave == "b":
                    await _send_bad(gateway, bad_account, week, "in play")
                    await _check_lobby(stack, gateway, week, "in play")
                    await _publish_foreign(stack, nc, week)
                # A table opened just before the outage: its seed window, drand round
                # and fallback fall into it.
                fresh = await _open_table(
                    gateway, http, wave, f"{wave}-fresh", FRESH, host, week, socket_tasks,
                    stop_sockets,
                )  # fmt: skip
                await _spectate(
                    gateway, http, wave, [*tables, fresh], week, socket_tasks, stop_sockets
                )
                bad = asyncio.create_task(
                    _send_bad(gateway, bad_account, week, f"{server} {how} away", delay=1.5)
                )
                week.note(f"{server} {how}, {seconds:.0f} s")
                out = await stack.outage(how, server, seconds)
                week.outages.append(out)
                week.note(f"{server} back after {out.up_at - out.down_at:.1f} s")
                await bad
                await _check_lobby(stack, gateway, week, f"after {server} {how}")
            week.recovered_at = time.monotonic()
            await _wait_finished(stack, week)
            await _catch_up(stack, week)
            stop_sockets.set()
            await asyncio.gather(*socket_tasks, return_exceptions=True)
            week.recorded, _, week.head = await _read_log(stack)
            await _wait_relay(stack, nc, week)
            week.messages = await _stream_messages(stack, nc)
            # What the relay's messages are compared with: the log once they are read
            # (positions after ``head`` may be published by then, or not yet).
            _, week.by_position, _ = await _read_log(stack)
            await _verify(http, stack, week)
            week.marked = await _marked(stack, bad_account)
        finally:
            stop_sockets.set()
            stop_monitor.set()
            with contextlib.suppress(Exception):
                await monitor
            for task in socket_tasks:
                task.cancel()
            await asyncio.gather(*socket_tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await nc.close()
            week.odd_answers += gateway.odd
    week.log_problems = problems_in_logs(stack)
    week.restarts = stack.restarts()
    for line in _readiness_figures(week):
        week.note(line)
    feeds = [f for w in week.watchers for f in w.feeds]
    week.note(
        f"{len(week.tables)} tables, log head {week.head}, {len(week.messages)} messages in "
        f"JetStream, {sum(w.moves for w in week.watchers)} moves by players (and "
        f"{sum(w.stale_moves for w in week.watchers)} too late), "
        f"{len(feeds)} socket connections, {sum(len(f.events) for f in feeds)} events sent "
        f"to them, {len(week.samples)} looks at /readyz"
    )
    return week


async def _quiet(_: Exception) -> None:
    pass


async def _open_wave(
    gateway: Api,
    http: aiohttp.ClientSession,
    wave: str,
    host: Account,
    week: Week,
    socket_tasks: list[asyncio.Task[None]],
    stop: asyncio.Event,
) -> list[Table]:
    """Create the wave's tables through the gateway, seat their players, each with a
    socket of its own."""
    tables = [
        await _open_table(gateway, http, wave, f"{wave}{n}", spec, host, week, socket_tasks, stop)
        for n, spec in enumerate(WAVES[wave])
    ]
    week.note(f"wave {wave}: " + ", ".join(f"{t.spec.ruleset} {t.table_id}" for t in tables))
    return tables


async def _open_table(
    gateway: Api,
    http: aiohttp.ClientSession,
    wave: str,
    name: str,
    spec: TableSpec,
    host: Account,
    week: Week,
    socket_tasks: list[asyncio.Task[None]],
    stop: asyncio.Event,
) -> Table:
    humans = [i for i, s in enumerate(spec.seats) if s == "human"]
    players = list(await asyncio.gather(*(sign_up(gateway, f"{name}-seat{i}") for i in humans)))
    options: dict[str, Any] = {
        "ruleset": spec.ruleset,
        "seats": list(spec.seats),
        "target": spec.target,
        "bot_delay_ms": BOT_DELAY_MS,
        "turn_seconds": 5,
        "rated": False,
        "command_id": f"chaos-{name}-{uuid.uuid4().hex[:8]}",
    }
    creator = players[0] if players else host
    if players:
        options["sit"] = humans[0]
    made = await gateway.patiently("POST", "/v1/tables", options, token=creator.token)
    assert made.status == 201, f"harness: creating table {name}: {made}"
    table = Table(wave, spec, made.body["table_id"], made.body["match_id"], players)
    week.tables.append(table)
    # Each socket watches before its seat is taken: it sees the table from the start.
    for p, seat in zip(players, humans, strict=True):
        w = Watcher(http, gateway, p, [table.table_id], {table.table_id: seat})
        week.watchers.append(w)
        socket_tasks.append(asyncio.create_task(w.run(stop), name=f"ws-{p.name}"))
    for p, seat in zip(players[1:], humans[1:], strict=True):
        joined = await gateway.patiently(
            "POST", f"/v1/tables/{table.table_id}/seats/{seat}", {}, token=p.token
        )
        assert joined.status == 200, f"harness: {p.name} taking seat {seat}: {joined}"
    return table


async def _spectate(
    gateway: Api,
    http: aiohttp.ClientSession,
    wave: str,
    tables: list[Table],
    week: Week,
    socket_tasks: list[asyncio.Task[None]],
    stop: asyncio.Event,
) -> None:
    """One more account watching ``tables`` on one socket; returns once the gateway
    has said it watches each (their catch-up from the log is under way)."""
    spectator = Watcher(http, gateway, await sign_up(gateway, f"{wave}-spectator"),
                        [t.table_id for t in tables])  # fmt: skip
    week.watchers.append(spectator)
    socket_tasks.append(asyncio.create_task(spectator.run(stop), name=f"ws-{wave}-spectator"))
    deadline = time.monotonic() + PLAYING_TIMEOUT
    while not spectator.watching >= set(spectator.tables) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


async def _query(stack: Stack, sql: str, *args: Any) -> list[Any]:
    conn = await asyncpg.connect(stack.admin_dsn, timeout=5)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


def _events(stack: Stack) -> str:
    return f'"{stack.settings.pg_schema}".events'


async def _wait_playing(stack: Stack, tables: list[Table], week: Week) -> None:
    """Until a card has been played in each of ``tables``' matches (or the bound)."""
    streams = [f"match-{t.match_id}" for t in tables]
    deadline = time.monotonic() + PLAYING_TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, asyncpg.PostgresError, TimeoutError):
            rows = await _query(
                stack,
                f"SELECT DISTINCT stream_id FROM {_events(stack)} "
                "WHERE stream_id = ANY($1) AND type = 'CardPlayed'",
                streams,
            )
            if len(rows) == len(streams):
                week.note("in play: " + ", ".join(t.table_id for t in tables))
                return
        await asyncio.sleep(0.5)
    week.note(f"not every table in play after {PLAYING_TIMEOUT:.0f} s: going on")


async def _wait_finished(stack: Stack, week: Week) -> None:
    """Until every table has closed; or until each one still open has been still (no
    new event in any of its streams) for :data:`STUCK_S`: stuck, it will not close by
    waiting longer; or :data:`FINISH_TIMEOUT` in all."""
    streams = {
        s: t.table_id
        for t in week.tables
        for s in (f"table-{t.table_id}", f"match-{t.match_id}", f"randomness-{t.match_id}")
    }
    moved: dict[str, tuple[int, float]] = {}  # table -> (its last position, when it changed)
    deadline = time.monotonic() + FINISH_TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, asyncpg.PostgresError, TimeoutError):
            rows = await _query(
                stack,
                f"SELECT stream_id, max(position) AS last, bool_or(type = 'TableClosed') "
                f"AS closed FROM {_events(stack)} WHERE stream_id = ANY($1) GROUP BY stream_id",
                list(streams),
            )
            now = time.monotonic()
            last: dict[str, int] = {}
            closed = set()
            for r in rows:
                table = streams[r["stream_id"]]
                last[table] = max(last.get(table, 0), r["last"])
                if r["closed"]:
                    closed.add(table)
            for table, position in last.items():
                if moved.get(table, (None, 0.0))[0] != position:
                    moved[table] = (position, now)
            open_ = [t.table_id for t in week.tables if t.table_id not in closed]
            if not open_:
                week.finished_in = now - week.recovered_at
                week.note(f"every table closed, {week.finished_in:.1f} s after the last outage")
                return
            if all(now - moved.get(t, (0, now))[1] >= STUCK_S for t in open_):
                week.note(f"tables still for {STUCK_S:.0f} s, not closed: {', '.join(open_)}")
                return
        await asyncio.sleep(1.0)
    week.note(f"not every table closed {FINISH_TIMEOUT:.0f} s after the last outage")


async def _read_log(stack: Stack) -> tuple[dict[str, list[Logged]], dict[int, Logged], int]:
    rows = await _query(
        stack,
        f"SELECT position, stream_id, version, type, visibility FROM {_events(stack)} "
        "ORDER BY position",
    )
    by_stream: dict[str, list[Logged]] = {}
    by_position: dict[int, Logged] = {}
    for r in rows:
        e = Logged(r["position"], r["stream_id"], r["version"], r["type"], r["visibility"])
        by_stream.setdefault(e.stream, []).append(e)
        by_position[e.position] = e
    for events in by_stream.values():
        events.sort(key=lambda e: e.version)
    head = (await _query(stack, f'SELECT position FROM "{stack.settings.pg_schema}".log_head'))[0]
    return by_stream, by_position, int(head["position"])


async def _catch_up(stack: Stack, week: Week) -> None:
    """Take the log as it is now, and give the sockets a bounded while to have all of
    it: a socket still short at the end has lost what it lacks."""
    week.expected, _, _ = await _read_log(stack)
    deadline = time.monotonic() + CATCH_UP_TIMEOUT
    want = {
        s: {e.version for e in events if e.visibility == "public"}
        for s, events in week.expected.items()
    }
    while time.monotonic() < deadline:
        short = 0
        for w in week.watchers:
            feed = w.feeds[-1] if w.feeds else None
            if feed is None:
                short += 1
                continue
            got: dict[str, set[int]] = {}
            for g in feed.events:
                got.setdefault(g.stream, set()).add(g.version)
            for table in feed.tables:
                for s in streams_of(table, week.matches[table]):
                    if not want.get(s, set()) <= got.get(s, set()):
                        short += 1
        if not short:
            week.note("every socket has every public event of its tables")
            return
        await asyncio.sleep(0.5)
    week.note(f"sockets still short after {CATCH_UP_TIMEOUT:.0f} s")


# ---------------------------------------------------------------------- the relay


async def _last_relayed(nc: Client, stream: str) -> int:
    """The position in the relay's last message (skipping others' messages)."""
    js = nc.jetstream()
    info = await js.stream_info(stream)
    seq = info.state.last_seq
    while seq >= max(1, info.state.first_seq):
        msg = await js.get_msg(stream, seq=seq)
        m = Message(seq, msg.subject or "", dict(msg.headers or {}))
        if m.is_relays and m.position is not None:
            return m.position
        seq -= 1
    return 0


async def _wait_relay(stack: Stack, nc: Client, week: Week) -> None:
    deadline = time.monotonic() + CATCH_UP_TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if await _last_relayed(nc, stack.settings.events_stream) >= week.head:
                week.relay_caught_up = True
                return
        await asyncio.sleep(0.5)
    week.note(f"the relay had not reached the head ({week.head}) {CATCH_UP_TIMEOUT:.0f} s on")


async def _stream_messages(stack: Stack, nc: Client) -> list[Message]:
    """Every message of the events stream: sequence, subject, headers (bodies not read)."""
    js = nc.jetstream()
    stream = stack.settings.events_stream
    last = (await js.stream_info(stream)).state.last_seq
    sub = await js.pull_subscribe(
        f"{stack.settings.events_subject}.>",
        stream=stream,
        config=ConsumerConfig(
            deliver_policy=DeliverPolicy.ALL,
            ack_policy=AckPolicy.NONE,
            headers_only=True,
            inactive_threshold=30,
        ),
    )
    out: list[Message] = []
    try:
        while not out or out[-1].seq < last:
            try:
                batch = await sub.fetch(1000, timeout=5)
            except TimeoutError:
                break
            for m in batch:
                out.append(Message(m.metadata.sequence.stream, m.subject, dict(m.headers or {})))
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()
    return out


async def _publish_foreign(stack: Stack, nc: Client, week: Week) -> None:
    """Publish on the relay's subjects as someone else might: no headers, other headers,
    a message id that is a number (a position the log will reach soon), and a plain
    NATS publish the stream captures too."""
    js = nc.jetstream()
    subject = stack.settings.events_subject
    head = (await _read_log(stack))[2]
    sent = [
        (f"{subject}.match.match-chaos-foreign", b"not an event", {FOREIGN_HEADER: "1"}),
        (f"{subject}.table.table-chaos-foreign", orjson.dumps({"chaos": True}),
         {FOREIGN_HEADER: "2", MSG_ID: "chaos-foreign-2"}),
        (f"{subject}.chaos.x", b"{}", {FOREIGN_HEADER: "3", MSG_ID: str(head + 40)}),
    ]  # fmt: skip
    for subj, body, headers in sent:
        await js.publish(subj, body, headers=headers)
    await nc.publish(f"{subject}.randomness.chaos-foreign", b"core", headers={FOREIGN_HEADER: "4"})
    await nc.flush()
    week.foreign_sent = len(sent) + 1
    week.note(f"{week.foreign_sent} foreign messages published on {subject}.> (log head {head})")


def foreign_sequences(messages: list[Message]) -> list[int]:
    return [m.seq for m in messages if FOREIGN_HEADER in m.headers]


# ---------------------------------------------------------------------- the monitor


async def _monitor(
    stack: Stack, nc: Client, http: aiohttp.ClientSession, week: Week, stop: asyncio.Event
) -> None:
    """Twice a second, all at once: the relay service's /readyz (the outbox relay runs
    there, not in the table workers), the log's head, the relay's last position (each
    None when its server does not answer)."""
    pg = _Head(stack)
    workers = [(c.name, c.port) for c in stack.supervisor.children if c.name == "relay"]
    assert workers, "harness: no relay process"
    stream = stack.settings.events_stream
    try:
        while not stop.is_set():
            at = time.monotonic()
            head, relayed, *looks = await asyncio.gather(
                pg.read(),
                _relayed_or_none(nc, stream),
                *(_ready(http, name, port) for name, port in workers),
            )
            week.samples.extend(
                Sample(at, done, name, status, body, head, relayed)
                for name, status, body, done in looks
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.05, at + SAMPLE_EVERY - time.monotonic()))
    finally:
        pg.close()


class _Head:
    """The log's head position, on one connection of the superuser's, made again after
    an outage."""

    def __init__(self, stack: Stack) -> None:
        self.dsn = stack.admin_dsn
        self.sql = f'SELECT position FROM "{stack.settings.pg_schema}".log_head'
        self.conn: Any = None

    async def read(self) -> int | None:
        try:
            if self.conn is None:
                self.conn = await asyncpg.connect(self.dsn, timeout=1)
            return int(await self.conn.fetchval(self.sql, timeout=1))
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
            self.close()
            return None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.terminate()
        self.conn = None


async def _relayed_or_none(nc: Client, stream: str) -> int | None:
    try:
        return await asyncio.wait_for(_last_relayed(nc, stream), 1)
    except Exception:  # NATS away, or the stream not there yet: unknown, not a failure
        return None


def _readiness_figures(week: Week) -> list[str]:
    """For each outage: how soon after the server went each table worker said it was
    not ready, and how soon after it came back all of them were ready again."""
    lines = []
    workers = sorted({s.worker for s in week.samples})
    for o in week.outages:
        went = []
        for w in workers:
            first = next((s for s in week.samples if s.worker == w and s.at >= o.down_at
                          and s.status != 200), None)  # fmt: skip
            went.append(f"{w} {first.done - o.down_at:.1f} s" if first else f"{w} never")
        back = next(
            (
                at for at in sorted({s.at for s in week.samples if s.at >= o.up_at})
                if all(s.status == 200 for s in week.samples if s.at == at)
            ),
            None,
        )  # fmt: skip
        ready = f"{back - o.up_at:.1f} s after it came back" if back is not None else "never"
        lines.append(f"{o.name}: not ready after {', '.join(went)}; all ready {ready}")
    return lines


async def _ready(
    http: aiohttp.ClientSession, name: str, port: int | None
) -> tuple[str, int, str, float]:
    """(worker, status or 0 if no answer, body, when the answer came)."""
    try:
        async with http.get(f"http://127.0.0.1:{port}/readyz", timeout=READYZ_TIMEOUT) as r:
            return name, r.status, await r.text(), time.monotonic()
    except (aiohttp.ClientError, TimeoutError) as exc:
        return name, 0, type(exc).__name__, time.monotonic()


# ---------------------------------------------------------------------- bad requests


async def _send_bad(
    gateway: Api, sender: Account, week: Week, when: str, *, delay: float = 0.0
) -> None:
    """Strings PostgreSQL would refuse (a NUL) or that no field may be (too long), in
    each place a client sends one; each must get a 400 naming its field."""
    await asyncio.sleep(delay)
    table = week.tables[-1].table_id if week.tables else "none"
    tag = uuid.uuid4().hex[:6]
    long = MARK * 30_000
    bot_seats = ["bot:easy"] * 4
    cases: list[tuple[str, str, str, dict[str, Any]]] = [
        ("sign-up with a NUL in the name", "/v1/accounts", "name",
         {"name": f"{MARK}\x00{tag}", "password": "correct horse battery"}),
        ("sign-up with an oversized password", "/v1/accounts", "password",
         {"name": f"{MARK}{tag}", "password": long}),
        ("log-in with an oversized name", "/v1/sessions", "name",
         {"name": long, "password": "correct horse battery"}),
        ("a table whose command id holds a NUL", "/v1/tables", "command_id",
         {"ruleset": "club", "seats": bot_seats, "command_id": f"{MARK}\x00{tag}"}),
        ("a table with an oversized command id", "/v1/tables", "command_id",
         {"ruleset": "club", "seats": bot_seats, "command_id": f"{MARK}{tag}" + "x" * 200}),
        ("a table with a NUL in a key", "/v1/tables", "key",
         {"ruleset": "club", "seats": bot_seats, f"{MARK}\x00": 1}),
        ("a seed holding a NUL", f"/v1/tables/{table}/seed", "seed",
         {"seed": f"{MARK}\x00"}),
        ("a card holding a NUL", f"/v1/tables/{table}/play", "card",
         {"card": "A\x00S", "command_id": f"{MARK}{tag}"}),
        ("a seat taken with an oversized command id", f"/v1/tables/{table}/seats/0",
         "command_id", {"command_id": long}),
    ]  # fmt: skip
    if when == "in play":
        # Checked by the table service itself (the gateway forwards seats): only asked
        # while it can answer.
        cases += [
            ("a table whose reserved seat names an oversized player", "/v1/tables",
             "seats[0].player", {"ruleset": "club", "seats": [
                 {"kind": "human", "player": long}, "bot", "bot", "bot"]}),
            ("a table with an oversized ruleset", "/v1/tables", "ruleset",
             {"ruleset": long, "seats": bot_seats}),
        ]  # fmt: skip
    for what, path, name, body in cases:
        reply = await gateway.call("POST", path, body, token=sender.token)
        week.bad.append(BadRequest(when, what, name, reply))


async def _check_lobby(stack: Stack, gateway: Api, week: Week, when: str) -> None:
    """The lobby answers, and lists no table the log does not hold (a line written for
    a creation that failed)."""
    reply = await gateway.patiently("GET", "/v1/lobby")
    ids = [t.get("table_id") for t in reply.body.get("tables", [])] if reply.status == 200 else []
    rows = await _query(
        stack,
        f"SELECT stream_id FROM {_events(stack)} WHERE type = 'TableOpened' "
        "AND stream_id = ANY($1)",
        [f"table-{i}" for i in ids],
    )
    held = {r["stream_id"] for r in rows}
    week.lobbies.append((when, reply, [i for i in ids if f"table-{i}" not in held]))


async def _marked(stack: Stack, sender: Account) -> list[tuple[int, str, str]]:
    """Events that hold what a bad request carried, or name its sender."""
    rows = await _query(
        stack,
        f"SELECT position, stream_id, type FROM {_events(stack)} "
        "WHERE payload::text LIKE $1 OR metadata::text LIKE $1 OR stream_id LIKE $1 "
        "OR command_id LIKE $1 OR payload::text LIKE $2",
        f"%{MARK}%",
        f"%{sender.player}%",
    )
    return [(r["position"], r["stream_id"], r["type"]) for r in rows]


# ---------------------------------------------------------------------- verification


async def _verify(http: aiohttp.ClientSession, stack: Stack, week: Week) -> None:
    """Each match's verification from the verify API (the same verifier as ``belot
    verify``), asked again while it says "not yet" (429 and 503 after their
    Retry-After; 404 and 409 while its feed or the reveal may still be on the way),
    each within a bound."""
    api = Api(http, stack.url("verify"))
    overall = time.monotonic() + 3 * VERIFY_TIMEOUT
    for t in week.tables:
        closed = any(e.type == "TableClosed" for e in week.recorded.get(f"table-{t.table_id}", []))
        # A table still open is asked once: its match is not ended, and will not be.
        deadline = min(overall, time.monotonic() + (VERIFY_TIMEOUT if closed else 0.0))
        while True:
            reply = await api.call("GET", f"/v1/matches/{t.match_id}/verification")
            if reply.status not in (0, 404, 409, 429, 503) or time.monotonic() > deadline:
                break
            await asyncio.sleep(retry_after(reply))
        week.verifications[t.match_id] = reply
    week.odd_answers += api.odd
