// The web client: one page, routes in the URL's hash.
//   #/            the lobby (log in first)
//   #/login       sign up or log in
//   #/table/ID    a table: play, watch, the fair deal and the in-tab check
//   #/matches     finished matches (the verify API)
//   #/replay/ID   a finished match replayed, every deck recomputed in this tab
//   #/replay/ID/DEAL/TRICK/INDEX  the same, opened at that card (from 0: fair play's links)

import { Gateway, VerifyApi } from "./api.js";
import { store } from "./store.js";
import { h, replace, say, sayError } from "./ui.js";
import { renderLobby } from "./lobby.js";
import { renderTable } from "./table.js";
import { renderReplay, renderMatches } from "./replay.js";
import { markPage, mountPages } from "./pages.js";
import { LANGUAGES, chooseLanguage, language, nameOf, setLanguage, t } from "./i18n.js";

// The language first, before any word is drawn: the visitor's choice on this browser,
// else the browser's languages. ?lang= in the address chooses too, and is kept as a
// choice from the menu is (a link in a language; the pseudo-locale en-XA, which the menu
// does not offer, is reached only so).
const asked = new URLSearchParams(location.search).get("lang");
if (asked && chooseLanguage(asked) === asked) store.saveLanguage(asked);
setLanguage(chooseLanguage(store.language(), navigator.languages));

const ctx = {
  store,
  session: store.session(),
  gateway: null,
  verify: null,
  config: null,
  rulesets: {},
  flash: null, // a message for the next page
};
ctx.gateway = new Gateway(() => ctx.session?.token ?? null, "", () => logOut(t("app.session_ended")));

let cleanup = null;

async function start() {
  try {
    ctx.config = await ctx.gateway.config();
    ctx.verify = new VerifyApi(ctx.config.verify_url);
    const { rulesets } = await ctx.gateway.rulesets();
    ctx.rulesets = Object.fromEntries(rulesets.map((r) => [r.name, r]));
  } catch (e) {
    sayError(e, t("app.starting"));
  }
  if (ctx.session && ctx.session.expires_at_ms < Date.now()) logOut(t("app.session_expired"));
  window.addEventListener("hashchange", route);
  route();
}

function logOut(why = "") {
  store.clearSession();
  ctx.session = null;
  header();
  ctx.flash = why || null; // said once the login page is drawn
  if (location.hash === "#/login") route();
  else location.hash = "#/login";
}

function header() {
  const nav = document.getElementById("nav");
  const brand = document.querySelector(".brand");
  if (brand) brand.setAttribute("aria-label", t("app.brand"));
  replace(
    nav,
    h("a", { href: "#/" }, t("app.lobby")),
    h("a", { href: "#/matches" }, t("app.finished_matches")),
    ctx.session
      ? [h("span", { class: "who", id: "who" }, ctx.session.name), h("button", { type: "button", class: "link", id: "log-out", onclick: () => logOut() }, t("app.log_out"))]
      : h("a", { href: "#/login" }, t("app.log_in")),
  );
  // Beside the links, never folded away with them on a narrow screen.
  document.getElementById("language")?.remove();
  nav.after(languageMenu());
  document.getElementById("menu-button")?.remove();
  nav.before(menuButton(nav));
}

/** On a phone the links fold under one button (css: button.menu-button), so that the
 * header stays one line above the table; a new page folds them again. */
function menuButton(nav) {
  const top = nav.closest("header");
  top.classList.remove("open");
  const button = h("button", { type: "button", id: "menu-button", class: "menu-button", "aria-expanded": "false", "aria-controls": nav.id }, "☰ ", t("layout.menu"));
  button.addEventListener("click", () => button.setAttribute("aria-expanded", String(top.classList.toggle("open"))));
  return button;
}

/** The header's language menu: each language named in its own words. The choice is kept
 * on this browser and, for a player logged in, with the account (the next log-in, on any
 * browser, speaks it); the page is drawn again in it. */
function languageMenu() {
  const codes = LANGUAGES.includes(language()) ? LANGUAGES : [...LANGUAGES, language()];
  const menu = h(
    "select",
    { id: "language", class: "language", "aria-label": t("app.language"), title: t("app.language") },
    codes.map((code) => h("option", { value: code, lang: code, selected: code === language() }, nameOf(code))),
  );
  menu.addEventListener("change", () => chooseAndKeep(menu.value));
  return menu;
}

