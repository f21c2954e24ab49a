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
//   log witnesses    a quorum (a majority) of the witnesses this tab pinned cosigned,
//                    before the named round was due by drand's schedule, a checkpoint
//                    holding the match's commitment and one holding the round's naming,
//                    and a checkpoint holding its ending; each checkpoint verified (the
//                    log's signature, the witness's cosignature), the entry proven in it
//                    and it proven consistent with the checkpoint now. The witnesses are
//                    the operator's configured ones (GET /v1/log/witnesses), pinned the
//                    first time this tab sees them, with the log key (first sight wins:
//                    witnesses added later are said, as info, and do not count).
// Each check passes, fails or could not be checked ("unchecked": no log key told, the
// verify API did not answer), never ok without its proof. A checkpoint whose signature
// does not verify under the pinned key is refused, never pinned, and fails.
//
// What the tab believes is only what it verifies: the checkpoints under the pinned key,
// the proofs against their roots, and the entries' own bytes (the leaf hashes the proofs
// are about), which it parses itself; the JSON the API serves beside them is not read.
// The pure formats and proofs are translog.js; this module does the asking.

import { CHAINS, roundTime } from "./drand.js";
import { TranslogError, fromBase64, leafHash, logVerifier, openCheckpoint, openCosignedCheckpoint, verifyConsistency, verifyInclusion, witnessVerifier } from "./translog.js";

/** The end checkpoint must hold the match's last entries (the reveal's, written as the
 * match ends): the log signs every BELOT_TRANSLOG_INTERVAL (1 s), so the check asks again
 * this often, this many times, before it says the entries are not yet signed. */
export const LOG_WAIT = Object.freeze({ everyMs: 500, tries: 20 });

const pass = (name, detail) => ({ name, status: "pass", detail });
const fail = (name, detail) => ({ name, status: "fail", detail });
const unchecked = (name, detail) => ({ name, status: "unchecked", detail });

export const LOG_CHECKS = Object.freeze(["log key", "log consistency", "log inclusion", "log entries", "log witnesses"]);
/** Said (info) when the platform names witnesses this tab did not pin: they do not count. */
export const WITNESSES_ADDED = "log witnesses added";
const info = (name, detail) => ({ name, status: "info", detail });

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

/**
 * The witnesses the log takes cosignatures from (GET /v1/log/witnesses): {configured:
 * [vkey] (the operator's, ``source`` "configured": the ones this tab may pin), registered:
 * [vkey] (anyone's: they count for nothing here), malformed: [text]}, or {error, down}.
 * Only Ed25519 cosignature keys (type 0x04) whose key ID is their own are listed.
 */
export async function fetchWitnesses(api, { fetchImpl = fetch } = {}) {
  const got = await ask(fetchImpl, api, "/v1/log/witnesses", "json");
  if (got.error) return { error: got.error, down: got.down };
  const list = got.value?.witnesses;
  if (!Array.isArray(list)) return { error: "the verify API's answer to /v1/log/witnesses lists no witnesses", down: false };
  const out = { configured: [], registered: [], malformed: [] };
  for (const w of list) {
    try {
      const v = witnessVerifier(w?.vkey);
      (w.source === "configured" ? out.configured : out.registered).push(v.vkey);
    } catch (e) {
      out.malformed.push(`${JSON.stringify(w?.vkey ?? null).slice(0, 80)}: ${e.message}`);
    }
  }
  out.configured = [...new Set(out.configured)].sort();
  out.registered = [...new Set(out.registered)].sort();
  return out;
}

/**
 * Which witnesses count for this tab: the set it pinned for the log key ``logVkey`` (the
 * store's, ``pinned``: {log, vkeys, pinned_at}, first sight wins), else the operator's
 * configured set the page is told now (``told``: fetchWitnesses' answer), pinned now if it
 * is not empty. Returns {vkeys, pin (the set to pin now, or null), added (configured now,
 * not pinned: said, not counted), error (why none could be had)}.
 */
