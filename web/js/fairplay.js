// The operators' fair-play page: #/fairplay lists every player with counted decisions
// (the verify API's GET /v1/fairplay/players: each player's evidence over its last
// deals, and each partnership's), flagged ones first; #/fairplay/ID shows one player's
// evidence and the decisions it rests on, each with a link to the match's replay
// (GET /v1/fairplay/players/{id}). docs/fair-play.md says what the figures mean.
//
// Why a token of its own: the evidence is about people, and only operators may read it.
// The verify API answers the operators' token (BELOT_ADMIN_TOKEN) and nobody else, so
// the page asks for it and keeps it in this tab's sessionStorage only (gone when the tab
// is closed; never in localStorage, never sent to the gateway). A flag is for a person to
// review: the page only shows the evidence, and offers no action on a player.

import { ApiError } from "./api.js";
import { cardLabel } from "./cards.js";
import { t } from "./i18n.js";
import { h, replace, sayError } from "./ui.js";

const TOKEN_KEY = "belot.operator_token";
const WINDOW_KEY = "belot.fairplay_window";
const DEFAULT_WINDOW = 50;
const MAX_WINDOW = 1000;
const STYLESHEET = "/css/fairplay.css";

function useStylesheet() {
  if (document.querySelector(`link[href="${STYLESHEET}"]`)) return;
  document.head.append(h("link", { rel: "stylesheet", href: STYLESHEET }));
}

function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || null;
  } catch {
    return null;
  }
}

function keepToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // No storage in this tab: the token lasts as long as the page.
  }
}

function storedWindow() {
  let n;
  try {
    n = Number(sessionStorage.getItem(WINDOW_KEY));
  } catch {
    n = NaN;
  }
  return Number.isInteger(n) && n >= 1 && n <= MAX_WINDOW ? n : DEFAULT_WINDOW;
}

/** The verify API, or an ApiError when the page has none. */
function verifyApi(ctx) {
  if (!ctx.verify) throw new ApiError(0, "unavailable", "no verify API");
  return ctx.verify;
}

/** The players' names from the gateway (GET /v1/players/{id}), filled in where the page
 * marks a player (data-name-of); a player without a name there keeps its id. */
async function fillNames(ctx, root, ids, isStopped) {
  await Promise.all(
    [...new Set(ids)].map(async (id) => {
      let name;
      try {
        name = (await ctx.gateway.request("GET", `/v1/players/${encodeURIComponent(id)}`))?.name ?? null;
      } catch {
        name = null;
      }
      if (!name || isStopped()) return;
      for (const el of root.querySelectorAll("[data-name-of]")) if (el.dataset.nameOf === id) el.textContent = name;
    }),
  );
}

function playerName(id) {
  return h("span", { class: "fp-name", dataset: { nameOf: id } }, id);
}

function flagMark(flagged) {
  return flagged ? h("span", { class: "fp-flag", dataset: { flag: "yes" } }, t("fairplay.flagged")) : null;
}

function score(evidence) {
  return Number(evidence.score.toFixed(2));
}

/** "score 3.12 · 51 decisions · best card found 51 times where the worlds expected 38.77" */
function figures(evidence) {
  return h(
    "span",
    { class: "fp-figures", dataset: { found: evidence.found, expected: evidence.expected } },
    t("fairplay.score", { score: score(evidence) }),
    " · ",
    t("fairplay.decisions", { count: evidence.decisions }),
    " · ",
    t("fairplay.found_total", { count: evidence.found, expected: evidence.expected }),
  );
}

/** "chance 47%: a best card in 9 of 19 worlds" */
function chance(d) {
  return t("fairplay.chance", { count: d.worlds, hits: d.hits, percent: Math.round(100 * d.chance) });
}

function partnerships(partners) {
  if (!partners.length) return null;
  return h(
    "ul",
    { class: "fp-partners" },
    partners.map((p) =>
      h(
        "li",
        { dataset: { partner: p.player, flagged: p.evidence.flagged ? "yes" : "no", score: p.evidence.score } },
        t("fairplay.with_partner"),
        " ",
        playerName(p.player),
        ": ",
        figures(p.evidence),
        " · ",
        t("fairplay.deals", { count: p.deals }),
        " ",
        flagMark(p.evidence.flagged),
      ),
    ),
  );
}

