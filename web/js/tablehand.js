// What this seat can do, drawn from the page's state (tablestate.js): the row of bids and
// moves (a bid, the melds declared, the gambler's swap, a redeal, belote announced with
// the card), the hand with the legal cards raised, and, when a bot plays the seat for its
// player, the note and the button that takes it back. ``legal``: the moves the seat may
// make now (none when it is not its turn). What a button does is the page's (``page``,
// see tablefelt.js). Each thing one may choose carries data-pick (the hot keys' choice,
// tablekeys.js).

import { cardLabel, sortHand } from "./cards.js";
import { t } from "./i18n.js";
import { presenceText, resumeOffer } from "./presence.js";
import { seatOf } from "./tablestate.js";
import { cardFace, h } from "./ui.js";
import { andList, bidLabel, cardName, contractWords } from "./words.js";

/** The bids and the other moves that are no card, and belote's box when a card may
 * announce it. */
export function actions(s, legal, page) {
  const bids = legal.filter((m) => m.type === "Bid");
  const buttons = [];
  for (const m of bids) {
    const label = bidLabel(m.strain);
    const strain = m.strain ?? "pass";
    const said = m.strain === null ? t("table.bid.pass") : t("table.bid.take", { contract: contractWords(m.strain) });
    const doing = m.strain === null ? t("table.doing.pass") : t("table.doing.take", { contract: contractWords(m.strain) });
    buttons.push(h("button", { type: "button", id: `bid-${strain}`, class: `bid${m.strain === null ? " pass" : ""}`, dataset: { strain, pick: `bid-${strain}` }, title: said, "aria-label": said, onclick: () => page.act("bid", { strain: m.strain }, doing) }, label));
  }
  if (legal.some((m) => m.type === "DeclareMelds")) buttons.push(h("button", { type: "button", id: "declare-melds", dataset: { pick: "declare-melds" }, onclick: () => page.act("announce", { melds: true }, t("table.doing.declare")) }, t("table.act.declare")));
  if (legal.some((m) => m.type === "SwapTrumpSeven")) buttons.push(h("button", { type: "button", id: "swap", dataset: { pick: "swap" }, onclick: () => page.act("swap", {}, t("table.doing.swap")) }, t("table.act.swap")));
  if (legal.some((m) => m.type === "DemandRedeal")) buttons.push(h("button", { type: "button", id: "redeal", dataset: { pick: "redeal" }, onclick: () => page.act("redeal", {}, t("table.doing.redeal")) }, t("table.act.redeal")));
  const beloteCards = legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card);
  if (beloteCards.length) {
    const box = h("input", { type: "checkbox", id: "belote", checked: s.announceBelote, onchange: (e) => page.chooseBelote(e.target.checked) });
    buttons.push(h("label", { class: "belote", title: t("table.act.belote_key") }, box, ` ${t("table.act.belote", { cards: andList(beloteCards.map(cardLabel)) })}`));
  }
  return h("div", { class: "actions", id: "bids", role: "group", "aria-label": t("table.act.label") }, buttons);
}

/** The seat's hand in the deal's order, its legal cards raised; a card played announces
 * belote when it may and the player has not unticked the box. */
export function hand(s, legal, page) {
  const v = s.view;
  const el = h("div", { class: "hand", id: "hand", role: "group", "aria-label": t("table.hand_label") });
  if (!v || seatOf(s) === null) return el;
  const playable = new Set(legal.filter((m) => m.type === "PlayCard").map((m) => m.card));
  const belote = new Set(legal.filter((m) => m.type === "PlayCard" && m.belote).map((m) => m.card));
  const playing = playable.size > 0;
  el.style.setProperty("--cards", String((v.hand ?? []).length));
  for (const card of sortHand(v.hand ?? [], v.strain)) {
    const isLegal = playable.has(card);
    const face = cardFace(card, {
      legal: isLegal,
      title: isLegal ? t("table.card.play_title", { card: cardLabel(card) }) : playing ? t("table.card.unplayable_title", { card: cardLabel(card) }) : cardLabel(card),
      onclick: () => page.act("play", { card, belote: belote.has(card) && s.announceBelote !== false }, t("table.doing.play", { card: cardLabel(card) })),
    });
    face.id = `card-${card}`;
    face.dataset.pick = `card-${card}`;
    // Its name is said from its content (a hidden line), not an aria-label over the
    // picture: a name must hold what is drawn (the index's letters are aria-hidden).
    const said = isLegal ? t("table.card.playable", { card: cardName(card) }) : playing ? t("table.card.unplayable", { card: cardName(card) }) : cardName(card);
    face.removeAttribute("aria-label");
    face.dataset.said = said;
    face.append(h("span", { class: "sr-only" }, said));
    if (playing && !isLegal) face.classList.add("unplayable");
    el.append(face);
  }
  return el;
}

/** The seat's own player, away long enough for a bot to take the seat: the note and
 * the button that takes it back (coming back to the page does not); else null. */
export function resumeRow(s, page) {
  const offer = resumeOffer(s.presence, seatOf(s));
  if (!offer) return null;
  return h("div", { class: "resume", id: "resume" }, h("span", {}, presenceText(offer.key)), " ", h("button", { type: "button", id: "take-back", onclick: () => page.resume() }, presenceText(offer.action)));
}
