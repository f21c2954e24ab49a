// The score sheet (seed 002's "таблица"): one row a deal, folded from the match's public
// events (the ones the table's WebSocket shows every seat, and the record's match stream):
// the contract and its taker, each side's card points, melds and belote, the deal's
// points and the running totals, a bait marked БТ and hanging points marked vs(xx), and
// where hanging points went on the next deal.
//
// The deal's points, the totals and the hanging points are the game core's own
// (DealScored: awarded, scores, hanging): the sheet never computes a score. The split of
// a side's total into card points (TrickTaken), melds (MeldsShown, valued by the
// ruleset's table) and belote (BeloteAnnounced) is recomputed here with the ruleset's
// scoring rules (the gateway's /v1/rulesets "scoring"), and checked against the core's
// totals: a row whose split does not add up says so (``consistent: false``) rather than
// show a wrong breakdown quietly.
//
// Its words are the catalogue's (sheet.*): БТ and vs(xx) are seed 002's own marks, which
// the English sheet keeps; Bulgarian and French players write their own ("вътре",
// "dedans", hanging points).

import { strainLabel } from "./cards.js";
import { t } from "./i18n.js";
import { h } from "./ui.js";

const NO_TRUMPS = "no_trumps";
export const MISERE = "misere";
// A header cell's scope (an HTML keyword, not a word).
const COLUMN = "col";

/** A side: 0 (seats 0 and 2) or 1 (seats 1 and 3); at two players the seat itself. */
export function sideOf(seat) {
  return seat % 2;
}

/** A meld's value in the ruleset's table: a four (carré) by rank, a sequence by length. */
export function meldValue(meld, scoring) {
  if (!scoring.fours || !scoring.sequences) return 0;
  if (meld.kind === "four") return scoring.fours[meld.cards[0][0]] ?? 0;
  const n = meld.cards.length;
  return scoring.sequences[Math.min(n, 5) - 3] ?? 0;
}

/** Belote points per side from the deal's announcements (belot.legal belote_points):
 * one bonus per seat and trump suit; "king_first" (french) only when both the king and
 * the queen were announced. */
export function belotePoints(calls, ruleset) {
  const out = [0, 0];
  const pairs = new Map();
  for (const [seat, card] of calls) {
    const key = `${seat}${card[1]}`;
    if (!pairs.has(key)) pairs.set(key, { seat, ranks: new Set() });
    pairs.get(key).ranks.add(card[0]);
  }
  for (const { seat, ranks } of pairs.values()) {
    if (ruleset.belote_announce === "king_first" && ![..."KQ"].every((rank) => ranks.has(rank))) continue;
    out[sideOf(seat)] += ruleset.belote_points;
  }
  return out;
}

function newDeal(p) {
  return { deal: p.deal_number, dealer: p.dealer, strain: null, taker: null, cards: [0, 0], tricks: [0, 0], seatTricks: new Map(), shown: [], beloteCalls: [] };
}

/**
 * The sheet of a match: ``events`` are ``{type, payload}`` in order (the match stream);
 * ``ruleset`` is the gateway's /v1/rulesets entry (with ``scoring``). Returns
 * ``{rows, hanging}``: ``hanging`` the points waiting for the next deal's winner now.
 * A row: deal, dealer, strain ("misere" when every seat passed), taker, takerSide, the
 * per-side split (cards, melds, belote, capot: the side that took every trick), the
 * core's outcome, totals, awarded, scores and hanging (after the deal), hangingBefore,
 * winner, and the notation: ``bait`` (the takers' side, БТ), ``hangs`` (the vs(xx)
 * points, on the takers' side), ``received`` ({side, points}: earlier hanging points
 * this deal's winner took), ``lost`` (earlier hanging points dropped: gambler's never
 * accumulate); ``abandoned`` (the reason) for a deal redealt unplayed.
 */
