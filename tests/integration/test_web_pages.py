"""The web client's chat and pages in a real browser (Debian's headless Chromium over the
DevTools protocol, tests/browser.py) against the real services: the randomness service,
a table worker, the outbox relay, the gateway serving the client, the verify API, the
tournament service and the rating service, each connected as its own database role.

1. Three people in three browser contexts: two at one table talk in its chat (live, and
   again after a reload, from the history); the third, seated at another table and
   watching the first, sees none of it, neither on its page nor from the gateway's chat
   API with its own token; a sixth line within 10 s is refused in words.
2. A player creates a tournament from the client, enters it, sees its standings, adds a
   bot and starts it, and is shown the next table to take, which it takes. Then, after
   a rated match that two accounts played (over the API), the leaderboard of the ruleset
   and the player's page show what the gateway's rating routes and the verify API give,
   and "My matches" lists the finished match.

Screenshots: tests/artifacts/web-chat.png, web-tournament.png, web-leaderboard.png,
web-player.png.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import ClientSession
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from drand.clock import ScaledClock
from services.rating.app import create_app as create_rating
from services.tournament.app import create_app as create_tournament
from services.verify.app import create_app as build_verify_app
from services.verify.http import RateLimits
from tests.browser import Page, chromium
from tests.integration import roles
from tests.integration.gateway_support import TEST_HASHER, Player, gateway
from tests.integration.table_support import ORIGIN, SPEED, platform
from tests.integration.test_web_browser import (
    ARTIFACTS,
    CHROMIUM,
    explained,
    sign_up,
    watchdog,
)

pytestmark = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium) "
        "or set BELOT_CHROMIUM to run the browser tests",
    ),
]


@dataclass
class Stack:
    url: str
    verify_url: str
    http: TestClient  # type: ignore[type-arg]  # the gateway, for the API's own answers
    clock: ScaledClock  # the services' clock: a tab at a table follows it (follow_clock)


@contextlib.asynccontextmanager
async def pages_stack(
    servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any
) -> AsyncIterator[Stack]:
    verify_schema = f"v_{uuid.uuid4().hex[:12]}"
    clock = ScaledClock(ORIGIN, SPEED)
    verify = TestServer(
        build_verify_app(
            Settings(pg_dsn=servers.pg_dsn, pg_schema=store.schema),
            schema=verify_schema,
            limits=RateLimits(rate=10_000, burst=100_000),
        )
    )
    await verify.start_server()
    verify_url = str(verify.make_url("")).rstrip("/")
    try:
        async with (
            platform(
                store, pg_pool, nc, js_names, drand_mode="down", turn_ms=60_000, clock=clock
            ) as p,
            gateway(servers, store.schema, js_names, p.prefix, verify_url=verify_url) as http,
        ):

            def settings(role: str) -> Settings:
                return Settings(
                    pg_dsn=roles.dsn_for(role, servers.pg_dsn),
                    nats_url=servers.nats_url,
                    pg_schema=store.schema,
                    tournament_schema=f"{store.schema}_t",
                    rating_schema=f"{store.schema}_rating",
                    subject_prefix=p.prefix,
                    events_stream=js_names.stream,
                    events_subject=js_names.subject_prefix,
                )

            services = [
                TestServer(create_tournament(settings("tournament"), tick=0.1, hasher=TEST_HASHER)),
                TestServer(
                    create_rating(settings("rating"), flush_interval=0.05, poll_interval=0.2)
                ),
            ]
            try:
                for s in services:
                    await s.start_server()
                yield Stack(str(http.make_url("/")), verify_url, http, clock)
            finally:
                for s in services:
                    await s.close()
    finally:
        await asyncio.wait_for(verify.close(), 30)
        for schema in (verify_schema, f"{store.schema}_t", f"{store.schema}_rating"):
            await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', timeout=30)


async def api(page: Page, path: str) -> Any:
    """What the gateway answers the page's own session (its token) on ``path``."""
    return await page.evaluate(
        f"""(async () => {{
          const s = JSON.parse(localStorage.getItem('belot.session'));
          const r = await fetch({json.dumps(path)},
                                {{headers: {{Authorization: 'Bearer ' + s.token}}}});
          return {{status: r.status, body: await r.json()}};
        }})()"""
    )


