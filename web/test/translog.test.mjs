// The tab's transparency-log modules (web/js/translog.js, translognote.js) on the published vectors the
// Python library is checked against (tests/data/translog/, tests/unit/test_translog_vectors.py
// and test_translog_notes.py): the RFC 6962/9162 8-leaf tree, every transparency-dev
// inclusion and consistency probe, Go's and C2SP's signed notes, and the checkpoint of
// docs/transparency-log.md. Every probe is decided as the Python library decides it, and
// an altered byte of a proof, root, signature or signed text is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "../node/importmap.mjs";

// The tree, the proofs and the keys (translog.js) and the notes (translognote.js), as one.
const T = { ...(await import("../js/translog.js")), ...(await import("../js/translognote.js")) };
const { bytesToHex, hexToBytes } = await import("@noble/hashes/utils.js");

const DATA = new URL("../../tests/data/translog/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(name, DATA), "utf8"));
const TREE8 = load("rfc6962-tree8.json");
const PROBES = load("transparency-dev-probes.json");
const NOTES = load("notes.json");

const utf8 = (s) => new TextEncoder().encode(s);
const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const LEAVES = TREE8.leaves.map((x) => T.leafHash(hexToBytes(x)));
const ROOTS = TREE8.roots.map(hexToBytes);

/** RFC 9162's MTH, straight from its definition (to check roots against). */
function mth(leaves) {
  if (leaves.length === 0) return T.EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return T.nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** ``bytes`` with bit ``bit`` flipped (a copy). */
function flip(bytes, bit) {
  const out = Uint8Array.from(bytes);
  out[Math.floor(bit / 8) % out.length] ^= 1 << bit % 8;
  return out;
}

const refusedWith = (code) => (e) => e instanceof T.TranslogError && e.code === code;

test("the 8-leaf reference tree: every root and subtree hash", () => {
  assert.deepEqual(ROOTS[0], T.EMPTY_ROOT);
  for (let n = 0; n <= 8; n++) assert.equal(bytesToHex(mth(LEAVES.slice(0, n))), TREE8.roots[n], `size ${n}`);
  // Level 0 is the leaf hashes: SHA-256(0x00 || entry).
  assert.deepEqual(LEAVES.map(bytesToHex), TREE8.nodes[0]);
  TREE8.nodes.forEach((row, level) => row.forEach((h, i) => assert.equal(bytesToHex(mth(LEAVES.slice(i << level, (i + 1) << level))), h, `node ${level}/${i}`)));
});

test("the reference tree's known inclusion proofs verify, and any altered byte fails", () => {
  assert.ok(TREE8.inclusion.length >= 5);
  for (const c of TREE8.inclusion) {
    const proof = c.proof.map(hexToBytes);
    T.verifyInclusion(LEAVES[c.index], c.index, c.size, proof, ROOTS[c.size]);
    for (let i = 0; i < proof.length; i++) {
      for (const bit of [0, 77, 255]) {
        const bad = proof.map((p, j) => (j === i ? flip(p, bit) : p));
        assert.throws(() => T.verifyInclusion(LEAVES[c.index], c.index, c.size, bad, ROOTS[c.size]), refusedWith("proof_invalid"));
      }
    }
    assert.throws(() => T.verifyInclusion(flip(LEAVES[c.index], 3), c.index, c.size, proof, ROOTS[c.size]), refusedWith("proof_invalid"));
    assert.throws(() => T.verifyInclusion(LEAVES[c.index], c.index, c.size, proof, flip(ROOTS[c.size], 200)), refusedWith("proof_invalid"));
  }
});

test("the reference tree's known consistency proofs verify, and any altered byte fails", () => {
  assert.ok(TREE8.consistency.length >= 3);
  for (const c of TREE8.consistency) {
    const proof = c.proof.map(hexToBytes);
    T.verifyConsistency(c.first, c.second, proof, ROOTS[c.first], ROOTS[c.second]);
    for (let i = 0; i < proof.length; i++) {
      const bad = proof.map((p, j) => (j === i ? flip(p, 9 * i + 1) : p));
      assert.throws(() => T.verifyConsistency(c.first, c.second, bad, ROOTS[c.first], ROOTS[c.second]), refusedWith("proof_invalid"));
    }
    assert.throws(() => T.verifyConsistency(c.first, c.second, proof, flip(ROOTS[c.first], 1), ROOTS[c.second]), refusedWith("proof_invalid"));
    assert.throws(() => T.verifyConsistency(c.first, c.second, proof, ROOTS[c.first], flip(ROOTS[c.second], 1)), refusedWith("proof_invalid"));
  }
});

test("every transparency-dev inclusion probe is decided as its wantErr says", () => {
  assert.equal(PROBES.inclusion.length, 98);
  let ok = 0;
  for (const p of PROBES.inclusion) {
    const check = () => T.verifyInclusion(b64(p.leafHash), p.leafIdx, p.treeSize, (p.proof ?? []).map(b64), b64(p.root));
    if (p.wantErr) assert.throws(check, T.TranslogError, p.file);
    else {
      check();
      ok++;
    }
  }
  assert.ok(ok >= 5, `${ok} valid probes`);
});

// transparency-dev compares two equal-size "roots" as opaque bytes and accepts 12-byte
// ones; a root is a 32-byte SHA-256 value here, as in libs/translog (test_translog_vectors.py STRICTER).
const STRICTER = new Set(["testdata/consistency/additional/sizes-are-equal-one-and-proof-is-empty.json"]);

test("every transparency-dev consistency probe is decided as its wantErr says", () => {
  assert.equal(PROBES.consistency.length, 98);
  let ok = 0;
  for (const p of PROBES.consistency) {
    const check = () => T.verifyConsistency(p.size1, p.size2, (p.proof ?? []).map(b64), b64(p.root1), b64(p.root2));
    if (STRICTER.has(p.file)) {
      assert.equal(p.wantErr, false);
      assert.throws(check, refusedWith("hash_malformed"), p.file);
    } else if (p.wantErr) assert.throws(check, T.TranslogError, p.file);
    else {
      check();
      ok++;
    }
  }
  assert.ok(ok >= 5, `${ok} valid probes`);
});

test("the edge cases the RFC leaves open are decided as libs/translog decides them", () => {
  T.verifyConsistency(0, 8, [], T.EMPTY_ROOT, ROOTS[8]);
  T.verifyConsistency(0, 0, [], T.EMPTY_ROOT, T.EMPTY_ROOT);
  assert.throws(() => T.verifyConsistency(0, 8, [], ROOTS[1], ROOTS[8]), refusedWith("proof_invalid"));
  assert.throws(() => T.verifyConsistency(0, 8, [ROOTS[1]], T.EMPTY_ROOT, ROOTS[8]), refusedWith("proof_invalid"));
  T.verifyConsistency(5, 5, [], ROOTS[5], ROOTS[5]);
  assert.throws(() => T.verifyConsistency(5, 5, [], ROOTS[5], ROOTS[6]), refusedWith("proof_invalid"));
  assert.throws(() => T.verifyConsistency(6, 5, [], ROOTS[6], ROOTS[5]), refusedWith("out_of_range"));
  assert.throws(() => T.verifyInclusion(LEAVES[0], 0, 0, [], T.EMPTY_ROOT), refusedWith("out_of_range"));
  assert.throws(() => T.verifyInclusion(LEAVES[0], 2 ** 60, 2 ** 61, [], T.EMPTY_ROOT), refusedWith("out_of_range"));
  // Beyond 32 bits the index arithmetic still holds (BigInt, not JavaScript's 32-bit ops):
  // a leaf alone on the right of a tree of 2^32 + 1 is one node under the root.
  const big = 2 ** 32;
  T.verifyInclusion(LEAVES[1], big, big + 1, [ROOTS[2]], T.nodeHash(ROOTS[2], LEAVES[1]));
});

// --- notes, keys, checkpoints

const GO = NOTES.go;
const C2SP = NOTES.c2sp;

test("Go's signed note opens with its keys, and each altered byte is refused", () => {
  const peter = T.logVerifier(GO.peter.vkey);
  const enoch = T.logVerifier(GO.enoch.vkey);
  assert.equal(peter.keyId.toString(16).padStart(8, "0"), GO.peter.key_id);
  assert.equal(enoch.keyId.toString(16).padStart(8, "0"), GO.enoch.key_id);
  const note = GO.text + "\n" + GO.peter.line + GO.enoch.line;
  const opened = T.openNote(note, [peter, enoch]);
  assert.equal(opened.text, GO.text);
  assert.deepEqual(opened.verified.map((v) => v.name), ["PeterNeumann", "EnochRoot"]);
  // A key the reader does not trust is ignored; none trusted is refused.
  assert.deepEqual(T.openNote(note, [enoch]).verified.map((v) => v.name), ["EnochRoot"]);
  assert.throws(() => T.openNote(GO.text + "\n" + GO.peter.line, [enoch]), refusedWith("note_unknown_key"));
  // Every byte of the signature, and a byte of the text.
  const line = GO.peter.line;
  const sig = b64(line.slice(line.lastIndexOf(" ") + 1, -1));
  for (let bit = 32; bit < sig.length * 8; bit += 13) {
    const bad = `— PeterNeumann ${T.toBase64(flip(sig, bit))}\n`;
    assert.throws(() => T.openNote(GO.text + "\n" + bad, [peter]), refusedWith("note_bad_signature"), `bit ${bit}`);
  }
  assert.throws(() => T.openNote(GO.text.replace("answer", "Answer") + "\n" + line, [peter]), refusedWith("note_bad_signature"));
});

test("Go's bad vkeys are refused; the formats' Ed25519 key is read", () => {
  for (const vkey of GO.bad_vkeys) assert.throws(() => T.logVerifier(vkey), refusedWith("key_malformed"), vkey);
  const key = T.parseVkey(NOTES.formats.ed25519_vkey);
  assert.equal(key.type, T.ED25519_TYPE);
  assert.equal(key.name, "TEST");
  // A witness's key (type 0x04) parses but is no log key.
  assert.equal(T.parseVkey(NOTES.formats.cosigner_vkey).type, 0x04);
  assert.throws(() => T.logVerifier(NOTES.formats.cosigner_vkey), refusedWith("key_malformed"));
  assert.throws(() => T.parseVkey("name+00000000+AQ=="), refusedWith("key_malformed"));
  assert.throws(() => T.parseVkey("na me+4e8dfcff+ARmIF1Xja9yluckxbQ8caAz+QX3hifBKax1wsrJvIs8o"), refusedWith("key_malformed"));
});

test("the C2SP signed-note example opens; its checkpoint example parses", () => {
  const foo = T.logVerifier(C2SP.signed_note.vkey);
  assert.equal(T.openNote(C2SP.signed_note.note, [foo]).text, "This is an example message.\n");
  const cp = T.parseNote(C2SP.checkpoint.note);
  const body = T.parseCheckpoint(cp.text);
  assert.equal(body.origin, C2SP.checkpoint.origin);
  assert.equal(body.size, C2SP.checkpoint.size);
  assert.deepEqual(cp.signatures.map((s) => s.name), [C2SP.checkpoint.origin, C2SP.checkpoint.cosignature_name]);
});

test("Go's tree note is a checkpoint whose root is the RFC leaf hash", () => {
  const body = T.parseCheckpoint(GO.tree_note.text);
  assert.equal(body.origin, "go.sum database tree");
  assert.equal(body.size, GO.tree_note.size);
  assert.deepEqual(body.root, T.leafHash(utf8(GO.tree_note.record)));
});

// The real example of docs/transparency-log.md ("Checkpoints and notes"), made with
// libs/translog: five entries "entry 0".."entry 4", the log's signature and a witness's.
const DOC_VKEY = "belot.example/log+4e8dfcff+ARmIF1Xja9yluckxbQ8caAz+QX3hifBKax1wsrJvIs8o";
const DOC_CHECKPOINT = `belot.example/log
5
fKo0Xb2JKmZFTWxlEuo8PqPw0+whvj/C4jdXBf049nI=

— belot.example/log To38/02UpJXtyPpw17HCKBkOoyy+ZAOUPzQ2L3UX1hzentdCCtu4CG5Ui/sfX9G8m7OeynOq7JEknHM+YUOT7MDPAQc=
— witness.example/w1 J26skwAAAABpVbkAJFpKW/UI+3s8bPjlPsPWVaq2MnOGtRarxveqZGx1WnOVKWo5ktOmn/VfUd2da/5RY4T7NYd6X6+9ri7gLvhhAg==
`;

test("the documented checkpoint opens with the log's key, its root is its five entries'", () => {
  const doc = readFileSync(new URL("../../docs/transparency-log.md", import.meta.url), "utf8");
  assert.ok(doc.includes(DOC_CHECKPOINT.trimEnd()) && doc.includes(DOC_VKEY), "the example is the documented one");
  const log = T.logVerifier(DOC_VKEY);
  const cp = T.openCheckpoint(DOC_CHECKPOINT, log);
  assert.equal(cp.origin, "belot.example/log");
  assert.equal(cp.size, 5);
  assert.deepEqual(cp.root, mth([0, 1, 2, 3, 4].map((i) => T.leafHash(utf8(`entry ${i}`)))));
  assert.equal(cp.text, "belot.example/log\n5\nfKo0Xb2JKmZFTWxlEuo8PqPw0+whvj/C4jdXBf049nI=\n");
});

test("an altered checkpoint is refused: its size, its root, its log signature, its origin", () => {
  const log = T.logVerifier(DOC_VKEY);
  const bad = (from, to) => {
    assert.ok(DOC_CHECKPOINT.includes(from), from);
    return DOC_CHECKPOINT.replace(from, to);
  };
  assert.throws(() => T.openCheckpoint(bad("\n5\n", "\n6\n"), log), refusedWith("note_bad_signature"));
  assert.throws(() => T.openCheckpoint(bad("fKo0", "fKo1"), log), refusedWith("note_bad_signature"));
  assert.throws(() => T.openCheckpoint(bad("4CG5Ui", "4CG5Uj"), log), refusedWith("note_bad_signature"));
  // The key ID altered: the line is no longer the log key's, and nothing the tab trusts signed.
  assert.throws(() => T.openCheckpoint(bad("To38", "To39"), log), refusedWith("note_unknown_key"));
  // Only a witness's line left: the log did not sign it.
  const witnessOnly = DOC_CHECKPOINT.split("\n").filter((l) => !l.startsWith("— belot.example/log ")).join("\n");
  assert.throws(() => T.openCheckpoint(witnessOnly, log), refusedWith("note_unknown_key"));
  // Another key of the same name: its key ID differs, so the log's line is not its.
  const other = T.logVerifier(GO.peter.vkey);
  assert.throws(() => T.openCheckpoint(DOC_CHECKPOINT, other), refusedWith("note_unknown_key"));
  // The witness line altered: not a key the tab trusts, so it is ignored.
  assert.equal(T.openCheckpoint(bad("J26s", "J27s"), log).size, 5);
  // Every byte of the log's signature line.
  const line = DOC_CHECKPOINT.split("\n")[4];
  const raw = b64(line.slice(line.lastIndexOf(" ") + 1));
  for (let bit = 32; bit < raw.length * 8; bit += 7) {
    const forged = DOC_CHECKPOINT.replace(line, `— belot.example/log ${T.toBase64(flip(raw, bit))}`);
    assert.throws(() => T.openCheckpoint(forged, log), T.TranslogError, `bit ${bit}`);
  }
  // Malformed texts.
  for (const text of ["", "belot.example/log\n5\n", DOC_CHECKPOINT.replace("\n5\n", "\n05\n"), DOC_CHECKPOINT.replace("=\n\n", "\n\n"), DOC_CHECKPOINT.replace("\n5\n", "\n5\t\n")]) {
    assert.throws(() => T.openCheckpoint(text, log), T.TranslogError, JSON.stringify(text));
  }
  assert.throws(() => T.parseCheckpoint("o\n99999999999999999999\nfKo0Xb2JKmZFTWxlEuo8PqPw0+whvj/C4jdXBf049nI=\n"), refusedWith("checkpoint_malformed"));
});

test("base64 is read in its one canonical spelling", () => {
  assert.deepEqual(T.fromBase64("AQ=="), Uint8Array.of(1));
  for (const text of ["AR==", "AQ", "AQ=", " AQ==", "A-Q="]) assert.equal(T.fromBase64(text), null, text);
});

// --- witnesses' cosignatures (C2SP tlog-cosignature, cosignature/v1), as libs/translog
// makes and reads them (tests/unit/test_translog_notes.py): its keys and checkpoint,
// made there and copied here byte for byte.
const PY_LOG = "belot.example/log+32336caf+AQOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4"; // Ed25519Signer("belot.example/log", bytes(range(32)))
const PY_W1 = "witness.example/w1+20324abe+BCmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X"; // Cosigner("witness.example/w1", bytes(range(32, 64)))
const PY_W2 = "witness.example/w2+d8c59cc6+BCVDuS/xCVURR2rcg2nbbdyTNmWhGXjdoUBO4QZsqVWd"; // Cosigner("witness.example/w2", bytes(range(64, 96)))
// sign_checkpoint(Checkpoint("belot.example/log", 1234, leaf_hash(b"root")), LOG) with
// WITNESS.sign(body, 1_700_000_000) and OTHER_WITNESS.sign(body, 1_700_000_001).
const PY_COSIGNED = `belot.example/log
1234
PAb5plclr2BSYfY2ZyyWINQJcx2JpFHXRV/pxK4WeCk=

— belot.example/log MjNsr0GKzAX37Q9o3oBUZZdhHtdOuWh6jWrtHl/BA+1qSAapTZYatzJOHOYLLBoa++5uIr/as6zBTkyXIWN4PErgvwo=
— witness.example/w1 IDJKvgAAAABlU/EAeUNZqXpWtCCK+Z0dmL0NZaXYZ/q/NP+TarTkKpEyw6ejwDsCoAcmp+drAGAadEmRRFa4iAgPMabkvCJNMEh6DA==
— witness.example/w2 2MWcxgAAAABlU/EBJFddgCA17DpwNchaH3a/RGxqBAjsKsT+y2vaw28hJK5gOF0j8tlGdCp6GGPoBdc11mgo9o2L40hLHmNq4p1CCQ==
`;

test("the cosigned message is the spec's, byte for byte (C2SP's example)", () => {
  const c = NOTES.c2sp.checkpoint;
  const note = T.parseNote(c.note);
  assert.equal(T.cosignedMessage(note.text, c.cosignature_time), c.cosigned_message);
  assert.equal(T.cosignedMessage(note.text, BigInt(c.cosignature_time)), c.cosigned_message);
  const [, witnessLine] = note.signatures;
  assert.equal(witnessLine.name, c.cosignature_name);
  assert.equal(T.cosignatureTime(witnessLine.data), BigInt(c.cosignature_time));
  assert.throws(() => T.cosignedMessage(note.text, -1), refusedWith("note_malformed"));
  assert.throws(() => T.cosignedMessage(note.text, 2n ** 63n), refusedWith("note_malformed"));
});

test("witness keys: type 0x04, its key ID over 0x04 || key (a real witness's, libs/translog's)", () => {
  const remora = T.witnessVerifier(NOTES.formats.cosigner_vkey);
  assert.deepEqual([remora.name, remora.keyId, remora.witness], ["remora.n621.de", 0xda77ade7, true]);
  assert.equal(T.cosignatureTime(b64(NOTES.formats.cosignature).slice(4)), BigInt(NOTES.formats.cosignature_time));
  assert.equal(T.witnessVerifier(PY_W1).keyId, 0x20324abe);
  // A log key is no witness key, nor the other way round.
  assert.throws(() => T.witnessVerifier(NOTES.formats.ed25519_vkey), refusedWith("key_malformed"));
  assert.throws(() => T.logVerifier(PY_W1), refusedWith("key_malformed"));
});

test("a checkpoint cosigned by libs/translog's witnesses opens with their times; a line altered refuses it", () => {
  const log = T.logVerifier(PY_LOG);
  const [w1, w2] = [T.witnessVerifier(PY_W1), T.witnessVerifier(PY_W2)];
  const cp = T.openCosignedCheckpoint(PY_COSIGNED, log, [w1, w2]);
  assert.deepEqual([cp.origin, cp.size], ["belot.example/log", 1234]);
  assert.deepEqual(cp.root, T.leafHash(utf8("root")));
  assert.deepEqual(cp.cosignatures.map((c) => [c.name, c.timestamp]), [["witness.example/w1", 1_700_000_000], ["witness.example/w2", 1_700_000_001]]);
  // Only the witnesses given are read; none given: no cosignature, the log's line still checked.
  assert.deepEqual(T.openCosignedCheckpoint(PY_COSIGNED, log, [w2]).cosignatures.map((c) => c.name), ["witness.example/w2"]);
  assert.deepEqual(T.openCosignedCheckpoint(PY_COSIGNED, log).cosignatures, []);
  // The documented checkpoint's witness (docs/transparency-log.md), at 2026-01-01T00:00:00Z.
  const doc = T.openCosignedCheckpoint(DOC_CHECKPOINT, T.logVerifier(DOC_VKEY), [T.witnessVerifier("witness.example/w1+276eac93+BIunhS26K2w5xCJNsNvolFQG5oq1NCPdWTwRXTXxJ/0R")]);
  assert.deepEqual(doc.cosignatures.map((c) => c.timestamp), [1767225600]);
  // Its time rewritten after signing (backdated an hour): the whole note is refused.
  const line = PY_COSIGNED.split("\n")[5];
  const raw = b64(line.slice(line.lastIndexOf(" ") + 1));
  const earlier = raw.slice();
  earlier.set([0, 0, 0, 0, 0x65, 0x53, 0xe2, 0xf0], 4); // 1_700_000_000 - 3600
  const backdated = PY_COSIGNED.replace(line, `— witness.example/w1 ${T.toBase64(earlier)}`);
  assert.throws(() => T.openCosignedCheckpoint(backdated, log, [w1]), refusedWith("note_bad_signature"));
  assert.equal(T.openCosignedCheckpoint(backdated, log, [w2]).cosignatures.length, 1, "an untrusted line is ignored");
  // Every bit of the signature after the time.
  for (let bit = 12 * 8; bit < raw.length * 8; bit += 13) {
    const forged = PY_COSIGNED.replace(line, `— witness.example/w1 ${T.toBase64(flip(raw, bit))}`);
    assert.throws(() => T.openCosignedCheckpoint(forged, log, [w1]), T.TranslogError, `bit ${bit}`);
  }
  // The witness's line alone: the log did not sign it.
  const witnessOnly = PY_COSIGNED.split("\n").filter((l) => !l.startsWith("— belot.example/log ")).join("\n");
  assert.throws(() => T.openCosignedCheckpoint(witnessOnly, log, [w1]), refusedWith("note_unknown_key"));
  // The cosignature's bytes are no plain Ed25519 note signature of the body.
  const asNoteKey = T.logVerifier(`witness.example/w1+${T.keyId("witness.example/w1", 0x01, b64("BCmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X").slice(1)).toString(16).padStart(8, "0")}+${T.toBase64(Uint8Array.of(0x01, ...b64("BCmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X").slice(1)))}`);
  assert.equal(asNoteKey.verify(T.parseNote(PY_COSIGNED).text, raw.slice(4)), false);
  // A witness key where the log's is expected is refused, and two keys of one name and ID.
  assert.throws(() => T.openCosignedCheckpoint(PY_COSIGNED, log, [log]), refusedWith("key_malformed"));
});
