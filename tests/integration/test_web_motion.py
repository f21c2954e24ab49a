"""The table's motion in a real browser (Chromium, against the real services): a match
against three bots played by clicking, once with the system's reduced motion asked for and
once without.

- Reduced motion (CDP Emulation.setEmulatedMedia, prefers-reduced-motion: reduce): no
  animation runs on the page, ever (a watcher samples document.getAnimations() every
  frame).
- Motion: cards do move (the watcher sees animations), and no move waits for one: on
  every turn of ours to play a card, the time from the WebSocket message of the bot's move
  that preceded it to our legal card being clickable (drawn, enabled, and the element at
  its centre) is measured in the page, with motion and with reduced motion; its p99 is
  under the issue's 100 ms on both pages (a move that waited for an animation would lose
  a whole one, 220 ms or more). Both are printed.
"""

from __future__ import annotations

import random
import statistics
import time
import uuid
from typing import Any

from drand.clock import ScaledClock
from tests.browser import Page, chromium
from tests.integration.table_support import ORIGIN
from tests.integration.test_web_browser import (
    BROWSER_TEST,
    CHROMIUM,
    artifact,
    as_player,
    explained,
    open_table,
    play_match,
    sign_up,
    watchdog,
    web_stack,
)

pytestmark = BROWSER_TEST

#: A match of a few deals: enough turns of ours for a p99.
TARGET = 151
#: The issue's bound for a legal card to be clickable after the bot's move reached the
#: page (p99). A redraw patches the page (web/js/patch.js) and the deck's pictures are
#: parsed when the table opens (ui.js readyDeck): 50-80 ms was the worst seen here beside
#: another browser test, where a whole-page redraw took up to 256 ms. The browser runs in
#: front (chromium(foreground=True): a higher priority than the tests on the other core,
#: as a player's window in front has over what runs behind it); without it, beside the
#: chaos suite's servers, a turn once took 138 ms.
CLICKABLE_P99_MS = 100.0
#: The shortest of motion.js's animations: a move that waited for one would lose this.
ANIMATION_MS = 220.0

#: Runs before the page's own scripts: notes when each bot's move arrives on the
#: WebSocket (before the page handles it), watches every frame for animations, and for
#: each turn of ours notes when a legal card first became clickable.
WATCH = """(() => {
  const w = window.__motion = {frames: 0, animated: 0, most: 0, bots: {}, ready: {}};
  const decoder = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        try {
          const m = JSON.parse(typeof e.data === 'string' ? e.data : decoder.decode(e.data));
          const bot = m.type === 'event' && !m.replay && m.acted_by === 'bot'
            && m.stream.startsWith('match-');
          if (bot && !(m.version in w.bots)) w.bots[m.version] = performance.now();
        } catch (err) { /* not JSON: not ours to time */ }
      });
    }
  };
  const clickable = (el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.disabled) return false;
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!at && (at === el || el.contains(at));
  };
  const frame = () => {
    w.frames += 1;
    const n = document.getAnimations().length;
    if (n) { w.animated += 1; w.most = Math.max(w.most, n); }
    const t = document.querySelector('#table');
    const card = document.querySelector('#hand button.card.legal');
    if (t && t.dataset.turn === 'me' && card && !(t.dataset.version in w.ready)) {
      const below = card.getBoundingClientRect().bottom > innerHeight;
      if (below) card.scrollIntoView({block: 'nearest'});
      if (clickable(card)) w.ready[t.dataset.version] = performance.now();
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();"""


async def a_match(web: Any, page: Page, store: Any, name: str) -> dict[str, Any]:
    # The tab in front, as a player's is: a tab behind others draws no frames (Chromium
    # pauses requestAnimationFrame there), and the page draws on the next frame.
    await page.send("Page.bringToFront")
    await page.add_init_script(WATCH)
    await as_player(page, web, [])
    await sign_up(page, web, f"{name}{uuid.uuid4().hex[:6]}")
    await open_table(page, web, ruleset="club", target=TARGET)
    clicks = await play_match(page, random.Random(7), store)
    watched = await page.evaluate(
        "(({frames, animated, most, bots, ready}) => ({frames, animated, most, bots, ready}))"
        "(window.__motion)"
    )
    return {"clicks": clicks, "waits": waits(watched["bots"], watched["ready"]), **watched}


def waits(bots: dict[str, float], ready: dict[str, float]) -> list[float]:
    """For each turn of ours to play a card that a bot's move brought (at match version
    V, a bot moved since our last turn): from the arrival of that bot's last move (its
    event of the highest version up to V) to our card clickable; 0 when the card was
    clickable before that event even arrived (the seat's view came first)."""
    arrived = sorted((int(v), at) for v, at in bots.items())
    out = []
    last = 0
    for version, at in sorted((int(v), at) for v, at in ready.items()):
        before = [t for v, t in arrived if last < v <= version]
        if before:
            out.append(max(0.0, at - before[-1]))
        last = version
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def test_reduced_motion_moves_nothing_and_motion_never_delays_a_move(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(400),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM, foreground=True) as browser,
    ):
        still = await browser.new_page(context=await browser.new_context())
        await still.send(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
        )
        moving = await browser.new_page(context=await browser.new_context())
        async with explained(still, "motion-reduced"), explained(moving, "motion"):
            quiet = await a_match(web, still, store, "still")
            assert await still.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
            assert quiet["clicks"]["cards"] >= 3 and quiet["frames"] > 100, quiet
            assert quiet["animated"] == 0 and quiet["most"] == 0, quiet

            moved = await a_match(web, moving, store, "moving")
            assert not await moving.evaluate(
                "matchMedia('(prefers-reduced-motion: reduce)').matches"
            )
            shot = await moving.screenshot(artifact("web-motion.png"), full_page=False)
            assert moved["animated"] > 0 and moved["most"] >= 1, moved
            waits, calm = moved["waits"], quiet["waits"]
            assert len(waits) >= 3 and len(calm) >= 3, (moved, quiet)
            # No move waits for an animation (one would add ANIMATION_MS or more), nor for
            # the page: the bound holds with motion and without.
            assert CLICKABLE_P99_MS < ANIMATION_MS
            assert p99(waits) < CLICKABLE_P99_MS, sorted(waits)
            assert p99(calm) < CLICKABLE_P99_MS, sorted(calm)
            assert still.errors == [] and moving.errors == [], (still.errors, moving.errors)
    print(f"\nscreenshot: {shot}")
    print(
        f"motion: a bot's move to our card clickable, {len(waits)} turns: median "
        f"{statistics.median(waits):.1f} ms, p99 {p99(waits):.1f} ms (bound "
        f"{CLICKABLE_P99_MS:.0f} ms); with reduced motion, {len(calm)} turns: median "
        f"{statistics.median(calm):.1f} ms, p99 {p99(calm):.1f} ms; animations seen in "
        f"{moved['animated']} of "
        f"{moved['frames']} frames, none in {quiet['frames']} frames with reduced motion; "
        f"{time.monotonic() - started:.1f} s"
    )
