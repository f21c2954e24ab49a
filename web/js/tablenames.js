// How the table page names its seats and sides, from its state (tablestate.js) and from
// the seat it is drawn for: "you", a player's own name, "bot 2 (medium)", "seat 3"; "your
// side", "N–S"; a score as "ours:theirs". The views call these; the table's log in words
// (tablelog.js) reads them through wordsOf, with the score sheet's rows and the rebelote
// rule it also asks for.

import { has, t } from "./i18n.js";
import { upFirst } from "./names.js";
import { isRebelote, playersOf, seatOf, sheetRows } from "./tablestate.js";

/** A seat as the log names it: "you", a player's own name (as its owner wrote it),
 * "bot 2 (medium)", "seat 3" (numbered 1 to 4); ``start``: at a sentence's start. */
export function seatName(s, seat, start = false) {
  if (seat === null || seat === undefined) return "";
  const me = seatOf(s);
  const x = s.reply.table.seats[seat];
  if (seat !== me && x?.kind !== "bot" && x?.name) return x.name;
  let name;
  if (seat === me) name = t("table.seat.you");
  else if (x?.kind === "bot") name = t("table.seat.bot", { seat: seat + 1, level: has(`table.level.${x.level}`) ? t(`table.level.${x.level}`) : x.level });
  else name = t("table.seat.number", { seat: seat + 1 });
  return start ? upFirst(name) : name;
}

/** A side (0: the first and third seats, 1: the second and fourth; at two players,
 * the seat); ``start``: at a sentence's start ("Your side"). */
export function sideName(s, side, start = false) {
  if (playersOf(s) === 2) return seatName(s, side, start);
  const me = seatOf(s);
  let name;
  if (me === null) name = side === 0 ? t("table.side.ns_seats") : t("table.side.ew_seats");
  else name = side === me % 2 ? t("table.side.yours") : t("table.side.theirs");
  return start ? upFirst(name) : name;
}

/** Who a side is, for a sentence's verb: "you" (at two players), "side" (a pair of
 * seats), "seat" (one seat, named). */
export function sideKind(s, side) {
  if (playersOf(s) !== 2) return "side";
  return side === seatOf(s) ? "you" : "seat";
}

/** "ours:theirs" from a seat's point of view (seats 1 and 3 first for a spectator). */
export function scoreText(s, scores) {
  const mine = (seatOf(s) ?? 0) % 2;
  return `${scores[mine]}:${scores[1 - mine]}`;
}

/** What tablelog.js reads of the page (describe, endText): the seat drawn for, the
 * names above, the score sheet's rows and whether a belote is the second. */
export function wordsOf(s, rulesets) {
  return {
    seat: seatOf(s),
    seatName: (seat, start) => seatName(s, seat, start),
    sideName: (side, start) => sideName(s, side, start),
    sideKind: (side) => sideKind(s, side),
    scoreText: (scores) => scoreText(s, scores),
    sheetRows: () => sheetRows(s, rulesets),
    isRebelote: (m) => isRebelote(s, m),
  };
}
