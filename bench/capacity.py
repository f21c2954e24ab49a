"""What a deal costs each process, end to end, against the game core's own cost.

A steady load of bot tables (club, four bots, the ruleset's own target: matches end, and
a new table is opened for every one that closes) on the real services, each in a
process of its own: ``--workers`` table workers (``belot serve table``), the outbox
relay (``belot serve relay``), the gateway (``belot serve gateway``), the verify API
(``belot serve verify``) and the randomness service (this file run with
``--serve-randomness``: the service's own app on a virtual clock, with a local relay of
recorded drand beacons in the same process, as bench/tables.py runs it). After a
warm-up, for ``--window`` seconds, each process's CPU seconds as the operating system
counts them (``/proc/<pid>/stat``: user + system, all threads; PostgreSQL and
nats-server are the embedded servers' process trees, the postmaster's reaped backends
included), divided by the deals scored and by the events appended in the window
(counted in the log).

In the same run, the game core's own CPU per deal for the same bots: the same ruleset,
target and bot level, ``libs/belot`` alone in a child process (``due``, the seat's
``view``, ``belot.bots.choose``, ``decide``, ``evolve``; decks made beforehand, since
the randomness service makes them), ``time.process_time``, played during the window so
that it meets the same machine. The ratio of a table
worker's CPU per deal to it is what the worker adds to the game. Target: at most
``RATIO_TARGET`` for the default bot level (``"bot"`` seats: medium), which is what a
table seats unless told otherwise; the easy bots' ratio is printed beside it (the
worker's own overhead shows most there) and not judged. The judged level is run
``--repeat`` times (3), each run with its own tables and processes, and its median ratio
is judged, every run's printed: on a 2-core machine shared with other work the machine's
speed moves between runs more than within one (the game core's own CPU per deal, in
runs of the same code, went from 1.18 to 1.37 ms, the ratio from 1.87x to 2.02x), and a
verdict drawn from one run says more about the machine than about the worker.

Limits judged on the default level's runs, each on its own median over them (the run
whose worker ratio is the median may be another's worst): the table worker's ratio
above; the gateway's, the randomness service's and verify's CPU per deal at most half of what they
spent when issue 32 measured them (``BEFORE_MS``); the whole platform at most
``PLATFORM_TARGET`` times the game core's CPU per deal. No socket is open in this load:
bench/sockets.py measures the gateway's fan-out.

Also measured in the same run on the same PostgreSQL: the event log's raw INSERT limit
(bench/eventlog.py's, as bench/tables.py reports it), and from all of it the deployment
a lichess-sized load needs (``LOAD_DEALS_PER_S`` deals a second: 27,000 tables, a card
every 3 s). WebSockets are bench/sockets.py's.

    python bench/capacity.py [--tables 60] [--window 30] [--levels easy,medium]
                             [--workers 1] [--repeat 3] [--write] [--profile DIR]

``--profile DIR`` runs every service (the table workers, the relay, the gateway, verify
and the randomness service) under cProfile counting CPU time (their
``.pstats`` files land in DIR; the CPU figures then include the profiler's: nothing is
written). Writes
docs/bench/capacity.md with ``--write`` or at the default sizes. Exits 1 when the
default level is over a limit. Uses BELOT_PG_DSN and BELOT_NATS_URL, else
starts the embedded servers in a temporary directory (the CPU of an external server is
read when its processes are found on this machine, and is then shared with whatever
else uses it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import importlib.util
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))

import asyncpg

from belot import RULESETS, SupplyDeck, decide, due, evolve, new_match, view
from belot.bots import choose
from belot.events import DealScored
from belot.match import DueKind
from belot_platform import messaging
from bench import kit
from eventlog import EventStore
from fairdeal import DeckInputs, Shuffler

_spec = importlib.util.spec_from_file_location("bench_eventlog", ROOT / "bench" / "eventlog.py")
assert _spec is not None and _spec.loader is not None
bench_eventlog = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_eventlog)

DOC: Final = ROOT / "docs" / "bench" / "capacity.md"
RULESET: Final = "club"
#: A table worker's CPU per deal over the game core's own, for the default bot level.
RATIO_TARGET: Final = 2.0
#: What each of these processes spent a deal (medium bots, ms) when the platform was
#: measured for issue 32, and the most it may spend now: half (the gateway with no
#: socket open, as then).
BEFORE_MS: Final = {"gateway": 1.42, "randomness": 2.42, "verify": 1.78}
#: The whole platform's CPU per deal, at most this many times the game core's.
PLATFORM_TARGET: Final = 7.0
JUDGED_LEVEL: Final = "medium"
#: The seats a table is opened with, by bot level ("bot" is the default level: medium).
SEATS: Final = {"easy": "bot:easy", "medium": "bot", "hard": "bot:hard"}
#: The lichess-sized load of issue 20: 27,000 tables, 110,000 players, a card every 3 s.
LOAD_TABLES: Final = 27_000
LOAD_DEALS_PER_S: Final = 280.0
#: A core is planned at most this busy (headroom for bursts, GC, a worker taking over).
CORE_BUSY: Final = 0.6
DEFAULTS: Final = {"tables": 60, "window": 30.0, "warmup": 12.0, "workers": 1, "repeat": 3}
#: Processes by kind, in the table's order.
KINDS: Final = ("table", "randomness", "relay", "gateway", "verify", "postgres", "nats")
LABELS: Final = {
    "table": "table workers",
    "randomness": "randomness",
    "relay": "outbox relay",
    "gateway": "gateway",
    "verify": "verify",
    "postgres": "PostgreSQL",
    "nats": "nats-server",
}
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- CPU from /proc


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return None
    # comm (the 2nd field) is in parentheses and may hold spaces: split after it.
    return text.rsplit(")", 1)[1].split()


def cpu_seconds(pid: int, *, reaped: bool = False) -> float:
    """utime + stime of ``pid`` (all its threads), with ``reaped`` also the children it
    waited for (cutime + cstime); 0 when it is gone."""
    f = _stat(pid)
    if f is None:
        return 0.0
    # After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    ticks = int(f[11]) + int(f[12])
    if reaped:
        ticks += int(f[13]) + int(f[14])
    return ticks / CLK_TCK


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            f = _stat(int(entry.name))
            if f is not None and int(f[1]) == pid:
                out.append(int(entry.name))
    return out


def tree_seconds(pid: int) -> float:
    """A server's CPU: the process, the children it reaped, and its live children (a
    PostgreSQL backend that exits moves from the last term to the second, so the sum
    keeps it)."""
    return cpu_seconds(pid, reaped=True) + sum(cpu_seconds(c, reaped=True) for c in children(pid))


def find_by_comm(name: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text(encoding="utf-8").strip() == name:
                    found.append(int(entry.name))
    return found


@dataclass
class Pids:
    """The processes measured, by kind; a server's pid counts its whole tree."""

    services: dict[str, list[int]] = field(default_factory=dict)
    servers: dict[str, int | None] = field(default_factory=dict)

    def sample(self) -> dict[str, float]:
        out = {k: sum(cpu_seconds(p) for p in ps) for k, ps in self.services.items()}
        for k, pid in self.servers.items():
            out[k] = tree_seconds(pid) if pid is not None else float("nan")
        return out


