"""The operators' fair-play page in Chromium against the real stack: the verify service
(its analysis and fair-play jobs, the operator API with an operator token set), the
gateway serving the client, and the rating service (the players' names come from the
gateway). Three accounts play two recorded matches: one of them plays the double-dummy
best card every time (it sees every hand), two are partners in a club match.

The page asks for the operator token and keeps it in this tab's sessionStorage only; a
wrong token is refused in words and asked for again. With the right one, it lists what
the API lists, in its order, each player's score, decisions, best cards found against
the worlds' expectation and flagged mark ("flagged for review", never anything else) and
the partnership; a player's page lists the decisions the evidence rests on, each with
its chance, its likeliest card and whether a best card was found, and a link to the
match's replay, which opens. In Russian too. Nothing is wider than a 360 px phone.
Screenshots: tests/artifacts/fairplay-{phone,laptop}.png and fairplay-ru-phone.png (with
BELOT_DOCS_SHOTS=1, copied to docs/img/), and fairplay-player-{phone,laptop,ru-phone}.png."""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from services.rating.app import create_app as create_rating
from services.verify.app import create_app as build_verify_app
from services.verify.http import RateLimits
from tests.browser import Page, chromium
from tests.integration import roles
from tests.integration.gateway_support import gateway
from tests.integration.table_support import eventually, platform
from tests.integration.test_verify_fairplay import seer_appends
from tests.integration.test_web_browser import (
    ARTIFACTS,
    BROWSER_TEST,
    CHROMIUM,
    PASSWORD,
    explained,
    to_docs,
    watchdog,
)
from tools.matchgen import MatchSpec, generate, write

pytestmark = BROWSER_TEST

TOKEN = "the-operators-token"
PHONE = (360, 740, True)
LAPTOP = (1366, 768, False)
NAMES = ("Mira", "Ivo", "Lena")
#: A seer's match of 14 deals that reaches the flag (a shorter one than
#: test_verify_fairplay's, whose margin is wider: this test checks that the page shows
#: what the API says, the flag included). Its match id is fixed too: the worlds' random
#: draws are seeded by it.
SEER_LABEL = "fairplay-seer-201"

ROWS = """[...document.querySelectorAll('#fairplay-players > li')].map(li => [
  li.dataset.player, li.dataset.flagged === 'yes', Number(li.dataset.score),
  Number(li.dataset.decisions), !!li.querySelector('.fp-flag'),
  [...li.querySelectorAll('.fp-partners li')].map(p => p.dataset.partner),
  Number(li.querySelector(':scope > div > .fp-figures').dataset.found),
  Number(li.querySelector(':scope > div > .fp-figures').dataset.expected),
  li.querySelector(':scope > div > .fp-figures').textContent])"""
#: A player's decisions as the page shows them.
DECISIONS = """[...document.querySelectorAll('#fairplay-decisions > li')].map(li => [
  li.dataset.match, Number(li.dataset.deal), Number(li.dataset.trick), li.dataset.played,
  li.dataset.found === 'yes', Number(li.dataset.chance), Number(li.dataset.hits),
  Number(li.dataset.worlds), li.dataset.likeliest,
  li.querySelector('a.fp-replay').getAttribute('href'),
  li.querySelector('.fp-found')?.textContent ?? null,
  li.querySelector('.fp-chance').textContent, li.querySelector('.fp-cards').textContent])"""
WIDER = "document.documentElement.scrollWidth > document.documentElement.clientWidth"


@dataclass
class Stack:
    url: str
    verify: TestClient  # type: ignore[type-arg]
    http: TestClient  # type: ignore[type-arg]


