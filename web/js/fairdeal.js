// The in-tab check of a match (docs/specification.md §6, "Checking a match"; docs/tab-check.md),
// independent of the server's verifier and of any time the server wrote. From what this
// tab kept (keeper.js: the facts the table showed it, when this tab saw them on its own
// clock, and its own drand observations, watch.js) and the seed the server reveals at
// the end, it checks, each check passing, failing, "unchecked" (could not check: never
// shown as ok) or info:
//   consistency        the table never showed this tab one fact two ways;
//   commitment         the revealed seed against the commitment shown before this tab
//                      sent its seed;
//   commitment bounds  the last round the commitment allows follows from its window and
//                      its lead, the round named is no later, and it was not yet out
//                      when the commitment was shown;
//   commitment new     the verify API lists no other match under the commitment: a
//                      server seed used twice is known, once revealed, to whoever saw it;
//   salts              the commitment promises a salt in every hidden event (a match
//                      without them lets whoever holds a hash search it for your cards);
//   your seed          the seed the decks used at this seat is the one this tab made, as
//                      the server's receipt for it promised (signed with the match's
//                      receipt key, receipts.js); a seed refused as late is
//                      judged from when this tab first saw the commitment (starvation);
//   drand round        the round named is the rule's for the window's close and the
//                      lead, was not out yet when it was named (round grinding, a sock
//                      puppet's seed chosen late), and its naming reached this tab the
//                      commitment's lead (less namingMs) before it was due;
//   drand value        drand's value: its BLS signature against the pinned key (drand.js);
//   drand relay        the same round as this tab fetched it itself;
//   drand fallback     a match dealt without drand: the tab had no value of the round in
//                      time (a false fallback is a second deck for the server to choose);
//   dealer             the first dealer is the published rule's, from deal 0's deck;
//   deal N             each deck recomputed here (deck.js) gives this seat's cards;
//   your salts         each of this seat's cards came with its own salt, the recipe's;
//   hashes             nothing this tab was served before the end carried a hash of the
//                      match's events;
//   abort              an abort after the round was named (or a deck went out) fails;
//                      before it, info: who asked and why;
//   your key           the commitment recorded, for this seat, the key this page made
//                      and sent with it (seatkey.js: a leave is signed with it);
//   forfeit            a forfeit of this seat is one this tab asked for (leave);
//   receipt published  the receipt for this seat's seed, published at the verify API at
//                      the end, which anyone's check of the match then holds it to;
//   log ...            with options.log (the table page always gives it), the transparency
//                      log's checks (logcheck.js): the checkpoint pinned at the open is
//                      extended, the match's entries are in it and say what this tab saw,
//                      and a quorum of the witnesses it pinned cosigned them in time.
// checkLive() gives, during the match, what can already be known to have failed.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { CARD_CODES, COMPLETION, FIRST, dealSalts, deck, fromHex, saltIndex, sha256Hex } from "./deck.js";
import { CHAINS, fetchRound, roundAt, roundTime, verifyBeacon } from "./drand.js";
import { BEFORE_LEAVE, BEFORE_SALTS } from "./keeper.js";
import { LOG_CHECKS, checkLog } from "./logcheck.js";
import { verifyReceipt } from "./receipts.js";

/**
 * The check's tolerances, in milliseconds, in one place (docs/tab-check.md says what
 * each one covers).
 */
export const TOLERANCE = Object.freeze({
  /** docs/specification.md §6.4 (libs/fairdeal/fairness.py DRAND_GRACE_MS): a round whose value is
   * not in by its due time + this is missed, and the match is dealt without drand. */
  graceMs: 5000,
  /** This tab had a round's value (its own observation) more than this before it saw
   * the round named: the server could have known the value. Both times are read on this
   * tab's clock, so the clock's error cancels out; the margin is for messages crossing. */
  seenMs: 250,
  /** This tab's clock against drand's schedule (round r is due at genesis + (r - 1) ×
   * period): used where the tab has no observation, it assumes the device's clock is
   * right to within this. */
  clockMs: 2000,
  /** This tab had the round's value this long before the table told it that drand was
   * late: the value came in time. */
  toldMs: 2000,
  /** The round came less than period + grace − this after the round before it (both
   * seen as drand produced them, the one before on time by this tab's clock): it came
   * in time. */
  cadenceMs: 1000,
  /** The round's naming must reach this tab at least the commitment's lead
   * (round_lead_ms) less this before the round is due by drand's schedule on this tab's
   * clock. It covers the device's clock against drand's schedule (clockMs: where this
   * tab's own relays show its clock further ahead, or behind, that bound replaces it)
   * and the naming's way to the tab (the randomness service's append, the gateway, the
   * socket: 500 ms). A naming later than this could have been made once the value was
   * out, and leaves no witness the time to cosign it before the round is due. */
  namingMs: 2500,
  /** A seed refused as late, or missing from the window's close, is this tab's own doing
   * only if it sent it more than the window's length (ServerSeedCommitted:
   * window_closes_at_ms - at_ms) less this after it first saw the commitment: the
   * commitment's way to the tab and the seed's way back to the server. Sooner, the
   * server kept the seat from its seed (it showed the commitment late). */
  seedTripMs: 2000,
  /** The longest seed window a commitment may fix (fairness.py MAX_SEED_WINDOW_MS). */
  maxWindowMs: 600_000,
  /** The longest lead of the round a commitment may fix (fairness.py MAX_ROUND_LEAD_MS). */
  maxLeadMs: 60_000,
  /** During the match, a seed sent without a receipt yet is judged only once its reply
   * came, or this long after it was sent: the window's close may overtake the reply. */
  replyMs: 5000,
});

/** The round the rule names for a seed window closed at ``closedMs`` (the server's time)
 * with the commitment's ``leadMs`` (docs/specification.md §6.3, fairness.py
 * round_named_for): the first due more than the lead after the close. */
export function ruleRound(chain, closedMs, leadMs) {
  return roundAt(chain, closedMs + leadMs) + 1;
}

/** drand's own page for a round (api.drand.sh serves every round of every chain). */
export function drandPage(chain, round) {
  const c = Object.hasOwn(CHAINS, chain ?? "") ? CHAINS[chain] : CHAINS.quicknet;
  return `https://api.drand.sh/${c.hash}/public/${round}`;
}

/**
 * The cards a seat gets from ``deckCards`` under ``pattern`` (the published form, see
 * docs/verifying.md, "Checking a match by hand", step 6): seat offset (seat - dealer) mod n.
 * taker: the seat that took, or null (misère: completion_without_taker).
 */
