"""``belot verify`` against the transparency log and ``belot log audit``, on a real log
(the verify service on PostgreSQL, entries written with their events). Each attack the
record alone cannot show is caught: a record whose match is missing from the log, a
rewritten log (a fork of the tree) against a checkpoint the user kept, a commitment
used by two matches, a round named after its value could be known (the witness's
time), fewer trusted witnesses in time than the reader's quorum, or none at all, an
entry without its events and a finished match without its entries."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from commands.log_audit import run_audit
from commands.logcheck import log_checks
from eventlog import EventStore, NewEvent
from eventlog.migrations import ENTRY_MISMATCH_SQLSTATE
from fairdeal import logentries
from services.verify.app import LOG, create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.test_translog_service import (
    LOG_KEY,
    ORIGIN,
    WITNESS,
    log_settings,
    rewrite_entry,
    stored_entries,
)
from tools.matchgen import START_MS, MatchSpec, generate, stored_record, write
from translog import Checkpoint, Cosigner, parse_checkpoint, sign_checkpoint

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]
GOOD = MatchSpec(match_id="ck-good", ruleset="club", label="ck-good")
FALLBACK = MatchSpec(
    match_id="ck-fall", ruleset="gambler", drand="fallback", label="ck-fall", players=("cy", None)
)
# One label, so one server seed: the same commitment in two matches.
REUSED = [MatchSpec(match_id=f"ck-reuse-{i}", ruleset="club", label="ck-reuse") for i in (1, 2)]
MISSING = MatchSpec(match_id="ck-missing", ruleset="club", label="ck-missing")
GRIND = MatchSpec(match_id="ck-grind", ruleset="club", label="ck-grind")
#: A witness time before the matches' rounds were due (matchgen's virtual times).
IN_TIME = START_MS // 1000
LATE = IN_TIME + 3600


@dataclass
class World:
    schema: str
    client: TestClient  # type: ignore[type-arg]
    store: EventStore
    api: str

    async def checkpoint(self, size: int) -> str:
        for _ in range(400):
            r = await self.client.get("/checkpoint")
            if r.status == 200:
                text = await r.text()
                if parse_checkpoint(text.split("\n\n")[0] + "\n").size == size:
                    return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"no checkpoint of size {size}")

    async def cosign(self, text: str, at: int, by: Cosigner = WITNESS) -> None:
        body = text.split("\n\n")[0] + "\n"
        r = await self.client.post("/v1/log/cosignatures", data=text + by.sign(body, at).line())
        assert r.status == 200, await r.text()


@pytest_asyncio.fixture(loop_scope="session")
async def world(servers: Any, pg_pool: Any, schema: str) -> AsyncIterator[World]:
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    plain = EventStore(pg_pool, schema, producer="tests")  # writes no entries
    settings = log_settings(roles.dsn_for("verify", servers.pg_dsn), schema)
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    w = World(schema, client, store, str(client.make_url("")).rstrip("/"))
    for spec in (GOOD, FALLBACK, *REUSED):
        await write(store, generate(spec))
    # A match without its entries: the database refuses one to every appender
    # (test_translog_required.py), so only the schema's owner (here the test's superuser)
    # can still write one, by disabling the trigger (docs/database-roles.md, "What trust
    # remains"). That is what the checks and the audit below are for.
    events = f'"{schema}".events'
    await pg_pool.execute(f"ALTER TABLE {events} DISABLE TRIGGER events_logged_have_entries")
    try:
        await write(plain, generate(MISSING))
    finally:
        await pg_pool.execute(f"ALTER TABLE {events} ENABLE TRIGGER events_logged_have_entries")
    # A witness cosigned that tree in time; the grinding match comes after, and the
    # witness sees it only an hour after its round was due.
    await w.cosign(await w.checkpoint(len(await stored_entries(pg_pool, schema))), IN_TIME)
    await write(store, generate(GRIND))
    await w.cosign(await w.checkpoint(len(await stored_entries(pg_pool, schema))), LATE)
    for _ in range(400):  # the finished matches listed (the audit reads the list)
        r = await client.get("/v1/matches?limit=100")
        if len((await r.json())["matches"]) == 6:
            break
        await asyncio.sleep(0.05)
    yield w
    await client.close()
    await plain.close()
    await store.close()


def at(timestamp: int) -> str:
    """A witness time as the report gives it."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def checks(world: World, spec: MatchSpec, **kw: Any) -> dict[str, Any]:
    record = await stored_record(world.store, spec.match_id)
    found = await log_checks(record, world.api, LOG_KEY.verifier(), **kw)
    return {c.name: c for c in found}


