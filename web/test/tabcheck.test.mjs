// The in-tab check, one check at a time (fairdeal.js), on a record kept by hand: each
// check's pass, fail and "could not check" paths, at the edges of its tolerances
// (TOLERANCE), with the tab's times and its drand observations given, relays faked; the
// keeper's times and catch-ups (keeper.js); and the drand watch (watch.js) on a virtual
// clock (web/node/tabsim.mjs) with relays that hold requests, do not, lie or are down.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "../node/importmap.mjs";

const { sha256 } = await import("@noble/hashes/sha2.js");
const { bytesToHex, hexToBytes } = await import("@noble/hashes/utils.js");
const { roundAt, roundTime } = await import("../js/drand.js");
const { COMMITMENT_WAIT, TOLERANCE, askCommitment, checkKept, checkLive, firstDealer, hadAt } = await import("../js/fairdeal.js");
const { CARD_CODES, COMPLETION, FIRST, dealSalts, saltIndex } = await import("../js/deck.js");
const { setLanguage } = await import("../js/i18n.js");
const { keep } = await import("../js/keeper.js");
const { conflictText, newKept } = await import("../js/keepbase.js");
const { keepCommitmentUses, keepDrandSeen, keepHashServed, keepLeaveAsked, keepMySeed, keepReceipt, recordHash } = await import("../js/keepown.js");
const { WATCH, DrandWatch, nextAsk } = await import("../js/watch.js");
const { Sim, relayNetwork, verifyNetwork, failedNames } = await import("../node/tabsim.mjs");

const data = JSON.parse(readFileSync(new URL("../../tests/data/drand-quicknet.json", import.meta.url), "utf8"));
const BEACONS = Object.fromEntries([...data.quicknet.beacons, ...data.quicknet.signature_only_beacons].map((b) => [String(b.round), { round: b.round, signature: b.signature }]));
const beacon = (r) => ({ round: r, signature: BEACONS[r].signature, randomness: bytesToHex(sha256(hexToBytes(BEACONS[r].signature))), previous_signature: null });

const DUE = (r) => roundTime("quicknet", r);
const T0 = DUE(1000) + 500; // the commitment, half a second into round 1000
const SERVER_SEED = "07".repeat(32);
const MY_SEED = "a1".repeat(16);
const seen = (r, at, how = "next", source = "tab") => ({ at, relay: source === "server" ? "https://relay.belot.test" : "https://relay.drand.test", source, how, ...beacon(r) });

/** A match this tab kept, honest, with drand and without deals: every check passes. Its
 * commitment has no lead (round_lead_ms 0, made before the lead: it names the first round
 * after the seeds were in); leadBase() below is one with the lead. */
function base() {
  const k = newKept("m-1", "t-1", "ann");
  Object.assign(k, {
    seat: 0,
    ruleset: "club",
    pattern: { players: 4, deck_size: 32, first_dealer_from: null },
    commitment: bytesToHex(sha256(hexToBytes(SERVER_SEED))),
    commitment_seen_at: T0,
    commitment_live: true,
    commitment_at_ms: T0 - 40,
    chain: "quicknet",
    window_closes_at_ms: T0 + 20_000,
    last_round: roundAt("quicknet", T0 + 20_000) + 1,
    round_lead_ms: 0,
    salted: true,
    my_seed: MY_SEED,
    my_seed_sent_at: T0,
    receipt: { match_id: "m-1", seat: 0, seed_sha256: bytesToHex(sha256(hexToBytes(MY_SEED))), stream: "randomness-m-1", version: 2, at_ms: T0 },
    receipt_at: T0 + 100,
    seed_received: { seed: MY_SEED, stream: "randomness-m-1", version: 2 },
    seat_seeds: [MY_SEED, "", "b2".repeat(16), ""],
    missing_seeds: [],
    window_closed_at: T0 + 900,
    seeds_in_at_ms: T0 + 900,
    drand_round: 1001,
    drand_round_seen_at: T0 + 900,
    drand_round_live: true,
    drand: beacon(1001),
    drand_seen_at: DUE(1001) + 300,
    drand_seen: { 1000: seen(1000, T0 + 40, "latest"), 1001: seen(1001, DUE(1001) + 100) },
    ended: { event: "MatchEnded", version: 99 },
    reveal: { server_seed: SERVER_SEED, via: "randomness", seen_at: DUE(1001) + 60_000 },
  });
  return k;
}

/** The same match dealt without drand (round 1001 declared missed, told at due + 5 s). */
function fallback() {
  const k = base();
  k.drand = null;
  k.fallback = { round: 1001, reason: "no verified drand value by the round's due time + 5 s" };
  k.fallback_seen_at = DUE(1001) + 5_060;
  k.fallback_live = true;
  k.drand_seen = { 1000: seen(1000, T0 + 40, "latest") };
  return k;
}

/** The same match under the lead (docs/specification.md §6.3): the commitment records 6 s,
 * so the seeds in at T0 + 0.9 s name round 1003, the first due more than 6 s later (not
 * 1001, the next round), and the last round is the rule's for the window's end, 1009. */
const LEAD = 6_000;
function leadBase() {
  const k = base();
  Object.assign(k, {
    round_lead_ms: LEAD,
    last_round: roundAt("quicknet", T0 + 20_000 + LEAD) + 1,
    drand_round: 1003,
    drand: beacon(1003),
    drand_seen_at: DUE(1003) + 300,
    drand_seen: { 1000: seen(1000, T0 + 40, "latest"), 1003: seen(1003, DUE(1003) + 100) },
  });
  return k;
}

const down = async () => {
  throw new TypeError("Failed to fetch");
};
const VERIFY = "https://verify.test";
/** The check at the end, the relays down (unless ``options.fetchImpl`` says otherwise) and
 * the verify API listing this match alone under its commitment (unless ``uses`` says). */
const check = async (k, options = {}, uses = { matches: [k.match_id] }) => {
  const fetchImpl = verifyNetwork(VERIFY, uses, options.fetchImpl ?? down).fetchImpl;
  return checkKept(k, { relays: ["https://relay.drand.test"], verifyApi: VERIFY, sleep: async () => {}, ...options, fetchImpl });
};
const one = async (k, name, options, uses) => {
  const result = await check(k, options, uses);
  const found = result.checks.filter((c) => c.name === name);
  assert.equal(found.length, 1, `${name}: ${JSON.stringify(result.checks)}`);
  return { ...found[0], result };
};
/** What checkLive says has failed, by default long after everything happened. */
const liveNames = (k, now = Number.MAX_SAFE_INTEGER) => checkLive(k, now).failed.map((c) => c.name);

test("the honest match kept by hand passes every check, and is ok", async () => {
  const result = await check(base());
  assert.deepEqual(
    result.checks.map((c) => [c.name, c.status]),
    [
      ["commitment", "pass"],
      ["commitment bounds", "pass"],
      ["commitment new", "pass"],
      ["salts", "pass"],
      ["your seed", "pass"],
      ["drand round", "pass"],
      ["drand value", "pass"],
      ["drand relay", "pass"],
      ["hashes", "pass"],
    ],
  );
  assert.deepEqual([result.ok, result.failed, result.unchecked, result.complete], [true, false, [], true]);
  assert.deepEqual(checkLive(base(), 1).failed, []);
});

test("the tolerances are the documented ones", () => {
  assert.deepEqual({ ...TOLERANCE }, { graceMs: 5000, seenMs: 250, clockMs: 2000, toldMs: 2000, cadenceMs: 1000, namingMs: 2500, seedTripMs: 2000, maxWindowMs: 600_000, maxLeadMs: 60_000, replyMs: 5000 });
  assert.ok(Object.isFrozen(TOLERANCE));
});

// --- commitment bounds

