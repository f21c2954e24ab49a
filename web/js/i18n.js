// The client's words: one catalogue of keys per language (lang/en.js, lang/ru.js,
// lang/bg.js, lang/fr.js), and the browser's Intl for what a catalogue cannot hold
// (which plural form a number takes, numbers, dates, lists). Every word a player can see
// is t(key) of the chosen catalogue; web/test/catalogue.test.mjs fails on a key one
// catalogue lacks, a key no code uses, a plural form missing for a language's categories,
// and (tests/unit/test_web_words.py) a word written in a module outside the catalogues.
//
// A catalogue maps a key to a text, "{name}" marking a value put in: t("table.to_bid",
// {name: "Ivan"}). A text that depends on a number is an object of the language's plural
// categories (Intl.PluralRules: English one/other, Russian one/few/many/other, French
// one/many/other) and is chosen by the value "count": t("hand.cards", {count: 5}).
//
// The pseudo-locale "en-XA" is no language: English made 40% longer and accented, for the
// layout tests (the longest language's words must fit); it is never offered in the menu.

import en from "./lang/en.js";
import ru from "./lang/ru.js";
import bg from "./lang/bg.js";
import fr from "./lang/fr.js";

/** The languages, in the menu's order: each is named in its own catalogue
 * ("language.name"). */
export const CATALOGUES = Object.freeze({ ru, bg, en, fr });
export const LANGUAGES = Object.freeze(Object.keys(CATALOGUES));
export const PSEUDO = "en-XA";
export const DEFAULT_LANGUAGE = "en";

let current = DEFAULT_LANGUAGE;

/** The language the words are in now ("ru", "bg", "en", "fr" or the pseudo-locale). */
export function language() {
  return current;
}

/** The language to start in: the one the player chose (kept by the store), else the first
 * of the browser's languages we have ("ru-RU" is Russian), else English. */
export function chooseLanguage(chosen, browserLanguages = []) {
  if (chosen === PSEUDO || LANGUAGES.includes(chosen)) return chosen;
  for (const tag of browserLanguages ?? []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return DEFAULT_LANGUAGE;
}

/** Speak ``code`` from now on (an unknown code is refused: false). The page's
 * ``<html lang>`` follows; the page draws itself again (app.js routes anew). */
export function setLanguage(code) {
  if (code !== PSEUDO && !LANGUAGES.includes(code)) return false;
  current = code;
  if (typeof document !== "undefined") document.documentElement.lang = code;
  return true;
}

function catalogue(code = current) {
  return CATALOGUES[code === PSEUDO ? DEFAULT_LANGUAGE : code];
}

/** The text of ``key`` in the current language, ``params`` put in ({name} marks). A
 * number is written as the language writes numbers; "count" chooses the plural form. A
 * key the catalogue lacks is said as the key itself (and the catalogue test fails). */
export function t(key, params = {}) {
  const entry = Object.hasOwn(catalogue(), key) ? catalogue()[key] : null;
  if (entry === null) return key;
  let text = entry;
  if (typeof entry === "object") {
    const form = plural(params.count ?? 0);
    text = entry[form] ?? entry.other;
  }
  if (current === PSEUDO) text = pseudo(text);
  return text.replace(/\{(\w+)\}/g, (mark, name) => (Object.hasOwn(params, name) ? value(params[name]) : mark));
}

/** The keys this module reads itself (the catalogue test counts them as used). */
export const OWN_KEYS = Object.freeze(["language.name"]);

/** A language's name in its own words ("Русский"), for the menu. */
export function nameOf(code) {
  return CATALOGUES[code === PSEUDO ? DEFAULT_LANGUAGE : code]?.["language.name"] ?? code;
}

/** Whether the catalogue has ``key`` (a refusal's code, a check's name). */
export function has(key) {
  return Object.hasOwn(catalogue(), key);
}

/** The locale the Intl APIs are given: the language's (English for the pseudo-locale). */
export function locale() {
  return current === PSEUDO ? DEFAULT_LANGUAGE : current;
}

/** The plural category of ``n`` in the current language ("one", "few", "many", "other"). */
export function plural(n) {
  return new Intl.PluralRules(locale()).select(Number(n));
}

function value(v) {
  return typeof v === "number" ? formatNumber(v) : String(v);
}

/** A number as the language writes it (1 234 in Russian and French, 1,234 in English);
 * integers only are grouped, so that points read like points. */
export function formatNumber(n) {
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: 2 }).format(n);
}

/** "a, b and c" / "a, b и c" / "a, b et c". */
export function andList(items) {
  return new Intl.ListFormat(locale(), { style: "long", type: "conjunction" }).format(items.map(String));
}

/** "a, b or c" / "a, b или c". */
export function orList(items) {
  return new Intl.ListFormat(locale(), { style: "long", type: "disjunction" }).format(items.map(String));
}

/** A moment (ms since the epoch) as the language writes a date and a time. */
export function formatTime(ms) {
  return new Date(ms).toLocaleString(locale());
}


// The pseudo-locale: each letter accented, each text 40% longer (padded with "~" inside
// brackets), the {marks} left as they are.
// A letter with an acute accent over it (composed where Unicode has the letter: "é").
const accented = (c) => (/[a-z]/i.test(c) ? `${c}\u0301`.normalize("NFC") : c);

export function pseudo(text) {
  const parts = text.split(/(\{\w+\})/);
  const body = parts.map((p, i) => (i % 2 ? p : [...p].map(accented).join(""))).join("");
  return `[${body}${"~".repeat(Math.ceil(text.length * 0.4))}]`;
}
