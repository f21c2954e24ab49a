"""Redrawing by patching (web/js/patch.js) in Chromium, the engine it is written for: the
table draws its felt whole from its state and patches it in, so what a patch keeps and what
it changes decides both what the player sees and what the browser has to do again.

- Whatever the two drawings, the page ends up exactly as the new one (isEqualNode), over 600
  random pairs of trees: cards moved, added and removed, attributes and words changed,
  elements of another tag or key, keyed and unkeyed children.
- What did not change is the same element as before (a card left in the hand, a seat a
  bot's card did not touch): it keeps its focus and its picture, and answers a click with
  the new drawing's handler (a card carries the view it was drawn from).
- A style changed (the hand's card count) is changed under the gateway's
  Content-Security-Policy, which refuses a style set as an attribute.
- A place whose children the page puts there itself (data-own-children) keeps them; an
  element the drawing holds by reference (one kept across drawings) is put back in.

A static server serves web/ to a blank page with the client's import map, as
test_tab_attacks_browser.py does.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestServer

from tests.browser import chromium, chromium_path
from tests.integration.test_tab_attacks_browser import _app, pytestmark  # noqa: F401

CASES = r"""(async () => {
  const { patch } = await import('/js/patch.js');
  const { h } = await import('/js/ui.js');
  const out = {};
  const root = document.body.appendChild(document.createElement('div'));

  // 1. Kept, and answering with the new handler.
  const calls = [];
  const hand = (cards, tag) => h('div', { id: 'hand' }, cards.map((c) =>
    h('button', { type: 'button', 'data-card': c, class: 'card',
                  onclick: () => calls.push(`${tag}:${c}`) }, c)));
  let shown = root.appendChild(hand(['7H', 'KS', 'AD'], 'old'));
  const [h7, hK, hA] = shown.children;
  hK.focus();
  shown = patch(shown, hand(['7H', 'AD'], 'new'));
  out.handKept = shown.id === 'hand' && shown.children[0] === h7 && shown.children[1] === hA;
  out.playedRemoved = !hK.isConnected && shown.children.length === 2;
  h7.click();
  out.newHandler = calls.join(',');

  // 2. A class changed on a kept card (legal now): the same element, the focus stays.
  const legalHand = (legal) => h('div', { id: 'hand' }, ['7H', 'AD'].map((c) =>
    h('button', { type: 'button', 'data-card': c,
                  class: `card${legal.includes(c) ? ' legal' : ''}`,
                  onclick: legal.includes(c) ? () => calls.push(`legal:${c}`) : null }, c)));
  shown = patch(shown, legalHand([]));
  h7.focus();
  shown = patch(shown, legalHand(['AD']));
  out.classPatched = shown.children[1] === hA && hA.className === 'card legal'
    && h7.className === 'card';
  out.focusKept = document.activeElement === h7;
  calls.length = 0;
  h7.click();
  hA.click();
  out.handlers = calls.join(','); // h7's handler gone, hA's the new drawing's

  // 2b. A style changed (the hand's card count): through the CSSOM, which the page's
  // Content-Security-Policy allows (this page is served with the gateway's style-src).
  const counted = (n) => {
    const e = h('div', { id: 'counted' });
    e.style.setProperty('--cards', String(n));
    return e;
  };
  const c5 = patch(root.appendChild(counted(5)), counted(8));
  out.style = getComputedStyle(c5).getPropertyValue('--cards').trim();

  // 3. Another key or tag: replaced.
  const a = root.appendChild(h('span', { id: 'a' }, 'x'));
  out.otherKey = patch(a, h('span', { id: 'b' }, 'x')).id === 'b' && !a.isConnected;

  // 4. A place whose children the page owns keeps them.
  const slot = root.appendChild(h('div', { id: 'slot', 'data-own-children': true, class: 'one' }));
  const message = slot.appendChild(h('p', { id: 'message' }, 'refused'));
  const slot2 = patch(slot, h('div', { id: 'slot', 'data-own-children': true, class: 'two' }));
  out.ownChildren = slot2 === slot && message.parentNode === slot && slot.className === 'two';

  // 5. An element held by reference across drawings is put back in its place.
  const kept = h('button', { id: 'deck-switch' }, 'deck');
  const links = (extra) => h('div', { id: 'links' }, h('a', { id: 'l1' }, '1'), kept,
    extra ? h('a', { id: 'l2' }, '2') : null);
  let l = root.appendChild(links(false));
  l = patch(l, links(true));
  out.byReference = kept.parentNode === l
    && [...l.children].map((e) => e.id).join(',') === 'l1,deck-switch,l2';

  // 6. Random pairs: the page ends up exactly as the new drawing.
  // mulberry32: a small seeded generator whose low bits are as random as its high ones.
  let seed = 7;
  const rnd = (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
  const CARDS = ['7H', '8H', '9S', 'TS', 'JC', 'QD', 'KD', 'AC'];
  const tree = (depth) => {
    const kind = rnd(5);
    if (depth > 3 || kind === 0) return document.createTextNode(['a', 'b', 'ЁЖ', ''][rnd(4)]);
    const attrs = {};
    if (rnd(2)) attrs.class = ['x', 'y', 'x y'][rnd(3)];
    if (rnd(3) === 0) attrs.title = ['t', 'u'][rnd(2)];
    if (rnd(4) === 0) attrs.id = ['i1', 'i2'][rnd(2)];
    const tag = ['div', 'span', 'button'][rnd(3)];
    if (kind === 1) {
      // A hand: keyed children, a different subset and order each time.
      const cards = CARDS.filter(() => rnd(2));
      if (rnd(2)) cards.reverse();
      return h(tag, attrs, cards.map((c) =>
        h('span', { 'data-card': c, class: rnd(2) ? 'card legal' : 'card' }, c)));
    }
    return h(tag, attrs, Array.from({ length: rnd(4) }, () => tree(depth + 1)));
  };
  // The next drawing: half the time a new tree, else the old one changed here and there
  // (as a redraw mostly is): words, attributes, a card played or added, children
  // reordered, a subtree of another shape.
  const changed = (node) => {
    const copy = node.cloneNode(true);
    const all = [...copy.querySelectorAll('*')];
    for (let k = rnd(4) + 1; k > 0 && all.length; k--) {
      const e = all[rnd(all.length)];
      if (!copy.contains(e)) continue;
      const op = rnd(6);
      if (op === 0) e.setAttribute('class', ['x', 'z', 'card legal'][rnd(3)]);
      else if (op === 1) e.removeAttribute('title');
      else if (op === 2 && e !== copy) e.remove();
      else if (op === 3) {
        e.append(rnd(2) ? tree(2) : h('span', { 'data-card': CARDS[rnd(8)] }, 'c'));
      }
      else if (op === 4 && e.children.length > 1) e.append(e.firstElementChild);
      else if (op === 5 && e !== copy) e.replaceWith(tree(1));
    }
    return copy;
  };
  let same = 0, kinds = 0, mismatch = null;
  const wrap = (n) => h('section', { id: 'r' }, n);
  for (let i = 0; i < 600; i++) {
    const before = root.appendChild(wrap(tree(0)));
    const where = (e) => e.dataset.card + e.parentNode.tagName;
    const keptIds = new Map([...before.querySelectorAll('[data-card]')].map((e) => [where(e), e]));
    const next = i % 2 ? wrap(tree(0)) : changed(before);
    const want = next.cloneNode(true);
    const was = before.outerHTML;
    const after = patch(before, next);
    // The same elements, attributes (in any order) and words: isEqualNode.
    if (!after.isEqualNode(want)) {
      mismatch = { was, want: want.outerHTML, got: after.outerHTML };
      break;
    }
    same += 1;
    for (const e of after.querySelectorAll('[data-card]')) {
      if (keptIds.get(where(e)) === e) kinds += 1;
    }
    after.remove();
  }
  out.random = { same, keptCards: kinds, mismatch };
  return out;
})()"""


async def test_a_patch_draws_the_new_page_and_keeps_what_did_not_change() -> None:
    path = chromium_path()
    assert path is not None
    app = _app({})

    @web.middleware
    async def strict_styles(request: web.Request, handler: Any) -> web.StreamResponse:
        response = await handler(request)
        # The gateway's rule for styles (services/gateway/web.py): no inline style.
        response.headers["Content-Security-Policy"] = "style-src 'self'"
        return response

    app.middlewares.append(strict_styles)
    server = TestServer(app)
    await server.start_server()
    try:
        async with chromium(path) as browser:
            page = await browser.new_page()
            await page.goto(str(server.make_url("/")))
            out = await page.evaluate(CASES)
            assert page.errors == [], page.errors
    finally:
        await server.close()
    assert out["handKept"] and out["playedRemoved"], out
    assert out["newHandler"] == "new:7H", out
    assert out["classPatched"] and out["focusKept"], out
    assert out["handlers"] == "legal:AD", out
    assert out["style"] == "8", out
    assert out["otherKey"] and out["ownChildren"] and out["byReference"], out
    random = out["random"]
    assert random["mismatch"] is None, random["mismatch"]
    assert random["same"] == 600, random
    # The patch does keep cards (not only redraw them all): a card in both drawings, under
    # a parent of the same kind, is often the very element it was.
    assert random["keptCards"] > 100, random
    print(f"\npatch: 600 random redraws equal to their drawing; {random['keptCards']} cards kept")
