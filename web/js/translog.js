// The transparency log's formats and proofs, in the tab (docs/transparency-log.md): the
// RFC 9162 Merkle tree hashes, inclusion and consistency proof verification, and the
// log's and its witnesses' Ed25519 keys (the C2SP signed notes and checkpoints that use
// them: translognote.js). Pure: bytes and text in, values out
// or a TranslogError with the stable code libs/translog gives the same refusal.
//
// It is libs/translog's reading half, line for line where it matters: the proofs are RFC
// 9162 §2.1.3.2 and §2.1.4.2 as libs/translog/proof.py implements them (with the two cases
// the RFC leaves open decided as there: between equal sizes the proof is empty and the
// roots equal; from size 0 the proof is empty and the first root is the empty tree's),
// and the note parser is as strict as libs/translog/note.py (canonical base64, no control
// characters, a key name without spaces or '+'). A witness's cosignature (C2SP
// tlog-cosignature, cosignature/v1) is libs/translog/cosignature.py's, byte for byte. web/test/translog.test.mjs runs the same
// published vectors as tests/unit/test_translog_vectors.py against it.
//
// Tree sizes and indices are JavaScript numbers, refused past 2^53 (a log that large is
// not this platform's); the index arithmetic of the proofs is done in BigInt, since
// JavaScript's bitwise operators cut numbers to 32 bits. SHA-256 is @noble/hashes', the
// signature @noble/curves' Ed25519 (vendored, web/vendor/MANIFEST.json), verified as RFC
// 8032 and pyca cryptography do (zip215: false: a non-canonical encoding is refused). No
// curve arithmetic is written here.

import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { t } from "./i18n.js";

export const HASH_SIZE = 32;
/** Signature types (C2SP signed-note): the log's own Ed25519 signature. */
export const ED25519_TYPE = 0x01;
/** A witness's cosignature (C2SP tlog-cosignature, cosignature/v1): Ed25519 over the
 * cosigned message, with the witness's time. */
export const COSIGNATURE_TYPE = 0x04;
/** The spec: a cosignature's time MUST NOT exceed 2^63 - 1. */
export const MAX_TIMESTAMP = 2n ** 63n - 1n;
const TIMESTAMP_SIZE = 8;
export const SIGNATURE_PREFIX = "— ";
/** Go refuses a note of more than 100 signature lines. */
export const MAX_SIGNATURES = 100;
/** A checkpoint is a few hundred bytes; this bounds the work a hostile note makes. */
export const MAX_NOTE_SIZE = 1 << 20;
const ED25519_KEY_SIZE = 32;
const ED25519_SIGNATURE_SIZE = 64;

/** Why something of the log is refused; ``code`` is libs/translog's for the same reason. */
export class TranslogError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
// A refusal's message is shown to the player (logcheck.js puts it into a check's detail):
// it is made with t() when it is thrown, in the player's language. Numbers go in as text:
// sizes, indices and bytes are the log's, written as it writes them (never grouped).
export const refuse = (code, message) => {
  throw new TranslogError(code, message);
};

