"""The demo is bounded and slow on purpose (commands/demo.py): a running demo must not
fill a laptop's disk. Its requests are checked against a stand-in gateway that records
them (an aiohttp server: the demo only speaks HTTP to the gateway), which says every
table has finished on its second look, so each step replaces tables."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from belot import RULESETS as GAME_RULESETS
from commands.cli import build_parser
from commands.demo import (
    BOT_DELAY_MS,
    MAX_TABLES,
    RULESETS,
    TOURNAMENT,
    TOURNAMENT_BOTS,
    _Demo,
    table_request,
)

#: A person takes a second or more to bid or play; the demo's bots do the same.
HUMAN_PACE_MS = 1_000


class Gateway:
    """What the demo asks of the gateway, answered and recorded."""

    def __init__(self) -> None:
        self.tables: list[dict[str, Any]] = []
        self.tournaments: list[dict[str, Any]] = []
        self.looked: set[str] = set()
        self.in_play: set[str] = set()
        self.most_in_play = 0

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/accounts", self.created)
        app.router.add_post("/v1/sessions", self.session)
        app.router.add_post("/v1/tables", self.table)
        app.router.add_get("/v1/tables/{id}", self.status)
        app.router.add_post("/v1/tournaments", self.tournament)
        app.router.add_post("/v1/tournaments/{id}/entrants", self.created)
        app.router.add_post("/v1/tournaments/{id}/start", self.ok)
        app.router.add_get("/v1/tournaments/{id}", self.tournament_status)
        return app

    async def created(self, request: web.Request) -> web.Response:
        return web.json_response({}, status=201)

    async def ok(self, request: web.Request) -> web.Response:
        return web.json_response({})

    async def session(self, request: web.Request) -> web.Response:
        return web.json_response({"token": "demo-token"}, status=201)

    async def table(self, request: web.Request) -> web.Response:
        self.tables.append(await request.json())
        table_id = f"t{len(self.tables)}"
        self.in_play.add(table_id)
        self.most_in_play = max(self.most_in_play, len(self.in_play))
        return web.json_response({"table_id": table_id}, status=201)

    async def status(self, request: web.Request) -> web.Response:
        table_id = request.match_info["id"]
        if table_id not in self.looked:  # still playing on the first look
            self.looked.add(table_id)
            return web.json_response({"status": "playing", "table": {"match_id": "m"}})
        self.in_play.discard(table_id)
        return web.json_response({"status": "finished", "table": {"match_id": "m"}})

    async def tournament(self, request: web.Request) -> web.Response:
        self.tournaments.append(await request.json())
        return web.json_response({"tournament_id": f"x{len(self.tournaments)}"}, status=201)

    async def tournament_status(self, request: web.Request) -> web.Response:
        return web.json_response({"finished": {"standings": ["bot"]}})


async def test_the_demo_keeps_a_bounded_number_of_tables_at_a_human_pace() -> None:
    fake = Gateway()
    server = TestServer(fake.app())
    await server.start_server()
    try:
        base = str(server.make_url("")).rstrip("/")
        demo = _Demo(base, "password", "127.0.0.1", 0, BOT_DELAY_MS)
        async with aiohttp.ClientSession() as http:
            for _ in range(6):
                await demo.step(http)
    finally:
        await server.close()
    assert len(fake.tables) > len(RULESETS)  # finished tables were replaced
    assert fake.most_in_play <= len(RULESETS)
    assert {t["bot_delay_ms"] for t in fake.tables} == {BOT_DELAY_MS}
    assert {t["bot_delay_ms"] for t in fake.tournaments} == {BOT_DELAY_MS}
    assert len(fake.tournaments) > 1  # a finished tournament is followed by a new one
    assert BOT_DELAY_MS >= HUMAN_PACE_MS


def test_the_bound_counts_the_tournament_s_tables() -> None:
    ruleset = GAME_RULESETS[str(TOURNAMENT["ruleset"])]
    per_round = len(TOURNAMENT_BOTS) // ruleset.players
    assert MAX_TABLES == len(RULESETS) + per_round == 7


@pytest.mark.parametrize("n", range(len(RULESETS)))
def test_every_table_is_unrated_bots_at_the_pace_given(n: int) -> None:
    body = table_request(n, 250)
    assert body["ruleset"] == RULESETS[n]
    assert body["bot_delay_ms"] == 250 and body["rated"] is False
    assert all(s.startswith("bot:") for s in body["seats"])


def test_belot_run_plays_the_demo_at_a_human_pace_unless_told() -> None:
    parser = build_parser()
    assert parser.parse_args(["run"]).demo_delay == BOT_DELAY_MS
    assert parser.parse_args(["run", "--demo-bot-delay-ms", "50"]).demo_delay == 50
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--demo-bot-delay-ms", "10001"])
