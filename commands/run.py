"""``belot run``: the whole platform on one machine, under one supervisor.

Starts the servers (the embedded PostgreSQL and NATS under ``BELOT_DATA_DIR`` unless
``BELOT_PG_DSN`` / ``BELOT_NATS_URL`` are set), sets the database up as ``belot db setup``
does (the embedded superuser, or ``BELOT_PG_DSN``, is the admin), then starts every
registered service as its own ``belot serve`` process, each connecting as its own
database role with a password made for this run (several table workers, which also run
the outbox relay, one active at a time); restarts a
service that crashes (with back-off); runs the demo once everything answers; prints a
live progress line; and on Ctrl-C or SIGTERM stops the services in reverse order (each
gets SIGTERM and the shutdown timeout, then SIGKILL), then the servers it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import functools
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp
import asyncpg

from belot_platform.dbroles import role_dsn
from belot_platform.embedded import EmbeddedError, EmbeddedStack, port_is_free
from belot_platform.settings import DB_ROLES, Settings, SettingsError
from commands import db
from commands.demo import BOT_DELAY_MS, run_demo
from commands.serve import REGISTRY
from services.table.domain import MAX_BOT_DELAY_MS
from services.verify.translog import log_signer
from translog import Cosigner, parse_skey

#: Start order; the gateway last, so that players only arrive once the rest answers.
ORDER: Final = ("randomness", "table", "relay", "verify", "rating", "tournament", "gateway")
#: Extra table workers listen from this HTTP port up, skipping busy ones (the first worker
#: uses BELOT_TABLE_PORT).
EXTRA_TABLE_PORT: Final = 8100
MAX_BACKOFF: Final = 30.0


#: The witness ``belot run`` starts keeps its key and state here, under BELOT_DATA_DIR.
WITNESS_DIR: Final = "witness"
#: Its name's first part; the log's origin follows (``belot-run-witness/<origin>``).
WITNESS_NAME: Final = "belot-run-witness"


@dataclass(frozen=True)
class LocalWitness:
    """The witness ``belot run`` starts, so that the log is watched by default.

    Why one here: a reader's check of when a round was named (``log_timing``) trusts a
    witness's clock, never the server's, and fails without one (docs/threat-model.md);
    a platform that ran with none would be one no reader can check. This one stands for
    a third party as far as one machine can: a process of its own, started with none of
    the platform's settings (no database, no NATS, no log key), with its own key made
    here once (mode 0600, never read by a service), reading the log's public API only.
    It is configured in ``BELOT_TRANSLOG_WITNESSES`` (after any the operator names), so
    the log lists it as its witness and readers count it; a deployment adds witnesses
    run by others (docs/transparency-log.md, "Witnesses"), which is what makes the
    trust more than the operator's word."""

    vkey: str
    child: Child


