"""The verify service's analysis job and ``GET /v1/matches/{id}/analysis`` on a real event
log and the verify role's own grants: a finished match is analysed once, off the hot
path, and served as ``belot analyse`` computes it from the record; a match still running
is refused (409), an unknown one is 404, one not yet analysed says so (409 with
Retry-After), and a record that does not verify is not analysed (409 not_verified)."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from fairdeal.analysis import analyse_record
from services.verify.app import create_app
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.table_support import eventually
from tools.matchgen import MatchSpec, generate, stored_record, write

pytestmark = pytest.mark.asyncio(loop_scope="session")

CLUB = MatchSpec(match_id="an-club-1", ruleset="club", label="an-api-club", target=200)
GAMBLER = MatchSpec(match_id="an-gambler-1", ruleset="gambler", drand="fallback",
                    label="an-api-g", players=("cy", None), target=200)  # fmt: skip
RUNNING = MatchSpec(match_id="an-running-1", ruleset="classic", label="an-api-run")
#: A first dealer written by hand instead of the rule's: the record fails "dealer".
FORGED = MatchSpec(match_id="an-forged-1", ruleset="classic", label="an-api-forged",
                   first_dealer=2, target=100)  # fmt: skip
GENEROUS = RateLimits(rate=10_000, burst=100_000)


async def client_of(settings: Settings, schema: str, poll: float) -> TestClient:  # type: ignore[type-arg]
    app = create_app(settings, schema=schema, limits=GENEROUS, analysis_poll=poll)
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    return client


async def answer(client: TestClient, path: str, **kw: Any) -> tuple[int, Any, Any]:  # type: ignore[type-arg]
    resp = await client.get(path, **kw)
    body = await resp.json() if resp.status != 304 else None
    return resp.status, body, resp.headers


async def test_finished_matches_are_analysed_once_and_served(servers: Any, pg_pool: Any) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    settings = Settings(pg_dsn=roles.dsn_for("verify", servers.pg_dsn), pg_schema=schema)
    # A replica without the job (BELOT_VERIFY_ANALYSIS_WORKERS=0): what nobody analysed
    # is pending there.
    idle = await client_of(replace(settings, verify_analysis_workers=0), schema, poll=0.05)
    try:
        await write(store, generate(CLUB))

        async def pending() -> bool:
            status, body, headers = await answer(idle, f"/v1/matches/{CLUB.match_id}/analysis")
            seen.append((status, body, headers))
            return body.get("error") not in ("match_not_ended", "seed_not_revealed")

        seen: list[Any] = []
        await eventually(pending, timeout=30)
        status, body, headers = seen[-1]
        assert (status, body["error"]) == (409, "analysis_pending"), body
        assert headers["Retry-After"] == "5"
        # A working replica on the same schema analyses; both then serve it.
        busy = await client_of(settings, schema, poll=0.05)
        try:
            running = generate(RUNNING)
            cut = next(i for i, a in enumerate(running)
                       if any(e.type == "DealScored" for e in a.events))  # fmt: skip
            await write(store, running[: cut + 6])
            for spec in (GAMBLER, FORGED):
                await write(store, generate(spec))

            async def analysed(match_id: str, want: int, client: Any) -> None:
                async def done() -> bool:
                    status, body, _ = await answer(client, f"/v1/matches/{match_id}/analysis")
                    got[match_id] = (status, body)
                    return status == want

                got: dict[str, Any] = {}
                await eventually(done, timeout=60)

            for spec in (CLUB, GAMBLER):
                await analysed(spec.match_id, 200, busy)
                status, body, headers = await answer(idle, f"/v1/matches/{spec.match_id}/analysis")
                assert status == 200, body
                record = await stored_record(store, spec.match_id)
                expected = json.loads(json.dumps(analyse_record(record).to_json()))
                assert body == expected  # what `belot analyse` makes of the record
                assert body["format"] == "belot-analysis/1" and body["deals"], body
                again = await idle.get(f"/v1/matches/{spec.match_id}/analysis",
                                       headers={"If-None-Match": headers["ETag"]})  # fmt: skip
                assert again.status == 304
            await analysed(FORGED.match_id, 409, busy)
            status, body, _ = await answer(busy, f"/v1/matches/{FORGED.match_id}/analysis")
            assert body["error"] == "not_verified" and "dealer" in body["message"], body
            status, body, _ = await answer(busy, f"/v1/matches/{RUNNING.match_id}/analysis")
            assert (status, body["error"]) == (409, "match_not_ended"), body
            status, body, _ = await answer(busy, "/v1/matches/no-such-match/analysis")
            assert (status, body["error"]) == (404, "unknown_match"), body
            status, body, _ = await answer(busy, "/v1/matches/bad%20id/analysis")
            assert status == 400 and body["error"] == "bad_match_id", body
            # One row a match, written once.
            rows = await pg_pool.fetch(
                f'SELECT match_id, outcome FROM "{schema}".verify_analyses ORDER BY match_id'
            )
            assert {(r["match_id"], r["outcome"]) for r in rows} == {
                (CLUB.match_id, "analysed"), (GAMBLER.match_id, "analysed"),
                (FORGED.match_id, "not_verified"),
            }  # fmt: skip
            spec = (await answer(busy, "/v1/openapi.json"))[1]
            assert "/v1/matches/{match_id}/analysis" in spec["paths"]

            async def no_backlog() -> bool:
                text = await (await busy.get("/metrics")).text()
                return "\nbelot_verify_analysis_backlog 0.0" in text

            await eventually(no_backlog, timeout=10)  # everything finished is analysed
        finally:
            await busy.close()
    finally:
        await idle.close()
        await store.close()
        await roles.drop_schemas(pg_pool, schema)
