// A table: sit, play (bids, legal cards from the server's legal moves, belote, melds,
// gambler's swap and redeal), watch the score and the turn timer, and the fair deal: the
// tab makes its seed, keeps what the table shows it and the seed reply's receipt
// (keeper.js, in localStorage), watches drand itself from the commitment until the named
// round is settled (watch.js), says at once what can already be known to have failed
// (fairdeal.js checkLive: a red banner beside the board), pins the transparency log's
// checkpoint when the match opens (logcheck.js) and checks the whole match when the
// server reveals its seed (checkKept, the log's checks with it). Every time it keeps is
// its own clock's (clock.js).
//
// The board is drawn from the seat's view, which the gateway sends on our turn and which
// we ask again (at most a few times a second) after the table's events; the events also
// feed the keeper and the table's log.

import { Live } from "./api.js";
import { mountChat } from "./chat.js";
import { cardLabel, sortHand, strainLabel } from "./cards.js";
import { now, realMs, sleep } from "./clock.js";
import { toHex } from "./deck.js";
import { relayList } from "./drand.js";
import { checkKept, checkLive, drandPage } from "./fairdeal.js";
import { keep, keepDrandSeen, keepLogOpen, keepMySeed, keepReceipt, keepSeedAnswered, keepSeedRefused, keepSeedSending, newKept } from "./keeper.js";
import { fetchCheckpoint, logKeyOf } from "./logcheck.js";
import { cardBacks, cardFace, h, replace, say, sayError, shortHex } from "./ui.js";
import { DrandWatch, nextAsk } from "./watch.js";

const REFRESH_DEBOUNCE_MS = 200;
const CHECK_SETTLE_MS = 300;
const LOG_LINES = 80;
/** A checkpoint not had at the open is asked for again on an event, at most this often. */
const LOG_RETRY_MS = 2000;

export function renderTable(root, ctx, tableId) {
  const t = new TablePage(root, ctx, tableId);
  t.start();
  return () => t.stop();
}

class TablePage {
  constructor(root, ctx, tableId) {
    this.root = root;
    this.ctx = ctx;
    this.tableId = tableId;
    this.reply = null; // the last GET /v1/tables/{id}
    this.ending = null; // {type, ...payload} of the match's ending event
    this.view = null;
    this.version = -1;
    this.actedVersion = -1; // the match version we last moved at: its legal moves are spent
    this.deadline = null;
    this.matchId = null;
    this.log = [];
    this.live = null;
    this.stopped = false;
    this.busy = false;
    this.sendingSeed = false;
    this.seedSent = false;
    this.checking = false;
    this.pinning = false; // asking the transparency log for its checkpoint at the open
    this.checkedReveal = null;
    this.watch = null; // the tab's own drand watch (watch.js), while it has something to learn
    this.liveCheck = { failed: [] }; // checkLive's result: what already failed
    this.checkTimer = null;
    this.refreshTimer = null;
    this.refreshing = false;
    this.refreshAgain = false;
    this.ticker = null;
    this.renderQueued = false;
    this.connection = "connecting";
    mountChat(this); // the table's chat and the rematch offer (chat.js)
  }

  // ------------------------------------------------------------------ life

  async start() {
    replace(this.root, h("div", { id: "table", class: "table-page" }, h("p", {}, "Opening the table…")));
    try {
      await this.refresh();
    } catch (e) {
      sayError(e, "Opening the table");
      replace(this.root, h("p", {}, "This table cannot be shown. ", h("a", { href: "#/" }, "Back to the lobby.")));
      return;
    }
    if (this.stopped) return;
    this.live = new Live(this.ctx.session.token, this.tableId, (m) => this.onMessage(m), (s) => {
      this.connection = s;
      this.queueRender();
    });
    this.ticker = setInterval(() => this.tick(), 250);
    const kept = this.kept();
    this.maybeWatch(kept);
    this.maybePinLog(kept);
    this.updateLive(kept);
    // A match already over when the page opens: check what this tab kept of it.
    this.maybeCheck();
  }

  stop() {
    this.stopped = true;
    this.live?.close();
    clearInterval(this.ticker);
    clearTimeout(this.refreshTimer);
    clearTimeout(this.checkTimer);
    this.watch?.stop();
  }

  get seat() {
    return this.reply?.seat ?? null;
  }

  get players() {
    return this.reply?.table?.seats?.length ?? 4;
  }

  kept() {
    return this.matchId ? this.ctx.store.kept(this.matchId) : null;
  }

  /** Read, edit and write the kept record (the stored copy is the one truth). */
  updateKept(edit) {
    const s = this.ctx.session;
    return this.ctx.store.updateKept(this.matchId, () => newKept(this.matchId, this.tableId, s.player), edit);
  }

  /** The drand relays this tab asks: the player's own (or the tab's defaults) first,
   * then those the server names (drand.js relayList). */
  relays() {
    return relayList({ player: this.ctx.store.drandRelays?.() ?? null, server: this.ctx.config?.drand?.relays ?? [] });
  }

