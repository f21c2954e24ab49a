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
import { LANGUAGES, language, t } from "./i18n.js";
import { TranslogError, fromBase64, leafHash, logVerifier, verifyConsistency, verifyInclusion, witnessVerifier } from "./translog.js";
import { openCheckpoint, openCosignedCheckpoint } from "./translognote.js";

/** The end checkpoint must hold the match's last entries (the reveal's, written as the
 * match ends): the log signs every BELOT_TRANSLOG_INTERVAL (1 s), so the check asks again
 * this often, this many times, before it says the entries are not yet signed. */
export const LOG_WAIT = Object.freeze({ everyMs: 500, tries: 20 });

const pass = (name, detail) => ({ name, status: "pass", detail });
const fail = (name, detail) => ({ name, status: "fail", detail });
const unchecked = (name, detail) => ({ name, status: "unchecked", detail });

/** The checks' names: each one's identifier (the panel's data-check, what code and tests
 * compare them by), and its name in the player's language (logCheckName). */
const NAMES = Object.freeze({
  "log key": () => t("log.check.key"),
  "log consistency": () => t("log.check.consistency"),
  "log inclusion": () => t("log.check.inclusion"),
  "log entries": () => t("log.check.entries"),
  "log witnesses": () => t("log.check.witnesses"),
  "log witnesses added": () => t("log.check.witnesses_added"),
});
const [KEY, CONSISTENCY, INCLUSION, ENTRIES, WITNESSES, ADDED] = Object.keys(NAMES);
export const LOG_CHECKS = Object.freeze([KEY, CONSISTENCY, INCLUSION, ENTRIES, WITNESSES]);
/** Said (info) when the platform names witnesses this tab did not pin: they do not count. */
export const WITNESSES_ADDED = ADDED;
const info = (name, detail) => ({ name, status: "info", detail });

/** The name of check ``name`` (a check's ``name`` as checkLog gives it) in the player's
 * language; a name this module does not make is given back as it is. */
export function logCheckName(name) {
  return Object.hasOwn(NAMES, name) ? NAMES[name]() : name;
}