# ---------------------------------------------------------------------- the game core


def core_cpu_per_deal(level: str, seconds: float, seed: str) -> tuple[float, float, int]:
    """The game core's CPU seconds per deal for four ``level`` bots (club, its target),
    the deals' mean length in events, and the deals played: whole matches, as a table
    plays them, for about ``seconds`` of wall time (run beside the services' window, so
    that both see the machine as it is then)."""
    ruleset = RULESETS[RULESET]
    n = ruleset.players
    done = events = 0
    spent = 0.0
    m = 0
    until = time.monotonic() + seconds
    deals = 1 << 62
    while done < deals:
        if time.monotonic() >= until and done >= 50:
            deals = done
        digest = hashlib.sha256(f"bench/capacity|{seed}|{m}".encode()).digest()
        shuffler = Shuffler(DeckInputs(digest, (b"",) * n, None))
        rng = random.Random(digest)
        state = new_match(ruleset, first_dealer=digest[0] % n)
        decks: dict[int, Any] = {}
        while done < deals:
            d = due(state)
            if d.kind is DueKind.NOTHING:
                break
            if d.kind is DueKind.DECK and d.deal_number not in decks:
                # The randomness service's part: not timed.
                decks[d.deal_number] = shuffler.deck(d.deal_number, ruleset.deck_size)
            t0 = time.process_time()
            d = due(state)
            if d.kind is DueKind.DECK:
                command: Any = SupplyDeck(d.deal_number, decks[d.deal_number])
            else:
                assert d.seat is not None
                command = choose(view(state, d.seat), rng, level)
            new = decide(state, command)
            for e in new:
                state = evolve(state, e)
            spent += time.process_time() - t0
            events += len(new)
            done += sum(1 for e in new if type(e) is DealScored)
        m += 1
    return spent / done, events / done, done


