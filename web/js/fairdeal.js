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
import { BEFORE_LEAVE, BEFORE_SALTS, conflictText } from "./keeper.js";
import { LANGUAGES, has, language, t } from "./i18n.js";
import { LOG_CHECKS, checkLog, logCheckName } from "./logcheck.js";
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

/** The checks' names: each one's identifier (the panel's data-check, what code and tests
 * compare them by) and, as its value, the last segment of its key in the catalogue
 * (fair.check.<segment>, checkName). */
const CHECK_KEYS = Object.freeze({
  kept: "kept",
  consistency: "consistency",
  commitment: "commitment",
  "commitment bounds": "commitment_bounds",
  "commitment new": "commitment_new",
  "receipt published": "receipt_published",
  salts: "salts",
  "your seed": "your_seed",
  "drand round": "drand_round",
  "drand value": "drand_value",
  "drand relay": "drand_relay",
  "drand fallback": "drand_fallback",
  deals: "deals",
  dealer: "dealer",
  "your salts": "your_salts",
  hashes: "hashes",
  abort: "abort",
  "your key": "your_key",
  forfeit: "forfeit",
});
/** A check's name by its key's segment: NAME.your_seed is "your seed". */
const NAME = Object.freeze(Object.fromEntries(Object.entries(CHECK_KEYS).map(([name, key]) => [key, name])));

/** The name of check ``name`` (a check's ``name`` as checkKept and checkLive give it) in
 * the player's language: "deal 3" is t("fair.check.deal", {deal: "3"}); a name this module
 * does not make (the transparency log's, logcheck.js) is given back as it is. */
export function checkName(name) {
  const deal = /^deal (\d+)$/.exec(name);
  if (deal) return t("fair.check.deal", { deal: deal[1] });
  return Object.hasOwn(CHECK_KEYS, name) ? t(`fair.check.${CHECK_KEYS[name]}`) : logCheckName(name);
}

/** ``x`` to the tenth, as the language writes it ("1.2", "1,2"), never grouped. Rounded by
 * toFixed (the double's exact value: 0.85 is 0.8), not by Intl (its shortest decimal: 0.9),
 * so that the English stays what it was. */
function tenths(x) {
  const locale = LANGUAGES.includes(language()) ? language() : "en";
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }).format(Number(x.toFixed(1)));
}
/** "1.2 s": how long ``ms`` is, to the tenth of a second, in the player's language. */
const secs = (ms) => t("fair.seconds", { time: tenths(Math.abs(ms) / 1000) });
/** "1.2 s before" when ``ms`` >= 0, "0.3 s after" when it is negative: ``ms`` is how long
 * the thing said came before the one it is compared with (each sentence's key puts it
 * before what it is compared with). */
const apart = (ms) => (ms >= 0 ? t("fair.apart.before", { time: secs(ms) }) : t("fair.apart.after", { time: secs(ms) }));
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
 * not the server's) by ``at``: its watch was running on relays the server does not run. */
function watchedBy(kept, at) {
  return Object.values(kept.drand_seen ?? {}).some((s) => s.source !== "server" && s.at <= at);
}

/** An answer of the tab's own relays, at ``at`` (less the margin) or later, that the
 * latest round was one before ``round``: ``round`` was not out yet then. */
