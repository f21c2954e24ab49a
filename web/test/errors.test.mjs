// The client's words for the servers' error codes (web/js/ui.js ERROR_CODES, said by the
// catalogues' "error.<code>"): each code has words of its own in each language, and a
// refusal is said with them. That no code the services answer with is missing is checked
// from their source by tests/unit/test_web_errors.py.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { cardLabel } from "../js/cards.js";
import { LANGUAGES, setLanguage } from "../js/i18n.js";
import { ERROR_CODES, errorText, errorWords } from "../js/ui.js";

const codes = [...ERROR_CODES];

afterEach(() => setLanguage("en"));

test("the codes the audit found unsaid have words", () => {
  for (const code of ["seat_reserved", "not_started", "seed_window_closed", "seed_already_sent", "seed_not_hex", "seed_wrong_length", "unknown_seat", "wrong_deck", "bad_request"]) {
    assert.ok(codes.includes(code), code);
  }
  assert.equal(new Set(codes).size, codes.length, "each code listed once");
});

test("every code has words of its own in each language, said as a sentence", () => {
  for (const language of LANGUAGES) {
    setLanguage(language);
    const seen = new Map();
    for (const code of codes) {
      const words = errorWords(code);
      assert.match(code, /^[a-z]+(_[a-z]+)*$/, `${code}: a snake_case code`);
      assert.equal(typeof words, "string", `${language} ${code}: no words`);
      assert.match(words, /^\p{Lu}/u, `${language} ${code}: starts with a capital`);
      assert.doesNotMatch(words, /[.\s]$/, `${language} ${code}: errorText ends the sentence`);
      assert.notEqual(words.toLowerCase(), code.replaceAll("_", " "), `${language} ${code}: more than the code`);
      assert.ok(!seen.has(words), `${language}: ${code} says the same as ${seen.get(words)}: "${words}"`);
      seen.set(words, code);
    }
  }
});

test("a language other than English says the code in its own words", () => {
  const english = codes.map((code) => errorWords(code));
  for (const language of LANGUAGES.filter((l) => l !== "en")) {
    setLanguage(language);
    const same = codes.filter((code, i) => errorWords(code) === english[i]);
    assert.deepEqual(same, [], `${language}: left in English`);
  }
});

test("a refusal is said with the code's words, then the server's reason", () => {
  for (const code of codes) {
    assert.equal(errorText({ code, message: "" }, "Sending your seed"), `Sending your seed: ${errorWords(code)}.`);
  }
  assert.equal(
    errorText({ code: "seat_reserved", message: "seat 1 is kept for another player" }, "Taking seat 1"),
    "Taking seat 1: That seat is kept for another player — seat 1 is kept for another player.",
  );
  // The reason is not repeated when it says the same as the words.
  assert.equal(errorText({ code: "match_over", message: "the match is over" }), "The match is over.");
  // Cards and contracts in the reason as the table shows them.
  assert.equal(
    errorText({ code: "illegal_card", message: "AH may not be played: you must follow diamonds (allowed: 8D KD)", details: { card: "AH", rule: "follow", suit: "D", allowed: ["8D", "KD"] } }),
    `You cannot play that card now — ${cardLabel("AH")} may not be played: you must follow diamonds (allowed: ${cardLabel("8D")} ${cardLabel("KD")}).`,
  );
  assert.equal(errorText({ code: "bid_not_allowed", message: "all_trumps is below the bid" }), "That bid is not allowed now — all trumps is below the bid.");
});

test("a code the client does not know is still said, never an object's property", () => {
  assert.equal(errorText({ code: "brand_new_code", message: "why" }, "Playing"), "Playing: brand new code — why.");
  assert.equal(errorText({ code: "constructor", message: "" }), "constructor.");
  assert.equal(errorText({ message: "boom" }), "Something went wrong — boom.");
  for (const language of LANGUAGES) {
    setLanguage(language);
    assert.equal(errorWords("constructor"), null);
    assert.equal(errorWords("toString"), null);
  }
});