# ---------------------------------------------------------------------- the randomness child


def serve_randomness() -> None:
    """``--serve-randomness``: the randomness service's app (from the environment's
    settings) on a virtual clock, fed by a local relay of recorded beacons."""
    from belot_platform.app import serve
    from belot_platform.logs import configure_logging
    from belot_platform.settings import Settings
    from services.randomness.app import create_app

    settings = Settings.from_env()
    configure_logging(settings.log_level, settings.log_format)

    async def main() -> None:
        async with kit.recorded_drand() as (clock, drand):
            app = create_app(settings, clock=clock, drand=drand)
            await serve(app, settings.http_host, settings.port("randomness"))

    asyncio.run(main())


def serve_profiled(out: Path, name: str) -> int:
    """``--serve-profiled OUT NAME``: ``belot serve NAME`` under cProfile counting CPU
    time (``time.process_time``: on a busy machine wall time would charge a function for
    the time the process waited for a core), its statistics written to OUT at exit."""
    import cProfile

    from commands.serve import load

    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    try:
        serve_randomness() if name == "randomness" else load(name)()
    finally:
        profiler.disable()
        profiler.dump_stats(str(out))
    return 0


# ---------------------------------------------------------------------- one case


async def wait_healthy(port: int, proc: subprocess.Popen[bytes], name: str) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} (see its log)")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{name} did not answer /healthz")


async def count(pool: Any, schema: str) -> tuple[int, int, int]:
    """Deals scored, events appended, matches ended (MatchEnded), all time."""
    row = await pool.fetchrow(
        f"""SELECT count(*) FILTER (WHERE type = 'DealScored') AS deals,
                   count(*) FILTER (WHERE type = 'MatchEnded') AS matches,
                   (SELECT position FROM "{schema}".log_head) AS events
            FROM "{schema}".events"""
    )
    return int(row["deals"]), int(row["events"] or 0), int(row["matches"])


