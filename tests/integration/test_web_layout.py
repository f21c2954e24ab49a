"""Every page of the web client on every screen, measured, and checked by axe-core.

One platform for the module (the services of tests/integration/test_web_pages.py's
``pages_stack``) and one Chromium; three people: a player at a club table with three
bots (a match in progress, the player due to bid or play), a spectator at the same table,
and a visitor who has not logged in. Two more accounts play a rated gambler match over
the API, so that the finished matches, its replay, the leaderboard and a player's page
have something to show, and the player creates and starts a tournament.

Each page is drawn at five sizes, by resizing the one tab (a phone at 360x740 and
390x844, a tablet at 768x1024, phones and tablets with the page's meta viewport and two
device pixels a CSS pixel; a laptop at 1366x768 and a desktop at 1920x1080), and
measured:

- nothing scrolls sideways: ``document.scrollingElement.scrollWidth`` is at most the
  screen's width;
- no two named regions overlap: the visible elements marked ``data-region`` with no
  marked ancestor ("header", "message", "felt", "sheet", "chat", ...) have bounding boxes
  that intersect by at most 1 px, and the page under the header marks at least one;
- the header is not cut: every link, button and menu in it is drawn whole on the screen
  and inside every box of the header that clips;
- the felt's share: the visible area of ``[data-region="felt"]`` within the screen, the
  page scrolled to its top, over the screen's area; printed at every size, at least 0.55
  on the table page at 1366x768 and 390x844.

Then axe-core (tests/axe.py) at the phone's 390x844 and the laptop's 1366x768: no serious
or critical violation. Screenshots: tests/artifacts/page-<name>-<size>.png (what the
screen shows; size: phone-360, phone, tablet, laptop, desktop), at the phone's and the
laptop's sizes page-<name>-<phone|laptop>-full.png (the whole page) and
page-<name>-phone-menu.png (the header's links unfolded); page-<name>-<phone|laptop>.png
copied to docs/img/ when BELOT_DOCS_SHOTS=1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest
import pytest_asyncio

from eventlog import EventStore
from fairdeal import logentries
from tests import axe
from tests.browser import Browser, Page, chromium
from tests.integration import roles
from tests.integration.conftest import StreamNames
from tests.integration.gateway_support import Player
from tests.integration.test_web_browser import (
    ARTIFACTS,
    BROWSER_TEST,
    CHROMIUM,
    explained,
    follow_clock,
    sign_up,
    to_docs,
)
from tests.integration.test_web_pages import Stack, pages_stack, wait_api

pytestmark = BROWSER_TEST


class Size(NamedTuple):
    name: str
    width: int
    height: int
    mobile: bool  # a phone's or a tablet's screen: the meta viewport, 2 device pixels a px


SIZES = (
    Size("phone-360", 360, 740, True),
    Size("phone", 390, 844, True),
    Size("tablet", 768, 1024, True),
    Size("laptop", 1366, 768, False),
    Size("desktop", 1920, 1080, False),
)
BY_NAME = {s.name: s for s in SIZES}
#: The sizes whose screenshots are kept, and where axe-core runs.
SHOT_SIZES = ("phone", "laptop")
#: The felt's least share of the screen on the table page, at these sizes.
FELT_SHARE = 0.55
FELT_SIZES = ("phone", "laptop")
#: Boxes that meet along an edge may share a pixel of it (sub-pixel rounding).
TOLERANCE_PX = 1

#: What the page measures of itself: its regions and their overlaps, its width, the
#: header's controls that are cut, the felt's share of the screen.
MEASURE = """((tol) => {
  scrollTo(0, 0);
  const W = innerWidth, H = innerHeight;
  const shown = (el) => {
    if (el.closest('[hidden]')) return false;
    const s = getComputedStyle(el), r = el.getBoundingClientRect();
    return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0;
  };
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {name: el.dataset.region, x: Math.round(r.left + scrollX),
            y: Math.round(r.top + scrollY), w: Math.round(r.width), h: Math.round(r.height)};
  };
  const top = [...document.querySelectorAll('[data-region]')]
    .filter((el) => !el.parentElement.closest('[data-region]') && shown(el));
  const regions = top.map(box);
  const overlaps = [];
  top.forEach((a, i) => top.slice(i + 1).forEach((b) => {
    const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
    const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (dx > tol && dy > tol) overlaps.push([box(a), box(b)]);
  }));
  const main = document.querySelector('main');
  const inMain = top.filter((el) => main.contains(el)).length;
  // The header's controls: each drawn whole on the screen and inside every box of the
  // header that clips what overflows it.
  const header = document.querySelector('header');
  const cut = [];
  for (const el of header.querySelectorAll('a, button, select, .who')) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const label = (el.id ? '#' + el.id : el.tagName.toLowerCase())
      + ' "' + el.textContent.trim().slice(0, 20) + '"';
    if (r.left < -tol || r.right > W + tol || r.top < -tol) cut.push(label + ' off the screen');
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const c = p.getBoundingClientRect();
      if (r.left < c.left - tol || r.right > c.right + tol
          || r.top < c.top - tol || r.bottom > c.bottom + tol)
        cut.push(label + ' clipped by ' + p.tagName.toLowerCase());
    }
  }
  const felt = document.querySelector('[data-region="felt"]');
  let share = null;
  if (felt && shown(felt)) {
    const r = felt.getBoundingClientRect();
    const w = Math.max(0, Math.min(r.right, W) - Math.max(r.left, 0));
    const h = Math.max(0, Math.min(r.bottom, H) - Math.max(r.top, 0));
    share = (w * h) / (W * H);
  }
  const links = [...document.querySelectorAll('#nav a')].filter(shown).length;
  // What is wider than the screen: the innermost elements past its right edge (to say
  // which, when the page scrolls sideways).
  // (an element past it, or one whose own content spills past its box: a long word)
  const spills = (el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
    && getComputedStyle(el).overflowX === 'visible';
  const past = (el) => el.getBoundingClientRect().right > Math.min(W, screen.width) + tol
    || spills(el);
  const wide = [...document.querySelectorAll('body *')]
    .filter((el) => past(el) && ![...el.children].some(past))
    .slice(0, 6)
    .map((el) => (el.id ? '#' + el.id : [el.tagName.toLowerCase(), ...el.classList].join('.'))
      + ' to ' + Math.round(el.getBoundingClientRect().right));
  return {regions, overlaps, inMain, cut, share, links, width: W, wide,
          scrollWidth: document.scrollingElement.scrollWidth};
})"""

FRAME = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


@dataclass(frozen=True)
class Visit:
    """A page: whose tab shows it, its route, and what says it has drawn its content."""

    tab: str
    route: str
    ready: str


@dataclass
class Site:
    web: Stack
    tabs: dict[str, Page]
    pages: dict[str, Visit] = field(default_factory=dict)


PAGES = (
    "login", "lobby", "table-player", "table-spectator", "matches", "replay",
    "tournaments", "tournament", "leaderboards", "player", "my-matches", "not-found",
)  # fmt: skip
TABLE_PAGES = ("table-player", "table-spectator")


async def call(page: Page, method: str, path: str, body: Any = None) -> Any:
    """The gateway's answer to the page's own session (its token)."""
    return await page.evaluate(
        f"""(async () => {{
          const s = JSON.parse(localStorage.getItem('belot.session'));
          const r = await fetch({json.dumps(path)}, {{method: {json.dumps(method)},
            headers: {{Authorization: 'Bearer ' + s.token, 'Content-Type': 'application/json'}},
            body: {json.dumps(None if body is None else json.dumps(body))}}});
          return {{status: r.status, body: await r.json()}};
        }})()"""
    )


async def posted(page: Page, path: str, body: Any) -> Any:
    got = await call(page, "POST", path, body)
    assert got["status"] in (200, 201), (path, got)
    return got["body"]


async def rated_match(web: Stack) -> tuple[str, str]:
    """Two accounts play a rated gambler match to 1 over the API: (match id, winner)."""
    gil, hal = (Player(web.http, f"{n}{uuid.uuid4().hex[:6]}") for n in ("gil", "hal"))
    for p in (gil, hal):
        await p.register()
    status, created = await gil.call("POST", "/v1/tables", {
        "ruleset": "gambler", "seats": ["human", "human"], "target": 1, "sit": 0,
        "rated": True})  # fmt: skip
    assert status == 201, created
    status, body = await hal.call("POST", f"/v1/tables/{created['table_id']}/seats/1")
    assert status == 200, body
    await asyncio.gather(gil.play(created["table_id"]), hal.play(created["table_id"]))
    return created["match_id"], gil.player


@contextlib.asynccontextmanager
async def module_log(servers: Any, pg_pool: Any, nc: Any) -> AsyncIterator[tuple[Any, Any]]:
    """The module's own event log and stream (the conftest's are a test's)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    token = uuid.uuid4().hex[:12]
    names = StreamNames(f"T_{token}", f"t{token}.events")
    try:
        yield store, names
    finally:
        await store.close()
        with contextlib.suppress(Exception):
            await nc.jetstream().delete_stream(names.stream)
        await roles.drop_schemas(pg_pool, schema)


