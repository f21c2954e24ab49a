// A table: sit, play (bids, legal cards from the server's legal moves, belote, melds,
// gambler's swap and redeal), watch the score and the turn timer, and the fair deal.
//
// The client as a store and views: this module is the page's controller. It holds the
// page's state (tablestate.js), which only that module's named updates change, and wires
// to it what comes in: the GET reply (refresh), each WebSocket message (the table's, then
// the chat's), the answer to a move. It draws the page from the state with the views
// (tablefelt.js the felt, with tablestatus.js and tablehand.js; tableside.js the sheet
// and the log; dealpanel.js the fair deal's panel) and owns what lives with the page: its
// timers, the fair deal (tablefair.js: the seed, the kept record, drand, the log's pin,
// the check), the hot keys (tablekeys.js) and the chat (chat.js).
//
// The board is drawn from the seat's view, which the gateway sends on our turn and which
// we ask again (at most a few times a second) after the table's events; the events also
// feed the keeper and the table's log.

import { Live } from "./api.js";
import { ChatPanel, useStylesheet } from "./chat.js";
import { fairDealPanel, sealState, statusOf } from "./dealpanel.js";
import { deckSwitch } from "./deckstyle.js";
import { t } from "./i18n.js";
import { inviteBox } from "./invite.js";
import { capture, play } from "./motion.js";
import { patch, patchAttributes } from "./patch.js";
import { presenceText, timeoutLine } from "./presence.js";
import { newSeatKey, signLeave } from "./seatkey.js";
import { play as sound } from "./sound.js";
import { TableFair } from "./tablefair.js";
import { TableFrame, tableElement } from "./tableframe.js";
import { feltScene } from "./tablefelt.js";
import { TableKeys } from "./tablekeys.js";
import { describe } from "./tablelog.js";
import { seatName, wordsOf } from "./tablenames.js";
import { logPanel, sheetPanel } from "./tableside.js";
import { applyEvent, applyReply, applyTableState, applyView, BACK_MS, chooseBelote, chooseMuted, clockUntil, HOLD_TRICK_MS, isMyTurn, newTableState, noteBusy, noteConnection, noteLog, noteMove, noteSaid, SAID_MS, seatOf, toggleFair, toggleLast } from "./tablestate.js";
import { timerText } from "./tablestatus.js";
import { h, readyDeck, replace, say, sayError, speak } from "./ui.js";
import { readLastTrick, readTurn } from "./words.js";

/** The table is asked again at most this often after the table's events. */
const REFRESH_DEBOUNCE_MS = 200;

export function renderTable(root, ctx, tableId) {
  const page = new TablePage(root, ctx, tableId);
  page.start();
  return () => page.stop();
}

class TablePage {
  constructor(root, ctx, tableId) {
    this.root = root;
    this.ctx = ctx;
    this.state = newTableState(tableId, ctx.store.soundMuted?.(ctx.session?.player ?? "") ?? false);
    this.live = null;
    this.wasLive = false; // the socket has been live once: a later "live" is a return
    this.stopped = false;
    this.refreshTimer = null;
    this.refreshing = false;
    this.refreshAgain = false;
    this.ticker = null;
    this.renderQueued = false;
    this.dirty = false; // something changed since the last drawing
    this.wasMyTurn = false;
    this.deck = null; // the deck's colours' switch, made at its first drawing and kept
    this.invite = null; // the invitation, made at its first drawing and kept
    this.timers = {}; // the redraws waiting for a moment on the felt to end (redrawAfter)
    this.frame = new TableFrame(root); // the page's frame, built on the first drawing (tableframe.js)
    // What the fair deal's panel (dealpanel.js) reads and keeps across redraws.
    this.fairHost = { seatName: (seat) => seatName(this.state, seat), recheck: () => this.fair.recheck(), techOpen: false };
    useStylesheet();
    // The fair deal (tablefair.js): the kept record, our seed, drand, the log, the check.
    this.fair = new TableFair(this.state, ctx, () => this.queueRender());
    // The hot keys (tablekeys.js).
    this.keys = new TableKeys(root, this.state, { answer: (text) => this.answer(text), toggleLast: () => this.toggleLast(), changed: () => this.queueRender() });
    // The table's chat and the rematch offer (chat.js): it reads the state and the kept record.
    this.chat = new ChatPanel(this.state, ctx, () => this.fair.kept());
    /** What the views' buttons do, and the elements kept across drawings (tablefelt.js
     * TablePageHooks). */
    this.hooks = {
      act: (verb, body, doing) => this.act(verb, body, doing),
      sit: (seat) => this.sit(seat),
      leave: () => this.leave(),
      resume: () => this.resume(),
      toggleLast: () => this.toggleLast(),
      toggleFair: () => this.toggleFair(),
      keysHelp: () => this.answer(this.keys.help()),
      mute: (muted) => this.mute(muted),
      chooseBelote: (announce) => chooseBelote(this.state, announce),
      deckSwitch: () => (this.deck ??= deckSwitch()),
      inviteBox: () => (this.invite ??= inviteBox(this.state.tableId)),
    };
  }