function notYetAt(kept, round, at) {
  return Object.entries(kept.drand_seen ?? {}).some(([r, s]) => s.source !== "server" && s.how === "latest" && Number(r) < round && s.at >= at - TOLERANCE.seenMs);
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
 * ``at`` on this tab's clock, came at least the commitment's ``lead`` less the tolerance
 * before the round was due. Returns null (in time), "wait" (during the match, its own
 * relays have not answered yet and may still show its clock fast), or the failure's
 * words. The tolerance's clock part (clockMs) is replaced by what its own relays show:
 * its clock further ahead than clockMs widens it, behind narrows it. */
function namingLate(kept, R, at, lead, { final, now }) {
  const due = roundTime(kept.chain, R);
  const ahead = clockAhead(kept);
  if (!final && ahead === null && now < at + TOLERANCE.clockMs) return "wait";
  const shift = ahead === null ? 0 : ahead > TOLERANCE.clockMs ? ahead - TOLERANCE.clockMs : Math.min(0, ahead);
  const allowance = TOLERANCE.namingMs + shift;
  const need = lead - allowance; // the naming must come at least this long before due
  const came = due - at; // it came this long before due (negative: after)
  if (came >= need) return null;
  const round = String(R);
  const when = came < 0 ? t("fair.naming.due_before_named", { round, time: secs(came) }) : t("fair.naming.named_only_before", { round, time: secs(came) });
  const rule = need >= 0 ? t("fair.naming.rule_before", { time: secs(need) }) : t("fair.naming.rule_after", { time: secs(need) });
  const clock = ahead === null ? "" : ahead >= 0 ? t("fair.naming.clock_ahead", { time: secs(ahead) }) : t("fair.naming.clock_behind", { time: secs(ahead) });
  const why = came < 0 ? t("fair.naming.why_known") : t("fair.naming.why_short");
  return t("fair.naming.late", { when, rule, lead: secs(lead), allowance: secs(allowance), clock, late: secs(need - came), why });
}

/** When this tab first had the value against when it saw the round named, said the right
 * way round (within seenMs it may have come first: two messages crossing). */
function hadThen(had, named) {
  const d = had.at - named;
  return d >= 0 ? t("fair.had.after", { time: secs(d) }) : t("fair.had.before", { time: secs(d), cross: TOLERANCE.seenMs / 1000 });
}

const from = (seen) => (seen.source === "server" ? t("fair.relay_of_server", { relay: seen.relay }) : seen.relay);
const roundOf = (seen, round) =>
  seen.round === round ? t("fair.round_value", { round: String(round) }) : t("fair.later_round_value", { later: String(seen.round), round: String(round) });

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
  return (kept.conflicts ?? []).map((c) => fail("consistency", conflictText(c)));
}

function checkBounds(kept, { final, now = Infinity }) {
  const name = NAME.commitment_bounds;
  if (!kept.commitment) return null; // the commitment check says so
  if (!known(kept.chain)) return fail(name, t("fair.bounds.unknown_chain", { chain: String(kept.chain) }));
  const last = kept.last_round;
  if (!Number.isSafeInteger(last) || last < 1) return fail(name, t("fair.bounds.no_last_round"));
  const c = kept.commitment_seen_at;
  const lead = kept.round_lead_ms;
  if (given(lead) && !(Number.isSafeInteger(lead) && lead >= 0 && lead <= TOLERANCE.maxLeadMs)) {
    return fail(name, t("fair.bounds.lead_outside", { lead: String(lead), max: String(TOLERANCE.maxLeadMs) }));
  }
  // Passed only once the tab knows the lead (ServerSeedCommitted; the table's copy may lack it).
  const passed = (detail) => (given(lead) ? pass(name, detail) : final ? unchecked(name, t("fair.bounds.no_lead")) : null);
  const rule = given(lead) && lead > 0 ? t("fair.bounds.rule_lead", { time: secs(lead) }) : t("fair.bounds.rule_first");
  const lastRound = String(last);
  if (given(kept.window_closes_at_ms)) {
    const expected = given(lead) ? ruleRound(kept.chain, kept.window_closes_at_ms, lead) : last;
    if (last !== expected) return fail(name, t("fair.bounds.last_not_rule", { last: lastRound, rule, expected: String(expected) }));
    if (given(c) && kept.window_closes_at_ms - c > TOLERANCE.maxWindowMs + TOLERANCE.clockMs) {
      return fail(name, t("fair.bounds.window_long", { time: secs(kept.window_closes_at_ms - c), max: TOLERANCE.maxWindowMs / 1000 }));
    }
  }
  if (given(kept.drand_round) && kept.drand_round > last) return fail(name, t("fair.bounds.past_last", { round: String(kept.drand_round), last: lastRound }));
  if (!given(c)) return unchecked(name, t("fair.bounds.no_seen"));
  const had = hadAt(kept, last);
  if (had && had.at < c - TOLERANCE.seenMs) {
    return fail(name, t("fair.bounds.already_out", { value: roundOf(had, last), relay: from(had), time: secs(c - had.at) }));
  }
  const due = roundTime(kept.chain, last);
  if (notYetAt(kept, last, c)) {
    return passed(given(kept.drand_round) ? t("fair.bounds.not_yet_named", { last: lastRound, rule, round: String(kept.drand_round) }) : t("fair.bounds.not_yet", { last: lastRound, rule }));
  }
  if (c > due + TOLERANCE.clockMs) {
    if (kept.commitment_live === false) return unchecked(name, t("fair.bounds.catch_up", { last: lastRound }));
    // During the match, once the tab's own relays had clockMs to say otherwise.
    if (!final && now < c + TOLERANCE.clockMs) return null;
    return fail(name, t("fair.bounds.due_before", { last: lastRound, time: secs(c - due) }));
  }
  const seen = { last: lastRound, rule, apart: apart(due - c) };
  return passed(given(kept.drand_round) ? t("fair.bounds.in_time_named", { ...seen, round: String(kept.drand_round) }) : t("fair.bounds.in_time", seen));
}

