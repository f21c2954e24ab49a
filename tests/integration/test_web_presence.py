"""Presence and the turn clock at a table of two, in two browser contexts (two people),
against the real services (test_web_browser.py's web_stack):

1. Both play by clicking. Hal stops clicking: his clock runs out, and both tabs show the
   time-out on the felt ("Time out: a card was played for …" or "a bid was made for …")
   and in the log.
2. Hal closes his tab for 20 s: Gil's tab marks Hal's seat "disconnected" within 5 s of
   the close. With Hal away his clock keeps running out: after the configured missed turns
   in a row (BELOT_AUTOPLAY_AFTER, 2) a bot plays his seat, and Gil's tab says so.
3. Hal opens the table again: Gil's tab says "back" within 5 s of the page's return; Hal's
   tab says a bot plays his seat and offers to take it back; he clicks, the bot's badge
   goes from both tabs, and Hal plays on.

Times are real (the tabs' and the services' own clocks); every wait is for a condition.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from drand.clock import ScaledClock
from fairdeal.record import match_stream
from tests.browser import Page, chromium
from tests.integration.table_support import ORIGIN, eventually
from tests.integration.test_web_browser import (
    BROWSER_TEST,
    CHROMIUM,
    Web,
    artifact,
    as_player,
    explained,
    sign_up,
    watchdog,
    web_stack,
)

pytestmark = BROWSER_TEST

#: The turn clock of the table (seconds): short, so that a missed turn comes soon.
TURN_SECONDS = 4
#: How long Hal's tab stays closed.
AWAY_S = 20.0
#: The most a player may wait to see the other leave or come back (the issue's bound).
SEEN_WITHIN_S = 5.0

#: Click the first thing the page offers on our turn (a legal card, else a bid).
CLICK = """(() => {
  const t = document.querySelector('#table');
  if (!t || t.dataset.turn !== 'me' || t.dataset.busy === 'true') return false;
  const el = document.querySelector('#hand button.card.legal') ||
             document.querySelector('#bids button.bid');
  if (!el) return false;
  el.click();
  return true;
})()"""


def badge(seat: int, kind: str) -> str:
    """True when the seat's box on the felt shows the badge ``kind``."""
    box = f'#felt .seat-box[data-seat="{seat}"]'
    return f"!!document.querySelector('{box} [data-badge=\"{kind}\"]')"


LOG_TEXT = "[...document.querySelectorAll('#log li')].map(li => li.textContent).join('\\n')"
SAID = "document.querySelector('#said')?.textContent ?? ''"
IN_PLAY = "['bidding', 'playing'].includes(document.querySelector('#table').dataset.phase)"
MY_TURN = "document.querySelector('#table').dataset.turn === 'me'"
TIMED_OUT = f"({LOG_TEXT}).includes('Time out: a ')"


@contextlib.asynccontextmanager
async def clicking(page: Page) -> AsyncIterator[None]:
    """Play every turn of ``page`` by clicking, until the block ends (the loop is told to
    stop, not cancelled: a CDP call in flight is let finish)."""
    stop = asyncio.Event()

    async def loop() -> None:
        while not stop.is_set():
            with contextlib.suppress(Exception):
                await page.evaluate(CLICK)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.15)

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


async def own_moves(store: Any, match_id: str, seat: int) -> int:
    """How many moves of ``seat`` in the match its player made (not the clock, not a bot)."""
    events = await store.read_stream(match_stream(match_id))
    return sum(
        1
        for e in events
        if e.payload.get("seat") == seat
        and e.metadata.get("acted_by") == "player"
        and e.type in ("CardPlayed", "Passed", "ContractTaken")
    )


async def seen_within(page: Page, expression: str, since: float, limit: float) -> float:
    """Wait for ``expression`` on ``page``; how long after ``since`` (monotonic) it held,
    which must be within ``limit`` seconds."""
    await page.wait_for(expression, timeout=limit + 10)
    took = time.monotonic() - since
    assert took <= limit, (expression, took)
    return took


async def two_at_a_table(web: Web, gil: Page, hal: Page) -> tuple[str, str, str]:
    gil_name, hal_name = f"gil{uuid.uuid4().hex[:6]}", f"hal{uuid.uuid4().hex[:6]}"
    await sign_up(gil, web, gil_name)
    await gil.select("#ruleset", "gambler")
    await gil.select("#seat-1", "human")
    await gil.type("#target", "1000")  # a long match: it must not end during the test
    await gil.type("#turn-seconds", str(TURN_SECONDS))
    await gil.click("#create-table")
    await gil.wait_for("document.querySelector('#table[data-status=\"open\"]')")
    table_id = await gil.evaluate("decodeURIComponent(location.hash.slice(8))")
    await sign_up(hal, web, hal_name)
    await hal.goto(f"{web.url}#/table/{table_id}")
    await hal.click("button.sit[data-seat='1']", timeout=10)
    await hal.wait_for("document.querySelector('#table')?.dataset.seat === '1'")
    return table_id, gil_name, hal_name