async def person(browser: Browser, web: Stack, name: str | None) -> Page:
    """A tab of its own (its own storage), signed up as ``name`` (None: a visitor)."""
    page = await browser.new_page(context=await browser.new_context())
    # On the services' clock: the player's tab checks the match live against it.
    await follow_clock(page, web.clock)
    if name is not None:
        await sign_up(page, web, name)
    return page


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def site(servers: Any, pg_pool: Any, nc: Any, db_roles: Any) -> AsyncIterator[Site]:
    assert CHROMIUM is not None
    async with (
        module_log(servers, pg_pool, nc) as (store, names),
        pages_stack(servers, store, pg_pool, nc, names) as web,
        chromium(CHROMIUM) as browser,
    ):
        played = asyncio.create_task(rated_match(web))
        me = f"ann{uuid.uuid4().hex[:6]}"
        tabs = {
            "player": await person(browser, web, me),
            "spectator": await person(browser, web, f"bob{uuid.uuid4().hex[:6]}"),
            "visitor": await person(browser, web, None),
        }
        player = tabs["player"]
        table = await posted(player, "/v1/tables", {
            "ruleset": "club", "seats": ["human", "bot:easy", "bot:medium", "bot:medium"],
            "sit": 0, "target": 151, "turn_seconds": 600, "bot_delay_ms": 20})  # fmt: skip
        # The player's tab at the table from the start, as a player's is: its seed goes in
        # while the window is open (a tab opened after it closed is told its seed came
        # too late, which is no page to show).
        tables = f"#/table/{table['table_id']}"
        await player.goto(f"{web.url}{tables}")
        await player.wait_for(
            "Object.keys(localStorage).some(k => k.startsWith('belot.kept.')"
            " && JSON.parse(localStorage.getItem(k)).receipt)",
            timeout=60,
        )
        tour = await posted(player, "/v1/tournaments", {
            "name": "Friday cup", "format": "round_robin", "ruleset": "gambler",
            "target": 1})  # fmt: skip
        tid = tour["tournament_id"]
        await posted(player, f"/v1/tournaments/{tid}/entrants", {})
        await posted(player, f"/v1/tournaments/{tid}/entrants", {"bot": "easy"})
        await posted(player, f"/v1/tournaments/{tid}/start", {})
        match_id, winner = await played
        await wait_api(player, "/v1/leaderboards/gambler?all=1", lambda b: len(b["rows"]) == 2)
        await wait_api(player, f"/v1/players/{winner}",
                       lambda b: b["pools"]["gambler"]["games"] == 1)  # fmt: skip
        site = Site(web, tabs)
        site.pages = {
            "login": Visit("visitor", "#/login", "document.querySelector('#login')"),
            "lobby": Visit("player", "#/", "document.querySelector('#create-table')"),
            "table-player": Visit("player", tables,
                                  "document.querySelector('#table[data-turn=\"me\"] #hand .card')"),
            "table-spectator": Visit("spectator", tables,
                                     "document.querySelector('#table')?.dataset.phase"),
            "matches": Visit("player", "#/matches", "document.querySelector('#matches table')"),
            "replay": Visit("player", f"#/replay/{match_id}",
                            "document.querySelector('#replay[data-recomputed]')"),
            "tournaments": Visit("player", "#/tournaments",
                                 "document.querySelector('#tournaments tbody tr')"),
            "tournament": Visit("player", f"#/tournament/{tid}",
                                "document.querySelector('#standings')"),
            "leaderboards": Visit("player", "#/leaderboards/gambler?all=1",
                                  "document.querySelector('#leaderboard-rows')"),
            "player": Visit("player", f"#/player/{winner}",
                            "document.querySelector('#recent-matches')"),
            "my-matches": Visit("player", "#/my-matches",
                                "document.querySelector('#my-finished p, #my-finished table')"),
            "not-found": Visit("player", "#/no-such-page",
                               "document.querySelector('#not-found')"),
        }  # fmt: skip
        yield site


