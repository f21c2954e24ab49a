// The table's motion: a card going to the trick, the trick going to its winner, the
// turned card taken by the taker, a new hand dealt. The page is drawn at once (the table
// patches its drawing in, patch.js); motion is laid over the drawing afterwards and never
// holds it back:
//   - the real elements are in their places, clickable, from the first frame; a card that
//     moves into the trick is drawn there and slid from where it was (a transform on a
//     card nobody can click), a new hand only fades in (its cards do not move: a click
//     lands where the card is drawn);
//   - what leaves the felt (the trick to its winner, the turned card to its taker) is a
//     copy, marked aria-hidden and pointer-events none, that flies off and is removed;
//   - with prefers-reduced-motion: reduce, nothing moves at all (no animation is
//     started; the CSS's own transitions are off under the same query).
// capture(root) notes where things are before a redraw; play(root, before) moves them
// after it. Both are cheap: a few getBoundingClientRect calls a redraw.

import { cardFace } from "./ui.js";

const SLIDE_MS = 220;
const AWAY_MS = 320;
const DEAL_MS = 260;
const DEAL_STEP_MS = 35;
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";

/** True when the player asked their system for less motion. */
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function rectOf(el) {
  const r = el.getBoundingClientRect();
  return { left: r.left, top: r.top, width: r.width, height: r.height };
}

/** Where the felt's things are now: the trick's cards (by card, with their seat), the
 * hand's cards, each seat's box, the turned card; and the deal shown. */
export function capture(root) {
  const felt = root.querySelector("#felt");
  const out = { trick: new Map(), hand: new Map(), seats: new Map(), turned: null, winner: null, deal: null };
  if (!felt) return out;
  out.deal = felt.dataset.deal ?? null;
  for (const el of felt.querySelectorAll("#trick .played:not(.old) [data-card]")) {
    const played = el.closest(".played");
    out.trick.set(el.dataset.card, { rect: rectOf(el), seat: played?.dataset.seat ?? null });
    if (played?.classList.contains("winner")) out.winner = played.dataset.seat;
  }
  for (const el of felt.querySelectorAll("#hand [data-card]")) out.hand.set(el.dataset.card, rectOf(el));
  for (const el of felt.querySelectorAll(".seat-box[data-seat]")) out.seats.set(el.dataset.seat, rectOf(el));
  const turned = felt.querySelector(".turned [data-card]");
  if (turned) out.turned = { card: turned.dataset.card, rect: rectOf(turned), small: turned.classList.contains("small") };
  return out;
}

function slide(el, from, duration = SLIDE_MS) {
  const to = rectOf(el);
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }], { duration, easing: EASE });
}

/** A card (a new face of ``code``: the one on the felt has left it) drawn where it was
 * (``from``), flown to ``to`` and removed. */
function flyAway(code, from, to) {
  const ghost = cardFace(code);
  ghost.removeAttribute("aria-label");
  ghost.setAttribute("aria-hidden", "true");
  ghost.classList.add("ghost");
  Object.assign(ghost.style, { position: "fixed", left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px`, margin: "0", pointerEvents: "none", zIndex: "20" });
  document.body.append(ghost);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const a = ghost.animate([{ transform: "translate(0, 0) scale(1)", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.45)`, opacity: 0 }], { duration: AWAY_MS, easing: EASE, fill: "forwards" });
  a.onfinish = () => ghost.remove();
  a.oncancel = () => ghost.remove();
}

/** After a redraw: slide what came into the trick from where it was (a hand, a seat),
 * fly what left (the trick to its winner, the turned card to its taker), fade a new
 * hand in. ``hints``: {winner, taker} seats when the page knows them. */
export function play(root, before, hints = {}) {
  if (reducedMotion() || !before) return;
  const felt = root.querySelector("#felt");
  if (!felt || typeof Element.prototype.animate !== "function") return;
  const seatRect = (seat) => {
    const el = felt.querySelector(`.seat-box[data-seat="${seat}"]`);
    return el ? rectOf(el) : null;
  };
  // Into the trick: my card from my hand, another's from their seat.
  const nowTrick = new Set();
  for (const el of felt.querySelectorAll("#trick .played:not(.old) [data-card]")) {
    const card = el.dataset.card;
    nowTrick.add(card);
    if (before.trick.has(card)) continue;
    const seat = el.closest(".played")?.dataset.seat;
    const from = before.hand.get(card) ?? (seat !== undefined ? before.seats.get(seat) ?? null : null);
    if (from) slide(el, from);
  }
  // Out of the trick: to its winner (the held trick's, or the hint's).
  const gone = [...before.trick.entries()].filter(([card]) => !nowTrick.has(card));
  const winner = hints.winner ?? before.winner;
  if (gone.length && winner !== null && winner !== undefined) {
    const to = seatRect(winner);
    if (to) for (const [card, { rect }] of gone) flyAway(card, rect, to);
  }
  // The turned card, taken: to the taker's seat (my hand's new card when it is mine).
  if (before.turned && !felt.querySelector(`.turned [data-card="${before.turned.card}"]`)) {
    const mine = felt.querySelector(`#hand [data-card="${before.turned.card}"]`);
    const to = mine ? rectOf(mine) : hints.taker !== null && hints.taker !== undefined ? seatRect(hints.taker) : null;
    if (to) flyAway(before.turned.card, before.turned.rect, to);
  }
  // A new deal: the hand fades in card by card (cards that do not move stay clickable).
  if (felt.dataset.deal && felt.dataset.deal !== before.deal) {
    [...felt.querySelectorAll("#hand [data-card]")].forEach((el, i) => {
      el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: DEAL_MS, delay: i * DEAL_STEP_MS, easing: "ease-out", fill: "backwards" });
    });
  } else {
    // Cards added to a hand already there (the second round of dealing): they fade in.
    for (const el of felt.querySelectorAll("#hand [data-card]")) {
      if (before.hand.size && !before.hand.has(el.dataset.card)) el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: DEAL_MS, easing: "ease-out" });
    }
  }
}
