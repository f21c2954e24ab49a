// What the tab keeps of a match: the facts the table showed it, as the table showed them,
// for the in-tab check (fairdeal.js) to use at the end instead of anything the server
// says then. Pure: events in (the WebSocket's messages: {stream, version, event, payload,
// visibility, replay?}), a plain JSON object out, stored by store.js.
//
// First sight wins. A fact shown again (a reload replays the table's events) must be the
// same; a different value is recorded as a conflict, which fails the check: a server that
// shows one commitment, seed or hand and later another is caught here.
//
// Times. "When this tab saw it" is the tab's own clock (web/js/clock.js), passed in as
// ``now``: never a time the server wrote (at_ms, recorded_at). A message the gateway
// marks ``replay: true`` was sent in a catch-up (after connecting or reconnecting): the
// tab saw it then, not when it happened, and the facts whose time matters say so
// (``*_live``: false).

// Format 3 added ``log`` (the transparency log's checkpoint pinned at the open): a record
// of format 2 or 1 is read with the fields it lacks as "not seen" (fill), so its log
// checks say this tab pinned nothing, and could not check. Format 4 added the salts
// (``salted``, and each of this seat's cards with its ``salt``), a hash served while the
// match ran (``hash_served``) and the verify API's answer on the commitment
// (``commitment_uses``): an older record's checks of them could not check. Format 5 added
// the commitment's own time (``commitment_at_ms``: the seed window's length, against
// which a seed refused as late is judged); an older record is judged as before, by this
// tab's clock against the window's end. Format 6 added when this tab asked to leave
// (``leave_asked_at``): an older record cannot tell a forfeit it asked for from one
// written for it, so its forfeit check could not check.
import { t } from "./i18n.js";

export const FORMAT = "belot-tab-kept/6";
/** The formats before this tab noted that it asked to leave (fairdeal.js, "forfeit"). */
export const BEFORE_LEAVE = Object.freeze(["belot-tab-kept/1", "belot-tab-kept/2", "belot-tab-kept/3", "belot-tab-kept/4", "belot-tab-kept/5"]);
/** The formats before the salts were kept (fairdeal.js: their salts and hashes checks
 * could not check). */
export const BEFORE_SALTS = Object.freeze(["belot-tab-kept/1", "belot-tab-kept/2", "belot-tab-kept/3"]);
/** The match's events that end it: a hash served from the ending on is not one of a
 * running match. */