export function witnessesOf(pinned, told, logVkey) {
  const now = told && !told.error ? told.configured : null;
  if (pinned && pinned.log === logVkey && Array.isArray(pinned.vkeys) && pinned.vkeys.length) {
    const added = (now ?? []).filter((v) => !pinned.vkeys.includes(v));
    return { vkeys: [...pinned.vkeys], pin: null, added, error: null };
  }
  if (now?.length) return { vkeys: [...now], pin: [...now], added: [], error: null };
  return { vkeys: [], pin: null, added: [], error: told?.error ?? null, down: told?.down ?? false };
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
 * answer now), witnesses (witnessesOf's answer now; not given: the configured witnesses
 * the verify API names now, unpinned), fetchImpl, sleep (real milliseconds), wait
 * (LOG_WAIT)}. Returns the checks of LOG_CHECKS, in that order, and "log witnesses
 * added" (info) when the platform names witnesses this tab did not pin.
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

  // --- the witnesses: a quorum cosigned the commitment and the naming in time, and the ending
  let set = options.witnesses;
  if (!set) set = witnessesOf(null, await fetchWitnesses(verifyApi, { fetchImpl }), vkey);
  const relist = async () => {
    const again = await ask(fetchImpl, verifyApi, `/v1/log/entries?match=${encodeURIComponent(kept.match_id)}`, "json");
    return Array.isArray(again.value?.entries) ? again.value.entries : null;
  };
  const witnessCheck = await checkWitnesses(kept, {
    set,
    vkey,
    items: Array.isArray(listed.value?.entries) ? listed.value.entries : null,
    entries,
    entriesCheck,
    end,
    relist,
    fetchImpl,
    verifyApi,
    sleep,
    wait,
  });
  const checks = [keyCheck, consistencyCheck, inclusionCheck, entriesCheck, witnessCheck];
  if (set.added?.length) {
    checks.push(info(WITNESSES_ADDED, `the platform now names witnesses this tab did not pin when it first met them (${set.added.map(keyName).join(", ")}): they do not count (an operator may add its own)`));
  }
  return checks;
}

const ISO = (secs) => new Date(secs * 1000).toISOString().replace(".000Z", "Z");
const apart = (ms) => `${(Math.abs(ms) / 1000).toFixed(1)} s ${ms >= 0 ? "before" : "after"}`;
const WHAT = { commitment: "the commitment", round_named: "the round's naming", ending: "the ending" };

/**
 * "log witnesses": for the commitment and the round_named entries, a quorum (a majority)
 * of the pinned witnesses whose cosigned checkpoint holding the entry verifies (the log's
 * signature and the witness's cosignature, the entry's inclusion, its consistency with
 * the checkpoint now) and is timestamped before the named round was due by drand's
 * schedule; for the ending, a quorum that cosigned a checkpoint holding it. The
 * checkpoints are the entries' ``witnessed_by`` (each configured witness's first cosigned
 * checkpoint holding the entry); asked again (``wait``) while a witness has not cosigned
 * one yet.
 */
