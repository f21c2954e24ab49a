"""``belot witness`` (the command, in its own process) against a real log: the verify
service on a real PostgreSQL, its tree written by the event store with the events. It
cosigns each checkpoint that extends the last it kept, and the log serves the
cosignatures; when the log shows a fork of its tree (the owner rewrote an entry and a
stolen key signed the new tree), it refuses: exit 1, one line, no cosignature, its
state unchanged. A witness the log's operator did not configure registers itself
(``--register``) and is collected and served; a log that refuses the registration
is one line, exit 2."""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from commands.translog_client import LogClient
from drand.clock import ScaledClock
from eventlog import EventStore
from fairdeal import logentries
from fairdeal.fairness import ROUND_LEAD_MS
from services.verify.app import LOG, create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.table_support import platform
from tests.integration.test_translog_service import (
    LOG_KEY,
    ORIGIN,
    log_settings,
    rewrite_entry,
    stored_entries,
)
from tools.matchgen import MatchSpec, generate, write
from translog import Checkpoint, open_checkpoint, parse_checkpoint, parse_vkey, sign_checkpoint

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]


async def belot(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "commands.cli",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def checkpoint_of(client: TestClient, size: int) -> str:  # type: ignore[type-arg]
    for _ in range(400):
        r = await client.get("/checkpoint")
        if r.status == 200:
            text = await r.text()
            if parse_checkpoint(text.split("\n\n")[0] + "\n").size == size:
                return text
        await asyncio.sleep(0.05)
    raise AssertionError(f"no checkpoint of size {size}")


def match(label: str) -> list[Any]:
    return generate(MatchSpec(match_id=f"w-{label}-{uuid.uuid4().hex[:6]}", label=label))


async def test_the_witness_cosigns_what_extends_and_refuses_a_fork(
    servers: Any, pg_pool: Any, schema: str, tmp_path: Path
) -> None:
    key_file, state = tmp_path / "witness.key", tmp_path / "state"
    rc, out, _ = await belot("witness", "keygen", "witness.test/w", "--key", str(key_file))
    assert rc == 0
    vkey = out.strip()
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    await write(store, match("a"))
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema), translog_witnesses=(vkey,)
    )
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    api = str(client.make_url("")).rstrip("/")
    run = ("witness", "run", "--once", "--api", api, "--log-key", LOG_KEY.verifier().vkey)
    run += ("--key", str(key_file), "--state", str(state))
    try:
        n1 = len(await stored_entries(pg_pool, schema))
        await checkpoint_of(client, n1)
        rc, out, err = await belot(*run)
        assert rc == 0, err
        assert f"size {n1}: cosigned" in out
        served = await (await client.get("/checkpoint")).text()
        signed = open_checkpoint(served, LOG_KEY.verifier(), [parse_vkey(vkey)], quorum=1)
        assert signed.cosignatures[0].name == "witness.test/w"

        # The log grows: the witness checks the consistency proof and cosigns again.
        await write(store, match("b"))
        n2 = len(await stored_entries(pg_pool, schema))
        await checkpoint_of(client, n2)
        rc, out, err = await belot(*run)
        assert rc == 0 and f"size {n2}: cosigned" in out, err
        kept = state.read_text(encoding="utf-8")
        assert parse_checkpoint(kept.split("\n\n")[0] + "\n").size == n2

        # A fork: entry 0 rewritten with the tree over it, the log grows on that tree
        # (a new store reads the forked frontier), and the stolen key signs it, which
        # the log's own signer refuses to do.
        forked_root = await rewrite_entry(pg_pool, schema, 0)
        assert forked_root
        fresh = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
        await write(fresh, match("c"))
        await fresh.close()
        n3 = len(await stored_entries(pg_pool, schema))
        root = await app[LOG].root(n3)
        note = sign_checkpoint(Checkpoint(ORIGIN, n3, root), LOG_KEY)
        await pg_pool.execute(
            f'INSERT INTO "{schema}".verify_checkpoints (size, root, note) VALUES ($1, $2, $3)',
            n3,
            root,
            note.to_text(),
        )
        await checkpoint_of(client, n3)
        rc, out, err = await belot(*run)
        assert rc == 1, (out, err)
        assert err.count("\n") == 1 and "split view" in err
        assert state.read_text(encoding="utf-8") == kept
        cosigned = await pg_pool.fetchval(
            f'SELECT count(*) FROM "{schema}".verify_cosignatures WHERE size = $1', n3
        )
        assert cosigned == 0
    finally:
        await client.close()
        await store.close()


