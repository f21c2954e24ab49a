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

/** Every error code a page can be answered with, in plain words: the gateway's own, those
 * it passes on from the table, the randomness service, the game's and the fair deal's
 * rules and the tournament service, the verify API's, and "network" (nothing answered).
 * tests/unit/test_web_errors.py reads the services' source and fails on a code missing
 * here; web/test/errors.test.mjs checks that each has words of its own. */
export const ERROR_WORDS = Object.freeze({
  // Nothing answered, or the request itself.
  network: "The server did not answer",
  timeout: "The server took too long to answer",
  unavailable: "The service is not available just now",
  starting: "The service is still starting",
  busy: "The server is busy with that table: try again",
  internal: "Something went wrong on the server",
  rate_limited: "Too many requests",
  bad_request: "The request was not understood",
  not_found: "There is no such page on the server",
  method_not_allowed: "The server does not take that kind of request there",
  request_entity_too_large: "The request is too large",
  too_large: "That record is too large to check",
  unsupported_media_type: "The server does not read that kind of content",
  bad_json: "The record sent is not valid JSON",
  empty_body: "Nothing was sent to check",
  not_a_record: "What was sent is not a match record",
  bad_input: "The record cannot be checked as it is",
  // Accounts.
  unauthorized: "Log in first",
  forbidden: "You may not do that",
  name_taken: "That name is taken",
  bad_credentials: "Wrong name or password",
  // Tables and seats.
  unknown_table: "There is no such table",
  table_closed: "This table is closed",
  table_unavailable: "The table is not answering (it may be changing server)",
  table_moved: "The table is changing server: try again",
  table_started: "The match has started: the seats are taken",
  seat_taken: "That seat is taken",
  seat_reserved: "That seat is kept for another player",
  already_seated: "You already sit at this table",
  bot_seat: "A bot plays that seat",
  not_your_seat: "That is not your seat",
  unknown_seat: "There is no such seat at this table",
  not_started: "It has not started yet",
  // The game's rules.
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
  wrong_deck: "That deck does not fit this deal",
  bad_event: "The match's history does not fit the rules",
  rules_error: "The rules do not allow that",
  // The fair deal: the seats' seeds, the server's seed, drand.
  seed_not_hex: "A seed is written in hexadecimal digits",
  seed_wrong_length: "A seed must be 16 bytes (32 hex digits)",
  seed_window_closed: "Too late: the time for sending seeds is over",
  seed_already_sent: "Your seed was already sent",
  seed_mismatch: "That seed does not match the commitment",
  bad_key: "Your page's key for this seat is not a valid key",
  bad_signature: "Your request to leave was not signed with your seat's key",
  bad_receipt: "That is not a receipt this match's key signed",
  bad_name: "That name cannot be used",
  no_receipt_key: "This match is from before signed receipts",
  seed_lost: "The server has lost this match's secret seed",
  seed_not_revealed: "The server has not revealed its seed yet",
  inputs_not_fixed: "The seeds or drand's value are not all in yet",
  match_not_ended: "The match has not ended yet",
  match_exists: "That match is already open",
  unknown_match: "There is no such match",
  bad_commitment: "That commitment is not a SHA-256 hash",
  bad_seats: "Those seats are not numbered as they should be",
  bad_window: "That seed window is not a valid time",
  bad_round_lead: "That drand round lead is not a valid time",
  unknown_chain: "There is no such drand chain",
  wrong_round: "That is not the round expected",
  not_due: "That drand round is not due + 5 s yet",
  bad_randomness: "That drand value is not 32 bytes",
  bad_deal: "There is no deal with that number",
  bad_cards: "A deck has 32 or 24 cards",
  bad_payload: "An event could not be read",
  unknown_event: "An event of an unknown kind",
  // Finished matches (the verify API's queries).
  bad_match_id: "That is not a match id",
  bad_limit: "That many matches cannot be listed",
  bad_before: "That is not a position in the log",
  bad_ruleset: "There is no such ruleset",
  bad_player: "That is not a player id",
  bad_ended_by: "A match ends by MatchEnded, MatchForfeited or MatchAborted",
  bad_chain: "There is no drand chain by that name here",
  bad_round: "That is not a drand round number",
  // Tournaments.
  tournament_error: "The tournament's rules do not allow that",
  unknown_tournament: "There is no such tournament",
  tournament_exists: "That tournament already exists",
  bad_settings: "Those tournament settings do not work",
  wrong_password: "That tournament needs its password",
  registration_closed: "Entries to that tournament are closed",
  already_entered: "You have already entered",
  not_entered: "Not entered in this tournament",
  tournament_full: "The tournament is full",
  rating_out_of_band: "Your rating is outside the tournament's band",
  not_enough_entrants: "Not enough players have entered",
  odd_players_for_teams: "Teams need an even number of players",
  bad_seeding: "The seeding must list every entrant once",
  already_started: "It has already started",
  already_finished: "The tournament has finished",
  paused: "The tournament is paused",
  wrong_format: "The tournament's format does not have that",
  round_in_progress: "A round is still being played",
  match_decided: "That match is already decided",
  bad_result: "That result is not possible",
  result_conflict: "That result contradicts the one recorded",
  correction_too_late: "Too late to correct that result",
  not_in_play: "That match is not being played",
  seat_window_open: "Players may still take their seats",
  no_valid_pairing: "No pairing fits the rules",
  draw_named: "The draw's round is named: the field and the settings are fixed",
  draw_pending: "The draw is waiting for its drand round",
  draw_not_named: "No draw has been named",
  wrong_draw_round: "That is not the draw's round",
  conflict: "The tournament changed meanwhile: try again",
  // The transparency log's public API.
  no_checkpoint: "The log has not signed a checkpoint yet",
  checkpoint_unknown: "The log never signed that checkpoint",
  witness_unknown: "That witness is not one the log knows",
  no_tile: "The log has no such tile",
  bad_size: "That is not a tree size",
  out_of_range: "That is beyond the log's tree",
  bad_stream: "Name a match, or a few of its streams",
  key_malformed: "That is not a key in the log's format",
  witness_key_type: "That key is not a witness's cosignature key",
  witness_key_taken: "Another key already has that name and key ID",
  witness_limit: "The log takes no more witness registrations from here for now",
  bad_witness: "Name a witness as its name, a plus sign and its 8-digit key ID",
});

/** A refusal from the server, in words: the code's meaning, then the server's reason,
 * its cards as people read them ("AH may not be played … (allowed: 8D KD)" says "A♥ may
 * not be played … (allowed: 8♦ K♦)") and its contracts without underscores. */
export function errorText(err, doing = "") {
  const fallback = err.code ? err.code.replaceAll("_", " ") : "Something went wrong";
  const head = Object.hasOwn(ERROR_WORDS, err.code ?? "") ? ERROR_WORDS[err.code] : fallback;
  const prefix = doing ? `${doing}: ` : "";
  const said = err.message ? gameWords(err.message) : "";
  const reason = said && said.toLowerCase() !== head.toLowerCase() ? ` — ${said}` : "";
  return `${prefix}${head}${reason}.`;
}

/** The server's reasons name cards by code ("TS") and contracts by name ("all_trumps"):
 * said as the table shows them. */
export function gameWords(text) {
  return text.replace(/\b([789TJQKA])([CDHS])\b/g, (code) => cardLabel(code)).replace(/\b(all|no)_trumps\b/g, "$1 trumps");
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