async function checkWitnesses(kept, o) {
  const name = "log witnesses";
  const { set, vkey, end, fetchImpl, verifyApi, sleep, wait } = o;
  if (!set.vkeys.length) {
    if (set.error) return (set.down ? unchecked : fail)(name, `${set.down ? "could not check: " : ""}this tab has pinned no witness, and the platform would not say which watch its log: ${set.error}`);
    return fail(name, "no witness watches this log: the platform names none (GET /v1/log/witnesses), so nobody but the operator vouches for when the round was named or that the log shown to this tab is the one shown to everyone");
  }
  if (o.entriesCheck.status === "unchecked" || !o.items) return unchecked(name, "could not check: the log's entries of this match could not be had");
  if (!end.checkpoint) return end.refused ? fail(name, "no checkpoint of the log's now to hold the witnessed ones to: the one it serves is refused") : unchecked(name, `could not check: ${end.error}`);
  const log = logVerifier(vkey);
  const witnesses = [];
  for (const v of set.vkeys) {
    try {
      witnesses.push(witnessVerifier(v));
    } catch {
      // not a witness key: pinned by no page of ours (fetchWitnesses lists none such)
    }
  }
  const quorum = Math.floor(set.vkeys.length / 2) + 1;
  const names = witnesses.map((w) => w.name);

  // What must be witnessed, and by when: the named round's due time (drand's schedule);
  // without a naming, the last round the commitment allows.
  const ofMatch = (kind) => o.entries.find((e) => e.entry.kind === kind && e.entry.match === kept.match_id) ?? null;
  const chain = Object.hasOwn(CHAINS, kept.chain ?? "") ? kept.chain : null;
  const named = ofMatch("round_named");
  const round = Number.isSafeInteger(kept.drand_round) ? kept.drand_round : Number.isSafeInteger(named?.entry.round) ? named.entry.round : Number.isSafeInteger(kept.last_round) ? kept.last_round : null;
  if (!chain || round === null) return unchecked(name, "could not check: this tab knows no drand round (or chain) to hold the witnesses' times to");
  const due = roundTime(chain, round);
  const targets = [];
  const problems = [];
  for (const kind of ["commitment", "round_named", "ending"]) {
    const e = ofMatch(kind);
    if (e) targets.push({ kind, e, by: kind === "ending" ? null : due });
    else if (kind === "commitment" || (kind === "round_named" && Number.isSafeInteger(kept.drand_round)) || (kind === "ending" && kept.ended)) problems.push(`the log holds no ${WHAT[kind].replace("the ", "")} of this match for a witness to cosign`);
  }

  const proofs = new Map(); // a checkpoint's verification, by its note text
  const verify = async (note, e) => {
    const key = `${e.index}\n${note}`;
    if (!proofs.has(key)) proofs.set(key, await verifyWitnessed(note, e, { log, witnesses, end: end.checkpoint, fetchImpl, verifyApi }));
    return proofs.get(key);
  };
  let items = o.items;
  let judged;
  for (let attempt = 1; ; attempt++) {
    const byIndex = new Map(items.map((it) => [it?.index, it]));
    judged = [];
    for (const t of targets) {
      const first = new Map(); // witness name -> earliest verified cosignature time
      const refused = new Map(); // why a checkpoint served as a witness's is refused -> whose
      for (const w of Array.isArray(byIndex.get(t.e.index)?.witnessed_by) ? byIndex.get(t.e.index).witnessed_by : []) {
        if (typeof w?.checkpoint !== "string") continue;
        const got = await verify(w.checkpoint, t.e);
        if (got.down) return unchecked(name, `could not check: ${got.down}`);
        if (got.bad) {
          const size = Number.isSafeInteger(w.size) ? ` of ${w.size} entries` : "";
          const why = `the checkpoint${size} served as cosigned by WHO is refused: ${got.bad}`;
          refused.set(why, [...(refused.get(why) ?? []), String(w.witness ?? "a witness")]);
          continue;
        }
        for (const c of got.cosignatures) if (!first.has(c.name) || c.timestamp < first.get(c.name)) first.set(c.name, c.timestamp);
      }
      const ok = names.filter((n) => first.has(n) && (t.by === null || first.get(n) * 1000 < t.by));
      const late = names.filter((n) => first.has(n) && !ok.includes(n));
      const blamed = new Set([...refused.values()].flat());
      const none = names.filter((n) => !first.has(n) && !blamed.has(n));
      const bad = [...refused].map(([why, who]) => why.replace("WHO", who.join(", ")));
      judged.push({ ...t, first, ok, late, none, bad });
    }
    const waiting = judged.some((j) => j.ok.length < quorum && j.none.length && !j.bad.length);
    if (!waiting || attempt >= Math.max(1, wait.tries)) break;
    // Listed before the checkpoint now was waited for: asked again at once, then every
    // wait.everyMs (a witness cosigns within a second of the log's signing).
    if (attempt > 1) await sleep(wait.everyMs);
    items = (await o.relist()) ?? items;
  }
  for (const j of judged) {
    if (j.ok.length >= quorum) continue;
    const said = [...j.bad];
    for (const n of j.late) said.push(`${n} cosigned it first at ${ISO(j.first.get(n))}, ${apart(j.by - j.first.get(n) * 1000)} round ${round} was due`);
    if (j.none.length) said.push(`${j.none.join(", ")} cosigned no checkpoint holding it`);
    const when = j.by === null ? "" : ` before round ${round} was due (${ISO(j.by / 1000)})`;
    problems.push(`${j.ok.length} of the ${set.vkeys.length} witnesses this tab pinned cosigned ${WHAT[j.kind]} (entry ${j.e.index})${when}, ${quorum} needed: ${said.join("; ")}`);
  }
  if (problems.length) {
    const why = judged.some((j) => j.kind !== "ending" && j.ok.length < quorum) ? ": nobody but the operator vouches that the commitment was made and the round named before its value was known" : "";
    return fail(name, `${problems.join("; ")}${why}`);
  }
  const told = judged.map((j) => `${WHAT[j.kind]} by ${j.ok.map((n) => `${n}${j.by === null ? "" : ` ${apart(j.by - j.first.get(n) * 1000)} it was due`}`).join(", ")}`);
  return pass(name, `a quorum of the ${set.vkeys.length} witness${set.vkeys.length > 1 ? "es" : ""} this tab pinned (${quorum} needed) cosigned checkpoints holding the match's entries, the commitment and the naming before round ${round} was due (${ISO(due / 1000)}): ${told.join("; ")}`);
}

