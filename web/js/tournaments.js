// Tournaments: the list and a form to create one (#/tournaments), and one tournament
// (#/tournament/ID): its settings and entrants, entering and withdrawing, the organiser's
// start and bots, the standings with every tie-break column, the bracket of an
// elimination, the ladder's table, and for a player in a running tournament the next
// table to take. Everything comes from the gateway's tournament API (docs/tournaments.md).

import { now } from "./clock.js";
import { formatTime, has, t } from "./i18n.js";
import { errorText, h, replace, say, sayError } from "./ui.js";
import { levelName, rulesetName, withElements } from "./names.js";

const REFRESH_MS = 4000;
/** The formats, in the form's order. */
const FORMATS = ["swiss", "round_robin", "elimination", "ladder"];

/** A tournament format's name ("round_robin"). */
export function formatName(format) {
  return has(`tour.format.${format}`) ? t(`tour.format.${format}`) : format;
}

function tournamentStatus(status) {
  return has(`tour.status.${status}`) ? t(`tour.status.${status}`) : status;
}

/** One side's result of a meeting ("win", "draw", "loss"). */
function outcomeWord(outcome) {
  return has(`tour.outcome.${outcome}`) ? t(`tour.outcome.${outcome}`) : outcome;
}

function entrantStatus(status) {
  return has(`tour.entrant_status.${status}`) ? t(`tour.entrant_status.${status}`) : status;
}

function finishedReason(reason) {
  return has(`tour.finished.${reason}`) ? t(`tour.finished.${reason}`) : reason.replaceAll("_", " ");
}

/** A standings column's heading ("opponents_points"). */
function columnName(column) {
  return has(`tour.column.${column}`) ? t(`tour.column.${column}`) : column.replaceAll("_", " ");
}

/** How a column is computed (the server's words, said in the language now when known). */
function columnHow(format, column, how) {
  return has(`tour.how.${format}.${column}`) ? t(`tour.how.${format}.${column}`) : how;
}

const path = (id) => `/v1/tournaments/${encodeURIComponent(id)}`;

// When this page first saw each tournament's draw round named (its own clock, never the
// server's time): an entrant watching when entries close can say the round was named
// before its value existed, which the draw's check cannot (docs/threat-model.md, 11).
const namingSeen = new Map();

/** The draw of a random seeding: the round named, when, and the order once made. */
export function drawSection(tour, name, seenAt = namingSeen, clock = now) {
  const d = tour.draw;
  if (!d) return null;
  const key = `${tour.tournament_id}:${d.round}`;
  if (!seenAt.has(key)) seenAt.set(key, { at: clock(), pending: d.status !== "made" });
  const seen = seenAt.get(key);
  const lines = [
    h("p", { id: "draw-round" }, t("tour.draw_round", { round: String(d.round), chain: d.chain, named: formatTime(d.named_at_ms), due: formatTime(d.due_at_ms) })),
  ];
  if (seen.pending) {
    const early = d.due_at_ms - seen.at;
    lines.push(h("p", { id: "draw-seen", class: early > 0 ? "ok" : "warn" }, early > 0 ? t("tour.draw_seen_early", { seconds: Math.round(early / 1000) }) : t("tour.draw_seen_late")));
  }
  if (d.namings > 1) lines.push(h("p", { class: "warn" }, t("tour.draw_namings", { count: d.namings })));
  if (d.order) {
    lines.push(h("ol", { id: "draw-order" }, d.order.map((p) => h("li", {}, name(p)))));
    const site = globalThis.location?.origin ?? t("tour.this_site");
    const command = ["belot", "verify-draw", tour.tournament_id, "--api", site].join(" ");
    lines.push(h("p", {}, t("tour.recompute_it"), " ", h("code", { class: "command" }, command)));
  } else {
    lines.push(h("p", {}, t("tour.draw_pending")));
  }
  return [h("h2", {}, t("tour.draw")), ...lines];
}

