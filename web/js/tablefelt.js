// The table page's felt: the scene felt.js draws, made from the page's state
// (tablestate.js) and the seat it is drawn for: the bar and the deal's corner, each seat
// (its name, side, the dealer's mark, what it did last or that it is due, its hidden
// hand's backs, its presence), the trick (being played, just taken and held a moment, or
// the last one, asked for or dimmed between tricks, or the final score), and the player's
// edge (the status, the message's slot and the felt's word, the bids or the invitation or
// the seat taken back, the hand, the links: tablestatus.js, tablehand.js).
//
// Functions of the state: they change nothing. What a button does, and the few elements
// kept across drawings, are the page's (``page``, TablePageHooks below); what one drawing
// reads beside the state is worked out once by the page (``d``, Drawing below).

import { cardLabel, strainLabel } from "./cards.js";
import { feltView } from "./felt.js";
import { t } from "./i18n.js";
import { upFirst } from "./names.js";
import { presenceText, seatPresence } from "./presence.js";
import { actions, hand, resumeRow } from "./tablehand.js";
import { scoreText, seatName } from "./tablenames.js";
import { heldTrick, playersOf, saidNow, seatOf } from "./tablestate.js";
import { links, scoreBar, statusLine } from "./tablestatus.js";
import { cardFace, h } from "./ui.js";
import { claimLabel, meldLabel } from "./words.js";

/**
 * What the views ask of the page (table.js): what a button does, and the elements it
 * keeps across drawings.
 * @typedef {object} TablePageHooks
 * @property {(verb: string, body: object, doing: string) => void} act a move; ``doing`` names it in a refusal
 * @property {(seat: number) => void} sit
 * @property {() => void} leave
 * @property {() => void} resume take the seat back from the bot playing it
 * @property {() => void} toggleLast
 * @property {() => void} toggleFair
 * @property {() => void} keysHelp
 * @property {(muted: boolean) => void} mute
 * @property {(announce: boolean) => void} chooseBelote
 * @property {() => Element} deckSwitch the deck's colours' switch, one kept across drawings
 * @property {() => Element} inviteBox the invitation, one kept across drawings: its "Copied" stays
 */

/**
 * What one drawing reads beside the state, worked out once by the page.
 * @typedef {object} Drawing
 * @property {any} kept the kept record of the match, or null
 * @property {boolean} myTurn it is this seat's turn, and it has moves (tablestate.js isMyTurn)
 * @property {string} checkStatus the in-tab check's: running, or dealpanel.js statusOf
 * @property {string} seal the fair deal's seal (dealpanel.js sealState)
 * @property {boolean} open the fair deal's panel is open
 * @property {any} rulesets the rulesets the app was told (the score sheet's)
 */

/** The felt's scene (felt.js) from the seat's view. */
export function feltScene(s, d, page) {
  const r = s.reply;
  const v = s.view;
  const me = seatOf(s);
  const legal = d.myTurn ? v.legal : [];
  return feltView({
    id: "felt",
    players: playersOf(s),
    bottom: me ?? 0,
    deal: v && v.phase !== "over" ? v.deal_number : "",
    bar: scoreBar(s, d, page),
    info: feltInfo(s),
    corner: [lastTrickButton(s, page)],
    seats: r.table.seats.map((x) => seatScene(s, x, page)),
    trick: trickScene(s, d.myTurn),
    edge: [
      statusLine(s, d),
      h("div", { class: "edge-row" }, h("div", { class: "message-slot", id: "message-slot", "data-own-children": true }), h("div", { class: "said", id: "said", "aria-hidden": "true" }, saidNow(s))),
      r.status === "open" && me !== null && r.table.seats.some((x) => (x.kind === "human" && !x.player) || x.open) ? page.inviteBox() : resumeRow(s, page) ?? actions(s, legal, page),
      hand(s, legal, page),
      links(s, page),
    ],
  });
}

/** The felt's corner: the deal, the turned card (the bottom card in gambler). */
function feltInfo(s) {
  const v = s.view;
  const bits = [];
  if (v && v.phase !== "deck" && v.phase !== "over") {
    bits.push(h("div", { class: "deal-no" }, t("table.deal_no", { number: v.deal_number + 1 })));
    // The turned card: on the table while bidding; at two it stays there (gambler).
    if (v.turned && (v.phase === "bidding" || playersOf(s) === 2)) bits.push(h("div", { class: "turned" }, cardFace(v.turned, { small: true, title: t("table.turned_title", { card: cardLabel(v.turned) }) }), h("span", {}, ` ${t("table.turned")}`)));
    if (v.bottom) bits.push(h("div", { class: "turned" }, cardFace(v.bottom, { small: true, title: t("table.bottom_title", { card: cardLabel(v.bottom) }) }), h("span", {}, ` ${t("table.bottom")}`)));
  }
  return bits;
}

/** A seat on the felt (``x``: the reply's seat): its name, its side, the dealer's mark,
 * what it did last or that it is due, its hidden hand's backs, its presence, and "sit
 * here" for a spectator at a free seat. */
