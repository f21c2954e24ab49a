// The table page's fair deal (tablefair.js): a seed the table cannot take yet is sent
// again, and nothing is sent once the page has stopped (the player left it).
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import "../node/importmap.mjs";
import { memoryStorage } from "../node/memstorage.mjs";

const { makeStore } = await import("../js/store.js");
const { newKept } = await import("../js/keepbase.js");
const { TableFair } = await import("../js/tablefair.js");

/** A page at seat 0 of match m-1, its seed window open, and a table that answers every
 * seed with ``not_started`` (the match is not ready for it yet). */
function page() {
  const store = makeStore(memoryStorage());
  store.saveKept({ ...newKept("m-1", "t-1", "ann"), seat: 0, commitment: "ab".repeat(32), seeds_open: true });
  const sent = [];
  const gateway = {
    async move(table, verb, body) {
      sent.push([table, verb, body.seed]);
      throw Object.assign(new Error("not yet"), { code: "not_started" });
    },
  };
  const state = { matchId: "m-1", tableId: "t-1", reply: null };
  const fair = new TableFair(state, { store, gateway, session: { player: "ann" } }, () => {});
  return { fair, sent, store };
}

test("a seed refused for now is sent again, the same one, while the page is open", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { fair, sent, store } = page();
    await fair.maybeSendSeed(fair.kept());
    assert.equal(sent.length, 1);
    mock.timers.tick(500);
    await new Promise((resolve) => setImmediate(resolve)); // the retry's request settles
    assert.equal(sent.length, 2);
    assert.equal(sent[1][2], sent[0][2]);
    assert.equal(store.kept("m-1").my_seed, sent[0][2]);
    fair.stop();
  } finally {
    mock.timers.reset();
  }
});

test("nothing is sent once the page has stopped, however the retry was timed", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const { fair, sent } = page();
    await fair.maybeSendSeed(fair.kept());
    fair.stop(); // the player leaves the table's page with a retry pending
    mock.timers.tick(5000);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent.length, 1);
    await fair.maybeSendSeed(fair.kept()); // and a late call finds the page stopped
    assert.equal(sent.length, 1);
  } finally {
    mock.timers.reset();
  }
});
