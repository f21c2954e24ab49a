"""The card table in a real browser (Debian's headless Chromium, tests/browser.py) against
the real services, as tests/integration/test_web_browser.py runs them (its web_stack):
what a player sees and can do at the table, on a phone and on a laptop.

1. One player plays a whole match of every ruleset (club, classic, french, gambler)
   against bots. On every turn the page is drawn at 390x844 (a phone) and at 1366x768 (a
   laptop) and measured: no two of the seats' boxes, the trick's cards, the hand and the
   message overlap, nothing of the table is off the screen, nothing scrolls sideways.
   Every move is a click on what the page offers, at the point where it is drawn (no
   scrolling). At the end the score sheet's rows are the match record's deal scores.
2. A match played with the keyboard alone (seed 004's hot keys): on every turn S, C, A,
   F (and L, ?) are asked and the live region says whose turn it is, the cards on the
   table, the trump and the suit led as the game core has them; the arrows choose a
   card or a bid, Enter plays it; Space announces belote when the rules let it.
3. The replay's score sheet on matches chosen for a bait and hanging points in every
   ruleset (tests/unit/test_web_js.py SHEET_SPECS): its rows are the record's deal
   scores, with БТ where the record has a failed contract and vs(xx) where it has
   hanging points, and the next deal's winner takes them.

Screenshots of the table at both sizes go to the test's tmp directory (their paths are
printed); the pictures in docs/img/ are test_web_layout.py's.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from belot import RULESETS, replay, view
from belot.cards import to_code
from belot.codec import from_payload
from belot.events import EVENT_TYPES, MatchStarted
from drand.clock import ScaledClock
from fairdeal.record import match_stream
from tests.browser import Page, chromium, chromium_path
from tests.integration.table_support import ORIGIN
from tests.integration.test_web_browser import (
    Web,
    as_player,
    explained,
    sign_up,
    watchdog,
    web_stack,
)
from tests.unit.test_web_js import SHEET_SPECS
from tools.matchgen import generate, stored_record, write

CHROMIUM = chromium_path()
MATCH_TIMEOUT = 120.0
#: (width, height, mobile): a phone and a laptop.
PHONE = (390, 844, True)
LAPTOP = (1366, 768, False)
#: A short match: the first deal scored ends it (unless level or redealt).
TARGET = 1

pytestmark = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium) "
        "or set BELOT_CHROMIUM to run the browser tests",
    ),
]

#: The table measured: every box that must not lie on another (seats, the trick's
#: cards, the hand, the message shown), and everything that must be on the screen.
LAYOUT = """(() => {
  window.scrollTo(0, 0);
  // The layout at rest: a card sliding into the trick (motion.js) is measured where it
  // lands (the bots play on while the page is measured: a slide may start at any time).
  document.getAnimations().forEach(a => a.finish());
  const W = document.documentElement.clientWidth, H = window.innerHeight;
  const rect = (el) => {
    const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height};
  };
  const boxes = [];
  const add = (name, el) => { const r = rect(el); if (r.w && r.h) boxes.push({name, ...r}); };
  document.querySelectorAll('#felt .seat-box').forEach(el => add('seat ' + el.dataset.seat, el));
  document.querySelectorAll('#trick .played .card')
    .forEach(el => add('trick ' + el.dataset.card, el));
  const hand = document.querySelector('#hand');
  if (hand && hand.children.length) add('hand', hand);
  const msg = document.querySelector('#message');
  if (msg && !msg.hidden && msg.textContent) add('message', msg);
  const caption = document.querySelector('#trick-caption');
  if (caption && caption.textContent.trim()) add('caption', caption);
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const w = Math.min(a.r, b.r) - Math.max(a.x, b.x);
    const h = Math.min(a.b, b.b) - Math.max(a.y, b.y);
    if (w > 0.5 && h > 0.5) overlaps.push(`${a.name} / ${b.name}`);
  }
  const shown = [...boxes];
  const parts = ['header.top', '.score-bar', '#felt', '#status', '#bids', '#message-slot',
                 '#last-trick'];
  for (const sel of parts)
    document.querySelectorAll(sel).forEach(el => shown.push({name: sel, ...rect(el)}));
  document.querySelectorAll('#hand .card, #bids button, #bids label').forEach(el =>
    shown.push({name: 'control ' + (el.dataset.card || el.id || el.textContent), ...rect(el)}));
  const off = shown
    .filter(b => b.w && b.h && (b.x < -0.5 || b.y < -0.5 || b.r > W + 0.5 || b.b > H + 0.5))
    .map(b => `${b.name} at ${[b.x, b.y, b.r, b.b].map(Math.round).join(',')}`);
  const wide = document.documentElement.scrollWidth > W + 0.5;
  // Every seat box's lines fit it (a caption printed on another would overflow it).
  const spill = [...document.querySelectorAll('#felt .seat-box')]
    .filter(el => el.scrollHeight > el.clientHeight + 1).map(el => 'seat ' + el.dataset.seat);
  // The score sheet is whole: every column of its table in view, none behind a sideways
  // scrollbar (the table no wider than the sheet's box).
  const sheet = document.querySelector('#sheet');
  const table = sheet?.querySelector('table.sheet-table');
  const sheetCut = !!table && table.getBoundingClientRect().right
    > sheet.getBoundingClientRect().right - sheet.clientLeft + 1
    && `the table ends at ${Math.round(table.getBoundingClientRect().right)}, the sheet at `
      + `${Math.round(sheet.getBoundingClientRect().right)}`;
  return {overlaps, off, wide, spill, sheetCut, size: [window.innerWidth, H], boxes: boxes.length,
          trick: document.querySelectorAll('#trick .played').length};
})()"""

PROBE = """(() => {
  const t = document.querySelector('#table');
  if (!t) return null;
  const m = document.querySelector('#message');
  return {
    turn: t.dataset.turn, version: t.dataset.version, phase: t.dataset.phase,
    status: t.dataset.status, held: t.dataset.held, match: t.dataset.match || null,
    cards: [...document.querySelectorAll('#hand button.card.legal')].map(b => b.dataset.card),
    bids: [...document.querySelectorAll('#bids button.bid')].map(b => b.dataset.strain),
    extras: ['declare-melds', 'swap'].filter(id => document.getElementById(id)),
    belote: !!document.querySelector('#belote'),
    message: !m.hidden && m.classList.contains('error') ? m.textContent : '',
  };
})()"""

#: What this tab kept of the match at the table it shows (store.js).
KEPT_HERE = (
    "Object.keys(localStorage).filter(k => k.startsWith('belot.kept.'))"
    ".map(k => JSON.parse(localStorage.getItem(k)))"
    ".find(k => k.table_id === decodeURIComponent(location.hash.slice(8)))"
)

#: The score sheet as drawn: each row's data and its "deal" cells by side.
SHEET = """[...document.querySelectorAll('#sheet-table tbody tr')].map(tr => {
  const cell = (td, s) => tr.querySelector(`td.${td} [data-side="${s}"]`);
  return {
    deal: Number(tr.dataset.deal), outcome: tr.dataset.outcome,
    awarded: tr.dataset.awarded ? tr.dataset.awarded.split(',').map(Number) : null,
    scores: tr.dataset.scores.split(',').map(Number), hanging: Number(tr.dataset.hanging),
    consistent: tr.dataset.consistent,
    deal_cells: [0, 1].map(s => cell('deal-pts', s)?.firstChild.textContent ?? null),
    deal_tags: [0, 1].map(s => [...(cell('deal-pts', s)?.querySelectorAll('small') ?? [])]
      .map(x => x.textContent).join(' ')),
    total_cells: [0, 1].map(s => cell('total', s)?.textContent ?? null),
  };
})"""


async def measure(page: Page, where: str) -> dict[str, Any]:
    """At each size: lay the table out and check it; returns the last measurement."""
    got: dict[str, Any] = {}
    for width, height, mobile in (PHONE, LAPTOP):
        await page.set_viewport(width, height, mobile)
        # Two frames: the new size laid out, and anything drawn for it.
        await page.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        got = await page.evaluate(LAYOUT)
        label = f"{where} at {width}x{height}"
        assert got["size"] == [width, height], (label, got["size"])
        assert got["overlaps"] == [], (label, got)
        assert not got["sheetCut"], (label, "the score sheet scrolls sideways", got["sheetCut"])
        assert got["off"] == [], (label, got)
        assert not got["wide"], (label, "the page scrolls sideways")
        assert got["spill"] == [], (label, got)
    return got


async def click_in_place(page: Page, selector: str) -> None:
    """A real click at the centre of what ``selector`` finds, where it is drawn: the
    page is not scrolled first (it must be on the screen already)."""
    point = await page.wait_for(
        f"""(() => {{
          const el = document.querySelector({json.dumps(selector)});
          if (!el) return null;
          const r = el.getBoundingClientRect();
          const x = r.x + r.width / 2, y = r.y + r.height / 2;
          return x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight ? [x, y] : null;
        }})()""",
        timeout=2,
    )
    x, y = point
    for kind in ("mousePressed", "mouseReleased"):
        await page.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
        )


async def taken(page: Page, version: str) -> None:
    """The move just made was taken (the page moved on) and no error was shown."""
    said = await page.wait_for(
        f"""(() => {{
          const t = document.querySelector('#table');
          const m = document.querySelector('#message');
          if (!m.hidden && m.classList.contains('error')) return {{error: m.textContent}};
          if (t && (t.dataset.turn !== 'me' || t.dataset.version !== {json.dumps(version)}))
            return {{error: ''}};
          return null;
        }})()""",
        timeout=5,
    )
    assert said["error"] == "", f"the page refused what it offered: {said['error']}"


async def new_table(page: Page, web: Web, ruleset: str, target: int = TARGET) -> str:
    """From the lobby: me at seat 0, bots at the others (fast), a short match."""
    await page.set_viewport(*LAPTOP)
    await page.goto(web.url)
    await page.wait_for("document.querySelector('#create-table')")
    await page.select("#ruleset", ruleset)
    seats = await page.evaluate("document.querySelectorAll('#seat-choices select').length")
    for seat in range(1, seats):
        await page.select(f"#seat-{seat}", "bot:easy" if seat % 2 else "bot:medium")
    await page.type("#target", str(target))
    await page.type("#bot-delay", "20")
    await page.type("#turn-seconds", "60")
    await page.click("#create-table")
    table_id: str = await page.wait_for(
        "location.hash.startsWith('#/table/') && document.querySelector('#table[data-status]')"
        " && decodeURIComponent(location.hash.slice(8))"
    )
    return table_id


async def core_view(web: Web, match_id: str, version: str, seat: int = 0) -> Any:
    """The game core's view of our seat at the page's match version (None when the log
    is ahead of the page)."""
    events = await web.store.read_stream(match_stream(match_id))
    if not events or str(events[-1].version) != version:
        return None
    core = [from_payload(e.payload) for e in events if e.type in EVENT_TYPES]
    assert isinstance(core[0], MatchStarted), core[0]
    return view(replay(RULESETS[core[0].ruleset], core), seat)


async def assert_sheet_is_the_record(page: Page, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The sheet's rows are the record's deal scores: outcome, points, totals, hanging;
    БТ in the takers' cell of a failed contract, vs(xx) in a level deal's (as the page's
    language writes them: БТ and vs(xx) are seed 002's, the English and Russian sheet's)."""
    rows = await page.wait_for(f"(rows => rows.length ? rows : null)({SHEET})", timeout=10)
    bait, hanging = await page.evaluate(
        "import('/js/i18n.js').then(m => [m.t('sheet.bait'), m.t('sheet.hanging', {points: '@'})])"
    )
    deals = [d for d in record["deals"] if d["score"] or d["abandoned"]]
    assert [r["deal"] for r in rows] == [d["deal"] for d in deals], (rows, deals)
    for row, d in zip(rows, deals, strict=True):
        if d["abandoned"]:
            assert row["outcome"] == "abandoned", row
            continue
        score = d["score"]
        assert row["outcome"] == score["outcome"], (row, score)
        assert row["awarded"] == score["awarded"], (row, score)
        assert row["scores"] == score["scores"], (row, score)
        assert row["hanging"] == score["hanging"], (row, score)
        assert [int(x) for x in row["total_cells"]] == score["scores"], row
        assert row["consistent"] == "true", row
        contract = d["contract"]
        taker = None if contract is None or contract["strain"] == "misere" else contract["taker"]
        side = None if taker is None else taker % 2
        if score["outcome"] == "failed":
            assert side is not None and row["deal_cells"][side].startswith(bait), row
        else:
            assert not any(bait in c for c in row["deal_cells"]), row
        if score["outcome"] == "level" and score["hanging"]:
            assert side is not None and row["deal_cells"][side].endswith(
                hanging.replace("@", str(score["hanging"]))
            ), row
        if score["outcome"] in ("made", "misere"):
            winner = score["winner"]
            assert row["deal_cells"][winner] == str(score["awarded"][winner]), row
    return list(rows)


