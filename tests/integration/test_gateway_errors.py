"""The gateway's answers to what no client should send, and to its own failures: always
JSON, 4xx for the client's input and 500 ``internal`` for a bug, nothing appended; and
one WebSocket per player, the newer replacing the older."""

from __future__ import annotations

import orjson
import pytest
from aiohttp import WSMsgType

from belot_platform import messaging
from services.gateway.app import API
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Seats in a join's path that are no seat of any ruleset (0 to 3), or no number at all.
BAD_SEATS = ["99999999999999999999999", "4", "-1", "+1", "1_0", "%D9%A1", "1.0", "%201"]


async def test_path_numbers_out_of_bounds_are_bad_request(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann = await Player(http, "path-ann").register()
        status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
        assert status == 201, created
        table_id = created["table_id"]
        bob = await Player(http, "path-bob").register()
        before = await store.stream_version(f"table-{table_id}")
        for seat in BAD_SEATS:
            async with http.post(f"/v1/tables/{table_id}/seats/{seat}", headers=bob.auth) as r:
                assert r.content_type == "application/json", (seat, await r.text())
                body = await r.json()
            assert (r.status, body) == (
                400,
                {"error": "bad_request", "message": "the seat is a whole number from 0 to 3"},
            ), seat
        assert await store.stream_version(f"table-{table_id}") == before
        status, body = await bob.call("POST", f"/v1/tables/{table_id}/seats/1")
        assert status == 200, body  # a seat in bounds still joins
        async with http.get("/v1/tournaments?limit=99999999999999999999999") as r:
            assert (r.status, (await r.json())["error"]) == (400, "bad_request")


async def test_an_unexpected_failure_is_a_json_500(
    servers, store, pg_pool, nc, js_names, monkeypatch
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):

        async def broken(*_: object) -> dict[str, bytes]:
            raise RuntimeError("a bug")

        # The lobby's one read (its lines, from the tables' bucket) fails with a bug.
        monkeypatch.setattr(messaging, "kv_values", broken)
        async with http.get("/v1/lobby") as r:
            assert r.content_type == "application/json", await r.text()
            body = await r.json()
        assert r.status == 500 and body["error"] == "internal" and body["message"], body
        async with http.get("/v1/rulesets") as r:  # the gateway still answers
            assert r.status == 200


async def test_a_second_websocket_replaces_the_first(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann = await Player(http, "ws-ann").register()
        bob = await Player(http, "ws-bob").register()
        first = await http.ws_connect("/v1/ws", headers=ann.auth)
        bobs = await http.ws_connect("/v1/ws", headers=bob.auth)
        second = await http.ws_connect(f"/v1/ws?token={ann.token}")
        try:
            msg = await first.receive(timeout=5)
            assert msg.type is WSMsgType.CLOSE, msg
            assert (msg.data, msg.extra) == (4000, "replaced by a newer connection")
            for ws in (second, bobs):  # the newer one and another player's stay open
                await ws.send_str(orjson.dumps({"op": "ping"}).decode())
                reply = await ws.receive(timeout=5)
                assert orjson.loads(reply.data) == {"type": "pong"}, reply
            assert set(http.server.app[API].hub.connections) == {ann.player, bob.player}
        finally:
            for ws in (first, second, bobs):
                await ws.close()


async def test_a_token_secret_rotates_without_ending_sessions(
    servers, store, pg_pool, nc, js_names
) -> None:
    """BELOT_TOKEN_SECRET_PREVIOUS: a gateway restarted with a new secret still takes
    the tokens the old one signed; once the previous secret is dropped, it does not."""
    old, new = "old-secret-" + "o" * 16, "new-secret-" + "n" * 16

    async def authed(http, token: str) -> int:
        # A table of no ruleset: 400 for a signed-in player, 401 for a refused token.
        headers = {"Authorization": f"Bearer {token}"}
        async with http.post("/v1/tables", json={"ruleset": "none"}, headers=headers) as r:
            return r.status

    async with platform(store, pg_pool, nc, js_names) as p:
        async with gateway(servers, store.schema, js_names, p.prefix, token_secret=old) as http:
            ann = await Player(http, "rotate-ann").register()
            assert await authed(http, ann.token) == 400
        async with gateway(
            servers, store.schema, js_names, p.prefix,
            token_secret=new, token_secret_previous=old,
        ) as http:  # fmt: skip
            assert await authed(http, ann.token) == 400  # the session goes on
            bob = await Player(http, "rotate-bob").register()
        async with gateway(servers, store.schema, js_names, p.prefix, token_secret=new) as http:
            assert await authed(http, bob.token) == 400  # signed with the new secret
            assert await authed(http, ann.token) == 401  # the rotation is over
