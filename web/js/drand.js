// drand in the tab: the chains pinned here, a beacon's BLS signature checked against the
// pinned public key (noble's bls12-381, vendored unmodified in web/vendor/, see
// docs/web-drand.md), round/time arithmetic, and asking relays for a round.
//
// Why the signature and not only randomness = SHA-256(signature): anyone can make up 48
// bytes and hash them. Only the League of Entropy's threshold key can sign a round, and a
// beacon "cannot be biased by anybody unless the attacker is able to change the public key
// of the group, which should be hard-coded in your code" (drand's quicknet launch post).
// So the key is pinned here, never read from a relay or from the server, and a relay's
// answer is believed only when its signature verifies: a relay, the operator's or drand's
// own, is a messenger, not a witness.
//
// Pure but for fetch, which fetchRound takes as an argument (tests give a fake one).

import { bls12_381 } from "@noble/curves/bls12-381.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { t } from "./i18n.js";

/**
 * The chains the tab knows, pinned (the server pins the same values in
 * libs/fairdeal/chains.py; tests/unit/test_web_drand.py checks that they are equal).
 * publicKey and genesisSeed are hex; period is in seconds, genesis in Unix seconds.
 */
export const CHAINS = Object.freeze({
  quicknet: Object.freeze({
    name: "quicknet",
    hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    publicKey:
      "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c" +
      "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb" +
      "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
    period: 3,
    genesis: 1692803367,
    scheme: "bls-unchained-g1-rfc9380",
    genesisSeed: "f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e",
  }),
  default: Object.freeze({
    name: "default",
    hash: "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce",
    publicKey:
      "868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a5699" +
      "37c529eeda66c7293784a9402801af31",
    period: 30,
    genesis: 1595431050,
    scheme: "pedersen-bls-chained",
    genesisSeed: "176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a",
  }),
});

/**
 * The tab's own relays, asked before any the server names (the League of Entropy's
 * public HTTP relays, as libs/fairdeal/chains.py lists them). The player can replace
 * them (store.js, "belot.drand.relays"); relayList() merges them with /v1/config's.
 */
export const DEFAULT_RELAYS = Object.freeze([
  "https://api.drand.sh",
  "https://api2.drand.sh",
  "https://api3.drand.sh",
  "https://drand.cloudflare.com",
  "https://api.drand.secureweb3.com:6875",
]);

// How each scheme signs (drand/drand crypto/schemes.go): quicknet's short signatures on
// G1 with the public key on G2, message sha256(round); the default chain's signatures on
// G2 with the key on G1, message sha256(previous signature || round). RFC 9380
// hash-to-curve, SHA-256, with drand's domain separation tags.
const SCHEMES = {
  "bls-unchained-g1-rfc9380": {
    signer: bls12_381.shortSignatures,
    keyPoint: bls12_381.G2.Point,
    group: "G1",
    bytes: 48,
    chained: false,
    dst: "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_",
  },
  "pedersen-bls-chained": {
    signer: bls12_381.longSignatures,
    keyPoint: bls12_381.G1.Point,
    group: "G2",
    bytes: 96,
    chained: true,
    dst: "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_",
  },
};

// The pinned keys, decoded (and subgroup-checked by noble) once, on first use.
const keys = new Map();
function publicKey(chain) {
  if (!keys.has(chain.name)) keys.set(chain.name, SCHEMES[chain.scheme].keyPoint.fromHex(chain.publicKey));
  return keys.get(chain.name);
}

/** The pinned chain a name names, or undefined (never an Object.prototype property). */
const pinned = (name) => (typeof name === "string" && Object.hasOwn(CHAINS, name) ? CHAINS[name] : undefined);

function chainOf(chain) {
  const c = typeof chain === "string" ? pinned(chain) : chain;
  if (!c || pinned(c.name) !== c) throw new RangeError(`unknown drand chain ${chain?.name ?? chain}`);
  return c;
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** The round as 8 bytes, big-endian (drand's RoundToBytes). */
function roundBytes(round) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(round));
  return out;
}

/** What drand signed for ``round``: sha256(round) or sha256(previous || round). */
function message(scheme, round, previous) {
  const r = roundBytes(round);
  if (!scheme.chained) return sha256(r);
  const m = new Uint8Array(previous.length + 8);
  m.set(previous);
  m.set(r, previous.length);
  return sha256(m);
}

const no = (why) => ({ ok: false, randomness: null, why });

/** A drand beacon as relays serve it (hex strings; previous_signature on a chained
 * chain only; randomness: SHA-256 of the signature).
 * @typedef {{round: number, signature: string, previous_signature?: string, randomness?: string}} Beacon
 */