function checkSeed(kept, { final, now = Infinity }) {
  const name = NAME.your_seed;
  if (kept.seat === null) return final ? info(name, t("fair.seed.no_seat")) : null;
  const seats = kept.seat_seeds;
  const mine = kept.my_seed;
  const r = kept.receipt;
  if (r) {
    const where = t("fair.seed.receipt_where", { stream: String(r.stream), version: String(r.version) });
    if (r.match_id !== kept.match_id || r.seat !== kept.seat || (mine !== null && r.seed_sha256 !== seedSha256(mine))) {
      return fail(name, t("fair.seed.receipt_other", { where }));
    }
    // Signed with the match's receipt key, the receipt proves to anyone what the server
    // acknowledged; unsigned (or signed otherwise), it proves nothing but to this tab.
    if (kept.receipt_key && !verifyReceipt(kept.receipt_key, r)) {
      return fail(name, t("fair.seed.receipt_unsigned", { where, key: short(kept.receipt_key) }));
    }
    if (seats) {
      const shown = seats[kept.seat];
      if ((kept.missing_seeds ?? []).includes(kept.seat) || shown === "" || shown === undefined) {
        return fail(name, t("fair.seed.dropped", { where }));
      }
      if (shown !== mine) return fail(name, t("fair.seed.replaced", { where, shown: String(shown), mine: String(mine) }));
    }
    const got = kept.seed_received;
    if (got && (got.stream !== r.stream || got.version !== r.version || got.seed !== mine)) {
      return fail(
        name,
        t("fair.seed.event_differs", {
          stream: String(got.stream),
          version: String(got.version),
          seed: String(got.seed),
          receipt_stream: String(r.stream),
          receipt_version: String(r.version),
        }),
      );
    }
    if (!final) return null;
    if (!seats) return kept.ended ? info(name, t("fair.seed.ended_early")) : fail(name, t("fair.seed.no_seeds"));
    if (!got) return fail(name, t("fair.seed.no_event", { where }));
    return pass(name, t("fair.seed.used_receipt", { seed: String(mine), where }));
  }
  if (!seats) {
    if (!final) return null;
    return kept.ended ? info(name, t("fair.seed.ended_early")) : fail(name, t("fair.seed.no_seeds"));
  }
  const shown = seats[kept.seat];
  if (mine === null) return final ? unchecked(name, t("fair.seed.other_tab")) : null;
  if (shown === mine && !(kept.missing_seeds ?? []).includes(kept.seat)) {
    return final ? pass(name, t("fair.seed.used", { seed: mine })) : null;
  }
  if (shown !== "" && shown !== undefined) return fail(name, t("fair.seed.dealt_other", { shown: String(shown), mine: String(mine) }));
  // Recorded missing (refused as late, or dropped): an honest outcome only when this tab
  // itself sent its seed late, judged from when it first saw the commitment: it had the
  // window's length from then (less seedTripMs), whatever the server's clock says.
  const refused = kept.seed_refused?.code === "seed_window_closed" ? kept.seed_refused : null;
  const sent = kept.my_seed_sent_at;
  const seen = kept.commitment_seen_at;
  const windowMs = given(kept.window_closes_at_ms) && given(kept.commitment_at_ms) ? kept.window_closes_at_ms - kept.commitment_at_ms : null;
  const outcome = refused ? t("fair.seed.outcome_refused") : t("fair.seed.outcome_closed");
  if (windowMs !== null && given(seen)) {
    const after = sent - seen;
    const allowed = t("fair.seed.allowed", { window: secs(windowMs), trip: secs(TOLERANCE.seedTripMs) });
    if (after > windowMs - TOLERANCE.seedTripMs) {
      return final ? info(name, t("fair.seed.late_own", { time: secs(after), allowed, outcome })) : null;
    }
    // The close (on the WebSocket) can overtake the reply that carries the receipt.
    if (!refused && !final && given(kept.seed_reply_due) && now - kept.seed_reply_due < TOLERANCE.replyMs) return null;
    const when = t("fair.seed.sent_when", { apart: apart(kept.window_closes_at_ms - sent) });
    if (kept.commitment_live === false) {
      return final ? unchecked(name, t("fair.seed.catch_up", { when, outcome })) : null;
    }
    const starved = { when, time: secs(after), allowed };
    if (refused) return fail(name, t("fair.seed.starved_refused", starved));
    return fail(name, t("fair.seed.starved_closed", starved));
  }
  // Without the commitment's own time (a record begun by an older page): late by this
  // tab's clock, as the window closed.
  const sentLate = given(kept.window_closes_at_ms) && sent >= kept.window_closes_at_ms - TOLERANCE.clockMs;
  if (refused && sentLate) {
    return final ? info(name, t("fair.seed.refused_at_close")) : null;
  }
  // The close (on the WebSocket) can overtake the reply that carries the receipt.
  const waiting = given(kept.seed_reply_due) && now - kept.seed_reply_due < TOLERANCE.replyMs;
  if (!final && waiting) return null;
  if (!given(kept.window_closes_at_ms)) return fail(name, t("fair.seed.not_used"));
  return fail(name, t("fair.seed.not_used_when", { when: t("fair.seed.sent_when", { apart: apart(kept.window_closes_at_ms - sent) }) }));
}

