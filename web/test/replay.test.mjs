// The replay page's recomputation (replay.js recompute) on the records of the matches
// tests/unit/test_web_js.py generates (BELOT_WEB_FIXTURES): every deck recomputed in the
// tab from the record's inputs must give the record's decks and cards, and a record
// tampered with must show a mismatch, in the deal where it was changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "../node/importmap.mjs";

// replay.js reaches drand.js (and the vendored noble) through fairdeal.js: imported after
// the import map's hook (web/node/importmap.mjs).
const { recompute } = await import("../js/replay.js");
const { setLanguage } = await import("../js/i18n.js");

const path = process.env.BELOT_WEB_FIXTURES;
const records = path ? JSON.parse(readFileSync(path, "utf8")).records ?? {} : {};
const skip = path ? false : "BELOT_WEB_FIXTURES is unset: run tests/unit/test_web_js.py";

const clone = (x) => JSON.parse(JSON.stringify(x));
const flip = (hex) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);
const failedDeals = (out) => Object.entries(out.decks).filter(([, d]) => !d.ok).map(([k]) => Number(k));
const allDeals = (record) => record.deals.map((d) => d.deal);
/** A deal after the first (or the first if it is the only one) with cards dealt. */
const someDeal = (record) => record.deals.filter((d) => d.first_cards?.[0]?.length).at(-1);

test("the fixtures hold records dealt with drand and without", { skip }, () => {
  const names = Object.keys(records);
  assert.ok(names.length >= 4, names.join(", "));
  assert.ok(Object.values(records).some((r) => r.fair_deal.drand));
  assert.ok(Object.values(records).some((r) => r.fair_deal.fallback));
});

for (const [name, record] of Object.entries(records)) {
  test(`${name}: every deck recomputed in the tab is the record's`, async () => {
    const out = await recompute(clone(record));
    assert.deepEqual(out.problems, []);
    assert.equal(out.ok, true);
    assert.equal(out.commitmentOk, true);
    assert.deepEqual(Object.keys(out.decks).map(Number), allDeals(record));
    for (const d of record.deals) {
      const got = out.decks[d.deal];
      assert.equal(got.ok, true, `deal ${d.deal}`);
      assert.equal(got.sameDeck, true, `deal ${d.deal}`);
      assert.deepEqual(got.cards, d.deck);
      assert.ok(got.seatsOk.every(Boolean));
    }
  });

  test(`${name}: a changed server seed fails the commitment and every deck`, async () => {
    const r = clone(record);
    r.fair_deal.server_seed = flip(r.fair_deal.server_seed);
    const out = await recompute(r);
    assert.equal(out.ok, false);
    assert.equal(out.commitmentOk, false);
    assert.ok(out.problems.includes("SHA-256 of the server seed is not the commitment"), out.problems.join("; "));
    assert.deepEqual(failedDeals(out), allDeals(record));
  });

  test(`${name}: a changed seat seed fails every deck, not the commitment`, async () => {
    const r = clone(record);
    const human = r.seats.find((s) => s.seed);
    human.seed = flip(human.seed);
    const out = await recompute(r);
    assert.equal(out.ok, false);
    assert.equal(out.commitmentOk, true);
    assert.deepEqual(failedDeals(out), allDeals(record));
    assert.ok(out.problems.some((p) => p.startsWith(`deal ${record.deals[0].deal}:`)), out.problems.join("; "));
  });

  test(`${name}: two seats' cards swapped in one deal fail that deal alone`, async () => {
    const r = clone(record);
    const d = someDeal(r);
    const [a, b] = [d.first_cards[0], d.first_cards[1]];
    [a[0], b[0]] = [b[0], a[0]];
    const out = await recompute(r);
    assert.equal(out.ok, false);
    assert.deepEqual(failedDeals(out), [d.deal]);
    assert.deepEqual(out.decks[d.deal].seatsOk.slice(0, 2), [false, false]);
    assert.ok(out.decks[d.deal].seatsOk.slice(2).every(Boolean));
    assert.deepEqual(out.problems, [`deal ${d.deal}: the recomputed deck does not give the recorded cards`]);
  });

  test(`${name}: a recorded deck in another order fails that deal alone`, async () => {
    const r = clone(record);
    const d = someDeal(r);
    d.deck = [...d.deck.slice(1), d.deck[0]];
    const out = await recompute(r);
    assert.deepEqual(failedDeals(out), [d.deal]);
    assert.equal(out.decks[d.deal].sameDeck, false);
    assert.equal(out.ok, false);
  });
}

test("a changed drand value fails every deck of a match dealt with drand", { skip }, async () => {
  const [name, record] = Object.entries(records).find(([, r]) => r.fair_deal.drand);
  const r = clone(record);
  r.fair_deal.deck_inputs.drand_value = flip(r.fair_deal.deck_inputs.drand_value);
  const out = await recompute(r);
  assert.equal(out.commitmentOk, true, name);
  assert.deepEqual(failedDeals(out), allDeals(record));
});

test("a record whose server seed is not revealed recomputes nothing", { skip }, async () => {
  const r = clone(Object.values(records)[0]);
  r.fair_deal.server_seed = null;
  const out = await recompute(r);
  assert.equal(out.ok, false);
  assert.deepEqual(out.decks, {});
  assert.match(out.problems[0], /not revealed/);
});

test("what the recomputation found is said in the language chosen", async () => {
  const unrevealed = { fair_deal: { server_seed: null }, seats: [], deals: [] };
  const said = {};
  try {
    for (const lang of ["ru", "bg", "fr", "en"]) {
      setLanguage(lang);
      said[lang] = (await recompute(unrevealed)).problems;
    }
  } finally {
    setLanguage("en");
  }
  assert.deepEqual(said.en, ["the server seed is not revealed: no deck can be recomputed"]);
  assert.match(said.ru[0], /серверный сид не раскрыт/);
  assert.match(said.bg[0], /сийдът на сървъра не е разкрит/);
  assert.match(said.fr[0], /la graine du serveur n'est pas révélée/);
});
