export * as common from "./common.js";
export * as game from "./game.js";
export * as table from "./table.js";
export * as fair from "./fair.js";
export * as check from "./check.js";
export * as pages from "./pages.js";
export * as errors from "./errors.js";
