// Cards and contracts as people read them: "TS" is the ten of spades, shown "10♠". The
// figures' letters are each language's own (a Russian jack is "В", a French king "R"):
// cardLabel asks the catalogue (card.letter.*) at every call, the language may change.

import { t } from "./i18n.js";

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const DIGITS = { T: "10", 9: "9", 8: "8", 7: "7" };
const STRAIN_SUIT = { clubs: "C", diamonds: "D", hearts: "H", spades: "S" };

/** A card's rank as its corner shows it: "10", "J" (Russian "В", French "V"). */
export function cardRank(code) {
  return Object.hasOwn(DIGITS, code[0]) ? DIGITS[code[0]] : t(`card.letter.${code[0]}`);
}

/** "10♠", "J♥" (Russian "В♥", French "V♥"). */
export function cardLabel(code) {
  return cardRank(code) + SUITS[code[1]];
}

/** A suit's name as a contract or a lead says it: "hearts" (Russian "черви"). */
export function suitName(suit) {
  return t(`card.suit.${suit}`);
}

export function isRed(code) {
  return code[1] === "D" || code[1] === "H";
}

/** "hearts" -> "♥ hearts", "all_trumps" -> "all trumps", null -> "pass" (in the
 * current language: "♥ черви", "все козыри", "пас"). */
export function strainLabel(strain) {
  if (strain === null || strain === undefined || strain === "pass") return t("game.pass");
  const suit = STRAIN_SUIT[strain];
  if (suit) return `${SUITS[suit]} ${suitName(suit)}`;
  if (strain === "all_trumps") return t("game.all_trumps");
  if (strain === "no_trumps") return t("game.no_trumps");
  if (strain === "misere") return t("game.misere");
  return String(strain).replace("_", " ");
}

export function strainSuit(strain) {
  return STRAIN_SUIT[strain] ?? null;
}

// Display order in a hand: suits alternate colours, trump first; ranks by the order that
// matters in the contract (trump: J 9 A 10 K Q 8 7; plain: A 10 K Q J 9 8 7).
const PLAIN = "ATKQJ987";
const TRUMP = "J9ATKQ87";

export function sortHand(cards, strain) {
  const trump = strainSuit(strain);
  const allTrumps = strain === "all_trumps";
  const suitOrder = trump ? [trump, ...["S", "H", "C", "D"].filter((s) => s !== trump)] : ["S", "H", "C", "D"];
  return [...cards].sort((a, b) => {
    const sa = suitOrder.indexOf(a[1]);
    const sb = suitOrder.indexOf(b[1]);
    if (sa !== sb) return sa - sb;
    const order = allTrumps || a[1] === trump ? TRUMP : PLAIN;
    return order.indexOf(a[0]) - order.indexOf(b[0]);
  });
}
