"""A stranger's witness cannot hide the witness a reader trusts (issue 28, case 8).

Found live: a stranger registered a key and cosigned each checkpoint within 0.1 s of its
signing; the honest witness, polling every second, cosigned the next one. The entries
route then pointed every entry at a checkpoint only the stranger had cosigned (the first
checkpoint *anyone* cosigned), and a reader trusting the honest witness failed
``log_timing`` on 27 of 37 honest matches.

Played here on a real log (the verify service on PostgreSQL, over HTTP): the stranger is
``belot witness run --register`` in its own process, polling every 0.05 s; the honest
witness is the same code in-process (:func:`commands.witness_cmd.witness_once`) with a
clock on the generated matches' timeline (their times are matchgen's, years before the
wall clock: a witness on the wall clock would be late for every round). Each match is
written in three steps, as a table writes it: the commitment, the round's naming, the
rest; after each the log signs and the stranger cosigns first; the honest witness
cosigns after the second and the third only, as a witness a second late does. Then for
every match: what the old lookup served (the first checkpoint anyone cosigned) is a
checkpoint the honest witness never cosigned, which the old check failed on, and
``log_timing`` for a reader trusting the honest witness passes."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from commands.logcheck import log_checks
from commands.translog_client import LogClient
from commands.witness_cmd import Witness, witness_once
from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.test_translog_service import LOG_KEY, log_settings, stored_entries
from tests.integration.test_witness import ROOT, belot, checkpoint_of
from tools.matchgen import START_MS, Append, MatchSpec, generate, stored_record
from translog import Cosigner, TooFewCosignatures, open_checkpoint, parse_vkey

pytestmark = pytest.mark.asyncio(loop_scope="session")

HONEST = Cosigner("witness.test/honest", bytes(range(5, 37)))
#: The honest witness's clock: the generated matches' timeline, before their rounds
#: were due (as test_translog_checks.IN_TIME).
IN_TIME = START_MS // 1000
MATCHES = 16


class Writer:
    """Appends a generated match's appends in steps, keeping each stream's version
    across them (tools.matchgen.write, cut where a table would pause)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.versions: dict[str, int] = {}

    async def write(self, appends: list[Append]) -> None:
        for a in appends:
            if a.stream.startswith("drand-") and a.stream not in self.versions:
                known = await self.store.read_stream(a.stream)
                if known:  # another match named the same round: its fact is there
                    self.versions[a.stream] = known[-1].version
                    continue
            result = await self.store.append(a.stream, self.versions.get(a.stream, 0), a.events)
            self.versions[a.stream] = result.last_version


def steps(appends: list[Append]) -> list[list[Append]]:
    """The commitment; the round's naming; the rest."""

    def at(kind: str) -> int:
        return next(i for i, a in enumerate(appends) if any(e.type == kind for e in a.events))

    commit, named = at("ServerSeedCommitted"), at("DrandRoundNamed")
    assert commit < named
    return [appends[: commit + 1], appends[commit + 1 : named + 1], appends[named + 1 :]]


async def cosigned(pg_pool: Any, schema: str, name: str, size: int) -> None:
    """Wait until ``name`` has cosigned the checkpoint of ``size``."""
    sql = f'SELECT 1 FROM "{schema}".verify_cosignatures WHERE size = $1 AND witness = $2'
    for _ in range(400):
        if await pg_pool.fetchval(sql, size, name):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{name} did not cosign the checkpoint of {size}")