  /** Watch drand from the commitment until the named round is settled (watch.js). */
  maybeWatch(kept) {
    if (this.stopped || this.watch || !kept || nextAsk(kept, null, now()) === null) return;
    const watch = new DrandWatch({
      chain: kept.chain,
      relays: this.relays(),
      read: () => this.kept(),
      record: (beacon, seen) => {
        const k = this.updateKept((x) => keepDrandSeen(x, beacon, seen));
        this.updateLive(k);
        this.queueRender();
      },
      now,
      sleep,
      realMs,
      fetchImpl: (...args) => fetch(...args),
    });
    this.watch = watch;
    watch.run().finally(() => {
      if (this.watch === watch) this.watch = null;
    });
  }

  /** The transparency log's key this tab checks with (logcheck.js logKeyOf): the one it
   * pinned the first time the page was told one, pinned now if this is that time. */
  logKey() {
    const told = this.ctx.config?.translog?.vkey ?? this.publishedKey ?? null;
    const key = logKeyOf(this.ctx.store.logKey?.()?.vkey ?? null, told);
    if (key.pin) this.ctx.store.pinLogKey(key.pin, now());
    return key;
  }

  /** When the gateway names no log key, the one the verify API publishes
   * (GET /v1/log/key), asked once: pinned like any other the first time (logKeyOf), so a
   * key shown later in its place fails the check. */
  async fetchPublishedKey() {
    const api = this.ctx.config?.verify_url;
    if (this.publishedKey !== undefined || this.ctx.config?.translog?.vkey || !api) return;
    this.publishedKey = null;
    try {
      const r = await fetch(`${api.replace(/\/$/, "")}/v1/log/key`);
      if (r.ok) this.publishedKey = (await r.text()).trim() || null;
    } catch (e) {
      this.publishedKey = undefined; // asked again next time
    }
  }

  /** When the match opens (the tab has its commitment): pin the log's checkpoint,
   * verified under the pinned key, in the kept record (keeper.js keepLogOpen); the end
   * of the match checks that the log then extends it (fairdeal.js checkKept, log). */
  async maybePinLog(kept) {
    if (this.stopped || this.pinning || !kept || !kept.commitment || kept.reveal) return;
    if (kept.log?.open || kept.log?.refused) return;
    if (kept.log?.error && now() - kept.log.error.at < LOG_RETRY_MS) return;
    const api = this.ctx.config?.verify_url;
    this.pinning = true;
    await this.fetchPublishedKey();
    const key = this.logKey();
    if (!api || !key.vkey) {
      this.pinning = false;
      return;
    }
    try {
      const got = await fetchCheckpoint(api, key.vkey, { fetchImpl: (...args) => fetch(...args) });
      if (!this.stopped) this.updateKept((k) => keepLogOpen(k, { vkey: key.vkey, told: key.told, got, at: now() }));
    } catch (e) {
      console.error("pinning the log's checkpoint failed", e);
    } finally {
      this.pinning = false;
    }
  }

  /** What can already be known to have failed: said at once, by the banner beside the
   * board (role "alert"), not the message line, which answers the player's own moves. */
  updateLive(kept) {
    this.liveCheck = checkLive(kept, now());
  }

  // ------------------------------------------------------------------ the server