@dataclass
class Case:
    level: str
    tables: int
    workers: int
    window: float
    deals: int = 0
    events: int = 0
    matches: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    core_s_per_deal: float = 0.0
    core_events_per_deal: float = 0.0
    #: Every run of the level, in the order run (this case among them: the run whose
    #: worker ratio is the median); just this case when the level was run once.
    runs: list[Case] = field(default_factory=list)

    @property
    def deals_per_s(self) -> float:
        return self.deals / self.window

    def per_deal(self, kind: str) -> float:
        return self.cpu[kind] / self.deals if self.deals else float("nan")

    def per_event(self, kind: str) -> float:
        return self.cpu[kind] / self.events if self.events else float("nan")

    @property
    def ratio(self) -> float:
        return self.per_deal("table") / self.core_s_per_deal

    @property
    def platform_ratio(self) -> float:
        """Every process's CPU per deal (those measured) over the game core's."""
        spent = sum(cpu for cpu in self.cpu.values() if cpu == cpu)
        return spent / max(self.deals, 1) / self.core_s_per_deal

    def median(self, measure: Callable[[Case], float]) -> float:
        """``measure``'s median over the runs: each limit is judged on its own median,
        not on the figures of the run whose worker ratio is the median."""
        values = sorted(measure(c) for c in self.runs or [self])
        return values[len(values) // 2]

    def figures(self, measure: Callable[[Case], float], form: str) -> str:
        """``measure`` of every run, in the order run, as ``form`` says, comma-separated."""
        return ", ".join(form.format(measure(c)) for c in self.runs or [self])

    def each(self, measure: Callable[[Case], float], form: str) -> str:
        """`` (the median of N runs: a, b, c)``, or nothing for a single run."""
        runs = self.runs or [self]
        if len(runs) < 2:
            return ""
        return f" (the median of {len(runs)} runs: {self.figures(measure, form)})"

    def limits(self) -> list[tuple[str, Callable[[Case], float], float, str, str]]:
        """Each judged limit: (measure's name, measure of a run, limit, the limit in
        words, the figure's format)."""

        def ms_a_deal(kind: str) -> Callable[[Case], float]:
            return lambda c: c.per_deal(kind) * 1000

        rows: list[tuple[str, Callable[[Case], float], float, str, str]] = [
            (f"{LABELS[kind]}, ms a deal", ms_a_deal(kind),
             before / 2, f"{before / 2:.2f} (half of {before:.2f})", "{:.2f}")
            for kind, before in BEFORE_MS.items()
        ]  # fmt: skip
        rows.append(("the whole platform over the game core", lambda c: c.platform_ratio,
                     PLATFORM_TARGET, f"{PLATFORM_TARGET:.0f}x", "{:.2f}x"))  # fmt: skip
        return rows

    def within_limits(self) -> bool:
        return self.median(lambda c: c.ratio) <= RATIO_TARGET and all(
            self.median(measure) <= limit for _, measure, limit, _, _ in self.limits()
        )


async def run_case(
    pg_dsn: str,
    nats_url: str,
    pids_servers: dict[str, int | None],
    level: str,
    tables: int,
    workers: int,
    window: float,
    warmup: float,
    profile: Path | None,
) -> Case:
    tag = uuid.uuid4().hex[:8]
    schema, prefix = f"bench_cap_{tag}", f"bc{tag}"
    tmp = Path(tempfile.mkdtemp(prefix="belot-bench-capacity-"))
    base_env = {
        **os.environ,
        "BELOT_PG_DSN": pg_dsn,
        "BELOT_NATS_URL": nats_url,
        "BELOT_PG_SCHEMA": schema,
        "BELOT_RANDOMNESS_SCHEMA": f"{schema}_rnd",
        "BELOT_GATEWAY_SCHEMA": f"{schema}_gw",
        "BELOT_VERIFY_SCHEMA": f"{schema}_vf",
        "BELOT_SUBJECT_PREFIX": prefix,
        "BELOT_EVENTS_STREAM": f"BENCH_{tag}",
        "BELOT_EVENTS_SUBJECT": f"bench{tag}.events",
        "BELOT_LOG_LEVEL": "WARNING",
        "BELOT_DATA_DIR": str(tmp),
        "BELOT_PG_POOL_MAX": "10",
        "BELOT_TRANSLOG_ORIGIN": f"bench{tag}.localhost/log",
        # Verify's API and its projections; the analysis of finished matches, a job that
        # may trail the play, is measured against the deals by bench/analysis.py.
        "BELOT_VERIFY_ANALYSIS_WORKERS": "0",
    }
    procs: list[tuple[str, subprocess.Popen[bytes], int]] = []

    def start(kind: str, argv: list[str], log_name: str) -> None:
        port = kit.free_port()
        env = {**base_env, f"BELOT_{kind.upper()}_PORT": str(port)}
        proc = subprocess.Popen(
            argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
            stderr=(tmp / f"{log_name}.log").open("wb"),
        )  # fmt: skip
        procs.append((kind, proc, port))

    def serve_argv(name: str, i: int = 0) -> list[str]:
        if profile is not None:
            out = profile / f"{level}-{name}{i}.pstats"
            return [sys.executable, str(Path(__file__)), "--serve-profiled", str(out), name]
        if name == "randomness":  # on a virtual clock, with recorded beacons
            return [sys.executable, str(Path(__file__)), "--serve-randomness"]
        return [sys.executable, "-m", "commands.cli", "serve", name]

    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=4)
    nc = await messaging.connect(nats_url, name="bench-capacity")
    # The log's schema and its first writer's migrations, before the services start.
    store = await EventStore.open(pool, schema, producer="bench")
    await store.close()
    try:
        start("randomness", serve_argv("randomness"), "randomness")
        for i in range(workers):
            start("table", serve_argv("table", i), f"table{i}")
        start("relay", serve_argv("relay"), "relay")
        start("gateway", serve_argv("gateway"), "gateway")
        start("verify", serve_argv("verify"), "verify")
        for kind, proc, port in procs:
            await wait_healthy(port, proc, kind)
        await asyncio.sleep(0.5)

        open_tables: set[str] = set()
        opening: set[asyncio.Future[None]] = set()
        stop = asyncio.Event()

        async def open_one() -> None:
            reply = await messaging.request(
                nc, f"{prefix}.table.create",
                {"ruleset": RULESET, "seats": [SEATS[level]] * 4}, timeout=10,
            )  # fmt: skip
            open_tables.add(reply["table_id"])

        async def refill() -> None:
            # A table in place of one that closed; after the window, none is needed.
            with contextlib.suppress(messaging.ServiceError):
                await open_one()

        # A table's lobby line leaves the registry when it closes (the worker's drop):
        # a new table takes its place. (The owner pushes nothing for a table nobody
        # watches, so its subjects say nothing here.)
        registry = await nc.jetstream().key_value(f"{prefix}_tables")
        lines = await registry.watchall()

        async def on_closed() -> None:
            async for entry in lines:
                if entry is None or entry.operation not in ("DEL", "PURGE"):
                    continue
                if entry.key in open_tables:
                    open_tables.discard(entry.key)
                    if not stop.is_set():
                        task = asyncio.ensure_future(refill())
                        opening.add(task)
                        task.add_done_callback(opening.discard)

        closing = asyncio.ensure_future(on_closed())
        for _ in range(tables):
            await open_one()
        await asyncio.sleep(warmup)  # seeds, drand, first decks; the first matches end

        pids = Pids({k: [p.pid for kk, p, _ in procs if kk == k] for k in KINDS[:5]}, pids_servers)
        c0, (d0, e0, m0), t0 = pids.sample(), await count(pool, schema), time.perf_counter()
        with ProcessPoolExecutor(1) as pool_core:
            core = asyncio.get_running_loop().run_in_executor(
                pool_core, core_cpu_per_deal, level, window, f"capacity-{tag}"
            )
            await asyncio.sleep(window)
            c1, (d1, e1, m1), t1 = pids.sample(), await count(pool, schema), time.perf_counter()
            core_s, core_events, _ = await core
        stop.set()
        await lines.stop()  # type: ignore[no-untyped-call]
        closing.cancel()
        case = Case(level, tables, workers, t1 - t0, d1 - d0, e1 - e0, m1 - m0)
        case.cpu = {k: c1[k] - c0[k] for k in c1}
        case.core_s_per_deal, case.core_events_per_deal = core_s, core_events
        return case
    finally:
        kit.stop_all(proc for _, proc, _ in procs)
        schemas = [schema, f"{schema}_rnd", f"{schema}_gw", f"{schema}_vf"]
        await kit.remove_run(nc, pool, prefix=prefix, stream=f"BENCH_{tag}", schemas=schemas)
        await pool.close()


