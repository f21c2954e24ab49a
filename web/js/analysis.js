// The replay's analysis (docs/analysis.md): the verify API's double-dummy analysis of the
// match drawn as players read it. Each seat's accuracy and points given away; for a deal,
// a chart of its margin card by card (side 0's card points less side 1's at the deal's
// end if both sides played perfectly from there, like lichess's advantage chart), the
// cards that gave points away with the best ones, and what each strain would have taken;
// and beside each card of the replay's steps, the best card and the points lost.
// Pure views: the analysis in, elements out.

import { cardLabel } from "./cards.js";
import { formatNumber, orList, t } from "./i18n.js";
import { h } from "./ui.js";
import { contractWords } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

/** The analysis of deal ``number``, or null. */
export function dealAnalysis(analysis, number) {
  return analysis?.deals?.find((d) => d.deal === number) ?? null;
}

/** What the step of the ``k``-th card of a deal says of it: "best card: J♥" / "lost 12
 * points: the best was J♥ or 9♥". */
export function cardVerdict(deal, k) {
  const c = deal?.cards?.[k];
  if (!c) return "";
  const best = orList(c.best.map(cardLabel));
  const others = c.best.filter((b) => b !== c.card);
  if (c.loss === 0) return others.length ? t("analysis.card_best_of", { best: orList(others.map(cardLabel)) }) : t("analysis.card_best");
  return t("analysis.card_lost", { count: c.loss, best });
}

/** Each seat's figures over the match: cards, best cards, real choices met, points lost. */
export function seatsTable(analysis, seatName) {
  return h(
    "table",
    { class: "analysis-seats", id: "analysis-seats" },
    h("thead", {}, h("tr", {}, [t("analysis.col_seat"), t("analysis.col_accuracy"), t("analysis.col_best"), t("analysis.col_lost")].map((x) => h("th", { scope: "col" }, x)))),
    h(
      "tbody",
      {},
      analysis.seats.map((s) =>
        h(
          "tr",
          { dataset: { seat: s.seat, lost: s.lost, accuracy: s.accuracy ?? "" } },
          h("td", {}, seatName(s.seat)),
          h("td", { class: "num" }, s.accuracy === null ? "—" : t("analysis.percent", { value: formatNumber(Math.round(100 * s.accuracy)) })),
          h("td", { class: "num" }, t("analysis.best_of", { best: s.best, cards: s.cards })),
          h("td", { class: "num" }, String(s.lost)),
        ),
      ),
    ),
  );
}

/** The margin card by card, as a line over the deal (0 in the middle). */
export function marginChart(deal) {
  const margins = [deal.start, ...deal.cards.map((c) => c.margin)];
  const W = 320;
  const H = 96;
  const top = Math.max(10, ...margins.map(Math.abs));
  const x = (i) => (i * W) / Math.max(1, margins.length - 1);
  const y = (m) => H / 2 - (m / top) * (H / 2 - 4);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "margin-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("analysis.chart_label", { start: String(deal.start), end: String(margins.at(-1)) }));
  const line = (tag, attrs) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.append(el);
    return el;
  };
  line("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "zero" });
  line("polyline", { points: margins.map((m, i) => `${x(i).toFixed(1)},${y(m).toFixed(1)}`).join(" "), class: "margin" });
  deal.cards.forEach((c, i) => {
    if (!c.loss) return;
    const dot = line("circle", { cx: x(i + 1).toFixed(1), cy: y(c.margin).toFixed(1), r: 3, class: "loss" });
    const title = document.createElementNS(SVG, "title");
    title.textContent = t("analysis.dot", { card: cardLabel(c.card), count: c.loss });
    dot.append(title);
  });
  return svg;
}

/** The deal's analysis: the chart, the cards that gave points away, the strains' table. */
export function dealSection(deal, seatName, sideName) {
  if (!deal) return h("section", { class: "analysis-deal", id: "analysis-deal" }, h("p", { class: "dim" }, t("analysis.no_deal")));
  const lost = deal.cards.filter((c) => c.loss > 0);
  return h(
    "section",
    { class: "analysis-deal", id: "analysis-deal", dataset: { deal: deal.deal } },
    h("h3", {}, t("analysis.deal_title")),
    h("p", { class: "dim" }, t("analysis.chart_about", { side0: sideName(0), side1: sideName(1) })),
    marginChart(deal),
    lost.length
      ? h(
          "ol",
          { class: "analysis-lost", id: "analysis-lost" },
          lost.map((c) => h("li", { dataset: { card: c.card, loss: c.loss } }, t("analysis.lost_line", { trick: c.trick + 1, who: seatName(c.seat), card: cardLabel(c.card), count: c.loss, best: orList(c.best.map(cardLabel)) }))),
        )
      : h("p", {}, t("analysis.no_loss")),
    deal.contracts.length
      ? h(
          "table",
          { class: "analysis-contracts", id: "analysis-contracts" },
          h("caption", {}, t("analysis.contracts_caption")),
          h("thead", {}, h("tr", {}, [t("analysis.col_strain"), sideName(0), sideName(1)].map((x) => h("th", { scope: "col" }, x)))),
          h("tbody", {}, deal.contracts.map((c) => h("tr", { dataset: { strain: c.strain } }, h("td", {}, contractWords(c.strain)), h("td", { class: "num" }, String(c.points[0])), h("td", { class: "num" }, String(c.points[1]))))),
        )
      : null,
  );
}
