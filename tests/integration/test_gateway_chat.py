"""The tables' chat and the rematch through the real gateway, table worker and
randomness service, the gateway connected as its own database role: players at one
table talk, and nobody else reads it (live, in the history, or by any other route);
the table's own lines come from the log; the length and rate limits answer 400 and 429;
every refusal of the new routes is JSON; a rematch opens one table for both players."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from aiohttp import WSMsgType

from services.gateway.chat import MAX_TEXT, MOST
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def watch(player: Player, table_id: str) -> Any:
    ws = await player.http.ws_connect("/v1/ws", headers=player.auth)
    await ws.send_str(orjson.dumps({"op": "watch", "table": table_id}).decode())
    return ws


async def chat_lines(ws: Any, quiet: float = 0.6) -> list[dict[str, Any]]:
    """Every chat message the socket receives until it is quiet for ``quiet`` s."""
    lines = []
    while True:
        try:
            msg = await ws.receive(timeout=quiet)
        except TimeoutError:
            return lines
        assert msg.type in (WSMsgType.BINARY, WSMsgType.TEXT), msg
        m = orjson.loads(msg.data)
        if m["type"] == "chat":
            lines.append(m)


def players_lines(lines: list[dict[str, Any]]) -> list[str]:
    """What players wrote, of a socket's chat messages (the table's own lines left out:
    they are its public events, for every watcher)."""
    return [m["message"]["text"] for m in lines if m["message"]["kind"] != "table"]


async def test_players_at_a_table_talk_and_nobody_else_reads_it(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=1) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann, bob, cat = [await Player(http, f"chat-{n}").register() for n in ("ann", "bob", "cat")]
        seats = ["human", "human", "bot:easy", "bot:easy"]
        status, a = await ann.call("POST", "/v1/tables", {"ruleset": "club", "seats": seats,
                                                           "sit": 0})  # fmt: skip
        assert status == 201, a
        table_a = a["table_id"]
        status, body = await bob.call("POST", f"/v1/tables/{table_a}/seats/1")
        assert status == 200, body
        status, b = await cat.call("POST", "/v1/tables", {"ruleset": "club", "seats": seats,
                                                           "sit": 0})  # fmt: skip
        assert status == 201, b
        table_b = b["table_id"]
        # cat's one socket (one a player) watches both tables.
        bob_ws, cat_ws = await watch(bob, table_a), await watch(cat, table_a)
        await cat_ws.send_str(orjson.dumps({"op": "watch", "table": table_b}).decode())
        try:
            await chat_lines(bob_ws)  # caught up
            status, said = await ann.call("POST", f"/v1/tables/{table_a}/chat",
                                          {"text": "  good luck, partner  "})  # fmt: skip
            assert status == 201, said
            assert said["message"]["text"] == "good luck, partner"
            assert said["message"]["name"] == "chat-ann" and said["message"]["kind"] == "say"
            status, said2 = await bob.call("POST", f"/v1/tables/{table_a}/chat", {"text": "ty ♥"})
            assert status == 201, said2
            live = await chat_lines(bob_ws)
            assert players_lines(live) == ["good luck, partner", "ty ♥"]
            assert all(m["table"] == table_a for m in live)
            # cat, watching table A and seated at table B, gets none of it.
            assert players_lines(await chat_lines(cat_ws, 0.2)) == []
            # Not in the history either, and cat may not write there.
            status, history = await bob.call("GET", f"/v1/tables/{table_a}/chat")
            assert status == 200 and history["at_the_table"] is True
            said = [m["text"] for m in history["messages"] if m["kind"] == "say"]
            assert said == ["good luck, partner", "ty ♥"]
            status, seen = await cat.call("GET", f"/v1/tables/{table_a}/chat")
            assert (status, seen["at_the_table"]) == (200, False)
            assert {m["kind"] for m in seen["messages"]} <= {"table"}
            status, refused = await cat.call("POST", f"/v1/tables/{table_a}/chat", {"text": "hi"})
            assert (status, refused["error"]) == (403, "forbidden"), refused
            status, own = await cat.call("GET", f"/v1/tables/{table_b}/chat")
            assert status == 200 and own["at_the_table"] is True and own["messages"] == []
            async with http.get(f"/v1/tables/{table_a}/chat") as r:  # no token: a spectator
                anonymous = await r.json()
            assert r.status == 200 and anonymous["messages"] == seen["messages"]
            # Nothing else cat can read says it: the table, its events, the lobby.
            for path in (f"/v1/tables/{table_a}", f"/v1/tables/{table_a}/events", "/v1/lobby"):
                async with http.get(path, headers=cat.auth) as r:
                    text = await r.text()
                assert r.status == 200 and "good luck" not in text, path
            # A watcher who sits down gets the history then.
            dan = await Player(http, "chat-dan").register()
            dan_ws = await watch(dan, table_a)
            assert players_lines(await chat_lines(dan_ws)) == []
            # Live only to the seated: ann's next line reaches bob, not cat or dan.
            await ann.call("POST", f"/v1/tables/{table_a}/chat", {"text": "third"})
            assert players_lines(await chat_lines(bob_ws)) == ["third"]
            assert players_lines(await chat_lines(cat_ws, 0.2)) == []
            assert players_lines(await chat_lines(dan_ws, 0.2)) == []
            await dan_ws.close()
        finally:
            for ws in (bob_ws, cat_ws):
                await ws.close()
        rows = await pg_pool.fetch(
            f'SELECT table_id, body FROM "{store.schema}".chat_messages ORDER BY id'
        )
        assert [(r["table_id"], r["body"]) for r in rows] == [
            (table_a, "good luck, partner"), (table_a, "ty ♥"), (table_a, "third")
        ]  # fmt: skip


async def test_the_chat_refuses_with_json_errors(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=1) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        eve = await Player(http, "chat-eve").register()
        status, t = await eve.call("POST", "/v1/tables", {"ruleset": "gambler", "sit": 0})
        assert status == 201, t
        path = f"/v1/tables/{t['table_id']}/chat"

        async def answer(body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
            async with http.post(path, data=body, headers=eve.auth if headers is None
                                 else headers) as r:  # fmt: skip
                assert r.content_type == "application/json", await r.text()
                return r.status, await r.json()

        too_long = "x" * (MAX_TEXT + 1)
        cases = {
            "no token": ('{"text": "hi"}', {}, 401, "unauthorized"),
            "too long": (orjson.dumps({"text": too_long}), None, 400, "bad_request"),
            "empty": ('{"text": ""}', None, 400, "bad_request"),
            "spaces": ('{"text": "   "}', None, 400, "bad_request"),
            "not text": ('{"text": 5}', None, 400, "bad_request"),
            "missing": ("{}", None, 400, "bad_request"),
            "NUL": ('{"text": "a\\u0000b"}', None, 400, "bad_request"),
            "lone surrogate": ('{"text": "a\\ud800b"}', None, 400, "bad_request"),
            "not JSON": ("{", None, 400, "bad_request"),
        }
        for name, (body, headers, code, error) in cases.items():
            status, reply = await answer(body, headers)
            assert (status, reply["error"]) == (code, error), (name, reply)
            assert reply["message"], name
        status, reply = await answer(orjson.dumps({"text": too_long}))
        assert reply["message"] == f"text is {MAX_TEXT + 1} characters long: at most {MAX_TEXT}"
        status, reply = await answer(orjson.dumps({"text": "y" * MAX_TEXT}))
        assert status == 201, reply  # the bound itself is allowed
        for n in range(MOST - 1):
            status, reply = await answer(orjson.dumps({"text": f"line {n}"}))
            assert status == 201, reply
        async with http.post(path, json={"text": "one too many"}, headers=eve.auth) as r:
            reply = await r.json()
            assert (r.status, reply["error"]) == (429, "rate_limited"), reply
            assert 1 <= int(r.headers["Retry-After"]) <= 10
        assert "at most 5 chat messages in 10 s" in reply["message"]
        for bad, code, error in (
            ("/v1/tables/nosuchtable/chat", 404, "unknown_table"),
            ("/v1/tables/bad%20id/chat", 404, "unknown_table"),
            (f"/v1/tables/{'x' * 65}/chat", 400, "bad_request"),
        ):
            for method in ("GET", "POST"):
                async with http.request(method, bad, json={"text": "hi"}, headers=eve.auth) as r:
                    reply = await r.json()
                assert (r.status, reply["error"]) == (code, error), (method, bad, reply)
        for method in ("PUT", "DELETE"):
            async with http.request(method, path, headers=eve.auth) as r:
                assert (r.status, (await r.json())["error"]) == (405, "method_not_allowed")
        # The rematch before the end, by a stranger, without a token.
        status, reply = await eve.call("POST", f"/v1/tables/{t['table_id']}/rematch")
        assert (status, reply["error"]) == (403, "forbidden"), reply  # the match never opened
        async with http.post(f"/v1/tables/{t['table_id']}/rematch") as r:
            assert (r.status, (await r.json())["error"]) == (401, "unauthorized")
        async with http.post("/v1/tables/nosuchtable/rematch", headers=eve.auth) as r:
            assert (r.status, (await r.json())["error"]) == (404, "unknown_table")
        count = await pg_pool.fetchval(f'SELECT count(*) FROM "{store.schema}".chat_messages')
        assert count == MOST


async def test_the_table_speaks_from_the_log_and_a_rematch_seats_both(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=1) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann, bob = [await Player(http, f"rematch-{n}").register() for n in ("ann", "bob")]
        options = {"ruleset": "gambler", "seats": ["human", "human"], "target": 1, "sit": 0,
                   "turn_seconds": 30, "bot_delay_ms": 40, "autoplay_after": 5}  # fmt: skip
        status, t = await ann.call("POST", "/v1/tables", options)
        assert status == 201, t
        table_id, match_id = t["table_id"], t["match_id"]
        status, reply = await ann.call("POST", f"/v1/tables/{table_id}/rematch")
        assert (status, reply["error"]) == (403, "forbidden"), reply  # no match yet
        status, body = await bob.call("POST", f"/v1/tables/{table_id}/seats/1")
        assert status == 200, body
        await asyncio.gather(ann.play(table_id), bob.play(table_id))
        # The table's lines, live and in the history, are the log's events.
        fair = {e.type: e for e in await store.read_stream(f"randomness-{match_id}")}
        said = [m["message"] for m in ann.received if m["type"] == "chat"]
        assert {m["event"] for m in said} >= {"ServerSeedCommitted", "ServerSeedRevealed"}
        revealed = next(m for m in said if m["event"] == "ServerSeedRevealed")
        seed = fair["ServerSeedRevealed"].payload["server_seed"]
        assert revealed["facts"] == {"server_seed": seed} and seed in revealed["text"]
        assert revealed["id"] == f"e:randomness-{match_id}:{fair['ServerSeedRevealed'].version}"
        named = next(m for m in said if m["event"] in ("DrandRoundNamed", "DrandFallback"))
        assert named["facts"]["round"] == fair[named["event"]].payload["round"]
        status, history = await bob.call("GET", f"/v1/tables/{table_id}/chat")
        assert [m["id"] for m in history["messages"]] == [m["id"] for m in said]
        # The rematch: both ask, one table, each at its own seat, a line each in the chat.
        status, first = await ann.call("POST", f"/v1/tables/{table_id}/rematch")
        assert status == 201, first
        status, second = await bob.call("POST", f"/v1/tables/{table_id}/rematch")
        assert status == 201, second
        assert first["table_id"] == second["table_id"] != table_id
        assert (first["seat"], second["seat"]) == (0, 1)
        status, again = await ann.call("POST", f"/v1/tables/{table_id}/rematch")
        assert status == 201 and again["table_id"] == first["table_id"]
        status, new = await ann.call("GET", f"/v1/tables/{first['table_id']}")
        seats = new["table"]["seats"]
        assert [(s["player"], s["reserved"]) for s in seats] == [
            (ann.player, ann.player), (bob.player, bob.player)
        ]  # fmt: skip
        assert new["table"]["ruleset"] == "gambler" and new["table"]["target"] == 1
        # The options no lobby line shows, from the new table's TableOpened.
        opened = (await store.read_stream(f"table-{first['table_id']}"))[0]
        assert opened.type == "TableOpened", opened
        assert (opened.payload["bot_delay_ms"], opened.payload["autoplay_after"]) == (40, 5)
        status, history = await ann.call("GET", f"/v1/tables/{table_id}/chat")
        offers = [m for m in history["messages"] if m["kind"] == "rematch"]
        new_id = first["table_id"]
        assert [(m["player"], m["rematch"]) for m in offers] == [
            (ann.player, new_id), (bob.player, new_id)
        ]  # fmt: skip
        assert offers[0]["text"] == f"rematch-ann takes the rematch at table {new_id}."
        await ann.call("POST", f"/v1/tables/{first['table_id']}/leave")
        await bob.call("POST", f"/v1/tables/{first['table_id']}/leave")
