// The fair deal at a table page: the tab makes its seed, keeps what the table shows it
// and the seed reply's receipt (keeper.js, in localStorage), watches drand itself from
// the commitment until the named round is settled (watch.js), says at once what can
// already be known to have failed (fairdeal.js checkLive: a red banner beside the board),
// pins the transparency log's checkpoint when the match opens (logcheck.js), asks the
// verify API then which matches used the commitment (fairdeal.js askCommitment) and
// checks the whole match when the server reveals its seed (checkKept, the log's checks
// with it). Every time it keeps is its own clock's (clock.js).
//
// The page (table.js) owns one TableFair and calls it: open() once its first reply is in,
// keepEvent() and follow() for each event of the table's streams, tick() with its clock,
// stop() when it closes. The kept record in the store is the one truth: each step reads
// it again. What the page draws of all this (what already failed, the check running) is
// noted in the page's state (tablestate.js noteLiveCheck, noteChecking).

import { now, realMs, sleep } from "./clock.js";
import { toHex } from "./deck.js";
import { relayList } from "./drand.js";
import { askCommitment, checkKept, checkLive } from "./fairdeal.js";
import { t } from "./i18n.js";
import { keep } from "./keeper.js";
import { newKept } from "./keepbase.js";
import { keepCommitmentUses, keepDrandSeen, keepLeaveAsked, keepLogOpen, keepMyKey, keepMySeed, keepReceipt, keepSeedAnswered, keepSeedRefused, keepSeedSending } from "./keepown.js";
import { fetchCheckpoint, fetchWitnesses, logKeyOf, witnessesOf } from "./logbase.js";
import { noteChecking, noteLiveCheck } from "./tablestate.js";
import { say, sayError } from "./ui.js";
import { DrandWatch, nextAsk } from "./watch.js";

/** The check waits for the events to stop coming this long (scheduleCheck). */
const CHECK_SETTLE_MS = 300;
/** A checkpoint not had at the open is asked for again on an event, at most this often. */
const LOG_RETRY_MS = 2000;
/** A seed the table could not take yet is sent again after this long. */
const SEED_RETRY_MS = 500;

export class TableFair {
  /** ``state``: the page's (tablestate.js): the match, the table's seats; ``ctx``: the
   * app's (the session, the gateway, the store, the config); ``changed``: asks the page
   * to redraw. */
  constructor(state, ctx, changed) {
    this.state = state;
    this.ctx = ctx;
    this.changed = changed;
    this.stopped = false;
    this.sendingSeed = false;
    this.seedSent = false;
    this.pinning = false; // asking the transparency log for its checkpoint at the open
    this.askingCommitment = false;
    this.checkedReveal = null;
    this.watch = null; // the tab's own drand watch (watch.js), while it has something to learn
    this.checkTimer = null;
    this.seedTimer = null; // the seed's next try, while the table cannot take it yet
    this.publishedKey = undefined; // the verify API's log key (fetchPublishedKey): undefined until asked
  }