/** Refresh ``draw`` every few seconds until the page is left; returns the stop. */
function every(draw) {
  let stopped = false;
  let timer = null;
  const loop = async () => {
    await draw(() => stopped);
    if (!stopped) timer = setTimeout(loop, REFRESH_MS);
  };
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export function renderTournaments(root, ctx) {
  const list = h("div", { id: "tournament-list" }, h("p", {}, t("tour.loading_list")));
  const create = ctx.session ? createForm(ctx) : h("p", {}, withElements(t("tour.log_in_to_create"), { link: h("a", { href: "#/login" }, t("pages.log_in")) }));
  replace(root, h("div", { class: "lobby" }, h("section", {}, h("h1", {}, t("pages.tournaments")), list), h("section", {}, h("h2", {}, t("tour.create_title")), create)));
  return every(async (stopped) => {
    try {
      const { tournaments } = await ctx.gateway.request("GET", "/v1/tournaments?limit=100");
      if (stopped()) return;
      replace(
        list,
        tournaments.length
          ? h(
              "table",
              { class: "rows", id: "tournaments" },
              h("thead", {}, h("tr", {}, [t("tour.name"), t("tour.format_column"), t("tour.status_column"), t("tournament.winner_column"), t("tour.created")].map((x) => h("th", {}, x)))),
              h(
                "tbody",
                {},
                tournaments.map((tour) =>
                  h("tr", { dataset: { tournament: tour.tournament_id } }, h("td", {}, h("a", { href: `#/tournament/${encodeURIComponent(tour.tournament_id)}` }, tour.name)), h("td", {}, formatName(tour.format)), h("td", {}, tournamentStatus(tour.status)), h("td", { class: "winner" }, tour.winner ? winnerNames(tour.winner) : "—"), h("td", {}, formatTime(tour.created_at_ms))),
                ),
              ),
            )
          : h("p", {}, t("tour.none_yet")),
      );
    } catch (e) {
      if (!stopped()) sayError(e, t("tour.doing_loading_list"));
    }
  });
}

function createForm(ctx) {
  const name = h("input", { id: "t-name", name: "name", required: true, maxlength: 100 });
  const format = h("select", { id: "t-format", name: "format" }, FORMATS.map((f) => h("option", { value: f }, formatName(f))));
  const ruleset = h("select", { id: "t-ruleset", name: "ruleset" }, Object.keys(ctx.rulesets).map((n) => h("option", { value: n, selected: n === "gambler" }, rulesetName(n))));
  const rounds = h("input", { id: "t-rounds", name: "rounds", type: "number", min: 1, max: 100, value: 3 });
  const bestOf = h("select", { id: "t-best-of", name: "best_of" }, h("option", { value: "1" }, t("tour.one_match")), h("option", { value: "3" }, t("tour.best_of_three")));
  const days = h("input", { id: "t-days", name: "ladder_days", type: "number", min: 1, max: 365, value: 7 });
  const target = h("input", { id: "t-target", name: "target", type: "number", min: 1, max: 10000, placeholder: t("tour.target_placeholder") });
  const password = h("input", { id: "t-password", name: "password", type: "password", autocomplete: "new-password", placeholder: t("tour.password_placeholder") });
  const only = (f, ...els) => els.forEach((el) => (el.closest("label").hidden = format.value !== f));
  const layout = () => {
    only("swiss", rounds);
    only("elimination", bestOf);
    only("ladder", days);
  };
  const submit = async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), format: format.value, ruleset: ruleset.value };
    if (format.value === "swiss") body.rounds = Number(rounds.value);
    if (format.value === "elimination") body.best_of = Number(bestOf.value);
    if (format.value === "ladder") body.ladder_days = Number(days.value);
    if (target.value) body.target = Number(target.value);
    if (password.value) body.password = password.value;
    try {
      const tour = await ctx.gateway.request("POST", "/v1/tournaments", body);
      ctx.flash = t("tour.created_flash", { name: tour.name });
      location.hash = `#/tournament/${encodeURIComponent(tour.tournament_id)}`;
    } catch (err) {
      sayError(err, t("tour.doing_creating"));
    }
  };
  const form = h(
    "form",
    { class: "tournament-create", id: "tournament-create", onsubmit: submit },
    h("label", {}, t("tour.name"), " ", name),
    h("label", {}, t("tour.format_column"), " ", format),
    h("label", {}, t("pages.ruleset"), " ", ruleset),
    h("label", {}, t("tour.rounds"), " ", rounds),
    h("label", {}, t("tour.each_meeting"), " ", bestOf),
    h("label", {}, t("tour.days"), " ", days),
    h("label", {}, t("pages.target_points"), " ", target),
    h("label", {}, t("tour.password"), " ", password),
    h("button", { type: "submit", id: "create-tournament" }, t("tour.create")),
  );
  format.addEventListener("change", layout);
  layout();
  return form;
}

