// Small DOM helpers: build elements, show a message, render a card.

import { cardLabel, isRed } from "./cards.js";

/** h("div", {class: "x", onclick: f}, child, "text", [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** The page's message line: what went wrong (or right) just now, said plainly. */
export function say(text, kind = "error") {
  const el = document.getElementById("message");
  if (!el) return;
  el.textContent = text;
  el.className = `message ${kind}`;
  el.hidden = !text;
  clearTimeout(say.timer);
  if (text && kind !== "error") say.timer = setTimeout(() => (el.hidden = true), 4000);
}

/** A refusal from the server, in words: the code's meaning, then the server's reason. */
export function sayError(err, doing = "") {
  const known = {
    network: "The server did not answer",
    not_your_turn: "It is not your turn",
    illegal_card: "You cannot play that card now",
    card_not_in_hand: "That card is not in your hand",
    bid_not_allowed: "That bid is not allowed now",
    belote_not_allowed: "Belote cannot be announced with that card",
    meld_not_allowed: "Melds cannot be declared now",
    swap_not_allowed: "The trump seven cannot be swapped now",
    redeal_not_allowed: "A redeal cannot be demanded now",
    not_expected: "That is not expected now",
    match_over: "The match is over",
    seat_taken: "That seat is taken",
    already_seated: "You already sit at this table",
    bot_seat: "A bot plays that seat",
    table_started: "The match has started: the seats are taken",
    not_your_seat: "That is not your seat",
    unauthorized: "Log in first",
    name_taken: "That name is taken",
    bad_credentials: "Wrong name or password",
    rate_limited: "Too many requests",
    table_unavailable: "The table is not answering (it may be changing server)",
    table_closed: "This table is closed",
    unknown_table: "There is no such table",
  };
  const head = known[err.code] ?? (err.code ? err.code.replaceAll("_", " ") : "Something went wrong");
  const prefix = doing ? `${doing}: ` : "";
  const reason = err.message && err.message.toLowerCase() !== head.toLowerCase() ? ` — ${err.message}` : "";
  say(`${prefix}${head}${reason}.`, "error");
}

/** A card face: a button when it can be clicked. */
export function cardFace(code, { legal = false, onclick = null, small = false, title = null } = {}) {
  const attrs = {
    class: `card${isRed(code) ? " red" : ""}${legal ? " legal" : ""}${small ? " small" : ""}`,
    dataset: { card: code },
    title: title ?? cardLabel(code),
  };
  if (onclick) return h("button", { ...attrs, type: "button", onclick }, cardLabel(code));
  return h("span", attrs, cardLabel(code));
}

export function cardBacks(count) {
  return h("span", { class: "backs", title: `${count} cards` }, Array.from({ length: count }, () => h("span", { class: "back" })));
}

export function shortHex(hex, n = 12) {
  if (!hex) return "—";
  return hex.length > n * 2 ? `${hex.slice(0, n)}…${hex.slice(-4)}` : hex;
}

export function formatTime(ms) {
  return new Date(ms).toLocaleString();
}
