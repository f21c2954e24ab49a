// The pages beside the lobby and the table, mounted on the app's router by one call
// (mountPages in app.js's route):
//   #/tournaments        tournaments: the list, and a form to create one
//   #/tournament/ID      one tournament: enter, standings, bracket or ladder, your table
//   #/leaderboards/POOL  the leaderboard of a ruleset (?all=1: every rated player)
//   #/player/ID          a player: ratings, rating history, recent matches
//   #/my-matches         the tables you sit at, and your finished matches
//   #/fairplay[/ID]      the operators' fair-play evidence (fairplay.js: their token
//                        only; no link in the navigation)
// It also adds their links to the header's navigation.

import { useStylesheet } from "./chat.js";
import { renderFairPlay } from "./fairplay.js";
import { t } from "./i18n.js";
import { renderLeaderboards, renderMyMatches, renderPlayer } from "./players.js";
import { renderTournament, renderTournaments } from "./tournaments.js";
import { h } from "./ui.js";

const PAGES = {
  tournaments: (root, ctx) => renderTournaments(root, ctx),
  tournament: (root, ctx, id) => renderTournament(root, ctx, id),
  leaderboards: (root, ctx, id) => renderLeaderboards(root, ctx, id),
  player: (root, ctx, id) => renderPlayer(root, ctx, id),
  "my-matches": (root, ctx) => renderMyMatches(root, ctx),
  fairplay: (root, ctx, id) => renderFairPlay(root, ctx, id),
};
/** The pages that need an argument (an id). */
const WITH_ID = new Set(["tournament", "player"]);

/** Add the pages' links to the navigation, and draw ``page`` if it is one of them:
 * true when it was (``setCleanup`` is handed what stops it). */
export function mountPages(root, ctx, page, id, setCleanup) {
  useStylesheet();
  navigation(ctx);
  const draw = PAGES[page];
  if (!draw || (WITH_ID.has(page) && !id)) return false;
  document.body.dataset.page = page;
  setCleanup(draw(root, ctx, id) ?? null);
  markPage(root, page);
  return true;
}

/** A page that marks no region of its own (data-region) is one region, named by its
 * route: the layout test (tests/integration/test_web_layout.py) finds the page's regions
 * by their marks and measures that none lies on another or on the header. */
export function markPage(root, name) {
  const page = root.firstElementChild;
  if (page && !root.querySelector("[data-region]")) page.dataset.region = name;
}

function navigation(ctx) {
  const nav = document.getElementById("nav");
  if (!nav || nav.querySelector("#nav-tournaments")) return;
  const before = nav.querySelector("#who") ?? nav.querySelector('a[href="#/login"]');
  const links = [
    h("a", { href: "#/tournaments", id: "nav-tournaments" }, t("pages.tournaments")),
    h("a", { href: "#/leaderboards", id: "nav-leaderboards" }, t("pages.leaderboards")),
    ctx.session ? h("a", { href: "#/my-matches", id: "nav-my-matches" }, t("pages.my_matches")) : null,
  ];
  for (const link of links) if (link) nav.insertBefore(link, before);
}
