// The browser's deck code against the project's published vectors (the file the Python
// tests use): node --test web/test/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deck, commitment, dealSalts, fromHex, saltIndex, COMPLETION, FIRST, RecipeError } from "../js/deck.js";

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

// The salts of the hidden events, computed by the Python recipe (fairdeal.recipe.deal_salts)
// for fixed seeds: deal_salts(bytes(range(32)), 0, 9), (..., 7, 5) and
// deal_salts(bytes.fromhex("07" * 32), 2**32 - 1, 3), in hex.
const SALT_SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const SALTS_0 = [
  "299946680beff150f3a4d2efd91e2669",
  "de127d4dcc71a1c9bbde7f0878d36682",
  "f7e819846965a069854cf15abf6f9d21",
  "b56101b692b728c15ec3c8c299a8e1ab",
  "1064ddede0f15b25d777eddc3daeba72",
  "0ef3f4fc8758acac04c9f0c871c3b36b",
  "d2bbd7f342a4e4b52e5b483883b8d62e",
  "7b60641c4ef042b26867acc11742c791",
  "1be26776c005a8b5417561b93c92e23f",
];
const SALTS_7 = ["517c48d84fee7d32ac42d812439aa394", "52006a17b0d5738c07a2749882059399", "25380f81ceb3ec2f42255ef6f14295c5", "45723a2aa5e85cfb90a4591ba2bbd587", "662ad052a45af3865101afebf384b99c"];
const SALTS_LAST = ["7207dd7b6c1f83fd8ea520ebdbdc1e52", "c63d8ab883966aa19281121b9f05dde2", "c1f59fd5717e3b3f2764661c9f50cf50"];

test("dealSalts gives the Python recipe's salts", async () => {
  assert.deepEqual(await dealSalts(SALT_SEED, 0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), SALTS_0);
  assert.deepEqual(await dealSalts(SALT_SEED, 7, [0, 1, 2, 3, 4]), SALTS_7);
  assert.deepEqual(await dealSalts(fromHex("07".repeat(32)), 0xffffffff, [0, 1, 2]), SALTS_LAST);
  // Any indices, in the order asked.
  assert.deepEqual(await dealSalts(SALT_SEED, 0, [8, 1]), [SALTS_0[8], SALTS_0[1]]);
  assert.deepEqual(await dealSalts(SALT_SEED, 0, []), []);
});

test("saltIndex: the deck's first, then each seat's first cards, then each seat's completion", () => {
  assert.equal(saltIndex(4, 0, FIRST), 1);
  assert.equal(saltIndex(4, 3, FIRST), 4);
  assert.equal(saltIndex(4, 0, COMPLETION), 5);
  assert.equal(saltIndex(4, 3, COMPLETION), 8);
  assert.equal(saltIndex(2, 1, COMPLETION), 4);
});

test("a flipped bit of the seed, another deal or index changes the salt; bad inputs are refused", async () => {
  const seed = SALT_SEED.slice();
  seed[31] ^= 1;
  assert.notEqual((await dealSalts(seed, 0, [1]))[0], SALTS_0[1]);
  assert.notEqual((await dealSalts(SALT_SEED, 1, [1]))[0], SALTS_0[1]);
  await assert.rejects(dealSalts(new Uint8Array(31), 0, [0]), RecipeError);
  await assert.rejects(dealSalts(SALT_SEED, -1, [0]), RecipeError);
  await assert.rejects(dealSalts(SALT_SEED, 2 ** 32, [0]), RecipeError);
  await assert.rejects(dealSalts(SALT_SEED, 0, [-1]), RecipeError);
  await assert.rejects(dealSalts(SALT_SEED, 0, [1.5]), RecipeError);
});