async def visit(site: Site, name: str) -> Page:
    """The page drawn, its content loaded."""
    v = site.pages[name]
    page = site.tabs[v.tab]
    await page.set_viewport(1366, 768)
    await page.goto(f"{site.web.url}{v.route}")
    await page.wait_for(v.ready, timeout=60)
    return page


async def resize(page: Page, size: Size) -> None:
    await page.set_viewport(size.width, size.height, size.mobile, 2 if size.mobile else 1)
    await page.evaluate(FRAME)


def problems_of(measured: dict[str, Any], size: Size, name: str) -> list[str]:
    """What is wrong with the page at ``size``, in words."""
    where = f"{name} at {size.width}x{size.height}"
    found = []
    if measured["scrollWidth"] > size.width:
        found.append(
            f"{where}: scrolls sideways ({measured['scrollWidth']} px wide: "
            f"{', '.join(measured['wide'])})"
        )
    for a, b in measured["overlaps"]:
        found.append(f"{where}: {a['name']} {box_text(a)} overlaps {b['name']} {box_text(b)}")
    if not measured["inMain"]:
        found.append(f"{where}: no region marked (data-region) in the page under the header")
    found += [f"{where}: the header's {c}" for c in measured["cut"]]
    return found


#: The header's menu button, where the links fold under it (a phone): its state, null
#: where it is not shown.
MENU = """(() => {
  const b = document.querySelector('#menu-button');
  return b && b.offsetParent ? b.getAttribute('aria-expanded') : null;
})()"""


