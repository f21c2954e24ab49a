// What the tab keeps of a match: the facts the table showed it, as the table showed them,
// for the in-tab check (fairdeal.js) to use at the end instead of anything the server
// says then. Pure: events in (the WebSocket's messages: {stream, version, event, payload,
// visibility}), a plain JSON object out, stored by store.js.
//
// First sight wins. A fact shown again (a reload replays the table's events) must be the
// same; a different value is recorded as a conflict, which fails the check: a server that
// shows one commitment, seed or hand and later another is caught here.

export const FORMAT = "belot-tab-kept/1";

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
    seeds_open: false, // the table has shown the commitment (FairDealOpened): it takes seeds
    chain: null,
    my_seed: null, // the 16 bytes this tab made and sent, hex
    my_seed_sent_at: null,
    seed_received: null, // the server's acknowledgement of our seed (private to the seat)
    seat_seeds: null, // every seat's seed as shown when the window closed, hex ("" = none)
    missing_seeds: null,
    drand_round: null,
    drand: null, // {round, randomness, signature}
    fallback: null, // {round, reason}
    deals: {}, // by deal number k: {deal, dealer, turned, first, completion, taker, ...}
    current_deal: null,
    ended: null, // {event, version}
    reveal: null, // {server_seed, via, seen_at}
    conflicts: [],
    check: null, // the last in-tab check's result
  };
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Set kept[key] to value unless it is set: then a different value is a conflict. */
function fix(kept, key, value, what) {
  if (kept[key] === null || kept[key] === undefined) {
    kept[key] = value;
    return true;
  }
  if (!same(kept[key], value)) {
    return conflict(kept, `${what} was shown as ${JSON.stringify(kept[key])}, later as ${JSON.stringify(value)}`);
  }
  return false;
}

function conflict(kept, text) {
  if (kept.conflicts.includes(text)) return false;
  kept.conflicts.push(text);
  return true;
}

function deal(kept) {
  return kept.current_deal === null ? null : kept.deals[kept.current_deal];
}

/**
 * Fold one WebSocket event message into ``kept``; returns whether it changed.
 * ``rulesets``: the gateway's /v1/rulesets list by name (for the deal pattern).
 */
export function keep(kept, msg, rulesets = {}) {
  const p = msg.payload ?? {};
  const mine = (player) => player !== null && player !== undefined && player === kept.player;
  let changed = false;

  const learnRuleset = (name) => {
    let c = fix(kept, "ruleset", name, "the ruleset");
    const r = rulesets[name];
    if (kept.pattern === null && r) {
      kept.pattern = r.deal_pattern;
      kept.pattern_kept_at = Date.now();
      c = true;
    }
    return c;
  };
  const learnSeat = (seats) => {
    const me = (seats ?? []).find((s) => mine(s.player));
    return me ? fix(kept, "seat", me.seat, "your seat") : false;
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
      changed = fixCommitment(kept, p.commitment) || changed;
      // The fair deal's own event may come first; the table takes seeds from this one on.
      if (!kept.seeds_open) kept.seeds_open = changed = true;
      return changed;
    case "FairDealRevealed":
      return fixReveal(kept, p.server_seed, "table");

    // --- the fair deal's stream
    case "ServerSeedCommitted":
      changed = learnSeat(p.seats);
      changed = fixCommitment(kept, p.commitment) || changed;
      changed = fix(kept, "chain", p.chain, "the drand chain") || changed;
      return changed;
    case "SeatSeedReceived":
      if (kept.seat !== null && p.seat === kept.seat && msg.visibility === `seat:${kept.seat}`) {
        return fix(kept, "seed_received", p.seed, "your seed as received");
      }
      return false;
    case "SeedWindowClosed":
      changed = fix(kept, "seat_seeds", p.seat_seeds, "the seats' seeds");
      return fix(kept, "missing_seeds", p.missing, "the seats without a seed") || changed;
    case "DrandRoundNamed":
      return fix(kept, "drand_round", p.round, "the drand round");
    case "DrandBeaconVerified":
      return fix(kept, "drand", { round: p.round, randomness: p.randomness, signature: p.signature }, "drand's value");
    case "DrandFallback":
      return fix(kept, "fallback", { round: p.round, reason: p.reason }, "the drand fallback");
    case "ServerSeedRevealed":
      return fixReveal(kept, p.server_seed, "randomness");

    // --- the match's stream
    case "MatchStarted":
      changed = learnRuleset(p.ruleset);
      changed = fix(kept, "target", p.target, "the target") || changed;
      return fix(kept, "first_dealer", p.first_dealer, "the first dealer") || changed;
    case "DealStarted": {
      const k = String(p.deal_number);
      const fact = { deal: p.deal_number, dealer: p.dealer, turned: p.turned };
      if (!kept.deals[k]) {
        kept.deals[k] = { ...fact, first: null, completion: null, taker: null, strain: null, misere: false, bottom: null, abandoned: null, version: msg.version };
        changed = true;
      } else if (!same({ deal: kept.deals[k].deal, dealer: kept.deals[k].dealer, turned: kept.deals[k].turned }, fact)) {
        changed = conflict(kept, `deal ${k} was shown dealt by seat ${kept.deals[k].dealer} turning ${kept.deals[k].turned}, later by seat ${p.dealer} turning ${p.turned}`);
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
      const shown = { version: msg.version, cards: p.cards };
      for (const part of ["first", "completion"]) {
        if (d[part] && d[part].version === msg.version) {
          return same(d[part].cards, p.cards) ? false : conflict(kept, `your cards of deal ${d.deal} were shown as ${d[part].cards.join(" ")}, later as ${p.cards.join(" ")}`);
        }
      }
      if (d.first === null) d.first = shown;
      else if (d.completion === null) d.completion = shown;
      else return conflict(kept, `deal ${d.deal}: a third set of cards was dealt to your seat`);
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
      return true;
    default:
      return false;
  }
}

function fixCommitment(kept, commitment) {
  const changed = fix(kept, "commitment", commitment, "the commitment");
  if (changed && kept.commitment_seen_at === null) kept.commitment_seen_at = Date.now();
  return changed;
}

function fixReveal(kept, serverSeed, via) {
  if (kept.reveal === null) {
    kept.reveal = { server_seed: serverSeed, via, seen_at: Date.now() };
    return true;
  }
  if (kept.reveal.server_seed !== serverSeed) {
    return conflict(kept, `the revealed server seed was ${kept.reveal.server_seed}, then ${serverSeed} (${via})`);
  }
  return false;
}

/** The tab's own seed: recorded before it is sent, once. */
export function keepMySeed(kept, seedHex) {
  if (kept.my_seed !== null) return false;
  kept.my_seed = seedHex;
  kept.my_seed_sent_at = Date.now();
  return true;
}
