"""The lobby and the tournaments pages in Chromium (tests/browser.py) against the real
services (a table worker, the randomness service, the gateway, the tournament service):

1. "Play now" clicked lands on a table page; another person's lobby lists that table
   first (waiting for players) with a button that takes a bot's seat; the first player's
   lobby shows the invitation, whose Copy button puts the table's address on the
   clipboard and says so; a button focused with Tab keeps the focus, and the page its
   scroll, across two refreshes.
2. A tournament's table names it (GET /v1/tables/{id}) and its lobby row links back to
   it; a tournament of two bots, once finished, names its winner on its page and in
   the list.

Screenshots (tests/artifacts): web-lobby-phone.png, web-lobby-laptop.png,
web-tournament-winner-phone.png, web-tournament-winner-laptop.png.
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from services.tournament.app import create_app as create_tournament
from tests.browser import Page, chromium
from tests.integration.gateway_support import TEST_HASHER, gateway
from tests.integration.table_support import platform
from tests.integration.test_web_browser import ARTIFACTS, CHROMIUM, explained, sign_up, watchdog
from tests.integration.tournament_support import tournament_settings

pytestmark = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium) "
        "or set BELOT_CHROMIUM to run the browser tests",
    ),
]

#: The play-now tables' wait: long enough for the test to look at a waiting table.
WAIT_S = 120.0
PHONE = (390, 844)
LAPTOP = (1366, 768)


@dataclass
class Web:
    url: str


@contextlib.asynccontextmanager
async def lobby_stack(servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any
                      ) -> AsyncIterator[Web]:  # fmt: skip
    async with (
        platform(store, pg_pool, nc, js_names, drand_mode="down", turn_ms=60_000) as p,
        gateway(servers, store.schema, js_names, p.prefix, play_now_wait=WAIT_S) as http,
    ):
        settings = tournament_settings(servers, store, js_names, p.prefix)
        tournament = TestServer(create_tournament(settings, tick=0.1, hasher=TEST_HASHER))
        await tournament.start_server()
        try:
            yield Web(str(http.make_url("/")))
        finally:
            await tournament.close()
            await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{store.schema}_t" CASCADE', timeout=30)


async def api(page: Page, method: str, path: str, body: Any = None) -> Any:
    """What the gateway answers the page's own session."""
    return await page.evaluate(
        f"""(async () => {{
          const s = JSON.parse(localStorage.getItem('belot.session'));
          const r = await fetch({json.dumps(path)}, {{method: {json.dumps(method)},
            headers: {{Authorization: 'Bearer ' + s.token, 'Content-Type': 'application/json'}},
            body: {json.dumps(None if body is None else json.dumps(body))} }});
          return {{status: r.status, body: await r.json()}};
        }})()"""
    )


async def shots(page: Page, name: str) -> None:
    """The page at a phone's and a laptop's size, into tests/artifacts."""
    ARTIFACTS.mkdir(exist_ok=True)
    for label, (w, h) in (("phone", PHONE), ("laptop", LAPTOP)):
        await page.set_viewport(w, h)
        await page.evaluate("new Promise(r => requestAnimationFrame(() => r(true)))")
        await page.screenshot(ARTIFACTS / f"{name}-{label}.png")


ROW_ORDER = "[...document.querySelectorAll('#tables tbody tr')].map(r => r.dataset.table)"