@asynccontextmanager
async def stack(
    servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any
) -> AsyncIterator[Stack]:
    verify_schema = f"v_{uuid.uuid4().hex[:12]}"
    verify = TestClient(
        TestServer(
            build_verify_app(
                Settings(pg_dsn=servers.pg_dsn, pg_schema=store.schema, admin_token=TOKEN),
                schema=verify_schema,
                limits=RateLimits(rate=10_000, burst=100_000),
                analysis_poll=0.05,
            )
        )
    )
    await verify.start_server()
    verify_url = str(verify.make_url("")).rstrip("/")
    try:
        async with (
            platform(store, pg_pool, nc, js_names, workers=0) as p,
            gateway(servers, store.schema, js_names, p.prefix, verify_url=verify_url) as http,
        ):
            rating = TestServer(
                create_rating(
                    Settings(
                        pg_dsn=roles.dsn_for("rating", servers.pg_dsn),
                        nats_url=servers.nats_url,
                        pg_schema=store.schema,
                        rating_schema=f"{store.schema}_rating",
                        subject_prefix=p.prefix,
                        events_stream=js_names.stream,
                        events_subject=js_names.subject_prefix,
                    ),
                    flush_interval=0.05,
                    poll_interval=0.2,
                )
            )
            await rating.start_server()
            try:
                yield Stack(str(http.make_url("/")), verify, http)
            finally:
                await rating.close()
    finally:
        await asyncio.wait_for(verify.close(), 30)
        for schema in (verify_schema, f"{store.schema}_rating"):
            await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', timeout=30)


async def account(http: Any, name: str) -> str:
    """A new account's player id."""
    async with http.post("/v1/accounts", json={"name": name, "password": PASSWORD}) as r:
        assert r.status in (200, 201), await r.text()
    async with http.post("/v1/sessions", json={"name": name, "password": PASSWORD}) as r:
        assert r.status in (200, 201), await r.text()
        player: str = (await r.json())["player"]
    return player


async def operator_list(verify: Any) -> Any:
    resp = await verify.get("/v1/fairplay/players", headers={"Authorization": f"Bearer {TOKEN}"})
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def give_token(page: Page, token: str) -> None:
    await page.wait_for("document.querySelector('#operator-token')")
    await page.evaluate("document.querySelector('#operator-token').value = ''")
    await page.type("#operator-token", token)
    await page.click("#operator-open")


