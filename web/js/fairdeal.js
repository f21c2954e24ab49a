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

import { deck, fromHex, sha256Hex } from "./deck.js";
import { has, t } from "./i18n.js";
import { LOG_CHECKS } from "./logbase.js";
import { checkLog } from "./logcheck.js";
import { fail, pass, seatCards, short, unchecked } from "./fairbase.js";
import { checkAbort, checkBounds, checkConsistency, checkDealer, checkFallback, checkForfeit, checkKey, checkRelay, checkRound, checkSeed, checkValue } from "./fairchecks.js";
import { checkCommitmentLive, checkCommitmentNew, checkHashes, checkReceiptPublished, checkSalts, checkYourSalts, checkYourSaltsLive } from "./fairsalts.js";

// The check's public names, wherever they are defined.
export { TOLERANCE, checkName, clockAhead, drandPage, firstDealer, hadAt, ruleRound, seatCards } from "./fairbase.js";
export { COMMITMENT_WAIT, askCommitment } from "./fairsalts.js";

/** What can already be known to have failed, during the match: a conflict, a bounds
 * violation, a commitment another match used (the verify API's answer when it was seen),
 * salts not promised, a receipt dishonoured at the window's close, a round already out
 * when named, a value that is not drand's, a false fallback, a salt of this seat's cards
 * missing, malformed or repeated, a hash served. ``now``: the tab's clock (a
 * naming the tab's own relays could not cover is judged by the clock once they had
 * clockMs to answer). Synchronous and cheap (BLS is checked once per value): the table
 * page (tablefair.js) runs it on every event and every quarter second. Returns {failed: [checks], at}. */
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