export function renderTournament(root, ctx, id) {
  const el = h("div", { class: "page-narrow", id: "tournament" }, h("p", {}, t("tour.loading")));
  replace(root, el);
  return every(async (stopped) => {
    try {
      const [tour, standings] = await Promise.all([ctx.gateway.request("GET", path(id)), ctx.gateway.request("GET", `${path(id)}/standings`)]);
      if (!stopped()) drawTournament(el, ctx, tour, standings);
    } catch (e) {
      if (stopped()) return;
      if (e.code === "unknown_tournament") replace(el, h("p", {}, t("tour.no_such"), " ", h("a", { href: "#/tournaments" }, t("tour.all_tournaments"))));
      else sayError(e, t("tour.doing_loading"));
    }
  });
}

function drawTournament(el, ctx, tour, standings) {
  const me = ctx.session?.player ?? null;
  const name = (p) => (p.startsWith("bot:") ? botName(p) : tour.names?.[p] ?? p);
  const s = tour.settings;
  const entered = me !== null && tour.entrants.includes(me);
  const organiser = me !== null && tour.creator === me;
  const about = [
    formatName(s.format),
    rulesetName(s.ruleset),
    s.format === "swiss" ? t("tour.rounds_count", { count: s.rounds }) : null,
    s.format === "elimination" ? (s.best_of === 3 ? t("tour.best_of_three") : t("tour.one_match_a_meeting")) : null,
    s.format === "ladder" ? t("tour.days_count", { count: s.ladder_days }) : null,
    tour.password_required ? t("tour.with_password") : null,
  ]
    .filter(Boolean)
    .join(", ");
  const act = (verb, method, url, body, done) => async () => {
    try {
      await ctx.gateway.request(method, url, body);
      say(done, "info");
      drawNow(el, ctx, tour.tournament_id); // at once, not at the next refresh
    } catch (e) {
      sayError(e, verb);
    }
  };
  const buttons = [];
  if (tour.status === "registering" && me !== null && !entered) {
    const pw = tour.password_required ? h("input", { id: "enter-password", type: "password", placeholder: t("tour.enter_password_placeholder"), "aria-label": t("tour.enter_password_label") }) : null;
    buttons.push(pw, h("button", { type: "button", id: "enter", onclick: () => act(t("tour.doing_entering"), "POST", `${path(tour.tournament_id)}/entrants`, pw ? { password: pw.value } : {}, t("tour.entered"))() }, t("tour.enter")));
  }
  if (entered && (tour.status === "registering" || tour.status === "running")) buttons.push(h("button", { type: "button", id: "withdraw", onclick: act(t("tour.doing_withdrawing"), "POST", `${path(tour.tournament_id)}/withdraw`, {}, t("tour.withdrew")) }, t("tour.withdraw")));
  if (organiser && tour.status === "registering") {
    buttons.push(h("button", { type: "button", id: "add-bot", onclick: act(t("tour.doing_adding_bot"), "POST", `${path(tour.tournament_id)}/entrants`, { bot: "easy" }, t("tour.bot_entered")) }, t("tour.add_bot")));
    buttons.push(h("button", { type: "button", id: "start", onclick: act(t("tour.doing_starting"), "POST", `${path(tour.tournament_id)}/start`, {}, t("tour.started")) }, t("tour.start")));
  }
  const next = me !== null ? tour.tables?.[me] : null;
  replace(
    el,
    h("h1", {}, tour.name),
    h("p", { id: "tournament-about" }, about, " — ", h("b", { id: "tournament-status" }, tournamentStatus(tour.status)), tour.round ? [", ", t("tour.round_now", { round: tour.round })] : "", tour.finished ? [" (", finishedReason(tour.finished.reason), ")"] : ""),
    tour.winner ? h("p", { id: "tournament-winner", class: "winner" }, t("tournament.winner", { name: winnerNames(tour.winner, name) })) : null,
    next ? nextTable(ctx, next) : null,
    h("div", { class: "buttons" }, buttons),
    drawSection(tour, name),
    h("h2", {}, s.format === "ladder" ? t("tour.ladder_heading") : t("tour.standings")),
    standingsTable(standings, name, me, s.format),
    s.format === "elimination" && tour.rounds?.length ? [h("h2", {}, t("tour.bracket")), bracket(tour, name)] : null,
    s.format !== "elimination" && tour.rounds?.length ? [h("h2", {}, t("tour.rounds_heading")), roundsList(tour, name)] : null,
    h("h2", {}, t("tour.entrants", { count: tour.entrants.length })),
    h("ul", { id: "entrants" }, tour.entrants.map((p) => h("li", { dataset: { entrant: p } }, playerLink(p, name(p)), tour.statuses?.[p] && tour.statuses[p] !== "active" ? [" (", entrantStatus(tour.statuses[p]), ")"] : ""))),
  );
}

