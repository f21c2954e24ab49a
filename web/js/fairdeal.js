// The in-tab check of a match (RULES.md §6, "Checking a match"), independent of the
// server's verifier: from what this tab kept (keeper.js) and the seed the server reveals
// at the end, it checks
//   - the revealed seed against the commitment shown before this tab sent its seed;
//   - that the seed the table dealt from at this seat is the one this tab made;
//   - drand's value: SHA-256 of its signature, and the round as drand's own relays serve
//     it (when one answers: the tab asks them itself), or that the match says it was
//     dealt without drand;
//   - every deal: the deck recomputed here (deck.js, Web Crypto HMAC-SHA256) and mapped
//     through the ruleset's deal pattern gives exactly the cards this seat was shown
//     (first distribution, completion), and the turned (and gambler's bottom) card.
// It never reads the server's own verification.

import { deck, fromHex, sha256Hex } from "./deck.js";

/** drand chains, pinned here as the server pins them (libs/fairdeal/chains.py). */
export const CHAINS = {
  quicknet: { hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971", period: 3, genesis: 1692803367 },
  default: { hash: "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce", period: 30, genesis: 1595431050 },
};

/** drand's own page for a round (api.drand.sh serves every round of every chain). */
export function drandPage(chain, round) {
  const c = CHAINS[chain] ?? CHAINS.quicknet;
  return `https://api.drand.sh/${c.hash}/public/${round}`;
}

/**
 * The cards a seat gets from ``deckCards`` under ``pattern`` (the published form, see
 * README "Checking a match by hand", step 6): seat offset (seat - dealer) mod n.
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

const pass = (name, detail) => ({ name, status: "pass", detail });
const fail = (name, detail) => ({ name, status: "fail", detail });
const skip = (name, detail) => ({ name, status: "skip", detail });
const info = (name, detail) => ({ name, status: "info", detail });

/** Ask drand relays for a round, all at once; the first answer wins. {beacon, relay} or
 * {error} saying why none answered (each relay gets ``timeoutMs``). */
export async function fetchRound(relays, chain, round, { fetchImpl = globalThis.fetch, timeoutMs = 4000 } = {}) {
  const c = CHAINS[chain];
  if (!c) return { error: `unknown drand chain ${chain}` };
  if (!relays.length) return { error: "no relay configured" };
  const ask = async (relay) => {
    const url = `${relay.replace(/\/$/, "")}/${c.hash}/public/${round}`;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const r = await fetchImpl(url, { signal: abort.signal, cache: "no-store" });
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return { beacon: await r.json(), relay };
    } catch (e) {
      throw new Error(`${relay}: ${e.name === "AbortError" ? "no answer" : e.message}`);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    return await Promise.any(relays.map(ask));
  } catch (e) {
    return { error: e.errors.map((x) => x.message).join("; ") };
  }
}

/**
 * Check what the tab kept. options: {relays: drand relays to ask (none: skip that
 * check), fetchImpl}. Returns {ok, complete, checks: [{name, status, detail}], at}.
 * ok is true only when no check failed and the essential ones (commitment, every deal)
 * passed; complete is false until the server seed is revealed.
 */
export async function checkKept(kept, options = {}) {
  const checks = [];
  const at = Date.now();
  if (!kept) return { ok: false, complete: false, checks: [fail("kept", "this tab kept nothing of this match")], at };

  for (const c of kept.conflicts ?? []) checks.push(fail("consistency", c));

  if (!kept.reveal) {
    checks.push(skip("commitment", "the server has not revealed its seed yet"));
    return { ok: false, complete: false, checks, at };
  }
  const seedHex = kept.reveal.server_seed;
  let serverSeed = null;
  try {
    serverSeed = fromHex(seedHex, "the revealed server seed");
    if (serverSeed.length !== 32) throw new Error("the revealed server seed is not 32 bytes");
  } catch (e) {
    checks.push(fail("commitment", e.message));
    return { ok: false, complete: true, checks, at };
  }

  // 1. The commitment, shown before this tab sent its seed.
  if (!kept.commitment) {
    checks.push(fail("commitment", "this tab was never shown a commitment"));
  } else {
    const hash = await sha256Hex(serverSeed);
    if (hash !== kept.commitment) {
      checks.push(fail("commitment", `SHA-256 of the revealed seed is ${hash}, but the commitment shown at the start was ${kept.commitment}`));
    } else if (kept.my_seed_sent_at !== null && kept.commitment_seen_at > kept.my_seed_sent_at) {
      checks.push(fail("commitment", "the commitment was shown only after this tab sent its seed"));
    } else {
      checks.push(pass("commitment", `SHA-256 of the revealed seed is the commitment ${kept.commitment.slice(0, 16)}…, shown before any seed was sent`));
    }
  }

  // 2. This seat's seed.
  const seats = kept.seat_seeds;
  if (!seats) {
    checks.push(fail("your seed", "this tab was never shown the seats' seeds"));
  } else if (kept.seat === null) {
    checks.push(skip("your seed", "you had no seat at this table"));
  } else if (kept.my_seed === null) {
    checks.push(skip("your seed", "this tab did not send the seed for your seat (another tab or device did)"));
  } else if (seats[kept.seat] === kept.my_seed) {
    checks.push(pass("your seed", `the deck used the seed this tab made, ${kept.my_seed}`));
  } else if (seats[kept.seat] === "") {
    checks.push(info("your seed", "your seed did not arrive before the window closed: the deals used none for your seat"));
  } else {
    checks.push(fail("your seed", `the table dealt from ${seats[kept.seat]} for your seat, but this tab sent ${kept.my_seed}`));
  }

  // 3. drand, or the fallback.
  let drandInput = null;
  if (kept.drand) {
    const d = kept.drand;
    const fromSignature = await sha256Hex(fromHex(d.signature));
    if (fromSignature !== d.randomness) {
      checks.push(fail("drand value", `drand's randomness must be SHA-256 of its signature: ${fromSignature}, not ${d.randomness}`));
    } else if (kept.drand_round !== null && d.round !== kept.drand_round) {
      checks.push(fail("drand value", `round ${kept.drand_round} was named, but the value of round ${d.round} was used`));
    } else {
      checks.push(pass("drand value", `round ${d.round}: randomness is SHA-256 of the signature`));
    }
    drandInput = { round: d.round, value: fromHex(d.randomness) };
    checks.push(await checkRelay(kept, options));
  } else if (kept.fallback) {
    checks.push(info("drand", `dealt without drand: ${kept.fallback.reason} (round ${kept.fallback.round} was named); the decks use round 0 and zeros`));
  } else {
    checks.push(fail("drand", "this tab was shown neither drand's value nor a fallback"));
  }

  // 4. Every deal: recompute the deck, map it, compare with what this seat was shown.
  const dealNumbers = Object.keys(kept.deals ?? {}).map(Number).sort((a, b) => a - b);
  if (!kept.pattern) {
    checks.push(fail("deals", "this tab kept no deal pattern for the ruleset"));
  } else if (seats && (kept.drand || kept.fallback)) {
    const seatSeeds = seats.map((s) => fromHex(s));
    for (const k of dealNumbers) {
      checks.push(await checkDeal(kept, kept.deals[String(k)], serverSeed, seatSeeds, drandInput));
    }
    if (dealNumbers.length === 0) checks.push(skip("deals", "no deal was dealt while this tab watched"));
  }

  const failed = checks.some((c) => c.status === "fail");
  // A match that ended before its first deal (a forfeit) has no deck to check.
  const dealsPassed = dealNumbers.length === 0 || checks.some((c) => c.name.startsWith("deal ") && c.status === "pass");
  const essential = checks.some((c) => c.name === "commitment" && c.status === "pass") && dealsPassed;
  return { ok: !failed && essential, complete: true, checks, at };
}

async function checkDeal(kept, d, serverSeed, seatSeeds, drandInput) {
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

async function checkRelay(kept, { relays = [], fetchImpl } = {}) {
  const d = kept.drand;
  const page = drandPage(kept.chain, d.round);
  if (!relays.length) return skip("drand relay", `no drand relay to ask: compare with ${page}`);
  const got = await fetchRound(relays, kept.chain, d.round, { fetchImpl });
  if (got.error) return skip("drand relay", `could not reach drand (${got.error}); compare with ${page}`);
  const b = got.beacon;
  if (b.round !== d.round || b.signature !== d.signature || b.randomness !== d.randomness) {
    return fail("drand relay", `${got.relay} serves round ${b.round} with randomness ${b.randomness}; the match was dealt from ${d.randomness}`);
  }
  if ((await sha256Hex(fromHex(b.signature))) !== b.randomness) {
    return fail("drand relay", `${got.relay} answered a randomness that is not SHA-256 of its signature`);
  }
  return pass("drand relay", `${got.relay} serves round ${d.round} with the same signature and randomness`);
}
