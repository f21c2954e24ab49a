// The table's chat and the rematch offer, mounted on a table page by one call
// (a ChatPanel that table.js's page owns). What it shows:
//   - what players at the table wrote (the gateway sends it only to them: docs/gateway.md
//     "The tables' chat"), with a box to write (300 characters; the gateway refuses past
//     5 messages in 10 s and the refusal is said under the box);
//   - the table's own lines, which the gateway derives from the log's fair-deal events
//     (the commitment, drand's round or the fallback, the server seed revealed);
//   - the tab's own line when its check finds a failure (said by this tab, never sent);
//   - at the end of the match, a "Rematch" button for a player of it, and for each
//     rematch another player took, a button to take one's seat there.
// The table page owns the panel (table.js) and calls it: each WebSocket message goes to
// take() (the "chat" messages and the match's ending), place() puts the panel in the
// page's #chat-slot after each drawing, and stop() ends it with the page. It reads the
// page's state (tablestate.js: the seat, the reply, the ending, what already failed) and
// the kept record, and changes neither, nor any of the page's methods.
// Its words, the table's own lines included, are the catalogue's (chat.*), said in the
// language of the moment each time the lines are drawn; what players wrote is theirs.

import { language, t } from "./i18n.js";
import { newSeatKey } from "./seatkey.js";
import { errorText, h, replace } from "./ui.js";
import { patch } from "./patch.js";
import { fallbackReason } from "./names.js";
import { checkName } from "./fairdeal.js";
import { seatOf } from "./tablestate.js";

const MAX_TEXT = 300;
const SHOWN = 200;
const CHECK_POLL_MS = 500;
const STYLESHEET = "/css/pages.css";
// The list's aria-live value (an ARIA keyword, not a word).
const POLITE = "polite";
// The table's own lines by the log's event (services/gateway/domain.py table_line): the
// catalogue's key under chat.line.
const TABLE_LINES = Object.freeze({ ServerSeedCommitted: "committed", DrandRoundNamed: "round_named", DrandFallback: "fallback", ServerSeedRevealed: "revealed" });

/** A line of the table's own in the current language, from the event's facts; the
 * gateway's English text for an event this client does not know. */
export function tableLineText(m) {
  const f = m.facts ?? {};
  if (!Object.hasOwn(TABLE_LINES, m.event ?? "") || !m.facts) return m.text ?? "";
  // Identifiers, not quantities: a drand round is written as the log has it (no grouping).
  const facts = { commitment: String(f.commitment), round: String(f.round), chain: String(f.chain), reason: fallbackReason(String(f.reason)), seed: String(f.server_seed) };
  return t(`chat.line.${TABLE_LINES[m.event]}`, facts);
}

/** What a line says: a player's text as written, the table's and the tab's in words. */
function lineText(m) {
  if (m.kind === "table") return tableLineText(m);
  if (m.kind === "tab" && m.check) return t("chat.tab_failed", { name: checkName(m.check.name), detail: m.check.detail });
  return m.text;
}

/** Who said a line: "you: ", "ann: ", "table: ", "this tab: ". */
function whoOf(m, me) {
  if (m.kind === "say" || m.kind === "rematch") {
    if (m.player === me) return t("chat.who_you");
    return m.name ? t("chat.who_player", { name: m.name }) : t("chat.who_someone");
  }
  return m.kind === "tab" ? t("chat.who_tab") : t("chat.who_table");
}