async def test_a_player_who_leaves_is_seen_gone_timed_out_replaced_by_a_bot_and_back(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    clock = ScaledClock(ORIGIN, 1.0)
    figures: dict[str, float] = {}
    async with (
        watchdog(240),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        hal_context = await browser.new_context()
        gil = await browser.new_page(context=await browser.new_context())
        hal = await browser.new_page(context=hal_context)
        for page in (gil, hal):
            await as_player(page, web, [])
        async with explained(gil, "presence-gil"), explained(hal, "presence-hal"):
            table_id, _, hal_name = await two_at_a_table(web, gil, hal)
            hal_seat = '#felt .seat-box[data-seat="1"]'
            async with clicking(gil):
                # 1. Hal does not play: his clock runs out, both tabs say so.
                await hal.wait_for(
                    IN_PLAY,
                    timeout=60,
                )
                for page in (gil, hal):
                    await page.wait_for(TIMED_OUT, timeout=3 * TURN_SECONDS + 10)
                    said = await page.evaluate(SAID)
                    log = await page.evaluate(LOG_TEXT)
                    assert "Time out: a " in said or "Time out: a " in log, (said, log)
                timed_out = await gil.evaluate(LOG_TEXT)
                line = next(x for x in timed_out.split("\n") if x.startswith("Time out: a "))
                assert hal_name in line, line  # the seat is named by its player
                assert await hal.evaluate(
                    f"({LOG_TEXT}).includes('Time out: a ') && ({LOG_TEXT}).includes('for you')"
                )
                shot_timeout = await gil.screenshot(
                    artifact("web-presence-timeout.png"), full_page=False
                )

                # 2. Hal closes his tab: Gil sees him gone, then a bot in his seat.
                closed = time.monotonic()
                await hal.close()
                figures["disconnected seen (s)"] = await seen_within(
                    gil,
                    badge(1, "disconnected"),
                    closed,
                    SEEN_WITHIN_S,
                )
                await gil.wait_for(badge(1, "autoplay"), timeout=AWAY_S)
                figures["bot took the seat after (s)"] = time.monotonic() - closed
                text = await gil.evaluate(f"document.querySelector('{hal_seat}').textContent")
                assert "a bot is playing" in text, text
                # The badge comes with the owner's notice; the log's line with the event,
                # through the log's relay: a moment later.
                await gil.wait_for(f"({LOG_TEXT}).includes('a bot plays for them')", timeout=10)
                shot_away = await gil.screenshot(
                    artifact("web-presence-autoplay.png"), full_page=False
                )
                # The bot plays on while Hal is away.
                moves = await gil.evaluate("document.querySelectorAll('#log li').length")
                await gil.wait_for(
                    f"document.querySelectorAll('#log li').length > {moves + 2}", timeout=20
                )
                rest = AWAY_S - (time.monotonic() - closed)
                if rest > 0:
                    await asyncio.sleep(rest)  # the time away itself, not a synchronisation

                # 3. Hal comes back: Gil sees it; Hal takes his seat back.
                hal = await browser.new_page(context=hal_context)
                await as_player(hal, web, [])
                back = time.monotonic()
                await hal.goto(f"{web.url}#/table/{table_id}")
                await hal.wait_for("document.querySelector('#table')?.dataset.seat === '1'")
                figures["back seen (s)"] = await seen_within(
                    gil, badge(1, "back"), back, SEEN_WITHIN_S
                )
                await hal.wait_for("!!document.querySelector('#take-back')", timeout=10)
                note = await hal.evaluate("document.querySelector('#resume').textContent")
                assert "a bot is playing your seat" in note, note
                shot_back = await hal.screenshot(
                    artifact("web-presence-take-back.png"), full_page=False
                )
                await hal.click("#take-back")
                await gil.wait_for("!" + badge(1, "autoplay"), timeout=10)
                await hal.wait_for("!document.querySelector('#take-back')", timeout=10)
                assert "takes the seat back" in await gil.evaluate(LOG_TEXT)
                match_id = await hal.evaluate("document.querySelector('#table').dataset.match")
                before = await own_moves(store, match_id, 1)
                async with clicking(hal):
                    # Hal plays again himself: his own move, not the timer's nor a bot's.
                    async def moved() -> bool:
                        return await own_moves(store, match_id, 1) > before

                    await eventually(moved, timeout=30)
                assert not await gil.evaluate(badge(1, "autoplay"))
            assert gil.errors == [] and hal.errors == [], (gil.errors, hal.errors)
    print(f"\nscreenshots: {shot_timeout} {shot_away} {shot_back}")
    print("presence: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))
