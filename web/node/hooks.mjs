// The resolve hook importmap.mjs registers: a bare specifier that an import map entry
// names (a prefix ending in "/", or an exact name) goes to the mapped file: URL; anything
// else resolves as Node always does.

let entries = [];

export function initialize(data) {
  entries = data.entries;
}

export function resolve(specifier, context, nextResolve) {
  for (const [key, target] of entries) {
    if (key === specifier) return nextResolve(target, context);
    if (key.endsWith("/") && specifier.startsWith(key)) {
      const url = new URL(specifier.slice(key.length), target).href;
      // As a browser does: a prefix match must stay under its target ("../" cannot escape).
      if (!url.startsWith(target)) throw new Error(`${specifier} backtracks above ${key}`);
      return nextResolve(url, context);
    }
  }
  return nextResolve(specifier, context);
}
