// Presence and the turn clock, as words: pure functions the table page calls.
//
// The data comes from the table's owner (docs/table.md, "Presence, missed turns,
// autoplay"): the view's and every `state` notice's `presence`, one line a seat
// {seat, human, connected (null for a bot), missed, autoplay}; a move the turn timer
// made for a player carries `acted_by: "timer"` on the socket; a bot taking a seat that
// kept missing, and its player taking it back, are the table's events
// SeatAutoplayStarted {seat, missed} and SeatAutoplayEnded {seat, by: "resume" | "move"}.
import { t } from "./i18n.js";

/** Every key this module gives out starts so (the catalogues' block "presence."). */
const PREFIX = "presence.";

/** The seat's badge: {key, values} of a catalogue text, or null for nothing to say.
 * A bot playing the seat says so first; then a player without a socket on the table;
 * then turns the timer played for a player who is connected (it may be away). A bot's
 * own seat, and a line that is missing, say nothing. */
export function seatPresence(entry) {
  if (!entry || !entry.human) return null;
  if (entry.autoplay) return { key: "presence.autoplay", values: {} };
  if (entry.connected === false) return { key: "presence.disconnected", values: {} };
  if (entry.missed > 0) return { key: "presence.missed", values: { count: entry.missed } };
  return null;
}

/** What the page offers the seat's own player (``mySeat``) whose seat a bot plays:
 * {key, action} (the note and the button that posts /v1/tables/{id}/seat/resume), or
 * null. Coming back to the page does not take the seat back by itself. */
export function resumeOffer(entries, mySeat) {
  const mine = (entries || []).find((e) => e.seat === mySeat);
  if (mySeat === null || mySeat === undefined || !mine || !mine.autoplay) return null;
  return { key: "presence.you_autoplay", action: "presence.take_back" };
}

/** The text of a badge or offer key above ({key, values} or a key alone), in the
 * page's language; "" for null. */
export function presenceText(what) {
  if (!what) return "";
  const key = typeof what === "string" ? what : what.key;
  return t(`presence.${key.slice(PREFIX.length)}`, typeof what === "string" ? {} : what.values);
}

/** The table log's line for a socket's event message (``{event, payload, acted_by}``)
 * about the clock, ``seatName`` naming the seat it concerns: a move the timer made for
 * a player, a bot taking a seat, a player taking it back. null for any other event. */
export function timeoutLine(event, seatName) {
  if (!event) return null;
  const name = seatName;
  const payload = event.payload || {};
  if (event.event === "SeatAutoplayStarted") {
    return t("presence.log.autoplay_started", { name, count: payload.missed ?? 0 });
  }
  if (event.event === "SeatAutoplayEnded") {
    const key = payload.by === "move" ? "presence.log.back_by_move" : "presence.log.back";
    return t(key, { name });
  }
  if (event.acted_by !== "timer") return null;
  // The core's event that is the seat's own move; the ones that follow it in the same
  // move (a trick taken, a deal scored) get no line of their own.
  switch (event.event) {
    case "CardPlayed":
      return t("presence.log.timeout_card", { name });
    case "Passed":
    case "ContractTaken":
      return t("presence.log.timeout_bid", { name });
    case "MeldDeclared":
    case "BeloteAnnounced":
    case "TrumpSevenSwapped":
    case "RedealDemanded":
      return t("presence.log.timeout_move", { name });
    default:
      return null;
  }
}