export function seatCards(pattern, deckCards, dealer, seat, taker) {
  const n = pattern.players;
  const offset = (((seat - dealer) % n) + n) % n;
  const pick = (indices) => indices.map((i) => deckCards[i]);
  let completion = null;
  if (taker !== null && taker !== undefined) {
    completion = pick(pattern.completion[(((taker - dealer) % n) + n) % n][offset]);
  } else if (pattern.completion_without_taker) {
    completion = pick(pattern.completion_without_taker[offset]);
  }
  return {
    first: pick(pattern.first[offset]),
    completion,
    turned: deckCards[pattern.turned],
    bottom: pattern.shown === null || pattern.shown === undefined ? null : deckCards[pattern.shown],
  };
}

/** Who deals first under ``pattern`` (libs/belot/deal.py first_dealer): seat 0, or the
 * number of deal 0's card at first_dealer_from (suit × 8 + rank: C D H S, 7 8 9 T J Q K
 * A) modulo the number of players. */
export function firstDealer(pattern, deck0) {
  const from = pattern.first_dealer_from;
  if (from === null || from === undefined) return 0;
  return CARD_CODES.indexOf(deck0[from]) % pattern.players;
}

const pass = (name, detail) => ({ name, status: "pass", detail });
const fail = (name, detail) => ({ name, status: "fail", detail });
const unchecked = (name, detail) => ({ name, status: "unchecked", detail });
const info = (name, detail) => ({ name, status: "info", detail });

const secs = (ms) => `${(Math.abs(ms) / 1000).toFixed(1)} s`;
/** "1.2 s before" when ``ms`` >= 0, "0.3 s after" when it is negative: ``ms`` is how long
 * the thing said came before the one it is compared with. */
const apart = (ms) => `${secs(ms)} ${ms >= 0 ? "before" : "after"}`;
const known = (chain) => Object.hasOwn(CHAINS, chain ?? "");
const given = (x) => x !== null && x !== undefined;

/** The earliest observation this tab has of ``round`` or a later round (a later round's
 * value means this one was out too): {round, at, relay, source, how} or null. */
export function hadAt(kept, round) {
  let best = null;
  for (const [key, seen] of Object.entries(kept.drand_seen ?? {})) {
    const r = Number(key);
    if (r >= round && (best === null || seen.at < best.at)) best = { ...seen, round: r };
  }
  return best;
}

/** Whether the tab had an answer from a relay of its own (the player's or the tab's,
 * not the server's) by ``t``: its watch was running on relays the server does not run. */
function watchedBy(kept, t) {
  return Object.values(kept.drand_seen ?? {}).some((s) => s.source !== "server" && s.at <= t);
}

/** An answer of the tab's own relays, at ``t`` (less the margin) or later, that the
 * latest round was one before ``round``: ``round`` was not out yet then. */
function notYetAt(kept, round, t) {
  return Object.entries(kept.drand_seen ?? {}).some(([r, s]) => s.source !== "server" && s.how === "latest" && Number(r) < round && s.at >= t - TOLERANCE.seenMs);
}

/** How far ahead of drand's schedule this tab's clock may run, by its own relays (not the
 * server's: a relay it runs may be late on purpose): a beacon cannot be had before its
 * round is due, so round r had at t on this clock shows it at most t - due(r) ahead
 * (negative: at least that much behind). The least over its observations; null when its
 * own relays gave it none. */
export function clockAhead(kept) {
  if (!known(kept.chain)) return null;
  let best = null;
  for (const [key, seen] of Object.entries(kept.drand_seen ?? {})) {
    if (seen.source === "server" || !Number.isFinite(seen.at)) continue;
    const by = seen.at - roundTime(kept.chain, Number(key));
    if (best === null || by < best) best = by;
  }
  return best;
}

/** The naming's lead (TOLERANCE.namingMs): whether the naming of round ``R``, seen at
 * ``t`` on this tab's clock, came at least the commitment's ``lead`` less the tolerance
 * before the round was due. Returns null (in time), "wait" (during the match, its own
 * relays have not answered yet and may still show its clock fast), or the failure's
 * words. The tolerance's clock part (clockMs) is replaced by what its own relays show:
 * its clock further ahead than clockMs widens it, behind narrows it. */
function namingLate(kept, R, t, lead, { final, now }) {
  const due = roundTime(kept.chain, R);
  const ahead = clockAhead(kept);
  if (!final && ahead === null && now < t + TOLERANCE.clockMs) return "wait";
  const shift = ahead === null ? 0 : ahead > TOLERANCE.clockMs ? ahead - TOLERANCE.clockMs : Math.min(0, ahead);
  const allowance = TOLERANCE.namingMs + shift;
  const need = lead - allowance; // the naming must come at least this long before due
  const came = due - t; // it came this long before due (negative: after)
  if (came >= need) return null;
  const when = came < 0 ? `by this tab's clock, round ${R} was due ${secs(came)} before the table named it` : `by this tab's clock, round ${R} was named only ${secs(came)} before it was due`;
  const rule = need >= 0 ? `at least ${secs(need)} before its round is due` : `no later than ${secs(need)} after its round is due`;
  const clock = ahead === null ? "" : `; its own drand relays show its clock ${ahead >= 0 ? `at most ${secs(ahead)} ahead` : `at least ${secs(ahead)} behind`}`;
  return `${when}: a naming must reach this tab ${rule} (the commitment's lead of ${secs(lead)} less ${secs(allowance)} for this tab's clock and the naming's way to it${clock}), and this one came ${secs(need - came)} too late: ${came < 0 ? "the server could have known the value when it named the round" : "short of the lead the commitment promised, it may have been made once the round's value was out"}, and no witness could cosign the naming before the round was due`;
}

/** When this tab first had the value against when it saw the round named, said the right
 * way round (within seenMs it may have come first: two messages crossing). */
function hadThen(had, named) {
  const d = had.at - named;
  return d >= 0 ? `${secs(d)} after it saw the round named` : `${secs(d)} before it saw the round named (within the ${TOLERANCE.seenMs / 1000} s two messages may cross)`;
}

const from = (seen) => `${seen.relay}${seen.source === "server" ? " (a relay the server named)" : ""}`;
const roundOf = (seen, round) => (seen.round === round ? `round ${round}'s value` : `round ${seen.round}'s value (after round ${round})`);

// BLS checks are cached: checkLive runs on every event of the match.
const verified = new Map();
function verifyOnce(chain, beacon) {
  const key = JSON.stringify([chain, beacon.round, beacon.signature, beacon.previous_signature ?? null, beacon.randomness ?? null]);
  if (!verified.has(key)) {
    if (verified.size > 64) verified.clear();
    verified.set(key, verifyBeacon(chain, beacon));
  }
  return verified.get(key);
}

function seedSha256(hex) {
  try {
    return bytesToHex(sha256(hexToBytes(hex)));
  } catch {
    return null;
  }
}

// --- the checks; each takes the kept record and {final}: false while the match runs
// (only what can already be told), true at the end.

function checkConsistency(kept) {
  return (kept.conflicts ?? []).map((c) => fail("consistency", c));
}