test("commitment bounds: what the commitment fixes, and when it was shown", async () => {
  let k = base();
  k.last_round = null;
  let c = await one(k, "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /fixes no last round/);
  assert.deepEqual(liveNames(k), ["commitment bounds"]);

  k = base();
  k.last_round += 1;
  assert.match((await one(k, "commitment bounds")).detail, /is not the first after its window's end/);

  k = base();
  k.window_closes_at_ms = T0 + TOLERANCE.maxWindowMs + TOLERANCE.clockMs + 1;
  k.last_round = roundAt("quicknet", k.window_closes_at_ms) + 1;
  assert.match((await one(k, "commitment bounds")).detail, /longer than the 600 s allowed/);

  k = base();
  k.drand_round = k.last_round + 1;
  k.drand = null;
  c = await one(k, "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /past round \d+, the last the commitment allowed/);
  assert.ok(liveNames(k).includes("commitment bounds"));
});

test("commitment bounds: the last round must not be out when the commitment is seen", async () => {
  // A commitment whose window ended long ago, shown now.
  const late = (seenAfterDue, live = true) => {
    const k = base();
    k.window_closes_at_ms = T0 - 30_000;
    k.last_round = roundAt("quicknet", k.window_closes_at_ms) + 1;
    k.commitment_seen_at = DUE(k.last_round) + seenAfterDue;
    k.commitment_live = live;
    k.drand_round = k.last_round;
    k.drand = null;
    k.drand_seen = {};
    return k;
  };
  let c = await one(late(TOLERANCE.clockMs + 1), "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /by this tab's clock, round \d+, the last the match may name, was due 2\.0 s before the commitment was shown/);
  const shown = late(TOLERANCE.clockMs + 1);
  assert.ok(liveNames(shown).includes("commitment bounds"));
  assert.ok(!liveNames(shown, shown.commitment_seen_at + TOLERANCE.clockMs - 1).includes("commitment bounds"), "its own relays may still answer");
  // They answer, after it, that the latest round is an earlier one: the clock is wrong.
  shown.drand_seen = { [shown.last_round - 1]: seen(1000, shown.commitment_seen_at + 40, "latest") };
  assert.equal((await one(shown, "commitment bounds")).status, "pass");
  assert.equal((await one(late(TOLERANCE.clockMs - 1), "commitment bounds")).status, "pass");
  c = await one(late(60_000, false), "commitment bounds");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: this tab first saw the commitment in a catch-up/);
  // Its own observation: the last round's value 300 ms before the commitment.
  const k = late(0);
  k.drand_seen = { [k.last_round]: seen(1000, k.commitment_seen_at - 300, "latest") }; // (any signature: kept as seen)
  c = await one(k, "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /had round \d+'s value from https:\/\/relay\.drand\.test 0\.3 s before it saw the commitment/);
});

test("commitment bounds and drand round: the rule with the commitment's lead", async () => {
  const honest = leadBase();
  assert.deepEqual([honest.last_round, honest.drand_round], [1009, 1003]);
  const result = await check(honest);
  assert.deepEqual(failedNames(result), [], JSON.stringify(result.checks));
  assert.equal(result.ok, true);
  const bounds = result.checks.find((c) => c.name === "commitment bounds");
  assert.equal(bounds.status, "pass");
  assert.match(bounds.detail, /fixes round 1009 as the last the match may name \(the rule's for its window's end, with its lead of 6\.0 s\)/);

  // The last round reckoned without the lead (the first after the window's end).
  let k = leadBase();
  k.last_round = roundAt("quicknet", k.window_closes_at_ms) + 1;
  let c = await one(k, "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /last round 1007 is not the rule's for its window's end, with its lead of 6\.0 s \(round 1009\)/);
  assert.ok(liveNames(k).includes("commitment bounds"));

  // A lead out of bounds.
  k = leadBase();
  k.round_lead_ms = TOLERANCE.maxLeadMs + 1;
  c = await one(k, "commitment bounds");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /lead of the round, 60001 ms, is outside the 0\.\.60000 ms allowed/);

  // The next round named, as before the lead: too early, whatever this tab saw.
  k = leadBase();
  Object.assign(k, { drand_round: 1001, drand: beacon(1001), drand_seen: { 1000: seen(1000, T0 + 40, "latest"), 1001: seen(1001, DUE(1001) + 100) } });
  c = await one(k, "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /round 1001 was named, earlier than the rule's round 1003 \(the first due more than the commitment's lead of 6\.0 s after the window closed\): it may have been out when named/);
  assert.deepEqual(liveNames(k), ["drand round"], "known as soon as the round is named");
  // A later one is not the rule's either (a round waited for).
  k = leadBase();
  Object.assign(k, { drand_round: 1004, drand: null, drand_seen: { 1000: seen(1000, T0 + 40, "latest") } });
  assert.match((await one(k, "drand round")).detail, /round 1004 was named, not the rule's round 1003/);

  // The lead not shown (only the table's copy of the commitment, which may lack it): the
  // bounds cannot pass, nothing fails during the match, and the naming is judged by what
  // this tab saw.
  k = leadBase();
  k.round_lead_ms = null;
  assert.deepEqual(liveNames(k), []);
  c = await one(k, "commitment bounds");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /not shown the commitment's lead of the round/);
  assert.equal((await one(k, "drand round")).status, "pass");
});

// --- drand round

test("drand round: a value this tab had before the naming fails, past 250 ms", async () => {
  const named = (before) => {
    const k = base();
    k.drand_round_seen_at = DUE(1001) + 100 + before;
    return k;
  };
  let c = await one(named(TOLERANCE.seenMs + 1), "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /had round 1001's value from https:\/\/relay\.drand\.test 0\.3 s before it saw round 1001 named/);
  assert.deepEqual(liveNames(named(TOLERANCE.seenMs + 1)), ["drand round"]);
  assert.equal((await one(named(TOLERANCE.seenMs - 1), "drand round")).status, "pass");
  // A later round's value means the named one was out too.
  const k = base();
  k.drand_seen = { 1000: seen(1000, T0 + 40, "latest"), 1002: seen(1002, T0 + 50, "latest") };
  k.drand_round_seen_at = T0 + 900;
  c = await one(k, "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /round 1002's value \(after round 1001\)/);
  assert.deepEqual(hadAt(k, 1001).round, 1002);
});

test("drand round: without an observation of its own, drand's schedule on the tab's clock", async () => {
  const blind = (namedAfterDue, seenBy = {}) => {
    const k = base();
    k.drand_seen = seenBy;
    k.drand_round_seen_at = DUE(1001) + namedAfterDue;
    k.window_closed_at = Math.min(k.window_closed_at, k.drand_round_seen_at); // the close comes first
    return k;
  };
  let c = await one(blind(TOLERANCE.clockMs + 1), "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /by this tab's clock, round 1001 was due 2\.0 s before the table named it/);
  // During the match: once the tab's own relays had clockMs to answer, and none did.
  const named = blind(TOLERANCE.clockMs + 1).drand_round_seen_at;
  assert.deepEqual(liveNames(blind(TOLERANCE.clockMs + 1), named + TOLERANCE.clockMs - 1), []);
  assert.deepEqual(liveNames(blind(TOLERANCE.clockMs + 1), named + TOLERANCE.clockMs), ["drand round"]);
  // An answer of its own relays after the naming, that the latest round was an earlier
  // one, covers it: the clock (here 2 s fast, say) is not asked.
  const told = blind(TOLERANCE.clockMs + 1, { 1000: seen(1000, named + 30, "latest") });
  assert.deepEqual(liveNames(told), []);
  told.drand_seen["1001"] = seen(1001, named + 900);
  assert.equal((await one(told, "drand round")).status, "pass");
  c = await one(blind(TOLERANCE.clockMs - 1), "drand round");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check that round 1001 was not out when named: no drand relay answered this tab while it was named; by this tab's clock it was named 2\.0 s after it was due/);
  assert.equal(c.result.ok, false);
  assert.equal(c.result.failed, false);
  assert.deepEqual(c.result.unchecked, ["drand round", "drand relay"], "the relay, asked now, is down too");
  // Only a relay the server named answered: a messenger it runs may be late on purpose.
  const server = { 1000: seen(1000, T0 + 40, "latest", "server"), 1001: seen(1001, DUE(1001) + 3_000, "next", "server") };
  c = await one(blind(-2_000, server), "drand round");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /only relays the server named answered/);
  assert.equal((await one(blind(2_500, server), "drand round")).status, "fail");
});

test("drand round: an observation of its own covers the naming, whatever the clock says", async () => {
  // The device's clock runs 4 s fast: the naming looks late on it, but the tab had the
  // round's value only after it saw the round named, on the same clock.
  const k = base();
  const skew = 4_000;
  k.drand_seen = { 1000: seen(1000, T0 + skew + 40, "latest"), 1001: seen(1001, DUE(1001) + skew + 100) };
  k.drand_round_seen_at = DUE(1001) + skew - 500;
  assert.deepEqual(liveNames(k), [], "no failure during the match: an observation after the naming may come");
  const c = await one(k, "drand round");
  assert.equal(c.status, "pass");
  assert.match(c.detail, /first had it 0\.6 s after it saw the round named/);
});

test("drand round: a naming seen only in a catch-up", async () => {
  const k = base();
  k.drand_round_live = false;
  let c = await one(k, "drand round");
  assert.equal(c.status, "pass", "even the catch-up came before the value: it was named before");
  assert.match(c.detail, /only in a catch-up, and even then it did not have its value yet/);
  k.drand_round_seen_at = DUE(1001) + 10_000; // connected long after
  c = await one(k, "drand round");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: this tab saw round 1001 named only in a catch-up/);
  assert.deepEqual(liveNames(k), [], "a catch-up's time is not when it happened");
});

// --- drand round: the naming must come the commitment's lead before the round is due

test("attack: round 1003 named 0.14 s after this tab had its value (read at due + 0.1 s) fails by the lead", async () => {
  // The operator reads drand at due + 100 ms, then closes the window and names the round
  // 140 ms after this tab had the value from its own relay: within the 250 ms two
  // messages may cross, so "had it before the naming" cannot tell. Its own times are
  // consistent (the window closed, by them, more than the lead before round 1003).
  const attack = () => {
    const k = leadBase();
    k.window_closed_at = DUE(1003) + 240;
    k.drand_round_seen_at = DUE(1003) + 240;
    k.drand_seen_at = DUE(1003) + 400;
    return k;
  };
  const c = await one(attack(), "drand round");
  assert.equal(c.status, "fail", c.detail);
  assert.match(c.detail, /^by this tab's clock, round 1003 was due 0\.2 s before the table named it: a naming must reach this tab at least 3\.5 s before its round is due \(the commitment's lead of 6\.0 s less 2\.5 s for this tab's clock and the naming's way to it; its own drand relays show its clock at most 0\.1 s ahead\), and this one came 3\.7 s too late/);
  assert.equal(c.result.ok, false);
  // Known as soon as the round is named (its own relays had answered: the bound holds).
  assert.deepEqual(liveNames(attack(), DUE(1003) + 240), ["drand round"]);

  // Named before it was due, but too late for the lead: 1.0 s before (3.5 s needed).
  const k = leadBase();
  k.window_closed_at = k.drand_round_seen_at = DUE(1003) - 1_000;
  const late = await one(k, "drand round");
  assert.equal(late.status, "fail");
  assert.match(late.detail, /^by this tab's clock, round 1003 was named only 1\.0 s before it was due: .* 2\.5 s too late/);
});

test("drand round: the naming's lead, at the edge of namingMs, with and without an observation of its own", async () => {
  const need = LEAD - TOLERANCE.namingMs;
  const named = (before, drandSeen) => {
    const k = leadBase();
    k.window_closed_at = k.drand_round_seen_at = DUE(1003) - before;
    if (drandSeen) k.drand_seen = drandSeen;
    return k;
  };
  // Its own relays answered (its clock at most 0.1 s ahead): the edge is namingMs.
  assert.equal((await one(named(need), "drand round")).status, "pass");
  let c = await one(named(need - 1), "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /0\.0 s too late/);
  // No relay answered: the same edge on the device's clock (could not check otherwise).
  assert.equal((await one(named(need, {}), "drand round")).status, "unchecked");
  assert.equal((await one(named(need - 1, {}), "drand round")).status, "fail");
  // During the match: by the clock alone only once its own relays had clockMs to answer.
  const blind = named(need - 1, {});
  assert.deepEqual(liveNames(blind, blind.drand_round_seen_at + TOLERANCE.clockMs - 1), []);
  assert.deepEqual(liveNames(blind, blind.drand_round_seen_at + TOLERANCE.clockMs), ["drand round"]);
  // Its own relays show the device's clock 4 s fast: the naming is judged with it.
  const skew = 4_000;
  // (Named 5.6 s before it was due, 1.6 s by the clock: in time for the lead less 0.5 s.)
  const fast = named(LEAD - 400 - skew, { 1000: seen(1000, DUE(1000) + skew + 40, "latest"), 1003: seen(1003, DUE(1003) + skew + 100) });
  c = await one(fast, "drand round");
  assert.equal(c.status, "pass", c.detail);
  // ... and a clock its relays show 1 s slow gains nothing.
  const slow = named(need + 500, { 1000: seen(1000, DUE(1000) - 1_000 + 40, "latest"), 1003: seen(1003, DUE(1003) - 1_000 + 100) });
  c = await one(slow, "drand round");
  assert.equal(c.status, "fail", c.detail);
  assert.match(c.detail, /its own drand relays show its clock at least 1\.0 s behind/);
  // The lead of a commitment made before it (0): the next round, named up to namingMs
  // after it was due by the clock's rule alone (the old clock rule still fails past clockMs).
  const old = base();
  old.drand_round_seen_at = DUE(1001) + 100 + TOLERANCE.seenMs - 1;
  assert.equal((await one(old, "drand round")).status, "pass");
});

test("drand round: the seats' seeds come before the naming, and are covered by it", async () => {
  const k = leadBase();
  let c = await one(k, "drand round");
  assert.equal(c.status, "pass");
  assert.match(c.detail, /the seats' seeds, which the window's close listed when this tab saw it \(0\.0 s before the naming\), are covered by it/);
  // The close shown after the naming: a seed shown after it is not covered.
  k.window_closed_at = k.drand_round_seen_at + TOLERANCE.seenMs + 1;
  c = await one(k, "drand round");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /the seats' seeds \(the window's close\) reached this tab 0\.3 s after it saw round 1003 named/);
  assert.deepEqual(liveNames(k), ["drand round"]);
});

test("drand round: 'before' and 'after' say which came first (the value 0.14 s before the naming)", async () => {
  // Within the 250 ms two messages may cross: a pass, but said the right way round.
  const k = base();
  k.drand_round_seen_at = DUE(1001) + 100 + 140;
  k.window_closed_at = k.drand_round_seen_at;
  const c = await one(k, "drand round");
  assert.equal(c.status, "pass");
  assert.match(c.detail, /first had it 0\.1 s before it saw the round named \(within the 0\.25 s two messages may cross\)/);
  assert.doesNotMatch(c.detail, /s after it saw the round named/);
  // The same in a catch-up.
  k.drand_round_live = false;
  const u = await one(k, "drand round");
  assert.match(u.detail, /0\.1 s before it saw the round named/);
});

// --- your seed

test("your seed: the receipt is honoured at the window's close and at the end", async () => {
  let k = base();
  k.seat_seeds = ["", "", "b2".repeat(16), ""];
  k.missing_seeds = [0];
  k.seed_received = null;
  let c = await one(k, "your seed");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /acknowledged your seed \(receipt: randomness-m-1, version 2\), then the window closed showing no seed for your seat/);
  assert.deepEqual(liveNames(k), ["your seed"]);

  k = base();
  k.seat_seeds[0] = "c3".repeat(16);
  assert.match((await one(k, "your seed")).detail, /window closed showing c3c3.* for your seat instead of a1a1/);
  assert.deepEqual(liveNames(k), ["your seed"]);

  k = base();
  k.receipt.seed_sha256 = "00".repeat(32);
  assert.match((await one(k, "your seed")).detail, /is not for the seed this tab sent/);

  k = base();
  k.seed_received = { ...k.seed_received, version: 3 };
  assert.match((await one(k, "your seed")).detail, /is randomness-m-1 version 3 .*the receipt named randomness-m-1 version 2/);
  assert.deepEqual(liveNames(k), ["your seed"]);

  k = base();
  k.seed_received = null; // never shown the event: known only at the end
  assert.deepEqual(liveNames(k), []);
  c = await one(k, "your seed");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /never shown the event recording your seed \(receipt: randomness-m-1, version 2\)/);
});

test("your seed: without a receipt", async () => {
  const missing = () => {
    const k = base();
    k.receipt = null;
    k.seat_seeds = ["", "", "b2".repeat(16), ""];
    k.missing_seeds = [0];
    return k;
  };
  let c = await one(missing(), "your seed");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /^the seed this tab sent was not used/);
  assert.deepEqual(liveNames(missing()), ["your seed"]);
  // Sent as the window closed (on the tab's clock) and refused as late: honest, in a
  // record without the commitment's own time (an older page; otherwise the window's
  // length from the commitment's sight decides, below).
  let k = missing();
  k.commitment_at_ms = null;
  k.my_seed_sent_at = k.window_closes_at_ms - TOLERANCE.clockMs + 10;
  k.seed_refused = { code: "seed_window_closed", at: k.window_closes_at_ms + 50 };
  c = await one(k, "your seed");
  assert.equal(c.status, "info");
  assert.match(c.detail, /sent your seed only as the seed window closed, and the server refused it as late/);
  // Sent 20 s before the end, refused as late once the end had come: held back.
  k = missing();
  k.seed_refused = { code: "seed_window_closed", at: k.window_closes_at_ms + 50 };
  c = await one(k, "your seed");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /^the seed this tab sent was not used \(this tab sent it 20\.0 s before the window's end\)/);
  // Used, without a receipt (it was lost in a reload): the close shows it.
  k = base();
  k.receipt = null;
  assert.equal((await one(k, "your seed")).status, "pass");
  // Another tab sent it: this one cannot say.
  k.my_seed = null;
  c = await one(k, "your seed");
  assert.equal(c.status, "unchecked");
  assert.equal(c.result.ok, false);
  // A spectator has no seed.
  k.seat = null;
  assert.equal((await one(k, "your seed")).status, "info");
});

test("attack: seed starvation, the commitment shown 18 s late, 1.9 s before the window's end: the refusal as late fails", async () => {
  // The server commits at T0 with a 20 s window, but shows this tab the commitment only
  // 18.1 s later; the tab sends its seed at once, and the server refuses it as late: the
  // deals use none for this seat. Its own times are honest; only when this tab saw the
  // commitment tells.
  const starved = () => {
    const k = base();
    Object.assign(k, {
      commitment_at_ms: T0,
      commitment_seen_at: T0 + 18_100,
      my_seed_sent_at: T0 + 18_100,
      receipt: null,
      receipt_at: null,
      seed_received: null,
      seed_refused: { code: "seed_window_closed", at: T0 + 20_050 },
      seat_seeds: ["", "", "b2".repeat(16), ""],
      missing_seeds: [0],
    });
    return k;
  };
  const c = await one(starved(), "your seed");
  assert.equal(c.status, "fail", c.detail);
  assert.match(c.detail, /^the seed this tab sent was not used \(this tab sent it 1\.9 s before the window's end\): the server refused it as late, though this tab sent it 0\.0 s after it first saw the commitment, within the window's 20\.0 s less 2\.0 s/);
  assert.equal(c.result.ok, false);
  assert.deepEqual(liveNames(starved()), ["your seed"], "known at the window's close");
  // Recorded missing without a refusal: the same.
  const silent = starved();
  silent.seed_refused = null;
  const s = await one(silent, "your seed");
  assert.equal(s.status, "fail");
  assert.match(s.detail, /^the seed this tab sent was not used .*the window closed showing none for your seat/);
});

test("your seed: lateness is judged from when this tab first saw the commitment (the window's length less seedTripMs)", async () => {
  const late = (after, { live = true, refused = true } = {}) => {
    const k = base();
    Object.assign(k, {
      commitment_at_ms: T0 - 40,
      commitment_live: live,
      my_seed_sent_at: T0 + after,
      receipt: null,
      receipt_at: null,
      seed_received: null,
      seed_refused: refused ? { code: "seed_window_closed", at: T0 + after + 100 } : null,
      seat_seeds: ["", "", "b2".repeat(16), ""],
      missing_seeds: [0],
    });
    return k;
  };
  const W = 20_040; // window_closes_at_ms - commitment_at_ms
  // An honest late sender: the page asleep, its seed sent after the whole window.
  let c = await one(late(W + 500), "your seed");
  assert.equal(c.status, "info", c.detail);
  assert.match(c.detail, /^this tab sent your seed 20\.5 s after it first saw the commitment, more than the window's 20\.0 s less 2\.0 s: late by its own doing .*the server refused it as late/);
  assert.deepEqual(liveNames(late(W + 500)), []);
  // The edge: more than W - seedTripMs after it is its own doing; not more, the server's.
  assert.equal((await one(late(W - TOLERANCE.seedTripMs + 1), "your seed")).status, "info");
  assert.equal((await one(late(W - TOLERANCE.seedTripMs), "your seed")).status, "fail");
  // Missing without a refusal, sent late by the tab: info too.
  c = await one(late(W + 500, { refused: false }), "your seed");
  assert.equal(c.status, "info");
  assert.match(c.detail, /the window closed without it/);
  // The commitment seen only in a catch-up (on connecting): the tab could not send before.
  c = await one(late(0, { live: false }), "your seed");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: this tab first saw the commitment only in a catch-up/);
  assert.deepEqual(liveNames(late(0, { live: false })), []);
  // A record without the commitment's own time (an older page): as the window closed,
  // by the tab's clock, is late.
  const older = late(20_000 - TOLERANCE.clockMs + 10);
  older.commitment_at_ms = null;
  c = await one(older, "your seed");
  assert.equal(c.status, "info");
  assert.match(c.detail, /sent your seed only as the seed window closed/);
  // The keeper keeps the commitment's own time (ServerSeedCommitted.at_ms), first sight wins.
  const k = newKept("m-1", "t-1", "ann");
  const msg = (payload) => ({ type: "event", stream: "randomness-m-1", version: 1, event: "ServerSeedCommitted", payload, visibility: "public" });
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 1009, seats: [{ seat: 0, player: "ann" }], at_ms: T0 - 40 };
  keep(k, msg(commit), {}, T0);
  assert.equal(k.commitment_at_ms, T0 - 40);
  keep(k, msg({ ...commit, at_ms: T0 }), {}, T0 + 1);
  assert.match(conflictText(k.conflicts.at(-1)), /when the commitment was made/);
});

test("your seed: the window's close may overtake the reply with the receipt", async () => {
  // The only human seed closes the window in the same append: the close can come on the
  // WebSocket before the seed's reply. While the reply is due the live check waits...
  const k = base();
  k.receipt = null;
  k.seat_seeds = ["", "", "b2".repeat(16), ""];
  k.missing_seeds = [0];
  k.seed_reply_due = T0;
  const at = (ms) => checkLive(k, T0 + ms).failed.map((c) => c.name);
  assert.deepEqual(at(TOLERANCE.replyMs - 1), []);
  // ... and judges once it is overdue, or at the end, whatever.
  assert.deepEqual(at(TOLERANCE.replyMs), ["your seed"]);
  assert.equal((await one(k, "your seed")).status, "fail");
  // The reply came with its receipt: the dropped seed is named by it.
  keepReceipt(k, base().receipt, T0 + 200);
  k.seed_reply_due = null;
  const c = checkLive(k, T0 + 300).failed.find((x) => x.name === "your seed");
  assert.match(c.detail, /the server acknowledged your seed \(receipt: randomness-m-1, version 2\), then the window closed showing no seed/);
});

// --- drand value and relay

test("drand value: the BLS signature against the pinned key, for the named round", async () => {
  let k = base();
  k.drand.signature = BEACONS[1002].signature;
  k.drand.randomness = bytesToHex(sha256(hexToBytes(k.drand.signature)));
  let c = await one(k, "drand value");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /not drand's: the signature does not verify for round 1001/);
  assert.deepEqual(liveNames(k), ["drand value"]);
  k = base();
  k.drand = beacon(1002);
  assert.match((await one(k, "drand value")).detail, /round 1001 was named, but the value of round 1002 was used/);
  k = base();
  k.drand.randomness = "cd".repeat(32);
  assert.match((await one(k, "drand value")).detail, /is not SHA-256 of the signature/);
});

test("drand relay: the tab's own fetch; relays that answer, lie, are early or down", async () => {
  const asked = () => {
    const k = base();
    delete k.drand_seen["1001"];
    return k;
  };
  const sim = new Sim(DUE(1001) + 60_000);
  const honest = { url: "https://relay.drand.test", source: "tab", mode: "honest", produced: { 1001: DUE(1001) } };
  let c = await one(asked(), "drand relay", { relays: [honest], fetchImpl: relayNetwork([honest], BEACONS, sim).fetchImpl });
  assert.equal(c.status, "pass");
  assert.match(c.detail, /asking now, from https:\/\/relay\.drand\.test/);
  const lying = { ...honest, mode: "lying" };
  c = await one(asked(), "drand relay", { relays: [lying], fetchImpl: relayNetwork([lying], BEACONS, sim).fetchImpl });
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: no drand relay served a beacon of round 1001 that verifies: 1 served a false one/);
  const early = { ...honest, produced: {} }; // 425: not produced yet, as far as it knows
  sim.frozen = true;
  c = await one(asked(), "drand relay", { relays: [early], fetchImpl: relayNetwork([early], BEACONS, sim).fetchImpl });
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /HTTP 425.*compare with https:\/\/api\.drand\.sh\/52db9ba7/);
  c = await one(asked(), "drand relay", { relays: [], fetchImpl: down });
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: no drand relay to ask; compare with https:\/\/api\.drand\.sh/);
  assert.equal(c.result.ok, false, "never ok");
});

// --- drand fallback

test("drand fallback: the value in time by this tab's own observation fails it", async () => {
  const had = (before, live = true) => {
    const k = fallback();
    k.drand_seen["1001"] = seen(1001, k.fallback_seen_at - before);
    k.fallback_live = live;
    return k;
  };
  let c = await one(had(TOLERANCE.toldMs + 1), "drand fallback");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /had round 1001's value from https:\/\/relay\.drand\.test 2\.0 s before the table said it was late/);
  assert.deepEqual(liveNames(had(TOLERANCE.toldMs + 1)), ["drand fallback"]);
  c = await one(had(TOLERANCE.toldMs - 1), "drand fallback");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check that drand was late .*the platform's fallback rate is at https:\/\/verify\.test\/v1\/stats$/);
  assert.equal((await one(had(4_000, false), "drand fallback")).status, "unchecked", "told in a catch-up: not when it was told");
});

test("drand fallback: the round came less than period + grace - 1 s after the one before", async () => {
  const cadence = (gap, { how = "next", prevAfterDue = 100 } = {}) => {
    const k = fallback();
    k.fallback_live = false; // only the cadence can tell
    const prev = DUE(1000) + prevAfterDue;
    k.drand_seen = { 1000: seen(1000, prev, how), 1001: seen(1001, prev + gap) };
    return k;
  };
  const limit = 3_000 + TOLERANCE.graceMs - TOLERANCE.cadenceMs;
  let c = await one(cadence(limit - 1), "drand fallback");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /had round 1001's value 7\.0 s after round 1000's, which came on time/);
  assert.equal((await one(cadence(limit + 1), "drand fallback")).status, "unchecked");
  assert.equal((await one(cadence(3_000, { how: "latest" }), "drand fallback")).status, "unchecked", "the round before learnt as the latest: when it came is unknown");
  assert.equal((await one(cadence(3_000, { prevAfterDue: TOLERANCE.clockMs + 1 }), "drand fallback")).status, "unchecked", "the round before was late itself");
});