async def play_by_clicks(
    page: Page,
    web: Any,
    rng: random.Random,
    shots: dict[str, Path] | None = None,
    each_turn: Callable[[Page, dict[str, Any]], Awaitable[None]] | None = None,
) -> dict[str, int]:
    """Click through a match, measuring the table at both sizes on every turn (and then
    running ``each_turn(page, state)``, the caller's own checks)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + MATCH_TIMEOUT
    done: set[str] = set()
    seen = {"turns": 0, "bids": 0, "cards": 0, "tricks_shown": 0, "held": 0}
    while True:
        state = await page.evaluate(PROBE)
        if state and state["phase"] == "over":
            await measure(page, "the end")
            return seen
        assert loop.time() < deadline, f"the match did not finish in {MATCH_TIMEOUT} s: {state}"
        if not state or state["turn"] != "me" or state["version"] in done:
            if state and state["held"]:
                seen["held"] += 1
            await asyncio.sleep(0.05)
            continue
        assert state["message"] == "", state
        got = await measure(page, f"turn {seen['turns']} ({state['phase']})")
        if each_turn is not None:
            await each_turn(page, state)
        seen["turns"] += 1
        seen["tricks_shown"] += got["trick"] > 0
        # The screenshots: a trick being played, once the sheet has a row if it can.
        sheet = await page.evaluate("document.querySelectorAll('#sheet-table tbody tr').length")
        if (
            shots is not None
            and got["trick"] >= 2
            and ("phone" not in shots or (sheet and not shots.get("sheet")))
        ):
            shots["sheet"] = sheet
            for name, size in (("phone", PHONE), ("laptop", LAPTOP)):
                await page.set_viewport(*size)
                await page.evaluate(
                    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
                shots[name] = await page.screenshot(
                    shots["dir"] / f"table-{name}.png", full_page=False
                )
        # Alternate the size the click is made at.
        size = PHONE if seen["turns"] % 2 else LAPTOP
        await page.set_viewport(*size)
        await page.evaluate(
            "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        if state["bids"]:
            takes = [b for b in state["bids"] if b != "pass"]
            choice = rng.choice(takes) if takes and rng.random() < 0.4 else "pass"
            target = f'#bids button.bid[data-strain="{choice}"]'
            seen["bids"] += 1
        elif state["extras"]:
            target = f"#{state['extras'][0]}"
        elif state["cards"]:
            target = f'#hand button.card.legal[data-card="{rng.choice(state["cards"])}"]'
            seen["cards"] += 1
        else:
            await asyncio.sleep(0.05)
            continue
        try:
            await click_in_place(page, target)
            await taken(page, state["version"])
        except TimeoutError:
            continue  # the page changed under the click: look again
        done.add(state["version"])


async def test_every_ruleset_plays_on_a_phone_and_a_laptop_with_nothing_overlapping(
    servers, store, pg_pool, nc, js_names, tmp_path
) -> None:
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    timings = {}
    shots: dict[str, Any] = {"dir": tmp_path}
    async with (
        watchdog(400),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await as_player(page, web, [])
        async with explained(page, "table-layout"):
            await sign_up(page, web, f"lay{uuid.uuid4().hex[:6]}")
            for i, ruleset in enumerate(("club", "classic", "french", "gambler")):
                t0 = time.monotonic()
                await new_table(page, web, ruleset)
                seen = await play_by_clicks(page, web, random.Random(i), shots)
                assert seen["turns"] >= 3 and seen["cards"] >= 1, (ruleset, seen)
                kept = await page.evaluate(KEPT_HERE)
                record = await stored_record(store, kept["match_id"])
                rows = await assert_sheet_is_the_record(page, record)
                # The seats are named as the log names them.
                names = await page.evaluate(
                    "[...document.querySelectorAll('#felt .seat-box .who')].map(x => x.textContent)"
                )
                assert names[0].startswith("You (lay"), names
                assert names[1] == "Bot 2 (easy)", names  # seats numbered 1 to 4
                timings[ruleset] = (round(time.monotonic() - t0, 1), len(rows), seen)
            assert page.errors == [], page.errors
    assert "phone" in shots and "laptop" in shots, shots
    print(f"\nscreenshots: {shots['phone']} {shots['laptop']}")
    print(f"browser table layouts: {time.monotonic() - started:.1f} s; {timings}")


SPEECH = "document.querySelector('#speech').textContent"
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = {"7": "7", "8": "8", "9": "9", "T": "10", "J": "jack", "Q": "queen", "K": "king",
         "A": "ace"}  # fmt: skip


def said_card(code: str) -> str:
    """A card as the live region says it: "the jack of hearts", "the 10 of spades"."""
    return f"the {RANKS[code[0]]} of {SUITS[code[1]]}"


#: A Russian layout: what it types at the places of the hot keys C, A, F, S and L.
RUSSIAN = {"c": ("с", "KeyC"), "a": ("ф", "KeyA"), "f": ("а", "KeyF"), "s": ("ы", "KeyS"),
           "l": ("д", "KeyL")}  # fmt: skip


async def ask(page: Page, key: str, layout: str = "us") -> str:
    """Press a hot key (on a Russian ``layout``: the key at its place, which types a
    Cyrillic letter); what the live region says then."""
    await page.evaluate("document.querySelector('#speech').textContent = ''")
    if layout == "ru" and key in RUSSIAN:
        await page.press(*RUSSIAN[key])
    else:
        await page.press(key)
    said: str = await page.wait_for(SPEECH, timeout=3)
    return said


def trump_words(strain: Any) -> str:
    name = strain.name.lower()
    if name in SUITS.values():
        return f"Trump: {name}."
    return {"all_trumps": "All trumps: every suit is trump.", "no_trumps": "No trumps.",
            "misere": "Misère: no trump, take as few points as you can."}[name]  # fmt: skip


async def play_by_keys(page: Page, web: Web, rng: random.Random) -> dict[str, int]:
    """The whole match with the keyboard: on each turn the hot keys are asked and their
    answers checked against the game core's view; then the arrows choose and Enter plays."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + MATCH_TIMEOUT
    done: set[str] = set()
    seen = {"turns": 0, "asked": 0, "bids": 0, "cards": 0, "belote": 0, "no_belote": 0,
            "led": 0, "last": 0, "belote_played": 0, "russian": 0}  # fmt: skip
    while True:
        state = await page.evaluate(PROBE)
        if state and state["phase"] == "over":
            assert await ask(page, "s") == "The match is over."
            return seen
        assert loop.time() < deadline, f"the match did not finish in {MATCH_TIMEOUT} s: {state}"
        if not state or state["turn"] != "me" or state["version"] in done or not state["match"]:
            await asyncio.sleep(0.05)
            continue
        v = await core_view(web, state["match"], state["version"])
        if v is None:
            await asyncio.sleep(0.05)
            continue
        seen["turns"] += 1
        bidding = v.phase == "bidding"
        # Every other turn on a Russian layout: the keys are places, not letters.
        layout = "ru" if seen["turns"] % 2 else "us"
        seen["russian"] += layout == "ru"
        # S: whose turn.
        assert await ask(page, "s", layout) == f"Your turn to {'bid' if bidding else 'play'}."
        # C: the cards on the table, in play order, each seat named.
        on_table = await ask(page, "c", layout)
        if v.trick:
            assert on_table.startswith("On the table: "), on_table
            at = 0
            for _, card in v.trick:
                at = on_table.index(said_card(to_code(card)), at)
        else:
            assert on_table.startswith("No card on the table."), on_table
            if v.tricks:
                assert "The last trick: " in on_table, on_table
        # A: the trump (or the turned card while bidding).
        trump = await ask(page, "a", layout)
        if v.strain is None:
            assert v.turned is not None
            assert trump == f"No contract yet: the turned card is {said_card(to_code(v.turned))}."
        else:
            assert trump == trump_words(v.strain), (trump, v.strain)
        # F: the suit led.
        led = await ask(page, "f", layout)
        if v.trick:
            assert led == f"{SUITS[to_code(v.trick[0][1])[1]].capitalize()} led.", led
            seen["led"] += 1
        else:
            assert led == "No card is led yet.", led
        # L: the last trick (every player may look at it), shown until the next card.
        if v.tricks and not seen["last"]:
            last = await ask(page, "l", layout)
            assert last.startswith("The last trick: ") and "took it" in last, last
            want_last = json.dumps([to_code(c) for c in v.tricks[-1].cards], separators=(",", ":"))
            await page.wait_for(
                "JSON.stringify([...document.querySelectorAll('#trick .played [data-card]')]"
                f".map(c => c.dataset.card)) === {json.dumps(want_last)}",
                timeout=3,
            )
            await page.press("l")  # and back
            seen["last"] += 1
        seen["asked"] += 1
        if seen["asked"] == 1:
            keys = await ask(page, "?")
            assert keys.startswith("Keys: ") and "C: the cards on the table" in keys, keys
        legal = [m for m in v.legal]
        if bidding:
            bids = {(getattr(m, "strain", None)) for m in legal}
            takes = [s for s in bids if s is not None]
            want = rng.choice(takes).name.lower() if takes and rng.random() < 0.4 else None
            label = "pass" if want is None else f"take {want.replace('_', ' ')}"
            said = await ask(page, "ArrowUp")
            for _ in range(len(bids) + 1):
                if said == label:
                    break
                said = await ask(page, "ArrowRight")
            assert said == label, (said, label, bids)
            seen["bids"] += 1
        else:
            cards = [to_code(m.card) for m in legal if type(m).__name__ == "PlayCard"]
            if not cards:  # declare melds or the swap: Enter on the first action
                said = await ask(page, "ArrowUp")
            else:
                belote = [to_code(m.card) for m in legal if getattr(m, "belote", False)]
                space = await ask(page, " ")
                if belote:
                    assert space.startswith("Belote and rebelote: announced as you play "), space
                    seen["belote"] += 1
                else:
                    assert space.startswith("No belote to announce now"), space
                    seen["no_belote"] += 1
                want = rng.choice(cards)
                seen["belote_played"] += want in belote
                said = await ask(page, "ArrowDown")
                for _ in range(len(v.hand) + 1):
                    if said.startswith(said_card(want)):
                        break
                    said = await ask(page, "ArrowRight")
                assert said == f"{said_card(want)}, playable", said
                seen["cards"] += 1
        version = state["version"]
        await page.press("Enter")
        await taken(page, version)
        done.add(version)


