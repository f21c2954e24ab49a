// Getting others to a table: its invitation link with a Copy button, and the link from a
// tournament's table back to the tournament. The lobby places both on a player's own
// waiting table; the table page places them too.

import { t } from "./i18n.js";
import { h } from "./ui.js";

/** How long "Copied" stays after a copy (ms). */
const COPIED_MS = 4000;

/** The table's full address, to send to someone: location.origin + "#/table/ID". */
export function tableUrl(tableId, origin = globalThis.location?.origin ?? "") {
  return `${origin}/#/table/${encodeURIComponent(tableId)}`;
}

/**
 * The invitation to a table: its full address in a read-only field, a Copy button
 * (navigator.clipboard.writeText; where the page may not write the clipboard, the address
 * is selected for the player to copy) and a visible confirmation ("Copied", or "Selected:
 * press Ctrl+C"), said to screen readers too (role=status).
 */
export function inviteBox(tableId) {
  const url = tableUrl(tableId);
  const id = `invite-${tableId}`;
  const field = h("input", { id, class: "invite-url", type: "text", readonly: true, value: url, "aria-label": t("invite.link_label"), onfocus: (e) => e.target.select() });
  const done = h("span", { class: "invite-done", role: "status" });
  let timer = null;
  const show = (text) => {
    done.textContent = text;
    clearTimeout(timer);
    timer = setTimeout(() => (done.textContent = ""), COPIED_MS);
  };
  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
      await navigator.clipboard.writeText(url);
      show(t("invite.copied"));
    } catch {
      // Not allowed here (an insecure origin, a refused permission): the address selected.
      field.focus();
      field.select();
      show(t("invite.selected"));
    }
  };
  return h(
    "div",
    { class: "invite", dataset: { table: tableId } },
    h("label", { for: id }, t("invite.heading")),
    h("div", { class: "invite-row" }, field, h("button", { type: "button", class: "invite-copy", dataset: { key: `copy:${tableId}` }, onclick: copy }, t("invite.copy"))),
    done,
  );
}

/**
 * The link from a table to its tournament ("#/tournament/ID", named), or null for a
 * table that is no tournament's. ``summary``: the table's summary (GET /v1/tables/{id}'s
 * "table", or a lobby line) with ``tournament_id`` and ``tournament_name``.
 */
export function tournamentLink(summary) {
  const id = summary?.tournament_id;
  if (!id) return null;
  const name = summary.tournament_name;
  return h("a", { class: "tournament-link", href: `#/tournament/${encodeURIComponent(id)}`, dataset: { tournament: id } }, name ? t("invite.tournament_named", { name }) : t("invite.tournament"));
}
