// A player's tab in Node, on a virtual clock, for the web client's tests: the table's
// messages arrive at the times a case gives (the tab's clock), the tab keeps them
// (keeper.js), sends its seed right after the commitment and keeps the seed reply's
// receipt, asks the verify API which matches used the commitment when it sees it (a fake
// one: the case's answer), watches drand itself (watch.js) on fake relays that produce
// rounds at given times, says what already failed (fairdeal.js checkLive) and checks the
// match at the end (checkKept): the same code the table page runs (tablefair.js), with the
// DOM, the socket and fetch replaced.
//
// Import web/node/importmap.mjs first (the modules reach the vendored noble by its
// import map). Not a test file itself: node --test runs every .mjs under a test/ folder.

import { askCommitment, checkKept, checkLive } from "../js/fairdeal.js";
import { keep } from "../js/keeper.js";
import { newKept } from "../js/keepbase.js";
import { keepCommitmentUses, keepDrandSeen, keepLeaveAsked, keepMyKey, keepMySeed, keepReceipt, keepSeedRefused } from "../js/keepown.js";
import { DrandWatch, nextAsk } from "../js/watch.js";
import { CHAINS } from "../js/drand.js";

const settle = async () => {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Virtual time: callbacks at given times, run in order; between two, every promise they
 * started settles (the code under test awaits only promises and this clock). */
export class Sim {
  constructor(t0) {
    this.t = t0;
    this.queue = [];
    this.seq = 0;
    this.frozen = false;
    this.now = () => this.t;
    this.sleep = (ms) => new Promise((resolve) => this.at(this.t + ms, resolve));
  }

  at(t, fn) {
    this.queue.push({ t: Math.max(t, this.t), seq: this.seq++, fn });
  }

  async run(until) {
    await settle();
    for (;;) {
      this.queue.sort((a, b) => a.t - b.t || a.seq - b.seq);
      const next = this.queue[0];
      if (!next || next.t > until) break;
      this.queue.shift();
      this.t = next.t;
      next.fn();
      await settle();
    }
    this.t = Math.max(this.t, until);
    this.frozen = true; // from now on nothing is held for later
  }
}

function flip(hex) {
  const first = parseInt(hex.slice(0, 2), 16);
  const second = parseInt(hex.slice(2, 4), 16) ^ 1;
  return first.toString(16).padStart(2, "0") + second.toString(16).padStart(2, "0") + hex.slice(4);
}

/**
 * fetch for fake drand relays. relays: [{url, source, mode, produced: {round: at}}]:
 * mode "honest" serves a round from its ``produced`` time on (``beacons[round]``: its
 * signature), holds a request for the next round until it is produced, answers 425 for
 * later rounds and 404 for a round it has no beacon of; "nohold" answers 425 for the
 * next round too (a relay that does not hold requests: the tab asks again); "lying"
 * serves every round with a bit of its signature flipped; "down" answers nothing (the
 * connection fails). Every request is logged: [{url, at}].
 */
export function relayNetwork(relays, beacons, sim) {
  const log = [];
  const json = (body, status = 200) => ({ ok: status === 200, status, json: async () => structuredClone(body) });
  const fetchImpl = (url, { signal } = {}) => {
    log.push({ url, at: sim.now() });
    const relay = relays.find((r) => url.startsWith(`${r.url}/`));
    if (!relay || relay.mode === "down") return Promise.reject(new TypeError("Failed to fetch"));
    const m = /\/public\/(latest|\d+)$/.exec(url);
    if (!m) return Promise.resolve(json({ error: "not_found" }, 404));
    const out = (r) => relay.produced[String(r)] !== undefined && relay.produced[String(r)] <= sim.now();
    const rounds = Object.keys(relay.produced).map(Number).filter(out);
    const latest = rounds.length ? Math.max(...rounds) : null;
    const serve = (r) => {
      const b = beacons[String(r)];
      if (!b) return json({ error: "not_recorded" }, 404);
      return json({ round: r, signature: relay.mode === "lying" ? flip(b.signature) : b.signature });
    };
    if (m[1] === "latest") return Promise.resolve(latest === null ? json({ error: "no_beacon" }, 404) : serve(latest));
    const r = Number(m[1]);
    if (out(r)) return Promise.resolve(serve(r));
    if (r !== (latest ?? r - 1) + 1 || sim.frozen || relay.mode === "nohold") return Promise.resolve(json({ error: "too_early" }, 425));
    // The next round: held until drand produces it (or the request is given up).
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const e = new Error("The operation was aborted.");
        e.name = "AbortError";
        reject(e);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const at = relay.produced[String(r)];
      if (at !== undefined) sim.at(at, () => resolve(serve(r)));
    });
  };
  return { fetchImpl, log };
}

/**
 * fetch for a fake verify API at ``api`` in front of ``inner`` (any other address):
 * GET /v1/commitments/{c} answers with ``matches`` (the matches that used it, earliest
 * first) as the verify service does, or nothing when ``down``. Every request is logged.
 */