#: Counts the page's GET /v1/tables/{id} by table (window.__tableGets), before any script.
COUNT_TABLE_GETS = r"""
(() => {
  const real = window.fetch;
  window.__tableGets = {};
  window.fetch = function (input, init) {
    const url = typeof input === "string" ? input : input.url;
    const m = /\/v1\/tables\/([^/?]+)(\?.*)?$/.exec(url);
    if (m && (!init || !init.method || init.method === "GET")) {
      const id = decodeURIComponent(m[1]);
      window.__tableGets[id] = (window.__tableGets[id] || 0) + 1;
    }
    return real.apply(this, arguments);
  };
})();
"""


async def test_a_match_played_with_the_keyboard_alone_is_told_in_the_live_region(
    servers, store, pg_pool, nc, js_names
) -> None:
    """Seed 004's hot keys: the whole match is played with the keyboard (arrows and
    Enter), and on every turn S, C, A and F are answered in the live region as the game
    core has it; Space announces belote when the rules let it (and says when they do
    not), L shows and reads the last trick, ? lists the keys."""
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await page.add_init_script(COUNT_TABLE_GETS)
        await as_player(page, web, [])
        seen: dict[str, int] = {}
        announced = 0
        gets: list[int] = []
        async with explained(page, "table-keyboard"):
            await sign_up(page, web, f"key{uuid.uuid4().hex[:6]}")
            # Classic (four seats: C names three others), then gambler tables (two:
            # this seat bids in most deals) until a bid was made with the keys too.
            for n, ruleset in enumerate(("classic", "gambler", "gambler", "gambler")):
                table_id = await new_table(page, web, ruleset, target=80 if n == 0 else TARGET)
                await page.set_viewport(*PHONE)
                got = await play_by_keys(page, web, random.Random(n))
                gets.append(await page.evaluate(f"window.__tableGets[{json.dumps(table_id)}] ?? 0"))
                seen = {k: seen.get(k, 0) + got[k] for k in got}
                kept = await page.evaluate(KEPT_HERE)
                record = await stored_record(store, kept["match_id"])
                await assert_sheet_is_the_record(page, record)
                announced += sum(
                    p["belote"] for d in record["deals"] for p in d["plays"] if p["seat"] == 0
                )
                if seen["bids"]:
                    break
            # Tab reaches the table's controls, and the focus is drawn.
            await page.evaluate("document.activeElement?.blur()")
            reached = []
            for _ in range(6):
                await page.press("Tab")
                reached.append(await page.evaluate(
                    """(el => el === document.body ? ['(the page)', 'n/a']
                      : [el.id || el.textContent.trim(), getComputedStyle(el).outlineStyle])
                      (document.activeElement)"""
                ))  # fmt: skip
            assert page.errors == [], page.errors
    assert seen["turns"] >= 8 and seen["cards"] >= 8 and seen["led"] >= 1, seen
    # The page renders what it is pushed: it asks for the table over HTTP when it opens
    # (and once more were its socket to come back), not after each event or move.
    assert all(1 <= n <= 2 for n in gets), gets
    assert seen["last"] >= 1 and seen["no_belote"] >= 1, seen
    # Half the turns asked with the keys of a Russian layout, which type Cyrillic letters.
    assert seen["russian"] >= 4, seen
    # A card played after Space announced belote carries it, in the record.
    assert seen["bids"] >= 1, seen
    assert announced == seen["belote_played"], (seen, announced)
    assert all(style != "none" for _, style in reached), reached  # the focus is drawn
    assert {"leave", "keys-help"} & {name for name, _ in reached}, reached
    print(f"\nbrowser match by keyboard: {time.monotonic() - started:.1f} s, {seen}")


