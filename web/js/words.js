// The card game's words: melds (tierce, quarte, quinte, carré), cards said aloud ("the
// jack of hearts"), and the answers to the table's hot keys (seed 004's list: C the cards
// on the table, A the trump, F the suit led, S whose turn), which the table speaks through
// its live region. Pure: views and names in, sentences out (web/test/words.test.mjs).
// Every sentence is one catalogue key (lang/parts/game.js) in the current language, asked
// at each call; the game's terms are docs/glossary.md's.

import { cardLabel, strainLabel, strainSuit, SUITS, suitName } from "./cards.js";
import { andList, t } from "./i18n.js";

/** A list said as a sentence: "a, b and c" (the language's own, i18n.js andList). */
export { andList };

/** "the jack of hearts", "the 10 of spades", "the 7 of clubs": a card as it is said
 * (the numbers as they are printed on it); Russian "валет червей", French "le valet de
 * cœur". */
export function cardName(code) {
  return t(`card.name.${code[0]}`, { suit: t(`card.of_suit.${code[1]}`) });
}

/** A sequence's name by its length: tierce, quarte, quinte (Russian терц, берц, квинта;
 * French tierce, cinquante, cent), "quinte of 6" past five. */
function sequenceName(length) {
  if (length === 3) return t("game.tierce");
  if (length === 4) return t("game.quarte");
  if (length === 5) return t("game.quinte");
  return t("words.long_sequence", { count: length });
}

function inTrumps(meld, trump) {
  return trump ? t("words.in_trumps", { meld }) : meld;
}

/** A declaration as it is said aloud (only the rank of the best meld): "tierce to the
 * king", "carré of jacks", "quinte to the ace in trumps". */
export function claimLabel(claim) {
  if (claim.kind === "four") return inTrumps(t(`words.carre.${claim.rank}`), claim.trump);
  return inTrumps(t("words.claim", { meld: sequenceName(claim.length), top: t(`words.top.${claim.rank}`) }), claim.trump);
}

/** A meld shown: "tierce K♥ Q♥ J♥", "carré of jacks". */
export function meldLabel(meld) {
  if (meld.kind === "four") return t(`words.carre.${meld.cards[0][0]}`);
  return t("words.meld_cards", { meld: sequenceName(meld.cards.length), cards: meld.cards.map(cardLabel).join(" ") });
}

/** The contract in words: "hearts", "all trumps", "no trumps", "misère". */
export function contractWords(strain) {
  const suit = strainSuit(strain);
  return suit ? suitName(suit) : strainLabel(strain);
}

/** A bid button's words: "Pass", "♥ Hearts", "All trumps". */
export function bidLabel(strain) {
  const suit = strainSuit(strain);
  if (suit) return `${SUITS[suit]} ${cap(suitName(suit))}`;
  return cap(strainLabel(strain));
}

// ---------------------------------------------------------------- the hot keys' answers
// ``names(seat)`` gives a seat's name as the log says it ("you", "Bot 2 (medium)").

/** C: the cards on the table, in the order they were played. */
export function readTable(v, names) {
  if (!v || v.phase === "deck") return t("words.no_cards_yet");
  const trick = v.trick ?? [];
  if (!trick.length) {
    const last = v.tricks?.at(-1);
    return last ? t("words.table_empty_last", { trick: trickWords(last, v, names) }) : t("words.table_empty");
  }
  const plays = trick.map(([seat, card], i) => (i === 0 ? t("words.led_card", { name: names(seat), card: cardName(card) }) : t("words.played_card", { name: names(seat), card: cardName(card) })));
  return t("words.on_table", { plays: andList(plays) });
}

/** The last trick: who played what and who took it. */
export function trickWords(trick, v, names) {
  const n = v.hand_sizes?.length ?? 4;
  const plays = trick.cards.map((card, i) => t("words.trick_play", { name: names((trick.leader + i) % n), card: cardName(card) }));
  return t("words.trick", { plays: andList(plays), name: names(trick.winner), count: trick.points });
}

/** L: the last trick, which every player may look at (seed 002). */
export function readLastTrick(v, names) {
  const last = v?.tricks?.at(-1);
  if (!last) return t("words.no_trick_yet");
  return t("words.last_trick", { trick: trickWords(last, v, names) });
}

/** A: the trump. */
export function readTrump(v) {
  if (!v || v.phase === "deck") return t("words.no_cards_yet");
  if (!v.strain) return v.turned ? t("words.no_contract_turned", { card: cardName(v.turned) }) : t("words.no_contract");
  if (v.strain === "misere") return t("words.misere");
  if (v.strain === "all_trumps") return t("words.all_trumps");
  if (v.strain === "no_trumps") return t("words.no_trumps");
  const suit = strainSuit(v.strain);
  return t("words.trump", { suit: suit ? suitName(suit) : String(v.strain) });
}

/** F: the suit led. */
export function readLed(v) {
  const first = v?.trick?.[0];
  if (!first) return t("words.no_lead");
  return cap(t("words.led", { suit: suitName(first[1][1]) }));
}

/** S: whose turn. */
export function readTurn(v, names, mine) {
  if (!v || v.turn === null || v.turn === undefined) return v?.phase === "over" ? t("words.match_over") : t("words.nobody_to_act");
  const bidding = v.phase === "bidding";
  if (mine) return bidding ? t("words.your_turn_bid") : t("words.your_turn_play");
  return cap(bidding ? t("words.turn_bid", { name: names(v.turn) }) : t("words.turn_play", { name: names(v.turn) }));
}

export function cap(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** ?: the keys, in the order they are said: a letter key by its place (``code``, named
 * as the player's layout shows it), the others by their name (keys.name.*). Each says
 * what it does (keys.help.*). */
export const HOT_KEYS = Object.freeze([
  { id: "left_right" },
  { id: "up_down" },
  { id: "enter" },
  { id: "space" },
  { id: "cards", code: "KeyC", letter: "C" },
  { id: "trump", code: "KeyA", letter: "A" },
  { id: "led", code: "KeyF", letter: "F" },
  { id: "turn", code: "KeyS", letter: "S" },
  { id: "last", code: "KeyL", letter: "L" },
  { id: "help", sign: "?" },
]);

function keyName(k, names) {
  if (k.code) return names[k.code] ?? k.letter;
  return k.sign ?? t(`keys.name.${k.id}`);
}

/** The keys, each letter key by its name on the player's layout (keys.js keyNames:
 * {KeyC: "С", ...}; the US letter where none is given). */
export function readKeys(names = {}) {
  const list = HOT_KEYS.map((k) => t("keys.item", { key: keyName(k, names), what: t(`keys.help.${k.id}`) }));
  return t("keys.list", { list: list.join(t("keys.separator")) });
}