test("drand fallback: no observation is 'could not check', never ok; another round fails", async () => {
  let c = await one(fallback(), "drand fallback");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /no drand relay gave this tab round 1001's value/);
  // (Without the named round's value, when it came out cannot be told either.)
  assert.deepEqual([c.result.ok, c.result.failed, c.result.unchecked], [false, false, ["drand round", "drand fallback"]]);
  const k = fallback();
  k.fallback.round = 1002;
  c = await one(k, "drand fallback");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /names round 1002, but round 1001 was named/);
});

// --- the salts, the hashes, the commitment's other uses

/** base() with this seat's cards of deal 0 (first and completion) and deal 1 (first),
 * each with the recipe's salt at seat 0's index at 4 seats. (The cards are made up: only
 * the salts' checks are read here.) */
async function withCards(k = base()) {
  const seed = hexToBytes(SERVER_SEED);
  const [f0, c0] = await dealSalts(seed, 0, [saltIndex(4, 0, FIRST), saltIndex(4, 0, COMPLETION)]);
  const [f1] = await dealSalts(seed, 1, [saltIndex(4, 0, FIRST)]);
  // A pattern of the right shape: the deals' own checks fail on these cards, but run.
  k.pattern = { players: 4, deck_size: 32, first_dealer_from: null, first: [[0], [1], [2], [3]], completion: Array.from({ length: 4 }, () => [[4], [5], [6], [7]]), turned: 20, shown: null };
  const deal = (n, first, completion) => ({ deal: n, dealer: 3, turned: "JH", first, completion, taker: completion ? 1 : null, strain: null, misere: false, bottom: null, abandoned: null, version: 1 });
  k.deals = { 0: deal(0, { version: 3, cards: ["AS"], salt: f0 }, { version: 9, cards: ["KS"], salt: c0 }), 1: deal(1, { version: 12, cards: ["QS"], salt: f1 }, null) };
  return k;
}

