// The transparency log's signed notes and checkpoints, in the tab (C2SP signed-note and
// tlog-checkpoint, as libs/translog/note.py and checkpoint.py read them): a note parsed
// and opened with its verifiers, a checkpoint parsed and opened under the log's key, and
// with its witnesses' cosignatures. Pure; the keys and proofs are translog.js's.

import { t } from "./i18n.js";
import { HASH_SIZE, MAX_NOTE_SIZE, MAX_SIGNATURES, SIGNATURE_PREFIX, cosignatureTime, fromBase64, hex8, isValidName, refuse, toBase64 } from "./translog.js";



function checkText(text) {
  if (typeof text !== "string" || !text.endsWith("\n")) refuse("note_malformed", t("log.note.no_newline"));
  if (typeof text.isWellFormed === "function" && !text.isWellFormed()) refuse("note_malformed", t("log.note.not_utf8"));
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) refuse("note_malformed", t("log.note.control"));
  return text;
}

function parseSignatureLine(line) {
  const bad = () => refuse("note_malformed", t("log.note.bad_signature_line"));
  if (!line.startsWith(SIGNATURE_PREFIX)) bad();
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(" ");
  if (space < 0) bad();
  const name = rest.slice(0, space);
  const raw = fromBase64(rest.slice(space + 1));
  if (!isValidName(name) || raw === null || raw.length < 5) bad();
  const kid = ((raw[0] << 24) | (raw[1] << 16) | (raw[2] << 8) | raw[3]) >>> 0;
  return { name, keyId: kid, data: raw.slice(4) };
}

/** A signed note's text and signature lines: {text, signatures: [{name, keyId, data}]}.
 * Nothing is verified (openNote does). Throws TranslogError (note_malformed). */
export function parseNote(message) {
  if (typeof message !== "string") refuse("note_malformed", t("log.note.not_text"));
  if (message.length > MAX_NOTE_SIZE) refuse("note_malformed", t("log.note.too_big", { count: String(MAX_NOTE_SIZE) }));
  const split = message.lastIndexOf("\n\n");
  if (split < 0) refuse("note_malformed", t("log.note.no_blank_line"));
  const text = message.slice(0, split + 1);
  const block = message.slice(split + 2);
  if (!block.endsWith("\n")) refuse("note_malformed", t("log.note.no_final_newline"));
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) refuse("note_malformed", t("log.note.too_many_signatures", { count: String(MAX_SIGNATURES) }));
  checkText(text);
  return { text, signatures: lines.map(parseSignatureLine) };
}

/** Verify every signature of a key in ``verifiers`` (as logVerifier gives them): one
 * whose (name, key ID) no verifier has is ignored, one of a trusted key must verify or
 * the note is refused (note_bad_signature), and at least one must (note_unknown_key).
 * Returns {text, signatures, verified: [{name, keyId}]}. */
export function openNote(message, verifiers) {
  const note = parseNote(message);
  const known = new Map(verifiers.map((v) => [`${v.name}+${v.keyId}`, v]));
  const verified = new Map();
  for (const s of note.signatures) {
    const v = known.get(`${s.name}+${s.keyId}`);
    if (!v) continue;
    // Every line of a trusted key is checked, repeated ones too.
    if (!v.verify(note.text, s.data)) refuse("note_bad_signature", t("log.note.bad_signature", { key: `${s.name}+${hex8(s.keyId)}` }));
    verified.set(`${s.name}+${s.keyId}`, { name: s.name, keyId: s.keyId });
  }
  if (!verified.size) {
    const keys = verifiers.map((v) => `${v.name}+${hex8(v.keyId)}`).join(", ") || t("log.note.no_key");
    refuse("note_unknown_key", t("log.note.unknown_key", { keys }));
  }
  return { ...note, verified: [...verified.values()] };
}

/** A checkpoint's body (C2SP tlog-checkpoint): {origin, size, root, extensions}. Throws
 * TranslogError (checkpoint_malformed). */