async function drawNow(el, ctx, id) {
  try {
    const [tour, standings] = await Promise.all([ctx.gateway.request("GET", path(id)), ctx.gateway.request("GET", `${path(id)}/standings`)]);
    if (el.isConnected) drawTournament(el, ctx, tour, standings);
  } catch (e) {
    sayError(e, t("tour.doing_loading"));
  }
}

/** "The next table to take": the player's table and seat in the current round. */
function nextTable(ctx, next) {
  const take = async () => {
    try {
      await ctx.gateway.join(next.table_id, next.seat);
    } catch (e) {
      if (e.code !== "already_seated") return say(errorText(e, t("pages.doing_taking_seat", { seat: next.seat + 1 })), "error");
    }
    location.hash = `#/table/${encodeURIComponent(next.table_id)}`;
  };
  return h(
    "div",
    { class: "next-table", id: "next-table", dataset: { table: next.table_id, seat: next.seat } },
    // Seats are numbered from 1 for people (the API's seat 0 is "seat 1").
    next.game > 1 ? t("tour.your_table_game", { round: next.round, match: next.match, game: next.game, seat: next.seat + 1 }) : t("tour.your_table", { round: next.round, match: next.match, seat: next.seat + 1 }),
    " ",
    h("button", { type: "button", id: "take-seat", onclick: take }, t("tour.take_seat")),
  );
}

