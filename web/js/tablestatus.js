// What the felt says of the table, drawn from the page's state (tablestate.js): its bar
// (the ruleset, the score, hanging points, the contract, the fair deal's seal and the
// sound's switch), the status line under the seats with the turn's clock, and the links
// under the hand (leave, the replay, the sheet, the keys, the deck's colours, the
// connection). Functions of the state; what a button does is the page's (``page``, see
// tablefelt.js).

import { strainLabel } from "./cards.js";
import { sealSwitch } from "./dealpanel.js";
import { t } from "./i18n.js";
import { tournamentLink } from "./invite.js";
import { rulesetName, upFirst } from "./names.js";
import { muteSwitch } from "./sound.js";
import { endText } from "./tablelog.js";
import { seatName, sideName, wordsOf } from "./tablenames.js";
import { clockUntil, openUntil, playersOf, seatOf } from "./tablestate.js";
import { h } from "./ui.js";

/** The felt's bar: the ruleset and target, the score from this seat's side, hanging
 * points, the contract and its taker; the seal (``d.seal``, the panel ``d.open``) and the
 * sound's switch. */
export function scoreBar(s, d, page) {
  const v = s.view;
  const table = s.reply.table;
  const me = seatOf(s);
  const mySide = (me ?? 0) % 2;
  const scores = s.ending?.scores ?? v?.scores ?? [0, 0];
  const [ours, theirs] = playersOf(s) === 2 ? [sideName(s, mySide, true), sideName(s, 1 - mySide)] : me === null ? [t("table.side.ns"), t("table.side.ew")] : [upFirst(t("table.side.us")), t("table.side.them")];
  const bits = [
    tournamentLink(table),
    h("span", { class: "ruleset" }, `${rulesetName(table.ruleset)} · ${table.target}`),
    h("span", { class: "score", id: "score" }, h("b", {}, `${ours} `), String(scores[mySide]), " — ", String(scores[1 - mySide]), h("b", {}, ` ${theirs}`)),
  ];
  if (v?.hanging) bits.push(h("span", { class: "hanging", id: "hanging", title: t("table.hanging_title") }, t("table.hanging", { points: v.hanging })));
  if (v && v.strain && v.phase !== "deck" && v.phase !== "over") {
    bits.push(h("span", { class: "contract", id: "contract" }, `${strainLabel(v.strain)}${v.taker !== null ? ` · ${seatName(s, v.taker, true)}` : ""}`));
  }
  const switches = h("span", { class: "switches" }, sealSwitch(d.seal, d.open, () => page.toggleFair()), muteSwitch(s.muted, (muted) => page.mute(muted)));
  return h("div", { class: "score-bar" }, h("span", { class: "score-bits" }, bits), switches);
}

/** The status line: what the table waits for (seats, the seeds, whose turn), or how the
 * match ended; and beside it the clock, while one runs. */
export function statusLine(s, d) {
  const r = s.reply;
  const v = s.view;
  let text;
  if (r.status === "open") {
    const free = r.table.seats.filter((x) => x.kind === "human" && !x.player).length;
    // A "play now" table: its bots' seats are open to players until its clock runs out.
    text = free || !openUntil(s) ? t("table.status.waiting", { count: free }) : t("table.status.bots_open");
  } else if (s.ending || r.status === "finished" || r.status === "closed" || v?.phase === "over") {
    text = endText(s.ending, v, wordsOf(s, d.rulesets));
  } else if (!v || v.phase === "deck") {
    text = d.kept?.seat_seeds ? t("table.status.dealing") : t("table.status.commitment");
  } else if (d.myTurn) {
    text = v.phase === "bidding" ? t("table.status.your_bid") : t("table.status.your_play");
  } else if (v.turn !== null && v.turn !== undefined) {
    const bidding = v.phase === "bidding";
    if (v.turn === seatOf(s)) text = bidding ? t("table.status.you_to_bid") : t("table.status.you_to_play");
    else text = bidding ? t("table.status.to_bid", { name: seatName(s, v.turn, true) }) : t("table.status.to_play", { name: seatName(s, v.turn, true) });
  } else {
    text = "";
  }
  // The deadline, not the status ("dealing" while the seeds come, then "playing"), is
  // what says a human seat is on the clock.
  const until = clockUntil(s);
  return h("div", { class: "status-line" }, h("span", { id: "status" }, text), until ? h("span", { id: "timer", class: "timer" }, timerText(until)) : null);
}

/** The turn timer: the table service's deadline on its own clock, the wall clock (the
 * tab's clock, clock.js, is for what the fair-deal check keeps; in a player's browser the
 * two are the same). The page sets it again with its clock, between drawings. */
export function timerText(deadline) {
  if (!deadline) return "";
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return t("table.timer", { seconds: left });
}

/** The links under the hand: leave (while seated at a match not over), the replay (once
 * it is), the score sheet, the keys' help, the deck's colours (one switch kept across
 * drawings), the connection's state. */
export function links(s, page) {
  const r = s.reply;
  return h(
    "div",
    { class: "table-links" },
    seatOf(s) !== null && r.status !== "closed" && r.status !== "finished" ? h("button", { type: "button", class: "link", id: "leave", onclick: () => page.leave() }, t("table.leave")) : null,
    s.matchId && (r.status === "finished" || r.status === "closed") ? h("a", { href: `#/replay/${encodeURIComponent(s.matchId)}`, id: "replay-link" }, t("table.replay_link")) : null,
    h("button", { type: "button", class: "link sheet-link", id: "sheet-link", onclick: () => document.getElementById("sheet")?.scrollIntoView() }, t("table.sheet_link")),
    h("button", { type: "button", class: "link", id: "keys-help", onclick: () => page.keysHelp() }, t("table.keys")),
    page.deckSwitch(),
    h("span", { class: "dim connection" }, t("table.connection", { state: s.connection ?? t("table.connecting") })),
  );
}
