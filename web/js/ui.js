// Small DOM helpers: build elements, show a message, render a card.

import { deckDefs, faceArt } from "./cardart.js";
import { cardLabel, cardRank, isRed, suitName } from "./cards.js";
import { applyDeckStyle } from "./deckstyle.js";
import { ON, dispatch } from "./patch.js";
import { andList, has, language, locale, orList, t } from "./i18n.js";

export { formatTime } from "./i18n.js";

/** h("div", {class: "x", onclick: f}, child, "text", [more]) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    // Kept on the element behind one listener: a redraw that keeps the element gives it
    // the new drawing's handler (patch.js).
    if (k.startsWith("on") && typeof v === "function") {
      const type = k.slice(2);
      if (!el[ON]) el[ON] = {};
      if (!el[ON][type]) el.addEventListener(type, dispatch);
      el[ON][type] = v;
    }
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

/** Every error code a page can be answered with: the gateway's own, those it passes on
 * from the table, the randomness service, the game's and the fair deal's rules and the
 * tournament service, the verify API's, and "network" (nothing answered). Each is said
 * by the catalogue's "error.<code>" in the player's language (errorWords).
 * tests/unit/test_web_errors.py reads the services' source and fails on a code without
 * words in some language; web/test/errors.test.mjs checks that each has words of its own. */
export const ERROR_CODES = Object.freeze([
  // Nothing answered, or the request itself.
  "network", "timeout", "unavailable", "starting", "busy", "internal", "rate_limited",
  "bad_request", "not_found", "method_not_allowed", "request_entity_too_large", "too_large",
  "unsupported_media_type", "bad_json", "empty_body", "not_a_record", "bad_input",
  // Accounts.
  "unauthorized", "forbidden", "name_taken", "bad_credentials", "bad_language",
  // Tables and seats.
  "unknown_table", "table_closed", "table_unavailable", "table_moved", "table_started",
  "seat_taken", "seat_reserved", "already_seated", "bot_seat", "not_your_seat", "unknown_seat",
  "not_started",
  // The game's rules.
  "not_your_turn", "illegal_card", "card_not_in_hand", "bid_not_allowed", "belote_not_allowed",
  "meld_not_allowed", "swap_not_allowed", "redeal_not_allowed", "not_expected", "match_over",
  "wrong_deck", "bad_event", "rules_error",
  // The fair deal: the seats' seeds, the server's seed, drand.
  "seed_not_hex", "seed_wrong_length", "seed_window_closed", "seed_already_sent", "seed_mismatch",
  "bad_key", "bad_signature", "bad_receipt", "bad_name", "no_receipt_key", "seed_lost",
  "seed_not_revealed", "inputs_not_fixed", "match_not_ended", "analysis_pending", "not_verified", "match_exists", "unknown_match",
  "bad_commitment", "bad_seats", "bad_window", "bad_round_lead", "unknown_chain", "wrong_round",
  "not_due", "bad_randomness", "bad_deal", "bad_cards", "bad_payload", "unknown_event",
  // Finished matches (the verify API's queries).
  "bad_match_id", "bad_limit", "bad_before", "bad_ruleset", "bad_player", "bad_ended_by",
  "bad_chain", "bad_round",
  // Tournaments.
  "tournament_error", "unknown_tournament", "tournament_exists", "bad_settings", "wrong_password",
  "registration_closed", "already_entered", "not_entered", "tournament_full", "rating_out_of_band",
  "not_enough_entrants", "odd_players_for_teams", "bad_seeding", "already_started",
  "already_finished", "paused", "wrong_format", "round_in_progress", "match_decided", "bad_result",
  "result_conflict", "correction_too_late", "not_in_play", "seat_window_open", "no_valid_pairing",
  "draw_named", "draw_pending", "draw_not_named", "wrong_draw_round", "conflict",
  // The transparency log's public API.
  "no_checkpoint", "checkpoint_unknown", "witness_unknown", "no_tile", "bad_size", "out_of_range",
  "bad_stream", "key_malformed", "witness_key_type", "witness_key_taken", "witness_limit",
  "bad_witness",
]);

