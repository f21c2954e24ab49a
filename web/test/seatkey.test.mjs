// A seat's key and its signed leave (web/js/seatkey.js) against the server's own
// (libs/fairdeal/leave.py): the same message, the same signature bytes for the same key
// (tests/unit/test_web_js.py makes the vector with pyca cryptography and names the file
// in BELOT_WEB_FIXTURES), and a check that refuses any other match, seat or key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "../node/importmap.mjs";
import { memoryStorage } from "../node/memstorage.mjs";

const { leaveMessage, newSeatKey, signLeave, verifyLeave } = await import("../js/seatkey.js");
const { makeStore } = await import("../js/store.js");

const path = process.env.BELOT_WEB_FIXTURES;
const vector = path ? JSON.parse(readFileSync(path, "utf8")).leave : null;
const skip = vector ? false : "BELOT_WEB_FIXTURES is unset: run tests/unit/test_web_js.py";

test("the page signs a leave as the server checks it: the same bytes as pyca cryptography's", { skip }, () => {
  assert.equal(new TextDecoder().decode(leaveMessage(vector.match_id, vector.seat)), `belot-leave/1\n${vector.match_id}\n${vector.seat}\n`);
  assert.equal(signLeave(vector.secret, vector.match_id, vector.seat), vector.signature);
  assert.ok(verifyLeave(vector.key, vector.match_id, vector.seat, vector.signature));
});

test("a leave signed for another match, another seat or with another key does not verify", { skip }, () => {
  assert.equal(verifyLeave(vector.key, "another-match", vector.seat, vector.signature), false);
  assert.equal(verifyLeave(vector.key, vector.match_id, vector.seat + 1, vector.signature), false);
  assert.equal(verifyLeave(newSeatKey().key, vector.match_id, vector.seat, vector.signature), false);
  assert.equal(verifyLeave(vector.key, vector.match_id, vector.seat, "zz"), false);
});

test("each seat gets a fresh key, kept by table in the page's storage", () => {
  const a = newSeatKey();
  const b = newSeatKey();
  assert.notEqual(a.secret, b.secret);
  assert.match(a.key, /^[0-9a-f]{64}$/);
  assert.ok(verifyLeave(a.key, "m-1", 0, signLeave(a.secret, "m-1", 0)));
  const data = new Map();
  const storage = memoryStorage(data);
  const store = makeStore(storage);
  assert.equal(store.seatKey("t-1"), null);
  store.saveSeatKey("t-1", a, 1);
  assert.equal(store.seatKey("t-1").secret, a.secret);
  store.saveSeatKey("t-1", b, 2); // a new seat at the table: a new key
  assert.equal(store.seatKey("t-1").key, b.key);
});

test("the page's key for its seat: the latest before the commitment, the one noted after", async () => {
  const { newKept } = await import("../js/keepbase.js");
  const { keepMyKey } = await import("../js/keepown.js");
  const kept = newKept("m-1", "t-1", "p-1");
  const [a, b, c] = [newSeatKey().key, newSeatKey().key, newSeatKey().key];
  assert.equal(keepMyKey(kept, a), true);
  assert.equal(keepMyKey(kept, a), false);
  // The seat was left and taken again before the commitment: a new key.
  assert.equal(keepMyKey(kept, b), true);
  assert.equal(kept.my_key, b);
  // Once the commitment (and the keys it records) is kept, the key noted then stays.
  kept.commitment_keys = [b, ""];
  assert.equal(keepMyKey(kept, c), false);
  assert.equal(kept.my_key, b);
});
