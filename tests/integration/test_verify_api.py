"""The verify service on a real event log: generated bot matches appended as the table and
randomness services would append them, read back through the public API."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

import drand
from belot.seats import side_of
from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import Shuffler, logentries
from fairdeal.receipts import Receipt, sign_receipt
from fairdeal.recipe import DeckInputs, Drand
from fairdeal.record import FORMAT
from fairdeal.verifier import verify_record
from services.verify.app import create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.table_support import eventually
from tests.tamper import find, tampered
from tests.webfeed import receipt_of
from tools.matchgen import (
    MatchSpec,
    generate,
    offline_record,
    receipt_secret_of,
    seat_seed_of,
    stored_record,
    write,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

CLUB = MatchSpec(match_id="club-1", ruleset="club", label="api-club")
GAMBLER = MatchSpec(
    match_id="gambler-1", ruleset="gambler", drand="fallback", label="api-g", players=("cy", None)
)
FORFEIT = MatchSpec(match_id="french-1", ruleset="french", end="forfeit", label="api-f")
RUNNING = MatchSpec(match_id="running-1", ruleset="classic", label="api-run")
UNREVEALED = MatchSpec(match_id="unrevealed-1", ruleset="classic", end="abort_early", label="api-u")
GENEROUS = RateLimits(rate=10_000, burst=100_000)


async def _client(settings: Settings, schema: str, **kw: Any) -> TestClient:  # type: ignore[type-arg]
    app = create_app(settings, schema=schema, **kw)
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    return client


@dataclass
class World:
    settings: Settings
    schema: str
    store: EventStore
    client: TestClient  # type: ignore[type-arg]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def world(servers: Any, pg_pool: Any) -> AsyncIterator[World]:
    # One log for the module: the matches are written once; tests that append use
    # matches of their own.
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    for spec in (CLUB, GAMBLER, FORFEIT):
        await write(store, generate(spec))
    running = generate(RUNNING)
    # Up to the first cards played of the second deal: decks and hands are secret still.
    cut = next(i for i, a in enumerate(running) if any(e.type == "DealScored" for e in a.events))
    await write(store, running[: cut + 6])
    settings = Settings(pg_dsn=roles.dsn_for("verify", servers.pg_dsn), pg_schema=schema)
    client = await _client(settings, schema, limits=GENEROUS)
    await wait_listed(client, 3)
    yield World(settings, schema, store, client)
    await client.close()
    await store.close()
    await roles.drop_schemas(pg_pool, schema)


async def wait_listed(client: TestClient, count: int, query: str = "") -> Any:  # type: ignore[type-arg]
    """The list once the projection has caught up with ``count`` matches."""
    for _ in range(200):
        body = await (await client.get(f"/v1/matches{query}")).json()
        if len(body["matches"]) >= count:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"the projection did not list {count} matches")


@pytest.fixture
def api(world: World) -> TestClient:  # type: ignore[type-arg]
    return world.client


async def get_json(client: TestClient, path: str, status: int = 200, **kw: Any) -> Any:  # type: ignore[type-arg]
    resp = await client.get(path, **kw)
    assert resp.status == status, await resp.text()
    assert resp.headers["Content-Type"].startswith("application/json")
    return await resp.json()


async def test_finished_matches_are_listed_latest_first_with_filters_and_pages(
    api: TestClient,  # type: ignore[type-arg]
) -> None:
    body = await get_json(api, "/v1/matches")
    ids = [
        m["match_id"]
        for m in body["matches"]
        if m["match_id"] in ("french-1", "gambler-1", "club-1")
    ]
    assert ids == ["french-1", "gambler-1", "club-1"]
    club = next(m for m in body["matches"] if m["match_id"] == "club-1")
    assert club["ruleset"] == "club" and club["players"] == ["ann", "bob"]
    assert club["ended_by"] == "MatchEnded" and club["revealed"] is True
    assert club["dealt_with_drand"] is True
    assert club["links"]["verification"] == "/v1/matches/club-1/verification"
    gambler = await get_json(api, "/v1/matches?ruleset=gambler")
    assert [m["match_id"] for m in gambler["matches"]] == ["gambler-1"]
    assert gambler["matches"][0]["dealt_with_drand"] is False
    cy = await get_json(api, "/v1/matches?player=cy")
    assert [m["match_id"] for m in cy["matches"]] == ["gambler-1"]
    forfeits = await get_json(api, "/v1/matches?ended_by=MatchForfeited")
    assert [m["match_id"] for m in forfeits["matches"]] == ["french-1"]
    assert forfeits["matches"][0]["winner"] == 1 - side_of(FORFEIT.leaver)
    page1 = await get_json(api, "/v1/matches?limit=2&ruleset=french")
    assert [m["match_id"] for m in page1["matches"]] == ["french-1"]
    assert page1["next"] is None
    everything = await get_json(api, "/v1/matches")
    page1 = await get_json(api, "/v1/matches?limit=2")
    page2 = await get_json(api, f"/v1/matches?limit=2&before={page1['next']}")
    both = [m["match_id"] for m in page1["matches"] + page2["matches"]]
    assert both == [m["match_id"] for m in everything["matches"]][:4]
    assert page1["next"] == str(page1["matches"][1]["position"])


async def test_the_record_is_the_logs_and_verifies_by_hand_and_through_the_api(
    world: World,
) -> None:
    api, store = world.client, world.store
    record = await get_json(api, "/v1/matches/club-1/record")
    assert record == await stored_record(store, "club-1")
    assert record["complete"] is True
    assert verify_record(record, bls=drand.verify).ok
    # By hand: deal 0's deck from the record's own inputs, as `belot deck` would.
    fd = record["fair_deal"]
    inputs = DeckInputs(
        bytes.fromhex(fd["server_seed"]),
        tuple(bytes.fromhex(s["seed"]) for s in record["seats"]),
        Drand(fd["deck_inputs"]["drand_round"], bytes.fromhex(fd["deck_inputs"]["drand_value"])),
    )
    from belot.cards import to_codes

    assert to_codes(list(Shuffler(inputs).deck(0))) == record["deals"][0]["deck"]
    report = await get_json(api, "/v1/matches/club-1/verification")
    assert report["ok"] is True and report["dealt_with_drand"] is True
    assert report["drand_round"] == 1001 and report["bls_checked"] is True


async def test_a_fallback_match_verifies_through_the_api_saying_so(
    api: TestClient,  # type: ignore[type-arg]
) -> None:
    report = await get_json(api, "/v1/matches/gambler-1/verification")
    assert report["ok"] is True and report["dealt_with_drand"] is False
    beacon = next(c for c in report["checks"] if c["name"] == "drand_beacon")
    assert beacon["detail"].startswith("dealt without drand")
    forfeit = await get_json(api, "/v1/matches/french-1/verification")
    assert forfeit["ok"] is True


async def test_finished_matches_carry_etags_and_cache_headers(
    api: TestClient,  # type: ignore[type-arg]
) -> None:
    for path in (
        "/v1/matches/club-1",
        "/v1/matches/club-1/record",
        "/v1/matches/club-1/verification",
    ):
        first = await api.get(path)
        assert first.status == 200
        etag = first.headers["ETag"]
        assert first.headers["Cache-Control"] == "public, max-age=3600"
        again = await api.get(path, headers={"If-None-Match": etag})
        assert again.status == 304 and again.headers["ETag"] == etag
        assert (await api.get(path, headers={"If-None-Match": '"other"'})).status == 200
        assert (await api.get(path, headers={"If-None-Match": f'W/{etag}, "x"'})).status == 304
    tags = {
        (await api.get(p)).headers["ETag"]
        for p in ("/v1/matches/club-1", "/v1/matches/club-1/record", "/v1/matches/gambler-1/record")
    }
    assert len(tags) == 3


async def test_a_match_in_progress_shows_only_public_events_and_cannot_be_verified(
    api: TestClient,  # type: ignore[type-arg]
) -> None:
    view = await get_json(api, "/v1/matches/running-1")
    assert view["complete"] is False and view["status"] == "in_progress"
    assert "streams" not in view
    assert all(d["deck"] is None and d["first_cards"] is None for d in view["deals"])
    assert all(d["completion_cards"] is None for d in view["deals"])
    assert view["fair_deal"]["server_seed"] is None
    assert view["deals"][0]["bids"] and view["deals"][0]["plays"]
    resp = await api.get("/v1/matches/running-1/record")
    assert resp.headers["Cache-Control"] == "no-cache"
    record = await resp.json()
    match, fair = record["streams"]["match"], record["streams"]["randomness"]
    assert {e["visibility"] for e in match["events"]} == {"public"}
    # The window's close showed every seat's seed (docs/specification.md §6.2): the seats'
    # own receipts of theirs hide nothing since, and are shown with it.
    assert {e["type"] for e in fair["events"] if e["visibility"] != "public"} == {
        "SeatSeedReceived"
    }
    assert any(e["type"] == "SeedWindowClosed" for e in fair["events"])
    # No hash of the match's stream while it runs (docs/threat-model.md): its chain runs
    # through the hidden cards. The fair deal's hides nothing now, and has its hashes.
    assert match["head"] is None and {e["hash"] for e in match["events"]} == {None}
    assert fair["head"] == fair["events"][-1]["hash"] and None not in {
        e["hash"] for e in fair["events"]
    }
    body = await get_json(api, "/v1/matches/running-1/verification", 409)
    assert body["error"] == "match_not_ended"


async def test_an_ended_match_waits_for_its_reveal_then_verifies(world: World) -> None:
    api, store = world.client, world.store
    await write(store, generate(UNREVEALED)[:-1])  # everything but the reveal
    await wait_listed(api, 1, "?ended_by=MatchAborted")
    resp = await api.get("/v1/matches/unrevealed-1/verification")
    assert resp.status == 409 and resp.headers["Retry-After"] == "5"
    assert (await resp.json())["error"] == "seed_not_revealed"
    record = await get_json(api, "/v1/matches/unrevealed-1/record")
    assert record["complete"] is True and record["fair_deal"]["server_seed"] is None
    before = (await api.get("/v1/matches/unrevealed-1/record")).headers["ETag"]
    reveal = generate(UNREVEALED)[-1]
    version = await store.stream_version(reveal.stream)
    await store.append(reveal.stream, version, list(reveal.events))
    report = await get_json(api, "/v1/matches/unrevealed-1/verification")
    assert report["ok"] is True
    assert (await api.get("/v1/matches/unrevealed-1/record")).headers["ETag"] != before
    for _ in range(100):  # the projection learns of the reveal too
        listed = await get_json(api, "/v1/matches?ended_by=MatchAborted")
        if listed["matches"][0]["revealed"]:
            break
        await asyncio.sleep(0.05)
    assert listed["matches"][0]["revealed"] is True


async def test_an_uploaded_record_is_verified_and_a_forged_one_named(world: World) -> None:
    api, store = world.client, world.store
    record = await stored_record(store, "french-1")
    resp = await api.post("/v1/verify", json=record)
    assert resp.status == 200
    assert (await resp.json())["ok"] is True

    def edit(r: dict[str, Any]) -> None:
        find(r, "match", "CardPlayed", 7)["payload"]["card"] = "7C"

    forged = tampered(record, edit)
    body = await (await api.post("/v1/verify", json=forged)).json()
    assert body["ok"] is False and "play" in body["failed"]
    metrics = await (await api.get("/metrics")).text()
    assert 'belot_verify_verifications_total{result="fail",source="upload"}' in metrics
    assert 'belot_verify_failed_checks_total{check="play"}' in metrics
    assert 'belot_verify_verifications_total{result="pass",source="match"}' in metrics


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("GET", "/v1/matches/a%20b", None, 400, "bad_match_id"),
        ("GET", "/v1/matches/nobody", None, 404, "unknown_match"),
        ("GET", "/v1/matches/nobody/verification", None, 404, "unknown_match"),
        ("GET", "/v1/nothing", None, 404, "not_found"),
        ("DELETE", "/v1/matches", None, 405, "method_not_allowed"),
        ("GET", "/v1/matches?limit=0", None, 400, "bad_limit"),
        ("GET", "/v1/matches?limit=101", None, 400, "bad_limit"),
        ("GET", "/v1/matches?limit=x", None, 400, "bad_limit"),
        ("GET", "/v1/matches?before=-1", None, 400, "bad_before"),
        ("GET", "/v1/matches?ruleset=poker", None, 400, "bad_ruleset"),
        ("GET", "/v1/matches?ended_by=Nope", None, 400, "bad_ended_by"),
        ("GET", "/v1/matches?player=%00", None, 400, "bad_player"),
        ("POST", "/v1/verify", b"", 400, "empty_body"),
        ("POST", "/v1/verify", b"{not json", 400, "bad_json"),
        ("POST", "/v1/verify", b'{"format": "x"}', 400, "not_a_record"),
        ("POST", "/v1/verify", b"[1, 2]", 400, "not_a_record"),
        ("POST", "/v1/verify", b"[" * 5000 + b"]" * 5000, 400, "bad_json"),
        ("POST", "/v1/verify", b" " * (4 * 1024 * 1024 + 1), 413, "too_large"),
        ("GET", "/v1/decks", None, 400, "bad_input"),
        ("GET", "/v1/decks?server_seed=00&seat_seed=&deal=0", None, 400, "bad_input"),
        ("GET", f"/v1/decks?server_seed={'00' * 32}&deal=0", None, 400, "bad_input"),
        ("GET", f"/v1/decks?server_seed={'00' * 32}&seat_seed=&deal=2", None, 200, None),
        ("GET", f"/v1/decks?server_seed={'00' * 32}&seat_seed=&deal=x", None, 400, "bad_input"),
        (
            "GET",
            f"/v1/decks?server_seed={'00' * 32}&seat_seed=&deal=0&drand_round=1",
            None,
            400,
            "bad_input",
        ),
        (
            "GET",
            f"/v1/decks?server_seed={'00' * 32}&seat_seed=&deal=0&cards=30",
            None,
            400,
            "bad_input",
        ),
    ],
)
async def test_bad_input_is_a_4xx_with_a_json_error(
    api: TestClient,  # type: ignore[type-arg]
    method: str,
    path: str,
    body: bytes | None,
    status: int,
    code: str | None,
) -> None:
    resp = await api.request(method, path, data=body)
    assert resp.status == status, await resp.text()
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    if code is not None:
        doc = await resp.json()
        assert doc["error"] == code and doc["message"]


async def test_decks_are_belot_decks(api: TestClient) -> None:  # type: ignore[type-arg]
    seed, value = "ab" * 32, "cd" * 32
    seats = ["01" * 16, "", "02" * 16, ""]
    query = "&".join(f"seat_seed={s}" for s in seats)
    body = await get_json(
        api, f"/v1/decks?server_seed={seed}&{query}&deal=3&drand_round=7&drand_value={value}"
    )
    from belot.cards import to_codes
    from fairdeal import deck

    want = deck(
        bytes.fromhex(seed), [bytes.fromhex(s) for s in seats], 3, Drand(7, bytes.fromhex(value))
    )
    assert body["deck"] == to_codes(list(want))
    short = await get_json(api, f"/v1/decks?server_seed={seed}&{query}&deal=3&cards=24")
    assert len(short["deck"]) == 24


async def test_cors_for_browsers(api: TestClient) -> None:  # type: ignore[type-arg]
    resp = await api.options(
        "/v1/verify",
        headers={"Origin": "https://example.org", "Access-Control-Request-Method": "POST"},
    )
    assert resp.status == 204
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in resp.headers["Access-Control-Allow-Methods"]
    ok = await api.get("/v1/matches", headers={"Origin": "https://example.org"})
    assert ok.headers["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in ok.headers["Access-Control-Expose-Headers"]


async def test_health_readiness_openapi(api: TestClient) -> None:  # type: ignore[type-arg]
    assert (await api.get("/healthz")).status == 200
    ready = await get_json(api, "/readyz")
    assert ready["checks"] == {"postgres": "ok", "projection": "ok"}
    schema = await api.get("/v1/match-record-v1.schema.json")
    assert schema.status == 200
    assert json.loads(await schema.read())["properties"]["format"]["const"] == FORMAT
    spec = await get_json(api, "/v1/openapi.json")
    assert spec["openapi"].startswith("3.") and "/v1/verify" in spec["paths"]


async def test_clients_are_rate_limited_with_retry_after(world: World) -> None:
    client = await _client(
        world.settings, world.schema, limits=RateLimits(rate=0.5, burst=3, verify_cost=3)
    )
    try:
        statuses = [(await client.get("/v1/matches")).status for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        resp = await client.get("/v1/openapi.json")
        assert resp.status == 429
        assert int(resp.headers["Retry-After"]) >= 1
        assert (await resp.json())["error"] == "rate_limited"
        assert (await client.get("/healthz")).status == 200  # not under /v1: not limited
        metrics = await (await client.get("/metrics")).text()
        assert "belot_verify_rate_limited_total" in metrics
    finally:
        await client.close()


async def test_a_record_reads_the_same_twice(api: TestClient) -> None:  # type: ignore[type-arg]
    a = await (await api.get("/v1/matches/club-1/record")).read()
    b = await (await api.get("/v1/matches/club-1/record")).read()
    assert a == b and json.loads(a)["match_id"] == "club-1"


async def test_before_any_event_log_exists_it_says_so_then_catches_up(
    servers: Any, pg_pool: Any
) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    settings = Settings(pg_dsn=servers.pg_dsn, pg_schema=schema)
    client = await _client(settings, schema, limits=GENEROUS)
    try:
        for _ in range(100):
            ready = await client.get("/readyz")
            if ready.status == 503:
                break
            await asyncio.sleep(0.02)
        body = await ready.json()
        assert ready.status == 503 and "no event log" in body["checks"]["projection"]
        missing = await client.get("/v1/matches/club-1")
        assert missing.status == 503 and (await missing.json())["error"] == "unavailable"
        # Uploads need no log.
        record = offline_record(replace(CLUB, match_id="upload-1"))
        assert (await (await client.post("/v1/verify", json=record)).json())["ok"] is True
        store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
        await write(store, generate(replace(CLUB, match_id="late-1")))
        listed = await wait_listed(client, 1)
        assert listed["matches"][0]["match_id"] == "late-1"
        assert (await client.get("/readyz")).status == 200
        await store.close()
    finally:
        await client.close()
        await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def test_a_seed_dropped_after_its_receipt_fails_the_apis_report_once_published(
    world: World,
) -> None:
    """Issue 28, case 6, through the API a third party reads. The server acknowledged
    seat 0's seed (a receipt signed with the match's receipt key), then dealt without
    it, the record rebuilt consistently: its report passes. Seat 0's tab publishes the
    receipt at the end; from then on the report fails ``seed_receipts``. A receipt the
    match's key did not sign is refused (nobody can make the server look guilty), one
    for a match in progress too, and a receipt is kept once."""
    spec = MatchSpec(
        match_id="dropped-1", ruleset="club", label="api-dropped", dropped_seeds=(0,),
        window_ms=2_000,
    )  # fmt: skip
    await write(world.store, generate(spec))
    api = world.client
    await wait_listed(api, 1, "?ruleset=club&player=ann&limit=100")
    report: dict[str, Any] = {}

    async def reported() -> bool:
        # Verified, and the platform's checks past the projection's catching up.
        nonlocal report
        report = await (await api.get("/v1/matches/dropped-1/verification")).json()
        return report.get("ok") is not None and all(
            c["status"] != "skip" for c in report["checks"] if c["name"] == "commitment_unique"
        )

    await eventually(reported, 10)
    assert report["ok"] is True, report  # the attack passes while nobody publishes
    receipts = {c["name"]: c for c in report["checks"]}
    assert receipts["seed_receipts"]["status"] == "pass"
    assert (await get_json(api, "/v1/matches/dropped-1/receipts"))["receipts"] == []

    mine = seat_seed_of(spec, 0)
    receipt = Receipt("dropped-1", 0, hashlib.sha256(mine).digest(), "randomness-dropped-1", 2)
    forged = sign_receipt(hashlib.sha256(b"not the match's key").digest(), receipt).to_json()
    resp = await api.post("/v1/matches/dropped-1/receipts", json=forged)
    assert resp.status == 400 and (await resp.json())["error"] == "bad_receipt"
    for bad in ({"seat": 0}, [], {**forged, "match_id": "club-1"}):
        resp = await api.post("/v1/matches/dropped-1/receipts", json=bad)
        assert resp.status == 400, await resp.text()
    signed = sign_receipt(receipt_secret_of(spec), receipt).to_json()
    resp = await api.post("/v1/matches/running-1/receipts", json=signed)
    assert resp.status == 409 and (await resp.json())["error"] == "match_not_ended"

    resp = await api.post("/v1/matches/dropped-1/receipts", json=signed)
    assert resp.status == 201 and (await resp.json())["stored"] is True, await resp.text()
    resp = await api.post("/v1/matches/dropped-1/receipts", json=signed)
    assert resp.status == 200 and (await resp.json())["stored"] is False
    listed = (await get_json(api, "/v1/matches/dropped-1/receipts"))["receipts"]
    assert [{k: r[k] for k in signed} for r in listed] == [signed]

    report = await get_json(api, "/v1/matches/dropped-1/verification")
    check = next(c for c in report["checks"] if c["name"] == "seed_receipts")
    assert report["ok"] is False and check["status"] == "fail", check
    assert "acknowledged at randomness-dropped-1 version 2" in check["detail"]
    # An honest match's report is unchanged by its own receipts.
    record = await get_json(api, "/v1/matches/club-1/record")
    honest = receipt_of(record, 0, receipt_secret_of(CLUB))
    resp = await api.post("/v1/matches/club-1/receipts", json=honest)
    assert resp.status == 201, await resp.text()
    report = await get_json(api, "/v1/matches/club-1/verification")
    assert report["ok"] is True, [c for c in report["checks"] if c["status"] != "pass"]