function checkBounds(kept, { final, now = Infinity }) {
  const name = "commitment bounds";
  if (!kept.commitment) return null; // the commitment check says so
  if (!known(kept.chain)) return fail(name, `the commitment names a drand chain this tab does not know (${kept.chain})`);
  const last = kept.last_round;
  if (!Number.isSafeInteger(last) || last < 1) return fail(name, "the commitment fixes no last round: the server could wait for any round it liked");
  const c = kept.commitment_seen_at;
  const lead = kept.round_lead_ms;
  if (given(lead) && !(Number.isSafeInteger(lead) && lead >= 0 && lead <= TOLERANCE.maxLeadMs)) {
    return fail(name, `the commitment's lead of the round, ${lead} ms, is outside the 0..${TOLERANCE.maxLeadMs} ms allowed`);
  }
  // Passed only once the tab knows the lead (ServerSeedCommitted; the table's copy may lack it).
  const passed = (detail) => (given(lead) ? pass(name, detail) : final ? unchecked(name, "could not check: this tab was not shown the commitment's lead of the round (the fair deal's ServerSeedCommitted)") : null);
  const rule = given(lead) && lead > 0 ? `the rule's for its window's end, with its lead of ${secs(lead)}` : "the first after its window's end";
  if (given(kept.window_closes_at_ms)) {
    const expected = given(lead) ? ruleRound(kept.chain, kept.window_closes_at_ms, lead) : last;
    if (last !== expected) return fail(name, `the commitment's last round ${last} is not ${rule} (round ${expected})`);
    if (given(c) && kept.window_closes_at_ms - c > TOLERANCE.maxWindowMs + TOLERANCE.clockMs) {
      return fail(name, `the seed window ends ${secs(kept.window_closes_at_ms - c)} after this tab saw the commitment: longer than the ${TOLERANCE.maxWindowMs / 1000} s allowed`);
    }
  }
  if (given(kept.drand_round) && kept.drand_round > last) return fail(name, `round ${kept.drand_round} was named, past round ${last}, the last the commitment allowed`);
  if (!given(c)) return unchecked(name, "could not check: this tab did not keep when it saw the commitment");
  const had = hadAt(kept, last);
  if (had && had.at < c - TOLERANCE.seenMs) {
    return fail(name, `this tab had ${roundOf(had, last)} from ${from(had)} ${secs(c - had.at)} before it saw the commitment naming it the last round: it was already out`);
  }
  const due = roundTime(kept.chain, last);
  if (notYetAt(kept, last, c)) {
    return passed(`the commitment fixes round ${last} as the last the match may name (${rule}), and drand's latest round was an earlier one when this tab saw the commitment${given(kept.drand_round) ? `; round ${kept.drand_round} was named, no later` : ""}`);
  }
  if (c > due + TOLERANCE.clockMs) {
    if (kept.commitment_live === false) return unchecked(name, `could not check: this tab first saw the commitment in a catch-up (on connecting), after its last round ${last} was due`);
    // During the match, once the tab's own relays had clockMs to say otherwise.
    if (!final && now < c + TOLERANCE.clockMs) return null;
    return fail(name, `by this tab's clock, round ${last}, the last the match may name, was due ${secs(c - due)} before the commitment was shown: its value was already out`);
  }
  const named = given(kept.drand_round) ? `; round ${kept.drand_round} was named, no later` : "";
  return passed(`the commitment fixes round ${last} as the last the match may name (${rule}), and this tab saw it ${apart(due - c)} that round was due${named}`);
}

function checkSeed(kept, { final, now = Infinity }) {
  const name = "your seed";
  if (kept.seat === null) return final ? info(name, "you had no seat at this table") : null;
  const seats = kept.seat_seeds;
  const mine = kept.my_seed;
  const r = kept.receipt;
  if (r) {
    const where = `receipt: ${r.stream}, version ${r.version}`;
    if (r.match_id !== kept.match_id || r.seat !== kept.seat || (mine !== null && r.seed_sha256 !== seedSha256(mine))) {
      return fail(name, `the server's receipt (${where}) is not for the seed this tab sent at your seat`);
    }
    // Signed with the match's receipt key, the receipt proves to anyone what the server
    // acknowledged; unsigned (or signed otherwise), it proves nothing but to this tab.
    if (kept.receipt_key && !verifyReceipt(kept.receipt_key, r)) {
      return fail(name, `the server's receipt (${where}) is not signed with the match's receipt key (${short(kept.receipt_key)}, recorded in the commitment): it would prove nothing to anyone else`);
    }
    if (seats) {
      const shown = seats[kept.seat];
      if ((kept.missing_seeds ?? []).includes(kept.seat) || shown === "" || shown === undefined) {
        return fail(name, `the server acknowledged your seed (${where}), then the window closed showing no seed for your seat: the seed this tab sent was dropped`);
      }
      if (shown !== mine) return fail(name, `the server acknowledged your seed (${where}), then the window closed showing ${shown} for your seat instead of ${mine}`);
    }
    const got = kept.seed_received;
    if (got && (got.stream !== r.stream || got.version !== r.version || got.seed !== mine)) {
      return fail(name, `the event recording your seed is ${got.stream} version ${got.version} with seed ${got.seed}; the receipt named ${r.stream} version ${r.version} with the seed this tab sent`);
    }
    if (!final) return null;
    if (!seats) return kept.ended ? info(name, "the match ended before the seed window closed") : fail(name, "this tab was never shown the seats' seeds");
    if (!got) return fail(name, `this tab was never shown the event recording your seed (${where})`);
    return pass(name, `the decks used the seed this tab made, ${mine}, recorded where the server's receipt said (${where})`);
  }
  if (!seats) {
    if (!final) return null;
    return kept.ended ? info(name, "the match ended before the seed window closed") : fail(name, "this tab was never shown the seats' seeds");
  }
  const shown = seats[kept.seat];
  if (mine === null) return final ? unchecked(name, "could not check: this tab did not send your seat's seed (another tab or device did)") : null;
  if (shown === mine && !(kept.missing_seeds ?? []).includes(kept.seat)) {
    return final ? pass(name, `the decks used the seed this tab made, ${mine}`) : null;
  }
  if (shown !== "" && shown !== undefined) return fail(name, `the table dealt from ${shown} for your seat, but this tab sent ${mine}`);
  // Recorded missing (refused as late, or dropped): an honest outcome only when this tab
  // itself sent its seed late, judged from when it first saw the commitment: it had the
  // window's length from then (less seedTripMs), whatever the server's clock says.
  const refused = kept.seed_refused?.code === "seed_window_closed" ? kept.seed_refused : null;
  const sent = kept.my_seed_sent_at;
  const seen = kept.commitment_seen_at;
  const windowMs = given(kept.window_closes_at_ms) && given(kept.commitment_at_ms) ? kept.window_closes_at_ms - kept.commitment_at_ms : null;
  const outcome = refused ? "the server refused it as late" : "the window closed without it";
  if (windowMs !== null && given(seen)) {
    const after = sent - seen;
    const allowed = `the window's ${secs(windowMs)} less ${secs(TOLERANCE.seedTripMs)}`;
    if (after > windowMs - TOLERANCE.seedTripMs) {
      return final ? info(name, `this tab sent your seed ${secs(after)} after it first saw the commitment, more than ${allowed}: late by its own doing (the page asleep, or closed), and ${outcome}: the deals used none for your seat`) : null;
    }
    // The close (on the WebSocket) can overtake the reply that carries the receipt.
    if (!refused && !final && given(kept.seed_reply_due) && now - kept.seed_reply_due < TOLERANCE.replyMs) return null;
    const when = ` (this tab sent it ${apart(kept.window_closes_at_ms - sent)} the window's end)`;
    if (kept.commitment_live === false) {
      return final ? unchecked(name, `could not check: this tab first saw the commitment only in a catch-up (on connecting), and sent your seed then${when}; ${outcome}: whether the server showed it late cannot be told`) : null;
    }
    const starved = `though this tab sent it ${secs(after)} after it first saw the commitment, within ${allowed} (the commitment's way to it and the seed's way back): the server showed this tab the commitment late, and your seat was dealt without the seed it made`;
    if (refused) return fail(name, `the seed this tab sent was not used${when}: the server refused it as late, ${starved}`);
    return fail(name, `the seed this tab sent was not used${when}: the window closed showing none for your seat, and the server gave no receipt for it, ${starved}`);
  }
  // Without the commitment's own time (a record begun by an older page): late by this
  // tab's clock, as the window closed.
  const sentLate = given(kept.window_closes_at_ms) && sent >= kept.window_closes_at_ms - TOLERANCE.clockMs;
  if (refused && sentLate) {
    return final ? info(name, "this tab sent your seed only as the seed window closed, and the server refused it as late: the deals used none for your seat") : null;
  }
  // The close (on the WebSocket) can overtake the reply that carries the receipt.
  const waiting = given(kept.seed_reply_due) && now - kept.seed_reply_due < TOLERANCE.replyMs;
  if (!final && waiting) return null;
  const when = given(kept.window_closes_at_ms) ? ` (this tab sent it ${apart(kept.window_closes_at_ms - sent)} the window's end)` : "";
  return fail(name, `the seed this tab sent was not used${when}: the window closed showing none for your seat, and the server gave no receipt for it`);
}