/** "could not check: ...": a check without its proof, and why. */
const couldNot = (why) => t("log.could_not_check", { why });

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
    return { error: t("log.api.no_answer", { error: e.message }), down: true };
  }
  if (!r.ok) {
    let code;
    try {
      code = (await r.json())?.error ?? "";
    } catch {
      code = "";
    }
    const said = { status: String(r.status), code, path };
    return { error: code ? t("log.api.answered_code", said) : t("log.api.answered", said), down: r.status >= 500 || r.status === 429, status: r.status };
  }
  try {
    return { value: as === "text" ? await r.text() : await r.json() };
  } catch (e) {
    const said = { path, error: e.message };
    return { error: as === "text" ? t("log.api.not_text", said) : t("log.api.not_json", said), down: false };
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
    return { refused: { code: e.code ?? "key_malformed", message: t("log.key.not_a_key", { why: e.message }) } };
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
  if (!Array.isArray(list)) return { error: t("log.api.no_witnesses"), down: false };
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

/** The entry's own bytes, parsed here: {index, data, entry} or what the log served
 * instead (``bad``, the check's failure). */
function readEntry(item) {
  const index = item?.index;
  const data = fromBase64(item?.data);
  if (!Number.isSafeInteger(index) || index < 0 || data === null) return { bad: t("log.entries.served_malformed") };
  let entry;
  try {
    entry = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    return { bad: t("log.entries.served_not_json", { index: String(index) }) };
  }
  if (!entry || typeof entry !== "object" || entry.v !== 1 || typeof entry.kind !== "string") return { bad: t("log.entries.served_not_entry", { index: String(index) }) };
  return { index, data, entry };
}

/** The entries the log holds for the match against what this tab kept. Returns the
 * check and the entries read (for the inclusion proofs). */
function checkEntries(kept, items) {
  const name = ENTRIES;
  const read = items.map(readEntry);
  const bad = read.find((r) => r.bad);
  if (bad) return { check: fail(name, bad.bad), entries: [] };
  const entries = read;
  const problems = [];
  const ofMatch = entries.filter((e) => e.entry.kind !== "round_missed");
  const strangers = ofMatch.filter((e) => e.entry.match !== kept.match_id);
  if (strangers.length) problems.push(t("log.entries.other_match", { index: String(strangers[0].index), match: JSON.stringify(strangers[0].entry.match) }));
  const of = (kind) => ofMatch.filter((e) => e.entry.kind === kind && e.entry.match === kept.match_id);
  const one = (kind) => {
    const found = of(kind);
    if (found.length > 1) problems.push(t("log.entries.repeated", { count: String(found.length), kind, indexes: found.map((e) => e.index).join(", ") }));
    return found[0]?.entry ?? null;
  };
  // Values as the log and this tab have them, put into the sentences as text.
  const text = (logged, shown) => ({ logged: String(logged), shown: String(shown) });
  const said = [];

  const c = one("commitment");
  if (!c) problems.push(t("log.entries.no_commitment"));
  else {
    if (c.commitment !== kept.commitment) problems.push(t("log.entries.commitment_differs", text(c.commitment, kept.commitment)));
    if (kept.chain !== null && kept.chain !== undefined && c.chain !== kept.chain) problems.push(t("log.entries.chain_differs", text(c.chain, kept.chain)));
    if (Number.isSafeInteger(kept.window_closes_at_ms) && c.window_closes_at_ms !== kept.window_closes_at_ms) problems.push(t("log.entries.window_differs", text(c.window_closes_at_ms, kept.window_closes_at_ms)));
    if (Number.isSafeInteger(kept.last_round) && c.last_round !== kept.last_round) problems.push(t("log.entries.last_round_differs", text(c.last_round, kept.last_round)));
    if (kept.seat !== null && kept.seat !== undefined) {
      const s = (c.seats ?? []).find((x) => x.seat === kept.seat);
      const seat = String(kept.seat);
      if (!s) problems.push(t("log.entries.seats_nobody", { seat }));
      else if (s.player !== kept.player) problems.push(t("log.entries.seats_other", { player: JSON.stringify(s.player), seat }));
    }
    said.push(t("log.entries.said_commitment"));
  }
  const named = one("round_named");
  if (kept.drand_round !== null && kept.drand_round !== undefined) {
    if (!named) problems.push(t("log.entries.no_naming", { round: String(kept.drand_round) }));
    else if (named.round !== kept.drand_round) problems.push(t("log.entries.round_differs", text(named.round, kept.drand_round)));
    else said.push(t("log.entries.said_round", { round: String(named.round) }));
  } else if (named) problems.push(t("log.entries.round_unseen", { round: String(named.round) }));
  const fb = one("fallback");
  if (kept.fallback) {
    if (!fb) problems.push(t("log.entries.no_fallback"));
    else if (fb.round !== kept.fallback.round || fb.reason !== kept.fallback.reason) {
      problems.push(t("log.entries.fallback_differs", { ...text(fb.round, kept.fallback.round), logged_reason: String(fb.reason), shown_reason: String(kept.fallback.reason) }));
    } else said.push(t("log.entries.said_fallback"));
  } else if (fb && kept.drand) problems.push(t("log.entries.fallback_unseen", { round: String(fb.round) }));
  const reveal = one("reveal");
  if (kept.reveal) {
    if (!reveal) problems.push(t("log.entries.no_reveal"));
    else if (reveal.server_seed !== kept.reveal.server_seed) problems.push(t("log.entries.reveal_differs", text(reveal.server_seed, kept.reveal.server_seed)));
    else said.push(t("log.entries.said_reveal"));
  }
  const ending = one("ending");
  if (kept.ended) {
    if (!ending) problems.push(t("log.entries.no_ending", { ending: kept.ended.event }));
    else if (ending.ending !== kept.ended.event) problems.push(t("log.entries.ending_differs", text(ending.ending, kept.ended.event)));
    else said.push(t("log.entries.said_ending", { ending: String(ending.ending) }));
  }
  if (problems.length) return { check: fail(name, problems.join("; ")), entries };
  return { check: pass(name, t("log.entries.agree", { count: String(entries.length), said: said.join(", ") })), entries };
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
    if (key.malformed) return [fail(KEY, t("log.key.malformed", { why: key.malformed })), ...all("unchecked", t("log.key.none_to_check")).slice(1)];
    return all("unchecked", t("log.key.no_log"));
  }
  if (!verifyApi) return all("unchecked", t("log.key.no_api"));
  const changes = [log?.told, key.told].filter((k) => k && k !== vkey);
  const keyCheck = changes.length
    ? fail(KEY, t("log.key.changed", { told: keyName(changes[0]), pinned: keyName(vkey) }))
    : pass(KEY, t("log.key.pinned", { key: keyName(vkey) }));

  // --- the match's entries, then a checkpoint that holds them
  const listed = await ask(fetchImpl, verifyApi, `/v1/log/entries?match=${encodeURIComponent(kept.match_id)}`, "json");
  let entriesCheck;
  let entries = [];
  if (listed.error) {
    entriesCheck = listed.down ? unchecked(ENTRIES, couldNot(listed.error)) : fail(ENTRIES, t("log.entries.not_listed", { error: listed.error }));
  } else if (!Array.isArray(listed.value?.entries)) {
    entriesCheck = fail(ENTRIES, t("log.entries.none_listed"));
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
  const name = CONSISTENCY;
  const open = log?.open ?? null;
  if (end.refused) {
    consistencyCheck = fail(name, t("log.consistency.end_refused", { why: end.refused.message }));
  } else if (log?.refused) {
    consistencyCheck = fail(name, t("log.consistency.open_refused", { why: log.refused.message }));
  } else if (!open) {
    consistencyCheck = unchecked(name, !log ? t("log.consistency.none_pinned") : t("log.consistency.none_had", { why: log.error?.message ?? t("keeper.no_answer") }));
  } else if (end.error) {
    consistencyCheck = end.down ? unchecked(name, couldNot(end.error)) : fail(name, t("log.consistency.end_missing", { count: String(open.size), error: end.error }));
  } else {
    consistencyCheck = await checkConsistency(open, end.checkpoint, { fetchImpl, verifyApi });
  }

  // --- inclusion of each entry in the checkpoint now
  let inclusionCheck;
  if (!end.checkpoint) {
    inclusionCheck = end.refused ? fail(INCLUSION, t("log.inclusion.end_refused")) : unchecked(INCLUSION, couldNot(end.error));
  } else if (!entries.length) {
    inclusionCheck = entriesCheck.status === "unchecked" ? unchecked(INCLUSION, t("log.entries.unavailable")) : fail(INCLUSION, t("log.inclusion.none"));
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
    checks.push(info(WITNESSES_ADDED, t("log.witnesses.added", { witnesses: set.added.map(keyName).join(", ") })));
  }
  return checks;
}

/** A time (POSIX seconds) as ISO 8601 UTC, without milliseconds when there are none. */
function ISO(secs) {
  const iso = new Date(secs * 1000).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -".000Z".length)}Z` : iso;
}
/** How long ``ms`` is, in seconds to the tenth ("5.0", "5,0"), never grouped. */
function seconds(ms) {
  const locale = LANGUAGES.includes(language()) ? language() : "en";
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }).format(Math.abs(ms) / 1000);
}

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
  const name = WITNESSES;
  const { set, vkey, end, fetchImpl, verifyApi, sleep, wait } = o;
  if (!set.vkeys.length) {
    if (set.error) return set.down ? unchecked(name, t("log.witnesses.none_pinned_down", { error: set.error })) : fail(name, t("log.witnesses.none_pinned", { error: set.error }));
    return fail(name, t("log.witnesses.none"));
  }
  if (o.entriesCheck.status === "unchecked" || !o.items) return unchecked(name, t("log.entries.unavailable"));
  if (!end.checkpoint) return end.refused ? fail(name, t("log.witnesses.end_refused")) : unchecked(name, couldNot(end.error));
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
  if (!chain || round === null) return unchecked(name, t("log.witnesses.no_round"));
  const due = roundTime(chain, round);
  const targets = [];
  const problems = [];
  for (const kind of ["commitment", "round_named", "ending"]) {
    const e = ofMatch(kind);
    if (e) targets.push({ kind, e, by: kind === "ending" ? null : due });
    else if (kind === "commitment") problems.push(t("log.witnesses.missing_commitment"));
    else if (kind === "round_named" && Number.isSafeInteger(kept.drand_round)) problems.push(t("log.witnesses.missing_naming"));
    else if (kind === "ending" && kept.ended) problems.push(t("log.witnesses.missing_ending"));
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
    for (const target of targets) {
      const first = new Map(); // witness name -> earliest verified cosignature time
      // why a checkpoint served as a witness's is refused (its size and the reason) -> whose
      const refused = new Map();
      for (const w of Array.isArray(byIndex.get(target.e.index)?.witnessed_by) ? byIndex.get(target.e.index).witnessed_by : []) {
        if (typeof w?.checkpoint !== "string") continue;
        const got = await verify(w.checkpoint, target.e);
        if (got.down) return unchecked(name, couldNot(got.down));
        if (got.bad) {
          const size = Number.isSafeInteger(w.size) ? String(w.size) : null;
          const why = JSON.stringify([size, got.bad]);
          if (!refused.has(why)) refused.set(why, { size, bad: got.bad, who: [] });
          refused.get(why).who.push(w.witness === null || w.witness === undefined ? t("log.witnesses.a_witness") : String(w.witness));
          continue;
        }
        for (const c of got.cosignatures) if (!first.has(c.name) || c.timestamp < first.get(c.name)) first.set(c.name, c.timestamp);
      }
      const ok = names.filter((n) => first.has(n) && (target.by === null || first.get(n) * 1000 < target.by));
      const late = names.filter((n) => first.has(n) && !ok.includes(n));
      const blamed = new Set([...refused.values()].flatMap((r) => r.who));
      const none = names.filter((n) => !first.has(n) && !blamed.has(n));
      const bad = [...refused.values()].map(({ size, bad: why, who }) =>
        size === null ? t("log.witnesses.refused", { who: who.join(", "), why }) : t("log.witnesses.refused_size", { count: size, who: who.join(", "), why }),
      );
      judged.push({ ...target, first, ok, late, none, bad });
    }
    const waiting = judged.some((j) => j.ok.length < quorum && j.none.length && !j.bad.length);
    if (!waiting || attempt >= Math.max(1, wait.tries)) break;
    // Listed before the checkpoint now was waited for: asked again at once, then every
    // wait.everyMs (a witness cosigns within a second of the log's signing).
    if (attempt > 1) await sleep(wait.everyMs);
    items = (await o.relist()) ?? items;
  }
  const r = String(round);
  const total = String(set.vkeys.length);
  for (const j of judged) {
    if (j.ok.length >= quorum) continue;
    const said = [...j.bad];
    for (const n of j.late) {
      const ms = j.by - j.first.get(n) * 1000;
      const late = { witness: n, at: ISO(j.first.get(n)), seconds: seconds(ms), round: r };
      said.push(ms >= 0 ? t("log.witnesses.late_before", late) : t("log.witnesses.late_after", late));
    }
    if (j.none.length) said.push(t("log.witnesses.never", { witnesses: j.none.join(", ") }));
    const short = { ok: String(j.ok.length), total, index: String(j.e.index), quorum: String(quorum), said: said.join("; ") };
    if (j.kind === "commitment") problems.push(t("log.witnesses.short_commitment", { ...short, round: r, due: ISO(j.by / 1000) }));
    else if (j.kind === "round_named") problems.push(t("log.witnesses.short_naming", { ...short, round: r, due: ISO(j.by / 1000) }));
    else problems.push(t("log.witnesses.short_ending", short));
  }
  if (problems.length) {
    const unvouched = judged.some((j) => j.kind !== "ending" && j.ok.length < quorum);
    return fail(name, unvouched ? t("log.witnesses.unvouched", { problems: problems.join("; ") }) : problems.join("; "));
  }
  const told = judged.map((j) => {
    const witnesses = j.ok.map((n) => (j.by === null ? n : t("log.witnesses.in_time", { witness: n, seconds: seconds(j.by - j.first.get(n) * 1000) }))).join(", ");
    if (j.kind === "commitment") return t("log.witnesses.told_commitment", { witnesses });
    if (j.kind === "round_named") return t("log.witnesses.told_naming", { witnesses });
    return t("log.witnesses.told_ending", { witnesses });
  });
  return pass(name, t("log.witnesses.quorum", { count: total, quorum: String(quorum), round: r, due: ISO(due / 1000), told: told.join("; ") }));
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
  const index = String(e.index);
  if (cp.size <= e.index) return { bad: t("log.witnesses.not_held", { count: String(cp.size), index }) };
  const inc = await ask(fetchImpl, verifyApi, `/v1/log/proof/inclusion?index=${e.index}&size=${cp.size}`, "json");
  if (inc.error) return inc.down ? { down: inc.error } : { bad: t("log.witnesses.no_inclusion", { index, error: inc.error }) };
  const incProof = proofOf(inc.value);
  try {
    if (incProof === null) throw new TranslogError("proof_invalid", t("log.proof.inclusion_not_list"));
    verifyInclusion(leafHash(e.data), e.index, cp.size, incProof, cp.root);
  } catch (err) {
    if (!(err instanceof TranslogError)) throw err;
    return { bad: t("log.witnesses.not_included", { index, count: String(cp.size), why: err.message }) };
  }
  const [a, b] = cp.size <= end.size ? [cp, { size: end.size, root: fromBase64(end.root) }] : [{ size: end.size, root: fromBase64(end.root) }, cp];
  let consProof = [];
  if (a.size !== b.size && a.size !== 0) {
    const con = await ask(fetchImpl, verifyApi, `/v1/log/proof/consistency?first=${a.size}&second=${b.size}`, "json");
    if (con.error) return con.down ? { down: con.error } : { bad: t("log.witnesses.no_consistency", { count: String(end.size), error: con.error }) };
    consProof = proofOf(con.value);
  }
  try {
    if (consProof === null) throw new TranslogError("proof_invalid", t("log.proof.consistency_not_list"));
    verifyConsistency(a.size, b.size, consProof, a.root, b.root);
  } catch (err) {
    if (!(err instanceof TranslogError)) throw err;
    return { bad: t("log.witnesses.inconsistent", { count: String(end.size), why: err.message }) };
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
  const name = CONSISTENCY;
  const openRoot = fromBase64(open.root);
  const endRoot = fromBase64(end.root);
  const sizes = { count: String(end.size), open: String(open.size) };
  if (end.size < open.size) return fail(name, t("log.consistency.shrunk", sizes));
  let proof = [];
  if (end.size !== open.size && open.size !== 0) {
    const got = await ask(fetchImpl, verifyApi, `/v1/log/proof/consistency?first=${open.size}&second=${end.size}`, "json");
    if (got.error) return got.down ? unchecked(name, couldNot(got.error)) : fail(name, t("log.consistency.no_proof", { end: sizes.count, open: sizes.open, error: got.error }));
    proof = proofOf(got.value);
    if (proof === null) return fail(name, t("log.consistency.not_list"));
  }
  try {
    verifyConsistency(open.size, end.size, proof, openRoot, endRoot);
  } catch (e) {
    if (!(e instanceof TranslogError)) throw e;
    return fail(name, t("log.consistency.rewritten", { ...sizes, why: e.message }));
  }
  return pass(name, t("log.consistency.extends", sizes));
}

async function checkInclusion(entries, end, { fetchImpl, verifyApi }) {
  const name = INCLUSION;
  const root = fromBase64(end.root);
  const size = String(end.size);
  const later = entries.filter((e) => e.index >= end.size);
  const proven = [];
  for (const e of entries.filter((x) => x.index < end.size)) {
    const index = String(e.index);
    const got = await ask(fetchImpl, verifyApi, `/v1/log/proof/inclusion?index=${e.index}&size=${end.size}`, "json");
    if (got.error) return got.down ? unchecked(name, couldNot(got.error)) : fail(name, t("log.inclusion.no_proof", { index, size, error: got.error }));
    const proof = proofOf(got.value);
    if (proof === null) return fail(name, t("log.inclusion.not_list", { index }));
    try {
      verifyInclusion(leafHash(e.data), e.index, end.size, proof, root);
    } catch (err) {
      if (!(err instanceof TranslogError)) throw err;
      return fail(name, t("log.inclusion.missing", { index, kind: e.entry.kind, count: size, why: err.message }));
    }
    proven.push(e.index);
  }
  if (later.length) return unchecked(name, t("log.inclusion.unsigned", { indexes: later.map((e) => e.index).join(", "), count: size }));
  return pass(name, t("log.inclusion.proven", { entries: String(proven.length), indexes: proven.join(", "), count: size }));
}
