// The tab's transparency-log checks (web/js/logcheck.js) against a log in Node
// (web/node/fakelog.mjs: a real RFC 9162 tree and Ed25519-signed checkpoints) that is
// honest, or lies: a forked log (an entry rewritten after the tab pinned its checkpoint),
// a log that shrank, an entry missing or saying something else than the table showed, a
// checkpoint whose signature does not verify, a new key, a proof altered, an API down.
// And what the keeper and the store keep of it: the checkpoint pinned at the open, the
// key pinned at first sight.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../node/importmap.mjs";

const { checkLog } = await import("../js/logcheck.js");
const { LOG_CHECKS, WITNESSES_ADDED, fetchCheckpoint, fetchWitnesses, logKeyOf, witnessesOf } = await import("../js/logbase.js");
const { newKept, FORMAT } = await import("../js/keepbase.js");
const { keepLogOpen } = await import("../js/keepown.js");
const { checkKept } = await import("../js/fairdeal.js");
const { makeStore } = await import("../js/store.js");
const { FakeLog, entryOf, noteKey, witnessKey, ORIGIN } = await import("../node/fakelog.mjs");
const { roundTime } = await import("../js/drand.js");
const { toBase64, fromBase64 } = await import("../js/translog.js");
const { sha256 } = await import("@noble/hashes/sha2.js");
const { bytesToHex, hexToBytes } = await import("@noble/hashes/utils.js");

const API = "https://verify.test";
const MATCH = "m-1";
const SERVER_SEED = "07".repeat(32);
const COMMITMENT = bytesToHex(sha256(hexToBytes(SERVER_SEED)));
const T0 = 1_700_000_000_000;

/** What this tab kept of the match (the facts the log's entries must repeat). */
function kept() {
  const k = newKept(MATCH, "t-1", "ann");
  Object.assign(k, {
    seat: 0,
    commitment: COMMITMENT,
    chain: "quicknet",
    window_closes_at_ms: T0 + 20_000,
    last_round: 4242,
    drand_round: 4241,
    drand: { round: 4241, randomness: "aa".repeat(32), signature: "bb".repeat(48), previous_signature: null },
    ended: { event: "MatchEnded", version: 99 },
    reveal: { server_seed: SERVER_SEED, via: "randomness", seen_at: T0 + 60_000 },
  });
  return k;
}

const ENTRIES = {
  commitment: () => entryOf({ kind: "commitment", match: MATCH, commitment: COMMITMENT, chain: "quicknet", window_closes_at_ms: T0 + 20_000, last_round: 4242, seats: [{ seat: 0, player: "ann" }, { seat: 1, player: null }] }),
  named: () => entryOf({ kind: "round_named", match: MATCH, chain: "quicknet", round: 4241, due_at_ms: T0 + 21_000 }, 5),
  ending: () => entryOf({ kind: "ending", match: MATCH, ending: "MatchEnded", heads: [] }, 99),
  reveal: () => entryOf({ kind: "reveal", match: MATCH, server_seed: SERVER_SEED }, 9),
};
const other = (i) => entryOf({ kind: "commitment", match: `other-${i}`, commitment: "cd".repeat(32), chain: "quicknet", window_closes_at_ms: T0, last_round: 4000 + i, seats: [] });

const noWait = { everyMs: 0, tries: 3 };
/** When round 4241, the one the match names, is due (drand's schedule), in seconds. */
const DUE_S = roundTime("quicknet", 4241) / 1000;
/** The witnesses cosign the checkpoint holding the naming 5 s before the round is due. */
const inTime = (log) => {
  log.sign();
  log.witnessAll(DUE_S - 5);
};
/** ... and the one holding the ending once it is signed. */
const signed = (log) => {
  log.sign();
  log.witnessAll(DUE_S + 60);
};

/**
 * A match against ``log``: other matches' entries and this one's commitment are in the
 * log when the tab sees the commitment and pins the checkpoint (signed before the
 * commitment's entry: the signer lags); the round is named, the log signs and its
 * witnesses cosign (``witness``: by default 5 s before the round is due); then the match
 * runs (``during``: what the log does meanwhile) and ends (``end``: the log signs, the
 * witnesses cosign). Returns {k, log, checks, byName}.
 */
async function play({ log = new FakeLog(), entries = ENTRIES, opened = () => {}, during = () => {}, witness = inTime, end = signed, key, k = kept(), options = {} } = {}) {
  for (let i = 0; i < 3; i++) log.append(other(i));
  log.sign();
  if (entries.commitment) log.append(entries.commitment());
  opened(log);
  const told = key?.told ?? log.vkey;
  const chosen = key ?? logKeyOf(log.vkey, told);
  const got = await fetchCheckpoint(API, chosen.vkey, { fetchImpl: log.fetchImpl });
  keepLogOpen(k, { vkey: chosen.vkey, told: chosen.told, got, at: T0 + 5 });
  if (entries.named) log.append(entries.named());
  log.append(other(3));
  witness(log);
  if (entries.ending) log.append(entries.ending());
  if (entries.reveal) log.append(entries.reveal());
  during(log, k);
  end(log);
  const checks = await checkLog(k, { verifyApi: API, key: chosen, fetchImpl: log.fetchImpl, sleep: async () => {}, wait: noWait, ...options });
  return { k, log, checks, byName: Object.fromEntries(checks.map((c) => [c.name, c])) };
}