  // ------------------------------------------------------------------ life

  async start() {
    readyDeck();
    replace(this.root, h("div", { id: "table", class: "table-page" }, h("p", {}, t("table.opening"))));
    try {
      await this.refresh();
    } catch (e) {
      sayError(e, t("table.doing.open"));
      replace(this.root, h("p", {}, `${t("table.cannot_show")} `, h("a", { href: "#/" }, t("table.back_to_lobby"))));
      return;
    }
    if (this.stopped) return;
    this.live = new Live(this.ctx.session.token, this.state.tableId, (m) => this.onMessage(m), (s, kind) => {
      noteConnection(this.state, s);
      // Back after the socket was away: what was pushed meanwhile is lost; ask once.
      if (kind === "live" && this.wasLive) this.scheduleRefresh();
      if (kind === "live") this.wasLive = true;
      this.queueRender();
    });
    this.ticker = setInterval(() => this.tick(), 250);
    this.keys.start();
    this.fair.open();
  }

  stop() {
    this.chat.stop();
    this.stopped = true;
    this.live?.close();
    clearInterval(this.ticker);
    clearTimeout(this.refreshTimer);
    this.fair.stop();
    for (const timer of Object.values(this.timers)) clearTimeout(timer);
    this.keys.stop();
    this.frame.stop();
  }

  // ------------------------------------------------------------------ the server

