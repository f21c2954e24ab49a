// The tab's checks against the transparency log (docs/tab-check.md, "The transparency
// log"; docs/transparency-log.md): when the match opens, the tab pins the log's signed
// checkpoint; at the end it asks the log again and checks
//   log key          the log's key is the one this tab pinned the first time it was told
//                    one (first sight wins: a new key is, to this tab, another log);
//   log consistency  the checkpoint now extends the one pinned when the match opened (a
//                    log rewritten meanwhile, to drop or change an entry, fails);
//   log inclusion    each entry of the match is in that checkpoint, by an inclusion
//                    proof from its leaf hash, SHA-256(0x00 || the entry's bytes);
//   log entries      the entries the log holds for the match say what this tab saw: the
//                    commitment, the round named (or the fallback), the revealed seed,
//                    the ending (a match missing from the log fails).
// Each check passes, fails or could not be checked ("unchecked": no log key told, the
// verify API did not answer), never ok without its proof. A checkpoint whose signature
// does not verify under the pinned key is refused, never pinned, and fails.
//
// What the tab believes is only what it verifies: the checkpoints under the pinned key,
// the proofs against their roots, and the entries' own bytes (the leaf hashes the proofs
// are about), which it parses itself; the JSON the API serves beside them is not read.
// The pure formats and proofs are translog.js; this module does the asking.

import { TranslogError, fromBase64, leafHash, logVerifier, openCheckpoint, verifyConsistency, verifyInclusion } from "./translog.js";

/** The end checkpoint must hold the match's last entries (the reveal's, written as the
 * match ends): the log signs every BELOT_TRANSLOG_INTERVAL (1 s), so the check asks again
 * this often, this many times, before it says the entries are not yet signed. */
export const LOG_WAIT = Object.freeze({ everyMs: 500, tries: 20 });

const pass = (name, detail) => ({ name, status: "pass", detail });
const fail = (name, detail) => ({ name, status: "fail", detail });
const unchecked = (name, detail) => ({ name, status: "unchecked", detail });

export const LOG_CHECKS = Object.freeze(["log key", "log consistency", "log inclusion", "log entries"]);

const base = (api) => String(api ?? "").replace(/\/$/, "");
const keyName = (vkey) => vkey.split("+").slice(0, 2).join("+");

/**
 * GET ``path`` of the verify API. Returns {value} (text or parsed JSON), or {error,
 * down}: ``down`` when nothing answered, or it answered that it cannot now (5xx, 429):
 * could not check; otherwise the API answered something else than what was asked (a
 * 4xx, a body that is not JSON), which the caller may hold against the log.
 */
async function ask(fetchImpl, api, path, as) {
  let r;
  try {
    r = await fetchImpl(`${base(api)}${path}`, { cache: "no-store" });
  } catch (e) {
    return { error: `the verify API did not answer (${e.message})`, down: true };
  }
  if (!r.ok) {
    let code = "";
    try {
      code = (await r.json())?.error ?? "";
    } catch {
      code = "";
    }
    return { error: `the verify API answered ${r.status}${code ? ` (${code})` : ""} to ${path}`, down: r.status >= 500 || r.status === 429, status: r.status };
  }
  try {
    return { value: as === "text" ? await r.text() : await r.json() };
  } catch (e) {
    return { error: `the verify API's answer to ${path} is not ${as === "text" ? "text" : "JSON"} (${e.message})`, down: false };
  }
}

/**
 * Which key the tab checks the log with: the one it pinned (the store's, first sight
 * wins), else the one the page is told now. ``pinned``: the stored vkey or null; ``told``:
 * /v1/config's ``translog.vkey`` or null. Returns {vkey, told, pin, malformed}: ``pin``
 * the key to pin now (first sight), ``malformed`` why the told key is not a log key.
 */
export function logKeyOf(pinned, told) {
  if (pinned) return { vkey: pinned, told: told ?? null, pin: null, malformed: null };
  if (!told) return { vkey: null, told: null, pin: null, malformed: null };
  try {
    logVerifier(told);
  } catch (e) {
    return { vkey: null, told, pin: null, malformed: e.message };
  }
  return { vkey: told, told, pin: told, malformed: null };
}

/**
 * The log's latest checkpoint, verified under ``vkey``. Returns {checkpoint: {origin,
 * size, root (base64), note}}, {refused: {code, message}} (served, but its signature,
 * origin or form is not the log's), or {error, down} (no checkpoint had).
 */
