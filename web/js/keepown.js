// What the tab keeps of a match (keeper.js): what this tab did and saw itself, beside
// what the table told it: its own seed and key, its leave asked, the seed's receipt or
// refusal, its own drand observations, the log's checkpoint at the open, a hash served,
// the commitment's other uses at the verify API.

import { t } from "./i18n.js";
import { ENDINGS, MAX_SEEN, WHAT, fill, fix } from "./keepbase.js";

/** The tab's own seed: recorded before it is sent, once. */
export function keepMySeed(kept, seedHex, now = Date.now()) {
  fill(kept);
  if (kept.my_seed !== null) return false;
  kept.my_seed = seedHex;
  kept.my_seed_sent_at = now;
  return true;
}

/** The key this page made for its seat (seatkey.js). A seat left and taken again before
 * the commitment gets a new key: until the commitment is kept the latest counts; once
 * it is, the key noted then stays (the commitment's key is judged against it). */
export function keepMyKey(kept, keyHex) {
  fill(kept);
  if (typeof keyHex !== "string" || kept.my_key === keyHex) return false;
  if (kept.my_key !== null && kept.commitment_keys !== null) return false;
  kept.my_key = keyHex;
  return true;
}

/** The player asked, in this tab, to leave its seat (before the request goes out: a
 * forfeit that overtakes the reply is still one this tab asked for). */
export function keepLeaveAsked(kept, now = Date.now()) {
  if (kept.leave_asked_at !== null && kept.leave_asked_at !== undefined) return false;
  kept.leave_asked_at = now;
  return true;
}

/** This tab sends its seed now and waits for the reply (the window's close can come on
 * the WebSocket before the reply with its receipt: the check waits for the reply). */
export function keepSeedSending(kept, now = Date.now()) {
  fill(kept);
  kept.seed_reply_due = now;
  return true;
}

/** The seed request has been answered (a receipt, a refusal, or an error). */
export function keepSeedAnswered(kept) {
  fill(kept);
  if (kept.seed_reply_due === null) return false;
  kept.seed_reply_due = null;
  return true;
}

/** The seed reply's receipt (POST /v1/tables/{id}/seed): the randomness stream's event
 * that recorded this seat's seed. The record must honour it (fairdeal.js "your seed"). */
export function keepReceipt(kept, receipt, now = Date.now()) {
  fill(kept);
  if (!receipt || typeof receipt !== "object") return false;
  const r = { match_id: receipt.match_id, seat: receipt.seat, seed_sha256: receipt.seed_sha256, stream: receipt.stream, version: receipt.version, at_ms: receipt.at_ms, signature: typeof receipt.signature === "string" ? receipt.signature : null };
  const first = kept.receipt === null;
  const changed = fix(kept, "receipt", r, WHAT.receipt);
  if (first && changed) kept.receipt_at = now;
  return changed;
}

/** The server refused this tab's seed (``code``: seed_window_closed, ...), once. */
export function keepSeedRefused(kept, code, now = Date.now()) {
  fill(kept);
  if (kept.seed_refused !== null) return false;
  kept.seed_refused = { code, at: now };
  return true;
}

/** The tab's own observation of a drand round: ``beacon`` verified (drand.js fetchRound),
 * had at ``at`` (the tab's clock) from ``relay`` (of ``source``), asked ``how``. First
 * sight wins: it is when this tab first had the round's value. */
export function keepDrandSeen(kept, beacon, { at, relay, source, how }) {
  fill(kept);
  const key = String(beacon.round);
  if (kept.drand_seen[key] || Object.keys(kept.drand_seen).length >= MAX_SEEN) return false;
  kept.drand_seen[key] = {
    at,
    relay,
    source,
    how,
    signature: beacon.signature,
    ...(beacon.previous_signature ? { previous_signature: beacon.previous_signature } : {}),
    randomness: beacon.randomness,
  };
  return true;
}

/** The log's checkpoint as the tab had it when the match opened (logcheck.js
 * fetchCheckpoint's answer ``got``, under ``vkey``, the page told ``told``), at ``at`` on
 * the tab's clock. First sight wins: the first verified checkpoint is pinned and never
 * replaced, and a refused one is kept (the check fails it); an answer that did not come
 * only says so, and the tab asks again. */
export function keepLogOpen(kept, { vkey, told = null, got, at }) {
  fill(kept);
  if (kept.log === null) kept.log = { vkey, told: told !== vkey ? told : null, open: null, refused: null, error: null };
  const log = kept.log;
  if (log.open || log.refused) return false;
  if (got.checkpoint) {
    log.open = { ...got.checkpoint, seen_at: at };
    log.error = null;
  } else if (got.refused) {
    log.refused = { ...got.refused, at };
  } else {
    log.error = { message: got.error ?? t("keeper.no_answer"), at };
  }
  return true;
}

/** A hash of the match's stream this tab was served before the match ended (``via``:
 * "socket", a WebSocket message; "record", the verify API's record of the match, read by
 * the replay page): {via, stream, version, event, hash, at}. The first one is kept. */
export function keepHashServed(kept, served) {
  fill(kept);
  if (kept.hash_served !== null) return false;
  kept.hash_served = { via: served.via, stream: served.stream ?? null, version: served.version ?? null, event: served.event ?? null, hash: String(served.hash), at: served.at };
  return true;
}

/** The first hash a match record (the verify API's, docs/verifying.md) serves of a match
 * that has not ended, as keepHashServed takes it, or null: an ended match's hashes are
 * everyone's; a running one's must be null, and its stream's head too. */
export function recordHash(record, at) {
  const m = record?.streams?.match;
  if (!m || !Array.isArray(m.events)) return null;
  if (m.events.some((e) => ENDINGS.includes(e?.type))) return null;
  const e = m.events.find((x) => x && x.hash !== null && x.hash !== undefined);
  if (e) return { via: "record", stream: e.stream ?? m.id ?? null, version: e.version ?? null, event: e.type ?? null, hash: e.hash, at };
  if (m.head !== null && m.head !== undefined) return { via: "record", stream: m.id ?? null, version: null, event: null, hash: m.head, at };
  return null;
}

/** The verify API's answer, when the commitment was seen, on which matches used it
 * (fairdeal.js askCommitment: {matches, used_twice} or {error}), at ``at`` on the tab's
 * clock. The first answer is kept; an error only says none came yet (asked again). */
export function keepCommitmentUses(kept, got, at) {
  fill(kept);
  if (kept.commitment_uses?.matches) return false;
  kept.commitment_uses = Array.isArray(got?.matches) ? { matches: got.matches, used_twice: got.used_twice === true, at } : { error: got?.error ?? t("keeper.no_answer"), at };
  return true;
}