function checkRound(kept, { final, now = Infinity }) {
  const name = NAME.drand_round;
  const R = kept.drand_round;
  if (!given(R)) {
    if (!final) return null;
    if (kept.drand || kept.fallback) return fail(name, t("fair.round.value_unnamed"));
    return kept.seat_seeds ? unchecked(name, t("fair.round.none_named")) : info(name, t("fair.round.ended_early"));
  }
  const round = String(R);
  if (!known(kept.chain)) return fail(name, t("fair.round.unknown_chain", { round, chain: String(kept.chain) }));
  const lead = kept.round_lead_ms;
  if (Number.isSafeInteger(kept.seeds_in_at_ms) && Number.isSafeInteger(lead) && lead >= 0) {
    // The rule, from the server's own times: a round earlier than it may have been out.
    const rule = ruleRound(kept.chain, kept.seeds_in_at_ms, lead);
    const which = lead > 0 ? t("fair.round.which_lead", { time: secs(lead) }) : t("fair.round.which_first");
    if (R < rule) return fail(name, t("fair.round.earlier", { round, rule: String(rule), which }));
    if (R !== rule) return fail(name, t("fair.round.not_rule", { round, rule: String(rule), which }));
  }
  const named = kept.drand_round_seen_at;
  if (!given(named)) return final ? unchecked(name, t("fair.round.no_seen")) : null;
  // The seats' seeds: the window's close lists them, and the log orders it before the
  // naming, so a naming in time covers them; a close shown after the naming does not.
  const closed = kept.window_closed_at;
  if (given(closed) && closed > named + TOLERANCE.seenMs) {
    return fail(name, t("fair.round.seeds_late", { round, time: secs(closed - named) }));
  }
  const seeds = given(closed) ? t("fair.round.seeds_covered", { time: secs(named - closed) }) : "";
  const due = roundTime(kept.chain, R);
  const had = hadAt(kept, R);
  // The naming's lead: it must reach this tab the commitment's lead, less namingMs,
  // before the round is due (0: a commitment made before the lead).
  const leadMs = Number.isSafeInteger(lead) && lead >= 0 ? lead : 0;
  const late = namingLate(kept, R, named, leadMs, { final, now });
  const inTime = late !== null ? "" : leadMs > 0 ? t("fair.round.in_time_lead", { apart: apart(due - named), lead: secs(leadMs) }) : t("fair.round.in_time", { apart: apart(due - named) });
  // Covered: the tab was watching drand on its own relays when the round was named (so
  // it would have had the value then, had it been out), or they told it, after the
  // naming, that the latest round was an earlier one.
  const covered = had !== null && (watchedBy(kept, named) || notYetAt(kept, R, named));
  if (kept.drand_round_live === false) {
    // Seen in a catch-up: when it was named is unknown, but no later than then.
    if (late !== null) {
      return final ? unchecked(name, t("fair.round.catch_up_late", { round, apart: apart(due - named) })) : null;
    }
    if (covered && had.at >= named - TOLERANCE.seenMs) {
      return final ? pass(name, t("fair.round.catch_up_pass", { round, had: hadThen(had, named), relay: from(had), in_time: inTime, seeds })) : null;
    }
    return final ? unchecked(name, t("fair.round.catch_up", { round })) : null;
  }
  if (had && had.at < named - TOLERANCE.seenMs) {
    return fail(name, t("fair.round.had_before", { value: roundOf(had, R), relay: from(had), time: secs(named - had.at), round }));
  }
  if (late === "wait") return null;
  if (late !== null) return fail(name, late);
  if (covered) {
    return final ? pass(name, t("fair.round.covered", { round, had: hadThen(had, named), relay: from(had), in_time: inTime, seeds })) : null;
  }
  // No observation of this tab's own covers the naming: drand's schedule on its clock.
  // While the match runs, only once its own relays have had clockMs to answer: an answer
  // that covers the naming would turn this around at the end.
  const waited = final || (!watchedBy(kept, named) && !notYetAt(kept, R, named) && now >= named + TOLERANCE.clockMs);
  if (named > due + TOLERANCE.clockMs && waited) {
    return fail(name, t("fair.round.due_before", { round, time: secs(named - due) }));
  }
  if (!final) return null;
  const why = Object.keys(kept.drand_seen ?? {}).length ? t("fair.round.why_server_relays") : t("fair.round.why_no_relay");
  const when = named <= due ? t("fair.round.named_before_due", { time: secs(due - named) }) : t("fair.round.named_after_due", { time: secs(named - due) });
  return unchecked(name, t("fair.round.uncovered", { round, why, when }));
}