export async function fetchCheckpoint(api, vkey, { fetchImpl = fetch } = {}) {
  let log;
  try {
    log = logVerifier(vkey);
  } catch (e) {
    return { refused: { code: e.code ?? "key_malformed", message: `the log's key is not a key: ${e.message}` } };
  }
  const got = await ask(fetchImpl, api, "/checkpoint", "text");
  if (got.error) return { error: got.error, down: got.down };
  try {
    const cp = openCheckpoint(got.value, log);
    return { checkpoint: { origin: cp.origin, size: cp.size, root: cp.root_b64, note: cp.note } };
  } catch (e) {
    if (!(e instanceof TranslogError)) throw e;
    return { refused: { code: e.code, message: e.message } };
  }
}

/** The entry's own bytes, parsed here: {index, data, entry} or a reason it is not one. */
function readEntry(item) {
  const index = item?.index;
  const data = fromBase64(item?.data);
  if (!Number.isSafeInteger(index) || index < 0 || data === null) return { bad: "an entry whose index or bytes are not an index and base64" };
  let entry;
  try {
    entry = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    return { bad: `entry ${index} is not JSON text` };
  }
  if (!entry || typeof entry !== "object" || entry.v !== 1 || typeof entry.kind !== "string") return { bad: `entry ${index} is not a belot-log-entry/1` };
  return { index, data, entry };
}

/** The entries the log holds for the match against what this tab kept. Returns the
 * check and the entries read (for the inclusion proofs). */
function checkEntries(kept, items) {
  const name = "log entries";
  const read = items.map(readEntry);
  const bad = read.find((r) => r.bad);
  if (bad) return { check: fail(name, `the log served ${bad.bad}`), entries: [] };
  const entries = read;
  const problems = [];
  const ofMatch = entries.filter((e) => e.entry.kind !== "round_missed");
  const strangers = ofMatch.filter((e) => e.entry.match !== kept.match_id);
  if (strangers.length) problems.push(`entry ${strangers[0].index} is of match ${JSON.stringify(strangers[0].entry.match)}, not this one`);
  const of = (kind) => ofMatch.filter((e) => e.entry.kind === kind && e.entry.match === kept.match_id);
  const one = (kind, what) => {
    const found = of(kind);
    if (found.length > 1) problems.push(`the log holds ${found.length} ${what} entries for this match (${found.map((e) => e.index).join(", ")})`);
    return found[0]?.entry ?? null;
  };
  const said = [];

  const c = one("commitment", "commitment");
  if (!c) problems.push("the log holds no commitment for this match: it was never logged, or taken out");
  else {
    if (c.commitment !== kept.commitment) problems.push(`the log's commitment is ${c.commitment}, this tab was shown ${kept.commitment}`);
    if (kept.chain !== null && kept.chain !== undefined && c.chain !== kept.chain) problems.push(`the log's commitment names drand chain ${c.chain}, this tab was shown ${kept.chain}`);
    if (Number.isSafeInteger(kept.window_closes_at_ms) && c.window_closes_at_ms !== kept.window_closes_at_ms) problems.push(`the log's commitment closes its seed window at ${c.window_closes_at_ms}, this tab was shown ${kept.window_closes_at_ms}`);
    if (Number.isSafeInteger(kept.last_round) && c.last_round !== kept.last_round) problems.push(`the log's commitment allows rounds up to ${c.last_round}, this tab was shown ${kept.last_round}`);
    if (kept.seat !== null && kept.seat !== undefined) {
      const s = (c.seats ?? []).find((x) => x.seat === kept.seat);
      if (!s || s.player !== kept.player) problems.push(`the log's commitment seats ${s ? JSON.stringify(s.player) : "nobody"} at seat ${kept.seat}, where this tab's player sat`);
    }
    said.push("the commitment");
  }
  const named = one("round_named", "round_named");
  if (kept.drand_round !== null && kept.drand_round !== undefined) {
    if (!named) problems.push(`the log holds no naming of round ${kept.drand_round} for this match`);
    else if (named.round !== kept.drand_round) problems.push(`the log says round ${named.round} was named, this tab was shown round ${kept.drand_round}`);
    else said.push(`round ${named.round} named`);
  } else if (named) problems.push(`the log says round ${named.round} was named, which this tab was never shown`);
  const fb = one("fallback", "fallback");
  if (kept.fallback) {
    if (!fb) problems.push("the log holds no fallback for this match, though it was dealt without drand");
    else if (fb.round !== kept.fallback.round || fb.reason !== kept.fallback.reason) problems.push(`the log's fallback is round ${fb.round} (${fb.reason}), this tab was shown round ${kept.fallback.round} (${kept.fallback.reason})`);
    else said.push("the fallback");
  } else if (fb && kept.drand) problems.push(`the log says the match fell back on round ${fb.round}, but this tab saw it dealt with drand`);
  const reveal = one("reveal", "reveal");
  if (kept.reveal) {
    if (!reveal) problems.push("the log holds no reveal of the server seed for this match");
    else if (reveal.server_seed !== kept.reveal.server_seed) problems.push(`the log's revealed seed is ${reveal.server_seed}, this tab was shown ${kept.reveal.server_seed}`);
    else said.push("the revealed seed");
  }
  const ending = one("ending", "ending");
  if (kept.ended) {
    if (!ending) problems.push(`the log holds no ending (${kept.ended.event}) for this match`);
    else if (ending.ending !== kept.ended.event) problems.push(`the log says the match ended by ${ending.ending}, this tab saw ${kept.ended.event}`);
    else said.push(`the ending (${ending.ending})`);
  }
  if (problems.length) return { check: fail(name, problems.join("; ")), entries };
  return { check: pass(name, `the log's ${entries.length} entries of this match say what this tab saw: ${said.join(", ")}`), entries };
}

