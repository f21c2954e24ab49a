// The catalogues (web/js/lang/): every language has every key, a text that depends on a
// number has each plural form its language has (Intl.PluralRules' categories), and each
// language puts in the same values ({marks}) as English. The language a visitor starts
// in, the plural forms chosen, and the pseudo-locale. (That every word of the modules is
// in a catalogue, and every key is used, is web/test/scan.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { CATALOGUES, LANGUAGES, PSEUDO, andList, chooseLanguage, language, nameOf, plural, pseudo, setLanguage, t } from "../js/i18n.js";

const en = CATALOGUES.en;
const marks = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
const forms = (entry) => (typeof entry === "string" ? [entry] : Object.values(entry));
const categories = (code) => new Intl.PluralRules(code).resolvedOptions().pluralCategories.sort();

test("the four languages, each named in its own words", () => {
  assert.deepEqual([...LANGUAGES].sort(), ["bg", "en", "fr", "ru"]);
  assert.deepEqual(LANGUAGES.map(nameOf), ["Русский", "Български", "English", "Français"]);
});

test("every catalogue has the keys the others have", () => {
  for (const code of LANGUAGES) {
    const keys = new Set(Object.keys(CATALOGUES[code]));
    for (const other of LANGUAGES) {
      const missing = Object.keys(CATALOGUES[other]).filter((k) => !keys.has(k));
      assert.deepEqual(missing, [], `${code} lacks keys ${other} has`);
    }
  }
  assert.ok(Object.keys(en).length > 500, "the whole client is in the catalogues");
});

test("a text that depends on a number has every plural form of its language", () => {
  let counted = 0;
  for (const code of LANGUAGES) {
    const want = categories(code);
    for (const [key, entry] of Object.entries(CATALOGUES[code])) {
      assert.ok(typeof entry === "string" || (entry && typeof entry === "object"), `${code} ${key}`);
      if (typeof entry === "string") continue;
      counted++;
      assert.deepEqual(Object.keys(entry).sort(), want, `${code} ${key}: the forms of ${code} are ${want.join(", ")}`);
      assert.equal(typeof en[key], "object", `${code} ${key}: plural here, not in English`);
    }
  }
  assert.ok(counted >= 4 * 10, `few plural texts (${counted}): counts are said with them`);
  assert.deepEqual(categories("ru"), ["few", "many", "one", "other"]);
});

test("each language puts in the values English does", () => {
  for (const [key, entry] of Object.entries(en)) {
    const want = marks(forms(entry).join(" "));
    for (const code of LANGUAGES) {
      const got = CATALOGUES[code][key];
      for (const text of forms(got)) {
        assert.equal(typeof text, "string", `${code} ${key}`);
        assert.ok(text.trim().length > 0, `${code} ${key} is empty`);
        // A plural form may say the number in words ("one card"): {count} is optional.
        const need = typeof got === "object" ? want.filter((m) => m !== "count") : want;
        const have = marks(text);
        assert.ok(need.every((m) => have.includes(m)) && have.every((m) => want.includes(m)), `${code} ${key}: {${have}} where English has {${want}}`);
      }
    }
  }
});

test("the language: the visitor's choice, else the browser's first we have, else English", () => {
  assert.equal(chooseLanguage(null, ["ru-RU", "en-US"]), "ru");
  assert.equal(chooseLanguage(null, ["de-DE", "fr-CA", "ru"]), "fr");
  assert.equal(chooseLanguage(null, ["BG"]), "bg");
  assert.equal(chooseLanguage(null, ["de", "it"]), "en");
  assert.equal(chooseLanguage(null, undefined), "en");
  assert.equal(chooseLanguage("bg", ["ru-RU"]), "bg");
  assert.equal(chooseLanguage("xx", ["fr"]), "fr"); // a stored value we have no catalogue for
  assert.equal(chooseLanguage(PSEUDO, ["ru"]), PSEUDO);
  assert.equal(setLanguage("de"), false);
  assert.equal(language(), "en");
});

test("plural forms as each language has them: 1 карта, 2 карты, 5 карт, 21 карта", () => {
  const key = Object.keys(en).find((k) => typeof en[k] === "object" && en[k].one.includes("{count}"));
  assert.ok(key, "a counted text");
  try {
    setLanguage("ru");
    const ru = CATALOGUES.ru[key];
    for (const [n, form] of [[1, "one"], [2, "few"], [5, "many"], [11, "many"], [21, "one"], [22, "few"], [1.5, "other"]]) {
      assert.equal(plural(n), form, `${n}`);
      assert.equal(t(key, { count: n }), ru[form].replace("{count}", new Intl.NumberFormat("ru").format(n)));
    }
    setLanguage("en");
    assert.equal(t(key, { count: 1 }), en[key].one.replace("{count}", "1"));
    assert.equal(t(key, { count: 3 }), en[key].other.replace("{count}", "3"));
    setLanguage("fr");
    assert.equal(plural(0), "one"); // 0 carte, in French
    setLanguage("bg");
    assert.equal(plural(0), "other");
    assert.equal(andList(["a", "b", "c"]), "a, b и c");
  } finally {
    setLanguage("en");
  }
});

test("the pseudo-locale: English 40% longer and accented, its marks kept", () => {
  const said = pseudo("Welcome, {name}.");
  assert.ok(said.length >= "Welcome, {name}.".length * 1.4, said);
  assert.match(said, /\{name\}/);
  assert.doesNotMatch(said, /Welcome/);
  try {
    setLanguage(PSEUDO);
    const text = t("app.welcome", { name: "Ivan" });
    assert.match(text, /Ivan/);
    assert.notEqual(text, "Welcome, Ivan.");
  } finally {
    setLanguage("en");
  }
});

test("a key no catalogue has is said as itself, never as undefined", () => {
  assert.equal(t("no.such.key"), "no.such.key");
  assert.equal(t("constructor"), "constructor");
});