function checkRound(kept, { final, now = Infinity }) {
  const name = "drand round";
  const R = kept.drand_round;
  if (!given(R)) {
    if (!final) return null;
    if (kept.drand || kept.fallback) return fail(name, "drand's value (or a fallback) was shown, but never which round was named");
    return kept.seat_seeds ? unchecked(name, "could not check: no drand round was named while this tab watched") : info(name, "the match ended before a drand round was named");
  }
  if (!known(kept.chain)) return fail(name, `round ${R} of a drand chain this tab does not know (${kept.chain})`);
  const lead = kept.round_lead_ms;
  if (Number.isSafeInteger(kept.seeds_in_at_ms) && Number.isSafeInteger(lead) && lead >= 0) {
    // The rule, from the server's own times: a round earlier than it may have been out.
    const rule = ruleRound(kept.chain, kept.seeds_in_at_ms, lead);
    const which = lead > 0 ? `the first due more than the commitment's lead of ${secs(lead)} after the window closed` : "the first after the window closed";
    if (R < rule) return fail(name, `round ${R} was named, earlier than the rule's round ${rule} (${which}): it may have been out when named`);
    if (R !== rule) return fail(name, `round ${R} was named, not the rule's round ${rule} (${which})`);
  }
  const named = kept.drand_round_seen_at;
  if (!given(named)) return final ? unchecked(name, "could not check: this tab did not keep when it saw the round named") : null;
  // The seats' seeds: the window's close lists them, and the log orders it before the
  // naming, so a naming in time covers them; a close shown after the naming does not.
  const closed = kept.window_closed_at;
  if (given(closed) && closed > named + TOLERANCE.seenMs) {
    return fail(name, `the seats' seeds (the window's close) reached this tab ${secs(closed - named)} after it saw round ${R} named: the log orders them before the naming, and a seed shown after it may have been chosen once the round's value was out`);
  }
  const seeds = given(closed) ? `; the seats' seeds, which the window's close listed when this tab saw it (${secs(named - closed)} before the naming), are covered by it` : "";
  const due = roundTime(kept.chain, R);
  const had = hadAt(kept, R);
  // The naming's lead: it must reach this tab the commitment's lead, less namingMs,
  // before the round is due (0: a commitment made before the lead).
  const leadMs = Number.isSafeInteger(lead) && lead >= 0 ? lead : 0;
  const late = namingLate(kept, R, named, leadMs, { final, now });
  const inTime = late === null ? `; the naming reached this tab ${apart(due - named)} the round was due by its clock${leadMs > 0 ? ` (the commitment's lead is ${secs(leadMs)})` : ""}` : "";
  // Covered: the tab was watching drand on its own relays when the round was named (so
  // it would have had the value then, had it been out), or they told it, after the
  // naming, that the latest round was an earlier one.
  const covered = had !== null && (watchedBy(kept, named) || notYetAt(kept, R, named));
  if (kept.drand_round_live === false) {
    // Seen in a catch-up: when it was named is unknown, but no later than then.
    if (late !== null) {
      return final ? unchecked(name, `could not check: this tab saw round ${R} named only in a catch-up (on connecting), ${apart(due - named)} it was due by its clock, not as it happened`) : null;
    }
    if (covered && had.at >= named - TOLERANCE.seenMs) {
      return final ? pass(name, `this tab saw round ${R} named only in a catch-up, and even then it did not have its value yet (it first had it ${hadThen(had, named)}, from ${from(had)})${inTime}${seeds}`) : null;
    }
    return final ? unchecked(name, `could not check: this tab saw round ${R} named only in a catch-up (on connecting), not as it happened`) : null;
  }
  if (had && had.at < named - TOLERANCE.seenMs) {
    return fail(name, `this tab had ${roundOf(had, R)} from ${from(had)} ${secs(named - had.at)} before it saw round ${R} named: the server could have known the value when it named the round`);
  }
  if (late === "wait") return null;
  if (late !== null) return fail(name, late);
  if (covered) {
    return final ? pass(name, `round ${R} was named before its value was out: this tab, watching drand on its own relays, first had it ${hadThen(had, named)} (from ${from(had)})${inTime}${seeds}`) : null;
  }
  // No observation of this tab's own covers the naming: drand's schedule on its clock.
  // While the match runs, only once its own relays have had clockMs to answer: an answer
  // that covers the naming would turn this around at the end.
  const waited = final || (!watchedBy(kept, named) && !notYetAt(kept, R, named) && now >= named + TOLERANCE.clockMs);
  if (named > due + TOLERANCE.clockMs && waited) {
    return fail(name, `by this tab's clock, round ${R} was due ${secs(named - due)} before the table named it: its value was already out (this tab's own drand observations do not cover the naming)`);
  }
  if (!final) return null;
  const why = Object.keys(kept.drand_seen ?? {}).length ? "only relays the server named answered" : "no drand relay answered this tab";
  const when = named <= due ? `${secs(due - named)} before it was due` : `${secs(named - due)} after it was due`;
  return unchecked(name, `could not check that round ${R} was not out when named: ${why} while it was named; by this tab's clock it was named ${when}`);
}

function checkValue(kept, { final }) {
  const name = "drand value";
  const d = kept.drand;
  if (!d) {
    if (!final || kept.fallback || !given(kept.drand_round)) return null;
    if (kept.ended && !Object.keys(kept.deals ?? {}).length) return info(name, "the match ended before drand's value came");
    return fail(name, "this tab was shown neither drand's value nor a fallback");
  }
  if (!known(kept.chain)) return fail(name, `a drand chain this tab does not know (${kept.chain})`);
  if (given(kept.drand_round) && d.round !== kept.drand_round) return fail(name, `round ${kept.drand_round} was named, but the value of round ${d.round} was used`);
  const v = verifyOnce(kept.chain, { round: d.round, signature: d.signature, previous_signature: d.previous_signature ?? undefined, randomness: d.randomness });
  if (!v.ok) return fail(name, `the value the match was dealt from is not drand's: ${v.why}`);
  return final ? pass(name, `round ${d.round}: the BLS signature verifies under ${kept.chain}'s pinned public key, and the randomness is SHA-256 of it`) : null;
}

async function checkRelay(kept, { relays = [], fetchImpl, now }) {
  const name = "drand relay";
  const d = kept.drand;
  if (!d || !known(kept.chain)) return null;
  const page = drandPage(kept.chain, d.round);
  let got = kept.drand_seen?.[String(d.round)];
  let how = "its watch";
  if (!got) {
    const asked = await fetchRound(relays, kept.chain, d.round, { fetchImpl, now });
    if (asked.error) return unchecked(name, `could not check: ${asked.error}; compare with ${page}`);
    got = { ...asked.beacon, relay: asked.relay };
    how = "asking now";
  }
  if (got.signature !== d.signature.toLowerCase()) {
    return fail(name, `${got.relay} serves round ${d.round} with the signature ${got.signature} (verified); the match was dealt from ${d.signature}`);
  }
  return pass(name, `this tab fetched round ${d.round} itself (${how}, from ${got.relay}): the same signature, verified`);
}

function checkFallback(kept, { final, verifyApi }) {
  const name = "drand fallback";
  const fb = kept.fallback;
  if (!fb) return null;
  const R = kept.drand_round;
  if (!given(R)) return final ? fail(name, `the match says it was dealt without drand (round ${fb.round}), but this tab never saw a round named`) : null;
  if (fb.round !== R) return fail(name, `the fallback names round ${fb.round}, but round ${R} was named`);
  if (!known(kept.chain)) return fail(name, `a drand chain this tab does not know (${kept.chain})`);
  const had = hadAt(kept, R);
  if (had && kept.fallback_live !== false && had.at <= kept.fallback_seen_at - TOLERANCE.toldMs) {
    return fail(name, `the match was dealt without drand, but this tab had ${roundOf(had, R)} from ${from(had)} ${secs(kept.fallback_seen_at - had.at)} before the table said it was late`);
  }
  const cur = kept.drand_seen?.[String(R)];
  const prev = kept.drand_seen?.[String(R - 1)];
  const period = CHAINS[kept.chain].period * 1000;
  if (cur && prev && prev.how === "next" && prev.at <= roundTime(kept.chain, R - 1) + TOLERANCE.clockMs) {
    const gap = cur.at - prev.at;
    if (gap < period + TOLERANCE.graceMs - TOLERANCE.cadenceMs) {
      return fail(name, `the match was dealt without drand, but this tab had round ${R}'s value ${secs(gap)} after round ${R - 1}'s, which came on time: drand was well within the ${TOLERANCE.graceMs / 1000} s allowed`);
    }
  }
  if (!final) return null;
  const gap = had ? had.at - kept.fallback_seen_at : 0;
  const heard = gap >= 0 ? `only ${secs(gap)} after` : `${secs(gap)} before (within the ${TOLERANCE.toldMs / 1000} s the server may take to find it late and tell this tab)`;
  const why = had ? `this tab had round ${R}'s value ${heard} the table said it was late` : `no drand relay gave this tab round ${R}'s value`;
  const stats = verifyApi ? `${verifyApi.replace(/\/$/, "")}/v1/stats` : "the verify API's /v1/stats";
  return unchecked(name, `could not check that drand was late (${why}); the platform's fallback rate is at ${stats}`);
}

async function checkDealer(kept, inputs) {
  const name = "dealer";
  if (!kept.pattern) return null;
  const dealt = Object.keys(kept.deals ?? {}).length > 0 || (kept.decks_issued ?? []).length > 0;
  if (!dealt) return kept.first_dealer === null ? null : info(name, "no card was dealt");
  if (kept.first_dealer === null) return unchecked(name, "could not check: this tab was not shown who deals first");
  let rule = 0;
  let why = "in this ruleset seat 0 always deals first";
  if (given(kept.pattern.first_dealer_from)) {
    const { serverSeed, seatSeeds, drandInput } = inputs;
    const deck0 = await deck(serverSeed, seatSeeds, 0, drandInput, kept.pattern.deck_size);
    rule = firstDealer(kept.pattern, deck0);
    const card = deck0[kept.pattern.first_dealer_from];
    const n = CARD_CODES.indexOf(card);
    why = `card ${kept.pattern.first_dealer_from + 1} of deal 1's deck is ${card}, number ${n}, and ${n} modulo ${kept.pattern.players} is ${rule}`;
  }
  const d0 = kept.deals?.["0"];
  if (d0 && d0.dealer !== kept.first_dealer) return fail(name, `the match said seat ${kept.first_dealer} deals first, but deal 1 was dealt by seat ${d0.dealer}`);
  if (kept.first_dealer !== rule) return fail(name, `seat ${kept.first_dealer} dealt first, but the published rule gives seat ${rule} (${why}): the first dealer was chosen`);
  return pass(name, `seat ${rule} dealt first, as the published rule gives (${why})`);
}

/** A forfeit of this tab's seat is the seat's own choice only if this tab asked to leave:
 * the table writes ``MatchForfeited`` on the seat's ``leave``, and a server that wrote one
 * for a player mid-match, once the decks were known, would end the match as it likes. A
 * kept record of a format before the field (keeper.js BEFORE_LEAVE) could not tell. */
function checkForfeit(kept) {
  const e = kept.ended;
  if (!e || e.event !== "MatchForfeited") return null;
  const name = "forfeit";
  if (kept.seat === null || e.leaver !== kept.seat) return info(name, `seat ${e.leaver} left the match and its side lost it (that seat's own choice, as its tab can check)`);
  if (kept.leave_asked_at === undefined || BEFORE_LEAVE.includes(kept.format)) return unchecked(name, "could not check that this tab asked to leave (kept before it noted that)");
  if (kept.leave_asked_at === null) return fail(name, "your seat was recorded as leaving the match, and its side lost it, but you never asked to leave from this browser: the forfeit was written for you (if you left from another device, this is why)");
  return pass(name, "your seat left the match because you asked to, from this tab");
}

/** The key the commitment recorded for this seat is the one this page made and sent with
 * the seat (seatkey.js): a leave of this seat is signed with it, and a third party's
 * check accepts a forfeit signed by the recorded key. A key the server put there in its
 * place would let it sign a leave in your name; none at all, that your leave cannot be
 * shown to be yours. */
function checkKey(kept) {
  const keys = kept.commitment_keys;
  if (!Array.isArray(keys) || kept.seat === null) return null;
  const name = "your key";
  const recorded = keys[kept.seat] ?? "";
  if (!kept.my_key) return info(name, "this page made no key for your seat (it was taken from another page or device): the commitment's key for it was not checked here");
  if (recorded === kept.my_key) return pass(name, `the commitment recorded the key this page made for your seat (${short(kept.my_key)}): only this page can sign your leave`);
  if (recorded === "") return fail(name, "the commitment recorded no key for your seat, though this page sent one with it: nothing would show that a leave of your seat was yours");
  return fail(name, `the commitment recorded a key for your seat (${short(recorded)}) that this page did not make (${short(kept.my_key)}): whoever holds it could sign a leave in your name`);
}

function checkAbort(kept) {
  const e = kept.ended;
  if (!e || e.event !== "MatchAborted") return null;
  const who = e.by ? `by ${e.by}` : "by nobody named";
  const after = (kept.decks_issued ?? []).length > 0 || Object.keys(kept.deals ?? {}).length > 0;
  const why = e.reason ?? "no reason given";
  if (after) return fail("abort", `the match was aborted after a deck went out (its cards were known when it was thrown away), ${who}: ${why}`);
  // As the verifier's ``ending``: once the round is named its value is out within
  // seconds, and every deck can be computed from it (a free reroll).
  if (Number.isInteger(e.after_round)) return fail("abort", `the match was aborted after round ${e.after_round} was named (its value, and every deck, could be known), ${who}: ${why}`);
  return info("abort", `the match was aborted before the round was named: no card could be known, ${who}: ${why}`);
}

// --- the salts, the hashes, the commitment's other uses

const SALT_HEX = /^[0-9a-f]{32}$/;
const older = (kept) => BEFORE_SALTS.includes(kept.format);
const short = (hex) => `${String(hex).slice(0, 16)}…`;

function checkSalts(kept, { final }) {
  const name = "salts";
  if (!kept.commitment) return null; // the commitment check says so
  if (kept.salted === false) {
    return fail(name, "the commitment does not promise salts: the match's hidden events (the deck, each seat's cards) are hashed without one, and whoever has one of its hashes can search it for your cards (every match of today promises them)");
  }
  if (!final) return null;
  if (kept.salted !== true) {
    return unchecked(name, older(kept) ? "could not check: this tab's record of the match was begun by an older page, which did not keep the salts" : "could not check: this tab was not shown the fair deal's commitment (ServerSeedCommitted), which promises the salts");
  }
  return pass(name, "the commitment promises a salt in every hidden event (the deck, each seat's cards), made from the server seed: a hash of the match's events cannot be searched for your cards");
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

const cardsOf = (x) => `your ${x.part} cards of deal ${x.deal + 1}`;

/** A promised salt missing, not 32 lower-case hex, or carried by two of this seat's
 * events: what can be told without the server seed. */
function saltProblems(parts) {
  const problems = [];
  const seen = new Map();
  for (const x of parts) {
    if (!x.has) continue;
    if (x.salt === null || x.salt === "") problems.push(`${cardsOf(x)} came without a salt`);
    else if (typeof x.salt !== "string" || !SALT_HEX.test(x.salt)) problems.push(`the salt of ${cardsOf(x)}, ${JSON.stringify(x.salt)}, is not 32 lower-case hexadecimal digits`);
    else if (seen.has(x.salt)) problems.push(`${cardsOf(x)} came with the salt of ${cardsOf(seen.get(x.salt))}, ${x.salt}: two events, one salt`);
    else seen.set(x.salt, x);
  }
  return problems;
}

const SALTS_WHY = "a hidden event without its own salt can be searched, from its hash, for your cards";

function checkYourSaltsLive(kept) {
  if (kept.seat === null || kept.salted !== true) return null;
  const problems = saltProblems(yourParts(kept));
  return problems.length ? fail("your salts", `${problems.join("; ")} (${SALTS_WHY})`) : null;
}

/** At the end: the live problems, then each salt recomputed from the revealed seed
 * (deck.js dealSalts), its index 1 + seat for the first cards, 1 + players + seat for the
 * completion. ``seedOk``: the revealed seed is the committed one. */
async function checkYourSalts(kept, { serverSeed, seedOk }) {
  const name = "your salts";
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
      if (x.salt !== want) chosen.push(`the salt of ${cardsOf(x)} is ${x.salt}, the recipe gives ${want} (salt ${index} of deck k=${x.deal})`);
    }
  }
  if (problems.length || chosen.length) {
    const said = [];
    if (problems.length) said.push(`${problems.join("; ")} (${SALTS_WHY})`);
    if (chosen.length) said.push(`${chosen.join("; ")}: the server chose it, not the recipe from the seed it committed to`);
    return fail(name, said.join("; "));
  }
  if (notKept) return unchecked(name, `could not check: this tab kept ${cardsOf(notKept)} before it kept their salts (an older page)`);
  if (!seedOk) return unchecked(name, "could not check that the salts are the recipe's: the revealed seed is not the one committed to");
  if (!Number.isInteger(n)) return unchecked(name, "could not check that the salts are the recipe's: this tab kept no deal pattern, which gives the number of seats");
  return pass(name, `each of the ${parts.length} events that dealt you cards came with its own salt, the recipe's from the revealed seed`);
}