function checkValue(kept, { final }) {
  const name = NAME.drand_value;
  const d = kept.drand;
  if (!d) {
    if (!final || kept.fallback || !given(kept.drand_round)) return null;
    if (kept.ended && !Object.keys(kept.deals ?? {}).length) return info(name, t("fair.value.ended_early"));
    return fail(name, t("fair.value.none"));
  }
  if (!known(kept.chain)) return fail(name, t("fair.unknown_chain", { chain: String(kept.chain) }));
  if (given(kept.drand_round) && d.round !== kept.drand_round) return fail(name, t("fair.value.other_round", { named: String(kept.drand_round), used: String(d.round) }));
  const v = verifyOnce(kept.chain, { round: d.round, signature: d.signature, previous_signature: d.previous_signature ?? undefined, randomness: d.randomness });
  if (!v.ok) return fail(name, t("fair.value.not_drand", { why: v.why }));
  return final ? pass(name, t("fair.value.pass", { round: String(d.round), chain: kept.chain })) : null;
}

/**
 * @param {object} kept
 * @param {{relays?: string[], fetchImpl?: typeof fetch, now?: () => number}} options
 */
async function checkRelay(kept, { relays = [], fetchImpl, now }) {
  const name = NAME.drand_relay;
  const d = kept.drand;
  if (!d || !known(kept.chain)) return null;
  const page = drandPage(kept.chain, d.round);
  let got = kept.drand_seen?.[String(d.round)];
  let how = t("fair.relay.how_watch");
  if (!got) {
    const asked = await fetchRound(relays, kept.chain, d.round, { fetchImpl, now });
    if (asked.error) return unchecked(name, t("fair.relay.unchecked", { error: asked.error, page }));
    got = { ...asked.beacon, relay: asked.relay };
    how = t("fair.relay.how_now");
  }
  const round = String(d.round);
  if (got.signature !== d.signature.toLowerCase()) {
    return fail(name, t("fair.relay.differs", { relay: got.relay, round, signature: got.signature, dealt: d.signature }));
  }
  return pass(name, t("fair.relay.pass", { round, how, relay: got.relay }));
}