export function scoreSheet(events, ruleset) {
  const scoring = ruleset.scoring;
  const rows = [];
  let cur = null;
  let hanging = 0;
  for (const e of events) {
    const p = e.payload ?? {};
    switch (e.type) {
      case "DealStarted":
        cur = newDeal(p);
        break;
      case "ContractTaken":
        if (cur) Object.assign(cur, { strain: p.strain, taker: p.seat });
        break;
      case "MisereStarted":
        if (cur) cur.strain = MISERE;
        break;
      case "TrickTaken":
        if (!cur) break;
        cur.cards[sideOf(p.seat)] += p.points;
        cur.tricks[sideOf(p.seat)] += 1;
        cur.seatTricks.set(p.seat, (cur.seatTricks.get(p.seat) ?? 0) + 1);
        break;
      case "MeldsShown":
        if (cur) cur.shown.push([p.seat, p.melds]);
        break;
      case "BeloteAnnounced":
        if (cur) cur.beloteCalls.push([p.seat, p.card]);
        break;
      case "DealAbandoned":
        rows.push({ deal: p.deal_number, dealer: cur?.dealer ?? null, strain: null, taker: null, takerSide: null, abandoned: p.reason, hangingBefore: hanging, hanging, scores: rows.at(-1)?.scores ?? [0, 0] });
        cur = null;
        break;
      case "DealScored":
        if (cur) rows.push(scoredRow(cur, p, hanging, ruleset, scoring));
        hanging = p.hanging;
        cur = null;
        break;
      default:
        break;
    }
  }
  return { rows, hanging };
}

function scoredRow(cur, p, before, ruleset, scoring) {
  const misere = cur.strain === MISERE || cur.taker === null;
  const takerSide = misere ? null : sideOf(cur.taker);
  const melds = [0, 0];
  for (const [seat, shown] of cur.shown) {
    if (scoring.melds_need_a_trick && !cur.seatTricks.get(seat)) continue;
    for (const m of shown) melds[sideOf(seat)] += meldValue(m, scoring);
  }
  const belote = misere ? [0, 0] : belotePoints(cur.beloteCalls, ruleset);
  const capot = [0, 1].find((s) => cur.tricks[s] === scoring.tricks) ?? null;
  const mult = cur.strain === NO_TRUMPS ? scoring.no_trumps_multiplier : 1;
  // The totals the core judged the contract on (belot.scoring score_deal), from the split.
  const expected = misere
    ? cur.cards
    : [0, 1].map((s) => mult * (cur.cards[s] + melds[s] + (capot === s ? scoring.capot_bonus : 0)) + (scoring.belote_in_contract ? belote[s] : 0));
  const consistent = expected[0] === p.totals[0] && expected[1] === p.totals[1];
  const winner = p.winner ?? null;
  const row = {
    deal: cur.deal,
    dealer: cur.dealer,
    strain: misere ? MISERE : cur.strain,
    taker: misere ? null : cur.taker,
    takerSide,
    cards: cur.cards,
    tricks: cur.tricks,
    melds,
    belote,
    capot,
    multiplier: mult,
    outcome: p.outcome,
    totals: p.totals,
    awarded: p.awarded,
    scores: p.scores,
    hanging: p.hanging,
    hangingBefore: before,
    winner,
    consistent,
    bait: p.outcome === "failed" ? takerSide : null,
    hangs: p.hanging > 0 && winner === null ? { side: takerSide, points: p.hanging } : null,
    received: before > 0 && winner !== null ? { side: winner, points: before } : null,
    lost: before > 0 && winner === null && !scoring.hanging_accumulates ? before : 0,
  };
  return row;
}

/** What a side's "deal" cell says: the points it scored, БТ for the takers of a failed
 * contract (with the belote they keep, if any), vs(xx) where points hang. */
export function dealCell(row, side) {
  if (row.abandoned) return "—";
  const pts = row.awarded[side];
  if (row.bait === side) return pts ? t("sheet.bait_points", { points: pts }) : t("sheet.bait");
  if (row.hangs && (row.hangs.side === side || row.hangs.side === null)) {
    return pts ? t("sheet.points_hanging", { own: pts, points: row.hangs.points }) : t("sheet.hanging", { points: row.hangs.points });
  }
  return String(pts);
}

// ---------------------------------------------------------------- drawing

