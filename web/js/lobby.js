// The lobby: open tables with their ruleset, free seats and bots; a table to create.

import { has, t } from "./i18n.js";
import { newSeatKey } from "./seatkey.js";
import { levelName, rulesetName, tableStatus } from "./names.js";
import { h, replace, sayError } from "./ui.js";

const REFRESH_MS = 3000;
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

export function renderLobby(root, ctx) {
  const list = h("div", { id: "tables" }, h("p", {}, t("lobby.loading")));
  const form = createForm(ctx);
  replace(root, h("div", { class: "lobby" }, h("section", {}, h("h1", {}, t("lobby.tables")), list), h("section", {}, h("h2", {}, t("lobby.open_a_table")), form)));

  let stopped = false;
  let timer = null;
  const refresh = async () => {
    try {
      const { tables } = await ctx.gateway.lobby();
      if (!stopped) replace(list, tables.length ? tableList(ctx, tables) : h("p", {}, t("lobby.none_open")));
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

function tableList(ctx, tables) {
  const rows = tables.map((table) => {
    const mine = table.seats.some((s) => s.player === ctx.session.player);
    const seats = table.seats.map((s) => {
      if (s.kind === "bot") return h("li", { class: "seat bot" }, t("lobby.seat_bot", { level: levelName(s.level) }));
      if (s.player) return h("li", { class: `seat taken${s.player === ctx.session.player ? " me" : ""}` }, s.name ?? t("lobby.a_player"));
      if (table.status !== "open" || mine) return h("li", { class: "seat free" }, t("lobby.free"));
      return h("li", { class: "seat free" }, h("button", { type: "button", class: "sit", dataset: { table: table.table_id, seat: s.seat }, onclick: () => sit(ctx, table.table_id, s.seat) }, t("lobby.sit_at", { seat: s.seat })));
    });
    const free = table.seats.filter((s) => s.kind === "human" && !s.player).length;
    const bots = table.seats.filter((s) => s.kind === "bot").length;
    return h(
      "tr",
      { dataset: { table: table.table_id } },
      h("td", {}, h("strong", {}, rulesetName(table.ruleset)), h("div", { class: "dim" }, t(table.rated ? "lobby.to_target_rated" : "lobby.to_target", { target: String(table.target) }))),
      h("td", {}, tableStatus(table.status)),
      h("td", {}, t("lobby.free_and_bots", { free, count: bots }), h("ul", { class: "seats" }, seats)),
      h("td", {}, h("a", { href: `#/table/${encodeURIComponent(table.table_id)}` }, mine ? t("lobby.back_to_table") : t("lobby.watch"))),
    );
  });
  return h("table", { class: "tables" }, h("thead", {}, h("tr", {}, h("th", {}, t("pages.ruleset")), h("th", {}, t("lobby.status")), h("th", {}, t("lobby.seats")), h("th", {}))), h("tbody", {}, rows));
}

async function sit(ctx, tableId, seat) {
  try {
    // Kept before the seat is asked for: a page closed in between still has it.
    const key = newSeatKey();
    ctx.store?.saveSeatKey(tableId, key);
    await ctx.gateway.join(tableId, seat, key.key);
    location.hash = `#/table/${encodeURIComponent(tableId)}`;
  } catch (e) {
    sayError(e, t("pages.doing_taking_seat", { seat }));
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
        h("label", {}, t("lobby.seat_n", { seat: i }), " ", h("select", { id: `seat-${i}`, name: `seat-${i}` }, seatChoices().filter(([v]) => v !== "me" || i === 0).map(([v, label]) => h("option", { value: v, selected: (i === 0 && v === "me") || (i > 0 && v === "bot:medium") }, label)))),
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