function seatScene(s, x, page) {
  const v = s.view;
  const me = seatOf(s);
  const isMe = x.seat === me;
  const n = playersOf(s);
  const mySide = me === null ? null : me % 2;
  const side = n === 2 ? (isMe ? t("table.seat.you") : t("table.chip.opponent")) : mySide === null ? (x.seat % 2 === 0 ? t("table.side.ns") : t("table.side.ew")) : isMe ? t("table.side.us") : x.seat % 2 === mySide ? t("table.chip.partner") : t("table.side.them");
  const ours = n === 2 ? isMe : mySide === null ? x.seat % 2 === 0 : x.seat % 2 === mySide;
  const name = isMe ? (x.name ? t("table.seat.you_named", { name: x.name }) : upFirst(t("table.seat.you"))) : x.kind === "bot" || x.player ? seatName(s, x.seat, true) : t("table.seat.free");
  const dealer = !!v && v.dealer === x.seat && v.phase !== "deck" && v.phase !== "over";
  const due = !!v && v.turn === x.seat && v.phase !== "over";
  const cards = v?.hand_sizes?.[x.seat];
  // One line says what the seat did last: its call, its meld, its belote.
  let did = null;
  const call = v?.calls?.filter(([seat]) => seat === x.seat).map(([, strain]) => strainLabel(strain)).pop();
  if (call) did = call;
  for (const [seat, claim] of v?.meld_claims ?? []) if (seat === x.seat) did = claimLabel(claim);
  for (const [seat, melds] of v?.melds_shown ?? []) if (seat === x.seat) did = t("table.did.shows", { melds: melds.map(meldLabel).join(", ") });
  const belotes = (v?.belote_calls ?? []).filter(([seat]) => seat === x.seat);
  if (belotes.length) did = belotes.length > 1 ? t("table.did.rebelote") : t("table.did.belote");
  const turnWord = v?.phase === "bidding" ? t("table.seat.to_bid") : t("table.seat.to_play");
  const sit = s.reply.status === "open" && me === null && x.kind === "human" && !x.player;
  const seatBadges = badges(s, x);
  return {
    seat: x.seat,
    me: isMe,
    name,
    chip: { text: side, ours },
    dealer,
    due,
    line: due ? `▶ ${isMe ? t("table.seat.your_turn") : turnWord}` : did,
    count: cards && !isMe ? t("table.seat.cards", { count: cards }) : null,
    backs: cards && !isMe ? cards : 0,
    badges: seatBadges,
    button: sit ? h("button", { type: "button", class: "sit", dataset: { seat: x.seat }, onclick: () => page.sit(x.seat) }, t("table.sit")) : null,
    label: [name, side, dealer ? t("table.seat.dealer") : null, due ? turnWord : null, ...seatBadges.map((b) => b.text)].filter((w) => w !== null).join(", "),
  };
}

/** A seat's presence on the felt (presence.js's words): a bot playing it, its player
 * disconnected (both may hold: the bot plays for one who is gone), back a moment after
 * a return, or the turns the clock played for one who is there. */
function badges(s, x) {
  const line = s.presence.find((p) => p.seat === x.seat);
  if (!line?.human) return [];
  // One's own seat: only that a bot plays it (the note under it offers it back).
  if (x.seat === seatOf(s)) return line.autoplay ? [{ text: presenceText({ key: "presence.autoplay", values: {} }), kind: "autoplay" }] : [];
  const found = [];
  const add = (what) => found.push({ text: presenceText(what), kind: what.key.slice("presence.".length) });
  if (line.autoplay) add({ key: "presence.autoplay", values: {} });
  if (line.connected === false) add({ key: "presence.disconnected", values: {} });
  else if ((s.backUntil.get(x.seat) ?? 0) > performance.now()) found.push({ text: t("presence.back"), kind: "back" });
  if (!found.length) {
    const said = seatPresence(line);
    if (said) add(said);
  }
  return found;
}

/** The trick on the felt: the final score once the match is over; the trick just taken,
 * held a moment (tablestate.js heldTrick); the last trick when asked for; between tricks
 * the last one, dimmed, until the next card; else the trick being played. */
function trickScene(s, myTurn) {
  const v = s.view;
  const me = seatOf(s);
  if (s.ending || v?.phase === "over") return { final: { title: t("table.final_score"), score: scoreText(s, s.ending?.scores ?? v?.scores ?? [0, 0]) } };
  if (!v) return {};
  const held = heldTrick(s, myTurn);
  const last = v.tricks?.at(-1);
  const lastCards = () => last.cards.map((c, i) => [(last.leader + i) % playersOf(s), c]);
  if (held) {
    const caption = held.winner === me ? t("table.caption.you_take", { count: held.points }) : t("table.caption.takes", { name: seatName(s, held.winner, true), count: held.points });
    return { cards: held.cards, winner: held.winner, caption };
  }
  if (s.showLast && last) {
    const caption = last.winner === me ? t("table.caption.last_you", { count: last.points }) : t("table.caption.last", { name: seatName(s, last.winner), count: last.points });
    return { cards: lastCards(), winner: last.winner, caption };
  }
  if (!(v.trick ?? []).length && last) {
    // Between tricks the last one stays on the felt, dimmed, until the next card.
    const caption = last.winner === me ? t("table.caption.you_took_last", { count: last.points }) : t("table.caption.took_last", { name: seatName(s, last.winner, true), count: last.points });
    return { cards: lastCards(), winner: last.winner, caption, old: true };
  }
  return { cards: v.trick ?? [] };
}

/** The felt's own button: the last trick, shown until the next card (L). */
function lastTrickButton(s, page) {
  const v = s.view;
  const taken = !!v?.tricks?.length && v.phase === "playing";
  return h("button", { type: "button", id: "last-trick", class: `small${s.showLast ? " active" : ""}`, disabled: !taken, "aria-pressed": String(s.showLast), title: t("table.last_trick_title"), onclick: () => page.toggleLast() }, t("table.last_trick"));
}
