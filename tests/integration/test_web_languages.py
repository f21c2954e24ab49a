"""The table in Russian and in Bulgarian, in a real browser against the real services.

1. A player who chose Russian in the header's menu logs in as "Иван…" (an account in
   Cyrillic, which played a rated gambler match over the API first), and plays a whole
   club match and a whole gambler match against bots; a second player does the same in
   Bulgarian as "Петър…". On every turn the table is measured at 390x844 and 1366x768
   with the layout test's checks (tests/integration/test_web_table.py: nothing overlaps,
   nothing is off the screen, nothing scrolls sideways, every seat's lines fit), the hot
   key S is pressed at its place on a Russian layout (it types "ы") and its answer is in
   the page's language, and no English word is left on the table. The score sheet's rows
   are the record's. The language was kept for the account, and "Иван…" is on the
   gambler leaderboard, drawn in Russian.
2. The pseudo-locale (en-XA: every text 40% longer and accented) plays a club match
   through the same checks: the longest language's words fit.

Screenshots of the table (phone and laptop) and of the score sheet in each language go
to tests/artifacts/ (web-lang-*.png); with BELOT_DOCS_SHOTS=1 they are copied to docs/img/.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from drand.clock import ScaledClock
from tests.browser import Page, chromium
from tests.integration.gateway_support import Player
from tests.integration.table_support import ORIGIN, eventually
from tests.integration.test_web_browser import (
    ARTIFACTS,
    BROWSER_TEST,
    CHROMIUM,
    PASSWORD,
    as_player,
    explained,
    to_docs,
    watchdog,
    web_stack,
)
from tests.integration.test_web_pages import pages_stack, rows_of
from tests.integration.test_web_table import (
    KEPT_HERE,
    LAPTOP,
    PHONE,
    ask,
    assert_sheet_is_the_record,
    new_table,
    play_by_clicks,
)
from tools.matchgen import stored_record

pytestmark = BROWSER_TEST

#: The Latin words left on the page drawn in another language: every word of three
#: Latin letters or more in the header and the page, but the players' names, hex digits,
#: and the names no language translates.
LATIN_WORDS = r"""((names) => {
  const keep = new Set(['Belot', 'Club', 'drand', 'quicknet', 'SHA-256', 'BLS', 'Ed25519', 'vs',
                        'crypto', 'getRandomValues']);
  let text = document.querySelector('#nav').innerText + ' ' +
             document.querySelector('#table, #page').innerText;
  for (const n of names) text = text.split(n).join(' ');
  // Each word left, with the text around it (to say where it is).
  return [...text.matchAll(/[A-Za-z][A-Za-z0-9-]{2,}/g)]
    .filter(([w]) => !keep.has(w) && !/^[0-9a-f-]+$/.test(w) && !/^(?:0x)?[0-9a-fA-F]{6,}$/.test(w))
    .map((m) => `${m[0]} (in "${text.slice(Math.max(0, m.index - 30), m.index + 30)}")`);
})"""

CYRILLIC = re.compile(r"[А-Яа-яЁё]")


#: The pages besides the table, each with its lists and the catalogue key each says while
#: it loads them: the page is read once every list has its data.
PAGES = (
    ("#/", (("#tables", "lobby.loading"),)),
    ("#/matches", (("#matches", "replay.loading_matches"),)),
    ("#/tournaments", (("#tournament-list", "tour.loading_list"),)),
    ("#/leaderboards/club", (("#leaderboard", "players.loading_leaderboard"),)),
    ("#/my-matches", (("#my-tables", "players.loading_tables"),
                      ("#my-finished", "players.loading_finished"))),
)  # fmt: skip

LOADED = """(async (lists) => {
  const {t} = await import('/js/i18n.js');
  return lists.every(([sel, key]) => {
    const el = document.querySelector(sel);
    return el && el.textContent.trim() && el.textContent.trim() !== t(key);
  });
})"""


async def every_page_speaks(page: Page, url: str, names: list[str]) -> None:
    """Each page besides the table, once its lists are drawn, shows no English word (the
    players' ``names`` aside)."""
    for hash_, lists in PAGES:
        await page.goto(f"{url}{hash_}")
        await page.wait_for(f"({LOADED})({json.dumps(lists)})")
        left = await page.evaluate(f"({LATIN_WORDS})({json.dumps(names)})")
        assert left == [], (hash_, " ".join(sorted(set(left))))


def speaks(language: str, me: str) -> Callable[[Page, dict[str, Any]], Awaitable[None]]:
    """Each turn's check: the hot keys S, C, A and F, pressed at their places on a Russian
    layout (they type ы, с, ф, а), are answered in ``language``; the table shows no English
    word (``me``, the player's name, aside)."""

    async def check(page: Page, state: dict[str, Any]) -> None:
        for key in "scaf":
            said = await ask(page, key, "ru")
            if language in ("ru", "bg"):
                words = re.sub(r"\bdrand\b", "", said.replace(me, ""))
                assert CYRILLIC.search(said) and not re.search(r"[A-Za-z]{3,}", words), said
            else:  # the pseudo-locale: accented, bracketed English
                assert said.startswith("[") and "~" in said, said
        if language in ("ru", "bg"):
            left = await page.evaluate(f"({LATIN_WORDS})({json.dumps([me])})")
            assert left == [], (state["phase"], " ".join(sorted(set(left))))

    return check


def on_board(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda board: any(r["name"] == name for r in board["rows"])


async def choose(page: Page, language: str) -> None:
    """The header's menu: the page is drawn again in ``language``."""
    await page.wait_for("document.querySelector('#language')")
    await page.select("#language", language)
    await page.wait_for(f"document.documentElement.lang === {language!r}")


async def shoot(page: Page, name: str) -> dict[str, Path]:
    """The table at both sizes as the screen shows it, and the whole page at the
    laptop's (the score sheet under the table), to tests/artifacts/ (and docs/img/: to_docs)."""
    shots = {}
    for label, size, whole in (("phone", PHONE, False), ("laptop", LAPTOP, False),
                               ("sheet", LAPTOP, True)):  # fmt: skip
        await page.set_viewport(*size)
        await page.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        path = await page.screenshot(ARTIFACTS / f"web-lang-{name}-{label}.png", full_page=whole)
        to_docs(path)
        shots[label] = path
    return shots


async def play_two_rulesets(page: Page, web: Any, store: Any, language: str, me: str) -> list[str]:
    """A club match and a gambler match against bots, checked on every turn; the score
    sheet's rows are the record's. Returns the matches' ids."""
    matches = []
    for i, ruleset in enumerate(("club", "gambler")):
        await new_table(page, web, ruleset)
        assert await page.evaluate("document.documentElement.lang") == language
        seen = await play_by_clicks(page, web, random.Random(i), each_turn=speaks(language, me))
        assert seen["turns"] >= 3 and seen["cards"] >= 1, (ruleset, seen)
        kept = await page.evaluate(KEPT_HERE)
        record = await stored_record(store, kept["match_id"])
        await assert_sheet_is_the_record(page, record)
        await shoot(page, f"{language}-{ruleset}")
        matches.append(kept["match_id"])
    return matches


async def session_language(page: Page, name: str) -> Any:
    """The language a new log-in of ``name`` answers (the account's)."""
    login = json.dumps({"name": name, "password": PASSWORD})
    return await page.evaluate(
        f"""fetch('/v1/sessions', {{method: 'POST', body: {json.dumps(login)},
                                    headers: {{'Content-Type': 'application/json'}}}})
            .then(r => r.json()).then(b => b.language)"""
    )


async def test_russian_and_bulgarian_players_play_club_and_gambler(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    started = time.monotonic()
    tag = str(uuid.uuid4().int)[:5]  # digits: they go with any script
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(500),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        for language, name in (("ru", f"Иван{tag}"), ("bg", f"Петър{tag}")):
            page = await browser.new_page(context=await browser.new_context())
            await as_player(page, web, [])
            async with explained(page, f"lang-{language}"):
                await page.goto(web.url)
                await page.wait_for("document.querySelector('#login')")
                assert await page.evaluate("document.documentElement.lang") == "en"
                await choose(page, language)
                login = await page.evaluate("document.querySelector('#log-in').textContent")
                assert CYRILLIC.search(login), login
                # "Ivan" with a Cyrillic "а": refused, the reason in the page's language.
                await page.type("#name", f"Iv\u0430n{tag}")
                await page.type("#password", PASSWORD)
                await page.click("#sign-up")
                said = await page.wait_for(
                    "(m => !m.hidden && m.classList.contains('error') && m.textContent)"
                    "(document.querySelector('#message'))"
                )
                scripts = {"ru": "кириллица и латиница", "bg": "кирилица и латиница"}[language]
                assert scripts in said.lower() and "script" not in said, said
                await page.type("#name", name)
                await page.type("#password", PASSWORD)
                await page.click("#sign-up")
                await page.wait_for("document.querySelector('#create-table')")
                assert await page.evaluate("document.querySelector('#who').textContent") == name
                # Chosen before the account had a language: kept for it.
                assert await session_language(page, name) == language
                await play_two_rulesets(page, web, store, language, name)
                if language == "bg":
                    # The finished table and its sheet in the other two languages, as the
                    # menu redraws them; the account keeps the last choice.
                    for other in ("fr", "en"):
                        await choose(page, other)
                        await page.wait_for("document.querySelector('#sheet-table tbody tr')")
                        await shoot(page, f"{other}-gambler")
                    assert await session_language(page, name) == "en"
                assert page.errors == [], page.errors

        # The pseudo-locale: the longest words fit the same checks.
        page = await browser.new_page(context=await browser.new_context())
        await as_player(page, web, [])
        async with explained(page, "lang-pseudo"):
            await page.goto(f"{web.url}?lang=en-XA")
            await page.wait_for("document.documentElement.lang === 'en-XA'")
            await page.wait_for("document.querySelector('#login')")
            await page.type("#name", f"pseudo{tag}")
            await page.type("#password", PASSWORD)
            await page.click("#sign-up")
            await page.wait_for("document.querySelector('#create-table')")
            await new_table(page, web, "club")
            seen = await play_by_clicks(
                page, web, random.Random(7), each_turn=speaks("en-XA", f"pseudo{tag}")
            )
            assert seen["turns"] >= 3, seen
            await shoot(page, "pseudo-club")
            assert page.errors == [], page.errors
    print(f"\nbrowser matches in ru, bg and the pseudo-locale: {time.monotonic() - started:.1f} s")


async def test_ivan_plays_a_rated_match_and_is_on_the_leaderboard_in_russian(
    servers, store, pg_pool, nc, js_names
) -> None:
    """An account "Иван…" signs up, plays a rated gambler match (over the API, against
    "Ольга…") and shows on the leaderboard the page draws in Russian."""
    assert CHROMIUM is not None
    tag = str(uuid.uuid4().int)[:5]
    async with (
        watchdog(),
        pages_stack(servers, store, pg_pool, nc, js_names) as web,
        chromium(CHROMIUM) as browser,
    ):
        ivan = await Player(web.http, f"Иван{tag}").register()
        olga = await Player(web.http, f"Ольга{tag}").register()
        status, created = await ivan.call("POST", "/v1/tables", {
            "ruleset": "gambler", "seats": ["human", "human"], "target": 1, "sit": 0,
            "rated": True})  # fmt: skip
        assert status == 201, created
        status, body = await olga.call("POST", f"/v1/tables/{created['table_id']}/seats/1")
        assert status == 200, body
        await asyncio.gather(ivan.play(created["table_id"]), olga.play(created["table_id"]))
        page = await browser.new_page()
        board: dict[str, Any] = {}

        async def rated() -> bool:
            status, body = await ivan.call("GET", "/v1/leaderboards/gambler?all=1")
            board.update(body)
            return status == 200 and on_board(ivan.name)(body)

        await eventually(rated, timeout=30)
        async with explained(page, "lang-leaderboard"):
            await page.goto(f"{web.url}?lang=ru#/leaderboards/gambler?all=1")
            await page.wait_for("document.querySelector('#leaderboard-rows tr')")
            assert await page.evaluate("document.documentElement.lang") == "ru"
            rows = await page.evaluate(rows_of("#leaderboard-rows", "player"))
            assert [ivan.player, ivan.name] in [r[:1] + r[2:3] for r in rows], (rows, board)
            text = await page.evaluate("document.querySelector('#page').innerText")
            assert CYRILLIC.search(text.replace(ivan.name, "").replace(olga.name, "")), text
            await page.set_viewport(*PHONE)
            shot = await page.screenshot(ARTIFACTS / "web-lang-ru-leaderboard.png")
            # Logged in as Иван, every other page in Russian: the lobby, finished matches,
            # tournaments, the leaderboard, his matches (with the rated one in them).
            await page.goto(f"{web.url}#/login")
            await page.wait_for("document.querySelector('#login')")
            await page.type("#name", ivan.name)
            await page.type("#password", "correct horse")  # gateway_support.Player's
            await page.click("#log-in")
            await page.wait_for("document.querySelector('#create-table')")
            await every_page_speaks(page, web.url, [ivan.name, olga.name])
            to_docs(shot)
            assert page.errors == [], page.errors
