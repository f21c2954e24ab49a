"""``belot log verify | tail | relay``: the event log's command-line tools.

Exit status: 0 all good, 1 the log failed verification, 2 bad input or no database
(one line on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import Any

import asyncpg
import orjson

from belot_platform.errors import EXIT_USAGE, UsageError
from eventlog.envelope import RecordedEvent
from eventlog.migrations import MigrationError, quote_schema
from eventlog.store import EventStore
from eventlog.verify import verify_log

EXIT_BAD = 1
# EXIT_USAGE (2: a UsageError, bad input or no database, one line on stderr) is the
# platform's.


def _settings() -> Any:
    from belot_platform.settings import Settings, SettingsError

    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def _dsn(args: argparse.Namespace) -> str:
    if args.dsn:
        return str(args.dsn)
    settings = _settings()
    if settings.pg_dsn:
        return str(settings.pg_dsn)
    from belot_platform.embedded import running_postgres_dsn

    found = running_postgres_dsn(settings)
    if found is None:
        raise UsageError("no database: give --dsn or set BELOT_PG_DSN, or start the embedded stack")
    return found


def _schema(args: argparse.Namespace) -> str:
    schema = args.schema or _settings().pg_schema
    try:
        quote_schema(schema)
    except MigrationError as exc:
        raise UsageError(str(exc)) from None
    return str(schema)


async def _connect(dsn: str) -> Any:
    try:
        return await asyncpg.connect(dsn, timeout=10)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        raise UsageError(f"cannot connect to the database: {exc}".strip()) from None


async def _check_log(conn: Any, schema: str) -> None:
    exists = await conn.fetchval("SELECT to_regclass($1)", f'"{schema}".events')
    if exists is None:
        raise UsageError(f"no event log in schema {schema!r}")


async def _verify(args: argparse.Namespace) -> int:
    schema = _schema(args)
    conn = await _connect(_dsn(args))
    try:
        await _check_log(conn, schema)
        if await conn.fetchval("SELECT row_security_active($1)", f'"{schema}".events'):
            # Row-level security hides rows from this role: the versions would have
            # holes and the chains could not be checked. Say so instead of failing.
            user = await conn.fetchval("SELECT current_user")
            raise UsageError(
                f"role {user!r} may not see every event (row-level security hides the "
                "secret ones from it): verify with the log owner's or a superuser's URL"
            )
        report = await verify_log(conn, schema)
    finally:
        await conn.close()
    if report.ok:
        sys.stdout.write(
            f"ok: {report.events} events in {report.streams} streams, hash chains hold, "
            f"positions 1..{report.head_position} contiguous\n"
        )
        return 0
    first = report.first
    sys.stdout.write(f"FAILED: {first}\n")
    if len(report.problems) > 1:
        sys.stdout.write(f"({len(report.problems)} problems in all)\n")
        for p in sorted(report.problems, key=lambda p: p.position)[1:20]:
            sys.stdout.write(f"  {p}\n")
    return EXIT_BAD


async def _tail(args: argparse.Namespace) -> int:
    schema = _schema(args)
    dsn = _dsn(args)
    conn = await _connect(dsn)
    try:
        await _check_log(conn, schema)
    finally:
        await conn.close()
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    store = EventStore(pool, schema)
    stop = _stop_on_signals()
    try:
        if args.from_position is not None:
            after = max(0, args.from_position - 1)
        else:
            after = await store.head_position()
        if not args.follow:
            until = await store.head_position()
            while after < until:
                page = await store.read_all(after, 500, stream_id=args.stream)
                for event in page:
                    if event.position > until:
                        break
                    _print(event)
                if len(page) < 500:
                    break
                after = page[-1].position
            return 0
        async with store.subscribe(after, stream_id=args.stream) as sub:
            # On stderr, so that stdout stays one event a line: from here on, a commit
            # wakes the tail (it LISTENs), and a script may wait for this line.
            sys.stderr.write(f"following the log after position {after}\n")
            sys.stderr.flush()
            events = aiter(sub)
            while not stop.is_set():
                nxt = asyncio.ensure_future(anext(events))
                stopper = asyncio.ensure_future(stop.wait())
                done, _ = await asyncio.wait({nxt, stopper}, return_when=asyncio.FIRST_COMPLETED)
                stopper.cancel()
                if nxt not in done:
                    nxt.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await nxt
                    break
                _print(nxt.result())
    except BrokenPipeError:
        pass
    finally:
        await pool.close()
    return 0


def _print(event: RecordedEvent) -> None:
    sys.stdout.write(orjson.dumps(event.to_json_dict()).decode() + "\n")
    sys.stdout.flush()


async def _relay(args: argparse.Namespace) -> int:
    from belot_platform import messaging
    from eventlog.relay import OutboxRelay

    settings = _settings()
    schema = _schema(args)
    dsn = _dsn(args)
    url = args.nats_url or settings.nats_url
    if not url:
        from belot_platform.embedded import running_nats_url

        url = running_nats_url(settings)
    if not url:
        raise UsageError("no NATS: give --nats-url or set BELOT_NATS_URL")
    conn = await _connect(dsn)
    try:
        await _check_log(conn, schema)
    finally:
        await conn.close()
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=3)
    try:
        nc = await messaging.connect(url, name="eventlog-relay")
    except Exception as exc:
        await pool.close()
        raise UsageError(f"cannot connect to NATS at {url}: {exc}") from None
    store = EventStore(pool, schema)
    relay = OutboxRelay(
        store,
        nc.jetstream(),
        stream=args.stream or settings.events_stream,
        subject_prefix=args.subject_prefix or settings.events_subject,
        name=args.name,
    )
    from belot_platform.supervise import Supervisor

    stop = _stop_on_signals()
    # Supervised as in the table service: a failure (a server away) is logged and the
    # relay starts again after a back-off, until SIGTERM.
    supervisor = Supervisor()
    task = supervisor.spawn(
        "outbox-relay",
        lambda t: relay.run(t.stopping, t.beat),
        grace=relay.ack_timeout,
        stall_after=relay.stall_after,
    )
    try:
        await stop.wait()
        await task.stop()
    finally:
        await supervisor.stop()
        await nc.drain()
        await pool.close()
    return 0


def _stop_on_signals() -> asyncio.Event:
    """An event set on SIGTERM or SIGINT (when running in the main thread)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(RuntimeError, NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


def _run(coro_fn: Any) -> Any:
    def handler(args: argparse.Namespace) -> int:
        try:
            return int(asyncio.run(coro_fn(args)))
        except UsageError as exc:
            sys.stderr.write(f"belot log {args.log_command}: error: {exc}\n")
            return EXIT_USAGE

    return handler


def add_log_commands(sub: Any) -> Any:
    """Add ``log verify``, ``log tail`` and ``log relay`` to the ``belot`` subparsers;
    return the ``log`` group's subparsers (the platform adds its own commands there)."""
    log = sub.add_parser(
        "log",
        help="the event log: verify it, follow it, relay it to JetStream",
        description="The event log's tools.",
    )
    logsub = log.add_subparsers(dest="log_command", required=True, parser_class=type(log))

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--dsn", help="PostgreSQL URL (default: BELOT_PG_DSN, else embedded)")
        p.add_argument("--schema", help="schema of the log (default: BELOT_PG_SCHEMA)")

    verify = logsub.add_parser(
        "verify",
        help="check every stream's versions and hash chain",
        description=(
            "Check that every stream's versions are contiguous from 1, that its hash chain "
            "holds, and that global positions have no hole. Exit 0 if so; else print the "
            "first bad event (stream, version, position, what is wrong) and exit 1. "
            "Exit 2 if the database cannot be reached."
        ),
    )
    common(verify)
    verify.set_defaults(handler=_run(_verify))

    tail = logsub.add_parser(
        "tail",
        help="follow the log, one JSON line per event",
        description="Print events as JSON lines, then follow new ones until interrupted.",
    )
    common(tail)
    tail.add_argument("--stream", help="only this stream")
    tail.add_argument(
        "--from-position",
        type=int,
        metavar="N",
        help="start at global position N (default: only events appended from now on)",
    )
    tail.add_argument(
        "--no-follow",
        dest="follow",
        action="store_false",
        help="stop at the head instead of following",
    )
    tail.set_defaults(handler=_run(_tail))

    relay = logsub.add_parser(
        "relay",
        help="publish the log to JetStream (the outbox relay)",
        description="Publish every event to JetStream, exactly once and in order.",
    )
    common(relay)
    relay.add_argument("--nats-url", help="NATS URL (default: BELOT_NATS_URL)")
    relay.add_argument("--stream", help="JetStream stream (default: BELOT_EVENTS_STREAM)")
    relay.add_argument("--subject-prefix", help="subject prefix (default: BELOT_EVENTS_SUBJECT)")
    relay.add_argument("--name", default="jetstream", help="relay name (its offset row)")
    relay.set_defaults(handler=_run(_relay))
    return logsub