  async refresh() {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      const reply = await this.ctx.gateway.table(this.tableId);
      this.reply = reply;
      this.matchId = reply.table.match_id;
      if (reply.ending && !this.ending) this.ending = reply.ending;
      // A view with no moves must not hide the ones a newer "turn" message brought; and a
      // table changing owner is answered without a view: keep the last one.
      if (!(reply.match_version < this.version) && reply.view) {
        this.view = this.spent(reply.view, reply.match_version);
        this.version = reply.match_version ?? this.version;
        this.deadline = reply.deadline_ms;
      }
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
        if (e.code !== "rate_limited") sayError(e, "Updating the table");
      }
    }, REFRESH_DEBOUNCE_MS);
  }

  onMessage(m) {
    if (this.stopped) return;
    if (m.type === "event") {
      this.onEvent(m);
      this.scheduleRefresh();
    } else if (m.type === "turn") {
      if (m.match_version >= this.version) {
        this.view = this.spent(m.view, m.match_version);
        this.version = m.match_version;
        this.deadline = m.deadline_ms;
        this.queueRender();
      }
    } else if (m.type === "state") {
      this.deadline = m.deadline_ms;
      this.scheduleRefresh();
    } else if (m.type === "error") {
      say(`The table says: ${m.message}`, "error");
    }
  }

  onEvent(m) {
    if (!this.matchId) return;
    const rulesets = this.ctx.rulesets;
    const kept = this.updateKept((k) => keep(k, m, rulesets, now()));
    if (["MatchEnded", "MatchForfeited", "MatchAborted"].includes(m.event) && m.stream.startsWith("match-")) {
      this.ending = { type: m.event, ...m.payload };
    }
    const line = describe(m, this);
    if (line) this.addLog(line, m);
    // The watch first: its first answer should come before the round is named.
    this.maybeWatch(kept);
    this.maybePinLog(kept);
    this.maybeSendSeed(kept);
    this.updateLive(kept);
    if (kept.reveal) this.scheduleCheck();
    this.queueRender();
  }

  addLog(text, m) {
    const key = `${m.stream}:${m.version}`;
    if (this.log.some((l) => l.key === key)) return;
    this.log.push({ key, text, kind: m.event });
    if (this.log.length > LOG_LINES) this.log.shift();
  }

  /** Our seed: made on this device once the table has shown the commitment, kept, then
   * sent; sent again (the same one) while the table cannot take it yet. */
  async maybeSendSeed(kept) {
    if (this.sendingSeed || this.seedSent || !kept || kept.seat === null) return;
    if (!kept.commitment || !kept.seeds_open || kept.seat_seeds !== null) return;
    const mine = this.reply?.table?.seats?.[kept.seat];
    if (mine && (mine.kind !== "human" || mine.player !== this.ctx.session.player)) return;
    this.sendingSeed = true;
    let retry = false;
    try {
      let seed = kept.my_seed;
      if (seed === null) {
        const bytes = new Uint8Array(16);
        crypto.getRandomValues(bytes);
        seed = this.updateKept((k) => keepMySeed(k, toHex(bytes), now())).my_seed;
      }
      this.updateKept((k) => keepSeedSending(k, now()));
      let reply;
      try {
        reply = await this.ctx.gateway.move(this.tableId, "seed", { seed });
      } finally {
        this.updateKept((k) => keepSeedAnswered(k));
      }
      this.seedSent = true;
      say("Your seed is sent.", "info");
      // The receipt names the event that recorded the seed: the record must honour it.
      if (reply?.receipt) this.updateLive(this.updateKept((k) => keepReceipt(k, reply.receipt, now())));
    } catch (e) {
      if (e.code === "seed_already_sent") this.seedSent = true; // by this tab, before a reload
      else if (e.code === "seed_window_closed") {
        this.updateKept((k) => keepSeedRefused(k, e.code, now()));
        sayError(e, "Sending your seed");
      } else {
        retry = !this.stopped;
        if (e.code !== "not_started") sayError(e, "Sending your seed (trying again)");
      }
    } finally {
      this.sendingSeed = false;
      this.queueRender();
    }
    if (retry) setTimeout(() => this.maybeSendSeed(this.kept()), 500);
  }

  /** The check runs once the events stop coming for a moment: a page opened after the
   * end receives the table's streams one after the other (the table's reveal before the
   * match's events), and must have kept them all first. */
  scheduleCheck() {
    clearTimeout(this.checkTimer);
    this.checkTimer = setTimeout(() => this.maybeCheck(), CHECK_SETTLE_MS);
  }

  /** The in-tab check, once the server has revealed its seed. */
  async maybeCheck() {
    const kept = this.kept();
    if (this.stopped || !kept || !kept.reveal || !kept.ended) return;
    if (this.checking || this.checkedReveal === kept.reveal.server_seed) return;
    this.checking = true;
    this.queueRender();
    try {
      // From the stored copy, read now: what this tab kept, not what is in memory.
      const result = await checkKept(this.kept(), {
        relays: this.relays(),
        fetchImpl: (...args) => fetch(...args),
        now,
        verifyApi: this.ctx.config?.verify_url,
        log: { verifyApi: this.ctx.config?.verify_url, key: this.logKey() },
      });
      this.updateKept((k) => {
        k.check = result;
        return true;
      });
      this.checkedReveal = kept.reveal.server_seed;
      if (result.failed) say("The fair-deal check FAILED: see the fair deal panel.", "error");
      else if (!result.ok) say(`The fair deal is checked, but ${result.unchecked.length} could not be checked: see the fair deal panel.`, "info");
    } catch (e) {
      say(`The in-tab check could not run: ${e.message}`, "error");
    } finally {
      this.checking = false;
      this.queueRender();
    }
  }

  /** A view whose moves we already made one of (a reply that left before ours landed)
   * offers none. */
  spent(view, version) {
    return view && version <= this.actedVersion ? { ...view, legal: [] } : view;
  }

  async act(verb, body, doing) {
    if (this.busy) return;
    this.busy = true;
    const version = this.version;
    this.root.querySelector("#table")?.setAttribute("data-busy", "true");
    try {
      await this.ctx.gateway.move(this.tableId, verb, body);
      say(""); // an earlier refusal is answered by this move
      this.actedVersion = Math.max(this.actedVersion, version);
      if (this.view) this.view = { ...this.view, legal: [], turn: null };
    } catch (e) {
      sayError(e, doing);
    } finally {
      this.busy = false;
      this.queueRender();
      this.scheduleRefresh();
    }
  }

  async sit(seat) {
    try {
      await this.ctx.gateway.join(this.tableId, seat);
      say(`You sit at seat ${seat}.`, "info");
      await this.refresh();
    } catch (e) {
      sayError(e, `Taking seat ${seat}`);
    }
  }

  async leave() {
    const started = this.reply && this.reply.status !== "open";
    if (started && !confirm("The match has started: leaving forfeits it for your side. Leave?")) return;
    try {
      await this.ctx.gateway.move(this.tableId, "leave", {});
      say(started ? "You left: your side forfeits." : "You left the table.", "info");
      location.hash = "#/";
    } catch (e) {
      sayError(e, "Leaving");
    }
  }

  // ------------------------------------------------------------------ drawing

  queueRender() {
    if (this.renderQueued || this.stopped) return;
    this.renderQueued = true;
    requestAnimationFrame(() => {
      this.renderQueued = false;
      if (!this.stopped) this.render();
    });
  }

  tick() {
    const el = this.root.querySelector("#timer");
    if (el) el.textContent = timerText(this.deadline);
    // Some failures are known only once a time has passed (checkLive).
    const kept = this.kept();
    if (kept && !kept.reveal) {
      const before = this.liveCheck.failed.length;
      this.updateLive(kept);
      if (this.liveCheck.failed.length !== before) this.queueRender();
    }
  }

  render() {
    const r = this.reply;
    if (!r) return;
    const v = this.view;
    const kept = this.kept();
    const myTurn = v && this.seat !== null && v.turn === this.seat && (v.legal ?? []).length > 0;
    const checkStatus = this.checking ? "running" : statusOf(kept?.check);
    const page = h(
      "div",
      {
        id: "table",
        class: `table-page${myTurn ? " my-turn" : ""}`,
        dataset: { turn: myTurn ? "me" : v?.turn ?? "", version: this.version, status: r.status, phase: v?.phase ?? "", check: checkStatus, live: this.liveCheck.failed.length ? "fail" : "" },
      },
      h("div", { class: "board-area" }, this.board(v, myTurn), this.fairDealPanel(kept, checkStatus)),
      this.logPanel(),
    );
    const focusId = document.activeElement?.id;
    replace(this.root, page);
    if (focusId) document.getElementById(focusId)?.focus();
  }

  board(v, myTurn) {
    const r = this.reply;
    const t = r.table;
    const n = t.seats.length;
    const me = this.seat ?? 0;
    const pos = (s) => ["bottom", "left", "top", "right"][n === 2 ? ((s - me + n) % n) * 2 : (s - me + n) % n];
    const legal = myTurn ? v.legal : [];
    const seats = t.seats.map((s) => this.seatBox(s, v, pos(s.seat)));
    return h(
      "section",
      { class: "board" },
      this.scoreBar(v),
      h("div", { class: `felt players-${n}` }, seats, this.trickArea(v, pos)),
      this.statusLine(v, myTurn),
      this.actions(v, legal),
      this.hand(v, legal),
      h(
        "div",
        { class: "table-links" },
        this.seat !== null && r.status !== "closed" && r.status !== "finished" ? h("button", { type: "button", class: "link", id: "leave", onclick: () => this.leave() }, "Leave the table") : null,
        this.matchId && (r.status === "finished" || r.status === "closed") ? h("a", { href: `#/replay/${encodeURIComponent(this.matchId)}`, id: "replay-link" }, "Replay and the verification report") : null,
        h("span", { class: "dim" }, `connection: ${this.connection}`),
      ),
    );
  }

  scoreBar(v) {
    const t = this.reply.table;
    const mySide = (this.seat ?? 0) % 2;
    const scores = this.ending?.scores ?? v?.scores ?? [0, 0];
    const bits = [h("span", { class: "ruleset" }, `${t.ruleset}`), h("span", {}, `to ${t.target}`)];
    const [ours, theirs] = this.players === 2 ? [cap(this.sideName(mySide)), this.sideName(1 - mySide)] : this.seat === null ? ["Seats 0+2", "seats 1+3"] : ["Your side", "their side"];
    bits.push(h("span", { class: "score", id: "score" }, h("b", {}, `${ours} `), String(scores[mySide]), " — ", String(scores[1 - mySide]), h("b", {}, ` ${theirs}`)));
    if (v?.hanging) bits.push(h("span", {}, `hanging ${v.hanging}`));
    if (v && v.phase !== "deck" && v.phase !== "over") {
      bits.push(h("span", {}, `deal ${v.deal_number + 1}, dealer ${this.seatName(v.dealer)}`));
      if (v.turned) bits.push(h("span", {}, "turned ", cardFace(v.turned, { small: true })));
      if (v.strain) bits.push(h("span", { id: "contract" }, `contract ${strainLabel(v.strain)}${v.taker !== null ? ` by ${this.seatName(v.taker)}` : ""}`));
      if (v.bottom) bits.push(h("span", {}, "bottom card ", cardFace(v.bottom, { small: true })));
    }
    return h("div", { class: "score-bar" }, bits);
  }

  /** "ours:theirs" from a seat's point of view (seats 0+2 first for a spectator). */
  scoreText(scores) {
    const mine = (this.seat ?? 0) % 2;
    return `${scores[mine]}:${scores[1 - mine]}`;
  }

  /** A side (0: seats 0 and 2, 1: seats 1 and 3; at two players, the seat). */
  sideName(side) {
    if (this.players === 2) return this.seatName(side);
    if (this.seat === null) return `seats ${side} and ${side + 2}`;
    return side === this.seat % 2 ? "your side" : "their side";
  }

  seatName(seat) {
    if (seat === null || seat === undefined) return "";
    if (seat === this.seat) return "you";
    const s = this.reply.table.seats[seat];
    if (!s) return `seat ${seat}`;
    if (s.kind === "bot") return `bot ${seat} (${s.level})`;
    return s.name ?? `seat ${seat}`;
  }

  seatBox(s, v, where) {
    const isMe = s.seat === this.seat;
    const partner = this.seat !== null && s.seat !== this.seat && s.seat % 2 === this.seat % 2 && this.players === 4;
    const label = isMe ? `You (seat ${s.seat})` : s.kind === "bot" ? `Bot, ${s.level}` : s.player ? s.name ?? "a player" : "free seat";
    const call = v?.calls?.filter(([seat]) => seat === s.seat).map(([, strain]) => strainLabel(strain)).pop();
    const dueNow = v && v.turn === s.seat;
    const children = [h("div", { class: "seat-name" }, label, partner ? h("span", { class: "dim" }, " partner") : null, v && v.dealer === s.seat && v.phase !== "deck" ? h("span", { class: "dealer", title: "dealer" }, " D") : null)];
    if (v && v.hand_sizes && !isMe) children.push(cardBacks(v.hand_sizes[s.seat] ?? 0));
    if (call) children.push(h("div", { class: "call" }, call));
    for (const [seat, card] of v?.belote_calls ?? []) if (seat === s.seat) children.push(h("div", { class: "call" }, `belote ${cardLabel(card)}`));
    for (const [seat, claim] of v?.meld_claims ?? []) if (seat === s.seat) children.push(h("div", { class: "call" }, `meld: ${claimLabel(claim)}`));
    for (const [seat, melds] of v?.melds_shown ?? []) if (seat === s.seat) children.push(h("div", { class: "call" }, `shows ${melds.map((m) => m.cards.map(cardLabel).join(" ")).join(", ")}`));
    if (dueNow) children.push(h("div", { class: "due" }, isMe ? "your turn" : "to play"));
    if (this.reply.status === "open" && this.seat === null && s.kind === "human" && !s.player) {
      children.push(h("button", { type: "button", class: "sit", dataset: { seat: s.seat }, onclick: () => this.sit(s.seat) }, "Sit here"));
    }
    return h("div", { class: `seat-box ${where}${dueNow ? " due-now" : ""}${isMe ? " me" : ""}`, dataset: { seat: s.seat } }, children);
  }

  trickArea(v, pos) {
    const area = h("div", { class: "trick", id: "trick" });
    if (this.ending || v?.phase === "over") {
      area.append(h("div", { class: "final" }, h("div", {}, "Final score"), h("div", { class: "final-score" }, this.scoreText(this.ending?.scores ?? v?.scores ?? [0, 0]))));
      return area;
    }
    if (!v) return area;
    let cards = v.trick ?? [];
    let caption = null;
    if (!cards.length && v.tricks?.length) {
      const last = v.tricks[v.tricks.length - 1];
      const n = this.players;
      cards = last.cards.map((c, i) => [(last.leader + i) % n, c]);
      caption = `${this.seatName(last.winner)} took the last trick (${last.points})`;
    }
    for (const [seat, card] of cards) area.append(h("div", { class: `played ${pos(seat)}${caption ? " old" : ""}` }, cardFace(card)));
    if (caption) area.append(h("div", { class: "trick-caption" }, caption));
    return area;
  }

  statusLine(v, myTurn) {
    const r = this.reply;
    const kept = this.kept();
    let text;
    if (r.status === "open") {
      const free = r.table.seats.filter((s) => s.kind === "human" && !s.player).length;
      text = `Waiting for ${free} more player${free === 1 ? "" : "s"}.`;
    } else if (this.ending || r.status === "finished" || r.status === "closed" || v?.phase === "over") {
      text = endText(this.ending, v, this);
    } else if (!v || v.phase === "deck") {
      text = kept?.seat_seeds ? "Dealing: the deck comes once drand's round is in." : "The commitment is shown: waiting for the seats' seeds.";
    } else if (myTurn) {
      text = v.phase === "bidding" ? "Your turn to bid." : "Your turn: play a highlighted card.";
    } else if (v.turn !== null && v.turn !== undefined) {
      text = `${cap(this.seatName(v.turn))} to ${v.phase === "bidding" ? "bid" : "play"}.`;
    } else {
      text = "";
    }
    // The deadline, not the status ("dealing" while the seeds come, then "playing"), is
    // what says a human seat is on the clock.
    const timer = this.deadline && !this.ending && r.status !== "finished" && r.status !== "closed";
    return h("div", { class: "status-line" }, h("span", { id: "status" }, text), timer ? h("span", { id: "timer", class: "timer" }, timerText(this.deadline)) : null);
  }

  actions(v, legal) {
    const bids = legal.filter((m) => m.type === "Bid");
    const buttons = [];
    for (const m of bids) {
      const label = m.strain === null ? "Pass" : `Take ${strainLabel(m.strain)}`;
      buttons.push(h("button", { type: "button", class: `bid${m.strain === null ? " pass" : ""}`, dataset: { strain: m.strain ?? "pass" }, onclick: () => this.act("bid", { strain: m.strain }, label) }, label));
    }
    if (legal.some((m) => m.type === "DeclareMelds")) buttons.push(h("button", { type: "button", id: "declare-melds", onclick: () => this.act("announce", { melds: true }, "Declaring melds") }, "Declare melds"));
    if (legal.some((m) => m.type === "SwapTrumpSeven")) buttons.push(h("button", { type: "button", id: "swap", onclick: () => this.act("swap", {}, "Swapping the trump seven") }, "Swap the trump seven"));
    if (legal.some((m) => m.type === "DemandRedeal")) buttons.push(h("button", { type: "button", id: "redeal", onclick: () => this.act("redeal", {}, "Demanding a redeal") }, "Demand a redeal"));
    const beloteCards = legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card);
    if (beloteCards.length) {
      this.announceBelote = this.announceBelote ?? true;
      const box = h("input", { type: "checkbox", id: "belote", checked: this.announceBelote, onchange: (e) => (this.announceBelote = e.target.checked) });
      buttons.push(h("label", { class: "belote" }, box, ` announce belote with ${beloteCards.map(cardLabel).join(" or ")}`));
    }
    return h("div", { class: "actions", id: "bids" }, buttons);
  }

  hand(v, legal) {
    const el = h("div", { class: "hand", id: "hand" });
    if (!v || this.seat === null) return el;
    const playable = new Set(legal.filter((m) => m.type === "PlayCard").map((m) => m.card));
    const belote = new Set(legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card));
    for (const card of sortHand(v.hand ?? [], v.strain)) {
      const isLegal = playable.has(card);
      el.append(
        cardFace(card, {
          legal: isLegal,
          title: isLegal ? `play ${cardLabel(card)}` : `${cardLabel(card)}: not playable now`,
          onclick: () => this.act("play", { card, belote: belote.has(card) && this.announceBelote !== false }, `Playing ${cardLabel(card)}`),
        }),
      );
    }
    return el;
  }

  fairDealPanel(kept, checkStatus) {
    const rows = [];
    const row = (label, ...value) => rows.push(h("dt", {}, label), h("dd", {}, value));
    if (!kept || !kept.commitment) {
      row("Commitment", "not shown yet: it comes when every seat is taken, before anyone sends a seed");
    } else {
      row("Commitment", h("code", { id: "commitment", title: kept.commitment }, shortHex(kept.commitment, 16)), h("div", { class: "dim" }, "SHA-256 of the server's secret seed, shown before any seat sent its seed"));
      if (kept.seat !== null) {
        row("Your seed", kept.my_seed ? h("code", { id: "my-seed", title: kept.my_seed }, kept.my_seed) : "—", h("div", { class: "dim" }, kept.my_seed ? "made in this tab with crypto.getRandomValues, kept, then sent" : "not made in this tab"));
      }
      if (kept.seat_seeds) {
        row(
          "Every seat's seed",
          h(
            "ul",
            { id: "seat-seeds" },
            kept.seat_seeds.map((s, i) => h("li", {}, `${i === kept.seat ? "you" : this.seatName(i)}: `, s ? h("code", { title: s }, shortHex(s, 8)) : h("span", { class: "dim" }, "none (a bot, or no seed in time)"))),
          ),
        );
      } else {
        row("Every seat's seed", "shown once the seed window closes");
      }
      const chain = kept.chain ?? "quicknet";
      if (kept.fallback) {
        row("drand", h("strong", { class: "warn", id: "fallback" }, "Dealt without drand"), h("div", {}, `${kept.fallback.reason}: round ${kept.fallback.round} did not come in time; the decks use the server seed and the seats' seeds alone (round 0, zeros).`));
      } else if (kept.drand_round !== null) {
        const own = kept.drand_seen?.[String(kept.drand_round)];
        row(
          "drand round",
          h("a", { id: "drand-round", href: drandPage(chain, kept.drand_round), target: "_blank", rel: "noopener noreferrer" }, `${chain} round ${kept.drand_round}`),
          kept.drand ? h("div", {}, "randomness ", h("code", { title: kept.drand.randomness }, shortHex(kept.drand.randomness, 12))) : h("div", { class: "dim" }, "waiting for drand's value"),
          own ? h("div", { class: "dim", id: "drand-own" }, `this tab fetched it itself from ${own.relay} and checked its signature`) : null,
        );
      }
      const deals = Object.keys(kept.deals ?? {}).length;
      if (deals) row("Deals kept", `${deals} (your cards of each, as dealt)`);
      if (kept.reveal) row("Server seed", h("code", { id: "server-seed", title: kept.reveal.server_seed }, shortHex(kept.reveal.server_seed, 16)));
    }
    const check = kept?.check;
    let checkEl;
    if (checkStatus === "running") checkEl = h("p", {}, "Checking the match in this tab…");
    else if (!check) checkEl = h("p", { class: "dim" }, "When the match ends the server reveals its seed and this tab checks it against the commitment, recomputes every deck and compares your cards.");
    else {
      const verdict = { pass: "Verified in this tab", fail: "CHECK FAILED", unchecked: "Checked, but not everything could be", waiting: "Not checked yet" }[checkStatus];
      checkEl = h(
        "div",
        {},
        h("p", { class: checkStatus }, verdict),
        h(
          "ul",
          { class: "checks", id: "checks" },
          check.checks.map((c) => h("li", { class: c.status, dataset: { check: c.name } }, h("b", {}, `${STATUS_WORDS[c.status] ?? c.status.toUpperCase()} `), `${c.name}: `, linkify(c.detail))),
        ),
        h("button", { type: "button", class: "link", id: "check-again", onclick: () => ((this.checkedReveal = null), this.maybeCheck()) }, "Check again"),
      );
    }
    // The banner keeps its place at the top of this panel, beside the board: it appears
    // (a failure found during the match) without moving the cards.
    return h(
      "aside",
      { class: "fairdeal", id: "fairdeal", dataset: { check: checkStatus } },
      h("div", { class: "banner-slot" }, checkBanner(kept, this, checkStatus)),
      h("h2", {}, "Fair deal"),
      h("dl", {}, rows),
      h("div", { id: "check", dataset: { status: checkStatus } }, checkEl),
    );
  }

  logPanel() {
    return h("section", { class: "log" }, h("h2", {}, "At the table"), h("ol", { id: "log", reversed: true }, this.log.slice().reverse().map((l) => h("li", { class: l.kind }, l.text))));
  }
}

