// What the tab keeps of a match (keeper.js), its shape and its rule: the record's format
// and fields (newKept), and first sight wins: a fact is fixed the first time it is seen;
// the same fact told again another way is a conflict, kept as facts (never as words) and
// said in the player's language by conflictText.

import { t } from "./i18n.js";

export const FORMAT = "belot-tab-kept/6";
/** The formats before this tab noted that it asked to leave (fairdeal.js, "forfeit"). */
export const BEFORE_LEAVE = Object.freeze(["belot-tab-kept/1", "belot-tab-kept/2", "belot-tab-kept/3", "belot-tab-kept/4", "belot-tab-kept/5"]);
/** The formats before the salts were kept (fairdeal.js: their salts and hashes checks
 * could not check). */
export const BEFORE_SALTS = Object.freeze(["belot-tab-kept/1", "belot-tab-kept/2", "belot-tab-kept/3"]);
/** The match's events that end it: a hash served from the ending on is not one of a
 * running match. */
export const ENDINGS = Object.freeze(["MatchEnded", "MatchForfeited", "MatchAborted"]);
/** Rounds of the tab's own drand observations kept at most (a watch sees a few). */
export const MAX_SEEN = 64;

export function newKept(matchId, tableId, player) {
  return {
    format: FORMAT,
    match_id: matchId,
    table_id: tableId,
    player, // this tab's account id
    seat: null,
    ruleset: null,
    pattern: null, // the ruleset's published deal pattern, kept before the first deal
    pattern_kept_at: null,
    target: null,
    first_dealer: null,
    commitment: null,
    commitment_seen_at: null, // this tab's clock, ms
    commitment_live: null, // seen live (true) or only in a catch-up (false)
    seeds_open: false, // the table has shown the commitment (FairDealOpened): it takes seeds
    chain: null,
    window_closes_at_ms: null, // the commitment's facts: the seed window's end, server time
    last_round: null, // and the last drand round the match may name
    round_lead_ms: null, // and the lead of the round it names (0: a commitment made before the lead)
    commitment_at_ms: null, // and when it was made, by the server's time (ServerSeedCommitted.at_ms): the window's length is window_closes_at_ms - this
    salted: null, // and whether it promises a salt in every hidden event (false: not promised; null: not seen)
    commitment_keys: null, // and each seat's key it records, hex ("" = none), by seat (fairdeal.leave)
    receipt_key: null, // and the match's receipt key, hex ("" = none: a commitment made before signed receipts)
    my_key: null, // the public key this page made for its seat and sent with it (seatkey.js), hex
    // The verify API's answer, when the commitment was seen, on which matches used it
    // (GET /v1/commitments/{commitment}): {matches, used_twice, at}, or {error, at} (asked
    // again on a later event, at most every 2 s, until it answers).
    commitment_uses: null,
    my_seed: null, // the 16 bytes this tab made and sent, hex
    my_seed_sent_at: null,
    receipt: null, // the seed reply's receipt: {match_id, seat, seed_sha256, stream, version, at_ms}
    receipt_at: null,
    seed_refused: null, // {code, at}: the server refused this tab's seed
    seed_reply_due: null, // when this tab last sent its seed and has had no answer yet
    seed_received: null, // the event recording our seed (private to the seat): {seed, stream, version}
    seat_seeds: null, // every seat's seed as shown when the window closed, hex ("" = none)
    missing_seeds: null,
    window_closed_at: null,
    seeds_in_at_ms: null, // when the window closed by the server's time (SeedWindowClosed.at_ms): the rule's round follows from it
    drand_round: null,
    drand_round_seen_at: null,
    drand_round_live: null,
    drand: null, // {round, randomness, signature, previous_signature}
    drand_seen_at: null,
    fallback: null, // {round, reason}
    fallback_seen_at: null,
    fallback_live: null,
    // The tab's own drand observations (the watch in tablefair.js, drand.js): by round, when
    // this tab first had its verified beacon and from which relay.
    // {at, relay, source ("player" | "tab" | "server"), how ("latest" | "next" | "fetch"),
    //  signature, previous_signature?, randomness}
    drand_seen: {},
    decks_issued: [], // deal numbers whose deck went out (DeckIssued, public)
    // By deal number k: {deal, dealer, turned, first, completion, taker, ...}; this seat's
    // cards, first and completion, as {version, cards, salt} (the event's salt as shown,
    // null when it carries none).
    deals: {},
    current_deal: null,
    ended: null, // {event, version, by?, reason?, leaver?}
    // When this tab asked to leave its seat (its own clock), first ask wins: a forfeit of
    // this seat that it did not ask for is the server's (fairdeal.js, "forfeit").
    leave_asked_at: null,
    reveal: null, // {server_seed, via, seen_at}
    // The first hash of the match's stream this tab was served before the match ended
    // (nobody is served one while it runs: with it, another seat can search your cards):
    // {via ("socket" | "record"), stream, version, event, hash, at}.
    hash_served: null,
    // The transparency log when the match opened (keepLogOpen, logcheck.js): {vkey (the
    // pinned key it was checked with), told (the key the page was told, if another),
    // open: {origin, size, root, note, seen_at} (the checkpoint pinned, first sight wins),
    // refused: {code, message, at} (a checkpoint that did not verify: kept, it fails),
    // error: {message, at} (none had yet: asked again on the next event)}.
    log: null,
    conflicts: [],
    check: null, // the last in-tab check's result
  };
}

/** A record kept by an older client gets the fields it lacks (all "not seen"). */
export function fill(kept) {
  for (const [key, value] of Object.entries(newKept(null, null, null))) {
    if (!(key in kept)) kept[key] = value;
  }
}

export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Set kept[key] to value unless it is set: then a different value is a conflict naming
 * ``what`` (one of WHAT: the fact). */
export function fix(kept, key, value, what) {
  if (kept[key] === null || kept[key] === undefined) {
    kept[key] = value;
    return true;
  }
  if (!same(kept[key], value)) {
    return conflict(kept, "shown_twice", { what, first: JSON.stringify(kept[key]), later: JSON.stringify(value) });
  }
  return false;
}

/** The facts a conflict names: each its key's last segment (keeper.what.<segment>). A
 * conflict is kept as facts, never as words ({said, facts}: said, keeper.conflict.<said>;
 * facts, its values, "what" one of these): conflictText says it in the language of the
 * moment, and fairdeal.js shows each as the consistency check's failure. */
export const WHAT = Object.freeze({
  ruleset: "ruleset",
  seat: "seat",
  salted: "salted",
  receiptKey: "receipt_key",
  seatKeys: "seat_keys",
  commitmentAt: "commitment_at",
  seedReceived: "seed_received",
  seatSeeds: "seat_seeds",
  missingSeeds: "missing_seeds",
  windowClosedAt: "window_closed_at",
  chain: "chain",
  drandRound: "drand_round",
  drandValue: "drand_value",
  fallback: "fallback",
  target: "target",
  firstDealer: "first_dealer",
  commitment: "commitment",
  windowEnd: "window_end",
  lastRound: "last_round",
  roundLead: "round_lead",
  receipt: "receipt",
});

export function conflict(kept, said, facts) {
  const found = { said, facts };
  if (kept.conflicts.some((c) => same(c, found))) return false;
  kept.conflicts.push(found);
  return true;
}

/** A kept conflict in the player's language now (one kept as words by an older page is
 * said as it was). */
export function conflictText(c) {
  if (typeof c === "string") return c;
  const facts = { ...c.facts };
  if (facts.what !== undefined) facts.what = t(`keeper.what.${facts.what}`);
  return t(`keeper.conflict.${c.said}`, facts);
}
