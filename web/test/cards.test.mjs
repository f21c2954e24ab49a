// The cards as ui.js draws them (cardFace, cardBacks over cardart.js) and the four-colour
// deck (deckstyle.js, store.js): every one of the 32 codes gets its own picture of the
// vendored deck, the right suit and rank, its name and its corners in the page's language;
// the back; the switch keeps the choice and sets the page's class. A small stand-in for
// the DOM: enough for h(), createElementNS and classList.
import { test } from "node:test";
import assert from "node:assert/strict";
import { memoryStorage } from "../node/memstorage.mjs";

class Node {
  constructor(tag, ns = null) {
    this.tag = tag;
    this.ns = ns;
    this.children = [];
    this.attrs = {};
    this.dataset = {};
    this.className = "";
    this.listeners = {};
    this.textContent = "";
    const classes = new Set();
    this.classList = {
      add: (c) => classes.add(c),
      contains: (c) => classes.has(c),
      toggle: (c, on) => (on ? classes.add(c) : classes.delete(c), on),
    };
  }
  append(...c) {
    this.children.push(...c);
  }
  setAttribute(k, v) {
    this.attrs[k] = v;
  }
  getAttribute(k) {
    return this.attrs[k] ?? null;
  }
  addEventListener(kind, f) {
    this.listeners[kind] = f;
  }
  /** Every element under this one (itself first) that ``test`` accepts. */
  all(test) {
    const out = test(this) ? [this] : [];
    for (const c of this.children) if (c instanceof Node) out.push(...c.all(test));
    return out;
  }
}
const byId = new Map();
/* global document */
globalThis.Node = Node;
globalThis.localStorage = memoryStorage();
globalThis.document = {
  documentElement: new Node("html"),
  body: new Node("body"),
  createElement: (tag) => new Node(tag),
  createElementNS: (ns, tag) => new Node(tag, ns),
  createTextNode: (text) => ({ text }),
  getElementById: (id) => byId.get(id) ?? document.body.all((n) => n.attrs.id === id)[0] ?? null,
};

const { cardFace, cardBacks } = await import("../js/ui.js");
const { artId, ART_URL, FILTER_IDS } = await import("../js/cardart.js");
const { deckSwitch, applyDeckStyle, FOUR_COLOUR_CLASS } = await import("../js/deckstyle.js");
const { store } = await import("../js/store.js");
const { setLanguage } = await import("../js/i18n.js");

const SUITS = { C: ["club", "♣"], D: ["diamond", "♦"], H: ["heart", "♥"], S: ["spade", "♠"] };
const RANKS = { 7: "7", 8: "8", 9: "9", T: "10", J: "jack", Q: "queen", K: "king", A: "1" };
const CODES = Object.keys(SUITS).flatMap((s) => Object.keys(RANKS).map((r) => r + s));
const LETTERS = {
  en: { T: "10", J: "J", Q: "Q", K: "K", A: "A" },
  ru: { T: "10", J: "В", Q: "Д", K: "К", A: "Т" },
  fr: { T: "10", J: "V", Q: "D", K: "R", A: "A" },
};
const SVG_NS = "http://www.w3.org/2000/svg";

const uses = (el) => el.all((n) => n.tag === "use");
const ranks = (el) => el.all((n) => n.tag === "text" && n.attrs.class === "rank").map((n) => n.textContent);
const pips = (el) => el.all((n) => n.tag === "path" && n.attrs.class === "pip");

test("every one of the 32 cards is its own picture of the deck, its suit and rank", () => {
  setLanguage("en");
  const seen = new Set();
  for (const code of CODES) {
    const face = cardFace(code);
    const [art] = uses(face);
    const [suit] = SUITS[code[1]];
    assert.equal(art.attrs.href, `${ART_URL}#${suit}_${RANKS[code[0]]}`, code);
    assert.equal(artId(code), `${suit}_${RANKS[code[0]]}`);
    seen.add(art.attrs.href);
    assert.equal(face.dataset.card, code);
    const classes = face.className.split(" ");
    assert.equal(classes[0], "card");
    assert.equal(classes.includes("red"), code[1] === "D" || code[1] === "H", code);
    // Two corners, each the rank and its suit's pip; drawn in SVG, hidden from readers.
    assert.deepEqual(ranks(face), Array(2).fill(LETTERS.en[code[0]] ?? code[0]), code);
    assert.equal(pips(face).length, 2);
    const svg = face.children[0];
    assert.equal(svg.ns, SVG_NS);
    assert.equal(svg.attrs["aria-hidden"], "true");
  }
  assert.equal(seen.size, 32);
});