/** The check's words for its statuses, on the panel's list. */
const STATUS_WORDS = { pass: "PASS", fail: "FAIL", unchecked: "COULD NOT CHECK", info: "INFO" };

/** The table's data-check: waiting (no complete check yet), pass (ok), fail (something
 * failed), unchecked (nothing failed, but not everything could be checked). */
function statusOf(check) {
  if (!check || !check.complete) return "waiting";
  if (check.ok) return "pass";
  return check.failed || check.checks.some((c) => c.status === "fail") ? "fail" : "unchecked";
}

function checkBanner(kept, page, status) {
  const c = kept?.check;
  if (status === "running") return h("div", { class: "banner info", id: "banner" }, "Checking the match in this tab…");
  const failedNow = page.liveCheck.failed;
  if (failedNow.length && status === "waiting") {
    // What can already be known to have failed is said now, not at the end.
    const names = [...new Set(failedNow.map((x) => x.name))];
    return h("div", { class: "banner fail", id: "banner", role: "alert", dataset: { failed: names.join(",") } }, `Fair-deal check FAILED (${names.join(", ")}): ${failedNow[0].detail}.`);
  }
  if (status === "waiting") return kept?.fallback ? h("div", { class: "banner warn", id: "banner" }, "This match is dealt without drand: drand's value did not come in time, the server says.") : null;
  if (status === "pass") return h("div", { class: "banner pass", id: "banner" }, "Fair deal verified in this tab: the revealed seed matches the commitment, drand's round and value are drand's, and every deck gives the cards you were dealt.");
  if (status === "unchecked") {
    const open = c.checks.filter((x) => x.status === "unchecked");
    return h(
      "div",
      { class: "banner unchecked", id: "banner", dataset: { unchecked: open.map((x) => x.name).join(",") } },
      `Fair deal checked in this tab, but ${open.length} could not be checked: `,
      open.map((x, i) => [i ? "; " : "", h("b", {}, x.name), " (", linkify(x.detail), ")"]),
      ". Nothing failed.",
    );
  }
  const failed = [...new Set(c.checks.filter((x) => x.status === "fail").map((x) => x.name))];
  return h("div", { class: "banner fail", id: "banner", role: "alert", dataset: { failed: failed.join(",") } }, `Fair-deal check FAILED (${failed.join(", ")}): what this table showed you does not add up to a fair deal.`);
}