async def test_play_now_lands_on_a_table_and_the_lobby_keeps_focus(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    async with (
        watchdog(),
        lobby_stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        ann_ctx, bob_ctx = await browser.new_context(), await browser.new_context()
        ann = await browser.new_page(*LAPTOP, context=ann_ctx)
        bob = await browser.new_page(*PHONE, context=bob_ctx)
        async with explained(ann, "lobby-ann"), explained(bob, "lobby-bob"):
            await sign_up(ann, web, f"ann{uuid.uuid4().hex[:6]}")
            await sign_up(bob, web, f"bob{uuid.uuid4().hex[:6]}")
            # An ordinary table first (in the lobby before the waiting one, by age).
            seats = ["human", "human", "bot", "bot"]
            status = await api(bob, "POST", "/v1/tables", {"ruleset": "club", "seats": seats})
            assert status["status"] == 201, status
            plain = status["body"]["table_id"]
            # Play now: the ruleset is remembered, the click lands on the table page.
            await ann.select("#play-ruleset", "classic")
            assert await ann.evaluate("localStorage.getItem('belot.lobby.ruleset')") == '"classic"'
            await ann.click("#play-now")
            table_id = await ann.wait_for(
                "location.hash.startsWith('#/table/') && decodeURIComponent(location.hash.slice(8))"
            )
            summary = (await api(ann, "GET", f"/v1/tables/{table_id}"))["body"]["table"]
            assert summary["ruleset"] == "classic" and summary["open_until_ms"] is not None
            assert summary["seats"][0]["player"] is not None
            assert [s["kind"] for s in summary["seats"]] == ["human", "bot", "bot", "bot"]
            # Ann's table says its bots' seats are open and counts down to when they close
            # (not "waiting for 0 more players"), with the invitation to one of them.
            said = await ann.wait_for("document.querySelector('#table #status')?.textContent")
            assert said == "The match starts in", said
            left = await ann.evaluate("document.querySelector('#timer')?.textContent ?? ''")
            assert re.fullmatch(r"\d+ s", left) and int(left.split()[0]) > 0, left
            invited = f'#felt .invite[data-table="{table_id}"]'
            assert await ann.evaluate(f"!!document.querySelector('{invited}')")
            await shots(ann, "web-play-now-table")
            # The same in Russian (the page's language chosen by ?lang=), then back.
            await ann.goto(f"{web.url}?lang=ru#/table/{table_id}")
            said = await ann.wait_for(
                "document.documentElement.lang === 'ru'"
                " && document.querySelector('#table #status')?.textContent"
            )
            assert said == "Матч начнётся через", said
            await shots(ann, "web-play-now-table-ru")
            await ann.goto(f"{web.url}?lang=en#/table/{table_id}")
            await ann.wait_for("document.documentElement.lang === 'en'")
            # Bob's lobby: the waiting table first, its bots' seats his to take.
            await bob.wait_for(f"{ROW_ORDER}.includes({json.dumps(table_id)})")
            order = await bob.evaluate(ROW_ORDER)
            assert order.index(table_id) < order.index(plain), order
            row = f"document.querySelector('#tables tr[data-table=\"{table_id}\"]')"
            assert await bob.evaluate(f"{row}.dataset.waiting") == "yes"
            assert await bob.evaluate(f"{row}.querySelectorAll('button.sit').length") == 3
            # Tab to a row's button; two refreshes later it still has the focus, and
            # the page has not scrolled.
            await bob.evaluate("window.scrollTo(0, 40)")
            target = f"sit:{table_id}:1"
            for _ in range(60):
                key = await bob.evaluate("document.activeElement?.dataset?.key ?? null")
                if key == target:
                    break
                await bob.press("Tab")
            assert await bob.evaluate("document.activeElement.dataset.key") == target
            y = await bob.evaluate("window.scrollY")
            drawn = int(await bob.evaluate("document.querySelector('#tables').dataset.drawn"))
            await bob.wait_for(
                f"Number(document.querySelector('#tables').dataset.drawn) >= {drawn + 2}",
                timeout=15,
            )
            assert await bob.evaluate("document.activeElement.dataset.key") == target
            assert await bob.evaluate("document.activeElement.isConnected") is True
            assert await bob.evaluate("window.scrollY") == y
            # Ann back in the lobby: her waiting table with its invitation.
            await ann.goto(web.url)
            invite = f"document.querySelector('.invite[data-table=\"{table_id}\"]')"
            await ann.wait_for(invite)
            url = await ann.evaluate(f"{invite}.querySelector('input').value")
            assert url == f"{web.url.rstrip('/')}/#/table/{table_id}"
            await browser.send(
                "Browser.grantPermissions",
                {
                    "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
                    "origin": web.url.rstrip("/"),
                    "browserContextId": ann_ctx,
                },
            )
            await ann.click(f'.invite[data-table="{table_id}"] .invite-copy')
            said = await ann.wait_for(f"{invite}.querySelector('.invite-done').textContent || null")
            assert said == "Copied"
            assert await ann.evaluate("navigator.clipboard.readText()") == url
            await shots(ann, "web-lobby")
            # Bob takes a bot's seat from the lobby: he lands on the table, seated.
            await bob.click(f'#tables tr[data-table="{table_id}"] button.sit[data-seat="2"]')
            await bob.wait_for(f"location.hash === '#/table/{table_id}'")
            seats = (await api(bob, "GET", f"/v1/tables/{table_id}"))["body"]["table"]["seats"]
            assert seats[2]["kind"] == "human" and seats[2]["player"] is not None


async def test_a_tournaments_table_links_back_and_a_finished_one_names_its_winner(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    async with (
        watchdog(),
        lobby_stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page(*LAPTOP, context=await browser.new_context())
        async with explained(page, "lobby-tournament"):
            await sign_up(page, web, f"dee{uuid.uuid4().hex[:6]}")
            # A tournament the player enters with a bot: its table waits for the player.
            made = await api(page, "POST", "/v1/tournaments",
                             {"name": "Friday cup", "format": "round_robin",
                              "ruleset": "gambler", "target": 1})  # fmt: skip
            assert made["status"] == 201, made
            tid = made["body"]["tournament_id"]
            for body in ({}, {"bot": "easy"}):
                got = await api(page, "POST", f"/v1/tournaments/{tid}/entrants", body)
                assert got["status"] == 201, got
            assert (await api(page, "POST", f"/v1/tournaments/{tid}/start", {}))["status"] == 200
            await page.goto(web.url)
            link = "document.querySelector('#tables a.tournament-link')"
            await page.wait_for(link, timeout=30)
            href, text = await page.evaluate(f"[{link}.getAttribute('href'), {link}.textContent]")
            assert (href, text) == (f"#/tournament/{tid}", "Tournament: Friday cup")
            table_id = await page.evaluate(f"{link}.closest('tr').dataset.table")
            summary = (await api(page, "GET", f"/v1/tables/{table_id}"))["body"]["table"]
            assert (summary["tournament_id"], summary["tournament_name"]) == (tid, "Friday cup")
            # The tournament page numbers the seat from 1.
            await page.click(f'#tables tr[data-table="{table_id}"] a.tournament-link')
            await page.wait_for("document.querySelector('#next-table')")
            seat = int(await page.evaluate("document.querySelector('#next-table').dataset.seat"))
            said = await page.evaluate("document.querySelector('#next-table').textContent")
            assert f"seat {seat + 1}." in said, said

            # Two bots play a tournament to its end: its winner is named.
            made = await api(page, "POST", "/v1/tournaments",
                             {"name": "Bots' cup", "format": "round_robin",
                              "ruleset": "gambler", "target": 1})  # fmt: skip
            bots_tid = made["body"]["tournament_id"]
            for _ in range(2):
                got = await api(page, "POST", f"/v1/tournaments/{bots_tid}/entrants",
                                {"bot": "easy"})  # fmt: skip
                assert got["status"] == 201, got
            assert (await api(page, "POST", f"/v1/tournaments/{bots_tid}/start", {}))[
                "status"
            ] == 200
            await page.goto(f"{web.url}#/tournament/{bots_tid}")
            winner = await page.wait_for(
                "document.querySelector('#tournament-winner')?.textContent ?? null", timeout=90
            )
            tour = (await api(page, "GET", f"/v1/tournaments/{bots_tid}"))["body"]
            assert tour["status"] == "finished" and tour["winner"] is not None
            assert tour["winner"]["entrant"] == tour["finished"]["standings"][0]
            shown = await page.evaluate(
                "[...document.querySelectorAll('#standings tbody tr')][0]"
                ".querySelector('td.names').textContent"
            )
            assert winner == f"Winner: {shown}", (winner, shown)
            assert "Seat 0" not in await page.evaluate("document.body.textContent")
            await shots(page, "web-tournament-winner")
            await page.goto(f"{web.url}#/tournaments")
            cell = (f"document.querySelector('#tournaments tr[data-tournament=\"{bots_tid}\"]"
                    " td.winner')?.textContent ?? null")  # fmt: skip
            assert await page.wait_for(cell) == shown
