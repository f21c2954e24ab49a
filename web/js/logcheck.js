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
// The pure formats and proofs are translog.js and translognote.js; the checks' names and
// the asking, logbase.js; the checks that rest on the log's proofs (consistency,
// inclusion, the witnesses), logproofs.js; this module runs them all (checkLog) and
// checks the match's entries.

import { t } from "./i18n.js";
import { fromBase64 } from "./translog.js";

import { CONSISTENCY, ENTRIES, INCLUSION, KEY, LOG_CHECKS, WITNESSES_ADDED, ask, couldNot, fail, fetchCheckpoint, fetchWitnesses, info, keyName, pass, unchecked, witnessesOf } from "./logbase.js";
import { checkConsistency, checkInclusion, checkWitnesses } from "./logproofs.js";

/** The end checkpoint must hold the match's last entries (the reveal's, written as the
 * match ends): the log signs every BELOT_TRANSLOG_INTERVAL (1 s), so the check asks again
 * this often, this many times, before it says the entries are not yet signed. */
export const LOG_WAIT = Object.freeze({ everyMs: 500, tries: 20 });

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