function checkHashes(kept, { final }) {
  const name = "hashes";
  const h = kept.hash_served;
  if (h) {
    const where =
      h.via === "record"
        ? `the verify API's record of the match, not ended, holds ${h.version === null ? "its stream's head" : `the hash of event ${h.version} (${h.event})`}, ${short(h.hash)}`
        : `event ${h.version} of ${h.stream} (${h.event}) came on the WebSocket with its hash, ${short(h.hash)}, before the match ended`;
    return fail(name, `the server serves the hashes of a running match: another seat can search your cards with them (${where})`);
  }
  if (!final) return null;
  if (older(kept)) return unchecked(name, "could not check: this tab's record of the match was begun by an older page, which did not look for hashes");
  return pass(name, "nothing this tab was served before the match ended carried a hash of the match's events");
}

/** How long the check waits for the verify API to list this match under its commitment
 * (it indexes the commitment as the match opens: this only covers a projection behind). */
export const COMMITMENT_WAIT = Object.freeze({ everyMs: 500, tries: 10 });

/** Ask the verify API which matches used ``commitment`` (GET /v1/commitments/{c}):
 * {matches, used_twice}, or {error} when it does not answer, or answers otherwise. */
export async function askCommitment(verifyApi, commitment, { fetchImpl = (...args) => fetch(...args) } = {}) {
  const path = `/v1/commitments/${encodeURIComponent(commitment)}`;
  let r;
  try {
    r = await fetchImpl(`${String(verifyApi).replace(/\/$/, "")}${path}`, { cache: "no-store" });
  } catch (e) {
    return { error: `the verify API did not answer (${e.message})` };
  }
  if (!r.ok) return { error: `the verify API answered ${r.status} to ${path}` };
  let body;
  try {
    body = await r.json();
  } catch (e) {
    return { error: `the verify API's answer to ${path} is not JSON (${e.message})` };
  }
  if (!body || body.commitment !== commitment || !Array.isArray(body.matches) || !body.matches.every((m) => typeof m === "string")) {
    return { error: `the verify API's answer to ${path} does not list the commitment's matches` };
  }
  return { matches: body.matches, used_twice: body.used_twice === true };
}