CHAT = """[...document.querySelectorAll('#chat-lines li')]
  .map(li => [li.dataset.kind, li.textContent])"""


async def said(page: Page) -> list[str]:
    """The chat lines players wrote, as the page shows them."""
    lines = await page.evaluate(CHAT)
    return [text for kind, text in lines if kind in ("say", "rematch")]


async def say(page: Page, text: str, *, taken: bool = True) -> None:
    """Write a line and send it; ``taken``: wait until the gateway took it (the box is
    emptied then)."""
    await page.type("#chat-text", text)
    await page.click("#chat-send")
    if taken:
        await page.wait_for("document.querySelector('#chat-text').value === ''")


async def test_two_players_chat_and_a_third_at_another_table_sees_none_of_it(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    async with (
        watchdog(),
        pages_stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        ann, bob, cat = [await browser.new_page(context=await browser.new_context())
                         for _ in range(3)]  # fmt: skip
        names = [f"{n}{uuid.uuid4().hex[:6]}" for n in ("ann", "bob", "cat")]
        async with (
            explained(ann, "chat-ann"),
            explained(bob, "chat-bob"),
            explained(cat, "chat-cat"),
        ):
            for page, name in zip((ann, bob, cat), names, strict=True):
                await sign_up(page, web, name)
            # ann opens a club table with two free seats for people (it stays open).
            for page in (ann, cat):
                await page.select("#ruleset", "club")
                await page.select("#seat-1", "human")
                await page.select("#seat-3", "human")
                await page.click("#create-table")
                await page.wait_for("document.querySelector('#table[data-status=\"open\"]')")
            table_a = await ann.evaluate("decodeURIComponent(location.hash.slice(8))")
            table_b = await cat.evaluate("decodeURIComponent(location.hash.slice(8))")
            await bob.goto(f"{web.url}#/table/{table_a}")
            await bob.click(".seat-box button.sit[data-seat='1']")
            await bob.wait_for("document.querySelector('#chat[data-seated=\"yes\"]')")
            await ann.wait_for("document.querySelector('#chat[data-seated=\"yes\"]')")
            # cat watches table A as a spectator: no box to write in.
            await cat.goto(f"{web.url}#/table/{table_a}")
            await cat.wait_for("document.querySelector('#chat[data-seated=\"no\"]')")
            assert await cat.evaluate("document.querySelector('#chat-form').hidden") is True

            await say(ann, "good luck, partner")
            await bob.wait_for(f"({CHAT}).some(([k, t]) => t.endsWith('good luck, partner'))")
            await say(bob, "and to you")
            await ann.wait_for(f"({CHAT}).some(([k, t]) => t.endsWith('and to you'))")
            assert await said(ann) == ["you: good luck, partner", f"{names[1]}: and to you"]
            assert await said(bob) == [f"{names[0]}: good luck, partner", "you: and to you"]
            # The history, after a reload (the WebSocket's watch sends it again).
            await bob.reload()
            await bob.wait_for(f"({CHAT}).filter(([k]) => k === 'say').length === 2")
            await asyncio.sleep(1.0)  # what the live feed would have brought cat by now
            assert await said(cat) == []
            for path in (f"/v1/tables/{table_a}/chat", f"/v1/tables/{table_b}/chat"):
                got = await api(cat, path)
                assert got["status"] == 200, got
                assert [m for m in got["body"]["messages"] if m["kind"] != "table"] == [], got
            refused = await api(cat, f"/v1/tables/{table_a}/chat")
            assert refused["body"]["at_the_table"] is False
            await cat.goto(f"{web.url}#/table/{table_b}")
            await cat.wait_for("document.querySelector('#chat[data-seated=\"yes\"]')")
            assert await said(cat) == []
            # ann's fill: five lines in ten seconds, the sixth refused in words.
            for n in range(4):
                await say(ann, f"line {n}")
            await ann.wait_for(f"({CHAT}).filter(([k]) => k === 'say').length === 6")
            await say(ann, "one too many", taken=False)
            error = await ann.wait_for(
                "document.querySelector('#chat-error').textContent || null", timeout=10
            )
            assert error.startswith("Saying that: Too many requests"), error
            assert (
                await ann.evaluate("document.querySelector('#chat-text').value") == "one too many"
            )
            await ann.screenshot(ARTIFACTS / "web-chat.png")
            print(f"\nscreenshot: {ARTIFACTS / 'web-chat.png'}")


def rows_of(table: str, key: str) -> str:
    """A table's body rows as [the row's data-<key>, each cell's text...]."""
    return (f"[...document.querySelectorAll('{table} tbody tr')].map(tr => [tr.dataset.{key},"
            " ...[...tr.querySelectorAll('td')].map(td => td.textContent)])")  # fmt: skip


def shown_name(name: str) -> str:
    """An entrant's name as the page shows it: a bot's id "bot:easy:1" as "bot 1 (easy)"."""
    m = re.fullmatch(r"bot:(\w+):(\d+)", name)
    return f"bot {m[2]} ({m[1]})" if m else name


def cell(value: Any) -> str:
    """A number as the standings show it (js/tournaments.js)."""
    if value is None:
        return "—"
    return f"{value:.1f}" if isinstance(value, float) and not value.is_integer() else str(value)


async def wait_api(page: Page, path: str, check: Any, timeout: float = 30.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        got = await api(page, path)
        if got["status"] == 200 and check(got["body"]):
            return got["body"]
        assert loop.time() < deadline, got
        await asyncio.sleep(0.3)


async def test_a_tournament_is_entered_and_the_rating_pages_show_the_apis(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    async with (
        watchdog(),
        pages_stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page(context=await browser.new_context())
        async with explained(page, "pages"):
            name = f"dee{uuid.uuid4().hex[:6]}"
            await sign_up(page, web, name)
            me = await page.evaluate("JSON.parse(localStorage.getItem('belot.session')).player")
            # A tournament: created, entered, its standings shown, started.
            await page.click("#nav-tournaments")
            await page.wait_for("document.querySelector('#tournament-create')")
            await page.type("#t-name", "Friday cup")
            await page.select("#t-format", "round_robin")
            await page.select("#t-ruleset", "gambler")
            await page.type("#t-target", "1")
            await page.click("#create-tournament")
            tid = await page.wait_for(
                "location.hash.startsWith('#/tournament/') && document.querySelector('#enter')"
                " && decodeURIComponent(location.hash.slice(13))"
            )
            await page.click("#enter")
            await page.wait_for(f"document.querySelector('#entrants li[data-entrant=\"{me}\"]')")
            assert await page.evaluate("document.querySelector('#entrants').textContent") == name
            await page.click("#add-bot")
            await page.wait_for("document.querySelectorAll('#entrants li').length === 2")
            await page.click("#start")
            await page.wait_for("document.querySelectorAll('#standings tbody tr').length === 2")
            standings = await wait_api(
                page, f"/v1/tournaments/{tid}/standings", lambda b: len(b["rows"]) == 2
            )
            shown = await page.evaluate(rows_of("#standings", "entrant"))
            extra = [c["column"] for c in standings["columns"] if c["column"] != "points"]
            expected = [
                [row["entrant"], str(row["place"]), " + ".join(map(shown_name, row["names"])),
                 *(cell(row[k]) for k in ("points", "played", "wins", "draws", "losses")),
                 *(cell(row[c]) for c in extra)]
                for row in standings["rows"]
            ]  # fmt: skip
            assert shown == expected, (shown, standings)
            assert me in [r[0] for r in shown]
            seat = await page.wait_for(
                "document.querySelector('#next-table')?.dataset.seat ?? null", timeout=30
            )
            t = await wait_api(page, f"/v1/tournaments/{tid}", lambda b: me in b["tables"])
            assert int(seat) == t["tables"][me]["seat"]
            status = await page.evaluate("document.querySelector('#tournament-status').textContent")
            assert status == "running"
            await page.screenshot(ARTIFACTS / "web-tournament.png")
            await page.click("#take-seat")
            table_id = t["tables"][me]["table_id"]
            await page.wait_for(f"location.hash === '#/table/{table_id}'"
                                " && document.querySelector('#table[data-status]')")  # fmt: skip
            await page.wait_for(f"document.querySelector('.seat-box.me[data-seat=\"{seat}\"]')")

            # A rated gambler match of two other accounts, played over the API.
            gil, hal = (
                Player(web.http, f"gil{uuid.uuid4().hex[:6]}"),
                Player(web.http, f"hal{uuid.uuid4().hex[:6]}"),
            )
            for p in (gil, hal):
                await p.register()
            status, created = await gil.call("POST", "/v1/tables", {
                "ruleset": "gambler", "seats": ["human", "human"], "target": 1, "sit": 0,
                "rated": True})  # fmt: skip
            assert status == 201, created
            status, body = await hal.call("POST", f"/v1/tables/{created['table_id']}/seats/1")
            assert status == 200, body
            await asyncio.gather(gil.play(created["table_id"]), hal.play(created["table_id"]))
            board = await wait_api(page, "/v1/leaderboards/gambler?all=1",
                                   lambda b: len(b["rows"]) == 2)  # fmt: skip
            await page.goto(f"{web.url}#/leaderboards/gambler?all=1")
            await page.wait_for("document.querySelector('#leaderboard-rows')")
            rows = await page.evaluate(rows_of("#leaderboard-rows", "player"))
            assert rows == [
                [r["player"], str(r["rank"]), r["name"], f"{r['rating']}?", str(r["rd"]),
                 str(r["games"])]
                for r in board["rows"]
            ], (rows, board)  # fmt: skip
            assert {r["name"] for r in board["rows"]} == {gil.name, hal.name}
            await page.screenshot(ARTIFACTS / "web-leaderboard.png")
            # The winner's page: its ratings, its history, its recent match.
            player = await wait_api(page, f"/v1/players/{board['rows'][0]['player']}",
                                    lambda b: b["pools"]["gambler"]["games"] == 1)  # fmt: skip
            async with (
                ClientSession() as http,
                http.get(f"{web.verify_url}/v1/matches?player={player['player']}") as r,
            ):
                finished = (await r.json())["matches"]
            assert [m["match_id"] for m in finished] == [created["match_id"]]
            await page.click(f'#leaderboard-rows tr[data-player="{player["player"]}"] a')
            await page.wait_for("document.querySelector('#recent-matches tbody tr')")
            ratings = await page.evaluate(rows_of("#ratings", "pool"))
            assert ratings == [
                [pool, pool, str(r["rating"]), str(r["rd"]), str(r["games"]),
                 "provisional" if r["provisional"] else ""]
                for pool, r in player["pools"].items()
            ], ratings  # fmt: skip
            assert (
                await page.evaluate("document.querySelector('#player-name').textContent")
                == player["name"]
            )
            history = player["pools"]["gambler"]["history"]
            shown_history = await page.evaluate(
                "[...document.querySelectorAll('table.history[data-pool=\"gambler\"] tbody tr')]"
                ".map(tr => [tr.dataset.match, [...tr.querySelectorAll('td')].slice(1)"
                ".map(td => td.textContent)])"
            )
            opponent = player["names"][history[0]["opponents"][0]]
            h0 = history[0]
            result = {"win": "won", "loss": "lost", "draw": "drawn"}[h0["result"]]
            change = f"{h0['rating_before']} → {h0['rating_after']}"
            assert shown_history == [[h0["match_id"], [result, "", opponent, change]]]
            recent = await page.evaluate(
                "[...document.querySelectorAll('#recent-matches tbody tr')]"
                ".map(tr => tr.dataset.match)"
            )
            assert recent == [m["match_id"] for m in finished]
            await page.screenshot(ARTIFACTS / "web-player.png")
            # "My matches": dee sits at the tournament's table now.
            await page.click("#nav-my-matches")
            await page.wait_for("document.querySelector('#my-tables li')")
            tables = await page.evaluate(
                "[...document.querySelectorAll('#my-tables li')].map(li => li.dataset.table)"
            )
            assert tables == [table_id], tables
            print(f"\nscreenshots: {ARTIFACTS}/web-{{tournament,leaderboard,player}}.png")
