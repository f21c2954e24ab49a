// The in-tab check of a match (fairdeal.js): the salts of the hidden events (the
// commitment's promise, and this seat's own), the hashes served, the commitment's other
// uses at the verify API and the seed's receipt published there.

import { COMPLETION, FIRST, dealSalts, saltIndex } from "./deck.js";
import { BEFORE_SALTS } from "./keepbase.js";
import { t } from "./i18n.js";
import { verifyReceipt } from "./receipts.js";
import { NAME, fail, pass, short, unchecked } from "./fairbase.js";

// --- the salts, the hashes, the commitment's other uses

const SALT_HEX = /^[0-9a-f]{32}$/;
const older = (kept) => BEFORE_SALTS.includes(kept.format);

export function checkSalts(kept, { final }) {
  const name = "salts";
  if (!kept.commitment) return null; // the commitment check says so
  if (kept.salted === false) {
    return fail(name, t("fair.salts.not_promised"));
  }
  if (!final) return null;
  if (kept.salted !== true) {
    return unchecked(name, older(kept) ? t("fair.salts.older") : t("fair.salts.not_shown"));
  }
  return pass(name, t("fair.salts.pass"));
}

/** This seat's cards, deal by deal: [{deal, part, salt, has (false: kept before salts)}]. */
function yourParts(kept) {
  const out = [];
  for (const k of Object.keys(kept.deals ?? {}).map(Number).sort((a, b) => a - b)) {
    const d = kept.deals[String(k)];
    for (const part of ["first", "completion"]) {
      if (d[part]) out.push({ deal: k, part, salt: d[part].salt ?? null, has: "salt" in d[part] });
    }
  }
  return out;
}

/** "your first cards of deal 2", "your completion cards of deal 2". */
const cardsOf = (x) => (x.part === "first" ? t("fair.salts.first_cards", { deal: x.deal + 1 }) : t("fair.salts.completion_cards", { deal: x.deal + 1 }));

/** A promised salt missing, not 32 lower-case hex, or carried by two of this seat's
 * events: what can be told without the server seed. */
function saltProblems(parts) {
  const problems = [];
  const seen = new Map();
  for (const x of parts) {
    if (!x.has) continue;
    if (x.salt === null || x.salt === "") problems.push(t("fair.salts.missing", { cards: cardsOf(x) }));
    else if (typeof x.salt !== "string" || !SALT_HEX.test(x.salt)) problems.push(t("fair.salts.malformed", { cards: cardsOf(x), salt: JSON.stringify(x.salt) }));
    else if (seen.has(x.salt)) problems.push(t("fair.salts.repeated", { cards: cardsOf(x), other: cardsOf(seen.get(x.salt)), salt: x.salt }));
    else seen.set(x.salt, x);
  }
  return problems;
}

/** The salt problems said, and why they matter. */
const saltsSaid = (problems) => t("fair.salts.problems", { problems: problems.join("; ") });

export function checkYourSaltsLive(kept) {
  if (kept.seat === null || kept.salted !== true) return null;
  const problems = saltProblems(yourParts(kept));
  return problems.length ? fail(NAME.your_salts, saltsSaid(problems)) : null;
}

/** At the end: the live problems, then each salt recomputed from the revealed seed
 * (deck.js dealSalts), its index 1 + seat for the first cards, 1 + players + seat for the
 * completion. ``seedOk``: the revealed seed is the committed one. */
export async function checkYourSalts(kept, { serverSeed, seedOk }) {
  const name = NAME.your_salts;
  if (kept.seat === null || kept.salted !== true) return null;
  const parts = yourParts(kept);
  if (!parts.length) return null;
  const problems = saltProblems(parts);
  const notKept = parts.find((x) => !x.has);
  const n = kept.pattern?.players;
  const wellFormed = parts.filter((x) => x.has && typeof x.salt === "string" && SALT_HEX.test(x.salt));
  const chosen = [];
  if (seedOk && Number.isInteger(n)) {
    for (const x of wellFormed) {
      const index = saltIndex(n, kept.seat, x.part === "first" ? FIRST : COMPLETION);
      const [want] = await dealSalts(serverSeed, x.deal, [index]);
      if (x.salt !== want) chosen.push(t("fair.salts.not_recipe", { cards: cardsOf(x), salt: x.salt, want, index: String(index), deal: String(x.deal) }));
    }
  }
  if (problems.length || chosen.length) {
    const said = [];
    if (problems.length) said.push(saltsSaid(problems));
    if (chosen.length) said.push(t("fair.salts.chosen", { chosen: chosen.join("; ") }));
    return fail(name, said.join("; "));
  }
  if (notKept) return unchecked(name, t("fair.salts.not_kept", { cards: cardsOf(notKept) }));
  if (!seedOk) return unchecked(name, t("fair.salts.seed_wrong"));
  if (!Number.isInteger(n)) return unchecked(name, t("fair.salts.no_pattern"));
  return pass(name, t("fair.salts.pass_yours", { count: parts.length }));
}

