"""The verify service with ``BELOT_VERIFY_READ_DSN`` on real PostgreSQL: its API reads
through the second pool, everything that writes (the projection, the log's signer, the
witnesses' registrations and cosignatures) through the primary's.

Two read URLs stand in for a replica. The verify role with
``options=-c default_transaction_read_only=on``, a standby's one rule: the API answers
records, verifications, checkpoints and proofs through it, so no write goes through
the read pool. And a role that may read nothing: every read route fails, every write
route still succeeds, so the reads go through the read pool and nothing else does.
Without the setting the API reads through the primary's pool, as the other verify
tests show for every route."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any
from urllib.parse import quote

import asyncpg
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.app import PG_POOL
from belot_platform.dbroles import role_dsn
from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import LOG, READS, create_app
from services.verify.http import RateLimits
from services.verify.store import ReadPool
from tests.integration import roles
from tests.integration.test_translog_service import (
    LOG_KEY,
    STRANGER,
    WITNESS,
    log_settings,
    stored_entries,
)
from tools.matchgen import MatchSpec, generate, stored_record, write
from translog import leaf_hash, open_checkpoint, parse_checkpoint, verify_inclusion

pytestmark = pytest.mark.asyncio(loop_scope="session")

GENEROUS = RateLimits(rate=10_000, burst=100_000)
READ_ONLY = "options=" + quote("-c default_transaction_read_only=on")


def with_query(dsn: str, query: str) -> str:
    return dsn + ("&" if "?" in dsn else "?") + query


async def started(servers: Any, schema: str, read_dsn: str | None) -> TestClient:  # type: ignore[type-arg]
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema), verify_read_dsn=read_dsn
    )
    client: TestClient = TestClient(  # type: ignore[type-arg]
        TestServer(create_app(settings, schema=schema, limits=GENEROUS))
    )
    await client.start_server()
    return client


async def poll(client: TestClient, path: str, until: Any) -> Any:  # type: ignore[type-arg]
    """``path``'s response once ``until(status, body)`` holds (the projection and the
    signer run on their own)."""
    for _ in range(400):
        r = await client.get(path)
        body = await (r.json() if r.content_type == "application/json" else r.text())
        if until(r.status, body):
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} never came as expected")


@pytest.fixture
def match_id() -> str:
    return f"rd-{uuid.uuid4().hex[:8]}"


@pytest_asyncio.fixture(loop_scope="session")
async def logged(pg_pool: Any, schema: str, match_id: str) -> AsyncIterator[EventStore]:
    """The test's log: one finished club match."""
    s = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    await write(s, generate(MatchSpec(match_id=match_id, ruleset="club", label="rd")))
    yield s
    await s.close()


