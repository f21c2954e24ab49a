// Tournaments: the list and a form to create one (#/tournaments), and one tournament
// (#/tournament/ID): its settings and entrants, entering and withdrawing, the organiser's
// start and bots, the standings with every tie-break column, the bracket of an
// elimination, the ladder's table, and for a player in a running tournament the next
// table to take. Everything comes from the gateway's tournament API (docs/tournaments.md).

import { now } from "./clock.js";
import { errorText, formatTime, h, replace, say, sayError } from "./ui.js";

const REFRESH_MS = 4000;
const FORMATS = [
  ["swiss", "Swiss"],
  ["round_robin", "Round-robin"],
  ["elimination", "Elimination"],
  ["ladder", "Ladder"],
];
const FORMAT_WORDS = Object.fromEntries(FORMATS);
const COLUMN_WORDS = {
  points: "Points",
  head_to_head: "Head-to-head",
  points_difference: "Belot points +/−",
  opponents_points: "Opponents' points",
  rating: "Rating",
  seed: "Seed",
  round_reached: "Round reached",
  entry: "Entry",
};

const path = (id) => `/v1/tournaments/${encodeURIComponent(id)}`;

// When this page first saw each tournament's draw round named (its own clock, never the
// server's time): an entrant watching when entries close can say the round was named
// before its value existed, which the draw's check cannot (docs/threat-model.md, 11).
const namingSeen = new Map();

/** The draw of a random seeding: the round named, when, and the order once made. */
export function drawSection(t, name, seenAt = namingSeen, clock = now) {
  const d = t.draw;
  if (!d) return null;
  const key = `${t.tournament_id}:${d.round}`;
  if (!seenAt.has(key)) seenAt.set(key, { at: clock(), pending: d.status !== "made" });
  const seen = seenAt.get(key);
  const lines = [
    h("p", { id: "draw-round" }, `drand round ${d.round} of ${d.chain}, named ${formatTime(d.named_at_ms)} for the seed order, due ${formatTime(d.due_at_ms)}.`),
  ];
  if (seen.pending) {
    const early = d.due_at_ms - seen.at;
    lines.push(h("p", { id: "draw-seen", class: early > 0 ? "ok" : "warn" }, early > 0
      ? `This page saw it named ${Math.round(early / 1000)} s before the round was due: nobody could know the order then.`
      : "This page saw it named only after the round was due: it cannot say the order was not known then."));
  }
  if (d.namings > 1) lines.push(h("p", { class: "warn" }, `${d.namings} rounds were named for this draw: only one may be.`));
  if (d.order) {
    lines.push(h("ol", { id: "draw-order" }, d.order.map((p) => h("li", {}, name(p)))));
    const site = globalThis.location?.origin ?? "<this site>";
    lines.push(h("p", {}, "Anyone can recompute it: ", h("code", { class: "command" }, `belot verify-draw ${t.tournament_id} --api ${site}`)));
  } else {
    lines.push(h("p", {}, "The order is drawn from the round's value once drand publishes it."));
  }
  return [h("h2", {}, "Draw"), ...lines];
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
  const list = h("div", { id: "tournament-list" }, h("p", {}, "Loading the tournaments…"));
  replace(root, h("div", { class: "lobby" }, h("section", {}, h("h1", {}, "Tournaments"), list), h("section", {}, h("h2", {}, "Create a tournament"), ctx.session ? createForm(ctx) : h("p", {}, h("a", { href: "#/login" }, "Log in"), " to create one."))));
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
              h("thead", {}, h("tr", {}, ["Name", "Format", "Status", "Created"].map((x) => h("th", {}, x)))),
              h(
                "tbody",
                {},
                tournaments.map((t) =>
                  h("tr", { dataset: { tournament: t.tournament_id } }, h("td", {}, h("a", { href: `#/tournament/${encodeURIComponent(t.tournament_id)}` }, t.name)), h("td", {}, FORMAT_WORDS[t.format] ?? t.format), h("td", {}, t.status), h("td", {}, formatTime(t.created_at_ms))),
                ),
              ),
            )
          : h("p", {}, "No tournament yet."),
      );
    } catch (e) {
      if (!stopped()) sayError(e, "Loading the tournaments");
    }
  });
}