async def test_a_witness_registers_itself_and_its_cosignatures_are_served(
    servers: Any, pg_pool: Any, schema: str, tmp_path: Path
) -> None:
    key_file, state = tmp_path / "witness.key", tmp_path / "state"
    rc, out, _ = await belot("witness", "keygen", "witness.test/open", "--key", str(key_file))
    assert rc == 0
    vkey = out.strip()
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    await write(store, match("r"))
    # A log whose operator configured no witness at all.
    base = log_settings(roles.dsn_for("verify", servers.pg_dsn), schema)
    settings = replace(base, translog_witnesses=())
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    api = str(client.make_url("")).rstrip("/")
    run = ("witness", "run", "--once", "--api", api, "--log-key", LOG_KEY.verifier().vkey)
    run += ("--key", str(key_file), "--state", str(state))
    try:
        n = len(await stored_entries(pg_pool, schema))
        await checkpoint_of(client, n)
        # Unregistered, its cosignature is refused (and nothing is kept).
        rc, out, err = await belot(*run)
        assert rc == 2 and "witness_unknown" in err and err.count("\n") == 1, (out, err)
        assert not state.exists()

        rc, out, err = await belot(*run, "--register")
        assert rc == 0, err
        assert "registered witness.test/open+" in out and f"size {n}: cosigned" in out
        served = await (await client.get("/checkpoint")).text()
        signed = open_checkpoint(served, LOG_KEY.verifier(), [parse_vkey(vkey)], quorum=1)
        assert signed.cosignatures[0].name == "witness.test/open"
        listed = await (await client.get("/v1/log/witnesses")).json()
        assert [(w["vkey"], w["source"]) for w in listed["witnesses"]] == [(vkey, "registered")]
        # Registering again is harmless.
        rc, out, err = await belot(*run, "--register")
        assert rc == 0 and "registered witness.test/open+" in out, err
    finally:
        await client.close()
        await store.close()


