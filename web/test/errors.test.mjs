// The client's words for the servers' error codes (web/js/ui.js ERROR_WORDS): each code
// has words of its own, and a refusal is said with them. That no code the services
// answer with is missing is checked from their source by tests/unit/test_web_errors.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ERROR_WORDS, errorText } from "../js/ui.js";

const codes = Object.keys(ERROR_WORDS);

test("the codes the audit found unsaid have words", () => {
  for (const code of ["seat_reserved", "not_started", "seed_window_closed", "seed_already_sent", "seed_not_hex", "seed_wrong_length", "unknown_seat", "wrong_deck", "bad_request"]) {
    assert.ok(codes.includes(code), code);
  }
});

test("every code has words of its own, said as a sentence", () => {
  const seen = new Map();
  for (const [code, words] of Object.entries(ERROR_WORDS)) {
    assert.match(code, /^[a-z]+(_[a-z]+)*$/, `${code}: a snake_case code`);
    assert.equal(typeof words, "string", code);
    assert.match(words, /^[A-Z]/, `${code}: starts with a capital`);
    assert.doesNotMatch(words, /[.\s]$/, `${code}: errorText ends the sentence`);
    assert.notEqual(words.toLowerCase(), code.replaceAll("_", " "), `${code}: more than the code`);
    assert.ok(!seen.has(words), `${code} says the same as ${seen.get(words)}: "${words}"`);
    seen.set(words, code);
  }
});

test("a refusal is said with the code's words, then the server's reason", () => {
  for (const code of codes) {
    assert.equal(errorText({ code, message: "" }, "Sending your seed"), `Sending your seed: ${ERROR_WORDS[code]}.`);
  }
  assert.equal(
    errorText({ code: "seat_reserved", message: "seat 1 is kept for another player" }, "Taking seat 1"),
    "Taking seat 1: That seat is kept for another player — seat 1 is kept for another player.",
  );
  // The reason is not repeated when it says the same as the words.
  assert.equal(errorText({ code: "match_over", message: "the match is over" }), "The match is over.");
});

test("a code the client does not know is still said, never an object's property", () => {
  assert.equal(errorText({ code: "brand_new_code", message: "why" }, "Playing"), "Playing: brand new code — why.");
  assert.equal(errorText({ code: "constructor", message: "" }), "constructor.");
  assert.equal(errorText({ message: "boom" }), "Something went wrong — boom.");
});
