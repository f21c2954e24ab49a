"""Failover: two table workers (``belot serve table`` subprocesses), 20 bot tables in play;
the owner of half of them is killed with SIGKILL. Every table finishes, ``belot log
verify`` passes, every match replays (no event lost or doubled), and the takeover time
is reported."""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.table_support import check_decks, platform, replay_match, wait_for_table

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLES = 20
LEASE_TTL = 2.0


def start_worker(
    servers, schema: str, prefix: str, js_names, log: Path, lease_ttl: float = LEASE_TTL
) -> subprocess.Popen:
    env = {
        **os.environ,
        "BELOT_PG_DSN": servers.pg_dsn,
        "BELOT_NATS_URL": servers.nats_url,
        "BELOT_PG_SCHEMA": schema,
        "BELOT_SUBJECT_PREFIX": prefix,
        "BELOT_LEASE_TTL": str(lease_ttl),
        "BELOT_TABLE_PORT": "0",
        "BELOT_EVENTS_STREAM": js_names.stream,
        "BELOT_EVENTS_SUBJECT": js_names.subject_prefix,
        "BELOT_LOG_LEVEL": "INFO",
        "BELOT_DATA_DIR": str(log.parent),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "commands.cli", "serve", "table"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
        cwd=Path(__file__).resolve().parents[2],
    )


async def owners(nc, prefix: str, table_ids: list[str]) -> dict[str, str]:
    kv = await nc.jetstream().key_value(f"{prefix}_table_leases")
    out = {}
    for t in table_ids:
        try:
            out[t] = (await kv.get(t)).value.decode()
        except Exception:
            out[t] = ""
    return out


async def test_a_killed_worker_loses_no_card(
    servers, store, pg_pool, nc, js_names, schema, tmp_path, capsys
) -> None:
    async with platform(store, pg_pool, nc, js_names, workers=0, relay=False) as p:
        logs = [tmp_path / f"worker{i}.log" for i in range(2)]
        procs = [start_worker(servers, schema, p.prefix, js_names, log) for log in logs]
        try:
            await wait_for_workers(logs)
            created = [
                await p.create(
                    ruleset="club" if i % 2 else "gambler",
                    seats=["bot:easy"] * (4 if i % 2 else 2),
                    bot_delay_ms=25,
                    command_id=f"failover-{i}",
                )
                for i in range(TABLES)
            ]
            ids = [c["table_id"] for c in created]
            by_pid = {pr.pid: pr for pr in procs}
            await asyncio.sleep(2.5)  # the matches are under way
            held = await owners(nc, p.prefix, ids)
            pids = [int(v.split("-")[-2]) for v in held.values()]
            victim = max(by_pid, key=pids.count)
            orphans = [t for t, v in held.items() if int(v.split("-")[-2]) == victim]
            before = {t: await store.stream_version(f"match-{c['match_id']}")
                      for t, c in zip(ids, created, strict=True)}  # fmt: skip
            by_pid[victim].send_signal(signal.SIGKILL)
            killed_at = time.time()
            by_pid[victim].wait()
            for t in ids:
                await wait_for_table(store, t, "TableClosed", timeout=180)
            survivor = next(pr for pr in procs if pr.pid != victim)
            survivor.send_signal(signal.SIGTERM)
            assert survivor.wait(timeout=30) == 0
        finally:
            for pr in procs:
                if pr.poll() is None:
                    pr.kill()
                    pr.wait()

    # Takeover: from the kill to the first event the new owner appended.
    takeovers = []
    for t, c in zip(ids, created, strict=True):
        if t not in orphans:
            continue
        after = [e for e in await store.read_stream(f"match-{c['match_id']}", before[t] + 1)]
        later = [e.recorded_at.timestamp() for e in after if e.recorded_at.timestamp() > killed_at]
        table_after = [
            e.recorded_at.timestamp()
            for e in await store.read_stream(f"table-{t}")
            if e.recorded_at.timestamp() > killed_at
        ]
        takeovers.append(min(later + table_after) - killed_at)
    print(
        f"\nfailover: {len(orphans)} of {TABLES} tables orphaned by SIGKILL; takeover "
        f"median {statistics.median(takeovers):.2f} s, max {max(takeovers):.2f} s "
        f"(lease TTL {LEASE_TTL} s)"
    )
    assert TABLES // 4 <= len(orphans) <= TABLES
    assert max(takeovers) < LEASE_TTL + 5

    for t, c in zip(ids, created, strict=True):
        match = await store.read_stream(f"match-{c['match_id']}")
        state, tail = replay_match(match)  # a lost or doubled event would not replay
        assert not tail and match[-1].type == "MatchEnded" and state.result is not None
        assert list(state.result.scores) == match[-1].payload["scores"]
        table = [e.type for e in await store.read_stream(f"table-{t}")]
        assert table.count("TableMatchFinished") == 1 and table[-1] == "TableClosed"
        assert await check_decks(store, c["match_id"]) >= 1
    verify = subprocess.run(
        [sys.executable, "-m", "commands.cli", "log", "verify", "--dsn", servers.pg_dsn,
         "--schema", schema],
        capture_output=True,
        encoding="utf-8",
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout + verify.stderr
    with capsys.disabled():
        print(f"takeover times (s): {sorted(round(x, 2) for x in takeovers)}")


async def wait_for_workers(logs: list[Path], timeout: float = 30) -> None:
    """Until every worker's log says it started."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if all(f.exists() and b"table worker started" in f.read_bytes() for f in logs):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(
        "the table workers did not start: " + logs[0].read_text(encoding="utf-8")[-2000:]
    )


async def test_sigterm_hands_tables_over_without_waiting_for_the_ttl(
    servers, store, pg_pool, nc, js_names, schema, tmp_path
) -> None:
    ttl = 30.0
    async with platform(store, pg_pool, nc, js_names, workers=0, relay=False) as p:
        logs = [tmp_path / f"worker{i}.log" for i in range(2)]
        procs = []
        for log in logs:
            proc = start_worker(servers, schema, p.prefix, js_names, log, lease_ttl=ttl)
            procs.append(proc)
        try:
            await wait_for_workers(logs)
            created = [
                await p.create(ruleset="gambler", seats=["bot:easy"] * 2, bot_delay_ms=25)
                for _ in range(6)
            ]
            ids = [c["table_id"] for c in created]
            await asyncio.sleep(1.0)
            held = await owners(nc, p.prefix, ids)
            pids = [int(v.split("-")[-2]) for v in held.values()]
            victim = next(pr for pr in procs if pr.pid == max(set(pids), key=pids.count))
            mine = [t for t, v in held.items() if int(v.split("-")[-2]) == victim.pid]
            victim.send_signal(signal.SIGTERM)
            stopped_at = time.time()
            assert victim.wait(timeout=30) == 0
            await asyncio.sleep(0.5)
            now_held = await owners(nc, p.prefix, mine)
            assert all(v and int(v.split("-")[-2]) != victim.pid for v in now_held.values())
            for t in ids:
                await wait_for_table(store, t, "TableClosed", timeout=120)
        finally:
            for pr in procs:
                if pr.poll() is None:
                    pr.kill()
                    pr.wait()
    handover = time.time() - stopped_at
    assert handover < ttl  # every table finished long before a lease could expire
    for c in created:
        match = await store.read_stream(f"match-{c['match_id']}")
        state, _ = replay_match(match)
        assert state.result is not None and match[-1].type == "MatchEnded"