const statuses = (checks) => Object.fromEntries(checks.map((c) => [c.name, c.status]));

test("an honest log: the key, consistency, inclusion and entries pass", async () => {
  const { k, log, checks, byName } = await play();
  assert.deepEqual(checks.map((c) => c.name), LOG_CHECKS);
  assert.deepEqual(statuses(checks), { "log key": "pass", "log consistency": "pass", "log inclusion": "pass", "log entries": "pass", "log witnesses": "pass" });
  assert.match(byName["log witnesses"].detail, /^a quorum of the 3 witnesses this tab pinned \(2 needed\) cosigned .*before round 4241 was due .*the round's naming by witness\.test\/w1 5\.0 s before it was due/);
  // Pinned at the open: the checkpoint of the 3 entries signed then, verified, its note kept.
  assert.deepEqual([k.log.open.size, k.log.open.seen_at, k.log.vkey, k.log.told], [3, T0 + 5, log.vkey, null]);
  assert.equal(k.log.open.root, toBase64(log.root(3)));
  assert.ok(k.log.open.note.startsWith(`${ORIGIN}\n3\n`));
  assert.match(byName["log consistency"].detail, /checkpoint of 8 entries extends the one of 3/);
  assert.match(byName["log inclusion"].detail, /each of the match's 4 entries \(3, 4, 6, 7\)/);
  assert.match(byName["log entries"].detail, /the commitment, round 4241 named, the revealed seed, the ending \(MatchEnded\)/);
  // One proof asked per entry, in the checkpoint the tab had at the end (and the ending's
  // again, in the checkpoint of 8 the witnesses cosigned; the others' in the one of 6).
  assert.equal(log.requests.filter((u) => u.includes("/proof/inclusion") && u.endsWith("size=8")).length, 5);
  assert.equal(log.requests.filter((u) => u.includes("/proof/inclusion") && u.endsWith("size=6")).length, 2);
  assert.equal(log.requests.filter((u) => u.includes("/proof/consistency?first=3&second=8")).length, 1);
});

test("a forked log (an entry rewritten after the tab pinned its checkpoint) fails log consistency", async () => {
  const fork = (log) => log.rewrite(1, new TextEncoder().encode(JSON.stringify({ ...other(1), commitment: "ee".repeat(32) })));
  const { byName } = await play({ during: fork });
  assert.equal(byName["log consistency"].status, "fail");
  assert.match(byName["log consistency"].detail, /does not extend the one of 3 this tab pinned .* the log was rewritten/);
  // The rewritten tree is whole: the match's own entries are in it, as it says.
  assert.equal(byName["log inclusion"].status, "pass");

  // The match's own commitment rewritten: the entries say another commitment, too.
  const ours = (log) => log.rewrite(3, new TextEncoder().encode(JSON.stringify({ ...ENTRIES.commitment(), commitment: "ff".repeat(32) })));
  const r = await play({ during: ours });
  assert.deepEqual(statuses(r.checks), { "log key": "pass", "log consistency": "pass", "log inclusion": "pass", "log entries": "fail", "log witnesses": "fail" }, "index 3 was not signed at the open: only the entries, and the witnesses who saw it before, can tell");
  // (The log proves the entry in the cosigned checkpoint from its rewritten tree: refused.)
  assert.match(r.byName["log witnesses"].detail, /^0 of the 3 witnesses this tab pinned cosigned the commitment \(entry 3\) before round 4241 was due .*: the checkpoint of 6 entries served as cosigned by witness\.test\/w1, witness\.test\/w2, witness\.test\/w3 is refused: entry 3 is not in its tree of 6 entries/);
  assert.match(r.byName["log entries"].detail, /the log's commitment is f{64}, this tab was shown/);
});

test("a log whose checkpoint now is smaller, or of the same size with another root, fails", async () => {
  const shrink = (log) => {
    log.entries.splice(2);
    log.sign();
  };
  const { byName } = await play({ during: shrink, end: () => {} });
  assert.equal(byName["log consistency"].status, "fail");
  assert.match(byName["log consistency"].detail, /2 entries, fewer than the 3 it signed/);

  const log = new FakeLog();
  const r = await play({ log, entries: {}, during: (l) => l.rewrite(0, new TextEncoder().encode(JSON.stringify(other(9)))), witness: () => {}, end: () => {} });
  assert.equal(r.byName["log consistency"].status, "fail");
  assert.match(r.byName["log consistency"].detail, /two different roots for the same size 3/);
});

test("a consistency or inclusion proof altered in one byte fails", async () => {
  // The honest proof, its first hash with one bit flipped.
  const flipFirst = (route) => (log) => {
    log.override[route] = async (u) => {
      const body = await log.route(u).json();
      const p = fromBase64(body.proof[0]);
      p[5] ^= 1;
      return new Response(JSON.stringify({ ...body, proof: [toBase64(p), ...body.proof.slice(1)] }));
    };
  };
  let r = await play({ during: flipFirst("/v1/log/proof/consistency") });
  assert.equal(r.byName["log consistency"].status, "fail");
  r = await play({ during: flipFirst("/v1/log/proof/inclusion") });
  assert.equal(r.byName["log inclusion"].status, "fail");
  assert.match(r.byName["log inclusion"].detail, /entry 3 \(commitment\) is not in the log's checkpoint of 8 entries/);
});

test("an entry missing from the log fails log entries", async () => {
  // The commitment never logged.
  let r = await play({ entries: { ...ENTRIES, commitment: null } });
  assert.equal(r.byName["log entries"].status, "fail");
  assert.match(r.byName["log entries"].detail, /no commitment for this match/);
  // Logged, but the log's listing leaves it out.
  r = await play({ during: (log) => log.hidden.add(3) });
  assert.equal(r.byName["log entries"].status, "fail");
  assert.match(r.byName["log entries"].detail, /no commitment for this match/);
  // The round's naming, the reveal, the ending: each missing is named.
  for (const [drop, words] of [["named", /no naming of round 4241/], ["reveal", /no reveal of the server seed/], ["ending", /no ending \(MatchEnded\)/]]) {
    r = await play({ entries: { ...ENTRIES, [drop]: null } });
    assert.equal(r.byName["log entries"].status, "fail", drop);
    assert.match(r.byName["log entries"].detail, words);
  }
  // Nothing at all of the match: inclusion has nothing to prove, and fails too.
  r = await play({ entries: {} });
  assert.deepEqual([r.byName["log entries"].status, r.byName["log inclusion"].status], ["fail", "fail"]);
});

test("entries that say something else than the table showed fail log entries", async () => {
  const cases = [
    [{ named: () => entryOf({ kind: "round_named", match: MATCH, chain: "quicknet", round: 4242, due_at_ms: 0 }) }, /round 4242 was named, this tab was shown round 4241/],
    [{ reveal: () => entryOf({ kind: "reveal", match: MATCH, server_seed: "08".repeat(32) }) }, /revealed seed is 0808/],
    [{ ending: () => entryOf({ kind: "ending", match: MATCH, ending: "MatchAborted", heads: [] }) }, /ended by MatchAborted, this tab saw MatchEnded/],
    [{ commitment: () => ({ ...ENTRIES.commitment(), last_round: 4243 }) }, /allows rounds up to 4243/],
    [{ commitment: () => ({ ...ENTRIES.commitment(), seats: [{ seat: 0, player: "bob" }] }) }, /seats "bob" at seat 0/],
    [{ named: () => ({ ...ENTRIES.named(), match: "m-2" }) }, /no naming of round 4241/],
  ];
  for (const [change, words] of cases) {
    const r = await play({ entries: { ...ENTRIES, ...change } });
    assert.equal(r.byName["log entries"].status, "fail", String(words));
    assert.match(r.byName["log entries"].detail, words);
  }
  // Two commitments for the match.
  const r = await play({ during: (log) => log.append(ENTRIES.commitment()) });
  assert.match(r.byName["log entries"].detail, /2 commitment entries for this match/);
  // An entry whose bytes are not an entry.
  const bad = await play({ during: (log) => (log.override["/v1/log/entries"] = () => new Response(JSON.stringify({ entries: [{ index: 3, data: "not base64!" }] }))) });
  assert.equal(bad.byName["log entries"].status, "fail");
});

test("a checkpoint whose signature does not verify is refused, never pinned, and fails", async () => {
  // At the open: the signature altered (the key's name and ID kept).
  const forge = (note) => {
    const line = note.split("\n").find((l) => l.startsWith(`— ${ORIGIN} `));
    const raw = fromBase64(line.slice(line.lastIndexOf(" ") + 1));
    raw[20] ^= 1;
    return note.replace(line, `— ${ORIGIN} ${toBase64(raw)}`);
  };
  const log = new FakeLog();
  log.override["/checkpoint"] = () => new Response(forge(log.note()));
  const r = await play({ log, during: (l) => delete l.override["/checkpoint"] });
  assert.equal(r.k.log.open, null);
  assert.equal(r.k.log.refused.code, "note_bad_signature");
  assert.equal(r.byName["log consistency"].status, "fail");
  assert.match(r.byName["log consistency"].detail, /served when the match opened was refused: the signature of log.test\/belot\+[0-9a-f]{8} does not verify/);
  // A later, good checkpoint does not replace the refusal.
  const again = await fetchCheckpoint(API, log.vkey, { fetchImpl: log.fetchImpl });
  assert.equal(keepLogOpen(r.k, { vkey: log.vkey, got: again, at: T0 + 9 }), false);
  assert.equal(r.k.log.open, null);

  // At the end.
  const e = await play({ during: (l) => (l.override["/checkpoint"] = () => new Response(forge(l.note()))) });
  assert.equal(e.byName["log consistency"].status, "fail");
  assert.match(e.byName["log consistency"].detail, /serves now is refused/);
  assert.equal(e.byName["log inclusion"].status, "fail");
  // Signed by another key under the log's name: no line of the pinned key.
  const stranger = noteKey(ORIGIN, new Uint8Array(32).fill(9));
  const s = await play({ during: (l) => (l.override["/checkpoint"] = () => new Response(l.note(l.signed, stranger))) });
  assert.match(s.byName["log consistency"].detail, /refused: the note is signed by none of the trusted keys/);
});

test("a new log key is not trusted: log key fails, and its checkpoints are refused", async () => {
  const pinned = new FakeLog().vkey;
  const log = new FakeLog({ seed: new Uint8Array(32).fill(8) }); // the log now signs with another key
  const key = logKeyOf(pinned, log.vkey);
  assert.deepEqual([key.vkey, key.told, key.pin], [pinned, log.vkey, null]);
  const r = await play({ log, key });
  assert.equal(r.k.log.told, log.vkey);
  assert.equal(r.byName["log key"].status, "fail");
  assert.match(r.byName["log key"].detail, /now names the log key log.test\/belot\+[0-9a-f]{8}, but this tab pinned log.test\/belot\+[0-9a-f]{8}/);
  assert.equal(r.byName["log consistency"].status, "fail");
  assert.match(r.byName["log consistency"].detail, /refused/);
  // The key told at the end only: the one pinned at the open still checks the log, and
  // the change fails.
  const honest = new FakeLog();
  const later = await play({ log: honest });
  const changed = await checkLog(later.k, { verifyApi: API, key: logKeyOf(honest.vkey, log.vkey), fetchImpl: honest.fetchImpl, wait: noWait });
  assert.deepEqual(statuses(changed), { "log key": "fail", "log consistency": "pass", "log inclusion": "pass", "log entries": "pass", "log witnesses": "pass" });
});

test("the key: the first told is pinned, a malformed one is not a key", async () => {
  const log = new FakeLog();
  assert.deepEqual(logKeyOf(null, log.vkey), { vkey: log.vkey, told: log.vkey, pin: log.vkey, malformed: null });
  assert.deepEqual(logKeyOf(null, null), { vkey: null, told: null, pin: null, malformed: null });
  const bad = logKeyOf(null, log.vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+"));
  assert.equal(bad.vkey, null);
  assert.match(bad.malformed, /key ID/);
  const k = kept();
  const checks = await checkLog(k, { verifyApi: API, key: bad, fetchImpl: log.fetchImpl });
  assert.deepEqual(statuses(checks), { "log key": "fail", "log consistency": "unchecked", "log inclusion": "unchecked", "log entries": "unchecked", "log witnesses": "unchecked" });
  // The store: first sight wins.
  const mem = new Map();
  const storage = { getItem: (x) => mem.get(x) ?? null, setItem: (x, v) => mem.set(x, String(v)), removeItem: (x) => mem.delete(x), key: (i) => [...mem.keys()][i] ?? null, get length() { return mem.size; } };
  const store = makeStore(storage);
  assert.equal(store.logKey(), null);
  assert.deepEqual(store.pinLogKey(log.vkey, 5), { vkey: log.vkey, pinned_at: 5 });
  assert.deepEqual(store.pinLogKey("another", 6), { vkey: log.vkey, pinned_at: 5 });
  assert.equal(store.logKey().vkey, log.vkey);
});

test("no log named, or no answer: could not check, never a pass", async () => {
  const none = await checkLog(kept(), { verifyApi: API, key: logKeyOf(null, null), fetchImpl: async () => assert.fail("nothing to ask") });
  assert.deepEqual(Object.values(statuses(none)), ["unchecked", "unchecked", "unchecked", "unchecked", "unchecked"]);
  assert.match(none[0].detail, /names no transparency log/);
  // The API down at the end.
  const down = await play({ during: (log) => (log.down = true) });
  assert.deepEqual(statuses(down.checks), { "log key": "pass", "log consistency": "unchecked", "log inclusion": "unchecked", "log entries": "unchecked", "log witnesses": "unchecked" });
  assert.match(down.byName["log entries"].detail, /could not check: the verify API did not answer/);
  // Down at the open: the error is kept, and a later answer pins.
  const log = new FakeLog();
  log.down = true;
  const k = kept();
  keepLogOpen(k, { vkey: log.vkey, got: await fetchCheckpoint(API, log.vkey, { fetchImpl: log.fetchImpl }), at: T0 });
  assert.equal(k.log.open, null);
  assert.match(k.log.error.message, /did not answer/);
  let checks = await checkLog(k, { verifyApi: API, key: logKeyOf(log.vkey, log.vkey), fetchImpl: log.fetchImpl, wait: noWait });
  assert.match(checks[1].detail, /could not check: this tab could not have the log's checkpoint when the match opened/);
  log.down = false;
  log.sign();
  keepLogOpen(k, { vkey: log.vkey, got: await fetchCheckpoint(API, log.vkey, { fetchImpl: log.fetchImpl }), at: T0 + 2000 });
  assert.deepEqual([k.log.open.size, k.log.open.seen_at, k.log.error], [0, T0 + 2000, null]);
  // Busy (503, 429): could not check; a 404 for a proof of what it signed: fails.
  const busy = await play({ during: (l) => (l.override["/v1/log/proof/consistency"] = () => new Response("{}", { status: 503 })) });
  assert.equal(busy.byName["log consistency"].status, "unchecked");
  const refuses = await play({ during: (l) => (l.override["/v1/log/proof/consistency"] = () => new Response('{"error":"out_of_range"}', { status: 400 })) });
  assert.equal(refuses.byName["log consistency"].status, "fail");
  assert.match(refuses.byName["log consistency"].detail, /would not prove .* \(out_of_range\)/);
  // Pinned from an empty log: every tree extends it.
  const fresh = new FakeLog();
  const k2 = kept();
  fresh.sign();
  keepLogOpen(k2, { vkey: fresh.vkey, got: await fetchCheckpoint(API, fresh.vkey, { fetchImpl: fresh.fetchImpl }), at: T0 });
  for (const e of Object.values(ENTRIES)) fresh.append(e());
  fresh.sign();
  fresh.witnessAll(DUE_S - 1);
  checks = await checkLog(k2, { verifyApi: API, key: logKeyOf(fresh.vkey, fresh.vkey), fetchImpl: fresh.fetchImpl, wait: noWait });
  assert.deepEqual(Object.values(statuses(checks)), ["pass", "pass", "pass", "pass", "pass"]);
});

test("the end checkpoint is waited for until it holds the match's last entries", async () => {
  // Signed only after the check asked twice: it waits, then passes.
  const log = new FakeLog();
  let asked = 0;
  const sleep = async () => {
    asked++;
    if (asked === 2) signed(log);
  };
  const lagging = await play({ log, end: () => {}, options: { sleep, wait: { everyMs: 1, tries: 5 } } });
  assert.equal(asked, 2);
  assert.deepEqual(Object.values(statuses(lagging.checks)), ["pass", "pass", "pass", "pass", "pass"]);
  // Never signed: the entries after the last checkpoint could not be checked.
  const never = await play({ witness: () => {}, end: () => {} });
  assert.equal(never.byName["log inclusion"].status, "unchecked");
  assert.match(never.byName["log inclusion"].detail, /entries 3, 4, 6, 7 are not yet in a checkpoint the log signed \(it has 3 entries\)/);
});

test("the keeper: the pinned checkpoint is kept once; an older record reads as pinned nothing", async () => {
  assert.equal(FORMAT, "belot-tab-kept/6");
  const log = new FakeLog();
  log.append(other(0));
  log.sign();
  const k = kept();
  assert.equal(k.log, null);
  const first = await fetchCheckpoint(API, log.vkey, { fetchImpl: log.fetchImpl });
  assert.equal(keepLogOpen(k, { vkey: log.vkey, told: log.vkey, got: first, at: T0 }), true);
  log.append(other(1));
  log.sign();
  const second = await fetchCheckpoint(API, log.vkey, { fetchImpl: log.fetchImpl });
  assert.equal(keepLogOpen(k, { vkey: log.vkey, got: second, at: T0 + 1 }), false, "first sight wins");
  assert.deepEqual([k.log.open.size, k.log.open.seen_at], [1, T0]);
  // A record of format 2 (before the log): its log checks say nothing was pinned.
  const old = { ...kept(), format: "belot-tab-kept/2" };
  delete old.log;
  keepLogOpen(old, { vkey: log.vkey, got: { error: "x" }, at: 1 }); // fill() gives it the field
  delete old.log;
  const checks = await checkLog(old, { verifyApi: API, key: logKeyOf(log.vkey, log.vkey), fetchImpl: log.fetchImpl, wait: noWait });
  assert.equal(checks[1].status, "unchecked");
  assert.match(checks[1].detail, /this tab pinned no checkpoint when the match opened/);
});

test("checkKept adds the log's checks when it is given the log: a fork makes the match fail", async () => {
  const honest = await play();
  const without = await checkKept(honest.k, { relays: [], fetchImpl: async () => assert.fail("no relay") });
  assert.ok(!without.checks.some((c) => c.name.startsWith("log ")));
  const log = honest.log;
  const fetchImpl = (url) => (url.startsWith(API) ? log.fetchImpl(url) : Promise.reject(new TypeError("no relay")));
  const withLog = await checkKept(honest.k, { relays: [], fetchImpl, log: { verifyApi: API, key: logKeyOf(log.vkey, log.vkey), wait: noWait } });
  assert.deepEqual(withLog.checks.filter((c) => c.name.startsWith("log ")).map((c) => [c.name, c.status]), LOG_CHECKS.map((n) => [n, "pass"]));
  // The other checks are what they were: the log adds, and takes nothing away.
  assert.deepEqual(withLog.checks.filter((c) => !c.name.startsWith("log ")), without.checks);
  assert.equal(withLog.failed, without.failed);

  log.rewrite(0, new TextEncoder().encode(JSON.stringify(other(7))));
  log.append(other(8));
  log.sign();
  const forked = await checkKept(honest.k, { relays: [], fetchImpl, log: { verifyApi: API, key: logKeyOf(log.vkey, log.vkey), wait: noWait } });
  // (This hand-kept record has no deal pattern: "deals" fails with or without the log.)
  const failedNames = (r) => r.checks.filter((c) => c.status === "fail").map((c) => c.name);
  assert.deepEqual(failedNames(withLog), failedNames(without));
  // The witnesses cosigned the history before the rewrite: theirs is not the log's now.
  assert.deepEqual(failedNames(forked), [...failedNames(without), "log consistency", "log witnesses"]);
  assert.equal(forked.ok, false);
  // No log named (and none pinned at the open): could not check, so never ok.
  const unpinned = { ...honest.k, log: null };
  const unnamed = await checkKept(unpinned, { relays: [], fetchImpl, log: { verifyApi: API, key: logKeyOf(null, null) } });
  assert.equal(unnamed.ok, false);
  assert.deepEqual(unnamed.unchecked.filter((n) => n.startsWith("log ")), LOG_CHECKS);
});

// --- the witnesses: a quorum of those this tab pinned cosigned the commitment and the
// naming before the round was due, and the ending

test("attack: no witness watches this log: the log, consistent and whole, fails log witnesses", async () => {
  const { checks, byName } = await play({ log: new FakeLog({ witnesses: 0 }) });
  assert.deepEqual(statuses(checks), { "log key": "pass", "log consistency": "pass", "log inclusion": "pass", "log entries": "pass", "log witnesses": "fail" });
  assert.match(byName["log witnesses"].detail, /^no witness watches this log: the platform names none/);
  // Registered witnesses (anyone's keys) are not the operator's configured ones: none count.
  const log = new FakeLog({ witnesses: 0 });
  log.registered = [witnessKey("anyone.test/w", new Uint8Array(32).fill(40))];
  const r = await play({ log, witness: (l) => (l.sign(), l.cosign(l.registered[0], DUE_S - 5)) });
  assert.match(r.byName["log witnesses"].detail, /^no witness watches this log/);
});

test("attack: the round named once its value was known: the witnesses cosigned the naming only 2 s after it was due", async () => {
  // The commitment was witnessed well before; the naming's first cosigned checkpoint
  // is timestamped after round 4241 was due, by every witness's clock. Every entry is
  // in the log, consistent, as the table showed it.
  const { checks, byName } = await play({
    opened: (l) => (l.sign(), l.witnessAll(DUE_S - 30)),
    witness: (l) => (l.sign(), l.witnessAll(DUE_S + 2)),
  });
  assert.deepEqual(statuses(checks), { "log key": "pass", "log consistency": "pass", "log inclusion": "pass", "log entries": "pass", "log witnesses": "fail" });
  const why = byName["log witnesses"].detail;
  assert.match(why, /^0 of the 3 witnesses this tab pinned cosigned the round's naming \(entry 4\) before round 4241 was due \(2023-08-23T18:41:27Z\), 2 needed: witness\.test\/w1 cosigned it first at 2023-08-23T18:41:29Z, 2\.0 s after round 4241 was due/);
  assert.match(why, /nobody but the operator vouches that the commitment was made and the round named before its value was known$/);
  assert.doesNotMatch(why, /the commitment \(entry 3\)/, "the commitment was witnessed in time");
  // At the edge: cosigned in the second the round is due is not before it.
  const edge = await play({ witness: (l) => (l.sign(), l.witnessAll(DUE_S)) });
  assert.equal(edge.byName["log witnesses"].status, "fail");
  const justBefore = await play({ witness: (l) => (l.sign(), l.witnessAll(DUE_S - 1)) });
  assert.equal(justBefore.byName["log witnesses"].status, "pass");
});

test("attack: one witness of three cosigned in time: not a quorum; two of three are", async () => {
  const one = await play({ witness: (l) => (l.sign(), l.cosign(l.witnesses[0], DUE_S - 5)) });
  assert.equal(one.byName["log witnesses"].status, "fail");
  assert.match(one.byName["log witnesses"].detail, /^1 of the 3 witnesses this tab pinned cosigned the commitment \(entry 3\) before round 4241 was due .*2 needed: witness\.test\/w2 cosigned it first at 2023-08-23T18:42:27Z, 60\.0 s after round 4241 was due/);
  // (They cosigned only the checkpoint at the end, which holds it too.)
  const two = await play({ witness: (l) => (l.sign(), l.cosign(l.witnesses[0], DUE_S - 5), l.cosign(l.witnesses[2], DUE_S - 4)) });
  assert.equal(two.byName["log witnesses"].status, "pass", two.byName["log witnesses"].detail);
  // The ending cosigned by none: fails too (a witness that watches signs every second).
  const noEnd = await play({ end: (l) => l.sign() });
  assert.equal(noEnd.byName["log witnesses"].status, "fail");
  assert.match(noEnd.byName["log witnesses"].detail, /^0 of the 3 witnesses this tab pinned cosigned the ending \(entry 6\), 2 needed/);
});

test("attack: witnesses the operator added after this tab pinned its set cosign in time: said, and not counted", async () => {
  const log = new FakeLog();
  const pinned = { log: log.vkey, vkeys: log.witnesses.map((w) => w.vkey).sort(), pinned_at: T0 };
  const puppets = [1, 2, 3].map((i) => witnessKey(`operator.test/p${i}`, new Uint8Array(32).fill(60 + i)));
  const r = await play({
    log,
    witness: (l) => {
      l.witnesses.push(...puppets);
      l.sign();
      for (const p of puppets) l.cosign(p, DUE_S - 5);
      for (const w of l.witnesses.slice(0, 3)) l.cosign(w, DUE_S + 3);
    },
  });
  // The set told at the end, once the operator has added its own, against the one pinned.
  const told = await fetchWitnesses(API, { fetchImpl: r.log.fetchImpl });
  const set = witnessesOf(pinned, told, r.log.vkey);
  assert.deepEqual(set.added, puppets.map((p) => p.vkey).sort());
  const checks = await checkLog(r.k, { verifyApi: API, key: logKeyOf(r.log.vkey, r.log.vkey), witnesses: set, fetchImpl: r.log.fetchImpl, sleep: async () => {}, wait: noWait });
  const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
  assert.equal(byName["log witnesses"].status, "fail");
  assert.match(byName["log witnesses"].detail, /^0 of the 3 witnesses this tab pinned cosigned the commitment/);
  assert.equal(byName[WITNESSES_ADDED].status, "info");
  assert.match(byName[WITNESSES_ADDED].detail, /operator\.test\/p1\+[0-9a-f]{8}, operator\.test\/p2.*they do not count/);
  const fresh = await checkLog(r.k, { verifyApi: API, key: logKeyOf(r.log.vkey, r.log.vkey), fetchImpl: r.log.fetchImpl, sleep: async () => {}, wait: noWait });
  // (Unpinned, as a page meeting this log for the first time: the 6 configured now count,
  // and the operator's 3 are no majority of them.)
  const unpinned = fresh.find((c) => c.name === "log witnesses");
  assert.equal(unpinned.status, "fail");
  assert.match(unpinned.detail, /^3 of the 6 witnesses this tab pinned cosigned the commitment .* 4 needed/);
});

test("attack: cosignatures backdated, or a checkpoint that does not hold the entry, are refused", async () => {
  // The naming cosigned late; the operator rewrites the witnesses' times in what it serves.
  const backdate = (l) => {
    l.override["/v1/log/entries"] = async (u) => {
      const body = await l.route(u).json();
      for (const e of body.entries) {
        for (const w of e.witnessed_by) {
          w.checkpoint = w.checkpoint.replace(/^(— witness\.test\/w\d )(.+)$/gm, (_, head, sig) => {
            const raw = fromBase64(sig);
            new DataView(raw.buffer).setBigUint64(4, BigInt(DUE_S - 10));
            return head + toBase64(raw);
          });
        }
      }
      return new Response(JSON.stringify(body));
    };
  };
  const r = await play({ witness: (l) => (l.sign(), l.witnessAll(DUE_S + 2)), during: backdate });
  assert.equal(r.byName["log witnesses"].status, "fail");
  assert.match(r.byName["log witnesses"].detail, /the checkpoint of 6 entries served as cosigned by witness\.test\/w1, witness\.test\/w2, witness\.test\/w3 is refused: the signature of witness\.test\/w1\+[0-9a-f]{8} does not verify/);
  // The naming's witnessed checkpoint swapped for an earlier cosigned one, which does not hold it.
  const earlier = (l) => {
    l.override["/v1/log/entries"] = async (u) => {
      const body = await l.route(u).json();
      const named = body.entries.find((e) => e.entry.kind === "round_named");
      named.witnessed_by = named.witnessed_by.map((w) => ({ ...w, size: 4, checkpoint: l.cosignedNote(4) }));
      return new Response(JSON.stringify(body));
    };
  };
  const e = await play({ opened: (l) => (l.sign(), l.witnessAll(DUE_S - 30)), witness: (l) => (l.sign(), l.witnessAll(DUE_S + 2)), during: earlier });
  assert.match(e.byName["log witnesses"].detail, /the checkpoint of 4 entries served as cosigned by .* is refused: its tree of 4 entries does not hold entry 4/);
});

test("log witnesses: the ending cosigned a moment after the end is waited for; the API down is 'could not check'", async () => {
  const log = new FakeLog();
  let asked = 0;
  const sleep = async () => {
    asked++;
    if (asked === 2) log.witnessAll(DUE_S + 60);
  };
  const r = await play({ log, end: (l) => l.sign(), options: { sleep, wait: { everyMs: 1, tries: 5 } } });
  assert.equal(r.byName["log witnesses"].status, "pass", r.byName["log witnesses"].detail);
  assert.equal(asked, 2);
  // No set pinned, and the witnesses' list does not answer: could not check.
  const down = await play({ during: (l) => (l.override["/v1/log/witnesses"] = () => new Response("{}", { status: 503 })) });
  assert.equal(down.byName["log witnesses"].status, "unchecked");
  assert.match(down.byName["log witnesses"].detail, /^could not check: this tab has pinned no witness, and the platform would not say which watch its log/);
  // A set pinned: the list is not needed.
  const pinned = witnessesOf({ log: down.log.vkey, vkeys: down.log.witnesses.map((w) => w.vkey), pinned_at: T0 }, { error: "down", down: true }, down.log.vkey);
  const again = await checkLog(down.k, { verifyApi: API, key: logKeyOf(down.log.vkey, down.log.vkey), witnesses: pinned, fetchImpl: down.log.fetchImpl, sleep: async () => {}, wait: noWait });
  assert.equal(again.find((c) => c.name === "log witnesses").status, "pass");
});

test("the witnesses pinned: the first set told wins, with the log key; an empty set is never pinned", async () => {
  const log = new FakeLog();
  const told = await fetchWitnesses(API, { fetchImpl: log.fetchImpl });
  assert.deepEqual(told.configured, log.witnesses.map((w) => w.vkey).sort());
  assert.deepEqual(told.registered, []);
  let set = witnessesOf(null, told, log.vkey);
  assert.deepEqual([set.vkeys, set.pin, set.added], [told.configured, told.configured, []]);
  // Pinned: a new configured set adds (said) and takes nothing away.
  const pinned = { log: log.vkey, vkeys: told.configured.slice(0, 2), pinned_at: 1 };
  set = witnessesOf(pinned, told, log.vkey);
  assert.deepEqual([set.vkeys, set.pin, set.added], [pinned.vkeys, null, [told.configured[2]]]);
  // A set pinned for another log key is not this log's.
  assert.deepEqual(witnessesOf({ ...pinned, log: "other" }, told, log.vkey).pin, told.configured);
  // None configured: nothing to pin.
  assert.deepEqual(witnessesOf(null, { configured: [], registered: [], malformed: [] }, log.vkey), { vkeys: [], pin: null, added: [], error: null, down: false });
  // A listed key that is not a witness's is left out.
  log.override["/v1/log/witnesses"] = () => new Response(JSON.stringify({ witnesses: [{ vkey: log.vkey, source: "configured" }, { vkey: log.witnesses[0].vkey, source: "configured" }] }));
  const odd = await fetchWitnesses(API, { fetchImpl: log.fetchImpl });
  assert.deepEqual([odd.configured, odd.malformed.length], [[log.witnesses[0].vkey], 1]);
  // The store: first sight wins, an empty set is not pinned.
  const mem = new Map();
  const storage = { getItem: (x) => mem.get(x) ?? null, setItem: (x, v) => mem.set(x, String(v)), removeItem: (x) => mem.delete(x), key: (i) => [...mem.keys()][i] ?? null, get length() { return mem.size; } };
  const store = makeStore(storage);
  assert.equal(store.pinLogWitnesses(log.vkey, [], 1), null);
  assert.equal(store.logWitnesses(), null);
  assert.deepEqual(store.pinLogWitnesses(log.vkey, ["a", "b"], 2), { log: log.vkey, vkeys: ["a", "b"], pinned_at: 2 });
  assert.deepEqual(store.pinLogWitnesses(log.vkey, ["c"], 3), { log: log.vkey, vkeys: ["a", "b"], pinned_at: 2 });
});
