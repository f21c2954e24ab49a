"""What a service answers when what it needs does not: PostgreSQL or NATS down (a proxy
in front of the real server, stopped: tests/integration/proxy.py), the table's worker
not answering, no worker at all. Always 503 ``unavailable`` with Retry-After, never 500
``internal``; a creation that failed leaves no lobby line; everything works again once
the server is back. And a request line or header of 16 KiB gets the JSON answer, not
the HTTP parser's plain text."""

from __future__ import annotations

from typing import Any

import asyncpg
import orjson
import pytest
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.app import create_app
from belot_platform.outage import RETRY_AFTER_S
from belot_platform.settings import Settings
from eventlog import EventStore, NewEvent
from fairdeal import logentries
from services.table import domain as table_domain
from services.table.table import log_command_id
from services.table.worker import TableWorker, table_id_for
from services.verify.app import create_app as build_verify
from table import events as table_events
from table import state as table_state
from tests.integration import roles
from tests.integration.gateway_support import Player, gateway
from tests.integration.proxy import proxy
from tests.integration.table_support import eventually, platform

pytestmark = pytest.mark.asyncio(loop_scope="session")

LONG = 16 * 1024


async def answer(http: Any, method: str, path: str, **kw: Any) -> tuple[int, Any, dict[str, str]]:
    async with http.request(method, path, **kw) as resp:
        assert resp.content_type == "application/json", (path, resp.status, await resp.text())
        return resp.status, await resp.json(), dict(resp.headers)


def unavailable(got: tuple[int, Any, dict[str, str]]) -> bool:
    status, body, headers = got
    return (
        status == 503
        and body.get("error") == "unavailable"
        and bool(body.get("message"))
        and headers.get("Retry-After") == str(RETRY_AFTER_S)
    )


async def lines(nc: Any, prefix: str) -> set[str]:
    """The lobby bucket's table ids, read from its stream (see test_fields.lobby)."""
    js = nc.jetstream()
    stream = f"KV_{prefix}_tables"
    info = await js.stream_info(stream, subjects_filter=">")
    out = set()
    for subject in info.state.subjects or {}:
        msg = await js.get_last_msg(stream, subject)
        if (msg.headers or {}).get("KV-Operation") not in ("DEL", "PURGE"):
            out.add(subject.split(".", 2)[2])
    return out


async def test_postgresql_down_is_503_for_the_events_and_log_in_not_the_lobby_or_the_table(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        proxy(roles.dsn_for("gateway", servers.pg_dsn)) as pg,
        gateway(servers, store.schema, js_names, p.prefix, pg_dsn=pg.proxied_url) as http,
    ):
        ann = await Player(http, "pgdown-ann").register()
        status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
        assert status == 201, created
        table_id = created["table_id"]
        await pg.stop()
        # The seats' names come with the seats (SeatTaken), not from the gateway's
        # database: the lobby (NATS's bucket) and the table (its owner) still answer.
        status, lobby, _ = await answer(http, "GET", "/v1/lobby")
        assert status == 200 and table_id in {t["table_id"] for t in lobby["tables"]}, lobby
        status, table, _ = await answer(http, "GET", f"/v1/tables/{table_id}")
        assert status == 200 and table["table"]["seats"][0]["name"] == "pgdown-ann", table
        assert unavailable(await answer(http, "GET", f"/v1/tables/{table_id}/events"))
        login = {"name": "pgdown-ann", "password": "correct horse"}
        assert unavailable(await answer(http, "POST", "/v1/sessions", json=login))
        signup = {"name": "pgdown-bob", "password": "correct horse"}
        assert unavailable(await answer(http, "POST", "/v1/accounts", json=signup))
        await pg.start()

        async def back() -> bool:
            return (await answer(http, "GET", "/v1/lobby"))[0] == 200

        await eventually(back)
        assert (await answer(http, "GET", f"/v1/tables/{table_id}"))[0] == 200


async def test_nats_down_is_503_for_the_lobby_create_and_the_table(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        proxy(servers.nats_url) as bus,
        gateway(
            servers, store.schema, js_names, p.prefix, nats_url=bus.proxied_url, nats_timeout=0.5
        ) as http,
    ):
        ann = await Player(http, "natsdown-ann").register()
        status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
        assert status == 201, created
        table_id = created["table_id"]
        await bus.stop()
        assert unavailable(await answer(http, "GET", "/v1/lobby"))
        create = {"ruleset": "club", "command_id": "while-nats-is-down"}
        assert unavailable(await answer(http, "POST", "/v1/tables", json=create, headers=ann.auth))
        # The log knows the table, but not its seat view: in play, that is no answer.
        assert unavailable(await answer(http, "GET", f"/v1/tables/{table_id}"))
        await bus.start()

        async def back() -> bool:
            return (await answer(http, "GET", "/v1/lobby"))[0] == 200

        await eventually(back)
        status, body, _ = await answer(http, "GET", f"/v1/tables/{table_id}")
        assert status == 200 and body["table"]["table_id"] == table_id


