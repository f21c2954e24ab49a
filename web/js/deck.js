// The fair-deal deck recipe of docs/specification.md §6, in the browser (Web Crypto), independent of
// the server's code. Deal k's deck reads a stream of 32-byte blocks; block b is
// HMAC-SHA256(key = server seed, message):
//   "belot.club/deal/v1" | k (4 bytes BE) | b (4 bytes BE) | number of seats (1)
//   | for each seat: seed length (0 or 16), seed | drand round (8 bytes BE) | drand value (32)
// Then, for i from 31 down to 1: next byte x; while x >= 256 - 256 % (i + 1) take another;
// swap positions i and x % (i + 1). The 24-card deck drops the sevens and eights.
//
// The salts of deal k's hidden events (libs/belot/salts.py): salt i is the first 16 bytes of
// HMAC-SHA256(key = server seed, "belot.club/salt/v1" | k (4 bytes BE) | i (4 bytes BE)):
// index 0 the deck's, 1 + s seat s's first cards, 1 + n + s its completion (n players).

import { t } from "./i18n.js";

export const RANKS = "789TJQKA";
export const SUITS = "CDHS";
export const CARD_CODES = Array.from(SUITS).flatMap((s) => Array.from(RANKS).map((r) => r + s));
const DOMAIN = new TextEncoder().encode("belot.club/deal/v1");
const SALT_DOMAIN = new TextEncoder().encode("belot.club/salt/v1");
/** Bytes of one salt. */
export const SALT_SIZE = 16;
/** The parts of a deal in which a seat is dealt cards (saltIndex). */
export const FIRST = 0;
export const COMPLETION = 1;

/** A recipe's input refused; its message is said to the player (in the fair-deal check), so
 * it is in the player's language. */
export class RecipeError extends Error {}

/** ``hex`` as bytes; ``what``, when given, names it in the error (words the caller made with
 * t(): "the revealed server seed"). */
export function fromHex(hex, what = null) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) {
    throw new RecipeError(what === null ? t("deck.value_not_hex") : t("deck.named_not_hex", { what }));
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

export function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function subtle() {
  const c = globalThis.crypto;
  if (!c || !c.subtle) throw new RecipeError(t("deck.no_web_crypto"));
  return c.subtle;
}

export async function sha256Hex(bytes) {
  return toHex(await subtle().digest("SHA-256", bytes));
}

/** The commitment to a server seed: SHA-256 of its 32 bytes, in hex. */
export async function commitment(serverSeed) {
  if (serverSeed.length !== 32) throw new RecipeError(t("deck.server_seed_length"));
  return sha256Hex(serverSeed);
}

/** The message bytes after b: seats and drand, as the recipe lays them out. */
function tail(seatSeeds, drandRound, drandValue) {
  if (seatSeeds.length < 1 || seatSeeds.length > 255) throw new RecipeError(t("deck.seats_range"));
  const parts = [Uint8Array.of(seatSeeds.length)];
  for (const [n, seed] of seatSeeds.entries()) {
    if (seed.length !== 0 && seed.length !== 16) {
      throw new RecipeError(t("deck.seat_seed_length", { seat: n, count: seed.length }));
    }
    parts.push(Uint8Array.of(seed.length), seed);
  }
  const round = new Uint8Array(8);
  const r = BigInt(drandRound);
  if (r < 0n || r > 0xffffffffffffffffn) throw new RecipeError(t("deck.drand_round_range"));
  new DataView(round.buffer).setBigUint64(0, r);
  if (drandValue.length !== 32) throw new RecipeError(t("deck.drand_value_length"));
  parts.push(round, drandValue);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Deal k's deck as card codes, top card first.
 * serverSeed: Uint8Array(32); seatSeeds: Uint8Array(0 or 16) per seat in seat order;
 * drand: null, or {round (number, BigInt or decimal string), value: Uint8Array(32)};
 * cards: 32 or 24.
 */
export async function deck(serverSeed, seatSeeds, k, drand = null, cards = 32) {
  if (serverSeed.length !== 32) throw new RecipeError(t("deck.server_seed_length"));
  if (!Number.isInteger(k) || k < 0 || k > 0xffffffff) throw new RecipeError(t("deck.deal_range"));
  if (cards !== 32 && cards !== 24) throw new RecipeError(t("deck.cards"));
  const round = drand ? drand.round : 0;
  const value = drand ? drand.value : new Uint8Array(32);
  const rest = tail(seatSeeds, round, value);
  const key = await subtle().importKey("raw", serverSeed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = new Uint8Array(DOMAIN.length + 8 + rest.length);
  message.set(DOMAIN, 0);
  const view = new DataView(message.buffer);
  view.setUint32(DOMAIN.length, k);
  message.set(rest, DOMAIN.length + 8);

  let block = new Uint8Array(0);
  let b = 0;
  let pos = 0;
  const next = async () => {
    if (pos === block.length) {
      view.setUint32(DOMAIN.length + 4, b++);
      block = new Uint8Array(await subtle().sign("HMAC", key, message));
      pos = 0;
    }
    return block[pos++];
  };
  const d = CARD_CODES.slice();
  for (let i = 31; i >= 1; i--) {
    const n = i + 1;
    let x = await next();
    while (x >= 256 - (256 % n)) x = await next();
    const j = x % n;
    [d[i], d[j]] = [d[j], d[i]];
  }
  return cards === 24 ? d.filter((c) => c[0] !== "7" && c[0] !== "8") : d;
}

/** The index of the salt of ``seat``'s cards in ``part`` (FIRST or COMPLETION) at
 * ``players`` seats: 1 + part × players + seat (index 0 is the deck's). */
export function saltIndex(players, seat, part) {
  return 1 + part * players + seat;
}

/**
 * Deal k's salts at ``indices`` (saltIndex), as lower-case hex, in the order asked.
 * serverSeed: Uint8Array(32).
 */
export async function dealSalts(serverSeed, k, indices) {
  if (serverSeed.length !== 32) throw new RecipeError(t("deck.server_seed_length"));
  if (!Number.isInteger(k) || k < 0 || k > 0xffffffff) throw new RecipeError(t("deck.deal_range"));
  for (const i of indices) {
    if (!Number.isInteger(i) || i < 0 || i > 0xffffffff) throw new RecipeError(t("deck.salt_index_range"));
  }
  const key = await subtle().importKey("raw", serverSeed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = new Uint8Array(SALT_DOMAIN.length + 8);
  message.set(SALT_DOMAIN, 0);
  const view = new DataView(message.buffer);
  view.setUint32(SALT_DOMAIN.length, k);
  const out = [];
  for (const i of indices) {
    view.setUint32(SALT_DOMAIN.length + 4, i);
    out.push(toHex(new Uint8Array(await subtle().sign("HMAC", key, message)).subarray(0, SALT_SIZE)));
  }
  return out;
}