async def test_a_stranger_cosigning_first_hides_no_trusted_witness(
    servers: Any, pg_pool: Any, schema: str, tmp_path: Path
) -> None:
    started = time.monotonic()
    key_file, state = tmp_path / "stranger.key", tmp_path / "stranger.state"
    rc, out, _ = await belot("witness", "keygen", "witness.test/stranger", "--key", str(key_file))
    assert rc == 0
    stranger_key = parse_vkey(out.strip())
    stranger = stranger_key.name
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema),
        translog_witnesses=(HONEST.vkey,),
    )
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    api = str(client.make_url("")).rstrip("/")
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    writer = Writer(store)
    honest = Witness(LOG_KEY.verifier(), HONEST, tmp_path / "honest.state")
    fast = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "commands.cli", "witness", "run", "--register", "--api", api,
        "--log-key", LOG_KEY.verifier().vkey, "--key", str(key_file), "--state", str(state),
        "--interval", "0.05",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    ids = []
    try:
        for i in range(MATCHES):
            spec = MatchSpec(match_id=f"ws-{i}-{uuid.uuid4().hex[:6]}", label=f"ws-{i}")
            ids.append(spec.match_id)
            for step, appends in enumerate(steps(generate(spec))):
                await writer.write(appends)
                n = len(await stored_entries(pg_pool, schema))
                await checkpoint_of(client, n)
                await cosigned(pg_pool, schema, stranger, n)  # the stranger, first
                if step > 0:  # the honest witness, a checkpoint late
                    line = await witness_once(honest, api, clock=lambda: IN_TIME)
                    assert f"size {n}: cosigned" in line
        written = time.monotonic() - started

        old_failed = new_passed = 0
        async with LogClient(api) as log:
            for match_id in ids:
                rows = await log.entries(
                    match=match_id, witnesses=[(stranger, stranger_key.key_id)]
                )
                commitment = next(
                    r
                    for r in rows
                    if isinstance(logentries.parse_entry(r.data), logentries.Commitment)
                )
                # The old lookup: the first checkpoint holding the entry that anyone
                # cosigned. Only the stranger cosigned it, and the old log_timing
                # failed on it ("no trusted witness cosigned a checkpoint holding the
                # commitment").
                old = await pg_pool.fetchval(
                    f'SELECT size FROM "{schema}".verify_cosignatures WHERE size > $1 '
                    "ORDER BY size LIMIT 1",
                    commitment.index,
                )
                note = await log.checkpoint(old)
                with pytest.raises(TooFewCosignatures):
                    open_checkpoint(note, LOG_KEY.verifier(), [HONEST.verifier()], quorum=1)
                old_failed += 1
                # Now: `witnessed` is the configured (honest) witness's, later than the
                # stranger's; each witness's own first is in witnessed_by.
                assert commitment.witnessed_size is not None and commitment.witnessed_size > old
                mine = commitment.by(HONEST.name, HONEST.key_id)
                theirs = commitment.by(stranger, stranger_key.key_id)
                assert mine is not None and mine.size == commitment.witnessed_size
                assert theirs is not None and theirs.size == old

                record = await stored_record(store, match_id)
                found = await log_checks(
                    record, api, LOG_KEY.verifier(), witnesses=[HONEST.verifier()]
                )
                timing = next(c for c in found if c.name == "log_timing")
                assert timing.status == "pass", timing.detail
                assert HONEST.name in timing.detail and stranger not in timing.detail
                assert all(c.status == "pass" for c in found), [
                    (c.name, c.detail) for c in found if c.status != "pass"
                ]
                new_passed += 1
    finally:
        fast.terminate()
        f_out, f_err = await asyncio.wait_for(fast.communicate(), 30)
        await client.close()
        await store.close()
    assert fast.returncode == 0, f_err.decode()
    assert "registered witness.test/stranger+" in f_out.decode()
    cosignatures = f_out.decode().count("cosigned at")
    assert old_failed == new_passed == MATCHES
    print(
        f"\n{MATCHES} honest matches in {written:.1f} s, the stranger cosigning first "
        f"({cosignatures} cosignatures): the old lookup failed {old_failed}/{MATCHES}, "
        f"log_timing trusting the honest witness passed {new_passed}/{MATCHES} "
        f"({time.monotonic() - started:.1f} s in all)"
    )