/**
 * @param {object} kept
 * @param {{final: boolean, verifyApi?: string}} when the final check (with the verify
 *   API's address, for the fallback rate) or a live one
 */
function checkFallback(kept, { final, verifyApi }) {
  const name = NAME.drand_fallback;
  const fb = kept.fallback;
  if (!fb) return null;
  const R = kept.drand_round;
  if (!given(R)) return final ? fail(name, t("fair.fallback.never_named", { fallback: String(fb.round) })) : null;
  const round = String(R);
  if (fb.round !== R) return fail(name, t("fair.fallback.other_round", { fallback: String(fb.round), round }));
  if (!known(kept.chain)) return fail(name, t("fair.unknown_chain", { chain: String(kept.chain) }));
  const had = hadAt(kept, R);
  if (had && kept.fallback_live !== false && had.at <= kept.fallback_seen_at - TOLERANCE.toldMs) {
    return fail(name, t("fair.fallback.had", { value: roundOf(had, R), relay: from(had), time: secs(kept.fallback_seen_at - had.at) }));
  }
  const cur = kept.drand_seen?.[String(R)];
  const prev = kept.drand_seen?.[String(R - 1)];
  const period = CHAINS[kept.chain].period * 1000;
  if (cur && prev && prev.how === "next" && prev.at <= roundTime(kept.chain, R - 1) + TOLERANCE.clockMs) {
    const gap = cur.at - prev.at;
    if (gap < period + TOLERANCE.graceMs - TOLERANCE.cadenceMs) {
      return fail(name, t("fair.fallback.cadence", { round, time: secs(gap), previous: String(R - 1), grace: TOLERANCE.graceMs / 1000 }));
    }
  }
  if (!final) return null;
  const gap = had ? had.at - kept.fallback_seen_at : 0;
  const why = !had
    ? t("fair.fallback.why_none", { round })
    : gap >= 0
      ? t("fair.fallback.why_had_after", { round, time: secs(gap) })
      : t("fair.fallback.why_had_before", { round, time: secs(gap), told: TOLERANCE.toldMs / 1000 });
  const stats = verifyApi ? `${verifyApi.replace(/\/$/, "")}/v1/stats` : t("fair.fallback.stats_somewhere");
  return unchecked(name, t("fair.fallback.unchecked", { why, stats }));
}

async function checkDealer(kept, inputs) {
  const name = "dealer";
  if (!kept.pattern) return null;
  const dealt = Object.keys(kept.deals ?? {}).length > 0 || (kept.decks_issued ?? []).length > 0;
  if (!dealt) return kept.first_dealer === null ? null : info(name, t("fair.dealer.no_cards"));
  if (kept.first_dealer === null) return unchecked(name, t("fair.dealer.not_shown"));
  let rule = 0;
  let why = t("fair.dealer.seat_zero");
  if (given(kept.pattern.first_dealer_from)) {
    const { serverSeed, seatSeeds, drandInput } = inputs;
    const deck0 = await deck(serverSeed, seatSeeds, 0, drandInput, kept.pattern.deck_size);
    rule = firstDealer(kept.pattern, deck0);
    const card = deck0[kept.pattern.first_dealer_from];
    const n = CARD_CODES.indexOf(card);
    why = t("fair.dealer.rule", { position: kept.pattern.first_dealer_from + 1, card: String(card), n, players: kept.pattern.players, seat: rule });
  }
  const d0 = kept.deals?.["0"];
  if (d0 && d0.dealer !== kept.first_dealer) return fail(name, t("fair.dealer.changed", { said: String(kept.first_dealer), dealer: String(d0.dealer) }));
  if (kept.first_dealer !== rule) return fail(name, t("fair.dealer.chosen", { seat: String(kept.first_dealer), rule, why }));
  return pass(name, t("fair.dealer.pass", { seat: rule, why }));
}

/** A forfeit of this tab's seat is the seat's own choice only if this tab asked to leave:
 * the table writes ``MatchForfeited`` on the seat's ``leave``, and a server that wrote one
 * for a player mid-match, once the decks were known, would end the match as it likes. A
 * kept record of a format before the field (keeper.js BEFORE_LEAVE) could not tell. */
