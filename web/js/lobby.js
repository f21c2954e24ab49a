// The lobby: open tables with their ruleset, free seats and bots; a table to create.

import { newSeatKey } from "./seatkey.js";
import { h, replace, sayError } from "./ui.js";

const REFRESH_MS = 3000;
const SEAT_CHOICES = [
  ["me", "me"],
  ["human", "a player"],
  ["bot:easy", "bot, easy"],
  ["bot:medium", "bot, medium"],
  ["bot:hard", "bot, hard"],
];

export function renderLobby(root, ctx) {
  const list = h("div", { id: "tables" }, h("p", {}, "Loading the tables…"));
  const form = createForm(ctx);
  replace(root, h("div", { class: "lobby" }, h("section", {}, h("h1", {}, "Tables"), list), h("section", {}, h("h2", {}, "Open a table"), form)));

  let stopped = false;
  let timer = null;
  const refresh = async () => {
    try {
      const { tables } = await ctx.gateway.lobby();
      if (!stopped) replace(list, tables.length ? tableList(ctx, tables) : h("p", {}, "No table is open. Open one."));
    } catch (e) {
      if (!stopped) sayError(e, "Loading the lobby");
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function tableList(ctx, tables) {
  const rows = tables.map((t) => {
    const mine = t.seats.some((s) => s.player === ctx.session.player);
    const seats = t.seats.map((s) => {
      if (s.kind === "bot") return h("li", { class: "seat bot" }, `bot (${s.level})`);
      if (s.player) return h("li", { class: `seat taken${s.player === ctx.session.player ? " me" : ""}` }, s.name ?? "a player");
      if (t.status !== "open" || mine) return h("li", { class: "seat free" }, "free");
      return h("li", { class: "seat free" }, h("button", { type: "button", class: "sit", dataset: { table: t.table_id, seat: s.seat }, onclick: () => sit(ctx, t.table_id, s.seat) }, `Sit at seat ${s.seat}`));
    });
    const free = t.seats.filter((s) => s.kind === "human" && !s.player).length;
    const bots = t.seats.filter((s) => s.kind === "bot").length;
    return h(
      "tr",
      { dataset: { table: t.table_id } },
      h("td", {}, h("strong", {}, t.ruleset), h("div", { class: "dim" }, `to ${t.target}${t.rated ? ", rated" : ""}`)),
      h("td", {}, t.status),
      h("td", {}, `${free} free, ${bots} bot${bots === 1 ? "" : "s"}`, h("ul", { class: "seats" }, seats)),
      h("td", {}, h("a", { href: `#/table/${encodeURIComponent(t.table_id)}` }, mine ? "Back to your table" : "Watch")),
    );
  });
  return h("table", { class: "tables" }, h("thead", {}, h("tr", {}, h("th", {}, "Ruleset"), h("th", {}, "Status"), h("th", {}, "Seats"), h("th", {}))), h("tbody", {}, rows));
}

async function sit(ctx, tableId, seat) {
  try {
    // Kept before the seat is asked for: a page closed in between still has it.
    const key = newSeatKey();
    ctx.store?.saveSeatKey(tableId, key);
    await ctx.gateway.join(tableId, seat, key.key);
    location.hash = `#/table/${encodeURIComponent(tableId)}`;
  } catch (e) {
    sayError(e, `Taking seat ${seat}`);
  }
}

function createForm(ctx) {
  const names = Object.keys(ctx.rulesets);
  const ruleset = h("select", { id: "ruleset", name: "ruleset" }, names.map((n) => h("option", { value: n, selected: n === "classic" }, n)));
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
    describe.textContent = `${r.players} players, ${r.deck_size} cards, ${r.melds ? "melds" : "no melds"}, belote ${r.belote_points}; nobody takes: ${r.all_pass.replaceAll("_", " ")}.`;
    replace(
      seats,
      Array.from({ length: r.players }, (_, i) =>
        h("label", {}, `Seat ${i} `, h("select", { id: `seat-${i}`, name: `seat-${i}` }, SEAT_CHOICES.filter(([v]) => v !== "me" || i === 0).map(([v, label]) => h("option", { value: v, selected: (i === 0 && v === "me") || (i > 0 && v === "bot:medium") }, label)))),
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
      ctx.flash = `Table ${created.table_id} is open.`;
      location.hash = `#/table/${encodeURIComponent(created.table_id)}`;
    } catch (err) {
      sayError(err, "Opening a table");
    }
  };

  return h(
    "form",
    { id: "create", class: "create", onsubmit: submit },
    h("label", { for: "ruleset" }, "Ruleset"),
    ruleset,
    describe,
    seats,
    h("label", { for: "target" }, "Target (points)"),
    target,
    h("label", { for: "turn-seconds" }, "Turn timer (seconds)"),
    turn,
    h("label", { for: "bot-delay" }, "Bots wait (ms)"),
    delay,
    h("label", { class: "inline" }, rated, " rated"),
    h("button", { type: "submit", id: "create-table" }, "Open the table"),
  );
}