async function chooseAndKeep(code) {
  if (!setLanguage(code)) return;
  store.saveLanguage(code);
  route(); // the page again, in the new words
  if (!ctx.session) return;
  try {
    await ctx.gateway.setLanguage(code);
  } catch (e) {
    sayError(e, t("app.keeping_language"));
  }
}

function route() {
  if (cleanup) cleanup();
  cleanup = null;
  say(ctx.flash ?? "", "info");
  ctx.flash = null;
  header();
  const root = document.getElementById("page");
  const hash = location.hash.replace(/^#/, "") || "/";
  const [, page, arg, ...more] = hash.split("/");
  const id = arg ? decodeURIComponent(arg) : null;
  if (mountPages(root, ctx, page, id, (stop) => (cleanup = stop))) return; // tournaments, leaderboards, players (pages.js)
  const needsLogin = page === "" || page === "table";
  if (needsLogin && !ctx.session) {
    renderLogin(root, hash);
    return;
  }
  document.body.dataset.page = page || "lobby";
  if (page === "" || page === undefined) cleanup = renderLobby(root, ctx);
  else if (page === "login") renderLogin(root, "/");
  else if (page === "table" && id) cleanup = renderTable(root, ctx, id);
  else if (page === "matches") {
    cleanup = renderMatches(root, ctx);
    markPage(root, "matches");
  }
  else if (page === "replay" && id) cleanup = renderReplay(root, ctx, id, cardAt(more));
  else replace(root, h("p", { id: "not-found", dataset: { region: "not-found" } }, t("app.no_such_page"), " ", h("a", { href: "#/" }, t("app.go_to_lobby"))));
}

/** A card's place in a replay's address (#/replay/ID/DEAL/TRICK/INDEX, from 0: the
 * fair-play page's links), or null for none or a malformed one (the match's start). */
function cardAt(parts) {
  if (parts.length !== 3 || !parts.every((x) => /^\d{1,4}$/.test(x))) return null;
  const [deal, trick, index] = parts.map(Number);
  return { deal, trick, index };
}

function renderLogin(root, next) {
  document.body.dataset.page = "login";
  const name = h("input", { id: "name", name: "name", autocomplete: "username", required: true, minlength: 3, maxlength: 32 });
  const password = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 8 });
  const submit = async (signUp) => {
    if (!name.reportValidity() || !password.reportValidity()) return;
    try {
      if (signUp) await ctx.gateway.signUp(name.value, password.value);
      const s = await ctx.gateway.logIn(name.value, password.value);
      ctx.session = { token: s.token, player: s.player, name: s.name, expires_at_ms: s.expires_at_ms };
      store.saveSession(ctx.session);
      // The account's language wins; one chosen here before the account had any is kept
      // for it.
      if (s.language && setLanguage(s.language)) store.saveLanguage(s.language);
      else if (!s.language && store.language()) ctx.gateway.setLanguage(language()).catch(() => {});
      ctx.flash = signUp ? t("app.welcome", { name: s.name }) : t("app.logged_in_as", { name: s.name });
      // A new hash routes (hashchange); the same one does not, so route here. Routing
      // both ways would draw the page twice, the second time without the message.
      const target = `#${next === "/login" ? "/" : next}`;
      if (location.hash === target) route();
      else location.hash = target;
    } catch (e) {
      sayError(e, signUp ? t("app.signing_up") : t("app.logging_in"));
    }
  };
  replace(
    root,
    h(
      "form",
      { class: "login", id: "login", dataset: { region: "login" }, onsubmit: (e) => (e.preventDefault(), submit(false)) },
      h("h1", {}, t("app.brand")),
      h("p", {}, t("app.intro")),
      h("label", { for: "name" }, t("app.name")),
      name,
      h("small", {}, t("app.name_rule")),
      h("label", { for: "password" }, t("app.password")),
      password,
      h("small", {}, t("app.password_rule")),
      h("div", { class: "buttons" }, h("button", { type: "submit", id: "log-in" }, t("app.log_in")), h("button", { type: "button", id: "sign-up", onclick: () => submit(true) }, t("app.sign_up"))),
    ),
  );
  name.focus();
}

start();
