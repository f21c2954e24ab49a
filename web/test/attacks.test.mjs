// The attack harness: every case tests/unit/test_tab_attacks.py builds (a dishonest
// operator's consistent record, what the seat's tab received and when, fake drand
// relays), played against the tab's own code on a virtual clock (web/node/tabsim.mjs).
// An attack must fail its check and never be ok; an honest match must be ok, or, where
// the tab cannot know, "could not check" and not ok, with nothing failed. Where the
// failure can be known during the match, checkLive must say so at once. The results are
// written where BELOT_TAB_ATTACKS_RESULTS says, for the Python test to see every case ran.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import "../node/importmap.mjs";

const { playTab, statusOf, failedNames } = await import("../node/tabsim.mjs");
const { TOLERANCE } = await import("../js/fairdeal.js");

const path = process.env.BELOT_TAB_ATTACKS;
const data = path ? JSON.parse(readFileSync(path, "utf8")) : null;
const skip = data ? false : "BELOT_TAB_ATTACKS is unset: run tests/unit/test_tab_attacks.py";
const rulesets = Object.fromEntries((data?.rulesets ?? []).map((r) => [r.name, r]));
const results = [];

test("the tab's tolerances follow the server's rules", { skip }, () => {
  assert.equal(TOLERANCE.graceMs, data.grace_ms);
  assert.equal(TOLERANCE.maxWindowMs, data.max_window_ms);
  assert.equal(TOLERANCE.maxLeadMs, data.max_lead_ms);
});

for (const c of data?.cases ?? []) {
  test(c.name, { skip }, async () => {
    const started = performance.now();
    const { result, live, kept } = await playTab(c, { rulesets, beacons: data.beacons });
    const failed = failedNames(result);
    results.push({ name: c.name, ok: result.ok, failed, unchecked: result.unchecked, live: live.map((x) => x.name), ms: Math.round(performance.now() - started) });
    const said = JSON.stringify(result.checks.map((x) => [x.name, x.status, x.detail]), null, 1);
    assert.equal(result.complete, true, said);
    if (c.check === null) {
      assert.deepEqual(failed, [], said);
      assert.equal(result.failed, false);
      assert.deepEqual(live, [], "nothing fails during an honest match");
      if (c.expect === "ok") {
        assert.equal(result.ok, true, said);
        assert.deepEqual(result.unchecked, []);
      } else {
        assert.equal(result.ok, false, "what could not be checked is never ok");
        assert.deepEqual([...result.unchecked].sort(), [...c.unchecked].sort(), said);
        for (const name of c.unchecked) assert.match(result.checks.find((x) => x.name === name).detail, /^could not check/);
      }
      for (const name of c.info) assert.deepEqual(statusOf(result, name), ["info"], said);
    } else {
      assert.ok(statusOf(result, c.check).includes("fail"), `${c.check} must fail: ${said}`);
      const why = result.checks.find((x) => x.name === c.check && x.status === "fail").detail;
      assert.match(why, new RegExp(c.detail), "it fails for the attack's reason");
      assert.equal(result.ok, false);
      assert.equal(result.failed, true);
      // Nothing else fails but what the attack touches.
      assert.deepEqual(failed.filter((n) => n !== c.check && !c.also.includes(n)), [], said);
      for (const name of c.also) assert.ok(failed.includes(name), `${name} fails too: ${said}`);
      for (const name of c.unchecked_too ?? []) assert.deepEqual(statusOf(result, name), ["unchecked"], said);
    }
    if (c.live_by !== null) {
      const seen = live.find((x) => x.name === c.check);
      assert.ok(seen, `checkLive never said ${c.check} failed: ${JSON.stringify(live)}`);
      assert.ok(seen.at <= c.live_by, `checkLive said ${c.check} failed at ${seen.at}, after ${c.live_by}`);
      assert.equal(kept.reveal === null || seen.at < kept.reveal.seen_at, true, "before the reveal");
    }
  });
}

test("every case was played", { skip }, () => {
  assert.equal(results.length, data.cases.length);
  if (process.env.BELOT_TAB_ATTACKS_RESULTS) writeFileSync(process.env.BELOT_TAB_ATTACKS_RESULTS, JSON.stringify(results, null, 1));
});
