// The browser's deck code against the project's published vectors (the file the Python
// tests use): node --test web/test/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deck, commitment, fromHex, RecipeError } from "../js/deck.js";

const vectorsPath = fileURLToPath(new URL("../../libs/fairdeal/vectors/deal-v1.json", import.meta.url));
// drand rounds run to 2^64-1, past JavaScript's exact integers (2^53): read them as text.
const raw = readFileSync(vectorsPath, "utf8").replace(/"drand_round": (\d{16,})/g, '"drand_round": "$1"');
const { cases } = JSON.parse(raw);

test("there are at least 24 published vectors", () => {
  assert.ok(cases.length >= 24);
});

for (const c of cases) {
  test(`vector ${c.name}`, async () => {
    const seats = c.seat_seeds.map((s) => fromHex(s, "seat seed"));
    const drand = c.drand_round === null ? null : { round: c.drand_round, value: fromHex(c.drand_value) };
    const got = await deck(fromHex(c.server_seed), seats, c.deal, drand, c.cards);
    assert.deepEqual(got, c.deck);
    assert.equal(await commitment(fromHex(c.server_seed)), c.commitment);
  });
}

test("a flipped bit in any input changes the deck", async () => {
  const c = cases[0];
  const seed = fromHex(c.server_seed);
  const seats = c.seat_seeds.map((s) => fromHex(s));
  const base = await deck(seed, seats, c.deal);
  const seed2 = seed.slice();
  seed2[5] ^= 1;
  assert.notDeepEqual(await deck(seed2, seats, c.deal), base);
  const seats2 = seats.map((s) => s.slice());
  seats2[1][0] ^= 0x80;
  assert.notDeepEqual(await deck(seed, seats2, c.deal), base);
  assert.notDeepEqual(await deck(seed, seats, c.deal + 1), base);
});

test("bad inputs are refused", async () => {
  await assert.rejects(deck(new Uint8Array(31), [new Uint8Array(16)], 0), RecipeError);
  await assert.rejects(deck(new Uint8Array(32), [new Uint8Array(15)], 0), RecipeError);
  await assert.rejects(deck(new Uint8Array(32), [], 0), RecipeError);
  await assert.rejects(deck(new Uint8Array(32), [new Uint8Array(0)], -1), RecipeError);
  await assert.rejects(deck(new Uint8Array(32), [new Uint8Array(0)], 0, null, 20), RecipeError);
  assert.throws(() => fromHex("zz"), RecipeError);
});
