"""``POST /v1/play-now`` through the gateway, the table service and the randomness
service (docs/gateway.md#play-now): players asking at once end at one table in seats of
their own; a table nobody else joins starts with its bots once its wait is over; a
human who asks while it waits replaces a bot; the errors are the usual JSON ones."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import eventually, platform

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def play_now(player: Player, body: dict[str, Any]) -> tuple[int, Any]:
    return await player.call("POST", "/v1/play-now", body)


async def table_of(player: Player, table_id: str) -> dict[str, Any]:
    status, body = await player.call("GET", f"/v1/tables/{table_id}")
    assert status == 200, body
    table: dict[str, Any] = body["table"]
    return table


async def test_players_asking_at_once_end_at_one_table_in_their_own_seats(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, workers=2) as p,
        gateway(servers, store.schema, js_names, p.prefix, play_now_wait=30.0) as http,
    ):
        players = [await Player(http, f"now-{i}").register() for i in range(4)]
        replies = await asyncio.gather(*(play_now(pl, {"ruleset": "classic"}) for pl in players))
        assert all(status in (200, 201) for status, _ in replies), replies
        tables = {body["table_id"] for _, body in replies}
        assert len(tables) == 1, replies  # never two tables while one waits
        assert sorted(body["seat"] for _, body in replies) == [0, 1, 2, 3]  # never one seat twice
        assert [body["opened"] for _, body in replies].count(True) == 1
        assert [status for status, body in replies if body["opened"]] == [201]
        (table_id,) = tables
        # Every seat a human's now: the match starts without waiting out the 30 s.
        table = await table_of(players[0], table_id)
        assert {s["player"] for s in table["seats"]} == {pl.player for pl in players}
        assert all(s["kind"] == "human" for s in table["seats"])

        async def started() -> bool:
            return (await table_of(players[0], table_id))["status"] != "open"

        await eventually(started, timeout=10)
        events = [e.type for e in await p.table_events(table_id)]
        assert events[:2] == ["TableOpened", "BotSeatsOpened"]
        assert events.count("SeatTaken") == 4 and "FairDealOpened" in events
        # The next one to ask finds no table waiting (this one plays): a new one opens.
        late = await Player(http, "now-late").register()
        status, body = await play_now(late, {"ruleset": "classic", "players": 4})
        assert status == 201 and body["opened"] is True and body["table_id"] != table_id


async def test_a_table_nobody_joins_starts_with_its_bots_after_the_wait(
    servers, store, pg_pool, nc, js_names
) -> None:
    wait_s = 1.5
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix, play_now_wait=wait_s) as http,
    ):
        ann, bob = [await Player(http, name).register() for name in ("wait-ann", "wait-bob")]
        status, opened = await play_now(ann, {"ruleset": "gambler"})
        assert status == 201 and opened["opened"] is True and opened["seat"] == 0, opened
        table_id = opened["table_id"]
        table = await table_of(ann, table_id)
        assert table["status"] == "open" and table["open_until_ms"] is not None
        assert table["seats"][1] | {"name": None} == {
            "seat": 1, "kind": "bot", "level": "medium", "reserved": None, "player": None,
            "open": True, "name": None,
        }  # fmt: skip
        # The lobby lists it, its bot's seat open to humans.
        status, lobby = await ann.call("GET", "/v1/lobby")
        line = next(t for t in lobby["tables"] if t["table_id"] == table_id)
        assert line["seats"][1]["open"] is True
        # A human asking while it waits takes the bot's seat (gambler: two seats).
        status, joined = await play_now(bob, {"ruleset": "gambler", "players": 2})
        assert status == 200, joined
        assert joined == {"table_id": table_id, "match_id": opened["match_id"], "seat": 1,
                          "opened": False}  # fmt: skip
        # Asking again is answered with the seat already taken, not a second one.
        status, again = await play_now(bob, {"ruleset": "gambler"})
        assert (status, again["table_id"], again["seat"]) == (200, table_id, 1)

        # A second table, that nobody joins: its match starts with the bot once the
        # wait is over, not before.
        cid = await Player(http, "wait-cid").register()
        # (the first table plays now: every seat is a human's)
        await eventually(lambda: _status_is_not(cid, table_id, "open"), timeout=10)
        status, alone = await play_now(cid, {"ruleset": "gambler"})
        assert status == 201 and alone["table_id"] != table_id
        loop = asyncio.get_running_loop()
        asked = loop.time()
        await eventually(lambda: _status_is_not(cid, alone["table_id"], "open"), timeout=15)
        assert loop.time() - asked >= wait_s * 0.8
        events = await p.table_events(alone["table_id"])
        opened_fd = next(e.payload for e in events if e.type == "FairDealOpened")
        bot = {"seat": 1, "player": None}
        assert opened_fd["seats"] == [{"seat": 0, "player": cid.player}, bot]
        # Once the match has started, the bot's seat is the bot's.
        status, refused = await cid.call("POST", f"/v1/tables/{alone['table_id']}/seats/1")
        assert status == 409 and refused["error"] in ("table_started", "already_seated"), refused


async def _status_is_not(player: Player, table_id: str, status: str) -> bool:
    return (await table_of(player, table_id))["status"] != status


async def test_a_lobby_click_takes_a_bots_seat_while_the_table_waits(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix, play_now_wait=30.0) as http,
    ):
        ann, bob = [await Player(http, name).register() for name in ("click-ann", "click-bob")]
        status, opened = await play_now(ann, {"ruleset": "club"})
        assert status == 201, opened
        table_id = opened["table_id"]
        status, body = await bob.call("POST", f"/v1/tables/{table_id}/seats/2")
        assert status == 200, body
        table = await table_of(ann, table_id)
        assert table["seats"][2]["player"] == bob.player and table["seats"][2]["kind"] == "human"
        assert [s["kind"] for s in table["seats"]] == ["human", "bot", "human", "bot"]
        # Bob leaves before the match: the seat is a bot's again, still open to humans.
        status, body = await bob.call("POST", f"/v1/tables/{table_id}/leave", {})
        assert status == 200 and body["forfeit"] is False, body
        table = await table_of(ann, table_id)
        assert table["seats"][2] | {"name": None} == {
            "seat": 2, "kind": "bot", "level": "medium", "reserved": None, "player": None,
            "open": True, "name": None,
        }  # fmt: skip
        # An ordinary table's bots are never a human's to take.
        status, plain = await ann.call(
            "POST", "/v1/tables", {"ruleset": "club", "seats": ["human", "bot", "bot", "bot"]}
        )
        assert status == 201, plain
        status, refused = await bob.call("POST", f"/v1/tables/{plain['table_id']}/seats/1")
        assert status == 409 and refused["error"] == "bot_seat", refused
        assert all(s["open"] is False for s in plain["table"]["seats"])
        assert p.workers


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "bad_request"),
        ({"ruleset": "poker"}, "bad_request"),
        ({"ruleset": 7}, "bad_request"),
        ({"ruleset": "classic", "players": 2}, "bad_request"),
        ({"ruleset": "gambler", "players": 4}, "bad_request"),
        ({"ruleset": "classic", "players": "4"}, "bad_request"),
    ],
    ids=[
        *("no ruleset", "unknown ruleset", "ruleset not text"),
        *("classic at two", "gambler at four", "players as text"),
    ],
)
async def test_bad_requests_are_refused_in_json(
    servers, store, pg_pool, nc, js_names, body, code
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann = await Player(http, "bad-ann").register()
        status, reply = await play_now(ann, body)
        assert status == 400 and reply["error"] == code and reply["message"], reply
        # Without a token: 401, whatever the body.
        async with http.post("/v1/play-now", json={"ruleset": "classic"}) as resp:
            assert resp.status == 401
            assert (await resp.json())["error"] == "unauthorized"