test("salts: the commitment must promise them, failed from the moment it is seen", async () => {
  const k = base();
  let c = await one(k, "salts");
  assert.equal(c.status, "pass");
  k.salted = false;
  c = await one(k, "salts");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /^the commitment does not promise salts: the match's hidden events \(the deck, each seat's cards\) are hashed without one/);
  assert.equal(c.result.ok, false);
  assert.deepEqual(liveNames(k, T0), ["salts"]);
  k.salted = null; // the fair deal's commitment was not shown: only the table's copy
  c = await one(k, "salts");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: this tab was not shown the fair deal's commitment \(ServerSeedCommitted\)/);
  assert.deepEqual(liveNames(k), []);
  k.format = "belot-tab-kept/3";
  assert.match((await one(k, "salts")).detail, /^could not check: this tab's record of the match was begun by an older page/);
});

test("the keeper keeps whether the commitment promises salts; another answer later is a conflict", () => {
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 1009, round_lead_ms: 0, seats: [{ seat: 0, player: "ann" }], at_ms: 1 };
  const msg = (payload) => ({ type: "event", stream: "randomness-m-1", version: 1, event: "ServerSeedCommitted", payload, visibility: "public" });
  let k = newKept("m-1", "t-1", "ann");
  keep(k, msg({ ...commit, salted: true }), {}, T0);
  assert.equal(k.salted, true);
  keep(k, msg({ ...commit, salted: true }), {}, T0 + 1);
  assert.deepEqual(k.conflicts, []);
  keep(k, msg(commit), {}, T0 + 2); // shown again without the promise
  assert.match(conflictText(k.conflicts.at(-1)), /whether the commitment promises salts was shown as true, later as false/);
  k = newKept("m-1", "t-1", "ann");
  keep(k, msg(commit), {}, T0); // a commitment without the field promises none
  assert.equal(k.salted, false);
  assert.ok(liveNames(k, T0).includes("salts"));
});

