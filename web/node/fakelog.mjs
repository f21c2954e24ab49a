// A transparency log in Node, for the tab's log checks (web/test/logcheck.test.mjs): the
// entries, their RFC 9162 tree (roots and proofs by the RFC's own recursion, §2.1.3.1 and
// §2.1.4.1, not by the code under test), checkpoints signed with an Ed25519 key (noble's,
// as the vendored module gives it), and a fetch that answers the verify API's routes as
// services/verify/translog.py does. Witnesses (three configured by default, each an
// Ed25519 cosignature key) cosign the checkpoint the log signed, at a time a test gives:
// GET /v1/log/witnesses lists them, and each entry of /v1/log/entries carries, for each
// configured witness, the first checkpoint holding it that this witness cosigned
// (``witnessed_by``), with every cosignature it holds. A test makes it lie: rewrite an
// entry (a fork), sign with another key, drop an entry, serve a proof of its choosing,
// add witnesses, serve a cosignature it made up, or be down.
//
// Import web/node/importmap.mjs first. Not a test file itself.

import { ed25519 } from "@noble/curves/ed25519.js";
import { keyId, leafHash, nodeHash, toBase64, EMPTY_ROOT } from "../js/translog.js";

const utf8 = (s) => new TextEncoder().encode(s);

function split(n) {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH over leaf hashes (RFC 9162 §2.1.1). */
export function mth(leaves) {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** PATH(m, D[n]) (RFC 9162 §2.1.3.1). */
export function path(leaves, m) {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k ? [...path(leaves.slice(0, k), m), mth(leaves.slice(k))] : [...path(leaves.slice(k), m - k), mth(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true) (RFC 9162 §2.1.4.1). */
export function subproof(m, leaves, known = true) {
  if (m === leaves.length) return known ? [] : [mth(leaves)];
  const k = split(leaves.length);
  return m <= k ? [...subproof(m, leaves.slice(0, k), known), mth(leaves.slice(k))] : [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

/** An Ed25519 note key from a 32-byte seed: {name, vkey, sign(text) -> signature line}. */
export function noteKey(name, seed) {
  const pub = ed25519.getPublicKey(seed);
  const id = keyId(name, 0x01, pub);
  const idBytes = Uint8Array.of(id >>> 24, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff);
  return {
    name,
    vkey: `${name}+${id.toString(16).padStart(8, "0")}+${toBase64(Uint8Array.of(0x01, ...pub))}`,
    line: (text) => `— ${name} ${toBase64(Uint8Array.of(...idBytes, ...ed25519.sign(utf8(text), seed)))}\n`,
  };
}

const idBytesOf = (id) => Uint8Array.of(id >>> 24, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff);

/** A witness's Ed25519 cosignature key (C2SP tlog-cosignature, type 0x04) from a 32-byte
 * seed: {name, vkey, keyId, line(text, t) -> its cosignature line of checkpoint ``text``
 * at ``t`` (POSIX seconds)}. The message is written out here from the spec, not taken
 * from the code under test. */
export function witnessKey(name, seed) {
  const pub = ed25519.getPublicKey(seed);
  const id = keyId(name, 0x04, pub);
  return {
    name,
    keyId: id,
    vkey: `${name}+${id.toString(16).padStart(8, "0")}+${toBase64(Uint8Array.of(0x04, ...pub))}`,
    line(text, t) {
      const time = new Uint8Array(8);
      new DataView(time.buffer).setBigUint64(0, BigInt(t));
      const signature = ed25519.sign(utf8(`cosignature/v1\ntime ${t}\n${text}`), seed);
      return `— ${name} ${toBase64(Uint8Array.of(...idBytesOf(id), ...time, ...signature))}\n`;
    },
  };
}

export const ORIGIN = "log.test/belot";

/** A log entry of match ``match`` as services write them (canonical enough: the tab
 * reads the bytes it is proven, whatever their spelling). */
export function entryOf(fields, version = 1) {
  const stream = fields.kind === "round_missed" ? `drand-quicknet-${fields.round}` : fields.kind === "ending" ? `match-${fields.match}` : `randomness-${fields.match}`;
  return { v: 1, event: { hash: "00".repeat(32), recorded_at: "2026-01-01T00:00:00.000000Z", stream, version }, ...fields };
}

export class FakeLog {
  constructor({ origin = ORIGIN, seed = new Uint8Array(32).fill(7), witnesses = 3 } = {}) {
    this.origin = origin;
    this.key = noteKey(origin, seed);
    this.vkey = this.key.vkey;
    // The operator's witnesses (BELOT_TRANSLOG_WITNESSES) and those that registered.
    this.witnesses = Array.from({ length: witnesses }, (_, i) => witnessKey(`witness.test/w${i + 1}`, new Uint8Array(32).fill(21 + i)));
    this.registered = [];
    // By tree size: the checkpoint's text as it was signed, and its cosignature lines.
    this.cosigned = new Map();
    this.entries = []; // bytes
    this.signed = 0; // the size the log has signed so far (a checkpoint lags its tree)
    this.down = false;
    this.hidden = new Set(); // indices the entries route leaves out
    this.override = {}; // route -> (url) => Response, to lie at one route
    this.requests = [];
    this.fetchImpl = (url) => this.answer(url);
  }

  /** Append an entry (an object: its JSON; or bytes); returns its index. */
  append(entry) {
    this.entries.push(entry instanceof Uint8Array ? entry : utf8(JSON.stringify(entry)));
    return this.entries.length - 1;
  }

  /** Sign the tree as it is now (the signer's next round). */
  sign() {
    this.signed = this.entries.length;
  }

  leaves(size = this.entries.length) {
    return this.entries.slice(0, size).map(leafHash);
  }

  root(size = this.signed) {
    return mth(this.leaves(size));
  }

  /** The checkpoint note of ``size``, signed by ``key`` (the log's by default), with the
   * witnesses' cosignatures of it (if the tree of that size is still the one they
   * cosigned). */
  note(size = this.signed, key = this.key) {
    const text = `${this.origin}\n${size}\n${toBase64(this.root(size))}\n`;
    const c = this.cosigned.get(size);
    return `${text}\n${key.line(text)}${c && c.text === text ? c.lines.join("") : ""}`;
  }

  /** ``witness`` cosigns the checkpoint of ``size`` (the one signed last) at ``t``
   * (POSIX seconds): the log keeps the note as cosigned. */
  cosign(witness, t, size = this.signed) {
    const text = `${this.origin}\n${size}\n${toBase64(this.root(size))}\n`;
    if (!this.cosigned.has(size)) this.cosigned.set(size, { text, lines: [], by: new Set() });
    const c = this.cosigned.get(size);
    if (c.by.has(witness.name)) return;
    c.by.add(witness.name);
    c.lines.push(witness.line(c.text, t));
  }

  /** Every configured witness cosigns the last checkpoint at ``t``. */
  witnessAll(t, size = this.signed) {
    for (const w of this.witnesses) this.cosign(w, t, size);
  }

  /** The checkpoint of ``size`` as it was cosigned: its text then, the log's line, the
   * cosignatures. */
  cosignedNote(size) {
    const c = this.cosigned.get(size);
    return `${c.text}\n${this.key.line(c.text)}${c.lines.join("")}`;
  }

  /** A fork: entry ``index`` changed and every node above it recomputed. */
  rewrite(index, bytes) {
    this.entries[index] = bytes;
  }

  /** What the fetch answers: a route's override (``override[path](url)``) if it has
   * one, else the honest answer (``route``). */
  answer(url) {
    this.requests.push(url);
    if (this.down) return Promise.reject(new TypeError("Failed to fetch"));
    const u = new URL(url);
    const lie = this.override[u.pathname];
    return Promise.resolve(lie ? lie(u) : this.route(u));
  }

  /** The honest answer to ``u`` (a URL), as services/verify/translog.py gives it. */
  route(u) {
    const route = u.pathname;
    const json = (body, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
    const int = (name) => Number(u.searchParams.get(name));
    switch (route) {
      case "/checkpoint":
        return new Response(this.note(), { headers: { "Content-Type": "text/plain" } });
      case "/v1/log/entries": {
        const match = u.searchParams.get("match");
        const entries = [];
        this.entries.forEach((bytes, index) => {
          const e = JSON.parse(new TextDecoder().decode(bytes));
          const mine = e.match === match;
          if (!mine || this.hidden.has(index)) return;
          const sizes = [...this.cosigned.keys()].filter((n) => n > index).sort((a, b) => a - b);
          const first = sizes[0];
          const witnessedBy = [];
          for (const w of this.witnesses) {
            const n = sizes.find((x) => this.cosigned.get(x).by.has(w.name));
            if (n !== undefined) witnessedBy.push({ witness: w.name, key_id: w.keyId.toString(16).padStart(8, "0"), size: n, checkpoint: this.cosignedNote(n) });
          }
          const witnessed = first === undefined ? null : { size: first, checkpoint: this.cosignedNote(first) };
          entries.push({ index, data: toBase64(bytes), entry: e, witnessed, witnessed_by: witnessedBy });
        });
        return json({ size: this.entries.length, entries });
      }
      case "/v1/log/witnesses": {
        const row = (w, source) => ({ vkey: w.vkey, name: w.name, key_id: w.keyId.toString(16).padStart(8, "0"), source, registered_at: source === "configured" ? null : "2026-01-01T00:00:00Z" });
        return json({ witnesses: [...this.witnesses.map((w) => row(w, "configured")), ...this.registered.map((w) => row(w, "registered"))], max_registered: 64 });
      }
      case "/v1/log/proof/inclusion": {
        const [index, size] = [int("index"), int("size")];
        if (size > this.entries.length || index >= size) return json({ error: "out_of_range", message: "no" }, 400);
        return json({ index, size, proof: path(this.leaves(size), index).map(toBase64) });
      }
      case "/v1/log/proof/consistency": {
        const [first, second] = [int("first"), int("second")];
        if (second > this.entries.length || first > second) return json({ error: "out_of_range", message: "no" }, 400);
        const proof = first === 0 ? [] : subproof(first, this.leaves(second));
        return json({ first, second, proof: proof.map(toBase64) });
      }
      default:
        return json({ error: "not_found", message: route }, 404);
    }
  }
}