async def test_the_api_reads_through_a_read_only_url_and_writes_through_the_primary(
    servers: Any, pg_pool: Any, schema: str, logged: EventStore, match_id: str
) -> None:
    read_dsn = with_query(roles.dsn_for("verify", servers.pg_dsn), READ_ONLY)
    client = await started(servers, schema, read_dsn)
    app = client.server.app
    try:
        reads = app[READS]
        assert reads.replicas and reads.pool is not app[PG_POOL]
        # The read pool is read-only, as a standby is; the primary's is not.
        assert await reads.pool.fetchval("SHOW default_transaction_read_only") == "on"
        assert await app[PG_POOL].fetchval("SHOW default_transaction_read_only") == "off"
        with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
            await reads.pool.fetchval(f'UPDATE "{schema}".verify_position SET position = 0')

        ready = await poll(client, "/readyz", lambda status, _: status == 200)
        assert ready["checks"] == {"postgres": "ok", "projection": "ok", "postgres_read": "ok"}

        # The projection wrote its row on the primary; the API lists it from the read pool.
        listed = await poll(client, "/v1/matches", lambda _, b: bool(b["matches"]))
        assert [m["match_id"] for m in listed["matches"]] == [match_id]
        record = await (await client.get(f"/v1/matches/{match_id}/record")).json()
        assert record == await stored_record(logged, match_id)
        assert (await client.get(f"/v1/matches/{match_id}")).status == 200
        # Its cross-match checks waited for the projection as the read pool sees it:
        # passed, not skipped.
        report = await (await client.get(f"/v1/matches/{match_id}/verification")).json()
        assert report["ok"] is True, report
        assert {c["name"] for c in report["checks"]} >= {"commitment_unique", "round_consistency"}
        commitment = record["fair_deal"]["commitment"]
        used = await (await client.get(f"/v1/commitments/{commitment}")).json()
        assert used["matches"] == [match_id] and used["used_twice"] is False
        stats = await (await client.get("/v1/stats")).json()
        assert stats["all"]["matches"]["ended"] == 1

        # The signer signed on the primary; checkpoints and proofs come through the reads.
        entries = await stored_entries(pg_pool, schema)
        n = len(entries)
        text = await poll(
            client,
            "/checkpoint",
            lambda s, b: s == 200 and parse_checkpoint(b.split("\n\n")[0] + "\n").size == n,
        )
        root = open_checkpoint(text, LOG_KEY.verifier()).checkpoint.root_hash
        for index in range(n):
            r = await client.get(f"/v1/log/proof/inclusion?index={index}&size={n}")
            proof = [base64.b64decode(h) for h in (await r.json())["proof"]]
            verify_inclusion(leaf_hash(entries[index]), index, n, proof, root)
        tile = await client.get(f"/tile/0/000.p/{n}")
        assert await tile.read() == b"".join(leaf_hash(e) for e in entries)
        listed_entries = await (await client.get(f"/v1/log/entries?match={match_id}")).json()
        assert len(listed_entries["entries"]) >= 4 and listed_entries["size"] == n

        # The witnesses' part, all on the primary: a registration is listed at once
        # (read-your-writes), its cosignature is taken, and the reads serve it.
        r = await client.post("/v1/log/witnesses", data=STRANGER.vkey)
        assert r.status == 201, await r.text()
        witnesses = await (await client.get("/v1/log/witnesses")).json()
        assert [w["vkey"] for w in witnesses["witnesses"]] == [WITNESS.vkey, STRANGER.vkey]
        body = text.split("\n\n")[0] + "\n"
        r = await client.post(
            "/v1/log/cosignatures", data=text + STRANGER.sign(body, 1_767_225_601).line()
        )
        assert r.status == 200 and (await r.json())["witnesses"] == [STRANGER.name]
        served = await poll(client, f"/v1/log/checkpoints/{n}", lambda _, b: STRANGER.name in b)
        cosigned = open_checkpoint(served, LOG_KEY.verifier(), [STRANGER.verifier()], quorum=1)
        assert cosigned.cosignatures[0].timestamp == 1_767_225_601
    finally:
        await client.close()