  async refresh() {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      const reply = await this.ctx.gateway.table(this.state.tableId);
      if (applyReply(this.state, reply)) this.redrawAfter("back", BACK_MS);
      this.queueRender();
    } finally {
      this.refreshing = false;
      if (this.refreshAgain && !this.stopped) {
        this.refreshAgain = false;
        this.scheduleRefresh();
      }
    }
  }

  scheduleRefresh() {
    if (this.refreshTimer || this.stopped) return;
    this.refreshTimer = setTimeout(async () => {
      this.refreshTimer = null;
      try {
        await this.refresh();
      } catch (e) {
        if (e.code !== "rate_limited") sayError(e, t("table.doing.update"));
      }
    }, REFRESH_DEBOUNCE_MS);
  }

  /** A message of the page's WebSocket: the table's, then the chat's. */
  onMessage(m) {
    this.onTableMessage(m);
    this.chat.take(m);
  }

  /** The table's message: an event (kept and drawn), the table as its owner pushed it
   * after an append (drawn at once: the one producer of what the page shows; nothing is
   * asked again over HTTP), the table's public state (the deadline, the seats'
   * presence), a refusal said on the message line. */
  onTableMessage(m) {
    if (this.stopped) return;
    if (m.type === "event") {
      this.onEvent(m);
    } else if (m.type === "view") {
      const { taken, back } = applyView(this.state, m);
      if (back) this.redrawAfter("back", BACK_MS);
      if (taken) this.renderNow();
      else this.queueRender();
    } else if (m.type === "state") {
      if (applyTableState(this.state, m)) this.redrawAfter("back", BACK_MS);
      if (m.presence) this.queueRender();
    } else if (m.type === "error") {
      say(t("table.server_says", { message: m.message }), "error");
    }
  }

  /** An event of the table's streams, once the page knows the match: the fair deal keeps
   * it first, the state takes it (its sounds, a trick held), the log says it, the clock's
   * line with it, then what the kept record sets going. */
  onEvent(m) {
    if (!this.state.matchId) return;
    const kept = this.fair.keepEvent(m);
    const heard = applyEvent(this.state, m);
    for (const name of heard) sound(name, this.state.muted);
    if (heard.includes("trick")) this.redrawAfter("hold", HOLD_TRICK_MS);
    const line = describe(m, wordsOf(this.state, this.ctx.rulesets));
    if (line) noteLog(this.state, line, m);
    // The clock's moves and a bot taking a seat: in the log, and on the felt a moment.
    const clock = timeoutLine(m, seatName(this.state, m.payload?.seat));
    if (clock) {
      noteLog(this.state, clock, { ...m, version: `${m.version}.clock` });
      if (!m.replay) this.note(clock);
    }
    this.fair.follow(kept);
    this.queueRender();
  }

  /** A move (``verb`` and its body) sent once at a time; ``doing`` names it in a refusal.
   * Once taken, the view it was made on is spent (tablestate.js noteMove). */
  async act(verb, body, doing) {
    if (this.state.busy) return;
    noteBusy(this.state, true);
    const version = this.state.version;
    this.root.querySelector("#table")?.setAttribute("data-busy", "true");
    try {
      await this.ctx.gateway.move(this.state.tableId, verb, body);
      say(""); // an earlier refusal is answered by this move
      noteMove(this.state, version);
    } catch (e) {
      sayError(e, doing);
    } finally {
      noteBusy(this.state, false);
      this.queueRender();
    }
  }

  async sit(seat) {
    try {
      // Kept before the seat is asked for: a page closed in between still has it.
      const key = newSeatKey();
      this.ctx.store?.saveSeatKey(this.state.tableId, key);
      await this.ctx.gateway.join(this.state.tableId, seat, key.key);
      say(t("table.said.sat", { seat: seat + 1 }), "info");
      await this.refresh();
    } catch (e) {
      sayError(e, t("table.doing.sit", { seat: seat + 1 }));
    }
  }

  /** Take the seat back from the bot that plays it (presence.js resumeOffer). */
  async resume() {
    try {
      await this.ctx.gateway.move(this.state.tableId, "seat/resume", {});
      await this.refresh();
    } catch (e) {
      sayError(e, presenceText("presence.take_back"));
    }
  }

  async leave() {
    const started = this.state.reply && this.state.reply.status !== "open";
    if (started && !confirm(t("table.leave_confirm"))) return;
    try {
      if (started && this.state.matchId) this.fair.leaving();
      // The seat's own signed request (seatkey.js): the table takes no other.
      const key = started && this.state.matchId && seatOf(this.state) !== null ? this.ctx.store?.seatKey(this.state.tableId) : null;
      const body = key ? { signature: signLeave(key.secret, this.state.matchId, seatOf(this.state)) } : {};
      await this.ctx.gateway.move(this.state.tableId, "leave", body);
      // Said on the lobby's page (the next page clears the message line).
      this.ctx.flash = started ? t("table.said.left_forfeit") : t("table.said.left");
      location.hash = "#/";
    } catch (e) {
      sayError(e, t("table.doing.leave"));
    }
  }

  // ------------------------------------------------------------------ drawing

  /** Draw at the next frame (many changes, one drawing). */
  queueRender() {
    this.dirty = true;
    if (this.renderQueued || this.stopped) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      if (!this.stopped && this.dirty) this.render();
    });
  }

  /** Draw now: our turn's moves wait for no frame (a frame queued finds nothing to do). */
  renderNow() {
    if (!this.stopped) this.render();
  }

  /** The page's clock (every 250 ms): the turn's seconds, and what the fair deal can
   * know has failed once a time has passed. */
  tick() {
    const el = this.root.querySelector("#timer");
    if (el) el.textContent = timerText(clockUntil(this.state));
    // Some failures are known only once a time has passed (checkLive).
    if (this.fair.tick()) this.queueRender();
  }

  /** The page: the felt (the screen's largest share), and beside it (under it on a
   * phone) the fair deal's panel when opened, the score sheet, the log and the chat.
   *
   * A move must never wait for the page (the motion test holds a bot's move to our card
   * clickable under 100 ms p99), so a redraw changes as little of the page as it can: the
   * page's frame is built once and kept, and the felt and each panel beside it are drawn
   * whole from the state and patched in (patch.js): only what differs is changed, so the
   * hand a bot's card does not touch stays as it is, and the sheet, the log and the chat
   * keep their scroll. Nothing here reads the layout after a change but motion.js. */
  render() {
    this.draw();
    this.chat.place(this.root);
  }

  draw() {
    const s = this.state;
    const r = s.reply;
    if (!r) return;
    this.dirty = false;
    // Where things are before the redraw (motion.js), before any picture moves.
    const before = capture(this.root);
    const v = s.view;
    const kept = this.fair.kept();
    const myTurn = isMyTurn(s);
    const checkStatus = s.checking ? "running" : statusOf(kept?.check);
    const seal = sealState(kept, checkStatus, s.liveCheck.failed);
    // A failure opens the panel by itself: it is never behind a click.
    const open = s.fairOpen || seal === "fail";
    const d = { kept, myTurn, checkStatus, seal, open, rulesets: this.ctx.rulesets };
    const frame = this.frame.get();
    const focused = document.activeElement?.id;
    patchAttributes(frame.table, tableElement(s, d));
    frame.felt = patch(frame.felt, feltScene(s, d, this.hooks));
    frame.fair = patch(frame.fair, fairDealPanel(this.fairHost, kept, checkStatus, s.liveCheck.failed, open));
    frame.sheet = patch(frame.sheet, sheetPanel(s, this.ctx.rulesets));
    frame.log = patch(frame.log, logPanel(s));
    this.frame.holdMessage(frame.felt);
    // A focused element the patch replaced: its successor takes the focus.
    if (focused && !document.activeElement?.id) document.getElementById(focused)?.focus();
    play(this.root, before, { winner: s.held?.winner ?? null, taker: v?.taker ?? null });
    if (myTurn && !this.wasMyTurn) {
      speak(readTurn(v, (x) => seatName(s, x), true));
      sound("turn", s.muted);
    }
    this.wasMyTurn = myTurn;
  }

  // ------------------------------------------------------------------ the felt's moments

  /** A hot key's answer: spoken (the live region) and shown on the felt a moment. */
  answer(text) {
    speak(text, true);
    this.note(text);
  }

  /** A word shown on the felt a moment (SAID_MS): a hot key's answer, the clock's. */
  note(text) {
    noteSaid(this.state, text);
    const el = this.root.querySelector("#said");
    if (el) el.textContent = text;
    this.redrawAfter("said", SAID_MS);
  }

  /** Redraw once a moment shown on the felt (``ms``: a trick held, a word said, a seat
   * back) is over; the latest of each kind counts. */
  redrawAfter(kind, ms) {
    clearTimeout(this.timers[kind]);
    this.timers[kind] = setTimeout(() => this.queueRender(), ms + 20);
  }

  /** The last trick shown (and said) until the next card, or hidden again (L). */
  toggleLast() {
    const v = this.state.view;
    if (toggleLast(this.state)) this.answer(readLastTrick(v, (x) => seatName(this.state, x)));
    this.queueRender();
  }

  /** The fair deal's panel opened from its seal (scrolled into view) or closed. */
  toggleFair() {
    const open = toggleFair(this.state);
    this.queueRender();
    if (open) requestAnimationFrame(() => document.getElementById("fairdeal")?.scrollIntoView({ block: "nearest" }));
  }

  /** The sound's switch: kept per player on this browser. */
  mute(muted) {
    chooseMuted(this.state, muted);
    this.ctx.store.saveSoundMuted?.(this.ctx.session?.player ?? "", muted);
  }
}
