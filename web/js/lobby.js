// The lobby: "Play now" (a table of the chosen ruleset that waits for players, or a new
// one with bots whose seats others can take), the tables (waiting for players first, then
// in play, then the rest; each row updated in place, so that the refresh keeps the
// keyboard's focus and the scroll), and a form to open a table of one's own.

import { useStylesheet } from "./chat.js";
import { has, t } from "./i18n.js";
import { inviteBox, tournamentLink } from "./invite.js";
import { newSeatKey } from "./seatkey.js";
import { levelName, rulesetName, tableStatus } from "./names.js";
import { h, replace, sayError } from "./ui.js";

const REFRESH_MS = 3000;
/** The ruleset "Play now" offers first, before the player chose one. */
const DEFAULT_RULESET = "classic";
/** Who may take each seat of a new table: [value, the words], in the language now. */
const seatChoices = () => [
  ["me", t("lobby.choice_me")],
  ["human", t("lobby.choice_human")],
  ["bot:easy", t("lobby.choice_bot", { level: levelName("easy") })],
  ["bot:medium", t("lobby.choice_bot", { level: levelName("medium") })],
  ["bot:hard", t("lobby.choice_bot", { level: levelName("hard") })],
];

/** What happens when nobody takes, in words ("dealer_must_choose"). */
function allPassName(rule) {
  return has(`lobby.all_pass.${rule}`) ? t(`lobby.all_pass.${rule}`) : rule.replaceAll("_", " ");
}

/** A seat a player may take now: a free player's seat kept for nobody (or for ``me``),
 * or a bot's seat open to humans while its table waits ("play now"). */
function isTakable(table, seat, now, me = null) {
  if (table.status !== "open" || seat.player) return false;
  if (seat.kind === "bot") return !!seat.open && table.open_until_ms > now;
  return !seat.reserved || seat.reserved === me;
}

/** Does the table wait for players (a seat anyone may take now)? */
export function isWaiting(table, now) {
  return table.seats.some((s) => isTakable(table, s, now));
}

/** The lobby's order: tables waiting for players, then those in play, then the rest;
 * within each, the gateway's order (the newest first). */
export function lobbyOrder(tables, now) {
  const rank = (tb) => (isWaiting(tb, now) ? 0 : tb.status === "dealing" || tb.status === "playing" ? 1 : 2);
  return tables.map((tb, i) => [rank(tb), i, tb]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, , tb]) => tb);
}

