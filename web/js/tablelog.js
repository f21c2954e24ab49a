// The table's log in words: a line for each event of the table's and the match's
// streams, said from the page's seat ("You play 7♠", "Ivan plays 7♠": each sentence
// twice, of you and of another), and the match's end. ``page`` (tablenames.js wordsOf)
// names the seats and the sides (seatName, sideName, sideKind, scoreText), knows the seat
// it is drawn for, and reads the score sheet's rows (sheetRows) and whether a belote is
// the second (isRebelote).

import { cardLabel, strainLabel } from "./cards.js";
import { t } from "./i18n.js";
import { fallbackReason } from "./names.js";
import { andList, claimLabel, contractWords, meldLabel } from "./words.js";

/** A scored deal in words, from its row of the score sheet (sheet.js). A side's verb
 * agrees with who it is (sideKind: "you", a pair of seats, one seat). */
function dealWords(row, page) {
  const side = (s) => page.sideName(s);
  const capot = row.capot !== null && row.capot !== undefined ? t("table.deal.capot", { side: side(row.capot) }) : "";
  let received = "";
  if (row.received) {
    const to = row.received.side;
    const params = { side: side(to), points: row.received.points };
    const kind = page.sideKind(to);
    received = kind === "you" ? t("table.deal.received_you", params) : kind === "side" ? t("table.deal.received_side", params) : t("table.deal.received_seat", params);
  }
  let what;
  if (row.outcome === "made" || row.outcome === "failed") {
    const kind = page.sideKind(row.takerSide);
    const contract = contractWords(row.strain);
    if (row.outcome === "made") {
      const params = { takers: page.sideName(row.takerSide, true), contract, capot };
      what = kind === "you" ? t("table.deal.made_you", params) : kind === "side" ? t("table.deal.made_side", params) : t("table.deal.made_seat", params);
    } else {
      const params = { takers: side(row.takerSide), contract, capot };
      what = kind === "you" ? t("table.deal.failed_you", params) : kind === "side" ? t("table.deal.failed_side", params) : t("table.deal.failed_seat", params);
    }
  } else if (row.outcome === "level") what = t("table.deal.level", { count: row.hanging });
  else if (row.outcome === "misere") what = t("table.deal.misere_won", { side: side(row.winner) });
  else what = row.hanging ? t("table.deal.misere_level_hanging", { points: row.hanging }) : t("table.deal.misere_level");
  const lost = row.lost ? t("table.deal.lost", { count: row.lost }) : "";
  return t("table.deal.line", { number: row.deal + 1, what, received, lost, awarded: page.scoreText(row.awarded), scores: page.scoreText(row.scores) });
}

/** The match's end when it was forfeited: who left, who wins. */
function forfeitText(page, leaver, winnerSide) {
  if (leaver === page.seat) return t("table.end.forfeit_by_you", { winner: page.sideName(winnerSide) });
  if (page.sideKind(winnerSide) === "you") return t("table.end.forfeit_you_win", { leaver: page.seatName(leaver) });
  return t("table.end.forfeit", { leaver: page.seatName(leaver), winner: page.sideName(winnerSide) });
}

export function endText(e, v, page) {
  if (e?.type === "MatchForfeited") return forfeitText(page, e.leaver, e.winner_side);
  if (e?.type === "MatchAborted") return t("table.end.aborted", { reason: e.reason });
  const scores = page.scoreText(e?.scores ?? v?.scores ?? [0, 0]);
  const winner = e?.winner;
  if (winner === null || winner === undefined) return t("table.end.draw", { scores });
  if (page.sideKind(winner) === "you") return t("table.end.you_win", { scores });
  return t("table.end.wins", { winner: page.sideName(winner), scores });
}

/** A line of the table's log for an event, in the game's words: "You play 7♠", "Bot 2
 * (easy) plays 7♠" (each sentence twice: said of you, said of another seat). */
