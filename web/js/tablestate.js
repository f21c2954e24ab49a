// The table page's state: one object a page (newTableState), what the table is as this
// tab knows it: the last GET /v1/tables/{id} reply, the seat's view and its match
// version, the deadline, the match's events (the score sheet's) and the trick being
// played, the trick just taken held on the felt, each seat's presence, the log's lines,
// the connection, and what the player opened or chose on the page.
//
// It changes only through the functions here, each named for what happened: a GET reply
// applied (applyReply), a WebSocket message (applyView, applyTableState, applyEvent), a
// move made (noteMove), a line for the log (noteLog), the player's own choices (the last
// trick, the fair deal's panel, belote, the sound). The views draw from it and change
// nothing; the page (table.js) calls these and draws. What an update means for the page
// beyond the state (a sound, a redraw later) it returns; it plays nothing itself.
//
// The view is reconciled by the match version: a reply or a pushed view older than the view
// held is not taken, and a view of a version this tab already moved at offers no moves
// (spent): a reply that left before our move landed must not offer it again.

import { ENDINGS } from "./keepbase.js";
import { scoreSheet } from "./sheet.js";

/** A trick just taken stays on the felt this long, its winner named (seed 002: every
 * player may look at the last trick; the fourth card must not vanish at once). */
export const HOLD_TRICK_MS = 1200;
/** A hot key's answer stays on the felt this long (it is also spoken). */
export const SAID_MS = 4000;
/** A seat whose player came back says "back" this long. */
export const BACK_MS = 8000;
/** The table's log keeps this many lines, the latest. */
const LOG_LINES = 80;

/**
 * @typedef {object} TableState
 * @property {string} tableId
 * @property {any} reply the last GET /v1/tables/{id}
 * @property {any} ending {type, ...payload} of the match's ending event
 * @property {any} view the seat's view (the gateway's), its moves spent once moved on
 * @property {number} version the view's match version
 * @property {number} actedVersion the match version we last moved at: its moves are spent
 * @property {number | null} deadline the turn's deadline (the table service's clock, ms)
 * @property {string | null} matchId
 * @property {{key: string, text: string, kind: string}[]} log the table's log, oldest first
 * @property {string | null} connection the connection's state as api.js Live says it (null: connecting)
 * @property {{type: string, payload: any, version: number}[]} matchEvents the match stream's events, in order: the score sheet
 * @property {Set<number>} matchVersions the versions of matchEvents (a reconnection replays them)
 * @property {[number, string][]} trickSoFar [seat, card] of the trick being played, from the events
 * @property {any} held the trick just taken, held on the felt ({cards, winner, points, deal, index, until})
 * @property {number | undefined} dealNo the deal the events are in
 * @property {number} tricksTaken the tricks taken in that deal, from the events
 * @property {boolean} showLast the last trick shown on request (L) until the next card
 * @property {{text: string, until: number} | null} said a word shown on the felt a moment
 * @property {any[]} presence each seat's line: {seat, human, connected, missed, autoplay}
 * @property {Map<number, number>} backUntil seat -> until when it says "back" (performance.now())
 * @property {{failed: any[]}} liveCheck fairdeal.js checkLive's result: what already failed
 * @property {boolean} checking the in-tab check is running
 * @property {boolean} busy a move is on its way
 * @property {boolean} fairOpen the fair deal's panel, opened from the seal
 * @property {boolean} announceBelote a card with belote announces it (the box beside the bids)
 * @property {boolean} muted the table's sounds
 */

/** @returns {TableState} */
export function newTableState(tableId, muted) {
  return {
    tableId,
    reply: null,
    ending: null,
    view: null,
    version: -1,
    actedVersion: -1,
    deadline: null,
    matchId: null,
    log: [],
    connection: null,
    matchEvents: [],
    matchVersions: new Set(),
    trickSoFar: [],
    held: null,
    dealNo: undefined,
    tricksTaken: 0,
    showLast: false,
    said: null,
    presence: [],
    backUntil: new Map(),
    liveCheck: { failed: [] },
    checking: false,
    busy: false,
    fairOpen: false,
    announceBelote: true,
    muted,
  };
}

// ------------------------------------------------------------------ reading

/** The seat this page plays, or null for a spectator. */
export function seatOf(s) {
  return s.reply?.seat ?? null;
}

/** The table's number of seats (four until the reply says). */
export function playersOf(s) {
  return s.reply?.table?.seats?.length ?? 4;
}

