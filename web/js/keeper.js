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
//
// Three modules: keepbase.js the record's shape (FORMAT, newKept) and the rule of first
// sight; this one, what the table's events say (keep); keepown.js, what this tab did and
// saw itself (its seed, key, receipt, drand observations, the log's checkpoint...).

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

import { ENDINGS, WHAT, conflict, fill, fix, same } from "./keepbase.js";
import { keepHashServed } from "./keepown.js";

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