  /** The page is open (its first reply is in): the watch, the log's pin and what already
   * failed, from the record kept before; and a match already over when the page opens:
   * check what this tab kept of it. */
  open() {
    const kept = this.kept();
    this.maybeWatch(kept);
    this.maybePinLog(kept);
    this.updateLive(kept);
    this.maybeCheck();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.checkTimer);
    clearTimeout(this.seedTimer);
    this.watch?.stop();
  }

  kept() {
    return this.state.matchId ? this.ctx.store.kept(this.state.matchId) : null;
  }

  /** Read, edit and write the kept record (the stored copy is the one truth). */
  updateKept(edit) {
    const s = this.ctx.session;
    return this.ctx.store.updateKept(this.state.matchId, () => newKept(this.state.matchId, this.state.tableId, s.player), edit);
  }

  /** An event of the table's streams, kept (keeper.js keep), with the key this page made
   * for its seat; returns the record. The page has a match (state.matchId). */
  keepEvent(m) {
    const rulesets = this.ctx.rulesets;
    const mine = this.ctx.store.seatKey?.(this.state.tableId);
    return this.updateKept((k) => {
      const changed = keep(k, m, rulesets, now());
      return (mine ? keepMyKey(k, mine.key) : false) || changed;
    });
  }

  /** What an event kept sets going: the watch first (its first answer should come
   * before the round is named), the log's pin, the commitment asked about, our seed,
   * what already failed, and the check once the server's seed is revealed. */
  follow(kept) {
    this.maybeWatch(kept);
    this.maybePinLog(kept);
    this.maybeAskCommitment(kept);
    this.maybeSendSeed(kept);
    this.updateLive(kept);
    if (kept.reveal) this.scheduleCheck();
  }

  /** Some failures are known only once a time has passed (checkLive): asked again with
   * the page's clock until the reveal. Returns whether what failed changed. */
  tick() {
    const kept = this.kept();
    return !!kept && !kept.reveal && this.updateLive(kept);
  }

  /** The player asks to leave: kept before the request goes (keepown.js keepLeaveAsked). */
  leaving() {
    this.updateKept((k) => keepLeaveAsked(k, now()));
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
        this.changed();
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

  /** The log's witnesses this tab counts (logcheck.js witnessesOf): the set it pinned for
   * the log key ``vkey``, else the operator's configured set told now (GET
   * /v1/log/witnesses), pinned now if it is not empty: first sight wins, as for the key. */
  async logWitnesses(vkey) {
    const api = this.ctx.config?.verify_url;
    if (!api || !vkey) return null;
    let told;
    try {
      told = await fetchWitnesses(api, { fetchImpl: (...args) => fetch(...args) });
    } catch (e) {
      told = { error: e.message, down: true };
    }
    const set = witnessesOf(this.ctx.store.logWitnesses?.() ?? null, told, vkey);
    if (set.pin) this.ctx.store.pinLogWitnesses?.(vkey, set.pin, now());
    return set;
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
    } catch {
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
      // The witnesses, pinned at first sight (the end's "log witnesses" counts only them).
      if (!this.stopped) await this.logWitnesses(key.vkey);
    } catch (e) {
      console.error("pinning the log's checkpoint failed", e);
    } finally {
      this.pinning = false;
    }
  }

  /** When the match opens (the tab has its commitment): ask the verify API which matches
   * used it (GET /v1/commitments/{c}) and keep the answer (keeper.js keepCommitmentUses):
   * another match there fails "commitment new" at once. No answer: asked again on a later
   * event, at most every LOG_RETRY_MS, until the reveal. The end of the match asks again. */
  async maybeAskCommitment(kept) {
    if (this.stopped || this.askingCommitment || !kept || !kept.commitment || kept.reveal) return;
    const u = kept.commitment_uses;
    if (u?.matches || (u?.error && now() - u.at < LOG_RETRY_MS)) return;
    const api = this.ctx.config?.verify_url;
    if (!api) return;
    this.askingCommitment = true;
    try {
      const got = await askCommitment(api, kept.commitment);
      if (!this.stopped) this.updateLive(this.updateKept((k) => keepCommitmentUses(k, got, now())));
    } catch (e) {
      console.error("asking the verify API about the commitment failed", e);
    } finally {
      this.askingCommitment = false;
      this.changed();
    }
  }

  /** What can already be known to have failed: said at once, by the banner beside the
   * board (role "alert"), not the message line, which answers the player's own moves.
   * Returns whether what failed changed. */
  updateLive(kept) {
    return noteLiveCheck(this.state, checkLive(kept, now()));
  }

  /** Our seed: made on this device once the table has shown the commitment, kept, then
   * sent; sent again (the same one) while the table cannot take it yet. */
  async maybeSendSeed(kept) {
    if (this.stopped || this.sendingSeed || this.seedSent || !kept || kept.seat === null) return;
    if (!kept.commitment || !kept.seeds_open || kept.seat_seeds !== null) return;
    const mine = this.state.reply?.table?.seats?.[kept.seat];
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
        reply = await this.ctx.gateway.move(this.state.tableId, "seed", { seed });
      } finally {
        this.updateKept((k) => keepSeedAnswered(k));
      }
      this.seedSent = true;
      say(t("table.seed_sent"), "info");
      // The receipt names the event that recorded the seed: the record must honour it.
      if (reply?.receipt) this.updateLive(this.updateKept((k) => keepReceipt(k, reply.receipt, now())));
    } catch (e) {
      if (e.code === "seed_already_sent") this.seedSent = true; // by this tab, before a reload
      else if (e.code === "seed_window_closed") {
        this.updateKept((k) => keepSeedRefused(k, e.code, now()));
        sayError(e, t("table.doing.send_seed"));
      } else {
        retry = !this.stopped;
        if (e.code !== "not_started") sayError(e, t("table.doing.send_seed_again"));
      }
    } finally {
      this.sendingSeed = false;
      this.changed();
    }
    if (retry && !this.stopped) this.seedTimer = setTimeout(() => this.maybeSendSeed(this.kept()), SEED_RETRY_MS);
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
    if (this.state.checking || this.checkedReveal === kept.reveal.server_seed) return;
    noteChecking(this.state, true);
    this.changed();
    try {
      // From the stored copy, read now: what this tab kept, not what is in memory. The
      // log's checks, its witnesses' among them, always run (could not check without a log).
      const key = this.logKey();
      const witnesses = (await this.logWitnesses(key.vkey)) ?? undefined;
      const result = await checkKept(this.kept(), {
        relays: this.relays(),
        fetchImpl: (...args) => fetch(...args),
        now,
        verifyApi: this.ctx.config?.verify_url,
        log: { verifyApi: this.ctx.config?.verify_url, key, witnesses },
      });
      this.updateKept((k) => {
        k.check = result;
        return true;
      });
      this.checkedReveal = kept.reveal.server_seed;
      if (result.failed) say(t("table.said.check_failed"), "error");
      else if (!result.ok) say(t("table.said.check_unchecked", { count: result.unchecked.length }), "info");
    } catch (e) {
      say(t("table.said.check_not_run", { message: e.message }), "error");
    } finally {
      noteChecking(this.state, false);
      this.changed();
    }
  }

  /** The panel's "check again": the check runs again on what is kept now. */
  recheck() {
    this.checkedReveal = null;
    this.maybeCheck();
  }
}