/**
 * Check a beacon of ``chainName`` (a key of CHAINS) against the pinned public key.
 * beacon: {round, signature, previous_signature?, randomness?}, hex strings as relays
 * serve them (previous_signature: needed on a chained chain, refused on an unchained
 * one; randomness: when given, it must be SHA-256 of the signature). Synchronous (noble
 * is; one check takes tens of milliseconds, see docs/web-drand.md).
 * Returns {ok: true, randomness: hex SHA-256 of the signature, why: null} or
 * {ok: false, randomness: null, why: a sentence saying what is wrong, in the player's
 * language: the fair-deal check shows it}.
 */
export function verifyBeacon(chainName, beacon) {
  const chain = pinned(chainName);
  if (!chain) return no(t("drand.unknown_chain", { chain: String(chainName) }));
  const scheme = SCHEMES[chain.scheme];
  const { round, signature, previous_signature: previous, randomness } = beacon ?? {};
  if (!Number.isSafeInteger(round) || round < 1) return no(t("drand.round_not_whole", { round: String(round) }));
  if (typeof signature !== "string" || !HEX.test(signature)) return no(t("drand.signature_not_hex"));
  const sig = hexToBytes(signature);
  if (sig.length !== scheme.bytes) {
    return no(t("drand.signature_length", { count: sig.length, chain: chain.name, expected: scheme.bytes, group: scheme.group }));
  }
  let prev = null;
  if (scheme.chained) {
    if (typeof previous !== "string" || !previous || !HEX.test(previous)) {
      return no(t("drand.chained_needs_previous", { chain: chain.name }));
    }
    prev = hexToBytes(previous);
  } else if (previous !== undefined && previous !== null && previous !== "") {
    return no(t("drand.unchained_no_previous", { chain: chain.name }));
  }
  if (randomness !== undefined && randomness !== null && (typeof randomness !== "string" || !/^[0-9a-fA-F]{64}$/.test(randomness))) {
    return no(t("drand.randomness_not_hex"));
  }

  let point;
  try {
    point = scheme.signer.Signature.fromBytes(sig);
  } catch (e) {
    return no(t("drand.signature_not_point", { group: scheme.group, error: e.message }));
  }
  if (point.is0()) return no(t("drand.signature_infinity"));
  let valid;
  try {
    valid = scheme.signer.verify(point, scheme.signer.hash(message(scheme, round, prev), scheme.dst), publicKey(chain));
  } catch (e) {
    return no(t("drand.signature_unchecked", { error: e.message }));
  }
  if (!valid) {
    const params = { round: String(round), chain: chain.name };
    return no(scheme.chained ? t("drand.signature_false_chained", params) : t("drand.signature_false", params));
  }
  const derived = bytesToHex(sha256(sig));
  if (randomness !== undefined && randomness !== null && randomness.toLowerCase() !== derived) {
    return no(t("drand.randomness_false", { randomness, derived }));
  }
  return { ok: true, randomness: derived, why: null };
}

/** When ``round`` of ``chain`` (a name or a CHAINS entry) is produced, in Unix
 * milliseconds: genesis + (round - 1) * period. Throws RangeError below round 1. */
export function roundTime(chain, round) {
  const c = chainOf(chain);
  if (!Number.isSafeInteger(round) || round < 1) throw new RangeError(`drand rounds start at 1, not ${round}`);
  return (c.genesis + (round - 1) * c.period) * 1000;
}

/** The latest round of ``chain`` produced at Unix time ``ms`` (1 before genesis, as drand
 * does): its value is public from then; the next one is not yet. */
export function roundAt(chain, ms) {
  const c = chainOf(chain);
  if (!Number.isFinite(ms)) throw new RangeError(`not a time: ${ms}`);
  if (ms < c.genesis * 1000) return 1;
  return Math.floor((ms - c.genesis * 1000) / (c.period * 1000)) + 1;
}

/** A relay's address as the tab uses it (http(s), no query, no trailing "/"), or null
 * when ``url`` is not one. */
export function normalizeRelay(url) {
  if (typeof url !== "string") return null;
  let u;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if ((u.protocol !== "https:" && u.protocol !== "http:") || u.username || u.password || u.search || u.hash) return null;
  return (u.origin + u.pathname).replace(/\/+$/, "");
}

/**
 * The relays to ask, in order, and where each came from: the tab's own first (the
 * player's list from store.js when they set one, source "player"; else DEFAULT_RELAYS,
 * source "tab"), then those /v1/config names (source "server"); each address once (its
 * first source wins), anything not an http(s) address left out.
 * player: an array of addresses, or null (not set); server: an array of addresses.
 * Returns [{url, source}].
 */
export function relayList({ player = null, server = [] } = {}) {
  const own = Array.isArray(player) ? player.map((url) => [url, "player"]) : DEFAULT_RELAYS.map((url) => [url, "tab"]);
  const theirs = (Array.isArray(server) ? server : []).map((url) => [url, "server"]);
  const seen = new Set();
  const out = [];
  for (const [raw, source] of [...own, ...theirs]) {
    const url = normalizeRelay(raw);
    if (url === null || seen.has(url)) continue;
    seen.add(url);
    out.push({ url, source });
  }
  return out;
}

