// The tab's checks against the transparency log (logcheck.js) that rest on the log's
// proofs: the checkpoint now extends the one pinned at the open (consistency), each entry
// of the match is in it (inclusion), and a quorum of the pinned witnesses cosigned, in
// time, checkpoints holding the commitment, the round's naming and the ending.

import { CHAINS, roundTime } from "./drand.js";
import { LANGUAGES, language, t } from "./i18n.js";
import { TranslogError, fromBase64, leafHash, logVerifier, verifyConsistency, verifyInclusion, witnessVerifier } from "./translog.js";
import { openCosignedCheckpoint } from "./translognote.js";
import { CONSISTENCY, INCLUSION, WITNESSES, ask, couldNot, fail, pass, unchecked } from "./logbase.js";

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
export async function checkWitnesses(kept, o) {
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

export async function checkConsistency(open, end, { fetchImpl, verifyApi }) {
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

export async function checkInclusion(entries, end, { fetchImpl, verifyApi }) {
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