async def test_the_reads_go_to_the_read_url_and_nothing_else_does(
    servers: Any, pg_pool: Any, schema: str, logged: EventStore, match_id: str
) -> None:
    blind, password = f"t{uuid.uuid4().hex[:10]}_blind", f"p{uuid.uuid4().hex}"
    # A role that may connect and read nothing of the log or of verify's tables.
    await pg_pool.execute(f"CREATE ROLE {blind} LOGIN PASSWORD '{password}'")
    client: TestClient | None = None  # type: ignore[type-arg]
    try:
        client = await started(servers, schema, role_dsn(servers.pg_dsn, blind, password))
        app = client.server.app
        assert app[READS].replicas
        ready = await poll(client, "/readyz", lambda status, _: status == 200)
        assert ready["checks"]["postgres_read"] == "ok"
        # The projection and the signer write on the primary all the same.
        for _ in range(400):
            if await pg_pool.fetchval(
                f'SELECT count(*) FROM "{schema}".verify_matches WHERE match_id = $1', match_id
            ) and await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".verify_checkpoints'):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the projection or the signer wrote nothing on the primary")
        n = len(await stored_entries(pg_pool, schema))
        # Every read route goes through the read pool, and is refused there.
        for path in (
            "/v1/matches",
            f"/v1/matches/{match_id}",
            f"/v1/matches/{match_id}/record",
            f"/v1/matches/{match_id}/verification",
            "/v1/stats",
            "/v1/rounds/quicknet/1001",
            "/checkpoint",
            f"/v1/log/checkpoints/{n}",
            f"/tile/0/000.p/{n}",
            f"/v1/log/proof/inclusion?index=0&size={n}",
            f"/v1/log/entries?match={match_id}",
        ):
            r = await client.get(path)
            assert r.status in (500, 503), (path, r.status)
            assert (await r.json())["error"] in ("unavailable", "internal"), path
        # Every route that writes, or reads what a write depends on, uses the primary.
        r = await client.post("/v1/log/witnesses", data=STRANGER.vkey)
        assert r.status == 201, await r.text()
        listed = await (await client.get("/v1/log/witnesses")).json()
        assert STRANGER.vkey in [w["vkey"] for w in listed["witnesses"]]
        note = await pg_pool.fetchval(
            f'SELECT note FROM "{schema}".verify_checkpoints ORDER BY size DESC LIMIT 1'
        )
        body = note.split("\n\n")[0] + "\n"
        r = await client.post("/v1/log/cosignatures", data=note + STRANGER.sign(body, 7).line())
        assert r.status == 200, await r.text()
        assert (await r.json())["witnesses"] == [STRANGER.name]

        # /readyz checks the read pool too: once it cannot connect, not ready.
        await pg_pool.execute(f"ALTER ROLE {blind} NOLOGIN")
        await pg_pool.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", blind
        )
        down = await poll(client, "/readyz", lambda status, _: status == 503)
        assert down["checks"]["postgres_read"].startswith("failed")
        assert down["checks"]["postgres"] == "ok"
    finally:
        if client is not None:
            await client.close()
        await pg_pool.execute(f"DROP ROLE IF EXISTS {blind}")


async def test_without_the_setting_the_api_reads_through_the_primarys_pool(
    servers: Any, schema: str, logged: EventStore, match_id: str
) -> None:
    client = await started(servers, schema, None)
    app = client.server.app
    try:
        assert app[READS].pool is app[PG_POOL] and not app[READS].replicas
        assert app[LOG].reads is app[READS]
        ready = await poll(client, "/readyz", lambda status, _: status == 200)
        assert ready["checks"] == {"postgres": "ok", "projection": "ok"}
        listed = await poll(client, "/v1/matches", lambda _, b: bool(b["matches"]))
        assert [m["match_id"] for m in listed["matches"]] == [match_id]
        report = await (await client.get(f"/v1/matches/{match_id}/verification")).json()
        assert report["ok"] is True, report
    finally:
        await client.close()


async def test_a_pinned_read_pool_reads_on_one_connection_per_task(servers: Any) -> None:
    pool = await asyncpg.create_pool(servers.pg_dsn, min_size=2, max_size=4)
    try:
        reads = ReadPool(pool, replicas=True)
        pid = "SELECT pg_backend_pid()"

        async def one_request() -> set[int]:
            async with reads.pinned():
                seen = {await reads.fetchval(pid), (await reads.fetchrow(pid))[0]}
                seen.add((await reads.fetch(pid))[0][0])
                async with reads.acquire() as conn:  # TreeReader.nodes acquires
                    seen.add(await conn.fetchval(pid))
                async with reads.pinned():  # nested: the outer one's connection
                    seen.add(await reads.fetchval(pid))
                await asyncio.sleep(0.05)  # both requests hold their connection here
            return seen

        first, second = await asyncio.gather(one_request(), one_request())
        assert len(first) == 1 and len(second) == 1 and first != second
        # On the primary's pool pinning holds nothing: each read takes any connection.
        primary = ReadPool(pool, replicas=False)
        async with primary.pinned(), pool.acquire() as held:
            assert await primary.fetchval(pid) != await held.fetchval(pid)
    finally:
        await pool.close()