const encoder = new TextEncoder();
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function bytesEqual(a, b) {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** The root of the empty tree (RFC 9162 §2.1.1: MTH({}) = SHA-256()). */
export const EMPTY_ROOT = sha256(new Uint8Array(0));

/** SHA-256(0x00 || entry): an entry as a leaf of the tree. */
export function leafHash(entry) {
  return sha256(concat(LEAF_PREFIX, entry));
}

/** SHA-256(0x01 || left || right): an interior node. */
export function nodeHash(left, right) {
  return sha256(concat(NODE_PREFIX, left, right));
}

/** The hashes and sizes a proof is given, named in the player's language when refused. */
const HASH = Object.freeze({
  leaf: () => t("log.hash.leaf"),
  proof: () => t("log.hash.proof"),
  root: () => t("log.hash.root"),
  firstRoot: () => t("log.hash.first_root"),
  secondRoot: () => t("log.hash.second_root"),
});
const SIZE = Object.freeze({
  tree: () => t("log.size.tree"),
  leafIndex: () => t("log.size.leaf_index"),
  first: () => t("log.size.first"),
  second: () => t("log.size.second"),
});

/** ``what``: which hash (HASH), said when it is refused. */
function checkHash(value, what) {
  if (!(value instanceof Uint8Array) || value.length !== HASH_SIZE) {
    const size = value instanceof Uint8Array ? String(value.length) : typeof value;
    refuse("hash_malformed", t("log.hash.not_sha256", { what: what(), bytes: String(HASH_SIZE), size }));
  }
  return value;
}

function checkSize(value, what) {
  if (!Number.isSafeInteger(value) || value < 0) refuse("out_of_range", t("log.size.not_whole", { what: what(), value: String(value) }));
  return value;
}

function checkIndex(index, size) {
  checkSize(size, SIZE.tree);
  checkSize(index, SIZE.leafIndex);
  if (index >= size) refuse("out_of_range", t("log.proof.leaf_outside", { index: String(index), size: String(size) }));
}

/** The root an inclusion proof leads to from ``leaf`` at ``index`` in a tree of
 * ``size`` (RFC 9162 §2.1.3.2 steps 1-4, and step 5's check that the proof was neither
 * too long nor too short). Throws TranslogError. */
export function rootFromInclusion(leaf, index, size, proof) {
  checkIndex(index, size);
  let r = checkHash(leaf, HASH.leaf);
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  for (const p of proof) {
    checkHash(p, HASH.proof);
    if (sn === 0n) refuse("proof_invalid", t("log.proof.inclusion_too_long", { size: String(size) }));
    if (fn & 1n || fn === sn) {
      r = nodeHash(p, r);
      if (!(fn & 1n)) {
        while (fn && !(fn & 1n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) refuse("proof_invalid", t("log.proof.inclusion_too_short", { size: String(size) }));
  return r;
}

/** Throws TranslogError unless ``proof`` shows ``leaf`` at ``index`` in the tree of
 * ``size`` leaves whose root is ``root``. */
export function verifyInclusion(leaf, index, size, proof, root) {
  checkHash(root, HASH.root);
  if (!bytesEqual(rootFromInclusion(leaf, index, size, proof), root)) {
    refuse("proof_invalid", t("log.proof.inclusion_wrong_root", { index: String(index), size: String(size) }));
  }
}

/** Throws TranslogError unless ``proof`` shows the tree of ``first`` leaves with root
 * ``firstRoot`` to be a prefix of the tree of ``second`` leaves with root ``secondRoot``
 * (RFC 9162 §2.1.4.2). */
export function verifyConsistency(first, second, proof, firstRoot, secondRoot) {
  checkSize(first, SIZE.first);
  checkSize(second, SIZE.second);
  const sizes = { first: String(first), second: String(second) };
  if (first > second) refuse("out_of_range", t("log.proof.sizes_reversed", sizes));
  checkHash(firstRoot, HASH.firstRoot);
  checkHash(secondRoot, HASH.secondRoot);
  const path = [...proof].map((p) => checkHash(p, HASH.proof));
  if (first === 0) {
    if (path.length) refuse("proof_invalid", t("log.proof.from_empty_not_empty"));
    if (!bytesEqual(firstRoot, EMPTY_ROOT)) refuse("proof_invalid", t("log.proof.empty_root"));
    if (second === 0 && !bytesEqual(secondRoot, EMPTY_ROOT)) refuse("proof_invalid", t("log.proof.empty_root"));
    return;
  }
  if (first === second) {
    if (path.length) refuse("proof_invalid", t("log.proof.equal_not_empty"));
    if (!bytesEqual(firstRoot, secondRoot)) refuse("proof_invalid", t("log.proof.two_roots", { size: String(first) }));
    return;
  }
  // Step 1: an empty proof between different sizes proves nothing.
  if (!path.length) refuse("proof_invalid", t("log.proof.consistency_empty", sizes));
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  // Step 2: when the old tree is a perfect subtree of the new one, its root is the first
  // node of the path and the proof leaves it out.
  if ((BigInt(first) & fn) === 0n) path.unshift(firstRoot);
  // Steps 3-4.
  while (fn & 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  // Steps 5-6.
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) refuse("proof_invalid", t("log.proof.consistency_too_long", sizes));
    if (fn & 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!(fn & 1n)) {
        while (fn && !(fn & 1n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  // Step 7.
  if (sn !== 0n) refuse("proof_invalid", t("log.proof.consistency_too_short", sizes));
  if (!bytesEqual(fr, firstRoot)) refuse("proof_invalid", t("log.proof.consistency_wrong_root", { size: sizes.first }));
  if (!bytesEqual(sr, secondRoot)) refuse("proof_invalid", t("log.proof.consistency_wrong_root", { size: sizes.second }));
}

// --- base64, names, keys

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 in its one canonical spelling (padded, no stray bits), else null. */
export function fromBase64(text) {
  if (typeof text !== "string" || !BASE64.test(text)) return null;
  const binary = atob(text);
  const raw = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return toBase64(raw) === text ? raw : null;
}

export function toBase64(raw) {
  let binary = "";
  for (const b of raw) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A key name: non-empty, no space, no '+', no control character. */
export function isValidName(name) {
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  return typeof name === "string" && name.length > 0 && !/[\s+\u0000-\u001f]/u.test(name);
}

/** SHA-256(name || 0x0A || type || public key)[:4], as an unsigned 32-bit number. */
export function keyId(name, type, publicKey) {
  const d = sha256(concat(encoder.encode(name), Uint8Array.of(0x0a, type), publicKey));
  return ((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0;
}

export const hex8 = (n) => n.toString(16).padStart(8, "0");

/** A vkey ``<name>+<hex key ID>+base64(type || public key)`` whose key ID is the one of
 * its name and key: {name, keyId, type, publicKey, vkey}. Throws TranslogError
 * (key_malformed). */
export function parseVkey(vkey) {
  if (typeof vkey !== "string") refuse("key_malformed", t("log.key.form"));
  // The base64 part may itself hold '+': split on the first two only.
  const first = vkey.indexOf("+");
  const second = first < 0 ? -1 : vkey.indexOf("+", first + 1);
  if (second < 0) refuse("key_malformed", t("log.key.form"));
  const [name, kid, material] = [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)];
  if (!isValidName(name)) refuse("key_malformed", t("log.key.bad_name", { name: JSON.stringify(name) }));
  if (!/^[0-9a-fA-F]{8}$/.test(kid)) refuse("key_malformed", t("log.key.bad_id", { id: JSON.stringify(kid) }));
  const raw = fromBase64(material);
  if (raw === null || raw.length < 2) refuse("key_malformed", t("log.key.bad_material"));
  const type = raw[0];
  const publicKey = raw.slice(1);
  if (keyId(name, type, publicKey) !== parseInt(kid, 16)) refuse("key_malformed", t("log.key.wrong_id", { id: kid, name: JSON.stringify(name) }));
  return { name, keyId: parseInt(kid, 16), type, publicKey, vkey };
}

/** The log's key: an Ed25519 note vkey (type 0x01) as a verifier {name, keyId, vkey,
 * verify(text, data)}. Throws TranslogError (key_malformed). */
export function logVerifier(vkey) {
  const key = parseVkey(vkey);
  if (key.type !== ED25519_TYPE) refuse("key_malformed", t("log.key.not_note_key", { type: key.type.toString(16).padStart(2, "0") }));
  if (key.publicKey.length !== ED25519_KEY_SIZE) refuse("key_malformed", t("log.key.ed25519_size", { count: String(ED25519_KEY_SIZE) }));
  return {
    name: key.name,
    keyId: key.keyId,
    vkey: key.vkey,
    verify(text, data) {
      if (data.length !== ED25519_SIGNATURE_SIZE) return false;
      try {
        return ed25519.verify(data, encoder.encode(text), key.publicKey, { zip215: false });
      } catch {
        return false; // a point that does not decode: not a signature of this key
      }
    },
  };
}

/** The bytes a witness signs for checkpoint ``text`` at ``timestamp`` (POSIX seconds,
 * a number or BigInt), libs/translog/cosignature.py cosigned_message:
 * "cosignature/v1\ntime <decimal, no leading zeroes>\n" followed by the checkpoint's
 * whole note text. */
export function cosignedMessage(text, timestamp) {
  const time = BigInt(timestamp);
  if (time < 0n || time > MAX_TIMESTAMP) refuse("note_malformed", t("log.note.bad_time", { time: time.toString() }));
  return `cosignature/v1\ntime ${time.toString()}\n${text}`;
}

/** The time a cosignature's bytes (after the key ID) carry: its first 8 bytes, big-endian
 * POSIX seconds, as a BigInt; null when the bytes are not timestamp || 64-byte signature. */
export function cosignatureTime(data) {
  if (!(data instanceof Uint8Array) || data.length !== TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE) return null;
  let time = 0n;
  for (const b of data.subarray(0, TIMESTAMP_SIZE)) time = (time << 8n) | BigInt(b);
  return time;
}

/** A witness's key: an Ed25519 cosignature vkey (type 0x04) as a verifier {name, keyId,
 * vkey, witness: true, verify(text, data)}: ``data`` is timestamp || signature, the
 * signature Ed25519 over cosignedMessage(text, timestamp) (libs/translog/keys.py
 * CosignatureVerifier). Throws TranslogError (key_malformed). */
export function witnessVerifier(vkey) {
  const key = parseVkey(vkey);
  if (key.type !== COSIGNATURE_TYPE) refuse("key_malformed", t("log.key.not_cosignature_key", { type: key.type.toString(16).padStart(2, "0") }));
  if (key.publicKey.length !== ED25519_KEY_SIZE) refuse("key_malformed", t("log.key.ed25519_size", { count: String(ED25519_KEY_SIZE) }));
  return {
    name: key.name,
    keyId: key.keyId,
    vkey: key.vkey,
    witness: true,
    verify(text, data) {
      const time = cosignatureTime(data);
      if (time === null || time > MAX_TIMESTAMP) return false;
      try {
        return ed25519.verify(data.subarray(TIMESTAMP_SIZE), encoder.encode(cosignedMessage(text, time)), key.publicKey, { zip215: false });
      } catch {
        return false;
      }
    },
  };
}
