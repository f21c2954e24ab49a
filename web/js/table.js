// A table: sit, play (bids, legal cards from the server's legal moves, belote, melds,
// gambler's swap and redeal), watch the score and the turn timer, and the fair deal
// (tablefair.js: the seed, the kept record, drand, the log's pin, the check).
//
// The board is drawn from the seat's view, which the gateway sends on our turn and which
// we ask again (at most a few times a second) after the table's events; the events also
// feed the keeper and the table's log.

import { Live } from "./api.js";
import { ChatPanel, useStylesheet } from "./chat.js";
import { cardLabel, sortHand, strainLabel } from "./cards.js";
import { fairDealPanel, sealState, sealSwitch, statusOf } from "./dealpanel.js";
import { feltView } from "./felt.js";
import { inviteBox, tournamentLink } from "./invite.js";
import { capture, play } from "./motion.js";
import { presenceText, resumeOffer, seatPresence, timeoutLine } from "./presence.js";
import { newSeatKey, signLeave } from "./seatkey.js";
import { sheetTable } from "./sheet.js";
import { muteSwitch, play as sound } from "./sound.js";
import { TableFair } from "./tablefair.js";
import { TableKeys } from "./tablekeys.js";
import { describe, endText } from "./tablelog.js";
import { deckSwitch } from "./deckstyle.js";
import { cardFace, h, readyDeck, replace, say, sayError, speak } from "./ui.js";
import { patch, patchAttributes } from "./patch.js";
import { rulesetName, upFirst } from "./names.js";
import { applyEvent, applyReply, applyTableState, applyTurn, BACK_MS, chooseBelote, chooseMuted, clockUntil, heldTrick, HOLD_TRICK_MS, newTableState, noteBusy, noteConnection, noteLog, noteMove, noteSaid, openUntil, playersOf, saidNow, SAID_MS, seatOf, sheetRows, toggleFair, toggleLast } from "./tablestate.js";
import { scoreText, seatName, sideName, wordsOf } from "./tablenames.js";
import { t } from "./i18n.js";
import { andList, bidLabel, cardName, claimLabel, contractWords, meldLabel, readLastTrick, readTurn } from "./words.js";

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
    this.stopped = false;
    this.refreshTimer = null;
    this.refreshing = false;
    this.refreshAgain = false;
    this.ticker = null;
    this.renderQueued = false;
    this.wasMyTurn = false;
    this.timers = {}; // the redraws waiting for a moment on the felt to end (redrawAfter)
    // What the fair deal's panel (dealpanel.js) reads and keeps across redraws.
    this.fairHost = { seatName: (seat) => seatName(this.state, seat), recheck: () => this.fair.recheck(), techOpen: false };
    useStylesheet();
    // The fair deal (tablefair.js): the kept record, our seed, drand, the log, the check.
    this.fair = new TableFair(this.state, ctx, () => this.queueRender());
    // The hot keys (tablekeys.js).
    this.keys = new TableKeys(root, this.state, { answer: (text) => this.answer(text), toggleLast: () => this.toggleLast(), changed: () => this.queueRender() });
    // The table's chat and the rematch offer (chat.js): it reads the state and the kept record.
    this.chat = new ChatPanel(this.state, ctx, () => this.fair.kept());
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
    this.live = new Live(this.ctx.session.token, this.state.tableId, (m) => this.onMessage(m), (s) => {
      noteConnection(this.state, s);
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
    this.headerWatch?.disconnect();
    this.keys.stop();
    // The message line goes back above the page, for the next one.
    const message = this.message ?? document.getElementById("message");
    if (message) document.body.insertBefore(message, document.getElementById("page"));
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

  onTableMessage(m) {
    if (this.stopped) return;
    if (m.type === "event") {
      this.onEvent(m);
      this.scheduleRefresh();
    } else if (m.type === "turn") {
      if (applyTurn(this.state, m)) this.renderNow();
    } else if (m.type === "state") {
      if (applyTableState(this.state, m)) this.redrawAfter("back", BACK_MS);
      if (m.presence) this.queueRender();
      this.scheduleRefresh();
    } else if (m.type === "error") {
      say(t("table.server_says", { message: m.message }), "error");
    }
  }

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
      this.scheduleRefresh();
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
    const r = this.state.reply;
    if (!r) return;
    this.dirty = false;
    // Where things are before the redraw (motion.js), before any picture moves.
    const before = capture(this.root);
    const v = this.state.view;
    const kept = this.fair.kept();
    const myTurn = v && seatOf(this.state) !== null && v.turn === seatOf(this.state) && (v.legal ?? []).length > 0;
    const checkStatus = this.state.checking ? "running" : statusOf(kept?.check);
    const seal = sealState(kept, checkStatus, this.state.liveCheck.failed);
    // A failure opens the panel by itself: it is never behind a click.
    const open = this.state.fairOpen || seal === "fail";
    const frame = this.frame();
    const focused = document.activeElement?.id;
    const table = h("div", { id: "table", class: `table-page${myTurn ? " my-turn" : ""}`, dataset: { turn: myTurn ? "me" : v?.turn ?? "", seat: seatOf(this.state) ?? "", version: this.state.version, status: r.status, phase: v?.phase ?? "", check: checkStatus, seal, live: this.state.liveCheck.failed.length ? "fail" : "", held: heldTrick(this.state, myTurn) ? "true" : "", match: this.state.matchId ?? "", busy: this.state.busy ? "true" : "" } });
    patchAttributes(frame.table, table);
    frame.felt = patch(frame.felt, this.felt(v, myTurn, seal, open));
    frame.fair = patch(frame.fair, fairDealPanel(this.fairHost, kept, checkStatus, this.state.liveCheck.failed, open));
    frame.sheet = patch(frame.sheet, this.sheetPanel());
    frame.log = patch(frame.log, this.logPanel());
    // The page's message line moves onto the felt, beside the hand, in a slot of its own:
    // a refusal shows where the player looks, and moves nothing (it is put back when the
    // page closes).
    // (Held from the first drawing: a patch may take the slot out with it.)
    const message = (this.message ??= document.getElementById("message"));
    const slot = frame.felt.querySelector("#message-slot");
    if (message && slot && message.parentNode !== slot) slot.append(message);
    // A focused element the patch replaced: its successor takes the focus.
    if (focused && !document.activeElement?.id) document.getElementById(focused)?.focus();
    play(this.root, before, { winner: this.state.held?.winner ?? null, taker: v?.taker ?? null });
    if (myTurn && !this.wasMyTurn) {
      speak(readTurn(v, (s) => seatName(this.state, s), true));
      sound("turn", this.state.muted);
    }
    this.wasMyTurn = myTurn;
  }

  /** The page's frame, built on the first drawing and kept: the table (its data the
   * state tests and styles read), the felt's place, and beside it the panels' places and
   * the chat's slot. The felt fills the screen under the header, however high the header
   * is drawn: its height is followed by a ResizeObserver, never read in a redraw. */
  frame() {
    if (this.frameEls && this.root.contains(this.frameEls.table)) return this.frameEls;
    const f = { felt: h("div", { id: "felt" }), fair: h("div"), sheet: h("div"), log: h("div") };
    f.side = h("div", { class: "table-side", id: "side" }, f.fair, f.sheet, f.log, h("div", { id: "chat-slot", class: "chat-slot" }));
    f.table = h("div", { id: "table", class: "table-page" }, h("div", { class: "table-grid" }, f.felt, f.side));
    replace(this.root, f.table);
    const header = document.querySelector("header.top");
    if (header && !this.headerWatch) {
      this.headerWatch = new ResizeObserver(() => document.documentElement.style.setProperty("--top-h", `${header.offsetHeight}px`));
      this.headerWatch.observe(header);
    }
    this.frameEls = f;
    return f;
  }

  /** The felt's scene (felt.js) from the seat's view. */
  felt(v, myTurn, seal, open) {
    const r = this.state.reply;
    const legal = myTurn ? v.legal : [];
    return feltView({
      id: "felt",
      players: playersOf(this.state),
      bottom: seatOf(this.state) ?? 0,
      deal: v && v.phase !== "over" ? v.deal_number : "",
      bar: this.scoreBar(v, seal, open),
      info: this.feltInfo(v),
      corner: [this.lastTrickButton(v)],
      seats: r.table.seats.map((s) => this.seatScene(s, v)),
      trick: this.trickScene(v, myTurn),
      edge: [
        this.statusLine(v, myTurn),
        h("div", { class: "edge-row" }, h("div", { class: "message-slot", id: "message-slot", "data-own-children": true }), h("div", { class: "said", id: "said", "aria-hidden": "true" }, saidNow(this.state))),
        r.status === "open" && seatOf(this.state) !== null && r.table.seats.some((x) => (x.kind === "human" && !x.player) || x.open) ? this.inviteBox() : this.resumeRow() ?? this.actions(v, legal),
        this.hand(v, legal),
        this.links(),
      ],
    });
  }

  links() {
    const r = this.state.reply;
    return h(
      "div",
      { class: "table-links" },
      seatOf(this.state) !== null && r.status !== "closed" && r.status !== "finished" ? h("button", { type: "button", class: "link", id: "leave", onclick: () => this.leave() }, t("table.leave")) : null,
      this.state.matchId && (r.status === "finished" || r.status === "closed") ? h("a", { href: `#/replay/${encodeURIComponent(this.state.matchId)}`, id: "replay-link" }, t("table.replay_link")) : null,
      h("button", { type: "button", class: "link sheet-link", id: "sheet-link", onclick: () => document.getElementById("sheet")?.scrollIntoView() }, t("table.sheet_link")),
      h("button", { type: "button", class: "link", id: "keys-help", onclick: () => this.answer(this.keys.help()) }, t("table.keys")),
      (this.deckSwitch ??= deckSwitch()),
      h("span", { class: "dim connection" }, t("table.connection", { state: this.state.connection ?? t("table.connecting") })),
    );
  }

  /** The invitation (invite.js), one element kept across redraws: its "Copied" stays. */
  inviteBox() {
    this.invite ??= inviteBox(this.state.tableId);
    return this.invite;
  }

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

  scoreBar(v, seal, open) {
    const table = this.state.reply.table;
    const mySide = (seatOf(this.state) ?? 0) % 2;
    const scores = this.state.ending?.scores ?? v?.scores ?? [0, 0];
    const [ours, theirs] = playersOf(this.state) === 2 ? [sideName(this.state, mySide, true), sideName(this.state, 1 - mySide)] : seatOf(this.state) === null ? [t("table.side.ns"), t("table.side.ew")] : [upFirst(t("table.side.us")), t("table.side.them")];
    const bits = [
      tournamentLink(table),
      h("span", { class: "ruleset" }, `${rulesetName(table.ruleset)} · ${table.target}`),
      h("span", { class: "score", id: "score" }, h("b", {}, `${ours} `), String(scores[mySide]), " — ", String(scores[1 - mySide]), h("b", {}, ` ${theirs}`)),
    ];
    if (v?.hanging) bits.push(h("span", { class: "hanging", id: "hanging", title: t("table.hanging_title") }, t("table.hanging", { points: v.hanging })));
    if (v && v.strain && v.phase !== "deck" && v.phase !== "over") {
      bits.push(h("span", { class: "contract", id: "contract" }, `${strainLabel(v.strain)}${v.taker !== null ? ` · ${seatName(this.state, v.taker, true)}` : ""}`));
    }
    const switches = h(
      "span",
      { class: "switches" },
      sealSwitch(seal, open, () => this.toggleFair()),
      muteSwitch(this.state.muted, (muted) => {
        chooseMuted(this.state, muted);
        this.ctx.store.saveSoundMuted?.(this.ctx.session?.player ?? "", muted);
      }),
    );
    return h("div", { class: "score-bar" }, h("span", { class: "score-bits" }, bits), switches);
  }

  toggleFair() {
    const open = toggleFair(this.state);
    this.queueRender();
    if (open) requestAnimationFrame(() => document.getElementById("fairdeal")?.scrollIntoView({ block: "nearest" }));
  }

  /** The felt's corner: the deal, the turned card (the bottom card in gambler). */
  feltInfo(v) {
    const bits = [];
    if (v && v.phase !== "deck" && v.phase !== "over") {
      bits.push(h("div", { class: "deal-no" }, t("table.deal_no", { number: v.deal_number + 1 })));
      // The turned card: on the table while bidding; at two it stays there (gambler).
      if (v.turned && (v.phase === "bidding" || playersOf(this.state) === 2)) bits.push(h("div", { class: "turned" }, cardFace(v.turned, { small: true, title: t("table.turned_title", { card: cardLabel(v.turned) }) }), h("span", {}, ` ${t("table.turned")}`)));
      if (v.bottom) bits.push(h("div", { class: "turned" }, cardFace(v.bottom, { small: true, title: t("table.bottom_title", { card: cardLabel(v.bottom) }) }), h("span", {}, ` ${t("table.bottom")}`)));
    }
    return bits;
  }

  /** A seat on the felt: its name, its side, the dealer's mark, what it did last or that
   * it is due, its hidden hand's backs, its presence (presence.js). */
  seatScene(s, v) {
    const isMe = s.seat === seatOf(this.state);
    const n = playersOf(this.state);
    const mySide = seatOf(this.state) === null ? null : seatOf(this.state) % 2;
    const side = n === 2 ? (isMe ? t("table.seat.you") : t("table.chip.opponent")) : mySide === null ? (s.seat % 2 === 0 ? t("table.side.ns") : t("table.side.ew")) : isMe ? t("table.side.us") : s.seat % 2 === mySide ? t("table.chip.partner") : t("table.side.them");
    const ours = n === 2 ? isMe : mySide === null ? s.seat % 2 === 0 : s.seat % 2 === mySide;
    const name = isMe ? (s.name ? t("table.seat.you_named", { name: s.name }) : upFirst(t("table.seat.you"))) : s.kind === "bot" || s.player ? seatName(this.state, s.seat, true) : t("table.seat.free");
    const dealer = !!v && v.dealer === s.seat && v.phase !== "deck" && v.phase !== "over";
    const due = !!v && v.turn === s.seat && v.phase !== "over";
    const cards = v?.hand_sizes?.[s.seat];
    // One line says what the seat did last: its call, its meld, its belote.
    let did = null;
    const call = v?.calls?.filter(([seat]) => seat === s.seat).map(([, strain]) => strainLabel(strain)).pop();
    if (call) did = call;
    for (const [seat, claim] of v?.meld_claims ?? []) if (seat === s.seat) did = claimLabel(claim);
    for (const [seat, melds] of v?.melds_shown ?? []) if (seat === s.seat) did = t("table.did.shows", { melds: melds.map(meldLabel).join(", ") });
    const belotes = (v?.belote_calls ?? []).filter(([seat]) => seat === s.seat);
    if (belotes.length) did = belotes.length > 1 ? t("table.did.rebelote") : t("table.did.belote");
    const turnWord = v?.phase === "bidding" ? t("table.seat.to_bid") : t("table.seat.to_play");
    const sit = this.state.reply.status === "open" && seatOf(this.state) === null && s.kind === "human" && !s.player;
    const badges = this.badges(s);
    return {
      seat: s.seat,
      me: isMe,
      name,
      chip: { text: side, ours },
      dealer,
      due,
      line: due ? `▶ ${isMe ? t("table.seat.your_turn") : turnWord}` : did,
      count: cards && !isMe ? t("table.seat.cards", { count: cards }) : null,
      backs: cards && !isMe ? cards : 0,
      badges,
      button: sit ? h("button", { type: "button", class: "sit", dataset: { seat: s.seat }, onclick: () => this.sit(s.seat) }, t("table.sit")) : null,
      label: [name, side, dealer ? t("table.seat.dealer") : null, due ? turnWord : null, ...badges.map((b) => b.text)].filter((x) => x !== null).join(", "),
    };
  }

  /** A seat's presence on the felt (presence.js's words): a bot playing it, its player
   * disconnected (both may hold: the bot plays for one who is gone), back a moment after
   * a return, or the turns the clock played for one who is there. */
  badges(s) {
    const line = this.state.presence.find((p) => p.seat === s.seat);
    if (!line?.human) return [];
    // One's own seat: only that a bot plays it (the note under it offers it back).
    if (s.seat === seatOf(this.state)) return line.autoplay ? [{ text: presenceText({ key: "presence.autoplay", values: {} }), kind: "autoplay" }] : [];
    const badges = [];
    const add = (what) => badges.push({ text: presenceText(what), kind: what.key.slice("presence.".length) });
    if (line.autoplay) add({ key: "presence.autoplay", values: {} });
    if (line.connected === false) add({ key: "presence.disconnected", values: {} });
    else if ((this.state.backUntil.get(s.seat) ?? 0) > performance.now()) badges.push({ text: t("presence.back"), kind: "back" });
    if (!badges.length) {
      const said = seatPresence(line);
      if (said) add(said);
    }
    return badges;
  }

  /** The seat's own player, away long enough for a bot to take the seat: the note and
   * the button that takes it back (coming back to the page does not). */
  resumeRow() {
    const offer = resumeOffer(this.state.presence, seatOf(this.state));
    if (!offer) return null;
    return h("div", { class: "resume", id: "resume" }, h("span", {}, presenceText(offer.key)), " ", h("button", { type: "button", id: "take-back", onclick: () => this.resume() }, presenceText(offer.action)));
  }

  async resume() {
    try {
      await this.ctx.gateway.move(this.state.tableId, "seat/resume", {});
      await this.refresh();
    } catch (e) {
      sayError(e, presenceText("presence.take_back"));
    }
  }

  trickScene(v, myTurn) {
    if (this.state.ending || v?.phase === "over") return { final: { title: t("table.final_score"), score: scoreText(this.state, this.state.ending?.scores ?? v?.scores ?? [0, 0]) } };
    if (!v) return {};
    const held = heldTrick(this.state, myTurn);
    const last = v.tricks?.at(-1);
    const lastCards = () => last.cards.map((c, i) => [(last.leader + i) % playersOf(this.state), c]);
    if (held) {
      const caption = held.winner === seatOf(this.state) ? t("table.caption.you_take", { count: held.points }) : t("table.caption.takes", { name: seatName(this.state, held.winner, true), count: held.points });
      return { cards: held.cards, winner: held.winner, caption };
    }
    if (this.state.showLast && last) {
      const caption = last.winner === seatOf(this.state) ? t("table.caption.last_you", { count: last.points }) : t("table.caption.last", { name: seatName(this.state, last.winner), count: last.points });
      return { cards: lastCards(), winner: last.winner, caption };
    }
    if (!(v.trick ?? []).length && last) {
      // Between tricks the last one stays on the felt, dimmed, until the next card.
      const caption = last.winner === seatOf(this.state) ? t("table.caption.you_took_last", { count: last.points }) : t("table.caption.took_last", { name: seatName(this.state, last.winner, true), count: last.points });
      return { cards: lastCards(), winner: last.winner, caption, old: true };
    }
    return { cards: v.trick ?? [] };
  }

  lastTrickButton(v) {
    const taken = !!v?.tricks?.length && v.phase === "playing";
    return h("button", { type: "button", id: "last-trick", class: `small${this.state.showLast ? " active" : ""}`, disabled: !taken, "aria-pressed": String(this.state.showLast), title: t("table.last_trick_title"), onclick: () => this.toggleLast() }, t("table.last_trick"));
  }

  toggleLast() {
    const v = this.state.view;
    if (toggleLast(this.state)) this.answer(readLastTrick(v, (s) => seatName(this.state, s)));
    this.queueRender();
  }

  statusLine(v, myTurn) {
    const r = this.state.reply;
    const kept = this.fair.kept();
    let text;
    if (r.status === "open") {
      const free = r.table.seats.filter((s) => s.kind === "human" && !s.player).length;
      // A "play now" table: its bots' seats are open to players until its clock runs out.
      text = free || !openUntil(this.state) ? t("table.status.waiting", { count: free }) : t("table.status.bots_open");
    } else if (this.state.ending || r.status === "finished" || r.status === "closed" || v?.phase === "over") {
      text = endText(this.state.ending, v, wordsOf(this.state, this.ctx.rulesets));
    } else if (!v || v.phase === "deck") {
      text = kept?.seat_seeds ? t("table.status.dealing") : t("table.status.commitment");
    } else if (myTurn) {
      text = v.phase === "bidding" ? t("table.status.your_bid") : t("table.status.your_play");
    } else if (v.turn !== null && v.turn !== undefined) {
      const bidding = v.phase === "bidding";
      if (v.turn === seatOf(this.state)) text = bidding ? t("table.status.you_to_bid") : t("table.status.you_to_play");
      else text = bidding ? t("table.status.to_bid", { name: seatName(this.state, v.turn, true) }) : t("table.status.to_play", { name: seatName(this.state, v.turn, true) });
    } else {
      text = "";
    }
    // The deadline, not the status ("dealing" while the seeds come, then "playing"), is
    // what says a human seat is on the clock.
    const until = clockUntil(this.state);
    return h("div", { class: "status-line" }, h("span", { id: "status" }, text), until ? h("span", { id: "timer", class: "timer" }, timerText(until)) : null);
  }

  actions(v, legal) {
    const bids = legal.filter((m) => m.type === "Bid");
    const buttons = [];
    for (const m of bids) {
      const label = bidLabel(m.strain);
      const strain = m.strain ?? "pass";
      const said = m.strain === null ? t("table.bid.pass") : t("table.bid.take", { contract: contractWords(m.strain) });
      const doing = m.strain === null ? t("table.doing.pass") : t("table.doing.take", { contract: contractWords(m.strain) });
      buttons.push(h("button", { type: "button", id: `bid-${strain}`, class: `bid${m.strain === null ? " pass" : ""}`, dataset: { strain, pick: `bid-${strain}` }, title: said, "aria-label": said, onclick: () => this.act("bid", { strain: m.strain }, doing) }, label));
    }
    if (legal.some((m) => m.type === "DeclareMelds")) buttons.push(h("button", { type: "button", id: "declare-melds", dataset: { pick: "declare-melds" }, onclick: () => this.act("announce", { melds: true }, t("table.doing.declare")) }, t("table.act.declare")));
    if (legal.some((m) => m.type === "SwapTrumpSeven")) buttons.push(h("button", { type: "button", id: "swap", dataset: { pick: "swap" }, onclick: () => this.act("swap", {}, t("table.doing.swap")) }, t("table.act.swap")));
    if (legal.some((m) => m.type === "DemandRedeal")) buttons.push(h("button", { type: "button", id: "redeal", dataset: { pick: "redeal" }, onclick: () => this.act("redeal", {}, t("table.doing.redeal")) }, t("table.act.redeal")));
    const beloteCards = legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card);
    if (beloteCards.length) {
      const box = h("input", { type: "checkbox", id: "belote", checked: this.state.announceBelote, onchange: (e) => chooseBelote(this.state, e.target.checked) });
      buttons.push(h("label", { class: "belote", title: t("table.act.belote_key") }, box, ` ${t("table.act.belote", { cards: andList(beloteCards.map(cardLabel)) })}`));
    }
    return h("div", { class: "actions", id: "bids", role: "group", "aria-label": t("table.act.label") }, buttons);
  }

  hand(v, legal) {
    const el = h("div", { class: "hand", id: "hand", role: "group", "aria-label": t("table.hand_label") });
    if (!v || seatOf(this.state) === null) return el;
    const playable = new Set(legal.filter((m) => m.type === "PlayCard").map((m) => m.card));
    const belote = new Set(legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card));
    const playing = playable.size > 0;
    el.style.setProperty("--cards", String((v.hand ?? []).length));
    for (const card of sortHand(v.hand ?? [], v.strain)) {
      const isLegal = playable.has(card);
      const face = cardFace(card, {
        legal: isLegal,
        title: isLegal ? t("table.card.play_title", { card: cardLabel(card) }) : playing ? t("table.card.unplayable_title", { card: cardLabel(card) }) : cardLabel(card),
        onclick: () => this.act("play", { card, belote: belote.has(card) && this.state.announceBelote !== false }, t("table.doing.play", { card: cardLabel(card) })),
      });
      face.id = `card-${card}`;
      face.dataset.pick = `card-${card}`;
      // Its name is said from its content (a hidden line), not an aria-label over the
      // picture: a name must hold what is drawn (the index's letters are aria-hidden).
      const said = isLegal ? t("table.card.playable", { card: cardName(card) }) : playing ? t("table.card.unplayable", { card: cardName(card) }) : cardName(card);
      face.removeAttribute("aria-label");
      face.dataset.said = said;
      face.append(h("span", { class: "sr-only" }, said));
      if (playing && !isLegal) face.classList.add("unplayable");
      el.append(face);
    }
    return el;
  }

  // ------------------------------------------------------------------ the score sheet

  sheetPanel() {
    const mySide = seatOf(this.state) === null ? 0 : seatOf(this.state) % 2;
    const names = playersOf(this.state) === 2 ? [sideName(this.state, mySide, true), sideName(this.state, 1 - mySide, true)] : seatOf(this.state) === null ? [t("table.side.ns"), t("table.side.ew")] : [upFirst(t("table.side.us")), upFirst(t("table.side.them"))];
    return sheetTable(sheetRows(this.state, this.ctx.rulesets), { first: mySide, names, seatName: (s) => seatName(this.state, s, true) });
  }

  logPanel() {
    return h("section", { class: "log", dataset: { region: "log" } }, h("h2", {}, t("table.log_title")), h("ol", { id: "log", reversed: true, tabindex: 0, "aria-label": t("table.log_title") }, this.state.log.slice().reverse().map((l) => h("li", { class: l.kind }, l.text))));
  }
}

/** The turn timer: the table service's deadline on its own clock, the wall clock (the
 * tab's clock, clock.js, is for what the fair-deal check keeps; in a player's browser the
 * two are the same). */
function timerText(deadline) {
  if (!deadline) return "";
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return t("table.timer", { seconds: left });
}