def _kept_cosigner(path: Path, name: str) -> Cosigner:
    """The witness key kept at ``path``, made there at the first call (mode 0600)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        signer = parse_skey(path.read_text(encoding="utf-8").strip())
        if not isinstance(signer, Cosigner):
            raise RunError(f"{path} holds no witness key (type 0x04): move it away") from None
        return signer
    cosigner = Cosigner(name, secrets.token_bytes(32))
    with os.fdopen(fd, "w") as f:
        f.write(cosigner.skey + "\n")
    return cosigner


class RunError(Exception):
    """``belot run`` cannot start: said in one line, exit status 2."""


@dataclass
class Child:
    name: str
    argv: list[str]
    env: dict[str, str]
    port: int | None
    proc: asyncio.subprocess.Process | None = None
    restarts: int = 0
    started_at: float = 0.0
    backoff: float = 1.0
    history: list[int] = field(default_factory=list)  # exit codes of earlier runs


def free_port_from(port: int) -> int:
    """``port``, or the next one up that nothing listens on (connections a stopped
    worker left in TIME_WAIT do not count: a quick restart keeps its ports)."""
    while port < 65535:
        if port_is_free(port):
            return port
        port += 1
    raise RunError("no free port for a table worker")


def _cannot(what: str, exc: OSError) -> str:
    where = f" {exc.filename}" if exc.filename else ""
    return f"cannot {what}:{where}: {exc.strerror or exc} (BELOT_DATA_DIR)"


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Supervisor:
    def __init__(
        self,
        settings: Settings,
        *,
        table_workers: int = 2,
        demo: Callable[[Settings, asyncio.Event], Coroutine[Any, Any, None]] | None = None,
        progress_every: float = 2.0,
    ) -> None:
        self.settings = settings
        self.table_workers = table_workers
        self.demo = demo
        self.progress_every = progress_every
        self.children: list[Child] = []
        self.stack: EmbeddedStack | None = None
        self.stopping = asyncio.Event()
        self.resolved: Settings = settings
        self.log_dir = settings.data_dir.absolute() / "logs"
        #: Service -> the PostgreSQL URL of its own role (filled by setup_database).
        self.role_dsns: dict[str, str] = {}

    # ------------------------------------------------------------------ servers

    def start_servers(self) -> Settings:
        pg, nats = self.settings.pg_dsn, self.settings.nats_url
        if pg is None or nats is None:
            self.stack = EmbeddedStack(self.settings)
            if pg is None:
                _say(f"starting the embedded PostgreSQL under {self.stack.data_dir}/pg ...")
                pg = self.stack.start_postgres()
            if nats is None:
                _say(f"starting the embedded nats-server under {self.stack.data_dir}/nats ...")
                nats = self.stack.start_nats()
        self.resolved = self.settings.with_servers(pg, nats)
        return self.resolved

    def stop_servers(self) -> None:
        if self.stack is not None:
            _say("stopping the embedded servers ...")
            with contextlib.suppress(Exception):
                if self.stack.nats.started:
                    self.stack.nats.stop()
            with contextlib.suppress(Exception):
                if self.stack.postgres.started:
                    self.stack.postgres.stop()

    # ------------------------------------------------------------------ children

    def plan(self) -> list[Child]:
        s = self.resolved
        assert s.pg_dsn is not None and s.nats_url is not None
        # No child sees another role's password, nor the admin's URL: each gets its own
        # role's URL in BELOT_PG_DSN (the variables setup read stay with us).
        # The verify service's read URL (a password in it) is verify's alone.
        hidden = {f"BELOT_PG_{r.upper()}_PASSWORD" for r in ("owner", *DB_ROLES)}
        hidden.add("BELOT_VERIFY_READ_DSN")
        base = {k: v for k, v in os.environ.items() if k not in hidden}
        base |= {"BELOT_PG_DSN": s.pg_dsn, "BELOT_NATS_URL": s.nats_url}
        base.setdefault("BELOT_LOG_LEVEL", "WARNING")
        belot = [sys.executable, "-m", "commands.cli"]
        children: list[Child] = []
        read_dsn = os.environ.get("BELOT_VERIFY_READ_DSN")

        def env_of(name: str) -> dict[str, str]:
            env = {**base, "BELOT_PG_DSN": self.role_dsns.get(name, s.pg_dsn or "")}
            if name == "verify" and read_dsn is not None:
                env["BELOT_VERIFY_READ_DSN"] = read_dsn
            return env

        for name in ORDER:
            if name not in REGISTRY:
                continue
            if name == "table":
                for i in range(self.table_workers):
                    port = s.port("table") if i == 0 else free_port_from(EXTRA_TABLE_PORT + i)
                    env = {**env_of("table"), "BELOT_TABLE_PORT": str(port)}
                    children.append(Child(f"table-{i + 1}", [*belot, "serve", "table"], env, port))
            else:
                children.append(Child(name, [*belot, "serve", name], env_of(name), s.port(name)))
        # The gateway's /status page scrapes every process, the extra table workers too.
        host = s.http_host if s.http_host not in ("0.0.0.0", "::") else "127.0.0.1"
        witness = self.witness(belot, f"http://{host}:{s.port('verify')}")
        for child in children:
            if child.name == "verify":
                configured = [*s.translog_witnesses, witness.vkey]
                child.env["BELOT_TRANSLOG_WITNESSES"] = ",".join(dict.fromkeys(configured))
        children.append(witness.child)
        targets = ",".join(f"{c.name}={host}:{c.port}" for c in children if c.port)
        for child in children:
            if child.name == "gateway":
                child.env["BELOT_STATUS_TARGETS"] = targets
        return children

    def witness(self, belot: list[str], api: str) -> LocalWitness:
        """The witness this run starts (see :class:`LocalWitness`)."""
        s = self.resolved
        home = s.data_dir.absolute() / WITNESS_DIR
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = home / "key"
        cosigner = _kept_cosigner(key, f"{WITNESS_NAME}/{s.translog_origin}")
        log_vkey = log_signer(s).vkey
        # Nothing of the platform's: no database, no NATS, no secret of the log. What it
        # knows of the log it reads from the public API, as any witness does.
        env = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_")}
        argv = [
            *belot, "witness", "run", "--api", api, "--log-key", log_vkey,
            "--key", str(key), "--state", str(home / "state"),
        ]  # fmt: skip
        return LocalWitness(cosigner.vkey, Child("witness", argv, env, None))

    async def spawn(self, child: Child) -> None:
        # Each service logs to its own file: the terminal keeps the progress line.
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_dir / f"{child.name}.log", "ab") as log:
            child.proc = await asyncio.create_subprocess_exec(
                *child.argv,
                env=child.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        child.started_at = time.monotonic()

    async def watch(self, child: Child) -> None:
        """Restart ``child`` whenever it exits while the supervisor is not stopping."""
        while not self.stopping.is_set():
            assert child.proc is not None
            code = await child.proc.wait()
            if self.stopping.is_set():
                return
            child.history.append(code)
            lived = time.monotonic() - child.started_at
            child.backoff = 1.0 if lived > 60 else min(child.backoff * 2, MAX_BACKOFF)
            _say(f"{child.name} exited with status {code}; restarting in {child.backoff:.0f} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), child.backoff)
            if self.stopping.is_set():
                return
            child.restarts += 1
            await self.spawn(child)

    async def stop_children(self) -> None:
        grace = self.settings.shutdown_timeout + 5
        for child in reversed(self.children):
            if child.proc is not None and child.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    child.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for child in reversed(self.children):
            if child.proc is None or child.proc.returncode is not None:
                continue
            try:
                await asyncio.wait_for(child.proc.wait(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                _say(f"{child.name} did not stop in {grace:.0f} s: killing it")
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
                await child.proc.wait()

    async def healthy(self, timeout: float = 60.0) -> bool:
        """Wait until every child with an HTTP port answers /healthz."""
        deadline = time.monotonic() + timeout
        host = self.resolved.http_host
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as http:
            for child in self.children:
                if child.port is None:
                    continue
                while True:
                    try:
                        async with http.get(f"http://{host}:{child.port}/healthz") as r:
                            if r.status == 200:
                                break
                    except (aiohttp.ClientError, TimeoutError):
                        pass
                    if time.monotonic() > deadline or self.stopping.is_set():
                        return False
                    await asyncio.sleep(0.2)
        return True

    # ------------------------------------------------------------------ progress

    async def progress(self) -> None:
        """One line, rewritten in place: tables in play, deals, events, drand fallbacks."""
        assert self.resolved.pg_dsn is not None
        schema = self.resolved.pg_schema
        tty = sys.stderr.isatty()
        conn: Any = None
        try:
            while not self.stopping.is_set():
                try:
                    if conn is None:
                        conn = await asyncpg.connect(self.resolved.pg_dsn)
                    row = await conn.fetchrow(PROGRESS_SQL.format(schema=schema))
                    restarts = sum(c.restarts for c in self.children)
                    line = (
                        f"tables in play {row['in_play']:>4} | deals {row['deals']:>6} | "
                        f"events {row['events']:>8} | drand fallbacks {row['fallbacks']:>4} | "
                        f"restarts {restarts}"
                    )
                    # On a terminal the line is rewritten in place; in a log, one a line.
                    sys.stderr.write(f"\r{line}   " if tty else f"{line}\n")
                    sys.stderr.flush()
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                    # The log is not there yet, or the server restarts: try again.
                    if conn is not None:
                        with contextlib.suppress(Exception):
                            await conn.close()
                    conn = None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), self.progress_every)
        finally:
            if conn is not None:
                await conn.close()
            sys.stderr.write("\n")

    # ------------------------------------------------------------------ main

    def lock(self) -> None:
        """One supervisor per data directory: a second ``belot run`` would share (and then
        stop) the first one's embedded servers."""
        path = self.settings.data_dir.absolute()
        path.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(path / "run.lock", "a+", encoding="utf-8")  # noqa: SIM115 - held while running
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock_file.seek(0)
            pid = self._lock_file.read().strip() or "?"
            raise RunError(
                f"another belot run (pid {pid}) is using {path}; stop it first, or set "
                "BELOT_DATA_DIR to another directory"
            ) from None
        self._lock_file.seek(0)
        self._lock_file.truncate()
        self._lock_file.write(str(os.getpid()))
        self._lock_file.flush()

    async def run(self) -> int:
        try:
            self.lock()
        except OSError as exc:
            raise RunError(_cannot("use the data directory", exc)) from None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stopping.set)
        try:
            self.start_servers()
        except (EmbeddedError, OSError) as exc:
            # A configuration the servers cannot run with (a data directory PostgreSQL's
            # user cannot enter, one that is not a directory): said in words, and
            # whatever this run started is stopped.
            self.stop_servers()
            if isinstance(exc, EmbeddedError):
                raise RunError(str(exc)) from None
            raise RunError(_cannot("start the embedded servers", exc)) from None
        try:
            await self.setup_database()
        except BaseException:
            self.stop_servers()  # the ones this run started: nothing is left behind
            raise
        self.children = self.plan()
        watchers = []
        demo: asyncio.Task[None] | None = None
        try:
            for child in self.children:
                await self.spawn(child)
                watchers.append(asyncio.create_task(self.watch(child)))
            if await self.healthy():
                self.print_urls()
                if self.demo is not None:
                    demo = asyncio.create_task(self.demo(self.resolved, self.stopping))
            elif not self.stopping.is_set():
                _say("some services did not answer /healthz within 60 s; still trying")
            await self.progress()
            return 0
        finally:
            self.stopping.set()
            if demo is not None:
                demo.cancel()
            await self.stop_children()
            for w in watchers:
                w.cancel()
            self.stop_servers()
            _say("stopped")

    async def setup_database(self) -> None:
        """``belot db setup`` with the resolved URL as the admin's: the roles, every
        schema migrated by the owner, the grants. Each service role gets a password made
        for this run (or its BELOT_PG_<ROLE>_PASSWORD), set on the server before any
        child starts; the children get URLs with them (see plan)."""
        s = self.resolved
        assert s.pg_dsn is not None
        passwords = {r: s.pg_passwords.get(r) or secrets.token_hex(24) for r in DB_ROLES}
        if "owner" in s.pg_passwords:
            passwords["owner"] = s.pg_passwords["owner"]
        try:
            report = await db.setup(s.pg_dsn, db.Layout.of(s), s.pg_role_prefix, passwords)
        except db.SetupError as exc:
            raise RunError(f"setting the database up: {exc}") from None
        self.role_dsns = {r: role_dsn(s.pg_dsn, report.roles[r], passwords[r]) for r in DB_ROLES}

    def print_urls(self) -> None:
        s = self.resolved
        host = s.http_host
        lines = ["", "the platform is up:"]
        for child in self.children:
            if child.port is not None:
                lines.append(f"  {child.name:<12} http://{host}:{child.port}/  (metrics: /metrics)")
        if "gateway" in REGISTRY:
            lines.append(f"  lobby         http://{host}:{s.port('gateway')}/")
            lines.append(f"  status page   http://{host}:{s.port('gateway')}/status")
        if "verify" in REGISTRY:
            lines.append(f"  verify API    http://{host}:{s.port('verify')}/v1/matches")
        lines.append(f"service logs: {self.log_dir}/   Ctrl-C stops everything.")
        _say("\n".join(lines))


