"""The cards in Chromium: all 32 faces, a hidden hand and the four-colour switch, drawn by
the client's own modules (ui.js cardFace and cardBacks, deckstyle.js deckSwitch) on a
blank page under the gateway's Content Security Policy, its files served by the
gateway's own static handler (the vendored deck among them), at 390x844 and 1366x768.

Checked: no console error and no CSP violation; every face's picture is drawn (the <use>
of the vendored file has a box: a picture that failed to load has none); every card is
named by its label in the page's language and its corners say the rank in that
language's letters (Russian "В", English "J"); a hand of eight fits 360 px with its
index at least 11 px high; the four-colour switch turns a club's index green (its
computed fill) and filters its picture, and is kept on the browser. Screenshots go to
tests/artifacts/, and to docs/img/ with BELOT_DOCS_SHOTS=1. Skipped, saying so, when no
Chromium is installed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from belot_platform.settings import Settings
from services.gateway.web import StaticSite, content_security_policy, static_handler
from tests.browser import Page, chromium, chromium_path
from tests.integration.test_web_browser import BROWSER_TEST, artifact, to_docs

pytestmark = BROWSER_TEST

WEB = Path(__file__).resolve().parents[2] / "web"
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RANKS = "789TJQKA"
CODES = [r + s for s in "SHCD" for r in RANKS]
LETTERS = {
    "en": {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"},
    "ru": {"T": "10", "J": "В", "Q": "Д", "K": "К", "A": "Т"},
}
SCREENS = {"phone": (390, 844), "laptop": (1366, 768)}
INK, CLUB_GREEN = "rgb(27, 31, 35)", "rgb(11, 122, 59)"

#: The page: the stylesheet and a place for the cards; no script (the test imports the
#: modules), so the policy is the gateway's own without an import map's hash.
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/css/belot.css"></head>
<body><main id="page"></main></body></html>"""

