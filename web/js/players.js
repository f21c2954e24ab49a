// Ratings and a player's matches: the leaderboard of each ruleset (#/leaderboards/POOL),
// a player's page (#/player/ID: the rating of each ruleset, its history, recent
// matches) and "my matches" (#/my-matches: the tables one sits at now, then the finished
// matches). Ratings come from the gateway (/v1/leaderboards, /v1/players: the rating
// service's reads with the names added), finished matches from the verify API
// (/v1/matches?player=), tables from the lobby.

import { formatTime, has, t } from "./i18n.js";
import { h, replace, sayError } from "./ui.js";
import { rulesetName, tableStatus, withElements } from "./names.js";
import { playerLink } from "./tournaments.js";

/** The tab of the ruleset shown: aria-current. */
const CURRENT_PAGE = Object.freeze({ "aria-current": "page" });

/** A rated match's result for the player ("win": "won"). */
function resultWord(result) {
  return has(`players.result.${result}`) ? t(`players.result.${result}`) : result;
}

export function renderLeaderboards(root, ctx, pool) {
  const pools = Object.keys(ctx.rulesets);
  pool = pool?.split("?")[0];
  pool = pools.includes(pool) ? pool : pools.includes("club") ? "club" : pools[0];
  const everyone = new URLSearchParams(location.hash.split("?")[1] ?? "").get("all") === "1";
  const body = h("div", { id: "leaderboard" }, h("p", {}, t("players.loading_leaderboard")));
  replace(
    root,
    h(
      "div",
      { class: "page-narrow", dataset: { region: "leaderboard" } },
      h("h1", {}, t("pages.leaderboards")),
      h("nav", { class: "tabs", "aria-label": t("players.rulesets_label") }, pools.map((p) => h("a", { href: `#/leaderboards/${p}${everyone ? "?all=1" : ""}`, ...(p === pool ? CURRENT_PAGE : null), dataset: { pool: p } }, rulesetName(p)))),
      h("p", { class: "dim-note" }, everyone ? [t("players.every_rated_of", { pool: rulesetName(pool) }), " ", h("a", { href: `#/leaderboards/${pool}`, id: "established" }, t("players.established_only"))] : [t("players.established_of", { pool: rulesetName(pool) }), " ", h("a", { href: `#/leaderboards/${pool}?all=1`, id: "everyone" }, t("players.every_rated"))]),
      body,
    ),
  );
  let stopped = false;
  (async () => {
    try {
      const board = await ctx.gateway.request("GET", `/v1/leaderboards/${encodeURIComponent(pool)}${everyone ? "?all=1" : ""}`);
      if (stopped) return;
      replace(
        body,
        board.rows.length
          ? h(
              "table",
              { class: "rows", id: "leaderboard-rows", dataset: { pool } },
              h("thead", {}, h("tr", {}, h("th", { class: "num" }, t("players.rank")), h("th", {}, t("players.player")), h("th", { class: "num" }, t("pages.rating")), h("th", { class: "num" }, t("players.rd")), h("th", { class: "num" }, t("players.games")))),
              h(
                "tbody",
                {},
                board.rows.map((r) =>
                  h(
                    "tr",
                    { dataset: { player: r.player } },
                    h("td", { class: "num" }, String(r.rank)),
                    h("td", {}, playerLink(r.player, r.name ?? r.player)),
                    h("td", { class: "num" }, `${r.rating}${r.provisional ? "?" : ""}`),
                    h("td", { class: "num" }, String(r.rd)),
                    h("td", { class: "num" }, String(r.games)),
                  ),
                ),
              ),
            )
          : h("p", {}, everyone ? t("players.nobody_rated") : t("players.nobody_established")),
      );
    } catch (e) {
      if (!stopped) sayError(e, t("players.doing_loading_leaderboard"));
    }
  })();
  return () => (stopped = true);
}

