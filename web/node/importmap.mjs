// Node 20 has no import maps, and the vendored noble modules import each other by bare
// names ("@noble/hashes/sha2.js"). Importing this module registers a resolve hook
// (hooks.mjs, module.register) that applies the import map of web/index.html itself, so
// that Node's tests load the very files, through the very mapping, the browser does: no
// node_modules, no copy of the map to drift.
//
// Two ways to use it:
//   - node --import ./web/node/importmap.mjs --test web/test/   (static imports work);
//   - in a test file: `import "../node/importmap.mjs";` then `await import("../js/drand.js")`
//     (a static import of drand.js would be resolved before this module has run), which
//     keeps plain `node --test web/test/` working.
// It lives outside web/test/ because `node --test` runs every .mjs file under a test/
// directory as a test file. The gateway does not serve web/node/.

import { register } from "node:module";
import { readFileSync } from "node:fs";

const webRoot = new URL("../", import.meta.url);

/** The import map of an HTML page: its `<script type="importmap">`'s JSON. */
export function importMapOf(html) {
  const found = [...html.matchAll(/<script\s+type="importmap"\s*>([\s\S]*?)<\/script\s*>/g)];
  if (found.length !== 1) throw new Error(`expected one import map in index.html, found ${found.length}`);
  const map = JSON.parse(found[0][1]);
  if (Object.keys(map).some((k) => k !== "imports")) throw new Error("only the import map's \"imports\" is supported here");
  return map;
}

/** [specifier prefix, file: URL] pairs, the longest prefix first (as import maps match). */
export function fileEntries(map, root = webRoot) {
  return Object.entries(map.imports)
    .map(([key, target]) => {
      if (!target.startsWith("/")) throw new Error(`import map target ${target} is not a path from the site's root`);
      return [key, new URL(target.slice(1), root).href];
    })
    .sort((a, b) => b[0].length - a[0].length);
}

const map = importMapOf(readFileSync(new URL("index.html", webRoot), "utf8"));
register("./hooks.mjs", import.meta.url, { data: { entries: fileEntries(map) } });
