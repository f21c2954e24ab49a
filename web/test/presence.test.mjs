// web/js/presence.js: the seat's badge from its presence line, the offer to take one's
// seat back, and the log's lines for the clock's moves and for autoplay, in English and
// in Russian.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setLanguage } from "../js/i18n.js";
import { presenceText, resumeOffer, seatPresence, timeoutLine } from "../js/presence.js";

const line = (over) => ({ seat: 1, human: true, connected: true, missed: 0, autoplay: false, ...over });

test("a seat's badge: a bot playing it, then disconnected, then missed turns, else none", () => {
  setLanguage("en");
  assert.equal(seatPresence(line({})), null);
  assert.equal(seatPresence(null), null);
  assert.equal(seatPresence(line({ human: false, connected: null, autoplay: false })), null);
  assert.deepEqual(seatPresence(line({ connected: false })), { key: "presence.disconnected", values: {} });
  assert.deepEqual(seatPresence(line({ connected: false, missed: 2, autoplay: true })), { key: "presence.autoplay", values: {} });
  assert.deepEqual(seatPresence(line({ missed: 1 })), { key: "presence.missed", values: { count: 1 } });
  assert.equal(presenceText(seatPresence(line({ autoplay: true }))), "a bot is playing");
  assert.equal(presenceText(seatPresence(line({ connected: false }))), "disconnected");
  assert.equal(presenceText(seatPresence(line({ missed: 3 }))), "missed 3 turns");
  assert.equal(presenceText(null), "");
});

test("only the seat's own player, and only on autoplay, is offered the seat back", () => {
  setLanguage("en");
  const lines = [line({ seat: 0, autoplay: true }), line({ seat: 1 })];
  assert.deepEqual(resumeOffer(lines, 0), { key: "presence.you_autoplay", action: "presence.take_back" });
  assert.equal(resumeOffer(lines, 1), null);
  assert.equal(resumeOffer(lines, null), null);
  assert.equal(resumeOffer(undefined, 0), null);
  const offer = resumeOffer(lines, 0);
  assert.equal(presenceText(offer.action), "Take my seat back");
  assert.equal(presenceText(offer.key), "You were away: a bot is playing your seat.");
});

test("the log says what the clock did, and when a bot takes a seat and gives it back", () => {
  setLanguage("en");
  const ev = (event, acted_by, payload = {}) => ({ type: "event", event, acted_by, payload });
  assert.equal(timeoutLine(ev("CardPlayed", "timer", { seat: 1 }), "Bob"), "Time out: a card was played for Bob.");
  assert.equal(timeoutLine(ev("Passed", "timer"), "Bob"), "Time out: a bid was made for Bob.");
  assert.equal(timeoutLine(ev("ContractTaken", "timer"), "Bob"), "Time out: a bid was made for Bob.");
  assert.equal(timeoutLine(ev("MeldDeclared", "timer"), "Bob"), "Time out: a move was made for Bob.");
  // The rest of the timer's move, a player's own move, a bot's: no line.
  assert.equal(timeoutLine(ev("TrickTaken", "timer"), "Bob"), null);
  assert.equal(timeoutLine(ev("CardPlayed", "player"), "Bob"), null);
  assert.equal(timeoutLine(ev("CardPlayed", "autoplay"), "Bob"), null);
  assert.equal(timeoutLine(ev("CardPlayed", "bot"), "bot 1"), null);
  assert.equal(timeoutLine(null, "Bob"), null);
  assert.equal(
    timeoutLine(ev("SeatAutoplayStarted", null, { seat: 1, missed: 2 }), "Bob"),
    "Bob missed 2 turns in a row: a bot plays for them until they take the seat back.",
  );
  assert.equal(timeoutLine(ev("SeatAutoplayEnded", null, { seat: 1, by: "resume" }), "Bob"), "Bob is back and takes the seat back.");
  assert.equal(timeoutLine(ev("SeatAutoplayEnded", null, { seat: 1, by: "move" }), "Bob"), "Bob is back: their own move takes the seat back.");
});

test("in Russian, with the seeds' words and the plural forms", () => {
  setLanguage("ru");
  try {
    const ev = (event, acted_by, payload = {}) => ({ event, acted_by, payload });
    assert.equal(timeoutLine(ev("CardPlayed", "timer"), "Боб"), "Время вышло: за Боб сыграна карта.");
    assert.equal(presenceText(seatPresence(line({ connected: false }))), "отключился");
    assert.equal(presenceText(seatPresence(line({ missed: 5 }))), "пропустил 5 ходов");
    assert.equal(presenceText(seatPresence(line({ missed: 2 }))), "пропустил 2 хода");
    assert.match(timeoutLine(ev("SeatAutoplayStarted", null, { missed: 2 }), "Боб"), /^Боб пропускает 2 хода подряд/);
  } finally {
    setLanguage("en");
  }
});