function createForm(ctx) {
  const name = h("input", { id: "t-name", name: "name", required: true, maxlength: 100 });
  const format = h("select", { id: "t-format", name: "format" }, FORMATS.map(([v, label]) => h("option", { value: v }, label)));
  const ruleset = h("select", { id: "t-ruleset", name: "ruleset" }, Object.keys(ctx.rulesets).map((n) => h("option", { value: n, selected: n === "gambler" }, n)));
  const rounds = h("input", { id: "t-rounds", name: "rounds", type: "number", min: 1, max: 100, value: 3 });
  const bestOf = h("select", { id: "t-best-of", name: "best_of" }, h("option", { value: "1" }, "one match"), h("option", { value: "3" }, "best of three"));
  const days = h("input", { id: "t-days", name: "ladder_days", type: "number", min: 1, max: 365, value: 7 });
  const target = h("input", { id: "t-target", name: "target", type: "number", min: 1, max: 10000, placeholder: "the ruleset's" });
  const password = h("input", { id: "t-password", name: "password", type: "password", autocomplete: "new-password", placeholder: "none: open to all" });
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
      const t = await ctx.gateway.request("POST", "/v1/tournaments", body);
      ctx.flash = `Tournament ${t.name} is open for entries.`;
      location.hash = `#/tournament/${encodeURIComponent(t.tournament_id)}`;
    } catch (err) {
      sayError(err, "Creating the tournament");
    }
  };
  const form = h(
    "form",
    { class: "tournament-create", id: "tournament-create", onsubmit: submit },
    h("label", {}, "Name ", name),
    h("label", {}, "Format ", format),
    h("label", {}, "Ruleset ", ruleset),
    h("label", {}, "Rounds ", rounds),
    h("label", {}, "Each meeting ", bestOf),
    h("label", {}, "Days ", days),
    h("label", {}, "Target (points) ", target),
    h("label", {}, "Password ", password),
    h("button", { type: "submit", id: "create-tournament" }, "Create"),
  );
  format.addEventListener("change", layout);
  layout();
  return form;
}

export function renderTournament(root, ctx, id) {
  const el = h("div", { class: "page-narrow", id: "tournament" }, h("p", {}, "Loading the tournament…"));
  replace(root, el);
  return every(async (stopped) => {
    try {
      const [t, standings] = await Promise.all([ctx.gateway.request("GET", path(id)), ctx.gateway.request("GET", `${path(id)}/standings`)]);
      if (!stopped()) drawTournament(el, ctx, t, standings);
    } catch (e) {
      if (stopped()) return;
      if (e.code === "unknown_tournament") replace(el, h("p", {}, "There is no such tournament. ", h("a", { href: "#/tournaments" }, "All tournaments.")));
      else sayError(e, "Loading the tournament");
    }
  });
}

function drawTournament(el, ctx, t, standings) {
  const me = ctx.session?.player ?? null;
  const name = (p) => (p.startsWith("bot:") ? botName(p) : t.names?.[p] ?? p);
  const s = t.settings;
  const entered = me !== null && t.entrants.includes(me);
  const organiser = me !== null && t.creator === me;
  const about = [FORMAT_WORDS[s.format] ?? s.format, s.ruleset, s.format === "swiss" ? `${s.rounds} rounds` : null, s.format === "elimination" ? (s.best_of === 3 ? "best of three" : "one match a meeting") : null, s.format === "ladder" ? `${s.ladder_days} days` : null, t.password_required ? "password" : null].filter(Boolean).join(", ");
  const act = (verb, method, url, body, done) => async () => {
    try {
      await ctx.gateway.request(method, url, body);
      say(done, "info");
      drawNow(el, ctx, t.tournament_id); // at once, not at the next refresh
    } catch (e) {
      sayError(e, verb);
    }
  };
  const buttons = [];
  if (t.status === "registering" && me !== null && !entered) {
    const pw = t.password_required ? h("input", { id: "enter-password", type: "password", placeholder: "password", "aria-label": "the tournament's password" }) : null;
    buttons.push(pw, h("button", { type: "button", id: "enter", onclick: () => act("Entering", "POST", `${path(t.tournament_id)}/entrants`, pw ? { password: pw.value } : {}, "You are entered.")() }, "Enter"));
  }
  if (entered && (t.status === "registering" || t.status === "running")) buttons.push(h("button", { type: "button", id: "withdraw", onclick: act("Withdrawing", "POST", `${path(t.tournament_id)}/withdraw`, {}, "You withdrew.") }, "Withdraw"));
  if (organiser && t.status === "registering") {
    buttons.push(h("button", { type: "button", id: "add-bot", onclick: act("Adding a bot", "POST", `${path(t.tournament_id)}/entrants`, { bot: "easy" }, "A bot is entered.") }, "Add an easy bot"));
    buttons.push(h("button", { type: "button", id: "start", onclick: act("Starting", "POST", `${path(t.tournament_id)}/start`, {}, "The tournament has started.") }, "Start"));
  }
  const next = me !== null ? t.tables?.[me] : null;
  replace(
    el,
    h("h1", {}, t.name),
    h("p", { id: "tournament-about" }, about, " — ", h("b", { id: "tournament-status" }, t.status), t.round ? `, round ${t.round}` : "", t.finished ? ` (${t.finished.reason.replaceAll("_", " ")})` : ""),
    next ? nextTable(ctx, next) : null,
    h("div", { class: "buttons" }, buttons),
    drawSection(t, name),
    h("h2", {}, s.format === "ladder" ? "Ladder" : "Standings"),
    standingsTable(standings, name, me),
    s.format === "elimination" && t.rounds?.length ? [h("h2", {}, "Bracket"), bracket(t, name)] : null,
    s.format !== "elimination" && t.rounds?.length ? [h("h2", {}, "Rounds"), roundsList(t, name)] : null,
    h("h2", {}, `Entrants (${t.entrants.length})`),
    h("ul", { id: "entrants" }, t.entrants.map((p) => h("li", { dataset: { entrant: p } }, playerLink(p, name(p)), t.statuses?.[p] && t.statuses[p] !== "active" ? ` (${t.statuses[p]})` : ""))),
  );
}

