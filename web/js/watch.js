// The tab watches drand itself, from the commitment until the named round is settled:
// it learns each round as drand produces it, on its own relays first (drand.js
// relayList), and keeps when it first had each round's verified value (keeper.js
// keepDrandSeen). That is what lets the check (fairdeal.js) say, on this tab's own
// clock, that a round was already out when the server named it, or that a round the
// match calls late was in fact on time.
//
// How: ask for the latest round once, then for the next one, again and again. drand's
// HTTP relays hold a request for the round after the current one until it is produced
// (and answer 425 for later ones), so each answer comes as the round comes out: one
// request per relay per round, a precision of the relay's latency. A relay that answers
// otherwise (425, 404, an error) is asked again a second later (WATCH.pollMs), so the
// precision is never worse than that. Every answer is believed only when its BLS
// signature verifies against the pinned key (drand.js fetchRound); its time is when it
// arrived, before the signature was checked.
//
// Pure but for what it is given: fetch, the clock and a sleep (tests give fake ones, see
// web/node/tabsim.mjs), read() for the kept record and record() to keep an observation.

import { CHAINS, fetchRound, normalizeRelay, roundTime } from "./drand.js";
import { TOLERANCE } from "./fairdeal.js";
import { t } from "./i18n.js";

export const WATCH = Object.freeze({
  /** After an answer that is no beacon, ask again this much later (tab time, ms). */
  pollMs: 1000,
  /** Keep watching this long after the named round's due time + grace for its value. */
  afterMs: 3000,
});

/**
 * What the watch asks next, from what the tab kept: {round, how} (round: a number or
 * "latest"; how: "latest", "next" or "fetch") or null when there is nothing more to
 * learn. ``known``: the latest round this watch has had, or null.
 */
export function nextAsk(kept, known, now) {
  const chain = kept?.chain;
  if (!kept?.commitment || !Object.hasOwn(CHAINS, chain ?? "") || kept.ended) return null;
  const R = kept.drand_round;
  const giveUp = (round) => now > roundTime(chain, round) + TOLERANCE.graceMs + WATCH.afterMs;
  if (R !== null && R !== undefined) {
    // Once the tab has the named round's value, later rounds tell it nothing.
    if (kept.drand_seen?.[String(R)] || giveUp(R)) return null;
  } else if (Number.isSafeInteger(kept.last_round) && kept.last_round > 0 && giveUp(kept.last_round)) {
    return null; // never named in time: the check says what that means
  }
  if (known === null) return { round: "latest", how: "latest" };
  if (R !== null && R !== undefined && !kept.drand_seen?.[String(R)] && R <= known) return { round: R, how: "fetch" };
  return { round: known + 1, how: "next" };
}

export class DrandWatch {
  /**
   * relays: [{url, source}] (drand.js relayList); read(): the kept record now;
   * record(beacon, {at, relay, source, how}): keep an observation; now(): the tab's
   * clock; sleep(ms): wait that long on it; realMs(ms): how long that is on real
   * timers (a request's time limit: fetch's timers are real).
   */
  constructor({ chain, relays, read, record, now, sleep, realMs = (ms) => ms, fetchImpl = globalThis.fetch, timeoutMs = null }) {
    this.chain = chain;
    this.relays = relays;
    this.sources = new Map(relays.map((r) => [normalizeRelay(typeof r === "string" ? r : r.url), typeof r === "string" ? "tab" : r.source]));
    this.read = read;
    this.record = record;
    this.now = now;
    this.sleep = sleep;
    this.fetchImpl = fetchImpl;
    // A held request lasts up to a period: wait a little longer before calling it lost.
    this.timeoutMs = timeoutMs ?? realMs(CHAINS[chain].period * 1000 + 2000);
    this.abort = new AbortController();
    this.stopped = false;
    this.running = false;
    this.lastError = null;
  }

  async run() {
    if (this.running || this.stopped) return;
    this.running = true;
    let known = null;
    try {
      while (!this.stopped) {
        const ask = nextAsk(this.read(), known, this.now());
        if (ask === null) break;
        const got = await fetchRound(this.relays, this.chain, ask.round, {
          fetchImpl: this.fetchImpl,
          timeoutMs: this.timeoutMs,
          signal: this.abort.signal,
          now: this.now,
        });
        if (this.stopped) break;
        if (got.beacon) {
          const source = this.sources.get(got.relay) ?? "server";
          this.record(got.beacon, { at: got.at, relay: got.relay, source, how: ask.how });
          if (!this.read()?.drand_seen?.[String(got.beacon.round)]) {
            // Not kept (storage full?): asking again would learn nothing new, forever.
            this.lastError = t("watch.not_kept", { round: String(got.beacon.round) });
            break;
          }
          known = Math.max(known ?? 0, got.beacon.round);
          this.lastError = null;
          continue;
        }
        this.lastError = got.error;
        // Asked again a little later; stop() ends the wait too.
        const stopped = new Promise((resolve) => this.abort.signal.addEventListener("abort", resolve, { once: true }));
        await Promise.race([this.sleep(WATCH.pollMs), stopped]);
      }
    } finally {
      this.running = false;
    }
  }

  stop() {
    this.stopped = true;
    this.abort.abort();
  }
}