async def test_a_refused_registration_is_one_line_and_exit_2(
    servers: Any, pg_pool: Any, schema: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "witness.key"
    rc, _, _ = await belot("witness", "keygen", "witness.test/late", "--key", str(key_file))
    assert rc == 0
    base = log_settings(roles.dsn_for("verify", servers.pg_dsn), schema)
    settings = replace(base, translog_witnesses=(), translog_max_witnesses=0)
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    api = str(client.make_url("")).rstrip("/")
    try:
        rc, out, err = await belot(
            "witness", "run", "--register", "--api", api, "--log-key", LOG_KEY.verifier().vkey,
            "--key", str(key_file), "--state", str(tmp_path / "state"),
        )  # fmt: skip
        assert rc == 2 and out == "", (out, err)
        assert err.count("\n") == 1 and "witness_limit" in err, err
    finally:
        await client.close()


async def test_the_lead_leaves_a_running_witness_the_time_to_cosign_the_naming(
    servers: Any, pg_pool: Any, nc: Any, js_names: Any, schema: str, tmp_path: Path
) -> None:
    """The fair deal's round lead, in real time: a bot match played on the wall clock
    (drand's relays down, so it falls back: when its round was named is what counts
    here), the log signing at its default interval (BELOT_TRANSLOG_INTERVAL, 1 s) and
    ``belot witness run`` at its default interval, as separate processes would: ``belot
    verify --witness`` passes ``log_timing``, the commitment and the naming cosigned by
    the witness's own clock before the round was due."""
    key_file, state = tmp_path / "witness.key", tmp_path / "state"
    rc, out, _ = await belot("witness", "keygen", "witness.test/lead", "--key", str(key_file))
    assert rc == 0
    vkey = out.strip()
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema),
        translog_interval=Settings().translog_interval,
        translog_witnesses=(vkey,),
    )
    assert settings.translog_interval == 1.0
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    api = str(client.make_url("")).rstrip("/")
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    # No --interval: the default's, which is what a witness runs with.
    witness = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "commands.cli", "witness", "run", "--api", api,
        "--log-key", LOG_KEY.verifier().vkey, "--key", str(key_file), "--state", str(state),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        wall = ScaledClock(time.time(), 1.0)
        async with platform(store, pg_pool, nc, js_names, drand_mode="down", clock=wall) as p:
            created = await p.create(ruleset="gambler", seats=["bot:easy"] * 2, target=1)
            match_id = created["match_id"]
            await p.wait_closed(created["table_id"], timeout=90)
        # The reveal in a checkpoint the witness cosigned too (a round of each, 1 s).
        n = len(await stored_entries(pg_pool, schema))
        for _ in range(100):
            if _cosigned(state, n):
                break
            await asyncio.sleep(0.1)
        # The record, as anyone fetches it, and the witness's time against the round's due.
        response = await client.get(f"/v1/matches/{match_id}/record")
        assert response.status == 200, await response.text()
        record = await response.json()
        async with LogClient(api) as log:
            rows = await log.entries(match=match_id)
        rc, out, err = await belot(
            "verify", f"{api}/v1/matches/{match_id}", "--log-key", LOG_KEY.verifier().vkey,
            "--witness", vkey, "--json",
        )  # fmt: skip
    finally:
        witness.terminate()
        w_out, w_err = await asyncio.wait_for(witness.communicate(), 30)
        await client.close()
        await store.close()
    assert witness.returncode == 0, w_err.decode()
    assert "cosigned at" in w_out.decode()
    report = json.loads(out)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["log_timing"]["status"] == "pass", checks["log_timing"]
    assert rc == 0, ([c for c in report["checks"] if c["status"] != "pass"], err)
    randomness = record["streams"]["randomness"]["events"]
    commit = next(e["payload"] for e in randomness if e["type"] == "ServerSeedCommitted")
    closed = next(e["payload"] for e in randomness if e["type"] == "SeedWindowClosed")
    named = next(e["payload"] for e in randomness if e["type"] == "DrandRoundNamed")
    assert commit["round_lead_ms"] == ROUND_LEAD_MS
    assert named["due_at_ms"] > closed["at_ms"] + ROUND_LEAD_MS
    entry = next(
        r for r in rows if logentries.parse_entry(r.data).KIND == logentries.RoundNamed.KIND
    )
    assert entry.witnessed_note is not None
    opened = open_checkpoint(entry.witnessed_note, LOG_KEY.verifier(), [parse_vkey(vkey)], quorum=1)
    cosigned_ms = opened.cosignatures[0].timestamp * 1000
    print(
        f"\nround {named['round']} named {named['due_at_ms'] - named['at_ms']} ms before it was "
        f"due; the witness cosigned the naming {cosigned_ms - named['at_ms']} ms after it "
        f"(whole seconds), {named['due_at_ms'] - cosigned_ms} ms before the round was due"
    )
    assert cosigned_ms < named["due_at_ms"]


def _cosigned(state: Path, size: int) -> bool:
    """Whether the witness's kept checkpoint (the last it cosigned) is of ``size`` or more."""
    try:
        text = state.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return parse_checkpoint(text.split("\n\n")[0] + "\n").size >= size