test("in another language the server's English is not shown; the refusal's facts are", () => {
  const illegal = {
    code: "illegal_card",
    message: "AH may not be played: you must follow diamonds (allowed: 8D KD)",
    details: { card: "AH", rule: "follow", suit: "D", allowed: ["8D", "KD"] },
  };
  for (const language of LANGUAGES.filter((l) => l !== "en")) {
    setLanguage(language);
    const said = errorText(illegal, "Playing");
    assert.ok(!said.includes("may not be played"), `${language}: ${said}`);
    assert.ok(!said.includes("diamonds"), `${language}: ${said}`);
    assert.ok(said.startsWith(`Playing${language === "fr" ? " :" : ":"} ${errorWords("illegal_card")} — `), `${language}: ${said}`);
    for (const card of ["AH", "8D", "KD"]) assert.ok(said.includes(cardLabel(card)), `${language}: ${card} in ${said}`);
    assert.ok(said.endsWith("."), said);
    // Each rule has its own sentence; a refusal without details is its words alone.
    const rules = new Set();
    for (const [rule, suit] of [["follow", "D"], ["follow", null], ["overtrump", "H"], ["trump", "D"], ["trump", null], ["beat_trump", null]]) {
      const text = errorText({ ...illegal, details: { ...illegal.details, rule, suit } });
      assert.doesNotMatch(text, /\{\w+\}|ui\.|error\./, `${language} ${rule}: ${text}`);
      rules.add(text);
    }
    assert.equal(rules.size, 6, `${language}: a sentence per rule`);
    assert.equal(errorText({ code: "illegal_card", message: "AH may not be played" }), `${errorWords("illegal_card")}.`);
    assert.equal(errorText({ code: "seat_reserved", message: "seat 1 is kept" }), `${errorWords("seat_reserved")}.`);
    // Details of an unexpected shape say nothing rather than something wrong.
    assert.equal(errorText({ code: "illegal_card", details: { card: "ZZ", allowed: "8D" } }), `${errorWords("illegal_card")}.`);
    // A wait, in the language's plural.
    const wait = errorText({ code: "rate_limited", message: "too many requests: wait 5 s", details: { retry_after: 5 } });
    assert.ok(wait.startsWith(`${errorWords("rate_limited")} — `) && wait.includes("5") && !wait.includes("too many"), `${language}: ${wait}`);
    // A code the client does not know is named, and no English reason follows.
    const unknown = errorText({ code: "brand_new_code", message: "why" });
    assert.ok(unknown.includes("brand_new_code") && !unknown.includes("why"), `${language}: ${unknown}`);
    assert.ok(!errorText({ message: "boom" }).includes("boom"), language);
  }
});

test("Russian says the suit to follow and the cards allowed", () => {
  setLanguage("ru");
  const said = errorText({ code: "illegal_card", message: "AH may not be played: you must follow diamonds (allowed: 8D KD)", details: { card: "AH", rule: "follow", suit: "D", allowed: ["8D", "KD"] } });
  assert.equal(said, `Эту карту сейчас играть нельзя — ${cardLabel("AH")}: нужно ходить в масть (бубны). Можно сыграть ${cardLabel("8D")} или ${cardLabel("KD")}.`);
  assert.equal(errorText({ code: "rate_limited", details: { retry_after: 5 } }), "Слишком много запросов — подождите 5 секунд.");
  assert.equal(errorText({ code: "rate_limited", details: { retry_after: 2 } }), "Слишком много запросов — подождите 2 секунды.");
});

test("a refused name's reason in the player's language, the scripts by their names there", () => {
  const mixed = { code: "bad_name", message: "name: a name is written in one script, not a mix (Cyrillic and Latin): …", details: { reason: "scripts", scripts: ["Cyrillic", "Latin"] } };
  const control = { code: "bad_name", message: "…", details: { reason: "character", kind: "control", code_point: "U+0007" } };
  const short = { code: "bad_name", message: "…", details: { reason: "length", min: 3, max: 32, length: 2 } };
  try {
    setLanguage("ru");
    const said = errorText(mixed, "Регистрация");
    assert.match(said, /кириллица/i);
    assert.match(said, /латиница/i);
    assert.match(said, /одним алфавитом/);
    assert.doesNotMatch(said, /script|Cyrillic/);
    assert.match(errorText(control), /управляющих символов \(U\+0007\)/);
    assert.match(errorText(short), /от 3 до 32/);
    setLanguage("fr");
    assert.match(errorText(mixed), /cyrillique/i);
    setLanguage("bg");
    assert.match(errorText(mixed), /кирилица/i);
  } finally {
    setLanguage("en");
  }
  // In English the server's own reason, as before.
  assert.match(errorText(mixed), /one script, not a mix \(Cyrillic and Latin\)/);
});
