// The in-tab check of a match (fairdeal.js), its ground: the tolerances, the published
// rules it recomputes (the round a window names, a seat's cards from a deck, the first
// dealer), the verdicts and their names in the player's words, what this tab had seen
// and when, and drand's values verified once.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { CARD_CODES } from "./deck.js";
import { CHAINS, roundAt, roundTime, verifyBeacon } from "./drand.js";
import { LANGUAGES, language, t } from "./i18n.js";
import { logCheckName } from "./logbase.js";

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

export const pass = (name, detail) => ({ name, status: "pass", detail });
export const fail = (name, detail) => ({ name, status: "fail", detail });
export const unchecked = (name, detail) => ({ name, status: "unchecked", detail });
export const info = (name, detail) => ({ name, status: "info", detail });

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
export const NAME = Object.freeze(Object.fromEntries(Object.entries(CHECK_KEYS).map(([name, key]) => [key, name])));

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
export const secs = (ms) => t("fair.seconds", { time: tenths(Math.abs(ms) / 1000) });
/** "1.2 s before" when ``ms`` >= 0, "0.3 s after" when it is negative: ``ms`` is how long
 * the thing said came before the one it is compared with (each sentence's key puts it
 * before what it is compared with). */
export const apart = (ms) => (ms >= 0 ? t("fair.apart.before", { time: secs(ms) }) : t("fair.apart.after", { time: secs(ms) }));
export const known = (chain) => Object.hasOwn(CHAINS, chain ?? "");
export const given = (x) => x !== null && x !== undefined;
export const short = (hex) => `${String(hex).slice(0, 16)}…`;

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
export function watchedBy(kept, at) {
  return Object.values(kept.drand_seen ?? {}).some((s) => s.source !== "server" && s.at <= at);
}

/** An answer of the tab's own relays, at ``at`` (less the margin) or later, that the
 * latest round was one before ``round``: ``round`` was not out yet then. */
export function notYetAt(kept, round, at) {
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
export function namingLate(kept, R, at, lead, { final, now }) {
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
export function hadThen(had, named) {
  const d = had.at - named;
  return d >= 0 ? t("fair.had.after", { time: secs(d) }) : t("fair.had.before", { time: secs(d), cross: TOLERANCE.seenMs / 1000 });
}

export const from = (seen) => (seen.source === "server" ? t("fair.relay_of_server", { relay: seen.relay }) : seen.relay);
export const roundOf = (seen, round) =>
  seen.round === round ? t("fair.round_value", { round: String(round) }) : t("fair.later_round_value", { later: String(seen.round), round: String(round) });

// BLS checks are cached: checkLive runs on every event of the match.
const verified = new Map();
export function verifyOnce(chain, beacon) {
  const key = JSON.stringify([chain, beacon.round, beacon.signature, beacon.previous_signature ?? null, beacon.randomness ?? null]);
  if (!verified.has(key)) {
    if (verified.size > 64) verified.clear();
    verified.set(key, verifyBeacon(chain, beacon));
  }
  return verified.get(key);
}

export function seedSha256(hex) {
  try {
    return bytesToHex(sha256(hexToBytes(hex)));
  } catch {
    return null;
  }
}
