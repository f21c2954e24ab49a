// The web client: one page, routes in the URL's hash.
//   #/            the lobby (log in first)
//   #/login       sign up or log in
//   #/table/ID    a table: play, watch, the fair deal and the in-tab check
//   #/matches     finished matches (the verify API)
//   #/replay/ID   a finished match replayed, every deck recomputed in this tab

import { Gateway, VerifyApi } from "./api.js";
import { store } from "./store.js";
import { h, replace, say, sayError } from "./ui.js";
import { renderLobby } from "./lobby.js";
import { renderTable } from "./table.js";
import { renderReplay, renderMatches } from "./replay.js";
import { mountPages } from "./pages.js";

const ctx = {
  store,
  session: store.session(),
  gateway: null,
  verify: null,
  config: null,
  rulesets: {},
  flash: null, // a message for the next page
};
ctx.gateway = new Gateway(() => ctx.session?.token ?? null, "", (e) => logOut(`${e.message}: log in again.`));

let cleanup = null;

async function start() {
  try {
    ctx.config = await ctx.gateway.config();
    ctx.verify = new VerifyApi(ctx.config.verify_url);
    const { rulesets } = await ctx.gateway.rulesets();
    ctx.rulesets = Object.fromEntries(rulesets.map((r) => [r.name, r]));
  } catch (e) {
    sayError(e, "Starting");
  }
  if (ctx.session && ctx.session.expires_at_ms < Date.now()) logOut("Your session has expired: log in again.");
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
  replace(
    nav,
    h("a", { href: "#/" }, "Lobby"),
    h("a", { href: "#/matches" }, "Finished matches"),
    ctx.session
      ? [h("span", { class: "who", id: "who" }, ctx.session.name), h("button", { type: "button", class: "link", id: "log-out", onclick: () => logOut() }, "Log out")]
      : h("a", { href: "#/login" }, "Log in"),
  );
}

function route() {
  if (cleanup) cleanup();
  cleanup = null;
  say(ctx.flash ?? "", "info");
  ctx.flash = null;
  header();
  const root = document.getElementById("page");
  const hash = location.hash.replace(/^#/, "") || "/";
  const [, page, arg] = hash.split("/");
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
  else if (page === "matches") cleanup = renderMatches(root, ctx);
  else if (page === "replay" && id) cleanup = renderReplay(root, ctx, id);
  else replace(root, h("p", {}, "There is no such page. ", h("a", { href: "#/" }, "Go to the lobby.")));
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
      ctx.flash = signUp ? `Welcome, ${s.name}.` : `Logged in as ${s.name}.`;
      // A new hash routes (hashchange); the same one does not, so route here. Routing
      // both ways would draw the page twice, the second time without the message.
      const target = `#${next === "/login" ? "/" : next}`;
      if (location.hash === target) route();
      else location.hash = target;
    } catch (e) {
      sayError(e, signUp ? "Signing up" : "Logging in");
    }
  };
  replace(
    root,
    h(
      "form",
      { class: "login", id: "login", onsubmit: (e) => (e.preventDefault(), submit(false)) },
      h("h1", {}, "Belot Club"),
      h("p", {}, "Play belote against people and bots. Every deal can be checked: your browser keeps what the table shows it and checks the match itself."),
      h("label", { for: "name" }, "Name"),
      name,
      h("small", {}, "3 to 32 letters, digits, '_', '.' or '-'"),
      h("label", { for: "password" }, "Password"),
      password,
      h("small", {}, "at least 8 characters"),
      h("div", { class: "buttons" }, h("button", { type: "submit", id: "log-in" }, "Log in"), h("button", { type: "button", id: "sign-up", onclick: () => submit(true) }, "Sign up")),
    ),
  );
  name.focus();
}

start();