test("a card's name and corners are in the page's language", () => {
  for (const lang of ["ru", "fr", "en"]) {
    setLanguage(lang);
    for (const code of CODES) {
      const want = (LETTERS[lang][code[0]] ?? code[0]) + SUITS[code[1]][1];
      const face = cardFace(code, { small: true });
      assert.equal(face.attrs["aria-label"], want, `${lang} ${code}`);
      assert.equal(face.attrs.title, want);
      assert.deepEqual(ranks(face), [want.slice(0, -1), want.slice(0, -1)]);
    }
  }
  setLanguage("en");
});

test("the DOM contract: a button when clickable, else an image; legal, small, a title", () => {
  const onclick = () => {};
  const button = cardFace("TS", { legal: true, onclick, title: "the turned card" });
  assert.equal(button.tag, "button");
  assert.equal(button.attrs.type, "button");
  assert.equal(button.className, "card legal");
  assert.equal(button.attrs.title, "the turned card");
  assert.equal(button.attrs["aria-label"], "10♠");
  assert.equal(typeof button.listeners.click, "function");
  const span = cardFace("QH", { small: true });
  assert.equal(span.tag, "span");
  assert.equal(span.attrs.role, "img");
  assert.equal(span.className, "card red small");
  assert.throws(() => cardFace("1S"), /not a card of the belot deck/);
  assert.throws(() => artId("6H"), /not a card/);
});

test("a hidden hand: as many backs as cards, drawn by the stylesheet, named by their count", () => {
  setLanguage("en");
  const backs = cardBacks(3);
  assert.equal(backs.className, "backs");
  assert.equal(backs.attrs["aria-label"], "3 cards");
  assert.equal(backs.children.length, 3);
  for (const b of backs.children) {
    assert.equal(b.className, "back");
    // No picture in a back: the deck's back, drawn on every redraw, costs too much.
    assert.deepEqual(uses(b), []);
  }
});

test("the four-colour deck's filters are put in the page once, the first card drawn", () => {
  const defs = document.body.all((n) => n.attrs.id === "deck-defs");
  assert.equal(defs.length, 1);
  const filters = defs[0].all((n) => n.tag === "filter").map((f) => f.attrs.id);
  assert.deepEqual(filters, [FILTER_IDS.C, FILTER_IDS.D]);
});

test("the switch keeps the choice on the browser and sets the page's class", () => {
  const html = document.documentElement;
  assert.equal(store.fourColour(), false);
  assert.equal(html.classList.contains(FOUR_COLOUR_CLASS), false);
  const label = deckSwitch();
  assert.equal(label.tag, "label");
  assert.equal(label.title, "Clubs green, diamonds blue, hearts red, spades black");
  const [box, text] = label.children;
  assert.equal(box.type, "checkbox");
  assert.equal(box.checked, false);
  assert.equal(text.text, " Four-colour deck");
  box.checked = true;
  box.listeners.change();
  assert.equal(store.fourColour(), true);
  assert.equal(localStorage.getItem("belot.cards.fourColour"), "true");
  assert.equal(html.classList.contains(FOUR_COLOUR_CLASS), true);
  assert.equal(deckSwitch().children[0].checked, true); // a new switch shows the choice
  box.checked = false;
  box.listeners.change();
  assert.equal(store.fourColour(), false);
  assert.equal(html.classList.contains(FOUR_COLOUR_CLASS), false);
  applyDeckStyle(true);
  assert.equal(html.classList.contains(FOUR_COLOUR_CLASS), true);
  applyDeckStyle(false);
  localStorage.setItem("belot.cards.fourColour", "\"yes\""); // not a choice this page made
  assert.equal(store.fourColour(), false);
});