async def test_a_match_in_the_log_witnessed_in_time_passes(world: World) -> None:
    got = await checks(world, GOOD, witnesses=[WITNESS.verifier()])
    assert {n: c.status for n, c in got.items()} == {
        "log_entries": "pass",
        "log_inclusion": "pass",
        "log_consistency": "pass",
        "log_timing": "pass",
    }, {n: c.detail for n, c in got.items()}
    assert f"{WITNESS.name} cosigned the commitment at {at(IN_TIME)}" in got["log_timing"].detail
    # The fallback match's entries include its round's fact, declared missed.
    assert (await checks(world, FALLBACK))["log_entries"].status == "pass"


async def test_a_record_whose_match_is_missing_from_the_log_fails(world: World) -> None:
    got = await checks(world, MISSING)
    assert got["log_entries"].status == "fail"
    assert "missing from the log" in got["log_entries"].detail


async def test_a_round_named_after_it_was_due_fails_on_the_witness_clock(world: World) -> None:
    got = await checks(world, GRIND, witnesses=[WITNESS.verifier()])
    assert got["log_entries"].status == "pass"  # the record alone is fine
    assert got["log_timing"].status == "fail"
    detail = got["log_timing"].detail
    assert (
        f"{WITNESS.name} first cosigned the commitment at {at(LATE)} and the round_named at "
        f"{at(LATE)}, after the round was due"
    ) in detail, detail


W2, W3, W4 = (Cosigner(f"witness.test/q{i}", bytes(range(i, i + 32))) for i in (40, 80, 120))


async def test_a_quorum_of_the_witnesses_you_trust_must_have_cosigned_in_time(
    world: World, pg_pool: Any
) -> None:
    """WITNESS cosigned the good match in time; W2 saw the log only an hour after its
    round was due; W3 never cosigned; W4 in time. (W2, W3 and W4 registered: a
    registration is no trust, the reader's list is.)"""
    for w in (W2, W3, W4):
        r = await world.client.post("/v1/log/witnesses", data=w.vkey)
        assert r.status == 201, await r.text()
    latest = await world.checkpoint(len(await stored_entries(pg_pool, world.schema)))
    await world.cosign(latest, LATE, by=W2)
    await world.cosign(latest, IN_TIME + 1, by=W4)

    # 2 of 3 trusted (the default quorum: a majority), only WITNESS in time: fails, and
    # says which witness did what.
    got = await checks(world, GOOD, witnesses=[WITNESS.verifier(), W2.verifier(), W3.verifier()])
    timing = got["log_timing"]
    assert timing.status == "fail", timing.detail
    assert (
        "1 of the 3 witnesses you trust cosigned" in timing.detail and "2 needed" in timing.detail
    )
    assert f"{W2.name} first cosigned the commitment at {at(LATE)} and" in timing.detail
    assert f"{W3.name} cosigned no checkpoint holding the commitment" in timing.detail
    assert f"{WITNESS.name} cosigned the commitment at {at(IN_TIME)}" in timing.detail
    # The same witnesses, a quorum of 1: WITNESS alone suffices.
    got = await checks(
        world, GOOD, witnesses=[WITNESS.verifier(), W2.verifier(), W3.verifier()], quorum=1
    )
    assert got["log_timing"].status == "pass", got["log_timing"].detail
    # 2 of 3 in time (WITNESS and W4): the default quorum passes; each one's own
    # checkpoint is checked for consistency.
    got = await checks(world, GOOD, witnesses=[WITNESS.verifier(), W4.verifier(), W3.verifier()])
    assert got["log_timing"].status == "pass", got["log_timing"].detail
    assert f"{W4.name} cosigned the commitment at {at(IN_TIME + 1)}" in got["log_timing"].detail
    assert got["log_consistency"].status == "pass"
    assert f"cosigned by {W4.name}" in got["log_consistency"].detail
    # A quorum larger than the witnesses given cannot be met.
    got = await checks(world, GOOD, witnesses=[WITNESS.verifier(), W4.verifier()], quorum=3)
    assert got["log_timing"].status == "fail"
    assert "a quorum of 3 witnesses, and you trust 2" in got["log_timing"].detail
    with pytest.raises(ValueError):
        await checks(world, GOOD, witnesses=[WITNESS.verifier()], quorum=0)


async def test_without_a_witness_you_trust_the_timing_fails(world: World) -> None:
    got = await checks(world, GOOD)
    assert got["log_entries"].status == "pass" and got["log_inclusion"].status == "pass"
    assert got["log_timing"].status == "fail"
    assert "no witness you trust watches this log" in got["log_timing"].detail
    # Nor does a witness the log collects count for a reader who does not trust it.
    got = await checks(world, GOOD, witnesses=[W2.verifier()])
    assert got["log_timing"].status == "fail"
    assert f"{W2.name} cosigned no checkpoint holding the commitment" in got["log_timing"].detail


