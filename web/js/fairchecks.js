// The in-tab check of a match (fairdeal.js): the checks of the kept record's facts and
// times (consistency, the commitment's bounds, your seed, drand's round, value, relay
// and fallback, the dealer, a forfeit, your key, an abort). Each takes the kept record
// and {final}: false while the match runs (only what can already be told), true at the
// end; each returns a verdict (fairbase.js) or null.

import { CARD_CODES, deck } from "./deck.js";
import { CHAINS, fetchRound, roundTime } from "./drand.js";
import { BEFORE_LEAVE, conflictText } from "./keepbase.js";
import { t } from "./i18n.js";
import { verifyReceipt } from "./receipts.js";
import { NAME, TOLERANCE, apart, drandPage, fail, firstDealer, from, given, hadAt, hadThen, info, known, namingLate, notYetAt, pass, roundOf, ruleRound, secs, seedSha256, short, unchecked, verifyOnce, watchedBy } from "./fairbase.js";

// --- the checks; each takes the kept record and {final}: false while the match runs
// (only what can already be told), true at the end.

export function checkConsistency(kept) {
  return (kept.conflicts ?? []).map((c) => fail("consistency", conflictText(c)));
}

export function checkBounds(kept, { final, now = Infinity }) {
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

export function checkSeed(kept, { final, now = Infinity }) {
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

export function checkRound(kept, { final, now = Infinity }) {
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

export function checkValue(kept, { final }) {
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
export async function checkRelay(kept, { relays = [], fetchImpl, now }) {
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
export function checkFallback(kept, { final, verifyApi }) {
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

export async function checkDealer(kept, inputs) {
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
export function checkForfeit(kept) {
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
export function checkKey(kept) {
  const keys = kept.commitment_keys;
  if (!Array.isArray(keys) || kept.seat === null) return null;
  const name = NAME.your_key;
  const recorded = keys[kept.seat] ?? "";
  if (!kept.my_key) return info(name, t("fair.key.none_made"));
  if (recorded === kept.my_key) return pass(name, t("fair.key.pass", { key: short(kept.my_key) }));
  if (recorded === "") return fail(name, t("fair.key.none_recorded"));
  return fail(name, t("fair.key.other", { recorded: short(recorded), mine: short(kept.my_key) }));
}

export function checkAbort(kept) {
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
