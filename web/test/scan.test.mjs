// No word of the client outside the catalogues: the words scan (web/node/wordscan.mjs,
// acorn) over every module finds none, and every key a catalogue holds is one the code
// asks for (and the other way round). The scan itself is shown to find what it must.
// Run by tests/unit/test_web_words.py (it needs npm's acorn, package.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scan, scanFile } from "../node/wordscan.mjs";
import { CATALOGUES, OWN_KEYS } from "../js/i18n.js";

const JS = fileURLToPath(new URL("../js/", import.meta.url));
/** Every module of the client but the catalogues themselves. */
const modules = readdirSync(JS, { recursive: true })
  .filter((f) => f.endsWith(".js") && !f.startsWith("lang"))
  .map((f) => join(JS, f));

test("the scan finds a word wherever a player would see it", () => {
  const found = (src) => scan(src).words.map((w) => w.text);
  for (const src of [
    'h("p", {}, "hello")', // a child of h(), even one lower-case word
    'replace(el, "gone")',
    'say("Saved")',
    'speak("left")',
    'el.textContent = "done";',
    'h("button", { title: "deal" })',
    'h("input", { placeholder: "name", "aria-label": "who" })',
    'const x = "two words";', // reads as words anywhere
    'const y = "Pass";', // a capitalised word
    'const z = "пас";', // any letter outside ASCII
    "const w = `${n} cards left`;", // a template's fixed parts
    'f(cond ? "Your turn" : "Wait")',
  ]) {
    assert.ok(found(src).length > 0, src);
  }
});

test("the scan leaves code alone", () => {
  for (const src of [
    't("table.your_turn")',
    'h("div", { class: "hand mine", id: "hand" })',
    'import { x } from "./two words.js";',
    'if (e.code === "KeyC") f();',
    'const m = { "two words": 1 };',
    'document.querySelector(".card .back")',
    'console.log("a message for developers");',
    'throw new Error("a message for developers");',
    'el.addEventListener("click", f);',
    'switch (k) { case "MatchEnded": break; }',
    'const k = "MatchEnded";', // a CamelCase name, not a capitalised word
    'h("div", { "aria-live": "polite", scope: "col" })', // an attribute no one reads
    'text.trim().replace(/_/g, "$1 x")', // a string's replace, not the page's
  ]) {
    assert.deepEqual(scan(src).words, [], src);
  }
});

test("the scan reads the keys asked for, and a template's fixed start as a prefix", () => {
  const got = scan('t("a.b"); t(`error.${code}`, {x}); has("c.d"); t(`e.f`); seen.has("K");');
  assert.deepEqual(got.keys.sort(), ["a.b", "c.d", "e.f"]);
  assert.deepEqual(got.prefixes, ["error."]);
});

test("no module of the client writes a word itself: each comes from the catalogues", () => {
  assert.ok(modules.length >= 25, modules.join(" "));
  const words = modules.flatMap((m) => scanFile(m).words);
  assert.deepEqual(words.map((w) => `${w.file.slice(JS.length)}:${w.line}: ${JSON.stringify(w.text)}`), []);
});

test("every key the code asks for is in the catalogues, and every key there is asked for", () => {
  const keys = new Set(OWN_KEYS);
  const prefixes = new Set();
  for (const m of modules) {
    const found = scanFile(m);
    found.keys.forEach((k) => keys.add(k));
    found.prefixes.forEach((p) => prefixes.add(p));
  }
  for (const p of prefixes) assert.ok(p.length >= 3 && p.endsWith("."), `the fixed start "${p}" of a key made at run time must be a whole prefix ("error.")`);
  const en = Object.keys(CATALOGUES.en);
  const missing = [...keys].filter((k) => !Object.hasOwn(CATALOGUES.en, k));
  assert.deepEqual(missing.sort(), [], "keys the code asks for that no catalogue has");
  const unused = en.filter((k) => !keys.has(k) && ![...prefixes].some((p) => k.startsWith(p)));
  assert.deepEqual(unused.sort(), [], "keys no code asks for");
  for (const p of prefixes) assert.ok(en.some((k) => k.startsWith(p)), `no key starts with ${p}`);
});
