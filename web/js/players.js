// Ratings and a player's matches: the leaderboard of each ruleset (#/leaderboards/POOL),
// a player's page (#/player/ID: the rating of each ruleset, its history, recent
// matches) and "my matches" (#/my-matches: the tables one sits at now, then the finished
// matches). Ratings come from the gateway (/v1/leaderboards, /v1/players: the rating
// service's reads with the names added), finished matches from the verify API
// (/v1/matches?player=), tables from the lobby.

import { formatTime, h, replace, sayError } from "./ui.js";
import { playerLink } from "./tournaments.js";

const RESULT_WORDS = { win: "won", loss: "lost", draw: "drawn" };

export function renderLeaderboards(root, ctx, pool) {
  const pools = Object.keys(ctx.rulesets);
  pool = pool?.split("?")[0];
  pool = pools.includes(pool) ? pool : pools.includes("club") ? "club" : pools[0];
  const everyone = new URLSearchParams(location.hash.split("?")[1] ?? "").get("all") === "1";
  const body = h("div", { id: "leaderboard" }, h("p", {}, "Loading the leaderboard…"));
  replace(
    root,
    h(
      "div",
      { class: "page-narrow" },
      h("h1", {}, "Leaderboards"),
      h("nav", { class: "tabs", "aria-label": "rulesets" }, pools.map((p) => h("a", { href: `#/leaderboards/${p}${everyone ? "?all=1" : ""}`, "aria-current": p === pool ? "page" : null, dataset: { pool: p } }, p))),
      h("p", { class: "dim-note" }, everyone ? ["Every rated player of ", pool, ", provisional ratings marked. ", h("a", { href: `#/leaderboards/${pool}`, id: "established" }, "Established players only")] : ["Established players (not provisional) who played ", pool, " in the last 30 days. ", h("a", { href: `#/leaderboards/${pool}?all=1`, id: "everyone" }, "Every rated player")]),
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
              h("thead", {}, h("tr", {}, h("th", { class: "num" }, "Rank"), h("th", {}, "Player"), h("th", { class: "num" }, "Rating"), h("th", { class: "num" }, "RD"), h("th", { class: "num" }, "Games"))),
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
          : h("p", {}, everyone ? "Nobody has a rated match in this ruleset yet." : "No established player yet: ratings stay provisional for the first matches."),
      );
    } catch (e) {
      if (!stopped) sayError(e, "Loading the leaderboard");
    }
  })();
  return () => (stopped = true);
}

export function renderPlayer(root, ctx, id) {
  const el = h("div", { class: "page-narrow", id: "player" }, h("p", {}, "Loading the player…"));
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
        h("h2", {}, "Ratings"),
        h(
          "table",
          { class: "rows", id: "ratings" },
          h("thead", {}, h("tr", {}, h("th", {}, "Ruleset"), h("th", { class: "num" }, "Rating"), h("th", { class: "num" }, "RD"), h("th", { class: "num" }, "Rated matches"), h("th", {}))),
          h(
            "tbody",
            {},
            Object.entries(p.pools).map(([pool, r]) =>
              h("tr", { dataset: { pool } }, h("td", {}, h("a", { href: `#/leaderboards/${pool}` }, pool)), h("td", { class: "num" }, String(r.rating)), h("td", { class: "num" }, String(r.rd)), h("td", { class: "num" }, String(r.games)), h("td", {}, r.provisional ? "provisional" : "")),
            ),
          ),
        ),
        h("h2", {}, "Rating history"),
        played.length
          ? played.map(([pool, r]) =>
              h(
                "section",
                { dataset: { pool } },
                h("h3", {}, pool),
                h(
                  "table",
                  { class: "rows history", dataset: { pool } },
                  h("thead", {}, h("tr", {}, ["When", "Result", "Partner", "Opponents", "Rating"].map((x, i) => h("th", { class: i === 4 ? "num" : null }, x)))),
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
                          h("td", {}, `${RESULT_WORDS[m.result] ?? m.result}${m.left_by !== null && m.left_by !== undefined ? " (a seat left)" : ""}`),
                          h("td", {}, m.partners.map((x, i) => [i ? ", " : "", playerLink(x, name(x))])),
                          h("td", {}, m.opponents.map((x, i) => [i ? ", " : "", playerLink(x, name(x))])),
                          h("td", { class: "num" }, `${m.rating_before} → ${m.rating_after}`),
                        ),
                      ),
                  ),
                ),
              ),
            )
          : h("p", {}, "No rated match yet."),
        h("h2", {}, "Recent matches"),
        matchesTable(recent, "recent-matches"),
      );
    } catch (e) {
      if (!stopped) sayError(e, "Loading the player");
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
    sayError(e, "Loading the finished matches");
    return null;
  }
}

function matchesTable(matches, id) {
  if (matches === null) return h("p", { id }, "The finished matches cannot be listed just now.");
  if (!matches.length) return h("p", { id }, "No finished match yet.");
  return h(
    "table",
    { class: "rows", id },
    h("thead", {}, h("tr", {}, ["Ended", "Ruleset", "Score", "How", ""].map((x) => h("th", {}, x)))),
    h(
      "tbody",
      {},
      matches.map((m) =>
        h(
          "tr",
          { dataset: { match: m.match_id } },
          h("td", {}, new Date(m.ended_at).toLocaleString()),
          h("td", {}, m.ruleset),
          h("td", {}, m.scores.join(":")),
          h("td", {}, m.ended_by === "MatchEnded" ? "played out" : m.ended_by === "MatchForfeited" ? "a seat left" : "aborted"),
          h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(m.match_id)}` }, "Replay")),
        ),
      ),
    ),
  );
}

export function renderMyMatches(root, ctx) {
  if (!ctx.session) {
    replace(root, h("p", {}, h("a", { href: "#/login" }, "Log in"), " to see your matches."));
    return null;
  }
  const me = ctx.session.player;
  const now = h("div", { id: "my-tables" }, h("p", {}, "Loading your tables…"));
  const done = h("div", { id: "my-finished" }, h("p", {}, "Loading your finished matches…"));
  replace(root, h("div", { class: "page-narrow", id: "my-matches" }, h("h1", {}, "My matches"), h("p", {}, h("a", { href: `#/player/${encodeURIComponent(me)}`, id: "my-page" }, "My ratings and history")), h("h2", {}, "At a table now"), now, h("h2", {}, "Finished"), done));
  let stopped = false;
  (async () => {
    try {
      const { tables } = await ctx.gateway.lobby();
      const mine = tables.filter((t) => t.seats.some((s) => s.player === me || s.reserved === me));
      if (!stopped)
        replace(
          now,
          mine.length
            ? h("ul", { class: "my-tables" }, mine.map((t) => h("li", { dataset: { table: t.table_id } }, h("a", { href: `#/table/${encodeURIComponent(t.table_id)}` }, `${t.ruleset} to ${t.target}`), ` — ${t.status}${t.seats.some((s) => s.reserved === me && s.player !== me) ? ", a seat is kept for you" : ""}`)))
            : h("p", {}, "You sit at no table. ", h("a", { href: "#/" }, "Open or join one in the lobby.")),
        );
    } catch (e) {
      if (!stopped) sayError(e, "Loading your tables");
    }
    const matches = await finished(ctx, me);
    if (!stopped) replace(done, matchesTable(matches, "my-finished-matches"));
  })();
  return () => (stopped = true);
}
