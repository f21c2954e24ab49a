// The words scan: every text a player can see must come from the catalogues (web/js/lang/),
// so a module of the client that writes a word itself is found here. acorn (pinned in
// package.json) reads each module; a string or template literal is a player's word when
//   - it is shown: a child of h() or replace(), what say()/speak() says, a value given to
//     textContent, title, placeholder or alt, or an element's title, aria-label,
//     placeholder, alt or label attribute; and it holds a letter; or
//   - it reads as words wherever it is: two words with a space between, a capitalised
//     word ("Pass"), or any letter outside ASCII (a Cyrillic word in the code).
// Not words: the key given to t(), import paths, property names, an element's tag, class,
// id and the like, selectors and event names, console lines and Error messages (for
// developers: what a player is told of an error comes from its code, ui.js errorText).
// It also lists the keys the code asks for (t("a.b") literally, or a template's fixed
// start "error.${code}" standing for every key it can make), for the catalogue test.

import { readFileSync } from "node:fs";
import * as acorn from "acorn";
import * as walk from "acorn-walk";

const SHOWN_ATTRS = new Set(["title", "aria-label", "placeholder", "alt", "label", "aria-description", "aria-roledescription"]);
const SHOWN_PROPS = new Set(["textContent", "title", "placeholder", "alt", "innerText", "ariaLabel"]);
const CODE_CALLS = new Set(["querySelector", "querySelectorAll", "getElementById", "closest", "matches", "addEventListener", "removeEventListener", "setAttribute", "getAttribute", "removeAttribute", "hasAttribute", "add", "remove", "toggle", "contains", "createElement", "dispatchEvent", "postMessage", "getItem", "setItem", "removeItem", "fetch", "importKey", "digest", "encode", "Event", "CustomEvent", "URL", "WebSocket", "URLSearchParams", "RegExp"]);
const KEY_CALLS = new Set(["t", "has"]);

/** Whether a text reads as words anywhere it stands. */
export function wordy(text) {
  const twoWords = /\p{L}{2,}[ \u00a0]+\p{L}{2,}/u.test(text);
  const capitalised = /^\s*\p{Lu}\p{Ll}+(?=$|[\s.,:;!?…])/u.test(text); // "Pass", not "MatchEnded"
  // eslint-disable-next-line no-control-regex -- the whole ASCII range, controls included
  const notAscii = /\p{L}/u.test(text.replace(/[\x00-\x7f]/g, ""));
  return twoWords || capitalised || notAscii;
}

function calleeName(node) {
  const c = node.callee;
  if (c.type === "Identifier") return c.name;
  if (c.type === "MemberExpression" && !c.computed) return c.property.name;
  return null;
}

function calleeObject(node) {
  const c = node.callee;
  return c.type === "MemberExpression" && c.object.type === "Identifier" ? c.object.name : null;
}

/** The literal's text: a string's value, a template's fixed parts joined by a space. */
function textOf(node) {
  if (node.type === "Literal") return typeof node.value === "string" ? node.value : null;
  return node.quasis.map((q) => q.value.cooked ?? "").join(" ");
}

/** What the literal is to its parents: "key" (t's argument), "code" (a name for the
 * code: import, property name, tag, class, selector, developer's message), "shown" (a
 * player sees it), or "other" (judged by how it reads). */
function role(node, ancestors) {
  for (let i = ancestors.length - 2; i >= 0; i--) {
    const parent = ancestors[i];
    const child = ancestors[i + 1];
    switch (parent.type) {
      case "ImportDeclaration":
      case "ExportNamedDeclaration":
      case "ExportAllDeclaration":
      case "ImportExpression":
        return "code";
      case "Property":
        if (parent.key === child) return "code";
        // A property's value (h()'s attributes among them): shown when its name says so,
        // else judged by how it reads ("aria-live": "polite" is not shown).
        {
          const name = parent.key.type === "Identifier" ? parent.key.name : parent.key.value;
          if (SHOWN_ATTRS.has(name)) return "shown";
          if (["class", "id", "type", "name", "for", "href", "role", "autocomplete", "rel", "target", "method", "lang", "inputmode", "pattern", "dataset", "key", "kind", "code", "status", "phase", "op", "check", "event", "state"].includes(name)) return "code";
        }
        return "other";
      case "MemberExpression":
        if (parent.property === child) return "code"; // obj["name"]
        break;
      case "NewExpression":
        if (/Error$/.test(parent.callee.name ?? "")) return "code";
        if (CODE_CALLS.has(parent.callee.name)) return "code";
        return "other";
      case "CallExpression": {
        const name = calleeName(parent);
        const object = calleeObject(parent);
        if (object === "console") return "code";
        // t(key) and has(key), called by their own names (a Set's .has is not one).
        if (KEY_CALLS.has(name) && parent.callee.type === "Identifier" && parent.arguments[0] === child) return "key";
        if (CODE_CALLS.has(name)) return "code";
        // The page's own helpers, called by their names (a string's .replace is not one).
        const own = parent.callee.type === "Identifier";
        if (own && name === "h") return parent.arguments[0] === child ? "code" : "shown";
        if (own && name === "replace") return parent.arguments[0] === child ? "code" : "shown";
        if (own && (name === "say" || name === "speak") && parent.arguments[0] === child) return "shown";
        return "other";
      }
      case "AssignmentExpression":
        if (parent.right === child && parent.left.type === "MemberExpression" && SHOWN_PROPS.has(parent.left.property.name)) return "shown";
        return "other";
      case "BinaryExpression":
        if (["===", "!==", "==", "!=", "in"].includes(parent.operator)) return "code";
        break;
      case "SwitchCase":
        if (parent.test === child) return "code";
        break;
      case "ThrowStatement":
        return "code";
      case "TaggedTemplateExpression":
        return "code";
      default:
        break;
    }
    // A statement or a declaration: the literal stands on its own; how it reads judges it.
    if (["ExpressionStatement", "VariableDeclarator", "ReturnStatement", "ArrowFunctionExpression"].includes(parent.type)) return "other";
  }
  return "other";
}

/** Scan one module's source: {words: [{line, text}], keys: [key], prefixes: [prefix]}. */
export function scan(source, file = "<module>") {
  const ast = acorn.parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true });
  const words = [];
  const keys = new Set();
  const prefixes = new Set();
  const visit = (node, ancestors) => {
    if (node.type === "TemplateElement") return;
    if (node.type === "TemplateLiteral" && ancestors.at(-2)?.type === "TaggedTemplateExpression") return;
    const text = textOf(node);
    if (text === null) return;
    const r = role(node, ancestors);
    if (r === "key") {
      if (node.type === "Literal" || node.expressions.length === 0) keys.add(text.trim());
      else prefixes.add(node.quasis[0].value.cooked);
      return;
    }
    if (r === "code") return;
    const shownWord = r === "shown" && /\p{L}/u.test(text);
    if (shownWord || wordy(text)) words.push({ file, line: node.loc.start.line, text });
  };
  walk.fullAncestor(ast, (node, _state, ancestors) => {
    if (node.type === "Literal" || node.type === "TemplateLiteral") visit(node, ancestors);
  });
  return { words, keys: [...keys], prefixes: [...prefixes] };
}

export function scanFile(path) {
  return scan(readFileSync(path, "utf8"), path);
}

// node web/node/wordscan.mjs FILE...: print each word found, exit 1 if any.
if (import.meta.url === `file://${process.argv[1]}`) {
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const w of scanFile(file).words) {
      found++;
      console.log(`${w.file}:${w.line}: ${JSON.stringify(w.text)}`);
    }
  }
  process.exit(found ? 1 : 0);
}