async def raw_limit(pg_dsn: str) -> tuple[float, str]:
    pool = await asyncpg.create_pool(pg_dsn, min_size=1, max_size=2)
    schema = f"bench_capraw_{os.getpid()}"
    try:
        await EventStore.open(pool, schema, producer="bench")
        s = f'"{schema}"'
        await pool.execute(f"CREATE TABLE {s}.raw_events (LIKE {s}.events INCLUDING ALL)")
        best = 0.0
        async with pool.acquire() as conn:
            pos = 0
            for _ in range(3):
                best = max(best, await bench_eventlog.raw_round(conn, s, 200, 64, pos))
                pos += 200 * 64
        version = str(await pool.fetchval("SHOW server_version"))
        return best, version
    finally:
        await pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await pool.close()


async def external_servers(pg_dsn: str) -> dict[str, int | None]:
    """An external PostgreSQL's postmaster (a backend's parent) and a lone local
    nats-server, when they run on this machine."""
    conn = await asyncpg.connect(pg_dsn)
    try:
        backend = int(await conn.fetchval("SELECT pg_backend_pid()"))
    finally:
        await conn.close()
    f = _stat(backend)
    postmaster = int(f[1]) if f is not None else None
    nats = find_by_comm("nats-server")
    return {"postgres": postmaster, "nats": nats[0] if len(nats) == 1 else None}


# ---------------------------------------------------------------------- report


#: Services of which one process is active at a time (the others wait): one core's worth.
SINGLE_ACTIVE: Final = frozenset({"randomness", "relay"})