/**
 * Ask ``relays`` (addresses, or {url} as relayList gives) for ``round`` of ``chain`` (a
 * round number, or "latest": the latest round each relay has), all at once, each for at
 * most ``timeoutMs``; believe the first answer whose signature verifies (verifyBeacon,
 * for the round asked, or for the round a "latest" answer names), and stop asking the
 * others then. ``signal``: an AbortSignal that stops every request (the page left);
 * ``now``: the clock the answer's time is read on (the tab's, web/js/clock.js).
 * Returns
 *   {beacon: {round, signature, previous_signature?, randomness}, relay, at, lying, failed}
 * when one verified (randomness computed here; at: when its answer arrived, before the
 * signature was checked, so that the check's own time does not count), else
 * {error, lying, failed}; lying: [{relay, why}] the relays that served a beacon that does
 * not verify, failed: [{relay, why, status?}] those that gave no beacon (no answer, HTTP
 * error with its status, not a beacon), both as far as known when the answer was chosen.
 * error and each why are in the player's language (the fair-deal check shows them).
 * @returns {Promise<{beacon?: Beacon, relay?: string, at?: number, error?: string,
 *   lying: {relay: string, why: string}[], failed: {relay: string, why: string, status?: number}[]}>}
 */
export async function fetchRound(relays, chain, round, { fetchImpl = globalThis.fetch, timeoutMs = 4000, signal = null, now = Date.now } = {}) {
  const lying = [];
  const failed = [];
  const c = pinned(chain);
  if (!c) return { error: t("drand.unknown_chain", { chain: String(chain) }), lying, failed };
  const latest = round === "latest";
  if (!latest && (!Number.isSafeInteger(round) || round < 1)) return { error: t("drand.round_not_whole", { round: String(round) }), lying, failed };
  const urls = [...new Set((relays ?? []).map((r) => normalizeRelay(typeof r === "string" ? r : r?.url)).filter(Boolean))];
  if (!urls.length) return { error: t("drand.no_relay"), lying, failed };
  const aborts = urls.map(() => new AbortController());
  /** @type {{beacon: Beacon, relay: string, at: number} | null} */
  let won = null;
  if (signal?.aborted) return { error: "stopped", lying, failed };
  const stop = () => aborts.forEach((a) => a.abort());
  signal?.addEventListener("abort", stop, { once: true });

  const ask = async (relay, abort) => {
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let body;
    let at;
    try {
      const r = await fetchImpl(`${relay}/${c.hash}/public/${round}`, { signal: abort.signal, cache: "no-store" });
      if (!r.ok) {
        throw Object.assign(new Error(`HTTP ${r.status}`), { status: r.status });
      }
      body = await r.json();
      at = now();
    } catch (e) {
      if (won) return;
      const why = signal?.aborted ? "stopped" : abort.signal.aborted ? t("drand.no_answer_in", { ms: String(timeoutMs) }) : e.message || String(e);
      failed.push(e.status ? { relay, why, status: e.status } : { relay, why });
      return;
    } finally {
      clearTimeout(timer);
    }
    if (won) return;
    if (!body || typeof body !== "object" || typeof body.signature !== "string") {
      failed.push({ relay, why: t("drand.not_a_beacon") });
      return;
    }
    if (latest ? !Number.isSafeInteger(body.round) || body.round < 1 : body.round !== round) {
      lying.push({ relay, why: t("drand.wrong_round", { asked: String(round), served: JSON.stringify(body.round) }) });
      return;
    }
    const check = verifyBeacon(c.name, body);
    if (!check.ok) {
      lying.push({ relay, why: check.why });
      return;
    }
    won = {
      beacon: {
        round: body.round,
        signature: body.signature.toLowerCase(),
        ...(SCHEMES[c.scheme].chained ? { previous_signature: body.previous_signature.toLowerCase() } : {}),
        randomness: check.randomness,
      },
      relay,
      at,
    };
    stop();
  };

  await new Promise((resolve) => {
    let pending = urls.length;
    const done = () => {
      pending -= 1;
      if (won || pending === 0) resolve();
    };
    urls.forEach((url, i) => ask(url, aborts[i]).then(done, done));
  });
  signal?.removeEventListener("abort", stop);
  if (won) return { ...won, lying: [...lying], failed: [...failed] };
  const said = (xs) => xs.map((x) => `${x.relay}: ${x.why}`).join("; ");
  if (!lying.length) {
    return { error: t("drand.none_answered", { count: urls.length, failed: said(failed) }), lying, failed };
  }
  const none = { round: String(round), count: lying.length, lying: said(lying) };
  return {
    error: failed.length
      ? t("drand.none_verified_some_silent", { ...none, silent: failed.length, failed: said(failed) })
      : t("drand.none_verified", none),
    lying,
    failed,
  };
}
