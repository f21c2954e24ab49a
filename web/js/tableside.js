// The panels beside the felt (under it on a phone), drawn from the page's state
// (tablestate.js): the score sheet, one row a scored deal (sheet.js), from this seat's
// side; and the table's log, the latest line first. (The fair deal's panel is
// dealpanel.js's, the chat chat.js's.)

import { t } from "./i18n.js";
import { upFirst } from "./names.js";
import { sheetTable } from "./sheet.js";
import { seatName, sideName } from "./tablenames.js";
import { playersOf, seatOf, sheetRows } from "./tablestate.js";
import { h } from "./ui.js";

/** The score sheet, this seat's side first (N–S for a spectator), under ``rulesets``. */
export function sheetPanel(s, rulesets) {
  const me = seatOf(s);
  const mySide = me === null ? 0 : me % 2;
  const names = playersOf(s) === 2 ? [sideName(s, mySide, true), sideName(s, 1 - mySide, true)] : me === null ? [t("table.side.ns"), t("table.side.ew")] : [upFirst(t("table.side.us")), upFirst(t("table.side.them"))];
  return sheetTable(sheetRows(s, rulesets), { first: mySide, names, seatName: (x) => seatName(s, x, true) });
}

/** The table's log, the latest line first. */
export function logPanel(s) {
  return h("section", { class: "log", dataset: { region: "log" } }, h("h2", {}, t("table.log_title")), h("ol", { id: "log", reversed: true, tabindex: 0, "aria-label": t("table.log_title") }, s.log.slice().reverse().map((l) => h("li", { class: l.kind }, l.text))));
}