PROGRESS_SQL: Final = """
SELECT
  (SELECT count(DISTINCT stream_id) FROM {schema}.events s
    WHERE s.type = 'MatchStarted' AND NOT EXISTS (
      SELECT 1 FROM {schema}.events e WHERE e.stream_id = s.stream_id
        AND e.type IN ('MatchEnded', 'MatchForfeited', 'MatchAborted'))) AS in_play,
  (SELECT count(*) FROM {schema}.events WHERE type = 'DealStarted') AS deals,
  (SELECT coalesce(max(position), 0) FROM {schema}.events) AS events,
  (SELECT count(*) FROM {schema}.events WHERE type = 'DrandFallback') AS fallbacks
"""


def cmd_run(args: Any) -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        sys.stderr.write(f"belot run: error: {exc}\n")
        return 2
    demo = None if args.no_demo else functools.partial(run_demo, bot_delay_ms=args.demo_delay)
    supervisor = Supervisor(settings, table_workers=args.table_workers, demo=demo)
    try:
        return asyncio.run(supervisor.run())
    except RunError as exc:
        sys.stderr.write(f"belot run: error: {exc}\n")
        return 2


def _bot_delay(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= MAX_BOT_DELAY_MS:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number from 0 to {MAX_BOT_DELAY_MS}")
    return int(text)


def register(sub: Any) -> None:
    run = sub.add_parser(
        "run",
        help="run the whole platform (embedded servers unless BELOT_PG_DSN/BELOT_NATS_URL)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    run.add_argument("--table-workers", type=int, default=2, metavar="N")
    run.add_argument("--no-demo", action="store_true", help="start the services only")
    run.add_argument(
        "--demo-bot-delay-ms",
        dest="demo_delay",
        type=_bot_delay,
        default=BOT_DELAY_MS,
        metavar="MS",
        help=f"the demo's bots' pause before each move (default {BOT_DELAY_MS}: a human's pace)",
    )
    run.set_defaults(handler=cmd_run)