export function parseCheckpoint(text) {
  if (typeof text !== "string" || !text.endsWith("\n")) refuse("checkpoint_malformed", t("log.checkpoint.no_newline"));
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) refuse("checkpoint_malformed", t("log.checkpoint.too_short"));
  const [origin, sizeText, rootText, ...extensions] = lines;
  if (!origin) refuse("checkpoint_malformed", t("log.checkpoint.bad_origin"));
  if (!/^(?:0|[1-9][0-9]{0,18})$/.test(sizeText) || BigInt(sizeText) >= 2n ** 63n) {
    refuse("checkpoint_malformed", t("log.checkpoint.bad_size", { size: JSON.stringify(sizeText) }));
  }
  const size = Number(sizeText);
  if (!Number.isSafeInteger(size)) refuse("checkpoint_malformed", t("log.checkpoint.too_large", { size: sizeText }));
  const root = fromBase64(rootText);
  if (root === null) refuse("checkpoint_malformed", t("log.checkpoint.bad_root", { root: JSON.stringify(rootText) }));
  if (root.length !== HASH_SIZE) refuse("checkpoint_malformed", t("log.checkpoint.root_size", { bytes: String(HASH_SIZE), size: String(root.length) }));
  if (extensions.some((line) => !line)) refuse("checkpoint_malformed", t("log.checkpoint.bad_extension"));
  return { origin, size, root, extensions };
}

/** A checkpoint note as a reader opens it with the log's key (logVerifier): the log's
 * signature must be there and verify, the origin must be the key's name. Cosignatures
 * of witnesses are ignored here (openCosignedCheckpoint reads them). Returns {origin, size, root
 * (bytes), root_b64, text (the note's text), note (the whole note as given)}. Throws
 * TranslogError: note_malformed, checkpoint_malformed, note_bad_signature,
 * note_unknown_key, checkpoint_wrong_origin. */
export function openCheckpoint(message, log) {
  const opened = openNote(message, [log]);
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint.origin !== log.name) refuse("checkpoint_wrong_origin", t("log.checkpoint.wrong_origin", { origin: JSON.stringify(checkpoint.origin), name: JSON.stringify(log.name) }));
  return { origin: checkpoint.origin, size: checkpoint.size, root: checkpoint.root, root_b64: toBase64(checkpoint.root), text: opened.text, note: message };
}

/** A checkpoint note opened with the log's key and the witnesses' keys
 * (libs/translog/checkpoint.py open_checkpoint): the log's signature must be there and
 * verify, the origin must be the log key's name, every line of a trusted key must verify
 * (one that does not refuses the whole note), and lines of keys not given are ignored.
 * Returns openCheckpoint's fields and ``cosignatures``: [{name, keyId, vkey, timestamp
 * (seconds, a number)}], the first line of each trusted witness in the note's order.
 * Throws TranslogError (as openCheckpoint, and key_malformed, key_ambiguous). */
export function openCosignedCheckpoint(message, log, witnesses = []) {
  const byKey = new Map();
  for (const v of [log, ...witnesses]) {
    const k = `${v.name}+${v.keyId}`;
    if (byKey.has(k) && byKey.get(k).vkey !== v.vkey) refuse("key_ambiguous", t("log.key.ambiguous", { key: `${v.name}+${hex8(v.keyId)}` }));
    byKey.set(k, v);
  }
  for (const w of witnesses) if (!w.witness) refuse("key_malformed", t("log.key.witness_not_cosignature", { name: w.name }));
  const opened = openNote(message, [...byKey.values()]);
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint.origin !== log.name) refuse("checkpoint_wrong_origin", t("log.checkpoint.wrong_origin", { origin: JSON.stringify(checkpoint.origin), name: JSON.stringify(log.name) }));
  if (!opened.verified.some((v) => v.name === log.name && v.keyId === log.keyId)) refuse("note_unknown_key", t("log.checkpoint.unsigned", { key: `${log.name}+${hex8(log.keyId)}` }));
  const cosignatures = [];
  const seen = new Set();
  for (const s of opened.signatures) {
    const k = `${s.name}+${s.keyId}`;
    const w = byKey.get(k);
    if (!w || !w.witness || seen.has(k)) continue;
    seen.add(k);
    cosignatures.push({ name: w.name, keyId: w.keyId, vkey: w.vkey, timestamp: Number(cosignatureTime(s.data)) });
  }
  return { origin: checkpoint.origin, size: checkpoint.size, root: checkpoint.root, root_b64: toBase64(checkpoint.root), text: opened.text, note: message, cosignatures };
}
