// The table's chat and the rematch offer, mounted on a table page by one call
// (mountChat(page) in table.js). What it shows:
//   - what players at the table wrote (the gateway sends it only to them: docs/gateway.md
//     "The tables' chat"), with a box to write (300 characters; the gateway refuses past
//     5 messages in 10 s and the refusal is said under the box);
//   - the table's own lines, which the gateway derives from the log's fair-deal events
//     (the commitment, drand's round or the fallback, the server seed revealed);
//   - the tab's own line when its check finds a failure (said by this tab, never sent);
//   - at the end of the match, a "Rematch" button for a player of it, and for each
//     rematch another player took, a button to take one's seat there.
// It hooks into the page, not the other way round: it wraps the page's onMessage (the
// WebSocket's "chat" messages and the match's ending), re-attaches its panel after each
// render (the page redraws its whole root) and stops with the page.

import { newSeatKey } from "./seatkey.js";
import { errorText, h, replace } from "./ui.js";

const MAX_TEXT = 300;
const SHOWN = 200;
const CHECK_POLL_MS = 500;
const STYLESHEET = "/css/pages.css";

/** Add the pages' stylesheet once (the CSP allows this origin's stylesheets). */
export function useStylesheet() {
  if (document.querySelector(`link[href="${STYLESHEET}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href: STYLESHEET }));
}

export function mountChat(page) {
  useStylesheet();
  const chat = new ChatPanel(page);
  const onMessage = page.onMessage.bind(page);
  page.onMessage = (m) => {
    onMessage(m);
    chat.take(m);
  };
  const render = page.render.bind(page);
  page.render = () => {
    const focused = chat.el.contains(document.activeElement) ? document.activeElement : null;
    render();
    (page.root.querySelector("#table") ?? page.root).append(chat.el);
    chat.update();
    focused?.focus();
  };
  const stop = page.stop.bind(page);
  page.stop = () => {
    chat.stop();
    stop();
  };
  return chat;
}

class ChatPanel {
  constructor(page) {
    this.page = page;
    this.messages = new Map(); // id -> message
    this.localFailures = new Set();
    this.ended = false;
    this.list = h("ol", { id: "chat-lines", class: "chat-lines", "aria-live": "polite" });
    this.input = h("input", { id: "chat-text", name: "text", maxlength: MAX_TEXT, autocomplete: "off", placeholder: "Say something to the table", "aria-label": "Message to the table" });
    this.error = h("div", { id: "chat-error", class: "chat-error", role: "alert" });
    this.form = h("form", { id: "chat-form", class: "chat-form", onsubmit: (e) => (e.preventDefault(), this.send()) }, this.input, h("button", { type: "submit", id: "chat-send" }, "Say"));
    this.rematch = h("div", { id: "rematch", class: "rematch" });
    this.el = h("section", { class: "chat", id: "chat" }, h("h2", {}, "Table chat"), this.list, this.form, this.error, this.rematch);
    this.timer = setInterval(() => this.watchCheck(), CHECK_POLL_MS);
    this.update();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Seated at this table (the gateway's rule for who may talk). */
  get seated() {
    return this.page.seat !== null && this.page.seat !== undefined;
  }

  take(m) {
    if (m.type === "chat" && m.table === this.page.tableId) {
      this.messages.set(m.message.id, m.message);
      this.draw();
    } else if (m.type === "event" && ["MatchEnded", "MatchForfeited", "MatchAborted"].includes(m.event)) {
      this.ended = true;
      this.update();
    }
  }

  /** The tab's own line when its check fails: said here, to this player only. */
  watchCheck() {
    const failed = [...(this.page.liveCheck?.failed ?? []), ...(this.page.kept?.()?.check?.checks ?? []).filter((c) => c.status === "fail")];
    let added = false;
    for (const c of failed) {
      if (this.localFailures.has(c.name)) continue;
      this.localFailures.add(c.name);
      const id = `local:${c.name}`;
      this.messages.set(id, { id, kind: "tab", text: `This tab's check FAILED: ${c.name} (${c.detail}).`, at_ms: Date.now() });
      added = true;
    }
    if (added) this.draw();
  }

  update() {
    const r = this.page.reply;
    const over = this.ended || r?.status === "finished" || r?.status === "closed" || !!this.page.ending;
    this.form.hidden = !this.seated;
    this.el.dataset.seated = this.seated ? "yes" : "no";
    const offers = [...this.messages.values()].filter((m) => m.kind === "rematch" && m.player !== this.page.ctx.session?.player);
    const mine = [...this.messages.values()].find((m) => m.kind === "rematch" && m.player === this.page.ctx.session?.player);
    const played = over && this.seated;
    replace(
      this.rematch,
      played && !mine && !offers.length ? h("button", { type: "button", id: "rematch-button", onclick: () => this.takeRematch() }, "Rematch: same ruleset, same seats") : null,
      played && !mine ? offers.map((m) => h("button", { type: "button", class: "take-rematch", dataset: { table: m.rematch }, onclick: () => this.takeRematch() }, `${m.name ?? "A player"} offers a rematch: take your seat`)) : null,
      mine ? h("a", { href: `#/table/${encodeURIComponent(mine.rematch)}`, id: "rematch-link" }, "Go to the rematch") : null,
    );
  }

  draw() {
    const lines = [...this.messages.values()].sort((a, b) => (a.at_ms ?? 0) - (b.at_ms ?? 0) || (a.id < b.id ? -1 : 1)).slice(-SHOWN);
    replace(
      this.list,
      lines.map((m) =>
        h(
          "li",
          { class: `chat-line ${m.kind}`, dataset: { id: m.id, kind: m.kind } },
          m.kind === "say" || m.kind === "rematch" ? h("b", { class: "who" }, `${m.player === this.page.ctx.session?.player ? "you" : m.name ?? "a player"}: `) : h("b", { class: "who" }, m.kind === "tab" ? "this tab: " : "table: "),
          m.text,
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
      const { message } = await this.page.ctx.gateway.request("POST", `/v1/tables/${encodeURIComponent(this.page.tableId)}/chat`, { text });
      this.messages.set(message.id, message);
      this.input.value = "";
      this.error.textContent = "";
      this.draw();
    } catch (e) {
      this.error.textContent = errorText(e, "Saying that");
    }
  }

  async takeRematch() {
    try {
      const key = newSeatKey();
      const reply = await this.page.ctx.gateway.request("POST", `/v1/tables/${encodeURIComponent(this.page.tableId)}/rematch`, { key: key.key });
      this.page.ctx.store?.saveSeatKey(reply.table_id, key);
      this.page.ctx.flash = "The rematch: your seat is taken.";
      location.hash = `#/table/${encodeURIComponent(reply.table_id)}`;
    } catch (e) {
      this.error.textContent = errorText(e, "Opening the rematch");
    }
  }
}
