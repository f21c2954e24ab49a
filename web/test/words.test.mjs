// The game's words (web/js/words.js, cards.js): cards on their faces and said aloud,
// melds, bids and the hot keys' answers, in English (the tests' language) and, for a
// few, in Russian as the seeds say them (docs/glossary.md): the catalogue's keys, asked
// at each call, so a change of language changes every answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLanguage, t } from "../js/i18n.js";
import { cardLabel, strainLabel } from "../js/cards.js";
import { andList, bidLabel, cardName, claimLabel, contractWords, meldLabel, readLastTrick, readLed, readTable, readTrump, readTurn } from "../js/words.js";

const names = (seat) => ["you", "bot 1 (easy)", "ann", "bot 3 (hard)"][seat];
const view = {
  phase: "play",
  strain: "hearts",
  turn: 3,
  trick: [[1, "AS"], [2, "KS"]],
  tricks: [{ cards: ["7C", "8C", "9C", "TC"], leader: 3, winner: 2, points: 10 }],
  hand_sizes: [5, 5, 5, 5],
};

test("in English: cards, melds and bids as the table has always said them", () => {
  assert.equal(cardLabel("TS"), "10♠");
  assert.equal(cardLabel("JH"), "J♥");
  assert.equal(cardName("JH"), "the jack of hearts");
  assert.equal(cardName("TS"), "the 10 of spades");
  assert.equal(claimLabel({ kind: "sequence", length: 3, rank: "K", trump: false }), "tierce to the king");
  assert.equal(claimLabel({ kind: "sequence", length: 5, rank: "A", trump: true }), "quinte to the ace in trumps");
  assert.equal(claimLabel({ kind: "four", rank: "J", trump: false }), "carré of jacks");
  assert.equal(meldLabel({ kind: "sequence", cards: ["KH", "QH", "JH"] }), "tierce K♥ Q♥ J♥");
  assert.equal(bidLabel(null), "Pass");
  assert.equal(bidLabel("hearts"), "♥ Hearts");
  assert.equal(bidLabel("all_trumps"), "All trumps");
  assert.equal(strainLabel("hearts"), "♥ hearts");
  assert.equal(contractWords("misere"), "misère");
  assert.equal(andList(["a", "b"]), "a and b");
});

test("in English: the hot keys' answers", () => {
  assert.equal(readTable(view, names), "On the table: bot 1 (easy) led the ace of spades and ann played the king of spades.");
  assert.equal(readLastTrick(view, names), "The last trick: bot 3 (hard) the 7 of clubs, you the 8 of clubs, bot 1 (easy) the 9 of clubs, and ann the 10 of clubs; ann took it (10 points).");
  assert.equal(readTrump(view), "Trump: hearts.");
  assert.equal(readLed(view), "Spades led.");
  assert.equal(readTurn(view, names, false), "Bot 3 (hard) to play.");
  assert.equal(readTurn({ ...view, phase: "bidding" }, names, true), "Your turn to bid.");
  assert.equal(readTrump({ phase: "bidding", turned: "JH" }), "No contract yet: the turned card is the jack of hearts.");
});

test("in Russian: the seeds' letters, melds and counted words", () => {
  setLanguage("ru");
  try {
    assert.equal(cardLabel("JH"), "В♥");
    assert.equal(cardLabel("AS"), "Т♠");
    assert.equal(cardLabel("TD"), "10♦");
    assert.equal(cardName("JH"), "валет червей");
    assert.equal(cardName("QD"), "дама бубён");
    assert.equal(meldLabel({ kind: "sequence", cards: ["KH", "QH", "JH"] }), "терц К♥ Д♥ В♥");
    assert.equal(claimLabel({ kind: "sequence", length: 4, rank: "A", trump: false }), "берц от туза");
    assert.equal(claimLabel({ kind: "four", rank: "J", trump: false }), "каре валетов");
    assert.equal(bidLabel(null), "Пас");
    assert.equal(bidLabel("all_trumps"), "Все козыри");
    assert.equal(contractWords("misere"), "распасы");
    assert.equal(readTrump({ phase: "bidding", turned: "JH" }), "Игра ещё не заказана, вскрышка — валет червей.");
    assert.equal(readLed(view), "Ведущая масть — пики.");
    assert.equal(andList(["а", "б", "в"]), "а, б и в");
    // One form a number: 1 очко, 2 очка, 5 очков; 21 очко.
    const trick = (points) => readLastTrick({ ...view, tricks: [{ ...view.tricks[0], points }] }, names);
    assert.match(trick(1), /, 1 очко\.$/);
    assert.match(trick(2), /, 2 очка\.$/);
    assert.match(trick(5), /, 5 очков\.$/);
    assert.match(trick(21), /, 21 очко\.$/);
    assert.equal(t("words.long_sequence", { count: 6 }), "квинта из 6 карт");
  } finally {
    setLanguage("en");
  }
  assert.equal(cardLabel("JH"), "J♥", "back in English");
});