const ENDINGS = Object.freeze(["MatchEnded", "MatchForfeited", "MatchAborted"]);
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
    // The tab's own drand observations (the watch in table.js, drand.js): by round, when
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
function fill(kept) {
  for (const [key, value] of Object.entries(newKept(null, null, null))) {
    if (!(key in kept)) kept[key] = value;
  }
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Set kept[key] to value unless it is set: then a different value is a conflict naming
 * ``what`` (one of WHAT: the fact). */
function fix(kept, key, value, what) {
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
const WHAT = Object.freeze({
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

function conflict(kept, said, facts) {
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

function deal(kept) {
  return kept.current_deal === null ? null : kept.deals[kept.current_deal];
}

/**
 * Fold one WebSocket event message into ``kept``; returns whether it changed.
 * ``rulesets``: the gateway's /v1/rulesets list by name (for the deal pattern).
 */
export function keep(kept, msg, rulesets = {}, now = Date.now()) {
  fill(kept);
  // A hash of the match's stream, served before the match ended (as this tab saw it):
  // the WebSocket never carries one; a server that sends it, sends it to other seats too.
  let served = false;
  if (msg.hash !== null && msg.hash !== undefined && msg.stream === `match-${kept.match_id}` && kept.ended === null && !ENDINGS.includes(msg.event)) {
    served = keepHashServed(kept, { via: "socket", stream: msg.stream, version: msg.version ?? null, event: msg.event ?? null, hash: msg.hash, at: now });
  }
  return keepEvent(kept, msg, rulesets, now) || served;
}

function keepEvent(kept, msg, rulesets, now) {
  const p = msg.payload ?? {};
  const live = msg.replay !== true;
  const mine = (player) => player !== null && player !== undefined && player === kept.player;
  let changed = false;

  const learnRuleset = (name) => {
    let c = fix(kept, "ruleset", name, WHAT.ruleset);
    const r = rulesets[name];
    if (kept.pattern === null && r) {
      kept.pattern = r.deal_pattern;
      kept.pattern_kept_at = now;
      c = true;
    }
    return c;
  };
  const learnSeat = (seats) => {
    const me = (seats ?? []).find((s) => mine(s.player));
    return me ? fix(kept, "seat", me.seat, WHAT.seat) : false;
  };

  switch (msg.event) {
    // --- the table's stream
    case "TableOpened":
      return learnRuleset(p.ruleset);
    case "SeatTaken":
      if (mine(p.player) && kept.commitment === null) {
        changed = kept.seat !== p.seat;
        kept.seat = p.seat;
      }
      return changed;
    case "SeatLeft":
      if (mine(p.player) && !p.forfeit && kept.commitment === null && kept.seat !== null) {
        kept.seat = null;
        return true;
      }
      return false;
    case "FairDealOpened":
      changed = learnSeat(p.seats);
      changed = fixCommitment(kept, p, now, live) || changed;
      // The fair deal's own event may come first; the table takes seeds from this one on.
      if (!kept.seeds_open) kept.seeds_open = changed = true;
      return changed;
    case "FairDealRevealed":
      return fixReveal(kept, p.server_seed, "table", now);

    // --- the fair deal's stream
    case "ServerSeedCommitted":
      changed = learnSeat(p.seats);
      // The fair deal's own commitment: one without a lead was made before the lead (0);
      // one without ``salted`` promises no salts.
      changed = fix(kept, "salted", p.salted === true, WHAT.salted) || changed;
      // The match's receipt key (receipts.js): the receipt for this seat's seed is signed with it.
      changed = fix(kept, "receipt_key", typeof p.receipt_key === "string" ? p.receipt_key : "", WHAT.receiptKey) || changed;
      // The seats' keys, recorded before any seed: a leave is signed with this seat's.
      if (Array.isArray(p.seats)) changed = fix(kept, "commitment_keys", p.seats.map((s) => (typeof s?.key === "string" ? s.key : "")), WHAT.seatKeys) || changed;
      // Its own time (the table's copy has the table's): the seed window's length.
      if (Number.isSafeInteger(p.at_ms)) changed = fix(kept, "commitment_at_ms", p.at_ms, WHAT.commitmentAt) || changed;
      return fixCommitment(kept, { round_lead_ms: 0, ...p }, now, live) || changed;
    case "SeatSeedReceived":
      if (kept.seat !== null && p.seat === kept.seat && msg.visibility === `seat:${kept.seat}`) {
        return fix(kept, "seed_received", { seed: p.seed, stream: msg.stream, version: msg.version }, WHAT.seedReceived);
      }
      return false;
    case "SeedWindowClosed":
      changed = fix(kept, "seat_seeds", p.seat_seeds, WHAT.seatSeeds);
      changed = fix(kept, "missing_seeds", p.missing, WHAT.missingSeeds) || changed;
      if (Number.isSafeInteger(p.at_ms)) changed = fix(kept, "seeds_in_at_ms", p.at_ms, WHAT.windowClosedAt) || changed;
      return seenAt(kept, "window_closed_at", now) || changed;
    case "DrandRoundNamed":
      changed = p.chain === undefined ? false : fix(kept, "chain", p.chain, WHAT.chain);
      return fixSeen(kept, "drand_round", p.round, WHAT.drandRound, now, live) || changed;
    case "DrandBeaconVerified": {
      const value = { round: p.round, randomness: p.randomness, signature: p.signature, previous_signature: p.previous_signature ?? null };
      changed = fix(kept, "drand", value, WHAT.drandValue);
      return seenAt(kept, "drand_seen_at", now) || changed;
    }
    case "DrandFallback":
      return fixSeen(kept, "fallback", { round: p.round, reason: p.reason }, WHAT.fallback, now, live);
    case "DeckIssued":
      if (!Number.isInteger(p.deal) || kept.decks_issued.includes(p.deal)) return false;
      kept.decks_issued.push(p.deal);
      return true;
    case "ServerSeedRevealed":
      return fixReveal(kept, p.server_seed, "randomness", now);

    // --- the match's stream
    case "MatchStarted":
      changed = learnRuleset(p.ruleset);
      changed = fix(kept, "target", p.target, WHAT.target) || changed;
      return fix(kept, "first_dealer", p.first_dealer, WHAT.firstDealer) || changed;
    case "DealStarted": {
      const k = String(p.deal_number);
      const fact = { deal: p.deal_number, dealer: p.dealer, turned: p.turned };
      if (!kept.deals[k]) {
        kept.deals[k] = { ...fact, first: null, completion: null, taker: null, strain: null, misere: false, bottom: null, abandoned: null, version: msg.version };
        changed = true;
      } else if (!same({ deal: kept.deals[k].deal, dealer: kept.deals[k].dealer, turned: kept.deals[k].turned }, fact)) {
        const was = kept.deals[k];
        changed = conflict(kept, "dealt", { deal: k, dealer: String(was.dealer), turned: String(was.turned), later_dealer: String(p.dealer), later_turned: String(p.turned) });
      }
      if (kept.current_deal !== p.deal_number) {
        kept.current_deal = p.deal_number;
        changed = true;
      }
      return changed;
    }
    case "CardsDealt": {
      // Only this seat's own cards, as shown to it (after the end every seat's are
      // visible: they are not what this tab was dealt).
      const d = deal(kept);
      if (!d || kept.seat === null || p.seat !== kept.seat || msg.visibility !== `seat:${kept.seat}`) return false;
      const salt = typeof p.salt === "string" ? p.salt : null;
      const shown = { version: msg.version, cards: p.cards, salt };
      for (const part of ["first", "completion"]) {
        if (d[part] && d[part].version === msg.version) {
          const dealNumber = String(d.deal);
          if (!same(d[part].cards, p.cards)) return conflict(kept, "cards", { deal: dealNumber, first: d[part].cards.join(" "), later: p.cards.join(" ") });
          if (!("salt" in d[part])) {
            d[part].salt = salt; // kept by an older page, before the salts
            return true;
          }
          if (d[part].salt !== salt) {
            const shownSalts = { deal: dealNumber, first: JSON.stringify(d[part].salt), later: JSON.stringify(salt) };
            return conflict(kept, part === "first" ? "salt_first" : "salt_completion", shownSalts);
          }
          return false;
        }
      }
      // The part (its salt's index depends on it): the first cards until the bidding is
      // over, the completion once a contract (or a misère) is taken.
      const over = d.taker !== null || d.misere;
      const part = d.first === null && !over ? "first" : "completion";
      if (d[part] !== null) return conflict(kept, "third_cards", { deal: String(d.deal) });
      d[part] = shown;
      return true;
    }
    case "ContractTaken": {
      const d = deal(kept);
      if (!d || d.taker !== null) return false;
      d.taker = p.seat;
      d.strain = p.strain;
      return true;
    }
    case "MisereStarted": {
      const d = deal(kept);
      if (!d || d.misere) return false;
      d.misere = true;
      return true;
    }
    case "BottomCardShown": {
      const d = deal(kept);
      if (!d || d.bottom !== null) return false;
      d.bottom = p.card;
      return true;
    }
    case "DealAbandoned": {
      const d = kept.deals[String(p.deal_number)];
      if (!d || d.abandoned !== null) return false;
      d.abandoned = p.reason;
      return true;
    }
    case "MatchEnded":
    case "MatchForfeited":
    case "MatchAborted":
      if (kept.ended !== null) return false;
      kept.ended = { event: msg.event, version: msg.version };
      // An abort after the round was named (as this tab was shown them, in the log's
      // order) could follow the cards: fairdeal.js "abort".
      if (msg.event === "MatchAborted") Object.assign(kept.ended, { by: p.by ?? null, reason: p.reason ?? null, after_round: kept.drand_round ?? null });
      if (msg.event === "MatchForfeited") kept.ended.leaver = Number.isInteger(p.leaver) ? p.leaver : null;
      return true;
    default:
      return false;
  }
}

/** The commitment and what it fixes (both FairDealOpened and ServerSeedCommitted carry
 * them; the table's copy may lack the lead): first sight wins, another value later is a
 * conflict. */
function fixCommitment(kept, p, now, live) {
  let changed = fixSeen(kept, "commitment", p.commitment, WHAT.commitment, now, live);
  if (p.chain !== undefined && p.chain !== null) changed = fix(kept, "chain", p.chain, WHAT.chain) || changed;
  if (Number.isSafeInteger(p.window_closes_at_ms)) changed = fix(kept, "window_closes_at_ms", p.window_closes_at_ms, WHAT.windowEnd) || changed;
  if (Number.isSafeInteger(p.last_round)) changed = fix(kept, "last_round", p.last_round, WHAT.lastRound) || changed;
  if (Number.isSafeInteger(p.round_lead_ms)) changed = fix(kept, "round_lead_ms", p.round_lead_ms, WHAT.roundLead) || changed;
  return changed;
}

/** fix(), and the first time: when this tab saw it (``<key>_seen_at``) and whether live. */
function fixSeen(kept, key, value, what, now, live) {
  const first = kept[key] === null || kept[key] === undefined;
  const changed = fix(kept, key, value, what);
  if (first && changed) {
    kept[`${key}_seen_at`] = now;
    kept[`${key}_live`] = live;
  }
  return changed;
}

/** A time of first sight only. */
function seenAt(kept, key, now) {
  if (kept[key] !== null && kept[key] !== undefined) return false;
  kept[key] = now;
  return true;
}

function fixReveal(kept, serverSeed, via, now) {
  if (kept.reveal === null) {
    kept.reveal = { server_seed: serverSeed, via, seen_at: now };
    return true;
  }
  if (kept.reveal.server_seed !== serverSeed) {
    return conflict(kept, "reveal", { first: String(kept.reveal.server_seed), later: String(serverSeed), via });
  }
  return false;
}

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