test("a conflict is kept as facts and said in the language of the moment, never twice", () => {
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 1009, round_lead_ms: 0, seats: [{ seat: 0, player: "ann" }], at_ms: 1 };
  const msg = (payload) => ({ type: "event", stream: "randomness-m-1", version: 1, event: "ServerSeedCommitted", payload, visibility: "public" });
  const k = newKept("m-1", "t-1", "ann");
  keep(k, msg({ ...commit, salted: true }), {}, T0);
  keep(k, msg(commit), {}, T0 + 1);
  assert.equal(k.conflicts.length, 1);
  assert.deepEqual(k.conflicts[0], { said: "shown_twice", facts: { what: "salted", first: "true", later: "false" } });
  try {
    setLanguage("ru");
    const ru = conflictText(k.conflicts[0]);
    assert.match(ru, /[а-я]/);
    assert.doesNotMatch(ru, /was shown as/);
    keep(k, msg(commit), {}, T0 + 2); // the same conflict again, another language now
    assert.equal(k.conflicts.length, 1);
    const failed = checkLive(k, T0 + 3).failed.filter((c) => c.name === "consistency");
    assert.deepEqual(failed.map((c) => c.detail), [ru]); // the check says it in Russian too
  } finally {
    setLanguage("en");
  }
  assert.match(conflictText(k.conflicts[0]), /^whether the commitment promises salts was shown as true, later as false$/);
  // A record kept by an older page holds words: said as they were.
  assert.equal(conflictText("the ruleset was shown as 1, later as 2"), "the ruleset was shown as 1, later as 2");
});

test("the keeper keeps each of the seat's cards with its salt, its part by the bidding", () => {
  const k = newKept("m-1", "t-1", "ann");
  let v = 0;
  const ev = (event, payload, visibility = "public") => ({ type: "event", stream: "match-m-1", version: ++v, event, payload, visibility });
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: 1, last_round: 2, round_lead_ms: 0, seats: [{ seat: 0, player: "ann" }], salted: true };
  keep(k, { type: "event", stream: "randomness-m-1", version: 1, event: "ServerSeedCommitted", payload: commit, visibility: "public" });
  const S = (n) => String(n).repeat(32);
  keep(k, ev("DealStarted", { deal_number: 0, dealer: 3, turned: "JH" }));
  const first = ev("CardsDealt", { seat: 0, cards: ["AS", "KS"], salt: S(1) }, "seat:0");
  keep(k, first);
  keep(k, ev("CardsDealt", { seat: 1, cards: ["QS"], salt: S(2) }, "seat:1")); // another seat's: not kept
  keep(k, ev("ContractTaken", { seat: 1, strain: "S" }));
  keep(k, ev("CardsDealt", { seat: 0, cards: ["9S"], salt: S(3) }, "seat:0"));
  assert.deepEqual([k.deals["0"].first.salt, k.deals["0"].completion.salt], [S(1), S(3)]);
  // Shown again (a reconnection): the same is nothing new; another salt is a conflict.
  assert.equal(keep(k, first), false);
  keep(k, { ...first, payload: { ...first.payload, salt: S(4) } });
  assert.match(conflictText(k.conflicts.at(-1)), /^the salt of your first cards of deal 0 was shown as "1{32}", later as "4{32}"$/);
  // The first cards not seen, the contract taken: what comes is the completion.
  keep(k, ev("DealStarted", { deal_number: 1, dealer: 0, turned: "TH" }));
  keep(k, ev("MisereStarted", {}));
  keep(k, ev("CardsDealt", { seat: 0, cards: ["7H"], salt: S(5) }, "seat:0"));
  assert.deepEqual([k.deals["1"].first, k.deals["1"].completion.salt], [null, S(5)]);
  // An event without a salt (a match before them) is kept with none.
  keep(k, ev("DealStarted", { deal_number: 2, dealer: 1, turned: "TC" }));
  keep(k, ev("CardsDealt", { seat: 0, cards: ["8H"] }, "seat:0"));
  assert.equal(k.deals["2"].first.salt, null);
  // Cards kept by an older page, before the salts: the salt shown again fills them in.
  keep(k, ev("DealStarted", { deal_number: 3, dealer: 2, turned: "TD" }));
  const older = ev("CardsDealt", { seat: 0, cards: ["8D"], salt: S(6) }, "seat:0");
  keep(k, older);
  delete k.deals["3"].first.salt;
  const conflicts = k.conflicts.length;
  assert.equal(keep(k, older), true);
  assert.equal(k.deals["3"].first.salt, S(6));
  assert.equal(k.conflicts.length, conflicts);
});