async function drawNow(el, ctx, id) {
  try {
    const [t, standings] = await Promise.all([ctx.gateway.request("GET", path(id)), ctx.gateway.request("GET", `${path(id)}/standings`)]);
    if (el.isConnected) drawTournament(el, ctx, t, standings);
  } catch (e) {
    sayError(e, "Loading the tournament");
  }
}

/** "The next table to take": the player's table and seat in the current round. */
function nextTable(ctx, next) {
  const take = async () => {
    try {
      await ctx.gateway.join(next.table_id, next.seat);
    } catch (e) {
      if (e.code !== "already_seated") return say(errorText(e, `Taking seat ${next.seat}`), "error");
    }
    location.hash = `#/table/${encodeURIComponent(next.table_id)}`;
  };
  return h(
    "div",
    { class: "next-table", id: "next-table", dataset: { table: next.table_id, seat: next.seat } },
    `Your table: round ${next.round}, match ${next.match}${next.game > 1 ? `, game ${next.game}` : ""}, seat ${next.seat}. `,
    h("button", { type: "button", id: "take-seat", onclick: take }, "Take your seat"),
  );
}

function standingsTable(st, name, me) {
  if (!st.rows.length) return h("p", { id: "standings" }, "The standings start with the first round.");
  const extra = st.columns.map((c) => c.column).filter((c) => c !== "points");
  const head = ["#", "Entrant", "Points", "Played", "W", "D", "L", ...extra.map((c) => COLUMN_WORDS[c] ?? c.replaceAll("_", " "))];
  return h(
    "table",
    { class: "rows", id: "standings" },
    h("thead", {}, h("tr", {}, head.map((x, i) => h("th", { class: i >= 2 ? "num" : null, title: i >= 7 ? st.columns.find((c) => c.column === extra[i - 7])?.how : null }, x)))),
    h(
      "tbody",
      {},
      st.rows.map((r) =>
        h(
          "tr",
          { dataset: { entrant: r.entrant }, class: r.players.includes(me) ? "me" : null, title: r.how },
          h("td", {}, String(r.place)),
          h("td", { class: "names" }, r.players.map((p, i) => [i ? " + " : "", playerLink(p, p.startsWith("bot:") ? botName(p) : r.names?.[i] ?? name(p))]), r.status !== "active" ? ` (${r.status})` : ""),
          [r.points, r.played, r.wins, r.draws, r.losses, ...extra.map((c) => r[c])].map((x) => h("td", { class: "num" }, x === null || x === undefined ? "—" : String(typeof x === "number" && !Number.isInteger(x) ? x.toFixed(1) : x))),
        ),
      ),
    ),
  );
}

function sideText(ids, name) {
  return ids.map(name).join(" + ") || "—";
}

function bracket(t, name) {
  return h(
    "div",
    { class: "bracket", id: "bracket" },
    t.rounds.map((r) =>
      h(
        "div",
        { class: "round", dataset: { round: r.round } },
        h("b", {}, `Round ${r.round}`),
        r.matches.map((m) => {
          const won = (side) => m.result?.[side] === "win";
          return h(
            "div",
            { class: "meeting", dataset: { match: m.match } },
            h("div", { class: `side${won("a") ? " won" : ""}` }, sideText(m.a, name)),
            m.bye ? h("div", { class: "dim-note" }, "goes through (bye)") : h("div", { class: `side${won("b") ? " won" : ""}` }, sideText(m.b, name)),
            m.games.length ? h("div", { class: "dim-note" }, m.games.map((g) => `${g.a_points ?? "?"}:${g.b_points ?? "?"}`).join(", ")) : null,
            !m.result && m.table_id ? h("a", { href: `#/table/${encodeURIComponent(m.table_id)}` }, "watch") : null,
          );
        }),
      ),
    ),
  );
}

function roundsList(t, name) {
  return h(
    "ol",
    { id: "rounds" },
    t.rounds.map((r) =>
      h(
        "li",
        { dataset: { round: r.round } },
        r.matches.map((m) =>
          h(
            "div",
            {},
            sideText(m.a, name),
            m.bye ? " (bye)" : [" v ", sideText(m.b, name)],
            m.result ? `: ${m.result.a}/${m.result.b}` : m.table_id ? [" — ", h("a", { href: `#/table/${encodeURIComponent(m.table_id)}` }, "watch")] : "",
          ),
        ),
      ),
    ),
  );
}

export function botName(id) {
  const m = /^bot:(\w+):(\d+)$/.exec(id ?? "");
  return m ? `bot ${m[2]} (${m[1]})` : id;
}

export function playerLink(id, label) {
  if (!id || id.startsWith("bot:")) return label ?? botName(id);
  return h("a", { href: `#/player/${encodeURIComponent(id)}`, class: "player" }, label ?? id);
}
