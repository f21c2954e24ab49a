// The score sheet (sheet.js) on generated matches (tests/unit/test_web_js.py,
// BELOT_WEB_FIXTURES): matches chosen for a bait and hanging points in every ruleset, and
// the other fixtures' records. Its rows are the record's deal scores (the game core's
// DealScored), its split of each side's points into cards, melds and belote is the
// core's own count, and the notation says БТ where a contract failed and vs(xx) where
// points hang, and where they went.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dealCell, scoreSheet } from "../js/sheet.js";
import { setLanguage } from "../js/i18n.js";

const path = process.env.BELOT_WEB_FIXTURES;
const data = path ? JSON.parse(readFileSync(path, "utf8")) : { sheets: [], rulesets: [] };
const skip = path ? false : "BELOT_WEB_FIXTURES is unset: run tests/unit/test_web_js.py";
const rulesets = Object.fromEntries(data.rulesets.map((r) => [r.name, r]));
const events = (record) => record.streams.match.events.map((e) => ({ type: e.type, payload: e.payload }));

test("the sheet fixtures hold every ruleset, a bait and hanging points", { skip }, () => {
  const chosen = data.sheets.filter((s) => s.name.startsWith("sheet-"));
  assert.deepEqual(chosen.map((s) => s.record.ruleset.name).sort(), ["classic", "club", "french", "gambler"]);
});

test("the deal cell's marks: БТ and vs(xx) in English and Russian (seed 002), each language's own elsewhere", () => {
  const bait = { awarded: [0, 162], bait: 0, hangs: null };
  const kept = { awarded: [20, 162], bait: 0, hangs: null };
  const hangs = { awarded: [0, 81], bait: null, hangs: { side: 0, points: 81 } };
  const cells = () => [dealCell(bait, 0), dealCell(kept, 0), dealCell(hangs, 0), dealCell(hangs, 1)];
  assert.deepEqual(cells(), ["БТ", "БТ 20", "vs(81)", "81"]);
  try {
    setLanguage("ru");
    assert.deepEqual(cells(), ["БТ", "БТ 20", "vs(81)", "81"]);
    setLanguage("bg");
    assert.deepEqual(cells(), ["вътре", "вътре 20", "висящи 81", "81"]);
    setLanguage("fr");
    assert.deepEqual(cells(), ["dedans", "dedans 20", "81 en suspens", "81"]);
  } finally {
    setLanguage("en");
  }
});

for (const { name, record, split } of data.sheets) {
  test(`${name}: the sheet's rows are the record's deal scores`, () => {
    const { rows } = scoreSheet(events(record), rulesets[record.ruleset.name]);
    const deals = record.deals.filter((d) => d.score || d.abandoned);
    assert.deepEqual(rows.map((r) => r.deal), deals.map((d) => d.deal));
    for (const [i, d] of deals.entries()) {
      const row = rows[i];
      if (d.abandoned) {
        assert.equal(row.abandoned, d.abandoned);
        continue;
      }
      assert.equal(row.outcome, d.score.outcome);
      assert.deepEqual(row.awarded, d.score.awarded);
      assert.deepEqual(row.scores, d.score.scores);
      assert.deepEqual(row.totals, d.score.totals);
      assert.equal(row.hanging, d.score.hanging);
      assert.equal(row.consistent, true, `deal ${d.deal}: the split does not add up to the totals`);
      assert.equal(row.taker, d.contract?.strain === "misere" ? null : d.contract?.taker ?? null);
      const side = row.takerSide;
      if (d.score.outcome === "failed") assert.match(dealCell(row, side), /^БТ/);
      else if (side !== null) assert.doesNotMatch(dealCell(row, side), /БТ/);
      if (d.score.outcome === "level" && d.score.hanging) assert.ok(dealCell(row, side).endsWith(`vs(${d.score.hanging})`));
    }
    // The split is the core's count.
    const scored = rows.filter((r) => !r.abandoned);
    assert.deepEqual(scored.map((r) => ({ deal: r.deal, cards: r.cards, melds: r.melds, belote: r.belote })), split);
  });
}

test("hanging points go to the next deal's winner, or are lost where they never accumulate", { skip }, () => {
  let resolved = 0;
  for (const { record } of data.sheets.filter((s) => s.name.startsWith("sheet-"))) {
    const rules = rulesets[record.ruleset.name];
    const { rows } = scoreSheet(events(record), rules);
    for (const [i, row] of rows.entries()) {
      if (!row.hangs || i === rows.length - 1) continue;
      const next = rows.slice(i + 1).find((r) => !r.abandoned);
      assert.equal(next.hangingBefore, row.hanging);
      if (next.winner !== null) {
        assert.deepEqual(next.received, { side: next.winner, points: row.hanging });
        resolved += 1;
      } else if (!rules.scoring.hanging_accumulates) assert.equal(next.lost, row.hanging);
    }
  }
  assert.ok(resolved >= 1);
});