test("your salts: each its own and well formed, at once; the recipe's once the seed is revealed", async () => {
  let k = await withCards();
  let c = await one(k, "your salts");
  assert.equal(c.status, "pass", c.detail);
  assert.equal(c.detail, "each of the 3 events that dealt you cards came with its own salt, the recipe's from the revealed seed");
  assert.deepEqual(liveNames(k), []);
  const failsAtOnce = async (edit, said) => {
    const x = await withCards();
    edit(x);
    const got = await one(x, "your salts");
    assert.equal(got.status, "fail");
    assert.match(got.detail, said);
    assert.match(got.detail, /a hidden event without its own salt can be searched, from its hash, for your cards/);
    assert.deepEqual(liveNames(x), ["your salts"]);
  };
  await failsAtOnce((x) => (x.deals[1].first.salt = ""), /^your first cards of deal 2 came without a salt/);
  await failsAtOnce((x) => (x.deals[1].first.salt = null), /^your first cards of deal 2 came without a salt/);
  await failsAtOnce((x) => (x.deals[1].first.salt = "AB".repeat(16)), /^the salt of your first cards of deal 2, "(AB){16}", is not 32 lower-case hexadecimal digits/);
  await failsAtOnce((x) => (x.deals[1].first.salt = "ab".repeat(15)), /is not 32 lower-case hexadecimal digits/);
  await failsAtOnce((x) => (x.deals[1].first.salt = x.deals[0].completion.salt), /^your first cards of deal 2 came with the salt of your completion cards of deal 1, [0-9a-f]{32}: two events, one salt/);
  // Zeros: well formed, and the seat's only such salt: only the recipe tells it, at the end.
  k = await withCards();
  k.deals[0].completion.salt = "00".repeat(16);
  assert.deepEqual(liveNames(k), []);
  c = await one(k, "your salts");
  assert.equal(c.status, "fail");
  const [want] = await dealSalts(hexToBytes(SERVER_SEED), 0, [5]);
  assert.equal(c.detail, `the salt of your completion cards of deal 1 is ${"00".repeat(16)}, the recipe gives ${want} (salt 5 of deck k=0): the server chose it, not the recipe from the seed it committed to`);
  // The seat's index: seat 0's salt where seat 1's is expected is not the recipe's.
  k = await withCards();
  k.seat = 1;
  assert.equal((await one(k, "your salts")).status, "fail");
  // The revealed seed is not the committed one: the commitment fails; the salts cannot be checked.
  k = await withCards();
  k.reveal.server_seed = "08".repeat(32);
  c = await one(k, "your salts");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check that the salts are the recipe's: the revealed seed is not the one committed to/);
  // Salts not promised: "salts" fails; nothing is said of the seat's own.
  k = await withCards();
  k.salted = false;
  for (const d of Object.values(k.deals)) for (const part of [d.first, d.completion]) if (part) part.salt = "";
  const result = await check(k);
  assert.deepEqual(result.checks.filter((x) => x.name === "your salts"), []);
  assert.ok(failedNames(result).includes("salts"));
  // Cards kept by an older page, without their salts: could not check.
  k = await withCards();
  delete k.deals[1].first.salt;
  c = await one(k, "your salts");
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: this tab kept your first cards of deal 2 before it kept their salts/);
  // No seat: nothing to say.
  k = await withCards();
  k.seat = null;
  assert.deepEqual((await check(k)).checks.filter((x) => x.name === "your salts"), []);
});

