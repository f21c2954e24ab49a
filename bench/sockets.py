"""WebSocket fan-out on one gateway: N sockets following tables.

What runs. PostgreSQL and NATS (BELOT_PG_DSN and BELOT_NATS_URL, else the embedded
servers in a temporary directory); a table worker, the outbox relay and one gateway as
``belot serve table|relay|gateway`` processes on a schema, JetStream stream and subject
prefix of the run's own; the randomness service in this process (a local relay of
recorded drand beacons on a virtual clock, as bench/tables.py and the tests run it).
Tables (club, target 10,000 so that no match ends during the run, unrated): one per
``--per-table`` sockets, of four easy bots playing every ``--bot-delay-ms`` (by default
the demo's, ``commands.demo.BOT_DELAY_MS``: about what a person takes), and
``--player-tables`` of two human seats and two bots whose humans are driven by the
bench: each of those players sits down through the gateway's HTTP API, sends its seed
when the fair deal opens and, on each ``view`` its socket receives that says it is its
turn, plays what the easy
bot would choose from that view (POST /v1/tables/{id}/<move>): players' sockets that
receive their seat's own events, moved by the bench fast enough never to block play (a
turn timer of 10 s plays for a player that would be late).

The sockets. N = the player sockets plus spectators spread evenly over all the tables,
one account each (tokens the bench signs with the gateway's BELOT_TOKEN_SECRET: making
N accounts through argon2 would cost minutes and measure nothing of the fan-out).
They are opened from ``--clients`` processes of the bench's own (aiohttp, one event
loop each, so the clients do not starve on one loop; each asks permessage-deflate, as
browsers do), each socket sending ``{"op": "watch"}`` for its table. They are opened
table by table, each table created just before its watchers arrive, so that a catch-up
reads a few seconds of its table: a spectator who arrives late in a long match makes the
gateway send the match so far, a cost of its own that would otherwise swamp the
fan-out's (the tables' target is never reached). A socket is caught up once it has
received an event forwarded live (not marked ``replay``).

The delay. From an event's append to its arrival: the event's ``recorded_at`` in the
log (the writer's wall clock, taken as its batch is written, so the commit, the relay's
pick-up and publish, NATS, the gateway and the WebSocket all count) to the wall clock in
the client process when ``receive()`` hands it the message. One machine, one clock:
``time.time()`` in every process. ``recorded_at`` rather than the relay's publish time
because the players see the whole path, and the relay's part is not the gateway's to
hide. Only events forwarded live count (a catch-up's ``replay`` ones are old), each
(socket, event) once; the log is read after the run for the ``recorded_at`` of every
event received. p50 and p99 are over every such delivery in the window.

A seat's own view. The table's owner pushes each seat its view after each append (the
one producer of what a player sees); a player's socket receives it as ``{"type":
"view"}`` and plays from it when it is its turn. Its delay: from the ``recorded_at`` of
the match's event at the view's ``match_version`` (the append it shows) to its arrival,
the first arrival of each match version at each player's socket. Target: p99 at most
``TARGET_VIEW_P99_MS`` at ``TARGET_SOCKETS`` sockets.

The memory. The gateway's RSS (``/proc/<pid>/status`` VmRSS) started, before any
table or socket, then with the N sockets caught up and 2 s later: the difference
divided by N. Python keeps what it allocated, so this includes what the catch-ups
allocated and did not give back: a bound above.

Where the time goes. Each window also gives the delay from the append to the event's
message on NATS as this process sees it (the relay's part) and from there to the
client (the gateway's and the WebSocket's), the gateway's CPU (``/proc/<pid>/stat``),
and the share of the time the gateway and a client process were runnable but waiting
for a CPU (``/proc/<pid>/task/*/schedstat``): on a machine shared with other work, that
wait, not the gateway's own work, is what makes the tail.

Past the limit. The gateway runs with BELOT_GATEWAY_MAX_SOCKETS = N. After window A
(``--window`` s of the N sockets alone), window B of the same length during which a
process of its own opens ``--extra`` more sockets at once and opens each again after
it is closed, as the web client does (0.5 s, then twice as long each time, at most
10 s): every one must be closed with 1013, no
socket of the N closed, every one of them must receive events during B, and B's p99
must not be worse than A's by more than the noise allowed between two windows
(:data:`WORSE_BY`, ``WORSE_MS``).

The process's open-files limit (``resource.setrlimit``, RLIMIT_NOFILE) is raised to its
hard limit here; the client and service processes inherit it (the gateway raises its own
to hold its setting as well).

    python bench/sockets.py [--sizes 1000,5000] [--window 20] [--write]

Prints a table with the target (p99 <= 100 ms at 1,000 sockets) and exits 1 when a
target or a check is missed. ``--write``, or a run at the default sizes and window,
writes docs/bench/sockets.md. :func:`fanout` runs one size and returns its figures (for
other benches).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import os
import random
import resource
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))

import aiohttp
import orjson

from bench import kit
from commands.demo import BOT_DELAY_MS
from table.views import seat_to_move

DOC: Final = ROOT / "docs" / "bench" / "sockets.md"
SIZES: Final = (1000, 5000)
WINDOW_S: Final = 20.0
#: The target: delivery p99 at this many sockets on one gateway, on this machine.
TARGET_SOCKETS: Final = 1000
TARGET_P99_MS: Final = 100.0
#: A seat's own view at its socket, from the append it shows (issue 32).
TARGET_VIEW_P99_MS: Final = 50.0
#: Window B (refusals going on) may have a p99 this much above window A's and no more:
#: the noise between two windows on a shared 2-core machine.
WORSE_BY: Final = 1.5
WORSE_MS: Final = 10.0
#: The close code of a socket refused past the limit (services.gateway.live.FULL).
FULL: Final = 1013
#: A refused socket's retries, as the web client makes them (web/js/api.js): this long
#: after the first refusal, twice as long after each next one, at most RETRY_MAX_S.
RETRY_FIRST_S: Final = 0.5
RETRY_MAX_S: Final = 10.0
#: Seconds the clients go on recording after a window: an event appended in the window
#: and delivered later than this is missed (the max column would show it near).
MARGIN_S: Final = 3.0
#: Seconds a socket may take to be caught up, and a refused one to be answered.
CATCH_UP_S: Final = 180.0
#: ... and this much longer for each socket (the later ones catch up on longer streams).
CATCH_UP_PER_SOCKET_S: Final = 0.1
ANSWER_S: Final = 10.0
#: Seconds a socket may wait for its "watching" (the gateway busy with catch-ups).
WATCHING_S: Final = 120.0


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return int(soft)


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def waited(pids: list[int]) -> float:
    """Seconds these processes' threads have waited for a CPU while runnable
    (/proc/<pid>/task/*/schedstat): what a busy machine costs them."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                total += int((task / "schedstat").read_text(encoding="utf-8").split()[1])
    return total / 1e9


def quantile(sorted_values: list[float], q: float) -> float:
    """The q-quantile, interpolated between the two nearest ranks."""
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


# ---------------------------------------------------------------------- client side


def move_request(view_json: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """What the easy bot would do from this seat view: the gateway route and body."""
    from belot import Bid, DeclareMelds, DemandRedeal, PlayCard, SwapTrumpSeven
    from belot.bots import choose
    from belot.cards import to_code
    from table.views import view_from_json

    command = choose(view_from_json(view_json), rng, "easy")
    if isinstance(command, Bid):
        return "bid", {"strain": None if command.strain is None else command.strain.name.lower()}
    if isinstance(command, PlayCard):
        return "play", {"card": to_code(command.card), "belote": command.belote}
    if isinstance(command, DeclareMelds):
        return "announce", {"melds": True}
    if isinstance(command, SwapTrumpSeven):
        return "swap", {}
    if isinstance(command, DemandRedeal):
        return "redeal", {}
    raise ValueError(command)


class Client:
    """One client process: its sockets, what they received, commands on stdin."""

    def __init__(self) -> None:
        self.session: aiohttp.ClientSession | None = None
        self.sockets: list[dict[str, Any]] = []
        self.label: str | None = None
        # label -> role -> (stream, version) -> arrival times
        self.arrivals: dict[str, dict[str, dict[tuple[str, int], list[float]]]] = {}
        self.messages: dict[str, int] = defaultdict(int)
        self.live_sockets: dict[str, set[int]] = defaultdict(set)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.closed_codes: dict[str, int] = defaultdict(int)
        self.numbers = itertools.count()  # each socket's, in this process

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def open_all(
        self, url: str, assigned: list[dict[str, Any]], concurrency: int
    ) -> dict[str, int]:
        limit = asyncio.Semaphore(concurrency)
        outcome: dict[str, int] = defaultdict(int)

        async def one(a: dict[str, Any]) -> None:
            async with limit:
                s = {**a, "n": next(self.numbers), "caught": False, "closed": None}
                s["seed_sent"] = False
                try:
                    assert self.session is not None
                    ws = await self.session.ws_connect(
                        f"{url}/v1/ws",
                        headers={"Authorization": f"Bearer {a['token']}"},
                        compress=15,
                        heartbeat=None,
                        max_msg_size=0,
                    )
                    await ws.send_str(orjson.dumps({"op": "watch", "table": a["table"]}).decode())
                    first = await ws.receive(timeout=WATCHING_S)
                except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                    outcome[f"failed: {type(exc).__name__}"] += 1
                    return
                if first.type is aiohttp.WSMsgType.CLOSE:
                    outcome[f"closed {first.data}"] += 1
                    return
                outcome["watching"] += 1
                s["ws"] = ws
                self.sockets.append(s)
                self.spawn(self.read(s, url))

        await asyncio.gather(*(one(a) for a in assigned))
        return dict(outcome)

    async def read(self, s: dict[str, Any], url: str) -> None:
        ws: aiohttp.ClientWebSocketResponse = s["ws"]
        rng = random.Random(s["token"])
        while True:
            msg = await ws.receive()
            now = time.time()
            if msg.type is not aiohttp.WSMsgType.BINARY and msg.type is not aiohttp.WSMsgType.TEXT:
                s["closed"] = ws.close_code
                self.closed_codes[str(ws.close_code)] += 1
                return
            m = orjson.loads(msg.data)
            label = self.label
            if label is not None:
                self.messages[label] += 1
            kind = m.get("type")
            if kind == "event":
                if not m.get("replay"):
                    s["caught"] = True
                    if label is not None:
                        by_role = self.arrivals[label].setdefault(s["role"], {})
                        by_role.setdefault((m["stream"], m["version"]), []).append(now)
                        self.live_sockets[label].add(s["n"])
                if s["role"] == "player" and m["event"] == "FairDealOpened" and not s["seed_sent"]:
                    s["seed_sent"] = True
                    self.spawn(self.call(url, s, "seed", {"seed": os.urandom(16).hex()}))
            elif kind == "view" and s["role"] == "player" and m.get("view") is not None:
                # The seat's own view, pushed by the table's owner after an append: its
                # delay from the append of the match's event it shows (first arrival of
                # each match version; a table event's push shows the same one again).
                key = (f"match-{m['table']['match_id']}", m["match_version"])
                if label is not None and key not in s.setdefault("views_seen", set()):
                    s["views_seen"].add(key)
                    self.arrivals[label].setdefault("seat view", {}).setdefault(key, []).append(now)
                v = m["view"]
                if seat_to_move(v) and m["version"] > s.get("moved_at", -1):
                    s["moved_at"] = m["version"]
                    verb, body = move_request(v, rng)
                    self.spawn(self.call(url, s, verb, body))

    async def call(self, url: str, s: dict[str, Any], verb: str, body: dict[str, Any]) -> None:
        assert self.session is not None
        with contextlib.suppress(aiohttp.ClientError, TimeoutError):
            async with self.session.post(
                f"{url}/v1/tables/{s['table']}/{verb}",
                json=body,
                headers={"Authorization": f"Bearer {s['token']}"},
            ) as resp:
                await resp.read()  # 409: a stale view (the timer played first), or late

    async def refuse(
        self, url: str, tokens: list[str], until: float, retry_s: float
    ) -> dict[str, int]:
        """Open a socket per token, again after each close, until ``until``: first
        ``retry_s`` later, then twice as long each time up to RETRY_MAX_S (web/js/api.js)."""
        codes: dict[str, int] = defaultdict(int)

        async def one(token: str) -> None:
            assert self.session is not None
            backoff = retry_s
            while time.time() < until:
                try:
                    ws = await self.session.ws_connect(
                        f"{url}/v1/ws", headers={"Authorization": f"Bearer {token}"}, compress=15
                    )
                    msg = await ws.receive(timeout=ANSWER_S)
                    if msg.type is aiohttp.WSMsgType.CLOSE:
                        codes[str(msg.data)] += 1
                    else:
                        codes["accepted"] += 1
                    await ws.close()
                except (aiohttp.ClientError, TimeoutError, OSError) as exc:
                    codes[f"failed: {type(exc).__name__}"] += 1
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RETRY_MAX_S)

        await asyncio.gather(*(one(t) for t in tokens))
        return dict(codes)

    def status(self) -> dict[str, Any]:
        return {
            "sockets": len(self.sockets),
            "caught": sum(1 for s in self.sockets if s["caught"]),
            "closed": sum(1 for s in self.sockets if s["closed"] is not None),
            "closed_codes": dict(self.closed_codes),
        }

    def collect(self, label: str) -> dict[str, Any]:
        by_role = self.arrivals.pop(label, {})
        return {
            "events": {
                role: [[k[0], k[1], times] for k, times in got.items()]
                for role, got in by_role.items()
            },
            "messages": self.messages.pop(label, 0),
            "live_sockets": len(self.live_sockets.pop(label, set())),
        }

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**30)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        out = sys.stdout.buffer
        connector = aiohttp.TCPConnector(limit=0, force_close=False)
        self.session = aiohttp.ClientSession(connector=connector)

        def reply(d: dict[str, Any]) -> None:
            out.write(orjson.dumps(d) + b"\n")
            out.flush()

        try:
            while line := await reader.readline():
                cmd = orjson.loads(line)
                op = cmd["op"]
                if op == "open":
                    reply(await self.open_all(cmd["url"], cmd["sockets"], cmd["concurrency"]))
                elif op == "status":
                    reply(self.status())
                elif op == "record":
                    self.label = cmd["label"]
                    self.arrivals[self.label] = {}
                    reply({"recording": self.label})
                elif op == "collect":
                    label, self.label = cmd["label"], None
                    reply(self.collect(label))
                elif op == "refuse":
                    reply(
                        await self.refuse(cmd["url"], cmd["tokens"], cmd["until"], cmd["retry_s"])
                    )
                elif op == "quit":
                    break
        finally:
            for s in self.sockets:
                with contextlib.suppress(Exception):
                    await s["ws"].close()
            await self.session.close()


def client_main() -> int:
    raise_fd_limit()
    asyncio.run(Client().serve())
    return 0


class ClientProcess:
    """The bench's side of one client process: commands as JSON lines, one reply each."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, log_path: Path) -> ClientProcess:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(Path(__file__).resolve()),
            "--client",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log_path.open("wb"),
            limit=2**30,
            cwd=ROOT,
        )
        return cls(proc)

    async def ask(self, **cmd: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(orjson.dumps(cmd) + b"\n")
        await self.proc.stdin.drain()
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a client process ended (exit {await self.proc.wait()})")
        return orjson.loads(line)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.write(b'{"op": "quit"}\n')
            await self.proc.stdin.drain()
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


# ---------------------------------------------------------------------- the platform


async def _wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=1)
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"{url} did not answer in {timeout:.0f} s")


def _service(
    name: str, env: dict[str, str], tmp: Path, profile: Path | None = None
) -> subprocess.Popen[bytes]:
    run = ["-m", "cProfile", "-o", str(profile / f"{name}.prof")] if profile else []
    return subprocess.Popen(
        [sys.executable, *run, "-m", "commands.cli", "serve", name],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=(tmp / f"{name}.log").open("wb"),
    )


async def _deliveries(
    pool: Any,
    schema: str,
    collected: list[dict[str, Any]],
    start: float,
    end: float,
    on_nats: dict[tuple[str, int], float],
) -> tuple[dict[str, list[float]], int, int]:
    """Each (socket, event) delivery's delay in ms by role, of the events appended from
    ``start`` to ``end`` (wall clock); under "relay" each event's from its append to
    its message on NATS, under "gateway" each delivery's from there to the client;
    the messages received and the sockets that received a live event."""
    wanted: dict[tuple[str, int], list[tuple[str, list[float]]]] = defaultdict(list)
    messages = live = 0
    for c in collected:
        messages += c["messages"]
        live += c["live_sockets"]
        for role, rows in c["events"].items():
            for stream, version, times in rows:
                wanted[(stream, version)].append((role, times))
    delays: dict[str, list[float]] = defaultdict(list)
    keys = list(wanted)
    for i in range(0, len(keys), 5000):
        chunk = keys[i : i + 5000]
        rows = await pool.fetch(
            f"""SELECT e.stream_id, e.version, e.recorded_at FROM "{schema}".events e
                JOIN unnest($1::text[], $2::int[]) AS k(s, v)
                  ON e.stream_id = k.s AND e.version = k.v""",
            [k[0] for k in chunk],
            [k[1] for k in chunk],
        )
        for r in rows:
            key = (r["stream_id"], r["version"])
            at = r["recorded_at"].timestamp()
            if not start <= at <= end:
                continue  # some of its deliveries fell outside the recording
            nats_at = on_nats.get(key)
            if nats_at is not None:
                delays["relay"].append((nats_at - at) * 1000)
            for role, times in wanted[key]:
                delays[role].extend((t - at) * 1000 for t in times)
                if nats_at is not None and role != "seat view":  # pushed, not relayed
                    delays["gateway"].extend((t - nats_at) * 1000 for t in times)
    return delays, messages, live


def _figures(delays: dict[str, list[float]]) -> dict[str, float]:
    every = sorted(d for role in ("spectator", "player") for d in delays.get(role, []))
    players = sorted(delays.get("player", []))
    seat_views = sorted(delays.get("seat view", []))
    relay, gateway = sorted(delays.get("relay", [])), sorted(delays.get("gateway", []))
    return {
        "deliveries": len(every),
        "p50_ms": quantile(every, 0.5),
        "p99_ms": quantile(every, 0.99),
        "max_ms": every[-1] if every else float("nan"),
        "player_deliveries": len(players),
        "player_p99_ms": quantile(players, 0.99),
        "seat_views": len(seat_views),
        "seat_view_p50_ms": quantile(seat_views, 0.5),
        "seat_view_p99_ms": quantile(seat_views, 0.99),
        "events": len(relay),
        "relay_p50_ms": quantile(relay, 0.5),
        "relay_p99_ms": quantile(relay, 0.99),
        "gateway_p50_ms": quantile(gateway, 0.5),
        "gateway_p99_ms": quantile(gateway, 0.99),
    }


async def fanout(
    pg_dsn: str,
    nats_url: str,
    *,
    sockets: int = 1000,
    per_table: int = 40,
    player_tables: int = 2,
    window: float = WINDOW_S,
    extra: int = 100,
    clients: int = 3,
    bot_delay_ms: int = BOT_DELAY_MS,
    say: Callable[[str], None] = print,
    profile: Path | None = None,
) -> dict[str, Any]:
    """One gateway with ``sockets`` sockets (its limit too): the figures of one size
    (the module docstring says how each is measured). ``profile``: a directory where
    the gateway, run under cProfile, leaves ``gateway.prof``."""
    import asyncpg

    from belot_platform import messaging
    from eventlog import EventStore
    from fairdeal import logentries
    from services.gateway.domain import Identity, Tokens

    raise_fd_limit()
    tag = uuid.uuid4().hex[:8]
    schema, prefix = f"bench_sockets_{tag}", f"bs{tag}"
    stream, subject = f"BENCH_SOCKETS_{tag}", f"bs{tag}.events"
    secret = secrets.token_hex(32)
    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=4)
    nc = await messaging.connect(nats_url, name="bench-sockets")
    store = await EventStore.open(pool, schema, producer="bench", entries=logentries)
    here = contextlib.AsyncExitStack()
    await here.enter_async_context(kit.randomness_here(nc, pool, store, prefix, start=True))
    tmp = Path(tempfile.mkdtemp(prefix="belot-bench-sockets-"))
    ports = {name: kit.free_port() for name in ("table", "relay", "gateway")}
    base = {
        **os.environ,
        "BELOT_PG_DSN": pg_dsn,
        "BELOT_NATS_URL": nats_url,
        "BELOT_PG_SCHEMA": schema,
        "BELOT_GATEWAY_SCHEMA": schema,
        "BELOT_SUBJECT_PREFIX": prefix,
        "BELOT_EVENTS_STREAM": stream,
        "BELOT_EVENTS_SUBJECT": subject,
        "BELOT_LOG_LEVEL": "WARNING",
        "BELOT_DATA_DIR": str(tmp),
        "BELOT_TOKEN_SECRET": secret,
        "BELOT_GATEWAY_MAX_SOCKETS": str(sockets),
        **{f"BELOT_{n.upper()}_PORT": str(p) for n, p in ports.items()},
    }
    # When each event's message reaches NATS (as this process sees it), to split the
    # delay into the relay's part and the gateway's.
    on_nats: dict[tuple[str, int], float] = {}

    async def seen(msg: Any) -> None:
        h = msg.headers or {}
        with contextlib.suppress(KeyError, ValueError):
            on_nats[(h["Belot-Stream"], int(h["Belot-Version"]))] = time.time()

    tap = await nc.subscribe(f"{subject}.>", cb=seen)
    procs = {
        name: _service(name, base, tmp, profile if name == "gateway" else None)
        for name in ("table", "relay", "gateway")
    }
    url = f"http://127.0.0.1:{ports['gateway']}"
    tokens = Tokens(secret, 86_400)
    players: list[Any] = []
    try:
        for port in ports.values():
            await _wait_http(f"http://127.0.0.1:{port}/readyz", 120)
        gw = procs["gateway"].pid
        rss_before = rss_bytes(gw)
        players = [await ClientProcess.start(tmp / f"client{i}.log") for i in range(clients)]
        n_players = 2 * player_tables
        spectators = sockets - n_players
        n_tables = max(player_tables + 1, math.ceil(spectators / per_table))
        table_ids: list[str] = []
        outcome: dict[str, int] = defaultdict(int)
        spread = itertools.count()

        async def create(human: bool) -> str:
            seats = ["human", "bot:easy", "human", "bot:easy"] if human else ["bot:easy"] * 4
            reply = await messaging.request(
                nc,
                f"{prefix}.table.create",
                {
                    "ruleset": "club",
                    "seats": seats,
                    "target": 10_000,
                    "rated": False,
                    "bot_delay_ms": bot_delay_ms,
                    "turn_seconds": 10,
                },
                timeout=10,
            )
            table_ids.append(reply["table_id"])
            return str(reply["table_id"])

        async def open_batch(batch: list[dict[str, Any]]) -> None:
            """These sockets, spread over the client processes, until each watches."""
            shares: list[list[dict[str, Any]]] = [[] for _ in players]
            for a in batch:
                shares[next(spread) % len(players)].append(a)
            for o in await asyncio.gather(
                *(
                    c.ask(op="open", url=url, sockets=share, concurrency=64)
                    for c, share in zip(players, shares, strict=True)
                    if share
                )
            ):
                for k, v in o.items():
                    outcome[k] += v

        # Table by table, each created just before its watchers arrive: a catch-up then
        # reads a few seconds of its table (a catch-up on a long match is a cost of its
        # own, not the fan-out's). The players' tables first, their seats taken through
        # the gateway.
        t0 = time.perf_counter()
        async with aiohttp.ClientSession() as http:
            for t in range(player_tables):
                table_id = await create(human=True)
                batch = []
                for seat in (0, 2):
                    token = tokens.issue(Identity(f"bench-p{t}-{seat}", f"p{t}s{seat}"))
                    async with http.post(
                        f"{url}/v1/tables/{table_id}/seats/{seat}",
                        json={},
                        headers={"Authorization": f"Bearer {token}"},
                    ) as resp:
                        assert resp.status == 200, await resp.text()
                    batch.append({"token": token, "table": table_id, "role": "player"})
                await open_batch(batch)
        given = 0
        for t in range(n_tables):
            table_id = table_ids[t] if t < player_tables else await create(human=False)
            share = spectators // n_tables + (1 if t < spectators % n_tables else 0)
            batch = [
                {
                    "token": tokens.issue(Identity(f"bench-s{i}", f"s{i}")),
                    "table": table_id,
                    "role": "spectator",
                }
                for i in range(given, given + share)
            ]
            given += share
            await open_batch(batch)
        open_s = time.perf_counter() - t0
        watching = outcome.pop("watching", 0)
        problems = dict(outcome)
        say(
            f"  {watching} sockets watching in {open_s:.1f} s"
            + (f"; {problems}" if problems else "")
        )
        deadline = time.monotonic() + CATCH_UP_S + CATCH_UP_PER_SOCKET_S * sockets
        while True:
            st = await asyncio.gather(*(c.ask(op="status") for c in players))
            caught = sum(s["caught"] for s in st)
            if caught >= watching or time.monotonic() > deadline:
                break
            await asyncio.sleep(1.0)
        caught_s = time.perf_counter() - t0
        say(f"  {caught} caught up in {caught_s:.1f} s")
        await asyncio.sleep(2.0)
        rss_after = rss_bytes(gw)

        async def measure(label: str, during: Any = None) -> tuple[dict[str, Any], Any]:
            for c in players:
                await c.ask(op="record", label=label)
            client_pids = [c.proc.pid for c in players]
            cpu0, w0 = cpu_seconds(gw), time.time()
            wait0, cwait0 = waited([gw]), waited(client_pids)
            side = asyncio.ensure_future(during) if during is not None else None
            await asyncio.sleep(window)
            cpu1, w1 = cpu_seconds(gw), time.time()
            wait1, cwait1 = waited([gw]), waited(client_pids)
            await asyncio.sleep(MARGIN_S)  # the events of the window's end still arriving
            collected = [await c.ask(op="collect", label=label) for c in players]
            w2 = time.time()
            delays, messages, live = await _deliveries(pool, schema, collected, w0, w1, on_nats)
            result = {
                **_figures(delays),
                "messages_per_s": messages / (w2 - w0),
                "live_sockets": live,
                "gateway_cpu": (cpu1 - cpu0) / (w1 - w0),
                "gateway_waited": (wait1 - wait0) / (w1 - w0),
                "clients_waited": (cwait1 - cwait0) / (w1 - w0) / len(players),
                "load": os.getloadavg()[0],
            }
            return result, (await side if side is not None else None)

        a, _ = await measure("A")
        say(f"  window A: {_line(a)}")
        refuser = await ClientProcess.start(tmp / "refuser.log")
        try:
            extra_tokens = [tokens.issue(Identity(f"bench-x{i}", f"x{i}")) for i in range(extra)]
            await refuser.ask(op="status")  # started
            refuser_cpu = cpu_seconds(refuser.proc.pid)
            b, codes = await measure(
                "B",
                refuser.ask(
                    op="refuse",
                    url=url,
                    tokens=extra_tokens,
                    until=time.time() + window,
                    retry_s=RETRY_FIRST_S,
                ),
            )
            b["refuser_cpu"] = (cpu_seconds(refuser.proc.pid) - refuser_cpu) / (window + MARGIN_S)
        finally:
            await refuser.stop()
        say(f"  window B: {_line(b)}; refusals {codes}, the refuser's CPU {b['refuser_cpu']:.0%}")
        st = await asyncio.gather(*(c.ask(op="status") for c in players))
        closed = sum(s["closed"] for s in st)
        return {
            "sockets": sockets,
            "watching": watching,
            "open_problems": problems,
            "caught": caught,
            "open_s": open_s,
            "caught_s": caught_s,
            "tables": len(table_ids),
            "player_sockets": n_players,
            "bot_delay_ms": bot_delay_ms,
            "clients": clients,
            "rss_before": rss_before,
            "rss_after": rss_after,
            "bytes_per_socket": (rss_after - rss_before) / max(watching, 1),
            "a": a,
            "b": b,
            "refusals": codes,
            "closed_existing": closed,
            "closed_codes": {k: v for s in st for k, v in s["closed_codes"].items()},
        }
    finally:
        for c in players:
            await c.stop()
        kit.stop_all(procs.values())
        await tap.unsubscribe()
        await here.aclose()
        await store.close()
        await kit.remove_run(nc, pool, prefix=prefix, stream=stream, schemas=[schema])
        await pool.close()


# ---------------------------------------------------------------------- the report


def _line(w: dict[str, Any]) -> str:
    return (
        f"p50 {w['p50_ms']:.1f} ms, p99 {w['p99_ms']:.1f} ms (append -> NATS p50 "
        f"{w['relay_p50_ms']:.1f} / p99 {w['relay_p99_ms']:.1f}; NATS -> client p50 "
        f"{w['gateway_p50_ms']:.1f} / p99 {w['gateway_p99_ms']:.1f}), "
        f"{w['messages_per_s']:,.0f} msg/s, gateway CPU {w['gateway_cpu']:.0%} "
        f"({w['gateway_cpu'] / max(w['messages_per_s'], 1e-9) * 1e6:.0f} us a message); "
        f"waiting for a CPU: gateway {w['gateway_waited']:.0%}, a client "
        f"{w['clients_waited']:.0%} of the time; load {w['load']:.1f}"
    )


def checks(r: dict[str, Any]) -> list[tuple[str, bool]]:
    """What one size must show: the target (at TARGET_SOCKETS), and past the limit."""
    a, b = r["a"], r["b"]
    refused = r["refusals"].get(str(FULL), 0)
    attempts = sum(r["refusals"].values())
    out = [
        (f"{r['watching']:,} of {r['sockets']:,} sockets opened, all caught up",
         r["watching"] == r["caught"] == r["sockets"]),
        (f"past the limit: {refused:,} of {attempts:,} attempts closed with {FULL}",
         attempts > 0 and refused == attempts),
        (f"none of the {r['sockets']:,} closed; {b['live_sockets']:,} received events during B",
         r["closed_existing"] == 0 and b["live_sockets"] == r["watching"]),
        (f"p99 during refusals {b['p99_ms']:.1f} ms <= {WORSE_BY:g} x {a['p99_ms']:.1f} ms "
         f"+ {WORSE_MS:g} ms", b["p99_ms"] <= WORSE_BY * a["p99_ms"] + WORSE_MS),
    ]  # fmt: skip
    if r["sockets"] == TARGET_SOCKETS:
        out.insert(0, (f"delivery p99 {a['p99_ms']:.1f} ms <= {TARGET_P99_MS:g} ms",
                       a["p99_ms"] <= TARGET_P99_MS))  # fmt: skip
        views_ok = a["seat_views"] > 0 and a["seat_view_p99_ms"] <= TARGET_VIEW_P99_MS
        said = (f"a seat's own view p99 {a['seat_view_p99_ms']:.1f} ms after the append "
                f"<= {TARGET_VIEW_P99_MS:g} ms ({a['seat_views']:,} views)")  # fmt: skip
        out.insert(1, (said, views_ok))
    return out


def table(results: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| sockets | tables (players' sockets) | messages/s | p50 ms | p99 ms | max ms "
        "| p99 ms, refusing | players' p99 ms | seat views p50 / p99 ms | gateway CPU "
        "| RSS MB before / after | KiB a socket | target |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| --- |",
    ]
    for r in results:
        a, b = r["a"], r["b"]
        met = a["p99_ms"] <= TARGET_P99_MS and a["seat_view_p99_ms"] <= TARGET_VIEW_P99_MS
        target = (
            f"p99 <= {TARGET_P99_MS:g} ms, seat views' <= {TARGET_VIEW_P99_MS:g} ms: "
            f"{'PASS' if met else 'FAIL'}"
            if r["sockets"] == TARGET_SOCKETS
            else ""
        )
        lines.append(
            f"| {r['sockets']:,} | {r['tables']} ({r['player_sockets']}) "
            f"| {a['messages_per_s']:,.0f} | {a['p50_ms']:.1f} | {a['p99_ms']:.1f} "
            f"| {a['max_ms']:.0f} | {b['p99_ms']:.1f} | {a['player_p99_ms']:.1f} "
            f"| {a['seat_view_p50_ms']:.1f} / {a['seat_view_p99_ms']:.1f} "
            f"| {a['gateway_cpu']:.0%} | {r['rss_before'] / 2**20:.0f} / "
            f"{r['rss_after'] / 2**20:.0f} | {r['bytes_per_socket'] / 1024:.1f} | {target} |"
        )
    return lines


def notes(results: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in results:
        a = r["a"]
        out.append(
            f"{r['sockets']:,} sockets: {a['deliveries']:,} deliveries in window A "
            f"({a['player_deliveries']:,} to players), opened in {r['open_s']:.1f} s and "
            f"caught up in {r['caught_s']:.1f} s from {r['clients']} client processes; past the "
            f"limit, {sum(r['refusals'].values()):,} attempts: {r['refusals']}."
        )
        out.append(f"{r['sockets']:,} sockets, window A: {_line(a)}.")
        out.append(f"{r['sockets']:,} sockets, window B (refusing): {_line(r['b'])}.")
        for what, ok in checks(r):
            out.append(f"{'PASS' if ok else 'FAIL'}: {what}")
    return out


async def run(pg_dsn: str, nats_url: str, args: argparse.Namespace) -> tuple[int, list[str]]:
    import asyncpg

    conn = await asyncpg.connect(pg_dsn)
    try:
        version = await conn.fetchval("SHOW server_version")
    finally:
        await conn.close()
    limit = raise_fd_limit()
    head = (
        f"PostgreSQL {version}; Python {sys.version.split()[0]}; {os.cpu_count()} cores, "
        f"shared; open files raised to {limit:,}; bots every {args.bot_delay_ms} ms; "
        f"{args.per_table} sockets a table; window {args.window:g} s"
    )
    print(head, flush=True)
    results = []
    for n in args.sizes:
        print(f"{n:,} sockets:", flush=True)
        results.append(
            await fanout(
                pg_dsn,
                nats_url,
                sockets=n,
                per_table=args.per_table,
                player_tables=args.player_tables,
                window=args.window,
                extra=args.extra,
                clients=args.clients,
                bot_delay_ms=args.bot_delay_ms,
                say=lambda s: print(s, flush=True),
                profile=args.profile,
            )
        )
    lines, more = table(results), notes(results)
    print("\n".join(lines))
    print("\n".join(more))
    ok = all(good for r in results for _, good in checks(r))
    print(f"sockets: {'PASS' if ok else 'FAIL'}")
    return (0 if ok else 1), [head, *lines, "", *[f"- {n}" for n in more]]


def write(args: argparse.Namespace, report: list[str], ok: bool) -> None:
    head, *rest = report
    when = time.strftime("%Y-%m-%d %H:%M %Z")
    sizes = ",".join(str(n) for n in args.sizes)
    text = [
        "<!-- Generated by bench/sockets.py; do not edit by hand: run the bench to rewrite it. -->",
        "",
        "# WebSocket fan-out on one gateway",
        "",
        f"Run {when}: `python bench/sockets.py --sizes {sizes} --window {args.window:g}`; {head}.",
        "",
        "What runs, how each figure is measured (the delay is from the event's `recorded_at` "
        "in the log to its arrival in the client process; memory is the gateway's RSS with "
        "the sockets minus without, divided by their number) and what the checks past the "
        "limit are: the docstring of [bench/sockets.py](../../bench/sockets.py); the limit "
        'itself: [the gateway](../gateway.md#the-websockets-limit). "refusing" is window '
        "B, during which sockets past the limit are opened and closed with 1013 over and "
        "over; the other columns are window A.",
        "",
        *rest,
        "",
        f"Verdict: **{'PASS' if ok else 'FAIL'}**.",
        "",
    ]
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")


def main() -> int:
    if sys.argv[1:] == ["--client"]:
        return client_main()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="socket counts")
    parser.add_argument("--window", type=float, default=WINDOW_S, help="seconds per window")
    parser.add_argument("--per-table", type=int, default=40, help="sockets a table")
    parser.add_argument("--player-tables", type=int, default=2, help="tables with 2 humans")
    parser.add_argument("--extra", type=int, default=100, help="sockets opened past the limit")
    parser.add_argument("--clients", type=int, default=3, help="client processes")
    parser.add_argument(
        "--bot-delay-ms", type=int, default=BOT_DELAY_MS, help="the bots' pace (ms a move)"
    )
    parser.add_argument("--write", action="store_true", help="write docs/bench/sockets.md")
    parser.add_argument("--profile", type=Path, help="run the gateway under cProfile, here")
    args = parser.parse_args()
    try:
        args.sizes = [int(x) for x in args.sizes.split(",")]
    except ValueError:
        parser.error("--sizes: comma-separated whole numbers")
    if any(n <= 2 * args.player_tables for n in args.sizes):
        parser.error("--sizes: more sockets than the players' (2 a player table)")
    pg, nats_url = os.environ.get("BELOT_PG_DSN"), os.environ.get("BELOT_NATS_URL")
    if pg and nats_url:
        status, report = asyncio.run(run(pg, nats_url, args))
    else:
        from belot_platform.embedded import EmbeddedStack
        from belot_platform.settings import Settings

        with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
            Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
            stack = EmbeddedStack(Settings(embedded_pg_port=0, embedded_nats_port=0), Path(tmp))
            try:
                pg = pg or stack.start_postgres()
                nats_url = nats_url or stack.start_nats()
                status, report = asyncio.run(run(pg, nats_url, args))
            finally:
                stack.stop()
    if args.write or (tuple(args.sizes) == SIZES and args.window >= WINDOW_S):
        write(args, report, status == 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
