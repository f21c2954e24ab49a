// The card game's words: melds (tierce, quarte, quinte, carré), cards said aloud ("the
// jack of hearts"), and the answers to the table's hot keys (seed 004's list: C the cards
// on the table, A the trump, F the suit led, S whose turn), which the table speaks through
// its live region. Pure: views and names in, sentences out (web/test/words.test.mjs).

import { cardLabel, SUIT_NAMES, strainLabel } from "./cards.js";

const RANK_NAMES = { 7: "seven", 8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };
const RANK_PLURALS = { 7: "sevens", 8: "eights", 9: "nines", T: "tens", J: "jacks", Q: "queens", K: "kings", A: "aces" };
const SEQUENCES = { 3: "tierce", 4: "quarte", 5: "quinte" };

/** "the jack of hearts", "the 10 of spades", "the 7 of clubs": a card as it is said
 * (the numbers as they are printed on it). */
export function cardName(code) {
  const rank = code[0] === "T" ? "10" : /[789]/.test(code[0]) ? code[0] : RANK_NAMES[code[0]];
  return `the ${rank} of ${SUIT_NAMES[code[1]]}`;
}

function sequenceName(length) {
  return SEQUENCES[length] ?? `quinte of ${length}`;
}

/** A declaration as it is said aloud (only the rank of the best meld): "tierce to the
 * king", "carré of jacks", "quinte to the ace in trumps". */
export function claimLabel(claim) {
  const trump = claim.trump ? " in trumps" : "";
  if (claim.kind === "four") return `carré of ${RANK_PLURALS[claim.rank]}${trump}`;
  const top = claim.rank === "T" ? "10" : RANK_NAMES[claim.rank];
  return `${sequenceName(claim.length)} to the ${top}${trump}`;
}

/** A meld shown: "tierce K♥ Q♥ J♥", "carré of jacks". */
export function meldLabel(meld) {
  if (meld.kind === "four") return `carré of ${RANK_PLURALS[meld.cards[0][0]]}`;
  return `${sequenceName(meld.cards.length)} ${meld.cards.map(cardLabel).join(" ")}`;
}

/** The contract in words: "hearts", "all trumps", "no trumps", "misère". */
export function contractWords(strain) {
  if (strain === "misere") return "misère";
  return strainLabel(strain).replace(/^[♣♦♥♠] /, "");
}

/** A bid button's words: "Pass", "♥ Hearts", "All trumps". */
export function bidLabel(strain) {
  if (strain === null || strain === "pass") return "Pass";
  const label = strainLabel(strain);
  return /^[♣♦♥♠] /.test(label) ? `${label.slice(0, 2)}${cap(label.slice(2))}` : cap(label);
}

/** A list said as a sentence: "a, b and c". */
export function andList(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

// ---------------------------------------------------------------- the hot keys' answers
// ``names(seat)`` gives a seat's name as the log says it ("you", "Bot 2 (medium)").

/** C: the cards on the table, in the order they were played. */
export function readTable(v, names) {
  if (!v || v.phase === "deck") return "No cards are dealt yet.";
  const trick = v.trick ?? [];
  if (!trick.length) {
    const last = v.tricks?.at(-1);
    const lastWords = last ? ` The last trick: ${trickWords(last, v, names)}.` : "";
    return `No card on the table.${lastWords}`;
  }
  return `On the table: ${andList(trick.map(([seat, card], i) => `${names(seat)} ${i === 0 ? "led" : "played"} ${cardName(card)}`))}.`;
}

/** The last trick: who played what and who took it. */
export function trickWords(trick, v, names) {
  const n = v.hand_sizes?.length ?? 4;
  const plays = trick.cards.map((card, i) => `${names((trick.leader + i) % n)} ${cardName(card)}`);
  return `${andList(plays)}; ${names(trick.winner)} took it (${trick.points} points)`;
}

/** L: the last trick, which every player may look at (seed 002). */
export function readLastTrick(v, names) {
  const last = v?.tricks?.at(-1);
  if (!last) return "No trick has been taken in this deal yet.";
  return `The last trick: ${trickWords(last, v, names)}.`;
}

/** A: the trump. */
export function readTrump(v) {
  if (!v || v.phase === "deck") return "No cards are dealt yet.";
  if (!v.strain) return v.turned ? `No contract yet: the turned card is ${cardName(v.turned)}.` : "No contract yet.";
  if (v.strain === "misere") return "Misère: no trump, take as few points as you can.";
  if (v.strain === "all_trumps") return "All trumps: every suit is trump.";
  if (v.strain === "no_trumps") return "No trumps.";
  return `Trump: ${v.strain}.`;
}

/** F: the suit led. */
export function readLed(v) {
  const first = v?.trick?.[0];
  if (!first) return "No card is led yet.";
  return `${cap(SUIT_NAMES[first[1][1]])} led.`;
}

/** S: whose turn. */
export function readTurn(v, names, mine) {
  if (!v || v.turn === null || v.turn === undefined) return v?.phase === "over" ? "The match is over." : "Nobody is to act just now.";
  const what = v.phase === "bidding" ? "bid" : "play";
  if (mine) return `Your turn to ${what}.`;
  return `${cap(names(v.turn))} to ${what}.`;
}

export function cap(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** ?: the keys. */
export const HOT_KEYS = Object.freeze([
  ["←  →", "choose a card (or a bid)"],
  ["↑  ↓", "between the bids and the hand"],
  ["Enter", "play the chosen card, make the chosen bid, or sit down"],
  ["Space", "announce belote and rebelote with the card you play"],
  ["KeyC", "the cards on the table"],
  ["KeyA", "the trump"],
  ["KeyF", "the suit led"],
  ["KeyS", "whose turn"],
  ["KeyL", "the last trick"],
  ["?", "these keys"],
]);

/** The keys, each letter key by its name on the player's layout (keys.js keyNames:
 * {KeyC: "С", ...}; the US letter where none is given). */
export function readKeys(names = {}) {
  const named = (k) => (k.startsWith("Key") ? (names[k] ?? k.slice(3)) : k);
  return `Keys: ${HOT_KEYS.map(([k, what]) => `${named(k).replace(/\s+/g, " or ").replace("← or →", "left or right arrow").replace("↑ or ↓", "up or down arrow")}: ${what}`).join("; ")}.`;
}