/** The words for ``code`` in the player's language, or null for a code the client does
 * not know (never an object's property: "constructor" is no code). */
export function errorWords(code) {
  const known = typeof code === "string" && code !== "" && has(`error.${code}`);
  return known ? t(`error.${code}`) : null;
}

/** A refusal from the server, in words: what was being done (``doing``, already in the
 * player's language), the code's meaning, then why. In English the why is the server's
 * own reason, its cards as people read them ("AH may not be played … (allowed: 8D KD)"
 * says "A♥ may not be played … (allowed: 8♦ K♦)") and its contracts without
 * underscores. In any other language the server's English is not shown: the facts the
 * refusal carries (``err.details``: the card refused, the rule, the suit to follow, the
 * cards allowed; the seconds to wait) are said in the player's language instead. */
export function errorText(err, doing = "") {
  const english = language() === "en";
  const code = err.code ?? "";
  let head = errorWords(code);
  if (head === null && english) head = code ? code.replaceAll("_", " ") : t("ui.something_went_wrong");
  else if (head === null) head = code ? t("ui.unknown_code", { code }) : t("ui.something_went_wrong");
  let reason = "";
  if (english) {
    const said = err.message ? gameWords(err.message) : "";
    if (said && said.toLowerCase() !== head.toLowerCase()) reason = said;
  } else {
    reason = detailsText(err);
  }
  const text = reason ? t("ui.error_reason", { words: head, reason }) : head;
  return `${doing ? t("ui.error_doing", { doing, text }) : text}.`;
}

/** The facts a refusal carries, said in the player's language ("" when it carries none
 * the client can say). */
function detailsText(err) {
  const d = err.details;
  if (!d || typeof d !== "object") return "";
  if (err.code === "illegal_card") return illegalCardText(d);
  if (err.code === "bad_name") return badNameText(d);
  const wait = Number(d.retry_after);
  if (d.retry_after !== undefined && d.retry_after !== null && Number.isFinite(wait)) return t("ui.retry_after", { count: wait });
  return "";
}

/** ISO 15924 codes (which Intl.DisplayNames says in the player's language) of Unicode's
 * script names, as the gateway names them (services/gateway/names.py), in lower case. */
const SCRIPT_CODES = Object.freeze({ latin: "latn", cyrillic: "cyrl", greek: "grek", armenian: "armn", georgian: "geor", hebrew: "hebr", arabic: "arab", devanagari: "deva", thai: "thai", han: "hani", hiragana: "hira", katakana: "kana", hangul: "hang" });

function scriptName(script) {
  const name = String(script).toLowerCase();
  const code = Object.hasOwn(SCRIPT_CODES, name) ? SCRIPT_CODES[name] : null;
  if (code === null) return String(script);
  try {
    const iso = code[0].toUpperCase() + code.slice(1); // "Cyrl": the form Intl knows
    return new Intl.DisplayNames([locale()], { type: "script" }).of(iso) ?? String(script);
  } catch {
    return String(script);
  }
}

/** Why a name was refused (the gateway's details: {reason, ...}). */
function badNameText(d) {
  switch (d.reason) {
    case "not_text":
      return t("ui.bad_name.not_text");
    case "length":
      return t("ui.bad_name.length", { min: Number(d.min), max: Number(d.max), length: Number(d.length) });
    case "character": {
      const facts = { code_point: String(d.code_point ?? "") };
      if (d.kind === "control") return t("ui.bad_name.control", facts);
      if (d.kind === "format") return t("ui.bad_name.format", facts);
      if (d.kind === "space") return t("ui.bad_name.space");
      return t("ui.bad_name.other", facts);
    }
    case "scripts":
      return t("ui.bad_name.scripts", { scripts: andList((Array.isArray(d.scripts) ? d.scripts : []).map(scriptName)) });
    case "no_letter":
      return t("ui.bad_name.no_letter");
    default:
      return "";
  }
}

const isCard = (code) => typeof code === "string" && /^[789TJQKA][CDHS]$/.test(code);
const isSuit = (suit) => typeof suit === "string" && /^[CDHS]$/.test(suit);

