// The web client's linter (issue 32): ESLint's recommended rules over the client's
// modules (the browser's globals), its Node tools and its tests (Node's). Run by
// tests/unit/test_web_lint.py, so by `make test` and CI; pinned in package.json.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["web/vendor/**", "node_modules/**", ".venv/**", ".belot/**"] },
  js.configs.recommended,
  {
    files: ["web/js/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["web/node/**/*.mjs", "web/test/**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
  },
];