function reused(kept, answer, when) {
  const others = answer.matches.filter((m) => m !== kept.match_id);
  if (!others.length && !answer.used_twice) return null;
  const which = others.length ? `match${others.length > 1 ? "es" : ""} ${others.join(", ")}` : "another match";
  return fail("commitment new", `the verify API lists ${which} under this match's commitment too${when}: a server seed used twice lets whoever saw it revealed after the first match compute every deck of the other from its public events while it runs`);
}

function checkCommitmentLive(kept) {
  const u = kept.commitment_uses;
  return kept.commitment && Array.isArray(u?.matches) ? reused(kept, u, " (asked when this tab saw the commitment)") : null;
}

/** The receipt for this seat's seed, signed with the match's receipt key, published at
 * the verify API once the match has ended (POST /v1/matches/{id}/receipts, which keeps
 * it once): from then on anyone checking the match holds its record to it (the report's
 * seed_receipts), so a seed the server acknowledged and dropped fails for them too, not
 * only here. A verify API that refuses a receipt this tab checked keeps it from them. */
async function checkReceiptPublished(kept, options) {
  const name = "receipt published";
  const r = kept.receipt;
  if (!r?.signature || !kept.receipt_key || !verifyReceipt(kept.receipt_key, r)) return null;
  if (!options.verifyApi) return unchecked(name, "could not check: this tab was not told the verify API's address, where it publishes your seed's receipt");
  const path = `/v1/matches/${encodeURIComponent(kept.match_id)}/receipts`;
  const body = { match_id: r.match_id, seat: r.seat, seed_sha256: r.seed_sha256, stream: r.stream, version: r.version, signature: r.signature };
  let answer;
  try {
    answer = await (options.fetchImpl ?? ((...args) => fetch(...args)))(`${String(options.verifyApi).replace(/\/$/, "")}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (e) {
    return unchecked(name, `could not check: your seed's receipt could not be published, the verify API did not answer (${e.message})`);
  }
  if (answer.ok) return pass(name, `the receipt for your seed (${r.stream}, version ${r.version}), signed with the match's receipt key, is published at the verify API: anyone checking this match holds its record to it`);
  let why = "";
  try {
    const e = await answer.json();
    why = e?.error ? `: ${e.error}${e.message ? `, ${e.message}` : ""}` : "";
  } catch {
    why = "";
  }
  if (answer.status >= 500 || answer.status === 429) return unchecked(name, `could not check: your seed's receipt could not be published, the verify API answered ${answer.status}${why}`);
  return fail(name, `the verify API refused to publish the receipt for your seed (${answer.status}${why}), though it is signed with the match's receipt key: it keeps from anyone else's check that the server acknowledged your seed`);
}

async function checkCommitmentNew(kept, options) {
  const name = "commitment new";
  if (!kept.commitment) return null;
  const early = checkCommitmentLive(kept);
  if (early) return early;
  if (!options.verifyApi) return unchecked(name, "could not check: this tab was not told the verify API's address, which says which matches used a commitment");
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const wait = options.commitmentWait ?? COMMITMENT_WAIT;
  let got;
  for (let i = 1; ; i++) {
    got = await askCommitment(options.verifyApi, kept.commitment, { fetchImpl: options.fetchImpl });
    if (got.error) return unchecked(name, `could not check: ${got.error}`);
    const r = reused(kept, got, "");
    if (r) return r;
    if (got.matches.includes(kept.match_id) || i >= wait.tries) break;
    await sleep(wait.everyMs);
  }
  if (!got.matches.includes(kept.match_id)) return unchecked(name, `could not check: the verify API does not list this match under its commitment ${short(kept.commitment)}`);
  return pass(name, `the verify API lists this match alone under its commitment ${short(kept.commitment)}: its server seed was used once`);
}

/** What can already be known to have failed, during the match: a conflict, a bounds
 * violation, a commitment another match used (the verify API's answer when it was seen),
 * salts not promised, a receipt dishonoured at the window's close, a round already out
 * when named, a value that is not drand's, a false fallback, a salt of this seat's cards
 * missing, malformed or repeated, a hash served. ``now``: the tab's clock (a
 * naming the tab's own relays could not cover is judged by the clock once they had
 * clockMs to answer). Synchronous and cheap (BLS is checked once per value): table.js
 * runs it on every event and every quarter second. Returns {failed: [checks], at}. */
export function checkLive(kept, now = Date.now()) {
  if (!kept) return { failed: [], at: now };
  const live = { final: false, now };
  const checks = [
    ...checkConsistency(kept),
    checkBounds(kept, live),
    checkCommitmentLive(kept),
    checkKey(kept),
    checkSalts(kept, live),
    checkSeed(kept, live),
    checkRound(kept, live),
    checkValue(kept, live),
    checkFallback(kept, live),
    checkYourSaltsLive(kept),
    checkHashes(kept, live),
  ];
  return { failed: checks.filter((c) => c && c.status === "fail"), at: now };
}

/**
 * Check what the tab kept. options: {relays: [{url, source}] or addresses (drand.js
 * relayList: the tab's own first), fetchImpl, now (the tab's clock), verifyApi (its
 * address: the fallback rate, the commitment's other matches), sleep and commitmentWait
 * (COMMITMENT_WAIT: while the verify API does not list the match yet), log (logcheck.js
 * checkLog's options: the log's checks are made only when it is given)}. Returns
 *   {ok, failed, unchecked: [names], complete, checks: [{name, status, detail}], at}.
 * ok only when the check is complete (the server seed is revealed), nothing failed,
 * nothing could not be checked, and the commitment and every deal passed.
 */
export async function checkKept(kept, options = {}) {
  const { now = Date.now } = options;
  const at = now();
  const done = (checks, complete) => {
    const failed = checks.some((c) => c.status === "fail");
    const open = checks.filter((c) => c.status === "unchecked").map((c) => c.name);
    const dealsPassed = !checks.some((c) => c.name.startsWith("deal ")) || checks.some((c) => c.name.startsWith("deal ") && c.status === "pass");
    const essential = checks.some((c) => c.name === "commitment" && c.status === "pass") && dealsPassed;
    return { ok: complete && !failed && open.length === 0 && essential, failed, unchecked: open, complete, checks, at };
  };
  if (!kept) return done([fail("kept", "this tab kept nothing of this match")], false);
  const final = { final: true, verifyApi: options.verifyApi };
  const checks = [...checkConsistency(kept)];
  const add = (c) => c && checks.push(c);

  if (!kept.reveal) {
    checks.push(unchecked("commitment", "not yet: the server reveals its seed when the match ends"));
    for (const c of checkLive(kept, at).failed) if (c.name !== "consistency") checks.push(c);
    return done(checks, false);
  }
  let serverSeed = null;
  try {
    serverSeed = fromHex(kept.reveal.server_seed, "the revealed server seed");
    if (serverSeed.length !== 32) throw new Error("the revealed server seed is not 32 bytes");
  } catch (e) {
    checks.push(fail("commitment", e.message));
    return done(checks, true);
  }

  // The commitment, shown before this tab sent its seed, and what it fixed.
  let seedOk = false;
  if (!kept.commitment) {
    checks.push(fail("commitment", "this tab was never shown a commitment"));
  } else {
    const hash = await sha256Hex(serverSeed);
    seedOk = hash === kept.commitment;
    if (hash !== kept.commitment) {
      checks.push(fail("commitment", `SHA-256 of the revealed seed is ${hash}, but the commitment shown at the start was ${kept.commitment}`));
    } else if (kept.my_seed_sent_at !== null && kept.commitment_seen_at > kept.my_seed_sent_at) {
      checks.push(fail("commitment", "the commitment was shown only after this tab sent its seed"));
    } else {
      checks.push(pass("commitment", `SHA-256 of the revealed seed is the commitment ${kept.commitment.slice(0, 16)}…, shown before any seed was sent`));
    }
  }
  add(checkBounds(kept, final));
  add(await checkCommitmentNew(kept, options));
  add(await checkReceiptPublished(kept, options));
  add(checkSalts(kept, final));
  add(checkSeed(kept, final));
  add(checkRound(kept, final));
  add(checkValue(kept, final));
  if (kept.drand) add(await checkRelay(kept, options));
  add(checkFallback(kept, final));

  // Every deal: recompute the deck, map it, compare with what this seat was shown.
  const seats = kept.seat_seeds;
  const dealNumbers = Object.keys(kept.deals ?? {}).map(Number).sort((a, b) => a - b);
  if (!kept.pattern) {
    checks.push(fail("deals", "this tab kept no deal pattern for the ruleset"));
  } else if (seats && (kept.drand || kept.fallback)) {
    const inputs = {
      serverSeed,
      seatSeeds: seats.map((s) => fromHex(s)),
      drandInput: kept.drand ? { round: kept.drand.round, value: fromHex(kept.drand.randomness) } : null,
    };
    add(await checkDealer(kept, inputs));
    for (const k of dealNumbers) checks.push(await checkDeal(kept, kept.deals[String(k)], inputs));
    if (dealNumbers.length === 0 && !kept.ended) checks.push(unchecked("deals", "could not check: no deal was dealt while this tab watched"));
  }
  add(await checkYourSalts(kept, { serverSeed, seedOk }));
  add(checkHashes(kept, final));
  add(checkAbort(kept));
  add(checkKey(kept));
  add(checkForfeit(kept));
  if (options.log) checks.push(...(await logChecks(kept, options)));
  return done(checks, true);
}

/** The transparency log's checks (logcheck.js checkLog); a failure to run them is a
 * could-not-check, never a pass. */
async function logChecks(kept, options) {
  try {
    return await checkLog(kept, { fetchImpl: options.fetchImpl, ...options.log });
  } catch (e) {
    return LOG_CHECKS.map((name) => unchecked(name, `could not check: ${e.message}`));
  }
}

async function checkDeal(kept, d, { serverSeed, seatSeeds, drandInput }) {
  // Deals are counted from 1 for people; the recipe's k counts from 0 (a redeal counts).
  const name = `deal ${d.deal + 1}`;
  const pattern = kept.pattern;
  let cards;
  try {
    cards = await deck(serverSeed, seatSeeds, d.deal, drandInput, pattern.deck_size);
  } catch (e) {
    return fail(name, `the deck cannot be recomputed: ${e.message}`);
  }
  const problems = [];
  const expect = seatCards(pattern, cards, d.dealer, kept.seat ?? 0, d.misere ? null : d.taker);
  if (expect.turned !== d.turned) problems.push(`the turned card was ${d.turned}, the deck gives ${expect.turned}`);
  if (kept.seat !== null) {
    if (!d.first) problems.push("this tab was not shown your first cards");
    else if (d.first.cards.join(" ") !== expect.first.join(" ")) {
      problems.push(`your first cards were ${d.first.cards.join(" ")}, the deck gives ${expect.first.join(" ")}`);
    }
    const completed = d.taker !== null || d.misere;
    if (completed && expect.completion) {
      if (!d.completion) problems.push("this tab was not shown your completion cards");
      else if (d.completion.cards.join(" ") !== expect.completion.join(" ")) {
        problems.push(`your completion cards were ${d.completion.cards.join(" ")}, the deck gives ${expect.completion.join(" ")}`);
      }
    } else if (d.completion) {
      problems.push(`cards were completed (${d.completion.cards.join(" ")}) without a contract this tab saw`);
    }
  }
  if (d.bottom !== null && d.bottom !== expect.bottom) problems.push(`the bottom card shown was ${d.bottom}, the deck gives ${expect.bottom}`);
  if (problems.length) return fail(name, `deck k=${d.deal}: ${problems.join("; ")}`);
  const yours = kept.seat === null ? "" : `: your ${d.first.cards.length + (d.completion?.cards.length ?? 0)} cards`;
  return pass(name, `deck k=${d.deal} recomputed${yours} and the turned card ${d.turned} match${d.abandoned ? ` (redealt: ${d.abandoned.replace("_", " ")})` : ""}`);
}