/**
 * The log checks at the end of the match (after the reveal). ``kept.log``: what the tab
 * pinned at the open (keeper.js keepLogOpen). options: {verifyApi, key (logKeyOf's
 * answer now), fetchImpl, sleep (real milliseconds), wait (LOG_WAIT)}. Returns the four
 * checks of LOG_CHECKS, in that order.
 */
export async function checkLog(kept, options = {}) {
  const { verifyApi = null, key = { vkey: null, told: null }, fetchImpl = fetch, wait = LOG_WAIT } = options;
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const log = kept.log ?? null;
  const vkey = log?.vkey ?? key.vkey ?? null;
  const all = (status, detail) => LOG_CHECKS.map((n) => ({ name: n, status, detail }));

  // --- the key
  if (!vkey) {
    if (key.malformed) return [fail("log key", `the platform names a log key that is not one (${key.malformed})`), ...all("unchecked", "could not check: no log key to check it with").slice(1)];
    return all("unchecked", "could not check: the platform names no transparency log (no log key in /v1/config)");
  }
  if (!verifyApi) return all("unchecked", "could not check: the platform names no verify API");
  const changes = [log?.told, key.told].filter((t) => t && t !== vkey);
  const keyCheck = changes.length
    ? fail("log key", `the platform now names the log key ${keyName(changes[0])}, but this tab pinned ${keyName(vkey)}: a new key is another log, and it is not trusted`)
    : pass("log key", `the log's checkpoints are checked with the key this tab pinned, ${keyName(vkey)}`);

  // --- the match's entries, then a checkpoint that holds them
  const listed = await ask(fetchImpl, verifyApi, `/v1/log/entries?match=${encodeURIComponent(kept.match_id)}`, "json");
  let entriesCheck;
  let entries = [];
  if (listed.error) {
    entriesCheck = listed.down ? unchecked("log entries", `could not check: ${listed.error}`) : fail("log entries", `the log would not list this match's entries: ${listed.error}`);
  } else if (!Array.isArray(listed.value?.entries)) {
    entriesCheck = fail("log entries", "the log's answer lists no entries");
  } else {
    ({ check: entriesCheck, entries } = checkEntries(kept, listed.value.entries));
  }
  const need = entries.reduce((n, e) => Math.max(n, e.index + 1), 0);
  let end = null;
  for (let i = 0; i < Math.max(1, wait.tries); i++) {
    end = await fetchCheckpoint(verifyApi, vkey, { fetchImpl });
    if (!end.checkpoint || end.checkpoint.size >= need) break;
    await sleep(wait.everyMs);
  }

  // --- consistency with the checkpoint pinned at the open
  let consistencyCheck;
  const name = "log consistency";
  const open = log?.open ?? null;
  if (end.refused) {
    consistencyCheck = fail(name, `the checkpoint the log serves now is refused: ${end.refused.message}`);
  } else if (log?.refused) {
    consistencyCheck = fail(name, `the checkpoint the log served when the match opened was refused: ${log.refused.message}`);
  } else if (!open) {
    const why = !log ? "this tab pinned no checkpoint when the match opened" : `this tab could not have the log's checkpoint when the match opened (${log.error?.message ?? "no answer"})`;
    consistencyCheck = unchecked(name, `could not check: ${why}`);
  } else if (end.error) {
    consistencyCheck = end.down ? unchecked(name, `could not check: ${end.error}`) : fail(name, `the log serves no checkpoint now, though it served one of ${open.size} entries when the match opened: ${end.error}`);
  } else {
    consistencyCheck = await checkConsistency(open, end.checkpoint, { fetchImpl, verifyApi });
  }

  // --- inclusion of each entry in the checkpoint now
  let inclusionCheck;
  if (!end.checkpoint) {
    inclusionCheck = end.refused ? fail("log inclusion", "no checkpoint of the log's to prove the entries in: the one it serves is refused") : unchecked("log inclusion", `could not check: ${end.error}`);
  } else if (!entries.length) {
    inclusionCheck = entriesCheck.status === "unchecked" ? unchecked("log inclusion", "could not check: the log's entries of this match could not be had") : fail("log inclusion", "the log shows no entry of this match to prove");
  } else {
    inclusionCheck = await checkInclusion(entries, end.checkpoint, { fetchImpl, verifyApi });
  }
  return [keyCheck, consistencyCheck, inclusionCheck, entriesCheck];
}