test("hashes: a hash of the match's stream served before the end fails, at once", async () => {
  let k = base();
  assert.equal((await one(k, "hashes")).status, "pass");
  k.ended = null;
  const msg = (extra) => ({ type: "event", stream: "match-m-1", version: 5, event: "CardPlayed", payload: { seat: 1, card: "AS" }, visibility: "public", ...extra });
  // None: no hash, a null one, another stream's.
  keep(k, msg({}), {}, T0);
  keep(k, msg({ hash: null }), {}, T0);
  keep(k, msg({ stream: "randomness-m-1", hash: "ee".repeat(32) }), {}, T0);
  assert.equal(k.hash_served, null);
  assert.equal(keep(k, msg({ hash: "cd".repeat(32) }), {}, T0 + 7), true);
  assert.deepEqual(k.hash_served, { via: "socket", stream: "match-m-1", version: 5, event: "CardPlayed", hash: "cd".repeat(32), at: T0 + 7 });
  assert.deepEqual(liveNames(k), ["hashes"]);
  k.ended = { event: "MatchEnded", version: 99 };
  const c = await one(k, "hashes");
  assert.equal(c.status, "fail");
  assert.equal(c.detail, `the server serves the hashes of a running match: another seat can search your cards with them (event 5 of match-m-1 (CardPlayed) came on the WebSocket with its hash, ${"cd".repeat(8)}…, before the match ended)`);
  // From the ending on, the hashes are everyone's.
  k = base();
  k.ended = null;
  keep(k, msg({ event: "MatchEnded", version: 98, payload: { scores: [1, 2] }, hash: "cd".repeat(32) }), {}, T0);
  keep(k, msg({ version: 99, hash: "cd".repeat(32) }), {}, T0);
  assert.equal(k.hash_served, null);
  // An older page did not look.
  k = base();
  k.format = "belot-tab-kept/3";
  assert.match((await one(k, "hashes")).detail, /^could not check: this tab's record of the match was begun by an older page, which did not look for hashes/);
});

test("hashes: the verify API's record of a running match must hold none (the replay page)", async () => {
  const ev = (version, type, hash) => ({ stream: "match-m-1", version, type, payload: {}, visibility: "public", hash });
  const record = (events, head = null) => ({ match_id: "m-1", streams: { match: { id: "match-m-1", head, events } } });
  assert.equal(recordHash(record([ev(1, "MatchStarted", null), ev(2, "DealStarted", null)]), 5), null);
  const running = record([ev(1, "MatchStarted", null), ev(2, "DealStarted", null), ev(3, "CardsDealt", "ab".repeat(32))]);
  assert.deepEqual(recordHash(running, 5), { via: "record", stream: "match-m-1", version: 3, event: "CardsDealt", hash: "ab".repeat(32), at: 5 });
  assert.deepEqual(recordHash(record([ev(1, "MatchStarted", null)], "ef".repeat(32)), 6), { via: "record", stream: "match-m-1", version: null, event: null, hash: "ef".repeat(32), at: 6 });
  // Ended: every hash is everyone's.
  assert.equal(recordHash(record([ev(1, "MatchStarted", "01".repeat(32)), ev(2, "MatchEnded", "02".repeat(32))], "02".repeat(32)), 7), null);
  assert.equal(recordHash({}, 1), null);
  const k = base();
  assert.equal(keepHashServed(k, recordHash(running, T0)), true);
  assert.equal(keepHashServed(k, recordHash(record([ev(1, "MatchStarted", null)], "ef".repeat(32)), T0 + 1)), false, "the first one is kept");
  const c = await one(k, "hashes");
  assert.equal(c.status, "fail");
  assert.equal(c.detail, `the server serves the hashes of a running match: another seat can search your cards with them (the verify API's record of the match, not ended, holds the hash of event 3 (CardsDealt), ${"ab".repeat(8)}…)`);
});

test("commitment new: another match under the commitment fails; no answer is 'could not check'", async () => {
  const k = base();
  let c = await one(k, "commitment new");
  assert.equal(c.status, "pass");
  assert.equal(c.detail, `the verify API lists this match alone under its commitment ${k.commitment.slice(0, 16)}…: its server seed was used once`);
  c = await one(k, "commitment new", {}, { matches: ["m-0", "m-1"] });
  assert.equal(c.status, "fail");
  assert.equal(c.detail, "the verify API lists match m-0 under this match's commitment too: a server seed used twice lets whoever saw it revealed after the first match compute every deck of the other from its public events while it runs");
  assert.equal(c.result.ok, false);
  c = await one(k, "commitment new", {}, { matches: ["m-1", "m-2", "m-3"] });
  assert.match(c.detail, /^the verify API lists matches m-2, m-3 under/);
  c = await one(k, "commitment new", {}, { matches: ["m-1"], down: true });
  assert.equal(c.status, "unchecked");
  assert.match(c.detail, /^could not check: the verify API did not answer \(Failed to fetch\)/);
  assert.equal(c.result.ok, false, "what could not be checked is never ok");
  c = await one(k, "commitment new", { verifyApi: null });
  assert.deepEqual([c.status, c.detail], ["unchecked", "could not check: this tab was not told the verify API's address, which says which matches used a commitment"]);
  // Answers that are not the commitment's list, or errors.
  const answering = (status, body) => async () => ({ ok: status === 200, status, json: async () => body });
  const at = (fetchImpl) => checkKept(k, { relays: [], fetchImpl, verifyApi: VERIFY, sleep: async () => {} });
  const said = async (fetchImpl) => (await at(fetchImpl)).checks.find((x) => x.name === "commitment new");
  c = await said(answering(500, { error: "unavailable" }));
  assert.deepEqual([c.status, c.detail], ["unchecked", `could not check: the verify API answered 500 to /v1/commitments/${k.commitment}`]);
  c = await said(answering(200, { commitment: "00".repeat(32), matches: ["m-1"] }));
  assert.match(c.detail, /^could not check: the verify API's answer to \/v1\/commitments\/[0-9a-f]{64} does not list the commitment's matches$/);
  c = await said(answering(200, { commitment: k.commitment, matches: ["m-1"], used_twice: true }));
  assert.equal(c.status, "fail");
  assert.match(c.detail, /^the verify API lists another match under this match's commitment too/);
  // A verify API behind (the match not listed yet) is asked again; never listed: could not check.
  let asked = 0;
  c = await said(async () => ({ ok: true, status: 200, json: async () => ({ commitment: k.commitment, matches: ++asked < 3 ? [] : ["m-1"] }) }));
  assert.deepEqual([c.status, asked], ["pass", 3]);
  asked = 0;
  c = await said(async () => (asked++, { ok: true, status: 200, json: async () => ({ commitment: k.commitment, matches: [] }) }));
  assert.deepEqual([c.status, asked], ["unchecked", COMMITMENT_WAIT.tries]);
  assert.match(c.detail, /^could not check: the verify API does not list this match under its commitment/);
});

test("commitment new: the answer when the commitment was seen fails at once, and at the end", async () => {
  const k = base();
  const asked = await askCommitment(VERIFY, k.commitment, { fetchImpl: verifyNetwork(VERIFY, { matches: ["m-0", "m-1"] }, down).fetchImpl });
  assert.deepEqual(asked, { matches: ["m-0", "m-1"], used_twice: true });
  assert.equal(keepCommitmentUses(k, { error: "the verify API did not answer" }, T0), true);
  assert.deepEqual(liveNames(k), []);
  assert.equal(keepCommitmentUses(k, asked, T0 + 5), true);
  assert.equal(keepCommitmentUses(k, { matches: ["m-1"], used_twice: false }, T0 + 9), false, "the first answer is kept");
  assert.deepEqual(k.commitment_uses, { matches: ["m-0", "m-1"], used_twice: true, at: T0 + 5 });
  assert.deepEqual(liveNames(k, T0), ["commitment new"]);
  // The verify API answering otherwise at the end does not undo what it said then.
  const c = await one(k, "commitment new");
  assert.equal(c.status, "fail");
  assert.match(c.detail, /^the verify API lists match m-0 under this match's commitment too \(asked when this tab saw the commitment\)/);
});

// --- dealer, abort, the result

test("the first dealer's rule: seat 0, or deal 0's card number modulo the players", () => {
  const deck0 = [...CARD_CODES].reverse(); // AS ... 7C: the last card is 7C, number 0
  assert.equal(firstDealer({ players: 4, first_dealer_from: null }, deck0), 0);
  assert.equal(firstDealer({ players: 2, first_dealer_from: 31 }, deck0), 0);
  assert.equal(firstDealer({ players: 2, first_dealer_from: 30 }, deck0), 1); // 8C: 1
  assert.equal(firstDealer({ players: 2, first_dealer_from: 0 }, deck0), 31 % 2); // AS: 31
});

test("an abort says who asked and why; after a deck went out it fails; before the reveal nothing is ok", async () => {
  const k = base();
  k.ended = { event: "MatchAborted", version: 40, by: "operator:ops", reason: "the table was closed by an operator" };
  k.decks_issued = [0];
  k.first_dealer = 0;
  const c = await one(k, "abort");
  assert.equal(c.status, "fail");
  assert.equal(c.detail, "the match was aborted after a deck went out (its cards were known when it was thrown away), by operator:ops: the table was closed by an operator");
  assert.equal(c.result.ok, false);
  const open = base();
  open.reveal = null;
  const result = await check(open);
  assert.deepEqual([result.ok, result.complete], [false, false]);
});

// --- the keeper: the tab's times, catch-ups, first sight

test("the keeper keeps the commitment's lead (none recorded: 0) and when the server closed the window", () => {
  const msg = (event, payload, stream = "randomness-m-1") => ({ type: "event", stream, version: 1, event, payload, visibility: "public" });
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 1009, seats: [{ seat: 0, player: "ann" }], at_ms: 1 };
  let k = newKept("m-1", "t-1", "ann");
  keep(k, msg("FairDealOpened", { ...commit, match_id: "m-1" }, "table-t-1"), {}, T0);
  assert.equal(k.round_lead_ms, null, "the table's copy says nothing of the lead");
  keep(k, msg("ServerSeedCommitted", { ...commit, round_lead_ms: LEAD }), {}, T0 + 10);
  assert.equal(k.round_lead_ms, LEAD);
  keep(k, msg("ServerSeedCommitted", { ...commit, round_lead_ms: 0 }), {}, T0 + 20);
  assert.match(conflictText(k.conflicts.at(-1)), /the lead of the round the match names/);
  keep(k, msg("SeedWindowClosed", { seat_seeds: [MY_SEED], missing: [], at_ms: T0 + 900 }), {}, T0 + 950);
  assert.deepEqual([k.seeds_in_at_ms, k.window_closed_at], [T0 + 900, T0 + 950]);
  // A commitment made before the lead has no field: its lead is 0, the next round.
  k = newKept("m-1", "t-1", "ann");
  keep(k, msg("ServerSeedCommitted", commit), {}, T0);
  assert.equal(k.round_lead_ms, 0);
  assert.deepEqual(k.conflicts, []);
});

test("the keeper keeps when this tab saw each fact, on the clock it is given, and whether live", () => {
  const k = newKept("m-1", "t-1", "ann");
  const msg = (event, payload, extra = {}) => ({ type: "event", stream: "randomness-m-1", version: 1, event, payload, visibility: "public", ...extra });
  const commit = { commitment: "ab".repeat(32), chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 1008, seats: [{ seat: 0, player: "ann" }], at_ms: 1 };
  keep(k, msg("ServerSeedCommitted", commit, { replay: true }), {}, T0);
  assert.deepEqual([k.commitment_seen_at, k.commitment_live, k.last_round, k.window_closes_at_ms, k.seat], [T0, false, 1008, T0 + 20_000, 0]);
  keep(k, msg("ServerSeedCommitted", commit), {}, T0 + 5_000);
  assert.equal(k.commitment_seen_at, T0, "first sight wins");
  keep(k, msg("ServerSeedCommitted", { ...commit, window_closes_at_ms: T0 + 60_000, last_round: 1021 }), {}, T0 + 6_000);
  assert.equal(k.conflicts.length, 2);
  keep(k, msg("DrandRoundNamed", { chain: "quicknet", round: 1001, due_at_ms: 0, at_ms: 0 }), {}, T0 + 900);
  assert.deepEqual([k.drand_round, k.drand_round_seen_at, k.drand_round_live], [1001, T0 + 900, true]);
  keep(k, msg("DrandFallback", { round: 1001, reason: "late", at_ms: 0 }, { replay: true }), {}, T0 + 9_000);
  assert.deepEqual([k.fallback_seen_at, k.fallback_live], [T0 + 9_000, false]);
  keep(k, { ...msg("SeatSeedReceived", { seat: 0, seed: MY_SEED, at_ms: 0 }), version: 2, visibility: "seat:0" }, {}, T0 + 200);
  assert.deepEqual(k.seed_received, { seed: MY_SEED, stream: "randomness-m-1", version: 2 });
  keep(k, { ...msg("MatchAborted", { reason: "closed", by: "operator:x" }), stream: "match-m-1", version: 9 }, {}, T0);
  assert.deepEqual(k.ended, { event: "MatchAborted", version: 9, by: "operator:x", reason: "closed", after_round: 1001 }); // after the naming this tab kept
  assert.equal(keepMySeed(k, MY_SEED, T0 + 10), true);
  assert.equal(k.my_seed_sent_at, T0 + 10);
  const r = { match_id: "m-1", seat: 0, seed_sha256: "00", stream: "randomness-m-1", version: 2, at_ms: 5 };
  assert.equal(keepReceipt(k, r, T0 + 120), true);
  assert.equal(k.receipt_at, T0 + 120);
  keepReceipt(k, { ...r, version: 3 }, T0 + 130);
  assert.match(conflictText(k.conflicts.at(-1)), /the receipt for your seed was shown as/);
  assert.equal(keepDrandSeen(k, beacon(1001), { at: 5, relay: "a", source: "tab", how: "next" }), true);
  assert.equal(keepDrandSeen(k, beacon(1001), { at: 1, relay: "b", source: "tab", how: "fetch" }), false, "first had wins");
  assert.equal(k.drand_seen["1001"].at, 5);
});

test("an older kept record gets the fields it lacks", () => {
  const old = { format: "belot-tab-kept/1", match_id: "m", player: "ann", seat: 0, conflicts: [], deals: {}, commitment: null };
  keep(old, { event: "DrandRoundNamed", payload: { round: 5 }, stream: "randomness-m", version: 4 }, {}, 77);
  assert.deepEqual([old.drand_round, old.drand_round_seen_at, old.drand_seen], [5, 77, {}]);
});

// --- the drand watch

/** A kept record at the commitment, on the virtual clock, for the watch. */
function watched() {
  const k = newKept("m-1", "t-1", "ann");
  Object.assign(k, { commitment: "ab".repeat(32), chain: "quicknet", last_round: 1008, seat: 0 });
  return k;
}

async function watch(relays, { until, named = null }) {
  const sim = new Sim(T0);
  const k = watched();
  const net = relayNetwork(relays, BEACONS, sim);
  const w = new DrandWatch({ chain: "quicknet", relays, read: () => k, record: (b, s) => keepDrandSeen(k, b, s), now: sim.now, sleep: sim.sleep, fetchImpl: net.fetchImpl, timeoutMs: 600_000 });
  const done = w.run();
  if (named) sim.at(named.at, () => (k.drand_round = named.round));
  await sim.run(until);
  w.stop();
  await done;
  return { kept: k, requests: net.log, watch: w };
}

test("nextAsk: the latest round, then each next one, then the named one; done once it is had", () => {
  const k = watched();
  assert.deepEqual(nextAsk(k, null, T0), { round: "latest", how: "latest" });
  assert.deepEqual(nextAsk(k, 1000, T0), { round: 1001, how: "next" });
  k.drand_round = 1001;
  assert.deepEqual(nextAsk(k, 1003, T0), { round: 1001, how: "fetch" });
  k.drand_seen["1001"] = seen(1001, 1);
  assert.equal(nextAsk(k, 1003, T0), null);
  const never = watched();
  assert.equal(nextAsk(never, 1000, DUE(1008) + TOLERANCE.graceMs + WATCH.afterMs + 1), null, "never named: it stops");
  assert.equal(nextAsk({ ...watched(), ended: { event: "MatchEnded" } }, null, T0), null);
});

test("the watch has each round as drand produces it, with one request per relay per round", async () => {
  const relays = [
    { url: "https://relay.drand.test", source: "tab", mode: "honest", produced: { 1000: DUE(1000) + 80, 1001: DUE(1001) + 80, 1002: DUE(1002) + 80 } },
    { url: "https://relay.belot.test", source: "server", mode: "honest", produced: { 1000: DUE(1000) + 900, 1001: DUE(1001) + 900, 1002: DUE(1002) + 900 } },
  ];
  const { kept, requests } = await watch(relays, { until: DUE(1002) + 2_000, named: { round: 1002, at: T0 + 900 } });
  assert.deepEqual(Object.keys(kept.drand_seen), ["1000", "1001", "1002"]);
  assert.deepEqual(
    Object.values(kept.drand_seen).map((s) => [s.at, s.how, s.source]),
    [
      [T0, "latest", "tab"],
      [DUE(1001) + 80, "next", "tab"],
      [DUE(1002) + 80, "next", "tab"],
    ],
  );
  assert.equal(requests.length, 6, "latest, 1001, 1002 of each relay; then it stops");
});

test("the watch asks again a second later a relay that does not hold requests, and ignores liars", async () => {
  const produced = { 1000: DUE(1000) + 80, 1001: DUE(1001) + 80 };
  const relays = [
    { url: "https://nohold.test", source: "tab", mode: "nohold", produced },
    { url: "https://liar.test", source: "server", mode: "lying", produced: { 1000: DUE(1000), 1001: DUE(1001) } },
  ];
  const { kept, requests } = await watch(relays, { until: DUE(1001) + 3_000, named: { round: 1001, at: T0 + 900 } });
  const at = kept.drand_seen["1001"].at;
  assert.equal(kept.drand_seen["1001"].relay, "https://nohold.test");
  assert.ok(at - produced[1001] >= 0 && at - produced[1001] <= WATCH.pollMs, `${at - produced[1001]} ms late`);
  assert.ok(requests.length <= 2 * (2 + Math.ceil((DUE(1001) - T0) / WATCH.pollMs) + 1), `${requests.length} requests`);
});

test("the watch with every relay down keeps nothing and says why", async () => {
  const relays = [{ url: "https://down.test", source: "tab", mode: "down", produced: {} }];
  const { kept, watch: w } = await watch(relays, { until: T0 + 5_000 });
  assert.deepEqual(kept.drand_seen, {});
  assert.match(w.lastError, /Failed to fetch/);
});

test("a watch that cannot keep what it sees stops, rather than ask again for ever", async () => {
  const sim = new Sim(T0);
  const k = watched();
  const relays = [{ url: "https://relay.drand.test", source: "tab", mode: "honest", produced: { 1000: DUE(1000) } }];
  const net = relayNetwork(relays, BEACONS, sim);
  const w = new DrandWatch({ chain: "quicknet", relays, read: () => k, record: () => {}, now: sim.now, sleep: sim.sleep, fetchImpl: net.fetchImpl });
  await w.run();
  assert.equal(w.lastError, "could not keep round 1000's value");
  assert.equal(net.log.length, 1);
});

test("attack: a forfeit written for this seat mid-match, which this tab never asked for, fails", async () => {
  // The server ends the match as it likes once the decks are known: it writes that seat
  // 0 left. Before, the tab said nothing of a forfeit; now it holds it to its own ask.
  const k = base();
  k.ended = { event: "MatchForfeited", version: 60, leaver: 0 };
  const c = await one(k, "forfeit");
  assert.equal(c.status, "fail", c.detail);
  assert.match(c.detail, /you never asked to leave/);
  // The player did ask, in this tab: the forfeit is the seat's own.
  const asked = base();
  asked.ended = { event: "MatchForfeited", version: 60, leaver: 0 };
  assert.equal(keepLeaveAsked(asked, T0 + 30_000), true);
  assert.equal(keepLeaveAsked(asked, T0 + 31_000), false); // the first ask is kept
  assert.equal(asked.leave_asked_at, T0 + 30_000);
  assert.equal((await one(asked, "forfeit")).status, "pass");
  // Another seat's forfeit is that seat's to check; a record from before the field could
  // not tell.
  const other = base();
  other.ended = { event: "MatchForfeited", version: 60, leaver: 2 };
  assert.equal((await one(other, "forfeit")).status, "info");
  const older = base();
  older.ended = { event: "MatchForfeited", version: 60, leaver: 0 };
  older.format = "belot-tab-kept/5";
  assert.equal((await one(older, "forfeit")).status, "unchecked");
});

test("keep: a MatchForfeited keeps who left", () => {
  const k = newKept("m-1", "t-1", "ann");
  keep(k, { stream: "match-m-1", version: 60, event: "MatchForfeited", payload: { leaver: 1, winner_side: 0 }, hash: null }, {}, T0);
  assert.deepEqual(k.ended, { event: "MatchForfeited", version: 60, leaver: 1 });
  assert.equal(k.leave_asked_at, null);
});

test("attack: an abort after the round was named, before any deck (a free reroll), fails; one before it is info", async () => {
  const named = newKept("m-1", "t-1", "ann");
  named.drand_round = 1001;
  keep(named, { stream: "match-m-1", version: 2, event: "MatchAborted", payload: { by: "operator:ops", reason: "closed" }, hash: null }, {}, T0);
  assert.equal(named.ended.after_round, 1001);
  const k = base();
  k.ended = named.ended;
  const c = await one(k, "abort");
  assert.equal(c.status, "fail", c.detail);
  assert.match(c.detail, /after round 1001 was named/);
  const early = newKept("m-1", "t-1", "ann");
  keep(early, { stream: "match-m-1", version: 2, event: "MatchAborted", payload: { by: "operator:ops", reason: "closed" }, hash: null }, {}, T0);
  const e = base();
  e.ended = early.ended;
  assert.equal((await one(e, "abort")).status, "info");
  const dealt = base();
  dealt.ended = early.ended;
  dealt.decks_issued = [0];
  assert.equal((await one(dealt, "abort")).status, "fail");
});