/** It is this seat's turn and the view offers it moves. */
export function isMyTurn(s) {
  const v = s.view;
  const seat = seatOf(s);
  return !!v && seat !== null && v.turn === seat && (v.legal ?? []).length > 0;
}

/** When a "play now" table's bots' seats stop being open to players (its match starts
 * then), while the table waits; else null. */
export function openUntil(s) {
  const r = s.reply;
  return r?.status === "open" && r.table.seats.some((x) => x.open) ? r.table.open_until_ms ?? null : null;
}

/** What the clock beside the status counts down to: the open seats' end while a "play
 * now" table waits, else the turn's deadline while the match is on. */
export function clockUntil(s) {
  const r = s.reply;
  if (!r || s.ending || r.status === "finished" || r.status === "closed") return null;
  return openUntil(s) ?? s.deadline ?? null;
}

/** The trick just taken, held on the felt for a moment (HOLD_TRICK_MS) with its
 * winner named, unless it is this seat's turn to follow a trick already led. */
export function heldTrick(s, myTurn) {
  const v = s.view;
  const held = s.held;
  if (!held || performance.now() >= held.until || !v) return null;
  if (myTurn && (v.trick ?? []).length) return null;
  // The view has moved past it (another deal, or a later trick taken).
  if (v.deal_number !== held.deal || (v.tricks?.length ?? 0) > held.index + 1) return null;
  return held;
}

/** The word shown on the felt now, "" once its moment is over. */
export function saidNow(s) {
  return s.said && performance.now() < s.said.until ? s.said.text : "";
}

/** Whether a seat's announcement is its second in the deal ("rebelote"), not its first
 * ("belote"). */
export function isRebelote(s, m) {
  let n = 0;
  for (const e of s.matchEvents) {
    if (e.type === "DealStarted") n = 0;
    else if (e.type === "BeloteAnnounced" && e.payload.seat === m.payload.seat && e.version < m.version) n += 1;
  }
  return n % 2 === 1;
}

/** The score sheet's rows (sheet.js) from the match's events, under the table's
 * ruleset in ``rulesets`` (none while the rulesets are not known). */
export function sheetRows(s, rulesets) {
  const rules = rulesets?.[s.reply?.table?.ruleset];
  if (!rules?.scoring) return [];
  return scoreSheet(s.matchEvents, rules).rows;
}

// ------------------------------------------------------------------ the server

/** A view whose moves we already made one of (a reply that left before ours landed)
 * offers none. */
function spent(s, view, version) {
  return view && version <= s.actedVersion ? { ...view, legal: [] } : view;
}

/** Each seat's presence, as the table's owner says it; a seat whose player came back
 * (connected again after a disconnection) says "back" a moment. Returns whether one
 * came back (the page redraws when the moment is over). */
function setPresence(s, lines) {
  const before = new Map(s.presence.map((p) => [p.seat, p]));
  let back = false;
  for (const p of lines) {
    if (p.human && p.connected === true && before.get(p.seat)?.connected === false) {
      s.backUntil.set(p.seat, performance.now() + BACK_MS);
      back = true;
    }
  }
  s.presence = lines;
  return back;
}

/** A GET /v1/tables/{id} reply (and a pushed view's, applyView). A view with no moves
 * must not hide the ones a newer view brought; and a table changing owner is answered without a view: the
 * last one is kept. Returns whether a seat's player came back (setPresence). */
export function applyReply(s, reply) {
  s.reply = reply;
  s.matchId = reply.table.match_id;
  if (reply.ending && !s.ending) s.ending = reply.ending;
  const back = reply.presence ? setPresence(s, reply.presence) : false;
  if (!(reply.match_version < s.version) && reply.view) {
    s.view = spent(s, reply.view, reply.match_version);
    s.version = reply.match_version ?? s.version;
    s.deadline = reply.deadline_ms;
  }
  return back;
}

/** A "view" message: the table as its owner pushed it after an append, the same reply
 * as the GET's (the seat's own view, or a spectator's). Returns whether its view was
 * taken (one older than the view held is not) and whether a seat's player came back. */
export function applyView(s, m) {
  const taken = !!m.view && !(m.match_version < s.version);
  const back = applyReply(s, m);
  return { taken, back };
}

/** A "state" message: the deadline, and the seats' presence when it says it. Returns
 * whether a seat's player came back (setPresence). */
export function applyTableState(s, m) {
  s.deadline = m.deadline_ms;
  return m.presence ? setPresence(s, m.presence) : false;
}