async def test_the_replay_shows_the_score_sheet_with_baits_and_hanging_points(
    servers, store, pg_pool, nc, js_names, tmp_path
) -> None:
    """Matches of every ruleset chosen for a failed contract and a level deal before the
    last (tests/unit/test_web_js.py SHEET_SPECS), written to the log as the services
    would: the replay's score sheet has the record's rows, БТ where it has a bait, vs(xx)
    where points hang, and the next deal's winner marked as taking them."""
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        for spec in SHEET_SPECS:
            await write(store, generate(spec))
        page = await browser.new_page()
        resolved = 0
        async with explained(page, "replay-sheet"):
            for spec in SHEET_SPECS:
                record = await stored_record(store, spec.match_id)
                await page.goto(f"{web.url}#/replay/{spec.match_id}")
                await page.wait_for("document.querySelector('#sheet')", timeout=30)
                rows = await assert_sheet_is_the_record(page, record)
                outcomes = [r["outcome"] for r in rows]
                assert "failed" in outcomes and "level" in outcomes, (spec.label, outcomes)
                # The hanging points of a level deal go to the next deal's winner.
                level = outcomes.index("level")
                nxt = next(d for d in record["deals"][level + 1 :] if d["score"])
                winner = nxt["score"]["winner"]
                if winner is not None:
                    tags = next(r for r in rows if r["deal"] == nxt["deal"])["deal_tags"]
                    hang = record["deals"][level]["score"]["hanging"]
                    assert f"+vs {hang}" in tags[winner], (spec.label, tags)
                    resolved += 1
            await page.set_viewport(*PHONE)
            shot = await page.screenshot(tmp_path / "replay-sheet.png")
            assert page.errors == [], page.errors
    assert resolved >= 2, resolved
    print(f"\nscreenshot: {shot}")
    print(f"browser replay score sheets: {time.monotonic() - started:.1f} s")