/** A checkpoint a witness is said to have cosigned, holding entry ``e``: opened with the
 * log's key and the pinned witnesses' (translog.js openCosignedCheckpoint), the entry
 * proven in it, and it proven consistent with the checkpoint now (``end``). Returns
 * {cosignatures} (the pinned witnesses' verified lines), {bad} (why it is refused), or
 * {down} (the verify API did not answer). */
async function verifyWitnessed(note, e, { log, witnesses, end, fetchImpl, verifyApi }) {
  let cp;
  try {
    cp = openCosignedCheckpoint(note, log, witnesses);
  } catch (err) {
    if (!(err instanceof TranslogError)) throw err;
    return { bad: err.message };
  }
  if (cp.size <= e.index) return { bad: `its tree of ${cp.size} entries does not hold entry ${e.index}` };
  const inc = await ask(fetchImpl, verifyApi, `/v1/log/proof/inclusion?index=${e.index}&size=${cp.size}`, "json");
  if (inc.error) return inc.down ? { down: inc.error } : { bad: `the log would not prove entry ${e.index} in it: ${inc.error}` };
  const incProof = proofOf(inc.value);
  try {
    if (incProof === null) throw new TranslogError("proof_invalid", "the inclusion proof is not a list of base64 hashes");
    verifyInclusion(leafHash(e.data), e.index, cp.size, incProof, cp.root);
  } catch (err) {
    if (!(err instanceof TranslogError)) throw err;
    return { bad: `entry ${e.index} is not in its tree of ${cp.size} entries (${err.message})` };
  }
  const [a, b] = cp.size <= end.size ? [cp, { size: end.size, root: fromBase64(end.root) }] : [{ size: end.size, root: fromBase64(end.root) }, cp];
  let consProof = [];
  if (a.size !== b.size && a.size !== 0) {
    const con = await ask(fetchImpl, verifyApi, `/v1/log/proof/consistency?first=${a.size}&second=${b.size}`, "json");
    if (con.error) return con.down ? { down: con.error } : { bad: `the log would not prove it consistent with its checkpoint of ${end.size} entries now: ${con.error}` };
    consProof = proofOf(con.value);
  }
  try {
    if (consProof === null) throw new TranslogError("proof_invalid", "the consistency proof is not a list of base64 hashes");
    verifyConsistency(a.size, b.size, consProof, a.root, b.root);
  } catch (err) {
    if (!(err instanceof TranslogError)) throw err;
    return { bad: `it is not consistent with the log's checkpoint of ${end.size} entries now (${err.message}): the witness was shown another history` };
  }
  return { cosignatures: cp.cosignatures };
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