/** The sheet as a table, one row a deal; every cell holds both sides, ``first`` (the
 * viewer's side) on the upper line. ``names``: the two sides' names in that order;
 * ``seatName(seat)``: a taker's name. Each row carries the core's numbers (data-awarded,
 * data-scores: side 0's first) for anyone checking it against the record. */
export function sheetTable(rows, { first = 0, names = [t("sheet.us"), t("sheet.them")], seatName = (s) => t("sheet.seat", { seat: s }) } = {}) {
  const sides = [first, 1 - first];
  const two = (value, { cls = "", extra = () => null } = {}) =>
    h("td", { class: cls }, sides.map((s) => h("span", { class: `line${s === first ? " ours" : " theirs"}`, dataset: { side: s } }, value(s), extra(s))));
  const dash = (x) => (x ? String(x) : "—");
  const body = rows.map((row) => {
    const data = { deal: row.deal, outcome: row.outcome ?? "abandoned", scores: row.scores.join(","), hanging: row.hanging };
    if (row.abandoned) {
      return h(
        "tr",
        { class: "abandoned", dataset: data },
        h("td", { class: "no" }, String(row.deal + 1)),
        h("td", { class: "contract" }, t("game.redeal"), h("small", {}, row.abandoned === "all_passed" ? t("sheet.all_passed") : t("sheet.redeal_demanded"))),
        h("td", { colspan: 5 }, row.hanging ? t("sheet.hanging_waits", { points: row.hanging }) : ""),
        two((s) => String(row.scores[s]), { cls: "total" }),
      );
    }
    data.awarded = row.awarded.join(",");
    data.consistent = row.consistent ? "true" : "false";
    const contract = row.strain === MISERE ? t("game.misere") : strainLabel(row.strain);
    const tag = (s) => [
      row.capot === s ? h("small", { class: "tag capot" }, t("game.capot")) : null,
      row.received?.side === s ? h("small", { class: "tag received", title: t("sheet.received_title", { points: row.received.points }) }, t("sheet.received", { points: row.received.points })) : null,
    ];
    return h(
      "tr",
      { class: `${row.bait !== null ? "bait" : ""}${row.hangs ? " hangs" : ""}`.trim() || null, dataset: data, title: row.consistent ? null : t("sheet.inconsistent") },
      h("td", { class: "no" }, String(row.deal + 1)),
      h("td", { class: "contract" }, contract, h("small", {}, row.taker === null ? t("sheet.no_taker") : seatName(row.taker)), row.lost ? h("small", { class: "tag" }, t("sheet.lost", { points: row.lost })) : null),
      h("td", { class: "side-names" }, sides.map((s, i) => h("span", { class: "line" }, names[i], row.takerSide === s ? " •" : ""))),
      two((s) => String(row.cards[s]), { cls: "cards" }),
      two((s) => dash(row.melds[s]), { cls: "melds" }),
      two((s) => dash(row.belote[s]), { cls: "belote" }),
      two((s) => dealCell(row, s), { cls: "deal-pts", extra: tag }),
      two((s) => String(row.scores[s]), { cls: "total" }),
    );
  });
  const columns = [
    ["#", t("sheet.col.deal")],
    [t("sheet.col.contract"), t("sheet.col.contract_title")],
    ["", t("sheet.col.sides")],
    [t("sheet.col.cards"), t("sheet.col.cards_title")],
    [t("sheet.col.melds"), t("sheet.col.melds_title")],
    [t("sheet.col.belote"), t("game.belote")],
    [t("sheet.col.deal_points"), t("sheet.col.deal_points_title")],
    [t("sheet.col.total"), t("sheet.col.total_title")],
  ];
  return h(
    "section",
    { class: "sheet", id: "sheet", dataset: { region: "sheet" }, "aria-label": t("sheet.label") },
    h("h2", {}, t("sheet.title")),
    rows.length
      ? h(
          "table",
          { class: "sheet-table", id: "sheet-table" },
          h("thead", {}, h("tr", {}, columns.map(([x, title]) => h("th", { scope: COLUMN, title }, x)))),
          h("tbody", {}, body),
        )
      : h("p", { class: "dim" }, t("sheet.empty")),
    h("p", { class: "dim legend" }, t("sheet.legend")),
  );
}