function proofOf(value) {
  const list = value?.proof;
  if (!Array.isArray(list)) return null;
  const hashes = list.map(fromBase64);
  return hashes.every((h) => h !== null) ? hashes : null;
}

async function checkConsistency(open, end, { fetchImpl, verifyApi }) {
  const name = "log consistency";
  const openRoot = fromBase64(open.root);
  const endRoot = fromBase64(end.root);
  if (end.size < open.size) return fail(name, `the log's checkpoint now has ${end.size} entries, fewer than the ${open.size} it signed when the match opened: the log was rewritten`);
  let proof = [];
  if (end.size !== open.size && open.size !== 0) {
    const got = await ask(fetchImpl, verifyApi, `/v1/log/proof/consistency?first=${open.size}&second=${end.size}`, "json");
    if (got.error) return got.down ? unchecked(name, `could not check: ${got.error}`) : fail(name, `the log would not prove that its tree of ${end.size} extends the one of ${open.size}: ${got.error}`);
    proof = proofOf(got.value);
    if (proof === null) return fail(name, "the log's consistency proof is not a list of base64 hashes");
  }
  try {
    verifyConsistency(open.size, end.size, proof, openRoot, endRoot);
  } catch (e) {
    if (!(e instanceof TranslogError)) throw e;
    return fail(name, `the log's checkpoint of ${end.size} entries does not extend the one of ${open.size} this tab pinned when the match opened (${e.message}): the log was rewritten`);
  }
  return pass(name, `the log's checkpoint of ${end.size} entries extends the one of ${open.size} this tab pinned when the match opened (RFC 9162 consistency proof)`);
}

async function checkInclusion(entries, end, { fetchImpl, verifyApi }) {
  const name = "log inclusion";
  const root = fromBase64(end.root);
  const later = entries.filter((e) => e.index >= end.size);
  const proven = [];
  for (const e of entries.filter((x) => x.index < end.size)) {
    const got = await ask(fetchImpl, verifyApi, `/v1/log/proof/inclusion?index=${e.index}&size=${end.size}`, "json");
    if (got.error) return got.down ? unchecked(name, `could not check: ${got.error}`) : fail(name, `the log would not prove entry ${e.index} in its tree of ${end.size}: ${got.error}`);
    const proof = proofOf(got.value);
    if (proof === null) return fail(name, `the log's inclusion proof of entry ${e.index} is not a list of base64 hashes`);
    try {
      verifyInclusion(leafHash(e.data), e.index, end.size, proof, root);
    } catch (err) {
      if (!(err instanceof TranslogError)) throw err;
      return fail(name, `entry ${e.index} (${e.entry.kind}) is not in the log's checkpoint of ${end.size} entries: ${err.message}`);
    }
    proven.push(e.index);
  }
  if (later.length) return unchecked(name, `could not check: entries ${later.map((e) => e.index).join(", ")} are not yet in a checkpoint the log signed (it has ${end.size} entries)`);
  return pass(name, `each of the match's ${proven.length} entries (${proven.join(", ")}) is in the log's checkpoint of ${end.size} entries (RFC 9162 inclusion proofs from their leaf hashes)`);
}