#: Listens for the policy's refusals before anything loads.
WATCH_CSP = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));"""

DRAW = """(async (lang, codes) => {
  const { setLanguage } = await import('/js/i18n.js');
  const { cardFace, cardBacks, h } = await import('/js/ui.js');
  const { deckSwitch } = await import('/js/deckstyle.js');
  setLanguage(lang);
  const page = document.getElementById('page');
  page.replaceChildren();
  const row = (id, cards) => h('div', { id, class: 'row' }, cards);
  page.append(h('div', { id: 'switch' }, deckSwitch()));
  for (const suit of 'SHCD') {
    const mine = codes.filter((c) => c[1] === suit);
    page.append(row(`suit-${suit}`, mine.map((c, i) =>
      cardFace(c, { legal: i % 3 === 0, onclick: i % 2 ? () => {} : null }))));
  }
  page.append(row('small', codes.filter((c) => c[0] === 'J' || c[0] === 'A')
    .map((c) => cardFace(c, { small: true }))));
  page.append(row('backs', [cardBacks(8)]));
  // A phone's hand: eight cards in 360 px, sized as the table does (--card-w).
  const hand = h('div', { id: 'hand8' }, ['7C', 'TC', 'JH', 'QH', 'KS', 'AS', '9D', 'QD']
    .map((c) => cardFace(c, { onclick: () => {} })));
  hand.style.cssText = 'display: flex; width: 360px; background: #1f6b45; padding: 0.5rem 0;';
  for (const c of hand.children) c.style.cssText = '--card-w: 2.6rem; margin: 0 0.06rem;';
  page.append(hand);
  return document.querySelectorAll('#page .card').length;
})"""

#: Each card's facts as drawn: its name, its corner's text, whether its picture has a box.
FACTS = """[...document.querySelectorAll('#page .row:not(#small) .card')].map((el) => {
  const box = el.querySelector('use.art').getBBox();
  return {
    code: el.dataset.card, tag: el.tagName, label: el.getAttribute('aria-label'),
    title: el.title, role: el.getAttribute('role'),
    ranks: [...el.querySelectorAll('.index .rank')].map((r) => r.textContent),
    drawn: box.width > 100 && box.height > 150,
    shown: el.getBoundingClientRect().width > 0,
  };
})"""

ALL_DRAWN = """[...document.querySelectorAll('#page use.art')].every((u) => {
  const b = u.getBBox(); return b.width > 100 && b.height > 150; })"""

HAND = """(() => {
  const hand = document.getElementById('hand8').getBoundingClientRect();
  const cards = [...document.querySelectorAll('#hand8 .card')]
    .map((c) => c.getBoundingClientRect());
  const ranks = [...document.querySelectorAll('#hand8 .card .index:first-of-type .rank')]
    .map((r) => r.getBoundingClientRect().height);
  return { width: hand.width, right: Math.max(...cards.map((c) => c.right)) - hand.left,
           cardWidth: cards[0].width, smallestRank: Math.min(...ranks) };
})()"""

CLUB = """(() => {
  const club = document.querySelector('#suit-C .card[data-card="7C"]');
  return { fill: getComputedStyle(club.querySelector('.index .rank')).fill,
           filter: getComputedStyle(club.querySelector('use.art')).filter,
           spade: getComputedStyle(document.querySelector('[data-card="7S"] .index .rank')).fill,
           heart: getComputedStyle(document.querySelector('[data-card="7H"] .index .rank')).fill,
           checked: document.querySelector('#switch input').checked,
           html: document.documentElement.classList.contains('four-colour'),
           kept: localStorage.getItem('belot.cards.fourColour') };
})()"""


def label(code: str, lang: str) -> str:
    return LETTERS[lang].get(code[0], code[0]) + SUITS[code[1]]


def _app() -> web.Application:
    settings = Settings(pg_dsn="postgresql://unused", nats_url="nats://unused")
    files = static_handler(StaticSite(WEB), settings)

    async def page(request: web.Request) -> web.Response:
        csp = content_security_policy(settings, request)
        return web.Response(
            text=PAGE, content_type="text/html", headers={"Content-Security-Policy": csp}
        )

    app = web.Application()
    app.router.add_get("/cards.html", page)
    app.router.add_get("/{path:(js|css|vendor)/.+}", files)
    return app


@pytest.fixture(scope="module")
async def site() -> AsyncIterator[str]:
    server = TestServer(_app(), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("/cards.html"))
    finally:
        await server.close()


async def open_cards(page: Page, url: str, lang: str) -> None:
    await page.add_init_script(WATCH_CSP)
    await page.goto(url)
    await page.wait_for("document.readyState === 'complete'")
    count = await page.evaluate(f"({DRAW})({json.dumps(lang)}, {json.dumps(CODES)})")
    assert count == 32 + 8 + 8  # the four suits, the small jacks and aces, the hand
    await page.wait_for(ALL_DRAWN)


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("screen", list(SCREENS))
async def test_every_face_is_drawn_and_named_in_the_pages_language(
    site: str, lang: str, screen: str
) -> None:
    path = chromium_path()
    assert path is not None
    width, height = SCREENS[screen]
    async with chromium(path) as browser:
        page = await browser.new_page(width, height)
        await page.set_viewport(width, height, mobile=screen == "phone")
        await open_cards(page, site, lang)
        facts: list[dict[str, Any]] = await page.evaluate(FACTS)
        assert [f["code"] for f in facts] == CODES
        for f in facts:
            want = label(f["code"], lang)
            assert f["label"] == f["title"] == want, f
            # Both corners say the rank in this language's letters.
            assert f["ranks"] == [want[:-1]] * 2, f
            assert f["drawn"] and f["shown"], f
            # A card to click is a button; one to look at, an image with that name.
            assert (f["tag"], f["role"]) in (("BUTTON", None), ("SPAN", "img")), f
        # A back is the stylesheet's pattern (no picture: a hidden hand is redrawn often).
        backs = await page.evaluate(
            "[...document.querySelectorAll('#backs .back')].map((b) => [b.offsetWidth,"
            " getComputedStyle(b).backgroundImage])"
        )
        assert len(backs) == 8, backs
        assert all(w > 8 and image.startswith("repeating-linear-gradient") for w, image in backs)
        hand = await page.evaluate(HAND)
        assert hand["right"] <= 360, hand  # eight cards in 360 px
        assert hand["smallestRank"] >= 11, hand  # the corner's rank stays readable
        assert await page.evaluate("window.__csp") == []
        assert page.errors == []
        shot = await page.screenshot(artifact(f"cards-{lang}-{screen}.png"))
        to_docs(shot)


async def test_the_four_colour_switch_recolours_every_club_at_once(site: str) -> None:
    path = chromium_path()
    assert path is not None
    async with chromium(path) as browser:
        page = await browser.new_page(*SCREENS["laptop"])
        await open_cards(page, site, "en")
        before = await page.evaluate(CLUB)
        assert before["fill"] == INK and before["filter"] == "none"
        assert not before["checked"] and not before["html"]
        drawn = await page.evaluate("document.querySelectorAll('#page .card').length")

        await page.click("#switch input")
        on = await page.evaluate(CLUB)
        assert on["fill"] == CLUB_GREEN and "deck-four-colour-C" in on["filter"], on
        assert on["spade"] == INK and on["heart"] == before["heart"], on
        assert on["checked"] and on["html"] and on["kept"] == "true", on
        # Nothing was drawn again: the same elements, recoloured by the page's class.
        assert await page.evaluate("document.querySelectorAll('#page .card').length") == drawn
        shot = await page.screenshot(artifact("cards-four-colour-laptop.png"))
        to_docs(shot)

        # Kept: a new page on this browser starts in four colours.
        await open_cards(page, site, "en")
        again = await page.evaluate(CLUB)
        assert again["fill"] == CLUB_GREEN and again["checked"] and again["html"], again
        await page.click("#switch input")
        off = await page.evaluate(CLUB)
        assert off["fill"] == INK and not off["html"] and off["kept"] == "false", off
        assert await page.evaluate("window.__csp") == []
        assert page.errors == []