/** Add the pages' stylesheet once (the CSP allows this origin's stylesheets). */
export function useStylesheet() {
  if (document.querySelector(`link[href="${STYLESHEET}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href: STYLESHEET }));
}

/** The chat panel of a table page. The page owns it and calls it: ``take`` for each of
 * its WebSocket's messages, ``place`` after each drawing, ``stop`` when it closes.
 * ``state``: the page's (tablestate.js); ``ctx``: the app's (the session, the gateway,
 * the store); ``kept``: the kept record of the match, read now. */
export class ChatPanel {
  constructor(state, ctx, kept) {
    this.state = state;
    this.ctx = ctx;
    this.kept = kept;
    this.messages = new Map(); // id -> message
    this.localFailures = new Set();
    this.ended = false;
    this.list = h("ol", { id: "chat-lines", class: "chat-lines", "aria-live": POLITE, tabindex: 0, "aria-label": t("chat.title") });
    this.input = h("input", { id: "chat-text", name: "text", maxlength: MAX_TEXT, autocomplete: "off", placeholder: t("chat.placeholder"), "aria-label": t("chat.message_label") });
    this.error = h("div", { id: "chat-error", class: "chat-error", role: "alert" });
    this.sendButton = h("button", { type: "submit", id: "chat-send" }, t("chat.say"));
    this.form = h("form", { id: "chat-form", class: "chat-form", onsubmit: (e) => (e.preventDefault(), this.send()) }, this.input, this.sendButton);
    this.rematch = h("div", { id: "rematch", class: "rematch" });
    this.heading = h("h2", {}, t("chat.title"));
    this.el = h("section", { class: "chat", id: "chat", dataset: { region: "chat" } }, this.heading, this.list, this.form, this.error, this.rematch);
    this.timer = setInterval(() => this.watchCheck(), CHECK_POLL_MS);
    this.update();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** After the page drew ``root``: the panel in its slot, and brought up to date. The
   * table's frame is kept across redraws (tableframe.js): the panel is put in its slot
   * once, and again only when the frame is new, keeping what was being typed. */
  place(root) {
    const slot = root.querySelector("#chat-slot") ?? root.querySelector("#table") ?? root;
    if (this.el.parentNode !== slot) {
      const focused = this.el.contains(document.activeElement) ? document.activeElement : null;
      slot.append(this.el);
      focused?.focus();
    }
    this.update();
  }

  /** Seated at this table (the gateway's rule for who may talk). */
  get seated() {
    return seatOf(this.state) !== null;
  }

  take(m) {
    if (m.type === "chat" && m.table === this.state.tableId) {
      this.messages.set(m.message.id, m.message);
      this.draw();
    } else if (m.type === "event" && ["MatchEnded", "MatchForfeited", "MatchAborted"].includes(m.event)) {
      this.ended = true;
      this.update();
    }
  }

  /** The tab's own line when its check fails: said here, to this player only. */
  watchCheck() {
    const failed = [...this.state.liveCheck.failed, ...(this.kept()?.check?.checks ?? []).filter((c) => c.status === "fail")];
    let added = false;
    for (const c of failed) {
      if (this.localFailures.has(c.name)) continue;
      this.localFailures.add(c.name);
      const id = `local:${c.name}`;
      this.messages.set(id, { id, kind: "tab", check: { name: c.name, detail: c.detail }, at_ms: Date.now() });
      added = true;
    }
    if (added) this.draw();
  }

  /** The panel's own words again, in the language of now (the page redraws on a change
   * of language; the panel is kept across renders). */
  relabel() {
    if (this.labelledIn === language()) return;
    this.labelledIn = language();
    this.input.placeholder = t("chat.placeholder");
    this.input.setAttribute("aria-label", t("chat.message_label"));
    this.sendButton.textContent = t("chat.say");
    this.heading.textContent = t("chat.title");
  }

  update() {
    this.relabel();
    if (this.drawnIn !== language()) this.draw(); // the lines again, in the new language
    const r = this.state.reply;
    const over = this.ended || r?.status === "finished" || r?.status === "closed" || !!this.state.ending;
    this.form.hidden = !this.seated;
    this.el.dataset.seated = this.seated ? "yes" : "no";
    const offers = [...this.messages.values()].filter((m) => m.kind === "rematch" && m.player !== this.ctx.session?.player);
    const mine = [...this.messages.values()].find((m) => m.kind === "rematch" && m.player === this.ctx.session?.player);
    const played = over && this.seated;
    const rematch = h(
      "div",
      { id: "rematch", class: "rematch" },
      played && !mine && !offers.length ? h("button", { type: "button", id: "rematch-button", onclick: () => this.takeRematch() }, t("chat.rematch")) : null,
      played && !mine ? offers.map((m) => h("button", { type: "button", class: "take-rematch", dataset: { table: m.rematch }, onclick: () => this.takeRematch() }, m.name ? t("chat.offers_rematch", { name: m.name }) : t("chat.someone_offers_rematch"))) : null,
      mine ? h("a", { href: `#/table/${encodeURIComponent(mine.rematch)}`, id: "rematch-link" }, t("chat.go_rematch")) : null,
    );
    // Patched in (patch.js): a redraw of the table changes nothing here.
    this.rematch = patch(this.rematch, rematch);
  }

  draw() {
    this.drawnIn = language();
    const lines = [...this.messages.values()].sort((a, b) => (a.at_ms ?? 0) - (b.at_ms ?? 0) || (a.id < b.id ? -1 : 1)).slice(-SHOWN);
    replace(
      this.list,
      lines.map((m) =>
        h(
          "li",
          { class: `chat-line ${m.kind}`, dataset: { id: m.id, kind: m.kind } },
          h("b", { class: "who" }, whoOf(m, this.ctx.session?.player)),
          lineText(m),
        ),
      ),
    );
    this.list.scrollTop = this.list.scrollHeight;
    this.update();
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      const { message } = await this.ctx.gateway.request("POST", `/v1/tables/${encodeURIComponent(this.state.tableId)}/chat`, { text });
      this.messages.set(message.id, message);
      this.input.value = "";
      this.error.textContent = "";
      this.draw();
    } catch (e) {
      this.error.textContent = errorText(e, t("chat.saying"));
    }
  }

  async takeRematch() {
    try {
      const key = newSeatKey();
      const reply = await this.ctx.gateway.request("POST", `/v1/tables/${encodeURIComponent(this.state.tableId)}/rematch`, { key: key.key });
      this.ctx.store?.saveSeatKey(reply.table_id, key);
      this.ctx.flash = t("chat.rematch_taken");
      location.hash = `#/table/${encodeURIComponent(reply.table_id)}`;
    } catch (e) {
      this.error.textContent = errorText(e, t("chat.opening_rematch"));
    }
  }
}