function linkify(text) {
  const m = /(https:\/\/\S+)/.exec(text);
  if (!m) return text;
  return [text.slice(0, m.index), h("a", { href: m[1], target: "_blank", rel: "noopener noreferrer" }, m[1]), text.slice(m.index + m[1].length)];
}

/** The turn timer: the table service's deadline on its own clock, the wall clock (the
 * tab's clock, clock.js, is for what the fair-deal check keeps; in a player's browser the
 * two are the same). */
function timerText(deadline) {
  if (!deadline) return "";
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return `${left} s`;
}

/** "you" and "bot 2 (easy)" start a sentence with a capital; a player's name stays as
 * its owner wrote it. */
function cap(text) {
  return /^(you|bot |seat |seats )/.test(text ?? "") ? text[0].toUpperCase() + text.slice(1) : text;
}

function claimLabel(claim) {
  const kind = claim.kind === "four" ? `four ${claim.rank}s` : `${claim.length} in sequence to ${claim.rank}`;
  return `${kind}${claim.trump ? " (trump)" : ""}`;
}

function endText(e, v, page) {
  if (e?.type === "MatchForfeited") return `Match over: ${page.seatName(e.leaver)} left; ${page.sideName(e.winner_side)} ${winVerb(page, e.winner_side)}.`;
  if (e?.type === "MatchAborted") return `Match aborted: ${e.reason}.`;
  const scores = e?.scores ?? v?.scores ?? [0, 0];
  const winner = e?.winner;
  const who = winner === null || winner === undefined ? "a draw" : `${page.sideName(winner)} ${winVerb(page, winner)}`;
  return `Match over: ${who}, ${page.scoreText(scores)}.`;
}

