// The tournament page's draw (tournaments.js drawSection): the round named and when,
// what this page's own clock saw of the naming, and the order once drawn. A small
// stand-in for the DOM: enough of createElement for ui.js's h().
import { test } from "node:test";
import assert from "node:assert/strict";

class Node {
  constructor(tag) {
    this.tag = tag;
    this.children = [];
    this.attrs = {};
    this.dataset = {};
    this.className = "";
  }
  append(...c) {
    this.children.push(...c);
  }
  setAttribute(k, v) {
    this.attrs[k] = v;
  }
  addEventListener() {}
  get textContent() {
    return this.children.map((c) => (c instanceof Node ? c.textContent : c.text)).join("");
  }
}
globalThis.Node = Node;
globalThis.document = {
  documentElement: {},
  createElement: (tag) => new Node(tag),
  createTextNode: (text) => ({ text }),
};
const { drawSection } = await import("../js/tournaments.js");
const { setLanguage } = await import("../js/i18n.js");

const DUE = 1_700_000_009_000;
const draw = (over = {}) => ({
  tournament_id: "cup",
  draw: { status: "awaiting_round", chain: "quicknet", round: 1234, due_at_ms: DUE, named_at_ms: DUE - 7_000, namings: 1, order: null, ...over },
});
const text = (nodes) => nodes.map((n) => n.textContent).join("\n");
const byId = (nodes, id) => nodes.find((n) => n.attrs.id === id);

test("no draw, no section", () => {
  assert.equal(drawSection({ tournament_id: "cup", draw: null }, (p) => p), null);
});

test("seen named before the round was due: the page says nobody could know the order", () => {
  const seen = new Map();
  const nodes = drawSection(draw(), (p) => p, seen, () => DUE - 6_000);
  assert.match(byId(nodes, "draw-round").textContent, /drand round 1234 of quicknet/);
  const note = byId(nodes, "draw-seen");
  assert.equal(note.className, "ok");
  assert.match(note.textContent, /6 s before the round was due/);
  // What the page saw first stands: a later look does not move it.
  const again = drawSection(draw(), (p) => p, seen, () => DUE + 60_000);
  assert.match(byId(again, "draw-seen").textContent, /6 s before/);
});

test("first seen after the round was due: the page cannot vouch for it", () => {
  const nodes = drawSection(draw(), (p) => p, new Map(), () => DUE + 1);
  const note = byId(nodes, "draw-seen");
  assert.equal(note.className, "warn");
  assert.match(note.textContent, /only after the round was due/);
});

test("a draw already made when first seen says nothing of when it was named", () => {
  const nodes = drawSection(draw({ status: "made", order: ["b", "a"] }), (p) => p.toUpperCase(), new Map(), () => DUE + 1);
  assert.equal(byId(nodes, "draw-seen"), undefined);
  assert.equal(byId(nodes, "draw-order").textContent, "BA");
  assert.match(text(nodes), /belot verify-draw cup/);
});

test("two namings are shown as what they are", () => {
  const nodes = drawSection(draw({ namings: 2 }), (p) => p, new Map(), () => DUE - 6_000);
  assert.match(text(nodes), /2 rounds were named for this draw: only one may be/);
});

test("the draw is said in the language chosen, the command as it is typed", () => {
  const said = {};
  try {
    for (const lang of ["ru", "bg", "fr"]) {
      setLanguage(lang);
      said[lang] = text(drawSection(draw({ namings: 2, order: ["a"] }), (p) => p, new Map(), () => DUE - 6_000));
    }
  } finally {
    setLanguage("en");
  }
  assert.match(said.ru, /Раунд drand 1234 сети quicknet/);
  assert.match(said.ru, /названо 2 раунда: допустим только один/);
  assert.match(said.bg, /Рунд 1234 на drand \(quicknet\)/);
  assert.match(said.bg, /посочени 2 рунда/);
  assert.match(said.fr, /Tour drand 1234 de quicknet/);
  assert.match(said.fr, /2 tours ont été désignés/);
  for (const lang of ["ru", "bg", "fr"]) assert.match(said[lang], /belot verify-draw cup --api /);
  // Back in English, word for word as before.
  assert.match(text(drawSection(draw({ namings: 2 }), (p) => p, new Map(), () => DUE - 6_000)), /2 rounds were named for this draw: only one may be/);
});