/** The card refused and the rule it breaks, then the cards that may be played:
 * {card: "AH", rule: "follow", suit: "D", allowed: ["8D", "KD"]}. */
function illegalCardText(d) {
  const card = isCard(d.card) ? cardLabel(d.card) : null;
  const suit = isSuit(d.suit) ? suitName(d.suit) : null;
  let rule = "";
  if (card !== null) {
    switch (d.rule) {
      case "follow":
        rule = suit ? t("ui.illegal.follow", { card, suit }) : t("ui.illegal.follow_any", { card });
        break;
      case "overtrump":
        rule = t("ui.illegal.overtrump", { card });
        break;
      case "trump":
        rule = suit ? t("ui.illegal.trump", { card, suit }) : t("ui.illegal.trump_any", { card });
        break;
      case "beat_trump":
        rule = t("ui.illegal.beat_trump", { card });
        break;
      default:
        break;
    }
  }
  const allowed = Array.isArray(d.allowed) ? d.allowed.filter(isCard).map(cardLabel) : [];
  const may = allowed.length ? t("ui.illegal.allowed", { cards: orList(allowed) }) : "";
  return [rule, may].filter(Boolean).join(". ");
}

/** The server's reasons name cards by code ("TS") and contracts by name ("all_trumps"):
 * said as the table shows them (English only: no other language shows the server's
 * reasons). */
export function gameWords(text) {
  return text.replace(/\b([789TJQKA])([CDHS])\b/g, (code) => cardLabel(code)).replace(/\b(all|no)_trumps\b/g, (contract) => contract.replace("_", " "));
}

/** Say ``text`` through the page's live region (#speech, for screen readers): the
 * table's answers to its hot keys. ``again``: say it even if it is what was said last
 * (the region is emptied first, so that it is announced anew). */
export function speak(text, again = false) {
  const el = document.getElementById("speech");
  if (!el) return;
  if (again && el.textContent === text) el.textContent = "";
  el.textContent = text;
}

export function sayError(err, doing = "") {
  say(errorText(err, doing), "error");
}

let deckReady = false;

/** The first card drawn puts the four-colour deck's filters in the page and applies the
 * player's choice of colours (deckstyle.js), whatever page draws it. A page that will
 * draw cards calls it when it opens (the table, while it asks for the table): the deck's
 * pictures, one file the browser reads and parses once (cardart.js deckDefs), are then
 * ready before the first hand, not read in the middle of the player's first turn. */
export function readyDeck() {
  if (deckReady || !document.body) return;
  deckReady = true;
  deckDefs(document);
  applyDeckStyle();
}

/** A card face (the picture, its corners in the player's letters: cardart.js): a button
 * when it can be clicked. Its name, for the eye and the ear, is the card's label ("К♥"). */
export function cardFace(code, { legal = false, onclick = null, small = false, title = null } = {}) {
  readyDeck();
  const label = cardLabel(code);
  const attrs = {
    class: `card${isRed(code) ? " red" : ""}${legal ? " legal" : ""}${small ? " small" : ""}`,
    dataset: { card: code },
    title: title ?? label,
    "aria-label": label,
  };
  const art = faceArt(code, cardRank(code));
  if (onclick) return h("button", { ...attrs, type: "button", onclick }, art);
  return h("span", { ...attrs, role: "img" }, art);
}

/** A hidden hand: ``count`` backs, fanned. */
export function cardBacks(count) {
  readyDeck();
  const label = t("ui.card_backs", { count });
  // Each back is drawn by the stylesheet (.back), not the deck's picture: a hidden hand
  // is drawn on every redraw, and 24 of the deck's backs cost a phone half a second.
  return h("span", { class: "backs", role: "img", title: label, "aria-label": label }, Array.from({ length: count }, () => h("span", { class: "back" })));
}

export function shortHex(hex, n = 12) {
  if (!hex) return "—";
  return hex.length > n * 2 ? `${hex.slice(0, n)}…${hex.slice(-4)}` : hex;
}