export function describe(m, page) {
  const p = m.payload ?? {};
  const who = (s) => page.seatName(s, true);
  const me = (s) => s === page.seat;
  switch (m.event) {
    case "SeatTaken":
      return me(p.seat) ? t("table.log.sat_you", { seat: p.seat + 1 }) : t("table.log.sat", { who: who(p.seat), seat: p.seat + 1 });
    case "SeatLeft":
      if (p.forfeit) return me(p.seat) ? t("table.log.left_forfeit_you") : t("table.log.left_forfeit", { who: who(p.seat) });
      return me(p.seat) ? t("table.log.left_you") : t("table.log.left", { who: who(p.seat) });
    case "FairDealOpened":
      return t("table.log.fair_deal_opened");
    case "SeedWindowClosed":
      return p.missing?.length ? t("table.log.seeds_shown_missing", { count: p.missing.length, seats: p.missing.map((s) => s + 1).join(", ") }) : t("table.log.seeds_shown");
    case "DrandRoundNamed":
      return t("table.log.drand_named", { round: String(p.round) });
    case "DrandBeaconVerified":
      return t("table.log.drand_verified", { round: String(p.round) });
    case "DrandFallback":
      return t("table.log.drand_fallback", { reason: fallbackReason(p.reason) });
    case "DealStarted": {
      const params = { number: p.deal_number + 1, card: cardLabel(p.turned) };
      return me(p.dealer) ? t("table.log.deal_started_you", params) : t("table.log.deal_started", { ...params, who: who(p.dealer) });
    }
    case "CardsDealt":
      return p.seat === page.seat && m.visibility === `seat:${p.seat}` ? t("table.log.cards_dealt", { cards: p.cards.map(cardLabel).join(" ") }) : null;
    case "Passed":
      return me(p.seat) ? t("table.log.passed_you") : t("table.log.passed", { who: who(p.seat) });
    case "ContractTaken":
      return me(p.seat) ? t("table.log.took_you", { contract: strainLabel(p.strain) }) : t("table.log.took", { who: who(p.seat), contract: strainLabel(p.strain) });
    case "MisereStarted":
      return t("table.log.misere");
    case "DealAbandoned":
      return p.reason === "all_passed" ? t("table.log.redealt_all_passed", { number: p.deal_number + 1 }) : t("table.log.redealt_demanded", { number: p.deal_number + 1 });
    case "BeloteAnnounced": {
      const card = cardLabel(p.card);
      if (page.isRebelote(m)) return me(p.seat) ? t("table.log.rebelote_you", { card }) : t("table.log.rebelote", { who: who(p.seat), card });
      return me(p.seat) ? t("table.log.belote_you", { card }) : t("table.log.belote", { who: who(p.seat), card });
    }
    case "CardPlayed":
      return me(p.seat) ? t("table.log.played_you", { card: cardLabel(p.card) }) : t("table.log.played", { who: who(p.seat), card: cardLabel(p.card) });
    case "TrickTaken":
      return me(p.seat) ? t("table.log.trick_you", { count: p.points }) : t("table.log.trick", { who: who(p.seat), count: p.points });
    case "MeldDeclared":
      return me(p.seat) ? t("table.log.declared_you", { claim: claimLabel(p.claim) }) : t("table.log.declared", { who: who(p.seat), claim: claimLabel(p.claim) });
    case "MeldsShown":
      return me(p.seat) ? t("table.log.shown_you", { melds: andList(p.melds.map(meldLabel)) }) : t("table.log.shown", { who: who(p.seat), melds: andList(p.melds.map(meldLabel)) });
    case "TrumpSevenSwapped":
      return me(p.seat) ? t("table.log.swapped_you", { card: cardLabel(p.taken) }) : t("table.log.swapped", { who: who(p.seat), card: cardLabel(p.taken) });
    case "RedealDemanded":
      return me(p.seat) ? t("table.log.redeal_you") : t("table.log.redeal", { who: who(p.seat) });
    case "DealScored": {
      const row = page.sheetRows().find((r) => r.deal === p.deal_number && !r.abandoned);
      return row ? dealWords(row, page) : t("table.log.deal_scored", { number: p.deal_number + 1, awarded: page.scoreText(p.awarded), scores: page.scoreText(p.scores) });
    }
    case "MatchEnded": {
      const scores = page.scoreText(p.scores);
      if (p.winner === null) return t("table.end.draw", { scores });
      if (page.sideKind(p.winner) === "you") return t("table.log.you_won", { scores });
      return t("table.log.won", { winner: page.sideName(p.winner), scores });
    }
    case "MatchForfeited":
      return forfeitText(page, p.leaver, p.winner_side);
    case "MatchAborted":
      return t("table.end.aborted", { reason: p.reason });
    case "ServerSeedRevealed":
      return t("table.log.seed_revealed");
    case "TableClosed":
      return t("table.log.closed");
    default:
      return null;
  }
}