def deployment(case: Case) -> list[tuple[str, str, str, str]]:
    """The processes and cores a lichess-sized load needs, from one case's costs, and
    the deals a second one process of each service carries on a whole core (PostgreSQL
    and nats-server use several)."""
    rows = []
    for kind in KINDS:
        busy = case.per_deal(kind) * LOAD_DEALS_PER_S  # cores' worth of CPU
        cores = max(1, -(-busy // CORE_BUSY)) if busy == busy else float("nan")
        spent = case.per_deal(kind)
        if kind in ("postgres", "nats"):
            one = ""
        else:  # no CPU counted in the window (an idle gateway's ticks): no bound seen
            one = f"{1 / spent:,.0f}" if spent > 0 else "no bound measured"
        if kind in SINGLE_ACTIVE and one:
            one += " (one active: the ceiling)"
        rows.append((LABELS[kind], f"{busy:.1f}", f"{cores:.0f}", one))
    return rows


def report(cases: list[Case], limit: float, pg_version: str) -> list[str]:
    lines = [
        f"PostgreSQL {pg_version}; {os.cpu_count()} cores; Python {platform.python_version()}; "
        f"ruleset {RULESET}; event-log raw limit (64-row INSERT per transaction): "
        f"{limit:,.0f} rows/s",
        "",
    ]
    for c in cases:
        lines += [
            f"### Bots: {c.level} ({c.tables} tables, {c.workers} table worker"
            f"{'s' if c.workers > 1 else ''}, {c.window:.0f} s window)",
            "",
            f"{c.deals} deals ({c.deals_per_s:.1f}/s), {c.events:,} events "
            f"({c.events / max(c.deals, 1):.1f} a deal), {c.matches} matches ended.",
            "",
            "| process | CPU s | ms per deal | µs per event |",
            "| --- | ---: | ---: | ---: |",
        ]
        total = 0.0
        for kind in KINDS:
            cpu = c.cpu[kind]
            if cpu == cpu:
                total += cpu
            lines.append(
                f"| {LABELS[kind]} | {cpu:.2f} | {c.per_deal(kind) * 1000:.2f} | "
                f"{c.per_event(kind) * 1e6:.0f} |"
            )
        lines.append(
            f"| **all** | {total:.2f} | {total / max(c.deals, 1) * 1000:.2f} | "
            f"{total / max(c.events, 1) * 1e6:.0f} |"
        )
        lines += [
            "",
            f"Game core alone, same bots: {c.core_s_per_deal * 1000:.2f} ms per deal "
            f"({c.core_events_per_deal:.1f} events a deal). A table worker's CPU per deal "
            f"over it: **{c.ratio:.2f}x**"
            + c.each(lambda r: r.ratio, "{:.2f}x")
            + (
                f" (target at most {RATIO_TARGET:.0f}x: "
                f"{'PASS' if c.ratio <= RATIO_TARGET else 'FAIL'})"
                if c.level == JUDGED_LEVEL
                else " (not judged: the worker's own overhead shows most here)"
            ),
            "",
        ]
    judged = next((c for c in cases if c.level == JUDGED_LEVEL), cases[-1])
    runs = judged.runs or [judged]
    lines += [
        "### Limits",
        "",
        f"Each judged on its median over the {len(runs)} run{'s' if len(runs) > 1 else ''}"
        " of the level (every run's figure beside it).",
        "",
        "| measure | median | runs | limit | |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, measure, bound, words, form in judged.limits():
        now = judged.median(measure)
        lines.append(
            f"| {name} | {form.format(now)} | {judged.figures(measure, form)} | {words} "
            f"| {'PASS' if now <= bound else 'FAIL'} |"
        )
    lines.append("")
    lines += [
        f"### A lichess-sized load: {LOAD_DEALS_PER_S:.0f} deals/s ({LOAD_TABLES:,} "
        f"tables), from the {judged.level} bots' costs",
        "",
        f"Cores' worth of CPU each kind needs, and cores to plan at {CORE_BUSY:.0%} busy:",
        "",
        "| process | CPU (cores) | cores planned | deals/s one process carries |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in deployment(judged)]
    events_per_s = judged.events / max(judged.deals, 1) * LOAD_DEALS_PER_S
    lines += [
        "",
        f"The log: {events_per_s:,.0f} events/s, **{events_per_s / limit:.2f}** of the "
        f"raw INSERT limit measured above ({limit:,.0f} rows/s).",
    ]
    lines += [
        "",
        "### Sockets",
        "",
        "The gateway's WebSocket fan-out (1,000 and 5,000 sockets): see "
        "the page bench/sockets.py writes in docs/bench/.",
    ]
    return lines


def write(argv: list[str], lines: list[str]) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = [
        "<!-- Generated by bench/capacity.py; do not edit by hand: run the bench to "
        "rewrite it. -->",
        "",
        "# Capacity: what a deal costs each process",
        "",
        f"Run {when}: `python bench/capacity.py {' '.join(argv)}`. What it measures and how: "
        "the docstring of [bench/capacity.py](../../bench/capacity.py); what the figures "
        "mean for a deployment: [capacity.md](../capacity.md).",
        "",
        *lines,
        "",
    ]
    DOC.write_text("\n".join(text), encoding="utf-8")


async def run(
    args: argparse.Namespace, pg: str, nats_url: str, servers: dict[str, int | None]
) -> int:
    limit, version = await raw_limit(pg)
    cases = []
    profile = Path(args.profile).absolute() if args.profile else None
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
    for level in args.levels.split(","):
        runs = []
        for _ in range(args.repeat if level == JUDGED_LEVEL else 1):
            case = await run_case(
                pg, nats_url, servers, level, args.tables, args.workers, args.window,
                args.warmup, profile,
            )  # fmt: skip
            runs.append(case)
            print(
                f"{level}: {case.deals} deals, table worker "
                f"{case.per_deal('table') * 1000:.2f} ms a deal, game core "
                f"{case.core_s_per_deal * 1000:.2f}: {case.ratio:.2f}x",
                flush=True,
            )
        case = sorted(runs, key=lambda c: c.ratio)[len(runs) // 2]
        case.runs = runs
        cases.append(case)
    lines = report(cases, limit, version)
    print("\n".join(lines))
    default_sizes = all(getattr(args, k) == v for k, v in DEFAULTS.items())
    if profile is None and (args.write or (default_sizes and args.levels == "easy,medium")):
        write(sys.argv[1:], lines)
        print(f"wrote {DOC.relative_to(ROOT)}")
    judged = [c for c in cases if c.level == JUDGED_LEVEL]
    return 1 if any(not c.within_limits() for c in judged) else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=DEFAULTS["tables"])
    parser.add_argument("--window", type=float, default=DEFAULTS["window"],
                        help="seconds measured per case")  # fmt: skip
    parser.add_argument("--warmup", type=float, default=DEFAULTS["warmup"])
    parser.add_argument("--workers", type=int, default=DEFAULTS["workers"])
    parser.add_argument("--repeat", type=int, default=DEFAULTS["repeat"],
                        help="runs of the judged level; its median is judged")  # fmt: skip
    parser.add_argument("--levels", default="easy,medium", help="comma-separated bot levels")
    parser.add_argument("--write", action="store_true", help="write docs/bench/capacity.md")
    parser.add_argument("--profile", metavar="DIR", help="run the services under cProfile")
    parser.add_argument("--serve-randomness", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-profiled", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_randomness:
        serve_randomness()
        return 0
    if args.serve_profiled:
        return serve_profiled(Path(args.serve_profiled[0]), args.serve_profiled[1])
    for level in args.levels.split(","):
        if level not in SEATS:
            parser.error(f"--levels: {level!r} is not one of {', '.join(SEATS)}")
    with platform_servers() as (pg, nats_url, servers):
        return asyncio.run(run(args, pg, nats_url, servers))


@contextlib.contextmanager
def platform_servers() -> Iterator[tuple[str, str, dict[str, int | None]]]:
    """PostgreSQL's and NATS's URLs and their processes' pids (for their CPU): the ones
    BELOT_PG_DSN and BELOT_NATS_URL name, else embedded ones started in a temporary
    directory for the run (bench/analysis.py measures the platform with them too)."""
    pg, nats_url = os.environ.get("BELOT_PG_DSN"), os.environ.get("BELOT_NATS_URL")
    if pg and nats_url:
        yield pg, nats_url, asyncio.run(external_servers(pg))
        return
    from belot_platform.embedded import EmbeddedStack
    from belot_platform.settings import Settings

    with tempfile.TemporaryDirectory(prefix="belot-bench-") as tmp:
        Path(tmp).chmod(0o755)  # PostgreSQL may run as its own user (we may be root)
        stack = EmbeddedStack(Settings(embedded_pg_port=0, embedded_nats_port=0), Path(tmp))
        try:
            pg = pg or stack.start_postgres()
            nats_url = nats_url or stack.start_nats()
            pids = {"postgres": stack.postgres.postmaster_pid(), "nats": stack.nats.pid()}
            yield pg, nats_url, pids
        finally:
            stack.stop()


if __name__ == "__main__":
    sys.exit(main())
