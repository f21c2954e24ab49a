// The table page's pure parts: the fair deal's seal never says "failed" for what could
// not be checked, a failure found during play shows at once, and the sounds' mute is kept
// per player on this browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../node/importmap.mjs";
import { memoryStorage } from "../node/memstorage.mjs";

const { makeStore } = await import("../js/store.js");
const { sealState, statusOf } = await import("../js/dealpanel.js");
const { placeOf } = await import("../js/felt.js");

const check = (statuses, extra = {}) => ({ complete: true, ok: statuses.every((s) => s === "pass"), checks: statuses.map((status, i) => ({ name: `c${i}`, status, detail: "" })), ...extra });

test("could not check is never failed: the seal's state from the tab's check", () => {
  assert.equal(statusOf(null), "waiting");
  assert.equal(statusOf({ complete: false, checks: [] }), "waiting");
  assert.equal(statusOf(check(["pass", "pass"])), "pass");
  assert.equal(statusOf(check(["pass", "unchecked"])), "unchecked");
  assert.equal(statusOf(check(["pass", "unchecked", "fail"])), "fail");
  assert.equal(statusOf(check(["pass"], { ok: false, failed: true })), "fail");
  const kept = { fallback: { round: 1, reason: "late" } };
  // Dealt without drand and not yet checked: sealed, without drand (not failed).
  assert.equal(sealState(kept, "waiting", []), "fallback");
  assert.equal(sealState(kept, "unchecked", []), "unchecked");
  // A failure known during play is shown at once, whatever the check's state.
  assert.equal(sealState(kept, "waiting", [{ name: "your seed", detail: "" }]), "fail");
  assert.equal(sealState({}, "waiting", []), "waiting");
});

test("each seat's place on the felt: this seat at the bottom, the partner across", () => {
  assert.deepEqual([0, 1, 2, 3].map((s) => placeOf(s, 0, 4)), ["bottom", "left", "top", "right"]);
  assert.deepEqual([0, 1, 2, 3].map((s) => placeOf(s, 2, 4)), ["top", "right", "bottom", "left"]);
  // At two, the opponent sits across.
  assert.deepEqual([0, 1].map((s) => placeOf(s, 1, 2)), ["top", "bottom"]);
});

test("the table's sounds are muted per player on this browser", () => {
  const store = makeStore(memoryStorage());
  assert.equal(store.soundMuted("ann"), false);
  store.saveSoundMuted("ann", true);
  assert.equal(store.soundMuted("ann"), true);
  assert.equal(store.soundMuted("bob"), false);
  store.saveSoundMuted("ann", false);
  assert.equal(store.soundMuted("ann"), false);
  // A stored value that is not the map reads as not muted, and is replaced on the next save.
  const odd = makeStore(memoryStorage(new Map([["belot.sound.muted", "[true]"]])));
  assert.equal(odd.soundMuted("0"), false);
  odd.saveSoundMuted("bob", true);
  assert.equal(odd.soundMuted("bob"), true);
});