async def test_the_operators_page_lists_the_evidence_the_api_gives(
    servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any
) -> None:
    assert CHROMIUM is not None
    async with (
        watchdog(600),
        stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        mira, ivo, lena = [await account(web.http, n) for n in NAMES]
        seer = MatchSpec(match_id="fpw-seer-1", ruleset="gambler",
                         label=SEER_LABEL, players=(mira, None), timer_every=0)  # fmt: skip
        club = MatchSpec(match_id="fpw-club-1", ruleset="club",
                         label="fpw-club", target=300, players=(ivo, None, lena, None))  # fmt: skip
        await write(store, generate(club))
        await write(store, await asyncio.to_thread(seer_appends, seer))
        listing: dict[str, Any] = {}

        async def measured() -> bool:
            listing.update(await operator_list(web.verify))
            return listing["backlog"] == 0 and {mira, ivo, lena} <= {
                p["player"] for p in listing["players"]
            }

        await eventually(measured, timeout=400)
        api = listing["players"]
        assert api[0]["player"] == mira  # the seer leads the list

        page = await browser.new_page()
        async with explained(page, "fairplay"):
            await page.set_viewport(*LAPTOP)
            await page.goto(f"{web.url}#/fairplay")
            # No token yet: the page asks for it; a wrong one is refused in words.
            await give_token(page, "not-the-token")
            await page.wait_for("document.querySelector('#fairplay-refused')")
            said = await page.evaluate("document.querySelector('#fairplay-refused').textContent")
            assert said == "The token was refused: enter the operators' token.", said
            assert await page.evaluate("sessionStorage.getItem('belot.operator_token')") is None
            await give_token(page, TOKEN)
            await page.wait_for("document.querySelector('#fairplay[data-ready=\"yes\"]')", 30)
            # Kept in this tab's sessionStorage, nowhere else.
            kept = await page.evaluate(
                "[sessionStorage.getItem('belot.operator_token'), JSON.stringify(localStorage)]"
            )
            assert kept[0] == TOKEN and TOKEN not in kept[1], kept
            rows = await page.evaluate(ROWS)
            assert [r[:8] for r in rows] == [
                [p["player"], p["flagged"], p["evidence"]["score"], p["evidence"]["decisions"],
                 p["flagged"], [q["player"] for q in p["partners"]],
                 p["evidence"]["found"], p["evidence"]["expected"]]
                for p in api
            ], rows  # fmt: skip
            assert rows[0][1], "the seer is flagged for review"
            # The seer's figures in words: its best cards against the worlds' expectation,
            # more than they expected.
            ev = api[0]["evidence"]
            assert ev["found"] > ev["expected"], ev
            assert rows[0][8].endswith(
                f" · {ev['decisions']} decisions · best card found {ev['found']} times where"
                f" the worlds expected {ev['expected']:g}"
            ), rows[0]
            flags = await page.evaluate(
                "[...new Set([...document.querySelectorAll('.fp-flag')].map(e => e.textContent))]"
            )
            assert flags == ["flagged for review"], flags
            # The method whose decisions the evidence counts, as the API names it.
            method = await page.evaluate(
                "[document.querySelector('#fairplay-method').dataset.method,"
                " document.querySelector('#fairplay-method').textContent]"
            )
            assert method[0] == listing["method"] and listing["method"] in method[1], method
            # The players named as the gateway names them, and the partnership shown.
            await page.wait_for(
                "[...document.querySelectorAll('#fairplay-players .fp-open .fp-name')]"
                ".every(e => !/^[0-9a-f]{32}$/.test(e.textContent))",
                30,
            )
            shown = await page.evaluate(
                "[...document.querySelectorAll('#fairplay-players .fp-open .fp-name')]"
                ".map(e => [e.dataset.nameOf, e.textContent])"
            )
            assert dict(shown) == {
                k: v for k, v in zip((mira, ivo, lena), NAMES, strict=True) if k in dict(shown)
            }, shown
            ivo_row = next(r for r in rows if r[0] == ivo)
            assert ivo_row[5] == [lena], ivo_row
            shots = []
            for name, size in (("laptop", LAPTOP), ("phone", PHONE)):
                await page.set_viewport(*size)
                assert not await page.evaluate(WIDER), f"wider than the {name}"
                shot = await page.screenshot(ARTIFACTS / f"fairplay-{name}.png", False)
                to_docs(shot)
                shots.append(shot)

            # A player's page: the decisions the evidence rests on, each a replay link.
            await page.set_viewport(*LAPTOP)
            await page.click(f'#fairplay-players li[data-player="{mira}"] a.fp-open')
            await page.wait_for("document.querySelector('#fairplay-decisions')", 30)
            resp = await web.verify.get(
                f"/v1/fairplay/players/{mira}", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            detail = await resp.json()
            got = await page.evaluate(DECISIONS)
            assert [g[:10] for g in got] == [
                [d["match_id"], d["deal"], d["trick"], d["played"], d["found"], d["chance"],
                 d["hits"], d["worlds"], d["likeliest"], d["replay"]]
                for d in detail["decisions"]
            ], got  # fmt: skip
            assert len(got) == detail["evidence"]["decisions"] > 0
            # Each decision says its chance in words, its likeliest card, and is marked
            # where its card was a best card (the seer's, every time).
            for g, d in zip(got, detail["decisions"], strict=True):
                worlds = "world" if d["worlds"] == 1 else "worlds"
                percent = math.floor(100 * d["chance"] + 0.5)
                assert g[11] == (
                    f"chance {percent}%: a best card in {d['hits']} of {d['worlds']} {worlds}"
                ), g
                assert g[10] == ("best card found" if d["found"] else None), g
                assert "most often best: " in g[12] and "double-dummy best " in g[12], g
            assert all(d["found"] for d in detail["decisions"])
            for name, size in (("laptop", LAPTOP), ("phone", PHONE)):
                await page.set_viewport(*size)
                assert not await page.evaluate(WIDER), f"the player's page, {name}"
                if name == "phone":  # the decisions, below the player's figures there
                    await page.evaluate(
                        "document.querySelector('#fairplay-decisions').scrollIntoView()"
                    )
                shot = await page.screenshot(ARTIFACTS / f"fairplay-player-{name}.png", False)
                shots.append(shot)
            await page.evaluate("window.scrollTo(0, 0)")
            # A decision's link opens the match's replay at its card: the deal's tab,
            # the step of that card, with its analysis. A late one, not the first step.
            await page.set_viewport(*LAPTOP)
            k, d = max(enumerate(detail["decisions"]), key=lambda x: (x[1]["deal"], x[1]["trick"]))
            place = f"{d['deal']}/{d['trick']}/{d['index']}"
            await page.click(f"#fairplay-decisions > li:nth-child({k + 1}) a.fp-replay")
            await page.wait_for(f"location.hash === '#/replay/{seer.match_id}/{place}'")
            await page.wait_for("document.querySelector('#deals[data-opened]')", 60)
            opened = await page.evaluate(
                "[document.querySelector('#deals').dataset.opened,"
                " document.querySelector('.deal-tabs .active').dataset.deal,"
                " document.querySelector('#step-analysis').dataset.card,"
                " document.querySelector('#step-analysis').textContent]"
            )
            assert opened[:3] == [place, str(d["deal"]), str(d["trick"] * 2 + d["index"])], opened
            assert opened[3], opened  # the card's verdict (best card, loss) is shown
            shots.append(await page.screenshot(ARTIFACTS / "fairplay-replay-at-card.png", False))
            # A malformed place opens the match at its start, as before.
            await page.goto(f"{web.url}#/replay/{seer.match_id}/1/x/0")
            await page.wait_for("document.querySelector('#replay .deal-tabs')", 60)
            assert await page.evaluate(
                "[!('opened' in document.querySelector('#deals').dataset),"
                " document.querySelector('#step').value]"
            ) == [True, "0"]

            # In Russian: the page's words are the catalogue's, the figures the same.
            await page.goto(f"{web.url}?lang=ru#/fairplay")
            await page.wait_for("document.querySelector('#fairplay[data-ready=\"yes\"]')", 30)
            heading = await page.evaluate("document.querySelector('#fairplay h1').textContent")
            assert heading == "Честная игра", heading
            russian = await page.evaluate(ROWS)
            assert [r[:8] for r in russian] == [r[:8] for r in rows]
            expected = f"{ev['expected']:g}".replace(".", ",")
            assert f"по раскладам ожидалось {expected}" in russian[0][8], russian[0]
            flag = await page.evaluate("document.querySelector('.fp-flag').textContent")
            assert flag == "отмечен для проверки", flag
            await page.set_viewport(*PHONE)
            assert not await page.evaluate(WIDER), "in Russian, wider than the phone"
            shot = await page.screenshot(ARTIFACTS / "fairplay-ru-phone.png", False)
            to_docs(shot)
            shots.append(shot)
            # The seer's decisions in Russian: the same figures, the catalogue's words.
            await page.goto(f"{web.url}?lang=ru#/fairplay/{mira}")
            await page.wait_for("document.querySelector('#fairplay-decisions')", 30)
            said = await page.evaluate(DECISIONS)
            assert [g[:10] for g in said] == [g[:10] for g in got], said
            first, d = said[0], detail["decisions"][0]
            assert first[10] == "сыграна лучшая", first
            one = d["worlds"] % 10 == 1 and d["worlds"] % 100 != 11  # из 21 расклада
            assert first[11] == (
                f"вероятность {math.floor(100 * d['chance'] + 0.5)}\u00a0%: лучшая в {d['hits']}"
                f" из {d['worlds']} {'расклада' if one else 'раскладов'}"
            ), first
            assert "чаще всего лучшая " in first[12] and "лучшие в открытую " in first[12], first
            assert not await page.evaluate(WIDER), "the player's page in Russian, phone"
            await page.evaluate("document.querySelector('#fairplay-decisions').scrollIntoView()")
            shots.append(await page.screenshot(ARTIFACTS / "fairplay-player-ru-phone.png", False))
            await page.set_viewport(*LAPTOP)
            # Forgetting the token asks for it again.
            await page.click("#operator-forget")
            await page.wait_for("document.querySelector('#operator-token')")
            assert await page.evaluate("sessionStorage.getItem('belot.operator_token')") is None
            assert page.errors == [], page.errors
    print(f"\nscreenshots: {' '.join(map(str, shots))}")