async def header_unfolded(page: Page, size: Size, name: str) -> list[str]:
    """Where the links fold under the menu button: unfolded, the header cuts none of them
    and overlaps nothing; then folded again."""
    if await page.evaluate(MENU) is None:
        return []
    await page.click("#menu-button")
    await page.wait_for(f"{MENU} === 'true'")
    await page.evaluate(FRAME)
    measured = await page.evaluate(f"{MEASURE}({TOLERANCE_PX})")
    shown = await page.evaluate("document.querySelectorAll('#nav a').length")
    if size.name in SHOT_SIZES:
        await page.screenshot(ARTIFACTS / f"page-{name}-phone-menu.png", False)
    await page.click("#menu-button")
    await page.wait_for(f"{MENU} === 'false'")
    # The pointer off the button, so that the next screenshot shows no hover.
    away = {"type": "mouseMoved", "x": 0, "y": size.height - 1}
    await page.send("Input.dispatchMouseEvent", away)
    found = problems_of(measured | {"inMain": True}, size, f"{name} (menu open)")
    if not measured["links"] or measured["links"] != shown:
        found.append(f"{name} (menu open) at {size.width}x{size.height}: {measured['links']}"
                     f" of the {shown} links drawn")  # fmt: skip
    return found


def box_text(b: dict[str, Any]) -> str:
    return f"({b['x']},{b['y']} {b['w']}x{b['h']})"


def share_text(share: float | None) -> str:
    return "-" if share is None else f"{share:.2f}"


@pytest.mark.parametrize("name", PAGES)
async def test_the_page_fits_every_screen(site: Site, name: str) -> None:
    page = await visit(site, name)
    async with explained(page, f"layout-{name}"):
        problems: list[str] = []
        lines = []
        for size in SIZES:
            await resize(page, size)
            measured = await page.evaluate(f"{MEASURE}({TOLERANCE_PX})")
            problems += problems_of(measured, size, name)
            share = measured["share"]
            regions = " ".join(f"{r['name']}{box_text(r)}" for r in measured["regions"])
            lines.append(f"  {size.width}x{size.height}: width {measured['scrollWidth']}, "
                         f"felt {share_text(share)}, {regions}")  # fmt: skip
            felt_due = name in TABLE_PAGES and size.name in FELT_SIZES
            if felt_due and (share is None or share < FELT_SHARE):
                problems.append(f"{name} at {size.width}x{size.height}: the felt's share"
                                f" is {share_text(share)}, below {FELT_SHARE}")  # fmt: skip
            shot = await page.screenshot(ARTIFACTS / f"page-{name}-{size.name}.png", False)
            if size.name in SHOT_SIZES:
                to_docs(shot)
                await page.screenshot(ARTIFACTS / f"page-{name}-{size.name}-full.png")
            problems += await header_unfolded(page, size, name)
        print(f"\n{name}:\n" + "\n".join(lines))
        assert not problems, "\n".join(problems)


#: Every seat's box drawn due to play and with its player gone, as each may be at some
#: moment (the table pages' axe check): a check that met a seat shown gone, its box then
#: faded, failed once on the contrast of its text.
EVERY_STATE = (
    "document.querySelectorAll('.felt .seat-box')"
    ".forEach(b => b.classList.add('due-now', 'has-disconnected'))"
)


@pytest.mark.skipif(not axe.is_installed(), reason=axe.MISSING)
@pytest.mark.parametrize("name", PAGES)
async def test_axe_finds_nothing_serious(site: Site, name: str) -> None:
    page = await visit(site, name)
    found = []
    for size in SHOT_SIZES:
        await resize(page, BY_NAME[size])
        violations = await axe.axe(page)
        if violations:
            found.append(f"{name} at {size}:\n{axe.to_text(violations)}")
        if name in TABLE_PAGES:
            violations = await axe.axe(page, EVERY_STATE)
            if violations:
                found.append(f"{name} at {size}, every seat due and gone:\n"
                             + axe.to_text(violations))  # fmt: skip
    assert not found, "\n".join(found)
