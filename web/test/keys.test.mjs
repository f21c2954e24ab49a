// The table's hot keys by place (web/js/keys.js): the same action on a US, Russian,
// Bulgarian or French (AZERTY) layout for the key at the same place, "?" wherever the
// layout types it, and the keys' help naming each letter key as the layout shows it.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../node/importmap.mjs";

const { actionOf, keyNames } = await import("../js/keys.js");
const { readKeys } = await import("../js/words.js");
const { setLanguage } = await import("../js/i18n.js");

test("a hot key is its place: the letter a Russian or AZERTY layout types there does not matter", () => {
  const cases = [
    // [what the layout types, the place, the action]
    ["c", "KeyC", "c"],
    ["с", "KeyC", "c"], // Russian and Bulgarian: Cyrillic es
    ["ф", "KeyA", "a"], // Russian
    ["а", "KeyF", "f"], // Russian: a Cyrillic "а" at the place of F is F, not A
    ["ы", "KeyS", "s"],
    ["д", "KeyL", "l"],
    ["q", "KeyA", "a"], // AZERTY: the key where US keyboards have A
    ["a", "KeyQ", null], // AZERTY's "a" is at the place of Q: no action
    [" ", "Space", " "],
    ["Enter", "NumpadEnter", "Enter"],
    ["ArrowLeft", "ArrowLeft", "ArrowLeft"],
    ["?", "Comma", "?"], // AZERTY types "?" on Shift+comma's place
    ["?", "Digit7", "?"], // the Russian layout on Shift+7
    ["x", "KeyX", null],
  ];
  for (const [key, code, action] of cases) assert.equal(actionOf({ key, code }), action, `${key} at ${code}`);
});

test("an event that says no place is read by its character, as before", () => {
  assert.equal(actionOf({ key: "C", code: "" }), "c");
  assert.equal(actionOf({ key: "l", code: "Unidentified" }), "l");
  assert.equal(actionOf({ key: "z", code: "" }), null);
});

test("the keys' help names the letter keys as the player's layout shows them", async () => {
  const russian = new Map([["KeyC", "с"], ["KeyA", "ф"], ["KeyF", "а"], ["KeyS", "ы"], ["KeyL", "д"]]);
  const names = await keyNames({ getLayoutMap: async () => russian });
  assert.deepEqual(names, { KeyC: "С", KeyA: "Ф", KeyF: "А", KeyS: "Ы", KeyL: "Д" });
  const said = readKeys(names);
  assert.match(said, /С: the cards on the table; Ф: the trump; А: the suit led; Ы: whose turn; Д: the last trick/);
  // Without a layout map (a browser that has none, or refuses): the US letters.
  assert.deepEqual(await keyNames(undefined), { KeyC: "C", KeyA: "A", KeyF: "F", KeyS: "S", KeyL: "L" });
  assert.deepEqual(await keyNames({ getLayoutMap: async () => { throw new Error("not allowed"); } }), { KeyC: "C", KeyA: "A", KeyF: "F", KeyS: "S", KeyL: "L" });
  assert.match(readKeys(), /C: the cards on the table; A: the trump/);
});

test("in Russian, the keys' help is said in Russian, the letters as the layout shows them", async () => {
  const names = await keyNames({ getLayoutMap: async () => new Map([["KeyC", "с"], ["KeyA", "ф"], ["KeyF", "а"], ["KeyS", "ы"], ["KeyL", "д"]]) });
  setLanguage("ru");
  try {
    const said = readKeys(names);
    assert.match(said, /^Клавиши: стрелка влево или вправо: выбрать карту/);
    assert.match(said, /пробел: объявить белот-ребелот/);
    assert.match(said, /С: посмотреть карты на столе; Ф: узнать козырную масть; А: узнать ведущую масть; Ы: узнать, чей ход; Д: посмотреть последнюю взятку/);
  } finally {
    setLanguage("en");
  }
  assert.match(readKeys(names), /^Keys: left or right arrow: /);
});
