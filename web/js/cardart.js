// The cards' faces and back as SVG: the pictures are SVG-cards' (David Bellot, Huub de
// Beer; LGPL-2.1, vendored unmodified in web/vendor/svg-cards/, docs/web-client.md says
// why), drawn with <use> from the one vendored file; over its corners we draw our own
// index, large enough to read on a phone and in the player's language (the art's is
// English and 3 px high there: a Russian jack is "В", a French king "R").
//
// The colours are the stylesheet's (web/css/belot.css, "cards"): the index and its pip
// are filled with the card's --suit colour, and the four-colour deck (a class on <html>)
// recolours the art's own pips through the two filters `deckDefs` puts in the page once.

const SVG_NS = "http://www.w3.org/2000/svg";

/** The vendored deck, as the gateway serves it. */
export const ART_URL = "/vendor/svg-cards/svg-cards.svg";
/** A card of the deck: 169.075 x 244.64 (its own viewBox), each drawn at (0, 0). */
export const CARD_W = 169.075;
export const CARD_H = 244.64;

const ART_SUIT = { C: "club", D: "diamond", H: "heart", S: "spade" };
const ART_RANK = { 7: "7", 8: "8", 9: "9", T: "10", J: "jack", Q: "queen", K: "king", A: "1" };

/** The id of a card's picture in the vendored file: "KH" -> "heart_king", "TS" -> "spade_10". */
export function artId(code) {
  const rank = ART_RANK[code[0]];
  const suit = ART_SUIT[code[1]];
  if (!rank || !suit || code.length !== 2) throw new Error(`not a card of the belot deck: ${code}`);
  return `${suit}_${rank}`;
}

// Our index: a white patch over the art's own corner (which reaches x 28, y 55 of the
// card), the rank above its suit's pip. Sizes in the card's units: at a phone's 40 px card
// the rank is 12 px high.
const INDEX = { x: 3, y: 3, w: 44, h: 100, rankSize: 50, rankY: 46, pip: 36, pipY: 56 };
/** "10" is squeezed to the patch's width, as printed decks do. */
const WIDE_RANK = 40;

// The suits' pips, each in a 100 x 100 box: drawn here rather than as the text "♥", which
// a phone may draw as a coloured emoji that no fill can recolour.
const PIPS = {
  H: "M50 94C22 70 0 50 0 28 0 11 12 0 27 0 38 0 46 7 50 17 54 7 62 0 73 0 88 0 100 11 100 28 100 50 78 70 50 94Z",
  D: "M50 0 88 50 50 100 12 50Z",
  S: "M50 0C78 24 100 42 100 62 100 78 88 87 75 87 65 87 57 82 53 75 55 87 60 94 68 100H32C40 94 45 87 47 75 43 82 35 87 25 87 12 87 0 78 0 62 0 42 22 24 50 0Z",
  C: "M50 4A22 22 0 1 1 49.9 4ZM24 38A22 22 0 1 1 23.9 38ZM76 38A22 22 0 1 1 75.9 38ZM47 56C46 78 40 91 31 100H69C60 91 54 78 53 56Z",
};

// A page may size a card a little wider or narrower than the deck's 169 x 245 (the table's
// are 0.72 as wide as high): the picture is stretched to the card, not boxed in it.
const FACE_ATTRS = { class: "face", viewBox: `0 0 ${CARD_W} ${CARD_H}`, preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" };

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

function cornerIndex(rank, suit, rotated) {
  const { x, y, w, h, rankSize, rankY, pip, pipY } = INDEX;
  const text = svg("text", { class: "rank", x: x + w / 2, y: y + rankY, "text-anchor": "middle", "font-size": rankSize });
  text.textContent = rank;
  if (rank.length > 1) {
    text.setAttribute("textLength", WIDE_RANK);
    text.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  const scale = pip / 100;
  const pipShape = svg("path", { class: "pip", d: PIPS[suit], transform: `translate(${x + (w - pip) / 2} ${y + pipY}) scale(${scale})` });
  const attrs = { class: "index" };
  if (rotated) attrs.transform = `rotate(180 ${CARD_W / 2} ${CARD_H / 2})`;
  return svg("g", attrs, svg("rect", { class: "patch", x, y, width: w, height: h, rx: 6 }), text, pipShape);
}

/** A card's face: the art and our index in two corners, for a card element to hold.
 * ``rank`` is the corner's text in the player's language ("10", "В"). Hidden from screen
 * readers: the card element carries the name. */
export function faceArt(code, rank) {
  const art = svg("use", { class: "art", href: `${ART_URL}#${artId(code)}` });
  return svg(
    "svg",
    FACE_ATTRS,
    art,
    cornerIndex(rank, code[1], false),
    cornerIndex(rank, code[1], true),
  );
}

/** The ids of the four-colour deck's filters (the stylesheet names them). */
export const FILTER_IDS = Object.freeze({ C: "deck-four-colour-C", D: "deck-four-colour-D" });

/** The four-colour deck's filters, put in the page once: clubs' black turns green, and
 * diamonds' red blue, every other colour of the picture kept (a mask of the dark, or of
 * the red, pixels, flooded with the new colour). */
export function deckDefs(doc = document) {
  if (doc.getElementById("deck-defs")) return;
  // Black is where R, G and B are all low: 1 - (R + G + B) in the mask's alpha, kept from
  // 0.7 (the pictures' reds and blues add up to more than 0.3). Red is where R is well
  // above G and B: R - G - B, kept from 0.5 (the pictures' gold is not).
  const mask = (id, colour, matrix, cut) =>
    svg(
      "filter",
      { id, "color-interpolation-filters": "sRGB", x: 0, y: 0, width: 1, height: 1 },
      svg("feColorMatrix", { in: "SourceGraphic", type: "matrix", values: matrix, result: "level" }),
      svg("feComponentTransfer", { in: "level", result: "mask" }, svg("feFuncA", { type: "discrete", tableValues: cut })),
      svg("feFlood", { "flood-color": colour, result: "ink" }),
      svg("feComposite", { in: "ink", in2: "mask", operator: "in", result: "recoloured" }),
      svg("feComposite", { in: "recoloured", in2: "SourceGraphic", operator: "atop" }),
    );
  const defs = svg(
    "svg",
    { id: "deck-defs", width: 0, height: 0, "aria-hidden": "true", focusable: "false" },
    svg(
      "defs",
      {},
      mask(FILTER_IDS.C, "#0b7a3b", "0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  -0.34 -0.34 -0.34 0 1", "0 0 0 0 0 0 0 1 1 1"),
      mask(FILTER_IDS.D, "#1857c4", "0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  1 -1 -1 0 0", "0 0 0 0 0 1 1 1 1 1"),
    ),
  );
  // One picture of the deck, never shown: the browser reads and parses the deck's file
  // now, when the page is put up, rather than when the first hand is drawn.
  defs.append(svg("use", { href: `${ART_URL}#${artId("AS")}` }));
  defs.classList.add("deck-defs");
  doc.body.append(defs);
}