function checkForfeit(kept) {
  const e = kept.ended;
  if (!e || e.event !== "MatchForfeited") return null;
  const name = "forfeit";
  if (kept.seat === null || e.leaver !== kept.seat) return info(name, t("fair.forfeit.other", { seat: String(e.leaver) }));
  if (kept.leave_asked_at === undefined || BEFORE_LEAVE.includes(kept.format)) return unchecked(name, t("fair.forfeit.older"));
  if (kept.leave_asked_at === null) return fail(name, t("fair.forfeit.written"));
  return pass(name, t("fair.forfeit.pass"));
}

/** The key the commitment recorded for this seat is the one this page made and sent with
 * the seat (seatkey.js): a leave of this seat is signed with it, and a third party's
 * check accepts a forfeit signed by the recorded key. A key the server put there in its
 * place would let it sign a leave in your name; none at all, that your leave cannot be
 * shown to be yours. */
function checkKey(kept) {
  const keys = kept.commitment_keys;
  if (!Array.isArray(keys) || kept.seat === null) return null;
  const name = NAME.your_key;
  const recorded = keys[kept.seat] ?? "";
  if (!kept.my_key) return info(name, t("fair.key.none_made"));
  if (recorded === kept.my_key) return pass(name, t("fair.key.pass", { key: short(kept.my_key) }));
  if (recorded === "") return fail(name, t("fair.key.none_recorded"));
  return fail(name, t("fair.key.other", { recorded: short(recorded), mine: short(kept.my_key) }));
}

function checkAbort(kept) {
  const e = kept.ended;
  if (!e || e.event !== "MatchAborted") return null;
  const said = { by: String(e.by), why: e.reason ?? t("fair.abort.no_reason"), round: String(e.after_round) };
  const after = (kept.decks_issued ?? []).length > 0 || Object.keys(kept.deals ?? {}).length > 0;
  if (after) return fail("abort", e.by ? t("fair.abort.after_deck", said) : t("fair.abort.after_deck_nobody", said));
  // As the verifier's ``ending``: once the round is named its value is out within
  // seconds, and every deck can be computed from it (a free reroll).
  if (Number.isInteger(e.after_round)) return fail("abort", e.by ? t("fair.abort.after_round", said) : t("fair.abort.after_round_nobody", said));
  return info("abort", e.by ? t("fair.abort.before_round", said) : t("fair.abort.before_round_nobody", said));
}

// --- the salts, the hashes, the commitment's other uses

const SALT_HEX = /^[0-9a-f]{32}$/;
const older = (kept) => BEFORE_SALTS.includes(kept.format);
const short = (hex) => `${String(hex).slice(0, 16)}…`;