export function renderFairPlay(root, ctx, id) {
  useStylesheet();
  let stopped = false;
  const isStopped = () => stopped;
  const body = h("div", { id: "fairplay-body" });
  const page = h("div", { class: "page-narrow fairplay", id: "fairplay", dataset: { region: "fairplay" } }, h("h1", {}, t("fairplay.title")), h("p", { class: "dim-note" }, t("fairplay.about")), body);
  replace(root, page);

  const askToken = (refused = false) => {
    const input = h("input", { id: "operator-token", name: "operator-token", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
    const form = h(
      "form",
      { id: "fairplay-token", class: "fp-token", onsubmit: (e) => (e.preventDefault(), input.value.trim() && (keepToken(input.value.trim()), draw())) },
      refused ? h("p", { class: "fp-refused", id: "fairplay-refused", role: "alert" }, t("fairplay.token_refused")) : null,
      h("label", { for: "operator-token" }, t("fairplay.token_label")),
      h("div", { class: "fp-row" }, input, h("button", { type: "submit", id: "operator-open" }, t("fairplay.open"))),
      h("small", { class: "dim-note" }, t("fairplay.token_kept")),
    );
    replace(body, form);
    input.focus();
  };

  const refusedOr = (e) => {
    if (stopped) return;
    if (e.code === "unauthorized" || e.code === "forbidden") {
      keepToken(null);
      askToken(true);
      return;
    }
    replace(body, h("p", { id: "fairplay-failed" }, t("fairplay.unavailable")));
    sayError(e, t("fairplay.doing_loading"));
  };

  const toolbar = (last) => {
    const input = h("input", { id: "fairplay-window", type: "number", min: 1, max: MAX_WINDOW, step: 1, value: last, inputmode: "numeric" });
    return h(
      "form",
      {
        class: "fp-row fp-toolbar",
        onsubmit: (e) => {
          e.preventDefault();
          if (!input.reportValidity()) return;
          try {
            sessionStorage.setItem(WINDOW_KEY, String(Number(input.value)));
          } catch {
            // No storage: the default window.
          }
          draw();
        },
      },
      h("label", { for: "fairplay-window" }, t("fairplay.window_label")),
      input,
      h("button", { type: "submit", id: "fairplay-show" }, t("fairplay.show")),
      h("button", { type: "button", class: "link", id: "operator-forget", onclick: () => (keepToken(null), askToken()) }, t("fairplay.forget_token")),
    );
  };

  const drawList = async (token, last) => {
    const list = await verifyApi(ctx).fairplayPlayers(last, token);
    if (stopped) return;
    const ids = [];
    const rows = list.players.map((p) => {
      ids.push(p.player, ...p.partners.map((q) => q.player));
      return h(
        "li",
        { class: `fp-player${p.flagged ? " flagged" : ""}`, dataset: { player: p.player, flagged: p.flagged ? "yes" : "no", score: p.evidence.score, decisions: p.evidence.decisions } },
        h("div", { class: "fp-head" }, h("a", { href: `#/fairplay/${encodeURIComponent(p.player)}`, class: "fp-open" }, playerName(p.player)), " ", flagMark(p.flagged)),
        h("div", {}, figures(p.evidence), " · ", t("fairplay.deals", { count: p.deals })),
        partnerships(p.partners),
      );
    });
    replace(
      body,
      toolbar(last),
      h("p", { class: "dim-note", id: "fairplay-summary" }, t("fairplay.summary", { count: list.players.length, window: list.window, flag: list.flag_score }), list.backlog ? [" ", t("fairplay.backlog", { count: list.backlog })] : null),
      h("p", { class: "dim-note", id: "fairplay-method", dataset: { method: list.method } }, t("fairplay.method", { method: list.method })),
      rows.length ? h("ol", { class: "fp-players", id: "fairplay-players" }, rows) : h("p", { id: "fairplay-nobody" }, t("fairplay.nobody")),
    );
    // Ready once the names are in (a name the gateway does not give keeps its id).
    await fillNames(ctx, body, ids, isStopped);
    if (!isStopped()) page.dataset.ready = "yes";
  };

  const drawPlayer = async (token, last) => {
    const p = await verifyApi(ctx).fairplayPlayer(id, last, token);
    if (stopped) return;
    const decisions = p.decisions.map((d) =>
      h(
        "li",
        {
          class: "fp-decision",
          dataset: { match: d.match_id, deal: d.deal, trick: d.trick, played: d.played, found: d.found ? "yes" : "no", chance: d.chance, hits: d.hits, worlds: d.worlds, likeliest: d.likeliest },
        },
        h("a", { href: d.replay, class: "fp-replay" }, t("fairplay.position", { match: d.match_id, deal: d.deal + 1, trick: d.trick + 1 })),
        d.found ? [" ", h("span", { class: "fp-found" }, t("fairplay.found"))] : null,
        h(
          "div",
          { class: "fp-cards" },
          t("fairplay.played", { card: cardLabel(d.played) }),
          " · ",
          t("fairplay.dd_best", { cards: d.dd_best.map(cardLabel).join(" ") }),
          " · ",
          t("fairplay.likeliest", { card: cardLabel(d.likeliest) }),
        ),
        h("div", { class: "fp-chance" }, h("b", {}, chance(d))),
      ),
    );
    replace(
      body,
      toolbar(last),
      h("p", {}, h("a", { href: "#/fairplay", id: "fairplay-back" }, t("fairplay.back"))),
      h(
        "section",
        { class: `fp-player${p.flagged ? " flagged" : ""}`, id: "fairplay-player", dataset: { player: p.player, flagged: p.flagged ? "yes" : "no", score: p.evidence.score } },
        h("h2", {}, playerName(p.player), " ", flagMark(p.flagged)),
        h("p", {}, figures(p.evidence), " · ", t("fairplay.deals", { count: p.deals }), " · ", t("fairplay.matches", { count: p.matches })),
        partnerships(p.partners),
        h("h3", {}, t("fairplay.decisions_heading")),
        h("p", { class: "dim-note" }, t("fairplay.decisions_about")),
        decisions.length ? h("ol", { class: "fp-decisions", id: "fairplay-decisions" }, decisions) : h("p", {}, t("fairplay.no_decisions")),
      ),
    );
    // Ready once the names are in (a name the gateway does not give keeps its id).
    await fillNames(ctx, body, [p.player, ...p.partners.map((q) => q.player)], isStopped);
    if (!isStopped()) page.dataset.ready = "yes";
  };

  const draw = () => {
    const token = storedToken();
    page.dataset.ready = "no";
    if (!token) return askToken();
    replace(body, h("p", {}, t("fairplay.loading")));
    const last = storedWindow();
    (id ? drawPlayer(token, last) : drawList(token, last)).catch(refusedOr);
  };
  draw();
  return () => {
    stopped = true;
  };
}