async def test_a_worker_whose_database_is_down_creates_nothing_and_lists_nothing(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The issue's phantom table: a creation whose append fails leaves no lobby line
    (the line used to be written first, for 30 s), and answers 503; once the database
    is back the same creation (its command id) succeeds."""
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        proxy(roles.dsn_for("table", servers.pg_dsn)) as pg,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        pool = await asyncpg.create_pool(pg.proxied_url, min_size=1, max_size=2)
        worker_store = EventStore(pool, store.schema, producer="table", entries=logentries)
        worker = TableWorker(nc, worker_store, prefix=p.prefix, lease_ttl=3.0)
        await worker.start()
        try:
            ann = await Player(http, "dbdown-ann").register()
            await pg.stop()
            create = {"ruleset": "club", "sit": 0, "command_id": "while-the-db-is-down"}
            head = await store.head_position()
            got = await answer(http, "POST", "/v1/tables", json=create, headers=ann.auth)
            assert unavailable(got), got
            assert await lines(nc, p.prefix) == set()
            assert await store.head_position() == head
            await pg.start()
            status, created, _ = await answer(
                http, "POST", "/v1/tables", json=create, headers=ann.auth
            )
            assert status == 201, created
            assert await lines(nc, p.prefix) == {created["table_id"]}
        finally:
            await worker.stop(handover=False)
            await worker_store.close()
            await pool.close()


async def test_a_creation_that_died_before_its_line_is_listed_on_retry(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The line is written after the append: a worker that died between the two left a
    table in the log that no scan finds. Its retry (the same command id) lists it, and a
    worker claims it."""
    async with platform(store, pg_pool, nc, js_names) as p:
        creator, cid = "died-creator", "died-before-its-line"
        table_id = table_id_for(creator, cid)
        options = table_domain.parse_options({"ruleset": "club"}, 30_000)
        opened = table_domain.opened(table_id, f"{table_id}-1", options, creator, 1)
        await store.append(
            f"table-{table_id}",
            0,
            [NewEvent(table_state.TABLE_OPENED, table_events.to_payload(opened))],
            command_id=log_command_id(table_id, creator, cid),
        )
        assert await lines(nc, p.prefix) == set()
        reply = await p.create(ruleset="club", creator=creator, command_id=cid)
        assert reply["table_id"] == table_id
        assert await lines(nc, p.prefix) == {table_id}

        async def claimed() -> bool:
            return table_id in p.workers[0].tables

        await eventually(claimed)
        view = await p.request(f"table.{table_id}.view", {})
        assert view["table"]["table_id"] == table_id


async def test_no_worker_or_one_that_does_not_answer_is_503(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix, nats_timeout=0.5) as http,
    ):
        ann = await Player(http, "slow-ann").register()
        status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
        assert status == 201, created
        # A hung worker: the table's subjects are held, nothing answers on them.
        table = p.workers[0].tables[created["table_id"]]
        assert table.sub is not None
        await table.sub.unsubscribe()

        async def hung(msg: Any) -> None:
            pass

        silent = await nc.subscribe(f"{p.prefix}.table.{table.id}.*", cb=hung)
        got = await answer(http, "GET", f"/v1/tables/{created['table_id']}")
        assert unavailable(got), got
        await silent.unsubscribe()
        # No worker at all: nobody takes a creation.
        for worker in p.workers:
            await worker.stop(handover=False)
        p.workers.clear()
        create = {"ruleset": "club"}
        got = await answer(http, "POST", "/v1/tables", json=create, headers=ann.auth)
        assert unavailable(got), got


async def test_the_verify_api_says_503_when_its_database_is_down(servers, store, pg_pool) -> None:
    async with proxy(roles.dsn_for("verify", servers.pg_dsn)) as pg:
        settings = Settings(pg_dsn=pg.proxied_url, pg_schema=store.schema)
        client = TestClient(TestServer(build_verify(settings, schema=store.schema)))
        await client.start_server()
        try:
            status, _, _ = await answer(client, "GET", "/v1/matches/nosuch-1")
            assert status == 404
            await pg.stop()
            got = await answer(client, "GET", "/v1/matches/nosuch-1")
            assert unavailable(got), got
        finally:
            await pg.start()
            await client.close()


async def test_a_16_kib_request_line_or_header_gets_json(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        status, body, _ = await answer(http, "GET", "/v1/tables/" + "t" * LONG)
        assert status == 400 and body["error"] == "bad_request", body
        assert "table_id" in body["message"]
        status, body, _ = await answer(http, "GET", "/v1/lobby", headers={"X-Long": "v" * LONG})
        assert status == 200 and "tables" in body
        status, body, _ = await answer(http, "GET", "/v1/nowhere?q=" + "q" * LONG)
        assert (status, body["error"]) == (404, "not_found")


async def test_every_service_takes_a_16_kib_request_line_and_header() -> None:
    """The limits are the platform's (create_app's), so every service has them: here
    an app with no dependency, as each service's starts."""
    app = create_app(Settings(), name="limits", use_pg=False, use_nats=False)
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        async with client.get("/healthz?pad=" + "p" * LONG, headers={"X-Pad": "h" * LONG}) as r:
            assert r.status == 200 and orjson.loads(await r.read())["status"] == "ok"
    finally:
        await client.close()