export function renderPlayer(root, ctx, id) {
  const el = h("div", { class: "page-narrow", id: "player", dataset: { region: "player" } }, h("p", {}, t("players.loading_player")));
  replace(root, el);
  let stopped = false;
  (async () => {
    try {
      const [p, recent] = await Promise.all([ctx.gateway.request("GET", `/v1/players/${encodeURIComponent(id)}`), finished(ctx, id)]);
      if (stopped) return;
      const name = (x) => p.names?.[x] ?? x;
      const played = Object.entries(p.pools).filter(([, r]) => r.games > 0);
      replace(
        el,
        h("h1", { id: "player-name" }, p.name ?? id),
        h("h2", {}, t("players.ratings")),
        h(
          "table",
          { class: "rows", id: "ratings" },
          h("thead", {}, h("tr", {}, h("th", {}, t("pages.ruleset")), h("th", { class: "num" }, t("pages.rating")), h("th", { class: "num" }, t("players.rd")), h("th", { class: "num" }, t("players.rated_matches")), h("th", {}))),
          h(
            "tbody",
            {},
            Object.entries(p.pools).map(([pool, r]) =>
              h("tr", { dataset: { pool } }, h("td", {}, h("a", { href: `#/leaderboards/${pool}` }, rulesetName(pool))), h("td", { class: "num" }, String(r.rating)), h("td", { class: "num" }, String(r.rd)), h("td", { class: "num" }, String(r.games)), h("td", {}, r.provisional ? t("players.provisional") : "")),
            ),
          ),
        ),
        h("h2", {}, t("players.rating_history")),
        played.length
          ? played.map(([pool, r]) =>
              h(
                "section",
                { dataset: { pool } },
                h("h3", {}, rulesetName(pool)),
                h(
                  "table",
                  { class: "rows history", dataset: { pool } },
                  h("thead", {}, h("tr", {}, [t("players.when"), t("players.result_column"), t("players.partner"), t("players.opponents"), t("pages.rating")].map((x, i) => h("th", { class: i === 4 ? "num" : null }, x)))),
                  h(
                    "tbody",
                    {},
                    r.history
                      .slice()
                      .reverse()
                      .map((m) =>
                        h(
                          "tr",
                          { dataset: { match: m.match_id } },
                          h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(m.match_id)}` }, formatTime(m.at_ms))),
                          h("td", {}, m.left_by !== null && m.left_by !== undefined ? t("players.result_seat_left", { result: resultWord(m.result) }) : resultWord(m.result)),
                          h("td", {}, m.partners.map((x, i) => [i ? ", " : "", playerLink(x, name(x))])),
                          h("td", {}, m.opponents.map((x, i) => [i ? ", " : "", playerLink(x, name(x))])),
                          h("td", { class: "num" }, `${m.rating_before} → ${m.rating_after}`),
                        ),
                      ),
                  ),
                ),
              ),
            )
          : h("p", {}, t("players.no_rated_match")),
        h("h2", {}, t("players.recent_matches")),
        matchesTable(recent, "recent-matches"),
      );
    } catch (e) {
      if (!stopped) sayError(e, t("players.doing_loading_player"));
    }
  })();
  return () => (stopped = true);
}

/** The player's finished matches from the verify API (null: it did not answer). */
async function finished(ctx, player) {
  if (!ctx.verify) return null;
  try {
    const { matches } = await ctx.verify.matches(`?player=${encodeURIComponent(player)}&limit=20`);
    return matches;
  } catch (e) {
    sayError(e, t("pages.doing_loading_finished"));
    return null;
  }
}

function matchesTable(matches, id) {
  if (matches === null) return h("p", { id }, t("players.finished_unavailable"));
  if (!matches.length) return h("p", { id }, t("players.no_finished_match"));
  return h(
    "table",
    { class: "rows", id },
    h("thead", {}, h("tr", {}, [t("pages.ended"), t("pages.ruleset"), t("players.score"), t("players.how"), ""].map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      matches.map((m) =>
        h(
          "tr",
          { dataset: { match: m.match_id } },
          h("td", {}, formatTime(m.ended_at)),
          h("td", {}, rulesetName(m.ruleset)),
          h("td", {}, m.scores.join(":")),
          h("td", {}, m.ended_by === "MatchEnded" ? t("players.played_out") : m.ended_by === "MatchForfeited" ? t("players.seat_left") : t("players.aborted")),
          h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(m.match_id)}` }, t("pages.replay"))),
        ),
      ),
    ),
  );
}

export function renderMyMatches(root, ctx) {
  if (!ctx.session) {
    replace(root, h("p", { dataset: { region: "my-matches" } }, withElements(t("players.log_in_to_see"), { link: h("a", { href: "#/login" }, t("pages.log_in")) })));
    return null;
  }
  const me = ctx.session.player;
  const now = h("div", { id: "my-tables" }, h("p", {}, t("players.loading_tables")));
  const done = h("div", { id: "my-finished" }, h("p", {}, t("players.loading_finished")));
  replace(root, h("div", { class: "page-narrow", id: "my-matches", dataset: { region: "my-matches" } }, h("h1", {}, t("pages.my_matches")), h("p", {}, h("a", { href: `#/player/${encodeURIComponent(me)}`, id: "my-page" }, t("players.my_page"))), h("h2", {}, t("players.at_a_table")), now, h("h2", {}, t("players.finished")), done));
  let stopped = false;
  (async () => {
    try {
      const { tables } = await ctx.gateway.lobby();
      const mine = tables.filter((table) => table.seats.some((s) => s.player === me || s.reserved === me));
      if (!stopped)
        replace(
          now,
          mine.length
            ? h("ul", { class: "my-tables" }, mine.map((table) => h("li", { dataset: { table: table.table_id } }, h("a", { href: `#/table/${encodeURIComponent(table.table_id)}` }, t("players.ruleset_to", { ruleset: rulesetName(table.ruleset), target: String(table.target) })), " — ", table.seats.some((s) => s.reserved === me && s.player !== me) ? t("players.status_seat_kept", { status: tableStatus(table.status) }) : tableStatus(table.status))))
            : h("p", {}, t("players.no_table"), " ", h("a", { href: "#/" }, t("players.open_or_join"))),
        );
    } catch (e) {
      if (!stopped) sayError(e, t("players.doing_loading_tables"));
    }
    const matches = await finished(ctx, me);
    if (!stopped) replace(done, matchesTable(matches, "my-finished-matches"));
  })();
  return () => (stopped = true);
}