export function verifyNetwork(api, { matches, down = false, refuseReceipts = false }, inner, log = []) {
  const fetchImpl = (url, init) => {
    if (!url.startsWith(`${api}/`)) return inner(url, init);
    log.push({ url, method: init?.method ?? "GET" });
    if (down) return Promise.reject(new TypeError("Failed to fetch"));
    // A seat publishing its receipt (POST /v1/matches/{id}/receipts): kept, or refused.
    if (init?.method === "POST" && /\/v1\/matches\/[^/]+\/receipts$/.test(url)) {
      const receipt = JSON.parse(init.body);
      if (refuseReceipts) return Promise.resolve({ ok: false, status: 400, json: async () => ({ error: "bad_receipt", message: "the receipt is not signed with this match's receipt key" }) });
      return Promise.resolve({ ok: true, status: 201, json: async () => ({ receipt, stored: true }) });
    }
    const m = /\/v1\/commitments\/([0-9a-f]{64})$/.exec(url);
    if (!m) return Promise.resolve({ ok: false, status: 404, json: async () => ({ error: "not_found", message: "no such route" }) });
    const body = { commitment: m[1], matches: [...matches], used_twice: matches.length > 1 };
    return Promise.resolve({ ok: true, status: 200, json: async () => structuredClone(body) });
  };
  return { fetchImpl, log };
}

/**
 * Play a case: {name, match_id, player, seat, my_seed, receipt?, receipt_at?,
 * refused?: {code, at}, feed: [{msg, at}], relays, end_at, commitment_matches? (the
 * verify API's matches for the commitment; default: this match alone), verify_down?},
 * with ``beacons`` for the relays. Returns {kept, live: [{name, at, detail}] (when each
 * check first failed during the match), result: checkKept's, requests: the relays' log,
 * verifyRequests: the verify API's}.
 */
export async function playTab(c, { rulesets, beacons, verifyApi = "https://verify.test" }) {
  const start = c.start_at ?? c.feed[0].at - 1000;
  const sim = new Sim(start);
  const kept = newKept(c.match_id, `t-${c.name}`, c.player);
  // The key the page made for its seat when it took it (seatkey.js, table.js sit()).
  if (c.my_key) keepMyKey(kept, c.my_key);
  const relayNet = relayNetwork(c.relays, beacons, sim);
  const verify = verifyNetwork(verifyApi, { matches: c.commitment_matches ?? [c.match_id], down: c.verify_down === true, refuseReceipts: c.receipts_refused === true }, relayNet.fetchImpl);
  const net = { fetchImpl: verify.fetchImpl, log: relayNet.log };
  const relays = c.relays.map((r) => ({ url: r.url, source: r.source }));
  const live = [];
  const look = () => {
    for (const f of checkLive(kept, sim.now()).failed) {
      if (!live.some((x) => x.name === f.name)) live.push({ name: f.name, at: sim.now(), detail: f.detail });
    }
  };
  let watch = null;
  const startWatch = () => {
    if (watch || nextAsk(kept, null, sim.now()) === null || !CHAINS[kept.chain]) return;
    const w = new DrandWatch({
      chain: kept.chain,
      relays,
      read: () => kept,
      record: (beacon, seen) => {
        keepDrandSeen(kept, beacon, seen);
        look();
      },
      now: sim.now,
      sleep: sim.sleep,
      fetchImpl: net.fetchImpl,
      timeoutMs: 10 * 60_000, // the virtual clock holds requests, not real timers
    });
    watch = w;
    w.run().finally(() => {
      if (watch === w) watch = null;
    });
  };
  // As tablefair.js does: the verify API asked once the commitment is seen (asked again, at
  // most every 2 s, while it does not answer).
  let asking = false;
  const askUses = () => {
    const u = kept.commitment_uses;
    if (asking || !kept.commitment || kept.reveal || u?.matches || (u?.error && sim.now() - u.at < 2000)) return;
    asking = true;
    askCommitment(verifyApi, kept.commitment, { fetchImpl: verify.fetchImpl }).then((got) => {
      keepCommitmentUses(kept, got, sim.now());
      asking = false;
      look();
    });
  };
  // The player asked to leave (table.js leave(), tablefair.js leaving(): kept before the signed
  // request goes).
  if (c.leave_asked_at !== undefined && c.leave_asked_at !== null) sim.at(c.leave_asked_at, () => keepLeaveAsked(kept, sim.now()));
  // As the table page does (tablefair.js tick()), checkLive also every quarter second.
  for (let t = start; t <= c.end_at; t += 250) sim.at(t, look);
  for (const { msg, at } of c.feed) {
    sim.at(at, () => {
      keep(kept, msg, rulesets, sim.now());
      if (kept.commitment && kept.seat !== null && kept.my_seed === null && c.my_seed) {
        keepMySeed(kept, c.my_seed, sim.now());
        if (c.receipt) sim.at(c.receipt_at ?? sim.now() + 100, () => (keepReceipt(kept, c.receipt, sim.now()), look()));
        if (c.refused) sim.at(c.refused.at, () => (keepSeedRefused(kept, c.refused.code, sim.now()), look()));
      }
      startWatch();
      askUses();
      look();
    });
  }
  await sim.run(c.end_at);
  watch?.stop();
  await settle();
  const result = await checkKept(kept, { relays, fetchImpl: net.fetchImpl, now: sim.now, verifyApi, sleep: async () => {} });
  return { kept, live, result, requests: net.log, verifyRequests: verify.log };
}

export const statusOf = (result, name) => result.checks.filter((x) => x.name === name).map((x) => x.status);
export const failedNames = (result) => [...new Set(result.checks.filter((x) => x.status === "fail").map((x) => x.name))];
