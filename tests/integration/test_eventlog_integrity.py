"""The log defends itself: append-only in the database, and `belot log verify` finds a
tampered, removed or truncated event and names it."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import orjson
import pytest

from commands.cli import main as belot
from eventlog import EventStore, NewEvent, migrate
from eventlog.migrations import APPEND_ONLY_SQLSTATE
from tests.integration.conftest import Servers

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]
ROOT = Path(__file__).resolve().parents[2]


async def _fill(store: EventStore) -> None:
    for m in range(3):
        for v in range(4):
            await store.append(f"match-{m}", v, [NewEvent("Played", {"m": m, "v": v})])


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE {s}.events SET payload = '{{}}' WHERE position = 1",
        "DELETE FROM {s}.events WHERE position = 1",
        "TRUNCATE {s}.events",
    ],
    ids=["update", "delete", "truncate"],
)
async def test_the_database_refuses_changes_to_events(
    store: EventStore, pg_pool: asyncpg.Pool, schema: str, statement: str
) -> None:
    await _fill(store)
    with pytest.raises(asyncpg.PostgresError) as info:
        await pg_pool.execute(statement.format(s=f'"{schema}"'))
    assert info.value.sqlstate == APPEND_ONLY_SQLSTATE
    assert "append-only" in str(info.value)
    assert await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".events') == 12


async def test_the_application_role_may_append_but_not_change(
    pg_pool: asyncpg.Pool, schema: str
) -> None:
    role = f"t_app_{uuid.uuid4().hex[:10]}"
    await pg_pool.execute(f'CREATE ROLE "{role}"')
    try:
        async with pg_pool.acquire() as conn:
            await migrate(conn, schema, app_role=role)
        store = EventStore(pg_pool, schema)
        async with pg_pool.acquire() as conn:
            async with conn.transaction():
                await conn.execute(f'SET LOCAL ROLE "{role}"')
                r = await store.append_in(conn, "match-r", 0, [NewEvent("Played", {})])
                assert r.first_position == 1
            for statement in (
                f'UPDATE "{schema}".events SET type = $$X$$',
                f'DELETE FROM "{schema}".events',
                f'TRUNCATE "{schema}".events',
            ):
                async with conn.transaction():
                    await conn.execute(f'SET LOCAL ROLE "{role}"')
                    with pytest.raises(asyncpg.InsufficientPrivilegeError):
                        await conn.execute(statement)
        assert await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".events') == 1
    finally:
        await pg_pool.execute(f'DROP OWNED BY "{role}"; DROP ROLE "{role}"')


async def _verify(
    servers: Servers, schema: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    code = await asyncio.to_thread(
        belot, ["log", "verify", "--dsn", servers.pg_dsn, "--schema", schema]
    )
    return code, capsys.readouterr().out


async def _tamper(pg_pool: asyncpg.Pool, sql: str) -> None:
    """As a superuser with the triggers off for this session only."""
    async with pg_pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL session_replication_role = replica")
        await conn.execute(sql)


async def test_verify_passes_then_names_a_tampered_event(
    store: EventStore,
    pg_pool: asyncpg.Pool,
    schema: str,
    servers: Servers,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await _fill(store)
    code, out = await _verify(servers, schema, capsys)
    assert code == 0, out
    assert out.startswith("ok: 12 events in 3 streams")

    e = (await store.read_stream("match-1"))[2]
    await _tamper(
        pg_pool,
        f'UPDATE "{schema}".events SET payload = \'{{"m": 1, "v": 99}}\' '
        f"WHERE position = {e.position}",
    )
    code, out = await _verify(servers, schema, capsys)
    assert code == 1
    assert out.startswith(f"FAILED: stream match-1 version 3 position {e.position}: hash mismatch")


async def test_verify_names_a_removed_event_and_a_cut_tail(
    store: EventStore,
    pg_pool: asyncpg.Pool,
    schema: str,
    servers: Servers,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await _fill(store)
    events = await store.read_stream("match-2")
    await _tamper(pg_pool, f'DELETE FROM "{schema}".events WHERE position = {events[1].position}')
    code, out = await _verify(servers, schema, capsys)
    assert code == 1
    gone = events[1].position
    assert out.startswith(f"FAILED: position {gone}: positions {gone}..{gone} are missing")
    assert (
        f"stream match-2 version 3 position {events[2].position}: version 3 follows version 1"
        in out
    )

    # The last event of the last stream: every chain still holds, the head gives it away.
    last = await store.head_position()
    await _tamper(pg_pool, f'DELETE FROM "{schema}".events WHERE position = {last}')
    code, out = await _verify(servers, schema, capsys)
    assert code == 1
    assert f"the log head says {last} but the last event is at {last - 1}" in out


async def test_verify_command_exit_codes(servers: Servers, store: EventStore, schema: str) -> None:
    """The installed `belot` command: 0 on a sound log, 2 with one line when the database
    cannot be reached or holds no log."""
    await _fill(store)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "commands.cli", "log", "verify", *args],
            capture_output=True,
            encoding="utf-8",
            cwd=ROOT,
            timeout=60,
        )

    ok = await asyncio.to_thread(run, "--dsn", servers.pg_dsn, "--schema", schema)
    assert ok.returncode == 0, ok.stderr
    down = await asyncio.to_thread(run, "--dsn", "postgresql://postgres@127.0.0.1:1/none")
    assert down.returncode == 2 and down.stdout == ""
    assert down.stderr.count("\n") == 1 and "cannot connect" in down.stderr
    missing = await asyncio.to_thread(run, "--dsn", servers.pg_dsn, "--schema", "t_nothing_here")
    assert missing.returncode == 2 and "no event log in schema" in missing.stderr


async def test_tail_prints_json_lines_and_follows(
    store: EventStore, schema: str, servers: Servers, capsys: pytest.CaptureFixture[str]
) -> None:
    await _fill(store)
    code = await asyncio.to_thread(
        belot,
        [
            "log",
            "tail",
            "--dsn",
            servers.pg_dsn,
            "--schema",
            schema,
            "--from-position",
            "5",
            "--stream",
            "match-1",
            "--no-follow",
        ],
    )
    lines = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [(e["stream"], e["version"]) for e in lines] == [("match-1", v) for v in (1, 2, 3, 4)]
    assert lines[0]["position"] == 5 and len(lines[0]["hash"]) == 64

    # Following: a running `belot log tail` prints events appended after it started. From
    # the position after the head it was started at, so that a slow start (a loaded
    # machine) cannot begin after the append and wait for ever.
    head = await store.head_position()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "commands.cli",
        "log",
        "tail",
        "--dsn",
        servers.pg_dsn,
        "--schema",
        schema,
        "--from-position",
        str(head + 1),  # the first position to print
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        # It says on stderr when it LISTENs: the append below then wakes it.
        ready = await asyncio.wait_for(proc.stderr.readline(), 20)
        assert ready.decode() == f"following the log after position {head}\n"
        await store.append("match-9", 0, [NewEvent("Late", {"x": 1})])
        assert proc.stdout is not None
        line = orjson.loads(await asyncio.wait_for(proc.stdout.readline(), 20))
        assert (line["stream"], line["type"], line["position"]) == ("match-9", "Late", 13)
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