async def test_a_rewritten_log_fails_against_a_kept_checkpoint(
    world: World, pg_pool: Any, tmp_path: Path
) -> None:
    kept = await (await world.client.get("/checkpoint")).text()
    # The owner rewrites entry 2 and the tree; the log grows on it; the stolen key signs.
    await rewrite_entry(pg_pool, world.schema, 5)  # the fallback match's, not the good one's
    fresh = await EventStore.open(pg_pool, world.schema, producer="tests", entries=logentries)
    await write(fresh, generate(MatchSpec(match_id="ck-after", ruleset="club", label="ck-after")))
    await fresh.close()
    n = len(await stored_entries(pg_pool, world.schema))
    root = await world.client.server.app[LOG].root(n)
    note = sign_checkpoint(Checkpoint(ORIGIN, n, root), LOG_KEY).to_text()
    await pg_pool.execute(
        f'INSERT INTO "{world.schema}".verify_checkpoints (size, root, note) VALUES ($1, $2, $3)',
        n,
        root,
        note,
    )
    got = await checks(world, GOOD, kept=kept)
    assert got["log_consistency"].status == "fail"
    assert "rewritten" in got["log_consistency"].detail
    # The same, from the command line, with the kept checkpoint in a file.
    kept_file = tmp_path / "kept.txt"
    kept_file.write_text(kept, encoding="utf-8")
    record_file = tmp_path / "record.json"
    record_file.write_bytes(orjson.dumps(await stored_record(world.store, GOOD.match_id)))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "commands.cli", "verify", str(record_file), "--api", world.api,
        "--log-key", LOG_KEY.verifier().vkey, "--kept", str(kept_file), "--json",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 1, err
    report = orjson.loads(out)
    status = {c["name"]: c["status"] for c in report["checks"]}
    assert status["log_consistency"] == "fail" and status["log_inclusion"] == "pass"


async def test_the_audit_reports_reuse_missing_matches_and_ghost_entries(
    world: World, pg_pool: Any
) -> None:
    # A ghost: an entry for a match the event log never had, written by an entry source
    # that logs what it likes (any appender with a rewritten store could).
    ghost_ref = logentries.EventRef(
        "randomness-ck-ghost", 1, bytes(32), "2026-01-01T00:00:00.000000Z"
    )
    ghost = logentries.to_bytes(
        logentries.Commitment(ghost_ref, "ck-ghost", bytes(range(32)), (), "quicknet", 0, 1)
    )

    class Liar:
        def prepare(self, stream_id: str, type_: str, payload: Any) -> Any:
            return Ghost() if type_ == "Thing" else None

    class Ghost:
        heads_needed: tuple[str, ...] = ()

        def encode(self, *_: Any) -> bytes:
            return ghost

    liar = EventStore(pg_pool, world.schema, producer="tests", entries=Liar())
    # The database refuses it (event-log migration 6: the entry names another event)...
    with pytest.raises(asyncpg.PostgresError) as info:
        await liar.append("drand-ck-ghost", 0, [NewEvent("Thing", {})])
    assert info.value.sqlstate == ENTRY_MISMATCH_SQLSTATE
    # ...but the schema's owner can switch the check off (docs/database-roles.md, "What
    # trust remains"), and a log from before the check may hold one: the audit says so.
    s = f'"{world.schema}"'
    trigger = "translog_entries_stand_for_their_events"
    await pg_pool.execute(f"ALTER TABLE {s}.translog_entries DISABLE TRIGGER {trigger}")
    try:
        await liar.append("drand-ck-ghost", 0, [NewEvent("Thing", {})])
    finally:
        await pg_pool.execute(f"ALTER TABLE {s}.translog_entries ENABLE TRIGGER {trigger}")
    await liar.close()
    n = len(await stored_entries(pg_pool, world.schema))
    await world.checkpoint(n)
    audit = await run_audit(world.api, LOG_KEY.verifier(), None)
    assert audit.size == n
    text = "\n".join(audit.findings)
    reused = [f for f in audit.findings if f.startswith("commitment ")]
    assert len(reused) == 1 and "ck-reuse-1, ck-reuse-2" in reused[0]
    assert "match ck-ghost: the log holds 1 entries, the event log serves no such match" in text
    assert "match ck-missing ended in the event log and the log holds no entry" in text
    assert "ck-good" not in text and "ck-fall" not in text  # consistent with its records
    days = audit.to_json()["days"]
    assert sum(d["ended"] for d in days.values()) == 5
    assert sum(d["fallbacks"] for d in days.values()) == 1