/** An "event" message of the table's streams: the match's ending, and the match's
 * events, each once (a reconnection replays them): the score sheet's, the trick being
 * played, and the trick just taken, held on the felt a moment when it comes live.
 * Returns what the page plays, in order: "end" (the match has just ended), "card" (a
 * card played live), "trick" (a trick taken live: held on the felt for HOLD_TRICK_MS). */
export function applyEvent(s, m) {
  const heard = [];
  if (ENDINGS.includes(m.event) && m.stream.startsWith("match-")) {
    if (!s.ending) heard.push("end");
    s.ending = { type: m.event, ...m.payload };
  }
  if (!m.stream.startsWith("match-") || s.matchVersions.has(m.version)) return heard;
  s.matchVersions.add(m.version);
  const e = { type: m.event, payload: m.payload ?? {}, version: m.version };
  const at = s.matchEvents.findIndex((x) => x.version > m.version);
  if (at < 0) s.matchEvents.push(e);
  else s.matchEvents.splice(at, 0, e);
  const p = e.payload;
  if (e.type === "DealStarted") {
    s.trickSoFar = [];
    s.held = null;
    s.dealNo = p.deal_number;
    s.tricksTaken = 0;
  } else if (e.type === "CardPlayed") {
    s.trickSoFar.push([p.seat, p.card]);
    if (m.version > s.version) heard.push("card");
    s.showLast = false; // the last trick may be looked at until the next card
  } else if (e.type === "TrickTaken") {
    const leader = s.trickSoFar[0]?.[0];
    s.trickSoFar = [];
    const index = s.tricksTaken;
    s.tricksTaken = index + 1;
    s.held = null;
    // Only a trick taken now, not one the log replays on opening the page; its cards
    // (in play order) from the leader round the table.
    if (leader !== undefined && m.version > s.version) {
      const cards = p.cards.map((c, i) => [(leader + i) % playersOf(s), c]);
      s.held = { cards, winner: p.seat, points: p.points, deal: s.dealNo, index, until: performance.now() + HOLD_TRICK_MS };
      heard.push("trick");
    }
  }
  return heard;
}

/** A line of the table's log for the message ``m``, once (a reconnection replays the
 * events); the latest LOG_LINES are kept. */
export function noteLog(s, text, m) {
  const key = `${m.stream}:${m.version}`;
  if (s.log.some((l) => l.key === key)) return;
  s.log.push({ key, text, kind: m.event });
  if (s.log.length > LOG_LINES) s.log.shift();
}

/** The connection's state (api.js Live). */
export function noteConnection(s, state) {
  s.connection = state;
}

// ------------------------------------------------------------------ this seat's moves

/** A move is on its way (true) or answered (false). */
export function noteBusy(s, busy) {
  s.busy = busy;
}

/** The move made on the view of ``version`` was taken: that version's moves are spent.
 * The view we moved on offers none; a newer one (our next turn, pushed while the answer
 * was on its way) is not touched. */
export function noteMove(s, version) {
  s.actedVersion = Math.max(s.actedVersion, version);
  if (s.view && s.version === version) s.view = { ...s.view, legal: [], turn: null };
}

// ------------------------------------------------------------------ the fair deal

/** What can already be known to have failed (fairdeal.js checkLive's result). Returns
 * whether the number of failures changed. */
export function noteLiveCheck(s, result) {
  const before = s.liveCheck.failed.length;
  s.liveCheck = result;
  return s.liveCheck.failed.length !== before;
}

/** The in-tab check runs (true) or is done (false). */
export function noteChecking(s, running) {
  s.checking = running;
}

// ------------------------------------------------------------------ the player's choices

/** Show the last trick, or stop showing it (there must be one). Returns whether it is
 * shown. */
export function toggleLast(s) {
  s.showLast = !s.showLast && !!s.view?.tricks?.length;
  return s.showLast;
}

/** Open or close the fair deal's panel. Returns whether it is open. */
export function toggleFair(s) {
  s.fairOpen = !s.fairOpen;
  return s.fairOpen;
}

/** Whether a card with belote announces it. */
export function chooseBelote(s, announce) {
  s.announceBelote = announce;
}

/** The table's sounds muted or not. */
export function chooseMuted(s, muted) {
  s.muted = muted;
}

/** A word shown on the felt for SAID_MS: a hot key's answer, the clock's. */
export function noteSaid(s, text) {
  s.said = { text, until: performance.now() + SAID_MS };
}