function checkSalts(kept, { final }) {
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

function checkYourSaltsLive(kept) {
  if (kept.seat === null || kept.salted !== true) return null;
  const problems = saltProblems(yourParts(kept));
  return problems.length ? fail(NAME.your_salts, saltsSaid(problems)) : null;
}

/** At the end: the live problems, then each salt recomputed from the revealed seed
 * (deck.js dealSalts), its index 1 + seat for the first cards, 1 + players + seat for the
 * completion. ``seedOk``: the revealed seed is the committed one. */
async function checkYourSalts(kept, { serverSeed, seedOk }) {
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

function checkHashes(kept, { final }) {
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

function checkCommitmentLive(kept) {
  const u = kept.commitment_uses;
  return kept.commitment && Array.isArray(u?.matches) ? reused(kept, u, true) : null;
}

/** The receipt for this seat's seed, signed with the match's receipt key, published at
 * the verify API once the match has ended (POST /v1/matches/{id}/receipts, which keeps
 * it once): from then on anyone checking the match holds its record to it (the report's
 * seed_receipts), so a seed the server acknowledged and dropped fails for them too, not
 * only here. A verify API that refuses a receipt this tab checked keeps it from them. */
async function checkReceiptPublished(kept, options) {
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

async function checkCommitmentNew(kept, options) {
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
  if (!kept) return done([fail("kept", t("fair.kept_nothing"))], false);
  const final = { final: true, verifyApi: options.verifyApi };
  const checks = [...checkConsistency(kept)];
  const add = (c) => c && checks.push(c);

  if (!kept.reveal) {
    checks.push(unchecked("commitment", t("fair.commitment.not_yet")));
    for (const c of checkLive(kept, at).failed) if (c.name !== "consistency") checks.push(c);
    return done(checks, false);
  }
  let serverSeed;
  try {
    serverSeed = fromHex(kept.reveal.server_seed);
  } catch {
    checks.push(fail("commitment", t("fair.commitment.seed_not_hex")));
    return done(checks, true);
  }
  if (serverSeed.length !== 32) {
    checks.push(fail("commitment", t("fair.commitment.seed_not_32")));
    return done(checks, true);
  }

  // The commitment, shown before this tab sent its seed, and what it fixed.
  let seedOk = false;
  if (!kept.commitment) {
    checks.push(fail("commitment", t("fair.commitment.never_shown")));
  } else {
    const hash = await sha256Hex(serverSeed);
    seedOk = hash === kept.commitment;
    if (hash !== kept.commitment) {
      checks.push(fail("commitment", t("fair.commitment.mismatch", { hash, commitment: kept.commitment })));
    } else if (kept.my_seed_sent_at !== null && kept.commitment_seen_at > kept.my_seed_sent_at) {
      checks.push(fail("commitment", t("fair.commitment.shown_late")));
    } else {
      checks.push(pass("commitment", t("fair.commitment.pass", { commitment: short(kept.commitment) })));
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
    checks.push(fail("deals", t("fair.deals.no_pattern")));
  } else if (seats && (kept.drand || kept.fallback)) {
    const inputs = {
      serverSeed,
      seatSeeds: seats.map((s) => fromHex(s)),
      drandInput: kept.drand ? { round: kept.drand.round, value: fromHex(kept.drand.randomness) } : null,
    };
    add(await checkDealer(kept, inputs));
    for (const k of dealNumbers) checks.push(await checkDeal(kept, kept.deals[String(k)], inputs));
    if (dealNumbers.length === 0 && !kept.ended) checks.push(unchecked("deals", t("fair.deals.none")));
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
    return LOG_CHECKS.map((name) => unchecked(name, t("fair.could_not_check", { why: e.message })));
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
    return fail(name, t("fair.deal.no_deck", { error: e.message }));
  }
  const problems = [];
  const expect = seatCards(pattern, cards, d.dealer, kept.seat ?? 0, d.misere ? null : d.taker);
  if (expect.turned !== d.turned) problems.push(t("fair.deal.turned", { shown: String(d.turned), deck: String(expect.turned) }));
  if (kept.seat !== null) {
    if (!d.first) problems.push(t("fair.deal.first_not_shown"));
    else if (d.first.cards.join(" ") !== expect.first.join(" ")) {
      problems.push(t("fair.deal.first_differ", { shown: d.first.cards.join(" "), deck: expect.first.join(" ") }));
    }
    const completed = d.taker !== null || d.misere;
    if (completed && expect.completion) {
      if (!d.completion) problems.push(t("fair.deal.completion_not_shown"));
      else if (d.completion.cards.join(" ") !== expect.completion.join(" ")) {
        problems.push(t("fair.deal.completion_differ", { shown: d.completion.cards.join(" "), deck: expect.completion.join(" ") }));
      }
    } else if (d.completion) {
      problems.push(t("fair.deal.completed_without", { cards: d.completion.cards.join(" ") }));
    }
  }
  if (d.bottom !== null && d.bottom !== expect.bottom) problems.push(t("fair.deal.bottom", { shown: String(d.bottom), deck: String(expect.bottom) }));
  const k = String(d.deal);
  if (problems.length) return fail(name, t("fair.deal.failed", { k, problems: problems.join("; ") }));
  const said = { k, turned: String(d.turned), count: kept.seat === null ? 0 : d.first.cards.length + (d.completion?.cards.length ?? 0) };
  const recomputed = kept.seat === null ? t("fair.deal.recomputed", said) : t("fair.deal.recomputed_yours", said);
  return pass(name, d.abandoned ? t("fair.deal.redealt", { recomputed, why: redealWhy(d.abandoned) }) : recomputed);
}

/** Why a deal was dealt again (DealAbandoned's reason: "all_passed", "redeal_demanded"),
 * in the player's language; a reason this tab does not know, as the code says it. */
function redealWhy(reason) {
  return has(`fair.redeal.${reason}`) ? t(`fair.redeal.${reason}`) : String(reason).replace("_", " ");
}