export function renderLobby(root, ctx) {
  useStylesheet(); // css/pages.css: the lobby's rules are there
  const list = h("div", { id: "tables" }, h("p", {}, t("lobby.loading")));
  const form = createForm(ctx);
  replace(root, h("div", { class: "lobby" }, h("section", { dataset: { region: "lobby-tables" } }, playNow(ctx), h("h1", {}, t("lobby.tables")), list), h("section", { dataset: { region: "lobby-open" } }, h("h2", {}, t("lobby.open_a_table")), form)));

  const rows = new Map(); // table id -> {sig, el}: rows kept between refreshes
  let stopped = false;
  let timer = null;
  const refresh = async () => {
    try {
      const { tables } = await ctx.gateway.lobby();
      if (!stopped) drawTables(ctx, list, rows, tables);
    } catch (e) {
      if (!stopped) sayError(e, t("lobby.doing_loading"));
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** "Play now": the ruleset (remembered on this browser) and the one button. */
function playNow(ctx) {
  const names = Object.keys(ctx.rulesets);
  const chosen = ctx.store?.lobbyRuleset?.();
  const first = names.includes(chosen) ? chosen : names.includes(DEFAULT_RULESET) ? DEFAULT_RULESET : names[0];
  const ruleset = h("select", { id: "play-ruleset", name: "play_ruleset" }, names.map((n) => h("option", { value: n, selected: n === first }, rulesetName(n))));
  ruleset.addEventListener("change", () => ctx.store?.saveLobbyRuleset?.(ruleset.value));
  const button = h("button", { type: "button", id: "play-now", class: "primary" }, t("lobby.play_now"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      // Kept before the seat is asked for (a page closed in between still has it), unless
      // this tab already keeps one for the table it answers with (a seat taken before).
      const key = newSeatKey();
      const seated = await ctx.gateway.request("POST", "/v1/play-now", { ruleset: ruleset.value, key: key.key });
      if (!ctx.store?.seatKey?.(seated.table_id)) ctx.store?.saveSeatKey(seated.table_id, key);
      location.hash = `#/table/${encodeURIComponent(seated.table_id)}`;
    } catch (e) {
      sayError(e, t("lobby.doing_play_now"));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    "div",
    { class: "play-now", id: "play-now-box" },
    h("label", { for: "play-ruleset" }, t("lobby.play_now_ruleset")),
    h("div", { class: "play-now-row" }, ruleset, button),
    h("p", { class: "dim" }, t("lobby.play_now_about")),
  );
}

/** The tables, drawn in place: a row is rebuilt only when its table changed, rows move
 * only when the order changed, and the control that had the focus (by its data-key) has
 * it again after; the page does not scroll. */
function drawTables(ctx, list, rows, tables) {
  const active = document.activeElement;
  const focusKey = active && list.contains(active) ? active.dataset.key ?? null : null;
  const scroll = [window.scrollX, window.scrollY];
  const now = Date.now();
  if (!tables.length) {
    rows.clear();
    replace(list, h("p", {}, t("lobby.none_open")));
    return;
  }
  let body = list.querySelector("tbody");
  if (!body) {
    body = h("tbody");
    replace(list, h("table", { class: "tables" }, h("thead", {}, h("tr", {}, h("th", {}, t("pages.ruleset")), h("th", {}, t("lobby.status")), h("th", {}, t("lobby.seats")), h("th", {}))), body));
    rows.clear();
  }
  const ordered = lobbyOrder(tables, now);
  const seen = new Set();
  ordered.forEach((table, i) => {
    const id = table.table_id;
    seen.add(id);
    const sig = JSON.stringify([table, isWaiting(table, now)]);
    let row = rows.get(id);
    if (!row || row.sig !== sig) {
      const el = tableRow(ctx, table, now);
      if (row) row.el.replaceWith(el);
      row = { sig, el };
      rows.set(id, row);
    }
    if (body.children[i] !== row.el) body.insertBefore(row.el, body.children[i] ?? null);
  });
  for (const [id, row] of rows) {
    if (!seen.has(id)) {
      row.el.remove();
      rows.delete(id);
    }
  }
  if (focusKey && document.activeElement?.dataset?.key !== focusKey) {
    const again = [...list.querySelectorAll("[data-key]")].find((el) => el.dataset.key === focusKey);
    again?.focus({ preventScroll: true });
  }
  if (window.scrollX !== scroll[0] || window.scrollY !== scroll[1]) window.scrollTo(scroll[0], scroll[1]);
  list.dataset.drawn = String(Number(list.dataset.drawn ?? 0) + 1); // refreshes drawn (tests wait on it)
}

function tableRow(ctx, table, now) {
  const me = ctx.session.player;
  const id = table.table_id;
  const mine = table.seats.some((s) => s.player === me);
  const seats = table.seats.map((s) => {
    const n = s.seat + 1; // seats are numbered from 1 for people
    if (s.player) return h("li", { class: `seat taken${s.player === me ? " me" : ""}` }, s.name ?? t("lobby.a_player"));
    const takable = !mine && isTakable(table, s, now, me);
    if (s.kind === "bot") {
      if (!takable) return h("li", { class: "seat bot" }, t("lobby.seat_bot", { level: levelName(s.level) }));
      return h("li", { class: "seat bot open" }, h("button", { type: "button", class: "sit", dataset: { table: id, seat: s.seat, key: `sit:${id}:${s.seat}` }, onclick: () => sit(ctx, id, s.seat) }, t("lobby.take_bot_seat", { seat: n, level: levelName(s.level) })));
    }
    if (!takable) return h("li", { class: "seat free" }, t("lobby.free"));
    return h("li", { class: "seat free" }, h("button", { type: "button", class: "sit", dataset: { table: id, seat: s.seat, key: `sit:${id}:${s.seat}` }, onclick: () => sit(ctx, id, s.seat) }, t("lobby.sit_at", { seat: n })));
  });
  const free = table.seats.filter((s) => s.kind === "human" && !s.player).length;
  const bots = table.seats.filter((s) => s.kind === "bot").length;
  const waiting = isWaiting(table, now);
  const link = tournamentLink(table);
  if (link) link.dataset.key = `tournament:${id}`;
  return h(
    "tr",
    { dataset: { table: id, waiting: waiting ? "yes" : "no" }, class: waiting ? "waiting" : null },
    h("td", {}, h("strong", {}, rulesetName(table.ruleset)), h("div", { class: "dim" }, t(table.rated ? "lobby.to_target_rated" : "lobby.to_target", { target: String(table.target) })), link ? h("div", {}, link) : null),
    h("td", {}, tableStatus(table.status), waiting && table.open_until_ms ? h("div", { class: "dim" }, t("lobby.waiting_for_players")) : null),
    h("td", {}, t("lobby.free_and_bots", { free, count: bots }), h("ul", { class: "seats" }, seats)),
    h("td", {}, h("a", { href: `#/table/${encodeURIComponent(id)}`, dataset: { key: `watch:${id}` } }, mine ? t("lobby.back_to_table") : t("lobby.watch")), mine && waiting ? inviteBox(id) : null),
  );
}

async function sit(ctx, tableId, seat) {
  try {
    // Kept before the seat is asked for: a page closed in between still has it.
    const key = newSeatKey();
    ctx.store?.saveSeatKey(tableId, key);
    await ctx.gateway.join(tableId, seat, key.key);
    location.hash = `#/table/${encodeURIComponent(tableId)}`;
  } catch (e) {
    sayError(e, t("pages.doing_taking_seat", { seat: seat + 1 }));
  }
}

function createForm(ctx) {
  const names = Object.keys(ctx.rulesets);
  const ruleset = h("select", { id: "ruleset", name: "ruleset" }, names.map((n) => h("option", { value: n, selected: n === "classic" }, rulesetName(n))));
  const target = h("input", { id: "target", name: "target", type: "number", min: 1, max: 10000 });
  const turn = h("input", { id: "turn-seconds", name: "turn_seconds", type: "number", min: 1, max: 600, value: 30 });
  const delay = h("input", { id: "bot-delay", name: "bot_delay_ms", type: "number", min: 0, max: 10000, value: 600 });
  const rated = h("input", { id: "rated", name: "rated", type: "checkbox" });
  const seats = h("div", { id: "seat-choices", class: "seat-choices" });
  const describe = h("p", { class: "dim", id: "ruleset-about" });

  const layout = () => {
    const r = ctx.rulesets[ruleset.value];
    if (!r) return;
    target.placeholder = String(r.target);
    describe.textContent = t("lobby.about_ruleset", {
      players: t("lobby.about_players", { count: r.players }),
      cards: t("lobby.about_cards", { count: r.deck_size }),
      melds: r.melds ? t("lobby.about_melds") : t("lobby.about_no_melds"),
      belote: t("lobby.about_belote", { points: r.belote_points }),
      all_pass: allPassName(r.all_pass),
    });
    replace(
      seats,
      Array.from({ length: r.players }, (_, i) =>
        h("label", {}, t("lobby.seat_n", { seat: i + 1 }), " ", h("select", { id: `seat-${i}`, name: `seat-${i}` }, seatChoices().filter(([v]) => v !== "me" || i === 0).map(([v, label]) => h("option", { value: v, selected: (i === 0 && v === "me") || (i > 0 && v === "bot:medium") }, label)))),
      ),
    );
  };
  ruleset.addEventListener("change", layout);
  layout();

  const submit = async (e) => {
    e.preventDefault();
    const r = ctx.rulesets[ruleset.value];
    const choices = Array.from({ length: r.players }, (_, i) => seats.querySelector(`#seat-${i}`).value);
    const body = {
      ruleset: ruleset.value,
      seats: choices.map((c) => (c === "me" ? "human" : c)),
      turn_seconds: Number(turn.value) || 30,
      bot_delay_ms: Number(delay.value) || 0,
      rated: rated.checked,
    };
    if (target.value) body.target = Number(target.value);
    const me = choices.indexOf("me");
    const key = me >= 0 ? newSeatKey() : null;
    if (me >= 0) Object.assign(body, { sit: me, key: key.key });
    try {
      const created = await ctx.gateway.createTable(body);
      if (key) ctx.store?.saveSeatKey(created.table_id, key);
      ctx.flash = t("lobby.table_opened", { table: created.table_id });
      location.hash = `#/table/${encodeURIComponent(created.table_id)}`;
    } catch (err) {
      sayError(err, t("lobby.doing_opening"));
    }
  };

  return h(
    "form",
    { id: "create", class: "create", onsubmit: submit },
    h("label", { for: "ruleset" }, t("pages.ruleset")),
    ruleset,
    describe,
    seats,
    h("label", { for: "target" }, t("pages.target_points")),
    target,
    h("label", { for: "turn-seconds" }, t("lobby.turn_timer")),
    turn,
    h("label", { for: "bot-delay" }, t("lobby.bots_wait")),
    delay,
    h("label", { class: "inline" }, rated, " ", t("lobby.rated")),
    h("button", { type: "submit", id: "create-table" }, t("lobby.open_the_table")),
  );
}
