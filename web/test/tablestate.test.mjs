// web/js/tablestate.js: the table page's state and its reconciliation rules. A view older
// than the one held is not taken (a reply or a pushed "view"), a reply without a view keeps the
// last one, a view of a version this seat moved at offers no moves (a reply that left
// before the move landed), the match's events are taken once and in order, what an event
// asks the page to play, the log's lines once, a seat's player back.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../node/importmap.mjs";

const { applyEvent, applyReply, applyTableState, applyView, heldTrick, isMyTurn, newTableState, noteLog, noteMove } = await import("../js/tablestate.js");

const seats = [0, 1, 2, 3].map((seat) => ({ seat, kind: "human", player: `p${seat}` }));
const reply = (over = {}) => ({ seat: 0, status: "playing", table: { match_id: "m-1", seats }, ...over });
const view = (over = {}) => ({ turn: 0, phase: "playing", deal_number: 0, legal: [{ type: "PlayCard", card: "7S" }], trick: [], tricks: [], ...over });
const event = (version, type, payload = {}, stream = "match-m-1") => ({ type: "event", stream, version, event: type, payload });

test("an older view is not taken, a reply without one keeps the last", () => {
  const s = newTableState("t-1", false);
  applyReply(s, reply({ match_version: 5, view: view(), deadline_ms: 100 }));
  assert.equal(s.matchId, "m-1");
  assert.equal(s.version, 5);
  assert.equal(isMyTurn(s), true);
  // A pushed view older than the view held: not taken.
  assert.equal(applyView(s, reply({ type: "view", match_version: 4, view: view({ turn: 1 }), deadline_ms: 200 })).taken, false);
  assert.equal(s.view.turn, 0);
  assert.equal(s.deadline, 100);
  // A reply older than the view held: its table is taken, its view is not.
  applyReply(s, reply({ status: "playing", match_version: 3, view: view({ turn: 2 }), deadline_ms: 300 }));
  assert.equal(s.view.turn, 0);
  assert.equal(s.version, 5);
  // A table changing owner answers without a view: the last one stays.
  applyReply(s, reply({ match_version: 6 }));
  assert.equal(s.view.turn, 0);
  assert.equal(s.version, 5);
  // A pushed view of the version held is taken: it brings the moves of that version.
  assert.equal(applyView(s, reply({ type: "view", match_version: 5, view: view({ turn: 0, legal: [{ type: "PlayCard", card: "8S" }] }), deadline_ms: 400 })).taken, true);
  assert.equal(s.view.legal[0].card, "8S");
  assert.equal(s.deadline, 400);
});

test("a view of a version this seat moved at is spent; a newer one is not", () => {
  const s = newTableState("t-1", false);
  applyReply(s, reply({ match_version: 7, view: view() }));
  noteMove(s, 7);
  assert.equal(s.actedVersion, 7);
  assert.deepEqual(s.view.legal, []);
  assert.equal(s.view.turn, null);
  assert.equal(isMyTurn(s), false);
  // A reply that left before the move landed offers the same moves again: spent.
  applyReply(s, reply({ match_version: 7, view: view() }));
  assert.deepEqual(s.view.legal, []);
  assert.equal(s.view.turn, 0);
  // Our next turn, pushed while the answer was on its way, is not touched by the answer.
  const t = newTableState("t-1", false);
  applyReply(t, reply({ match_version: 7, view: view() }));
  applyView(t, reply({ type: "view", match_version: 9, view: view(), deadline_ms: 1 }));
  noteMove(t, 7);
  assert.equal(t.view.legal.length, 1);
  assert.equal(isMyTurn(t), true);
  applyView(t, reply({ type: "view", match_version: 9, view: view(), deadline_ms: 1 }));
  assert.equal(t.view.legal.length, 1);
});

test("the match's events once and in order; what they ask the page to play", () => {
  const s = newTableState("t-1", false);
  applyReply(s, reply({ match_version: 3, view: view({ phase: "bidding" }) }));
  // Events replayed on opening the page (at or below the view's version): no sound, no
  // trick held.
  assert.deepEqual(applyEvent(s, event(1, "DealStarted", { deal_number: 0 })), []);
  assert.deepEqual(applyEvent(s, event(3, "CardPlayed", { seat: 0, card: "7S" })), []);
  assert.deepEqual(applyEvent(s, event(2, "Passed", { seat: 1 })), []);
  assert.deepEqual(s.matchEvents.map((e) => e.version), [1, 2, 3]);
  // A reconnection replays them: each is taken once.
  applyEvent(s, event(2, "Passed", { seat: 1 }));
  assert.equal(s.matchEvents.length, 3);
  // Live: a card is heard, a trick taken is held from its leader round the table.
  s.showLast = true;
  assert.deepEqual(applyEvent(s, event(4, "CardPlayed", { seat: 1, card: "8S" })), ["card"]);
  assert.equal(s.showLast, false);
  applyEvent(s, event(5, "CardPlayed", { seat: 2, card: "9S" }));
  applyEvent(s, event(6, "CardPlayed", { seat: 3, card: "TS" }));
  assert.deepEqual(applyEvent(s, event(7, "TrickTaken", { seat: 3, points: 10, cards: ["7S", "8S", "9S", "TS"] })), ["trick"]);
  assert.deepEqual(s.held.cards, [[0, "7S"], [1, "8S"], [2, "9S"], [3, "TS"]]);
  assert.equal(s.held.winner, 3);
  assert.deepEqual(s.trickSoFar, []);
  s.view = view({ tricks: [{}] });
  assert.equal(heldTrick(s, false), s.held);
  // The match's end: heard the first time only; the table's streams are no match's.
  assert.deepEqual(applyEvent(s, event(8, "MatchEnded", { winner: 0, scores: [151, 10] })), ["end"]);
  assert.equal(s.ending.type, "MatchEnded");
  assert.deepEqual(applyEvent(s, event(8, "MatchEnded", { winner: 0, scores: [151, 10] })), []);
  const before = s.matchEvents.length;
  assert.deepEqual(applyEvent(s, event(9, "SeatLeft", { seat: 1 }, "table-t-1")), []);
  assert.equal(s.matchEvents.length, before);
});

test("the log's lines once, the latest 80; a seat's player back after a disconnection", () => {
  const s = newTableState("t-1", false);
  for (let v = 0; v < 100; v += 1) noteLog(s, `line ${v}`, event(v, "CardPlayed"));
  noteLog(s, "again", event(99, "CardPlayed"));
  assert.equal(s.log.length, 80);
  assert.equal(s.log.at(-1).text, "line 99");
  assert.equal(s.log[0].text, "line 20");
  const line = (connected) => ({ seat: 1, human: true, connected, missed: 0, autoplay: false });
  assert.equal(applyReply(s, reply({ presence: [line(false)] })), false);
  assert.equal(applyTableState(s, { type: "state", deadline_ms: 5, presence: [line(true)] }), true);
  assert.ok(s.backUntil.get(1) > performance.now());
  assert.equal(s.deadline, 5);
  assert.equal(applyTableState(s, { type: "state", deadline_ms: 6 }), false);
  assert.equal(s.presence[0].connected, true);
});