function standingsTable(st, name, me, format) {
  if (!st.rows.length) return h("p", { id: "standings" }, t("tour.standings_empty"));
  const extra = st.columns.map((c) => c.column).filter((c) => c !== "points");
  const head = ["#", t("tour.entrant"), columnName("points"), t("tour.played"), t("tour.wins_short"), t("tour.draws_short"), t("tour.losses_short"), ...extra.map(columnName)];
  const how = (i) => {
    const c = st.columns.find((x) => x.column === extra[i - 7]);
    return c ? columnHow(format, c.column, c.how) : null;
  };
  return h(
    "table",
    { class: "rows", id: "standings" },
    h("thead", {}, h("tr", {}, head.map((x, i) => h("th", { class: i >= 2 ? "num" : null, title: i >= 7 ? how(i) : null }, x)))),
    h(
      "tbody",
      {},
      st.rows.map((r) =>
        h(
          "tr",
          { dataset: { entrant: r.entrant }, class: r.players.includes(me) ? "me" : null, title: r.how },
          h("td", {}, String(r.place)),
          h("td", { class: "names" }, r.players.map((p, i) => [i ? " + " : "", playerLink(p, p.startsWith("bot:") ? botName(p) : r.names?.[i] ?? name(p))]), r.status !== "active" ? [" (", entrantStatus(r.status), ")"] : ""),
          [r.points, r.played, r.wins, r.draws, r.losses, ...extra.map((c) => r[c])].map((x) => h("td", { class: "num" }, x === null || x === undefined ? "—" : String(typeof x === "number" && !Number.isInteger(x) ? x.toFixed(1) : x))),
        ),
      ),
    ),
  );
}

function sideText(ids, name) {
  return ids.map(name).join(" + ") || "—";
}

function bracket(tour, name) {
  return h(
    "div",
    { class: "bracket", id: "bracket" },
    tour.rounds.map((r) =>
      h(
        "div",
        { class: "round", dataset: { round: r.round } },
        h("b", {}, t("tour.round_heading", { round: r.round })),
        r.matches.map((m) => {
          const won = (side) => m.result?.[side] === "win";
          return h(
            "div",
            { class: "meeting", dataset: { match: m.match } },
            h("div", { class: `side${won("a") ? " won" : ""}` }, sideText(m.a, name)),
            m.bye ? h("div", { class: "dim-note" }, t("tour.goes_through")) : h("div", { class: `side${won("b") ? " won" : ""}` }, sideText(m.b, name)),
            m.games.length ? h("div", { class: "dim-note" }, m.games.map((g) => `${g.a_points ?? "?"}:${g.b_points ?? "?"}`).join(", ")) : null,
            !m.result && m.table_id ? h("a", { href: `#/table/${encodeURIComponent(m.table_id)}` }, t("tour.watch")) : null,
          );
        }),
      ),
    ),
  );
}

function roundsList(tour, name) {
  return h(
    "ol",
    { id: "rounds" },
    tour.rounds.map((r) =>
      h(
        "li",
        { dataset: { round: r.round } },
        r.matches.map((m) =>
          h(
            "div",
            {},
            sideText(m.a, name),
            m.bye ? [" (", t("tour.bye"), ")"] : [" ", t("tour.versus"), " ", sideText(m.b, name)],
            m.result ? `: ${outcomeWord(m.result.a)}/${outcomeWord(m.result.b)}` : m.table_id ? [" — ", h("a", { href: `#/table/${encodeURIComponent(m.table_id)}` }, t("tour.watch"))] : "",
          ),
        ),
      ),
    ),
  );
}

/** A finished tournament's winner by its players' names ("ann + bob" for a team):
 * the gateway's names, else ``name`` (the page's), a bot by its level. */
export function winnerNames(winner, name = null) {
  return winner.players.map((p, i) => (p.startsWith("bot:") ? botName(p) : winner.names?.[i] ?? name?.(p) ?? p)).join(" + ");
}

export function botName(id) {
  const m = /^bot:(\w+):(\d+)$/.exec(id ?? "");
  return m ? t("tour.bot_name", { number: m[2], level: levelName(m[1]) }) : id;
}

export function playerLink(id, label) {
  if (!id || id.startsWith("bot:")) return label ?? botName(id);
  return h("a", { href: `#/player/${encodeURIComponent(id)}`, class: "player" }, label ?? id);
}