function winVerb(page, side) {
  const name = page.sideName(side);
  return name === "you" ? "win" : name.startsWith("seats ") ? "win" : "wins";
}

/** A line of the table's log for an event, in the game's words. */
function describe(m, page) {
  const p = m.payload ?? {};
  const who = (s) => cap(page.seatName(s));
  // "You play", "Bot 2 (easy) plays".
  const does = (s, verb, mine = verb.replace(/s$/, "")) => `${who(s)} ${s === page.seat ? mine : verb}`;
  switch (m.event) {
    case "SeatTaken":
      return `${who(p.seat)} sat at seat ${p.seat}.`;
    case "SeatLeft":
      return `${who(p.seat)} left${p.forfeit ? " (forfeit)" : ""}.`;
    case "FairDealOpened":
      return "Every seat is taken: the commitment to the server's seed is shown.";
    case "SeedWindowClosed":
      return `Every seat's seed is shown${p.missing?.length ? ` (no seed from seat ${p.missing.join(", ")})` : ""}.`;
    case "DrandRoundNamed":
      return `drand round ${p.round} is named: nobody knows its value yet.`;
    case "DrandBeaconVerified":
      return `drand round ${p.round} is in (signature verified by the server).`;
    case "DrandFallback":
      return `drand did not answer in time: the match is dealt without drand (${p.reason}).`;
    case "DealStarted":
      return `Deal ${p.deal_number + 1}: ${page.seatName(p.dealer)} deals and turns ${cardLabel(p.turned)}.`;
    case "CardsDealt":
      return p.seat === page.seat && m.visibility === `seat:${p.seat}` ? `You get ${p.cards.map(cardLabel).join(" ")}.` : null;
    case "Passed":
      return `${does(p.seat, "passes", "pass")}.`;
    case "ContractTaken":
      return `${does(p.seat, "takes")} ${strainLabel(p.strain)}.`;
    case "MisereStarted":
      return "Everyone passed: misère.";
    case "DealAbandoned":
      return `Deal ${p.deal_number + 1} is abandoned (${p.reason.replace("_", " ")}): redeal.`;
    case "BeloteAnnounced":
      return `${does(p.seat, "announces")} belote with ${cardLabel(p.card)}.`;
    case "CardPlayed":
      return `${does(p.seat, "plays")} ${cardLabel(p.card)}.`;
    case "TrickTaken":
      return `${does(p.seat, "takes")} the trick (${p.points}).`;
    case "MeldDeclared":
      return `${does(p.seat, "declares")} ${claimLabel(p.claim)}.`;
    case "MeldsShown":
      return `${does(p.seat, "shows")} ${p.melds.map((x) => x.cards.map(cardLabel).join(" ")).join(", ")}.`;
    case "TrumpSevenSwapped":
      return `${does(p.seat, "swaps")} the trump seven for ${cardLabel(p.taken)}.`;
    case "RedealDemanded":
      return `${does(p.seat, "demands")} a redeal.`;
    case "DealScored":
      return `Deal ${p.deal_number + 1} scored (${p.outcome.replaceAll("_", " ")}): ${page.scoreText(p.awarded)}; match ${page.scoreText(p.scores)}.`;
    case "MatchEnded":
      return `Match over: ${p.winner === null ? "a draw" : `${page.sideName(p.winner)} won`}, ${page.scoreText(p.scores)}.`;
    case "MatchForfeited":
      return `Match over: seat ${p.leaver} left.`;
    case "MatchAborted":
      return `Match aborted: ${p.reason}.`;
    case "ServerSeedRevealed":
      return "The server reveals its seed: this tab checks the match.";
    case "TableClosed":
      return "The table is closed.";
    default:
      return null;
  }
}
