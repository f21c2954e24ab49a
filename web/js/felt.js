// The felt: one drawing of a card table, for the player, the spectator and the replay. It
// is drawn from a scene (what to show, already in words) and knows nothing of where the
// scene came from: the table page makes one from the seat's view (tablefelt.js), the replay
// from the record's steps (replay.js).
//
// The felt is a grid, so nothing on it can lie on anything else: the bar (score, contract,
// the fair deal's seal, the switches), the seat across, the seats left and right of the
// trick, this seat, and the player's edge (the status, the message, the bids, the hand).
// The page gives the felt the screen's largest share (css/table.css).
//
// scene = {
//   id, players, deal (the deal's number, for motion.js), label (its accessible name),
//   bar: [elements], corner: [elements] (the felt's own buttons: last trick),
//   info: [elements] (the deal's number, the turned card),
//   seats: [{seat, where (bottom, left, top, right), name, chip: {text, ours}, dealer,
//            due, line, count (its cards, in words), backs (a hidden hand's size), hand
//            (cards face up: the replay) and strain (their order), me,
//            badges: [{text, kind}], button (an element: sit here), label}],
//   trick: {cards: [[seat, card]], old, winner, caption, final: {title, score}},
//   edge: [elements],
// }

import { sortHand } from "./cards.js";
import { t } from "./i18n.js";
import { cardBacks, cardFace, h } from "./ui.js";

/** Where a seat sits when ``bottom`` is at the bottom: partner across, at two players the
 * opponent across. */
export function placeOf(seat, bottom, players) {
  const turn = (seat - bottom + players) % players;
  return ["bottom", "left", "top", "right"][players === 2 ? turn * 2 : turn];
}

function seatBox(s) {
  const lines = [
    h("div", { class: "seat-name", title: s.name }, h("span", { class: "who" }, s.name), s.dealer ? h("span", { class: "dealer", title: t("table.seat.dealer_title"), "aria-label": t("table.seat.dealer") }, t("table.seat.dealer_mark")) : null),
    h("div", { class: "seat-side" }, s.chip ? h("span", { class: `side-chip ${s.chip.ours ? "ours" : "theirs"}` }, s.chip.text) : null, s.count ? h("span", { class: "dim" }, ` · ${s.count}`) : null),
    h("div", { class: `seat-did${s.due ? " due" : ""}` }, s.line ?? "\u00a0"),
  ];
  if (s.badges?.length) lines.push(h("div", { class: "seat-badges" }, s.badges.map((b) => h("span", { class: `seat-badge ${b.kind}`, dataset: { badge: b.kind } }, b.text))));
  if (s.backs) lines.push(h("div", { class: "seat-backs", "aria-hidden": "true" }, cardBacks(s.backs)));
  if (s.hand) lines.push(h("div", { class: "mini-hand" }, sortHand(s.hand, s.strain).map((c) => cardFace(c, { small: true }))));
  if (s.button) lines.push(s.button);
  const classes = ["seat-box", s.where, s.due ? "due-now" : "", s.me ? "me" : "", s.dealer ? "dealer-seat" : "", ...(s.badges ?? []).map((b) => `has-${b.kind}`)];
  return h("div", { class: classes.filter(Boolean).join(" "), dataset: { seat: s.seat, side: s.seat % 2 }, "aria-label": s.label ?? s.name }, lines);
}

function trickArea(trick, where, id) {
  const area = h("div", { class: "trick", id: id ? "trick" : null, role: "group", "aria-label": t("table.trick_label") });
  if (trick.final) {
    area.append(h("div", { class: "final" }, h("div", {}, trick.final.title), h("div", { class: "final-score" }, trick.final.score)));
    return area;
  }
  for (const [seat, card] of trick.cards ?? []) {
    area.append(h("div", { class: `played ${where(seat)}${trick.old ? " old" : ""}${seat === trick.winner ? " winner" : ""}`, dataset: { seat } }, cardFace(card)));
  }
  area.append(h("div", { class: "trick-caption", id: id ? "trick-caption" : null }, trick.caption ?? ""));
  return area;
}

/** The felt drawn from ``scene`` (see the head of this file). */
export function feltView(scene) {
  const where = (seat) => placeOf(seat, scene.bottom ?? 0, scene.players);
  return h(
    "section",
    { class: `felt play players-${scene.players}`, id: scene.id ?? null, dataset: scene.id ? { region: "felt", deal: scene.deal ?? "" } : { deal: scene.deal ?? "" }, "aria-label": scene.label ?? t("table.board_label") },
    h("div", { class: "felt-bar" }, scene.bar ?? []),
    h("div", { class: "felt-info" }, scene.info ?? []),
    h("div", { class: "felt-corner" }, scene.corner ?? []),
    scene.seats.map((s) => seatBox({ ...s, where: where(s.seat) })),
    trickArea(scene.trick ?? {}, where, scene.id),
    h("div", { class: "felt-edge" }, scene.edge ?? []),
  );
}