export function checkHashes(kept, { final }) {
  const name = "hashes";
  const h = kept.hash_served;
  if (h) {
    const said = { version: String(h.version), event: String(h.event), stream: String(h.stream), hash: short(h.hash) };
    const where =
      h.via !== "record"
        ? t("fair.hashes.socket", said)
        : h.version === null
          ? t("fair.hashes.record_head", said)
          : t("fair.hashes.record_event", said);
    return fail(name, t("fair.hashes.served", { where }));
  }
  if (!final) return null;
  if (older(kept)) return unchecked(name, t("fair.hashes.older"));
  return pass(name, t("fair.hashes.pass"));
}

/** How long the check waits for the verify API to list this match under its commitment
 * (it indexes the commitment as the match opens: this only covers a projection behind). */
export const COMMITMENT_WAIT = Object.freeze({ everyMs: 500, tries: 10 });

/** Ask the verify API which matches used ``commitment`` (GET /v1/commitments/{c}):
 * {matches, used_twice}, or {error} when it does not answer, or answers otherwise. */
export async function askCommitment(verifyApi, commitment, { fetchImpl = (input, init) => fetch(input, init) } = {}) {
  const path = `/v1/commitments/${encodeURIComponent(commitment)}`;
  let r;
  try {
    r = await fetchImpl(`${String(verifyApi).replace(/\/$/, "")}${path}`, { cache: "no-store" });
  } catch (e) {
    return { error: t("fair.api.no_answer", { error: e.message }) };
  }
  if (!r.ok) return { error: t("fair.api.status", { status: String(r.status), path }) };
  let body;
  try {
    body = await r.json();
  } catch (e) {
    return { error: t("fair.api.not_json", { path, error: e.message }) };
  }
  if (!body || body.commitment !== commitment || !Array.isArray(body.matches) || !body.matches.every((m) => typeof m === "string")) {
    return { error: t("fair.api.no_matches", { path }) };
  }
  return { matches: body.matches, used_twice: body.used_twice === true };
}

/** ``live``: the verify API was asked when this tab saw the commitment. */
function reused(kept, answer, live) {
  const others = answer.matches.filter((m) => m !== kept.match_id);
  if (!others.length && !answer.used_twice) return null;
  const which = others.length ? t("fair.commitment_new.matches", { count: others.length, matches: others.join(", ") }) : t("fair.commitment_new.another");
  return fail(NAME.commitment_new, live ? t("fair.commitment_new.reused_live", { which }) : t("fair.commitment_new.reused", { which }));
}

export function checkCommitmentLive(kept) {
  const u = kept.commitment_uses;
  return kept.commitment && Array.isArray(u?.matches) ? reused(kept, u, true) : null;
}

/** The receipt for this seat's seed, signed with the match's receipt key, published at
 * the verify API once the match has ended (POST /v1/matches/{id}/receipts, which keeps
 * it once): from then on anyone checking the match holds its record to it (the report's
 * seed_receipts), so a seed the server acknowledged and dropped fails for them too, not
 * only here. A verify API that refuses a receipt this tab checked keeps it from them. */
export async function checkReceiptPublished(kept, options) {
  const name = NAME.receipt_published;
  const r = kept.receipt;
  if (!r?.signature || !kept.receipt_key || !verifyReceipt(kept.receipt_key, r)) return null;
  if (!options.verifyApi) return unchecked(name, t("receipt.no_api"));
  const path = `/v1/matches/${encodeURIComponent(kept.match_id)}/receipts`;
  const body = { match_id: r.match_id, seat: r.seat, seed_sha256: r.seed_sha256, stream: r.stream, version: r.version, signature: r.signature };
  let answer;
  try {
    answer = await (options.fetchImpl ?? ((input, init) => fetch(input, init)))(`${String(options.verifyApi).replace(/\/$/, "")}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (e) {
    return unchecked(name, t("receipt.no_answer", { error: e.message }));
  }
  if (answer.ok) return pass(name, t("receipt.published", { stream: String(r.stream), version: String(r.version) }));
  let why;
  try {
    const e = await answer.json();
    why = e?.error ? `: ${e.error}${e.message ? `, ${e.message}` : ""}` : "";
  } catch {
    why = "";
  }
  const status = String(answer.status);
  if (answer.status >= 500 || answer.status === 429) return unchecked(name, t("receipt.unavailable", { status, why }));
  return fail(name, t("receipt.refused", { status, why }));
}

export async function checkCommitmentNew(kept, options) {
  const name = NAME.commitment_new;
  if (!kept.commitment) return null;
  const early = checkCommitmentLive(kept);
  if (early) return early;
  if (!options.verifyApi) return unchecked(name, t("fair.commitment_new.no_api"));
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const wait = options.commitmentWait ?? COMMITMENT_WAIT;
  let got;
  for (let i = 1; ; i++) {
    got = await askCommitment(options.verifyApi, kept.commitment, { fetchImpl: options.fetchImpl });
    if (got.error) return unchecked(name, t("fair.could_not_check", { why: got.error }));
    const r = reused(kept, got, false);
    if (r) return r;
    if (got.matches.includes(kept.match_id) || i >= wait.tries) break;
    await sleep(wait.everyMs);
  }
  if (!got.matches.includes(kept.match_id)) return unchecked(name, t("fair.commitment_new.not_listed", { commitment: short(kept.commitment) }));
  return pass(name, t("fair.commitment_new.pass", { commitment: short(kept.commitment) }));
}
