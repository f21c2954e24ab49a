"""The transparency log served by the verify service, on a real event log written as the
services write it (entries in the same statement as their events), the service running
as the verify role: checkpoints signed as the tree grows, tiles and proofs that check
against them with the library alone, a match's entries, witnesses' cosignatures taken
and served (configured witnesses' and those that registered themselves, up to the cap),
bad requests answered as JSON 4xx, and a signer that refuses a rewritten tree."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from services.verify.app import LOG, create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tools.matchgen import MatchSpec, generate, write
from translog import (
    BadProof,
    Cosigner,
    Ed25519Signer,
    Frontier,
    Tile,
    TooFewCosignatures,
    leaf_hash,
    open_checkpoint,
    parse_bundle,
    parse_checkpoint,
    parse_vkey,
    tree_hash,
    verify_consistency,
    verify_inclusion,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

ORIGIN = "log.test/belot"
LOG_KEY = Ed25519Signer(ORIGIN, bytes(range(32)))
WITNESS = Cosigner("witness.test/w1", bytes(range(1, 33)))
STRANGER = Cosigner("witness.test/stranger", bytes(range(2, 34)))
CLUB = MatchSpec(match_id="tl-club", ruleset="club", label="tl-club")
GAMBLER = MatchSpec(
    match_id="tl-gambler", ruleset="gambler", drand="fallback", label="tl-g", players=("cy", None)
)
ABORTED = MatchSpec(match_id="tl-abort", ruleset="classic", end="abort_early", label="tl-a")


def log_settings(dsn: str, schema: str) -> Settings:
    return Settings(
        pg_dsn=dsn,
        pg_schema=schema,
        translog_origin=ORIGIN,
        translog_key=LOG_KEY.skey,
        translog_interval=0.05,
        translog_witnesses=(WITNESS.vkey,),
    )


@dataclass
class LogWorld:
    schema: str
    store: EventStore
    client: TestClient  # type: ignore[type-arg]

    async def text(self, path: str, status: int = 200) -> str:
        r = await self.client.get(path)
        assert r.status == status, await r.text()
        return await r.text()

    async def json(self, path: str, status: int = 200) -> Any:
        r = await self.client.get(path)
        assert r.status == status, await r.text()
        return await r.json()

    async def checkpoint_of(self, size: int) -> str:
        """The latest checkpoint, once it is of ``size``."""
        for _ in range(200):
            r = await self.client.get("/checkpoint")
            if r.status == 200:
                text = await r.text()
                if parse_checkpoint(text.split("\n\n")[0] + "\n").size == size:
                    return text
            await asyncio.sleep(0.05)
        raise AssertionError(f"no checkpoint of size {size}")


@pytest_asyncio.fixture(loop_scope="session")
async def world(servers: Any, pg_pool: Any, schema: str) -> AsyncIterator[LogWorld]:
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    for spec in (CLUB, GAMBLER, ABORTED):
        await write(store, generate(spec))
    settings = log_settings(roles.dsn_for("verify", servers.pg_dsn), schema)
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    yield LogWorld(schema, store, client)
    await client.close()
    await store.close()


async def stored_entries(pg_pool: Any, schema: str) -> list[bytes]:
    rows = await pg_pool.fetch(f'SELECT entry FROM "{schema}".translog_entries ORDER BY index')
    return [bytes(r[0]) for r in rows]


def unb64(items: list[str]) -> list[bytes]:
    return [base64.b64decode(p) for p in items]


async def test_checkpoints_tiles_and_proofs_check_with_the_library(
    world: LogWorld, pg_pool: Any
) -> None:
    entries = await stored_entries(pg_pool, world.schema)
    kinds = [logentries.parse_entry(e).KIND for e in entries]
    # Three matches: each a commitment, a round named, an ending and a reveal; the
    # gambler match fell back on a round declared missed.
    assert kinds.count("commitment") == 3 and kinds.count("ending") == 3
    assert kinds.count("fallback") == 1 and kinds.count("round_missed") == 1
    n = len(entries)
    text = await world.checkpoint_of(n)
    signed = open_checkpoint(text, LOG_KEY.verifier())
    assert signed.checkpoint.root_hash == tree_hash(entries)

    # The tiles of the whole tree: one partial level-0 tile and its bundle.
    leaves = [leaf_hash(e) for e in entries]
    tile = Tile(0, 0, n)
    r = await world.client.get(f"/{tile.path()}")
    assert r.status == 200 and "immutable" in r.headers["Cache-Control"]
    assert await r.read() == b"".join(leaves)
    r = await world.client.get(f"/{tile.entries_path()}")
    assert parse_bundle(await r.read(), n) == tuple(entries)
    await world.text(f"/{Tile(0, 0, n + 1).path()}", 404)
    await world.text("/tile/0/000", 404)  # not full yet

    for index in range(n):
        body = await world.json(f"/v1/log/proof/inclusion?index={index}&size={n}")
        verify_inclusion(leaves[index], index, n, unb64(body["proof"]), signed.checkpoint.root_hash)
    for first in (1, 3, n - 1):
        body = await world.json(f"/v1/log/proof/consistency?first={first}&second={n}")
        verify_consistency(
            first, n, unb64(body["proof"]), tree_hash(entries[:first]), tree_hash(entries)
        )


async def test_a_match_entries_with_the_fact_of_its_round(world: LogWorld) -> None:
    body = await world.json("/v1/log/entries?match=tl-gambler")
    kinds = [e["entry"]["kind"] for e in body["entries"]]
    assert kinds == ["commitment", "round_named", "round_missed", "fallback", "ending", "reveal"]
    for e in body["entries"]:
        assert logentries.to_json(logentries.parse_entry(base64.b64decode(e["data"]))) == e["entry"]
        assert e["witnessed"] is None  # no witness has cosigned yet
    assert (await world.json("/v1/log/entries?match=nobody"))["entries"] == []


async def test_cosignatures_are_taken_from_known_witnesses_and_served(
    world: LogWorld, pg_pool: Any
) -> None:
    text = await world.checkpoint_of(len(await stored_entries(pg_pool, world.schema)))
    body = text.split("\n\n")[0] + "\n"
    line = WITNESS.sign(body, 1_767_225_600).line()
    r = await world.client.post("/v1/log/cosignatures", data=text + line)
    assert r.status == 200, await r.text()
    size = parse_checkpoint(body).size
    assert await r.json() == {"size": size, "witnesses": [WITNESS.name]}
    served = await world.text("/checkpoint")
    signed = open_checkpoint(served, LOG_KEY.verifier(), [WITNESS.verifier()], quorum=1)
    assert signed.cosignatures[0].timestamp == 1_767_225_600
    # The first cosignature of a witness stays.
    later = WITNESS.sign(body, 1_767_225_700).line()
    await world.client.post("/v1/log/cosignatures", data=text + later)
    again = open_checkpoint(
        await world.text("/checkpoint"), LOG_KEY.verifier(), [WITNESS.verifier()]
    )
    assert again.cosignatures[0].timestamp == 1_767_225_600
    # Every entry up to that size is now witnessed by that checkpoint.
    entries = (await world.json("/v1/log/entries?match=tl-club"))["entries"]
    assert all(e["witnessed"]["size"] == size for e in entries)

    # Refusals: a stranger, a checkpoint this log never signed, a forged line.
    r = await world.client.post("/v1/log/cosignatures", data=text + STRANGER.sign(body, 5).line())
    assert r.status == 403 and (await r.json())["error"] == "witness_unknown"
    other = f"{ORIGIN}\n{size}\n{base64.b64encode(bytes(32)).decode()}\n"
    r = await world.client.post(
        "/v1/log/cosignatures",
        data=other + "\n" + LOG_KEY.sign(other).line() + WITNESS.sign(other, 5).line(),
    )
    assert r.status == 404 and (await r.json())["error"] == "checkpoint_unknown"
    forged = line[:-6] + ("A" if line[-6] != "A" else "B") + line[-5:]
    r = await world.client.post("/v1/log/cosignatures", data=text + forged)
    assert r.status == 400 and (await r.json())["error"] == "note_bad_signature"
    r = await world.client.post("/v1/log/cosignatures", data=b"not a note")
    assert r.status == 400 and (await r.json())["error"] == "note_malformed"


async def test_a_witness_registers_and_its_cosignatures_are_served(
    world: LogWorld, pg_pool: Any
) -> None:
    text = await world.checkpoint_of(len(await stored_entries(pg_pool, world.schema)))
    body = text.split("\n\n")[0] + "\n"
    stranger_line = STRANGER.sign(body, 1_767_225_601).line()
    r = await world.client.post("/v1/log/cosignatures", data=text + stranger_line)
    assert r.status == 403 and (await r.json())["error"] == "witness_unknown"
    assert "POST /v1/log/witnesses" in (await r.json())["message"]

    r = await world.client.post("/v1/log/witnesses", data=STRANGER.vkey + "\n")
    assert r.status == 201, await r.text()
    registered = await r.json()
    assert registered["vkey"] == STRANGER.vkey and registered["source"] == "registered"
    assert registered["key_id"] == f"{STRANGER.key_id:08x}" and registered["registered_at"]
    # Idempotent: the same registration again.
    r = await world.client.post("/v1/log/witnesses", data=STRANGER.vkey)
    assert r.status == 200 and await r.json() == registered
    # A configured key is known already; it is not registered (nor counted) for it.
    r = await world.client.post("/v1/log/witnesses", data=WITNESS.vkey)
    assert r.status == 200 and (await r.json())["source"] == "configured"
    listed = await world.json("/v1/log/witnesses")
    assert [(w["vkey"], w["source"]) for w in listed["witnesses"]] == [
        (WITNESS.vkey, "configured"),
        (STRANGER.vkey, "registered"),
    ]
    assert listed["witnesses"][0]["registered_at"] is None and listed["max_registered"] == 64
    rows = await pg_pool.fetch(f'SELECT vkey, name, key_id FROM "{world.schema}".verify_witnesses')
    assert [tuple(r) for r in rows] == [(STRANGER.vkey, STRANGER.name, STRANGER.key_id)]

    r = await world.client.post("/v1/log/cosignatures", data=text + stranger_line)
    assert r.status == 200, await r.text()
    assert (await r.json())["witnesses"] == [STRANGER.name]
    served = await world.text("/checkpoint")
    signed = open_checkpoint(served, LOG_KEY.verifier(), [STRANGER.verifier()], quorum=1)
    assert [(c.name, c.timestamp) for c in signed.cosignatures] == [(STRANGER.name, 1_767_225_601)]
    # Served, but it earned no trust: a reader who trusts the configured witness only
    # still finds no cosignature it counts.
    with pytest.raises(TooFewCosignatures):
        open_checkpoint(served, LOG_KEY.verifier(), [WITNESS.verifier()], quorum=1)
    # Nor does it move `witnessed`, which only a configured witness's cosignature sets (a
    # stranger cosigning first hid the trusted witness); the stranger's own first
    # checkpoint is there for a reader who names it.
    kid = f"{STRANGER.verifier().key_id:08x}"
    entries = (await world.json(f"/v1/log/entries?match=tl-club&witness={STRANGER.name}%2B{kid}"))[
        "entries"
    ]
    assert entries and all(e["witnessed"] is None for e in entries)
    assert all(
        [(w["witness"], w["size"]) for w in e["witnessed_by"]]
        == [(STRANGER.name, signed.checkpoint.size)]
        for e in entries
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"not a key", 400, "key_malformed"),
        (LOG_KEY.verifier().vkey.encode(), 400, "witness_key_type"),
        ((STRANGER.vkey + "\n" + WITNESS.vkey).encode(), 400, "key_malformed"),
        (b"\xff\xfe", 400, "key_malformed"),
        (b"x" * 2000, 413, "too_large"),
    ],
    ids=["garbage", "log-key", "two-lines", "not-utf8", "too-large"],
)
async def test_a_bad_witness_key_is_refused(
    world: LogWorld, pg_pool: Any, body: bytes, status: int, code: str
) -> None:
    r = await world.client.post("/v1/log/witnesses", data=body)
    assert r.status == status, await r.text()
    assert (await r.json())["error"] == code
    count = await pg_pool.fetchval(f'SELECT count(*) FROM "{world.schema}".verify_witnesses')
    assert count == 0


async def test_registrations_stop_at_the_cap_and_are_rate_limited(
    servers: Any, pg_pool: Any, schema: str
) -> None:
    settings = replace(
        log_settings(roles.dsn_for("verify", servers.pg_dsn), schema), translog_max_witnesses=2
    )
    # A registration costs verify_cost tokens: four of them exhaust a bucket of 40.
    limits = RateLimits(rate=0.001, burst=40, verify_cost=10)
    client: TestClient = TestClient(TestServer(create_app(settings, schema=schema, limits=limits)))  # type: ignore[type-arg]
    await client.start_server()
    keys = [Cosigner(f"witness.test/cap{i}", bytes([i]) * 32) for i in range(5)]
    try:
        # Registered concurrently (two replicas would do the same): exactly the cap.
        answers = await asyncio.gather(
            *(client.post("/v1/log/witnesses", data=k.vkey) for k in keys[:3])
        )
        assert sorted(a.status for a in answers) == [201, 201, 409]
        refused = next(a for a in answers if a.status == 409)
        body = await refused.json()
        assert body["error"] == "witness_limit" and "BELOT_TRANSLOG_WITNESSES" in body["message"]
        count = await pg_pool.fetchval(f'SELECT count(*) FROM "{schema}".verify_witnesses')
        assert count == 2
        # Past the cap every new key is refused; and a registration is dear: the next
        # one (a fifth, 50 tokens) is over the bucket.
        r = await client.post("/v1/log/witnesses", data=keys[3].vkey)
        assert r.status == 409 and (await r.json())["error"] == "witness_limit"
        r = await client.post("/v1/log/witnesses", data=keys[4].vkey)
        assert r.status == 429 and (await r.json())["error"] == "rate_limited"
    finally:
        await client.close()


async def test_a_key_taken_by_name_and_key_id_is_refused_and_a_bad_row_skipped(
    world: LogWorld, pg_pool: Any
) -> None:
    # Two keys of one name and key ID would make every note ambiguous. No second key
    # with STRANGER's ID can be made here (2^32 tries), so the row is put in directly,
    # as something that is no vkey: the log skips it, and refuses the real key.
    await pg_pool.execute(
        f'INSERT INTO "{world.schema}".verify_witnesses (vkey, name, key_id) VALUES ($1, $2, $3)',
        "not-a-vkey",
        STRANGER.name,
        STRANGER.key_id,
    )
    r = await world.client.post("/v1/log/witnesses", data=STRANGER.vkey)
    assert r.status == 409 and (await r.json())["error"] == "witness_key_taken"
    listed = await world.json("/v1/log/witnesses")
    assert [w["vkey"] for w in listed["witnesses"]] == [WITNESS.vkey]
    text = await world.checkpoint_of(len(await stored_entries(pg_pool, world.schema)))
    line = WITNESS.sign(text.split("\n\n")[0] + "\n", 1_767_225_600).line()
    r = await world.client.post("/v1/log/cosignatures", data=text + line)
    assert r.status == 200, await r.text()


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/v1/log/proof/inclusion?index=5&size=3", 400, "out_of_range"),
        ("/v1/log/proof/inclusion?index=0&size=999999", 400, "out_of_range"),
        ("/v1/log/proof/inclusion?index=x&size=3", 400, "bad_index"),
        ("/v1/log/proof/consistency?first=4&second=2", 400, "out_of_range"),
        ("/v1/log/proof/consistency?first=1", 400, "bad_second"),
        ("/tile/0/1", 400, "tile_malformed"),
        ("/tile/entries/x001", 400, "tile_malformed"),
        ("/tile/9/000", 404, "no_tile"),
        ("/v1/log/entries", 400, "bad_stream"),
        # A NUL byte PostgreSQL would refuse in a text parameter (was a 500).
        ("/v1/log/entries?stream=a%00b", 400, "bad_stream"),
        ("/v1/log/entries?stream=", 400, "bad_stream"),
        ("/v1/log/entries?match=a%20b", 400, "bad_match_id"),
        ("/v1/log/checkpoints/7x", 400, "bad_size"),
        ("/v1/log/checkpoints/999999", 404, "no_checkpoint"),
    ],
    ids=lambda v: str(v),
)
async def test_bad_requests_are_json_4xx(
    world: LogWorld, path: str, status: int, code: str
) -> None:
    body = await world.json(path, status)
    assert body["error"] == code and body["message"]


async def test_the_signer_refuses_a_rewritten_tree(world: LogWorld, pg_pool: Any) -> None:
    entries = await stored_entries(pg_pool, world.schema)
    await world.checkpoint_of(len(entries))
    service = world.client.server.app[LOG]
    # The owner (here the test's superuser) rewrites entry 1 and the tree over it, and
    # the log grows on: the new tree is whole, but does not extend the signed one.
    await rewrite_entry(pg_pool, world.schema, 1)
    await write(world.store, generate(MatchSpec(match_id=f"tl-{uuid.uuid4().hex[:6]}", label="x")))
    with pytest.raises(BadProof):
        await service.sign_once()


async def rewrite_entry(pg_pool: Any, schema: str, index: int) -> bytes:
    """What the owner or a superuser can do: change entry ``index`` (a space added) and
    rebuild every node over it, so the tree is whole again but another one. Returns the
    new root."""
    entries = await stored_entries(pg_pool, schema)
    forged = [*entries]
    forged[index] = entries[index].replace(b'"v":1', b'"v":1 ')
    s = f'"{schema}"'
    async with pg_pool.acquire() as conn, conn.transaction():
        await conn.execute(f"ALTER TABLE {s}.translog_entries DISABLE TRIGGER USER")
        await conn.execute(f"ALTER TABLE {s}.translog_nodes DISABLE TRIGGER USER")
        await conn.execute(
            f"UPDATE {s}.translog_entries SET entry = $1 WHERE index = $2", forged[index], index
        )
        await conn.execute(f"DELETE FROM {s}.translog_nodes")
        frontier = Frontier()
        for entry in forged:
            frontier, nodes = frontier.append(leaf_hash(entry))
            await conn.executemany(
                f"INSERT INTO {s}.translog_nodes VALUES ($1, $2, $3)",
                [(n.level, n.index, h) for n, h in nodes],
            )
        await conn.execute(f"ALTER TABLE {s}.translog_entries ENABLE TRIGGER USER")
        await conn.execute(f"ALTER TABLE {s}.translog_nodes ENABLE TRIGGER USER")
    return frontier.root()


async def test_the_log_publishes_its_key_and_its_checkpoints_open_with_it(
    world: LogWorld, pg_pool: Any
) -> None:
    """GET /v1/log/key: the vkey the web client pins when the gateway names none; every
    checkpoint served opens under it."""
    vkey = (await world.text("/v1/log/key")).strip()
    assert vkey == LOG_KEY.vkey
    size = len(await stored_entries(pg_pool, world.schema))
    opened = open_checkpoint(await world.checkpoint_of(size), parse_vkey(vkey))
    assert opened.checkpoint.size == size >= 1
