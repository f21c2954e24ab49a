// The fair deal on the table: a seal on the felt (sealSwitch: checking, ✓ checked, ✗
// failed, ? could not check) that opens its panel (fairDealPanel) on demand: the check's
// verdict and banner in words first, the technical values (the commitment, the seeds,
// drand's round) behind a second click. A failure is never behind a click: the seal says
// it on the felt, and the panel opens by itself with its banner (role "alert").
// "Could not check" is never "failed": statusOf keeps the two apart, and so do the words.

import { checkName, drandPage } from "./fairdeal.js";
import { has, t } from "./i18n.js";
import { fallbackReason, withElements } from "./names.js";
import { icon } from "./icons.js";
import { h, shortHex } from "./ui.js";

/** The seal's state: the check's (statusOf), or "fail" as soon as something is already
 * known to have failed during the match (fairdeal.js checkLive), or "fallback" while
 * waiting on a match dealt without drand. */
export function sealState(kept, checkStatus, liveFailed) {
  if (liveFailed.length && checkStatus === "waiting") return "fail";
  if (checkStatus === "waiting" && kept?.fallback) return "fallback";
  return checkStatus;
}

const SEAL_ICON = Object.freeze({ waiting: "lock", fallback: "lock", running: "clock", pass: "check", fail: "cross", unchecked: "question" });

/** The seal on the felt: a button that opens and closes the panel. */
export function sealSwitch(state, open, onclick) {
  return h(
    "button",
    { type: "button", id: "seal", class: `seal ${state}`, dataset: { state }, "aria-expanded": String(open), "aria-controls": "fairdeal", "aria-label": t(`table.seal.${state}`), title: t("table.seal.title"), onclick },
    icon(SEAL_ICON[state] ?? "lock"),
    " ",
    h("span", { class: "seal-word" }, t(`table.seal.${state}`)),
  );
}

/** The panel: the banner, what the fair deal is in one paragraph, the check (its verdict
 * and each check), and the technical values in a <details> (the second click).
 * ``page``: seatName(seat), and recheck() for the "check again" button. */
export function fairDealPanel(page, kept, checkStatus, liveFailed, open) {
  const check = kept?.check;
  let checkEl;
  if (checkStatus === "running") checkEl = h("p", {}, t("table.fair.checking"));
  else if (!check) checkEl = h("p", { class: "dim" }, t("table.fair.check_about"));
  else {
    checkEl = h(
      "div",
      {},
      h("p", { class: checkStatus }, t(`table.verdict.${checkStatus}`)),
      h(
        "ul",
        { class: "checks", id: "checks" },
        check.checks.map((c) => h("li", { class: c.status, dataset: { check: c.name } }, h("b", {}, `${has(`table.check_status.${c.status}`) ? t(`table.check_status.${c.status}`) : c.status.toUpperCase()} `), `${checkName(c.name)}: `, linkify(c.detail))),
      ),
      h("button", { type: "button", class: "link", id: "check-again", onclick: () => page.recheck() }, t("table.fair.check_again")),
    );
  }
  return h(
    "aside",
    { class: "fairdeal", id: "fairdeal", hidden: !open, dataset: { check: checkStatus, region: "fair-deal" }, "aria-label": t("table.fair.title") },
    h("div", { class: "banner-slot" }, checkBanner(kept, liveFailed, checkStatus)),
    h("h2", {}, t("table.fair.title")),
    h("p", { class: "fair-summary" }, t("table.fair.summary")),
    h("div", { id: "check", dataset: { status: checkStatus } }, checkEl),
    h("details", { id: "fair-tech", class: "fair-tech", open: page.techOpen ?? false, ontoggle: (e) => (page.techOpen = e.target.open) }, h("summary", {}, t("table.fair.technical")), technicalValues(page, kept)),
  );
}

function technicalValues(page, kept) {
  const rows = [];
  const row = (label, ...value) => rows.push(h("dt", {}, label), h("dd", {}, value));
  if (!kept || !kept.commitment) {
    row(t("table.fair.commitment"), t("table.fair.commitment_not_yet"));
  } else {
    row(t("table.fair.commitment"), h("code", { id: "commitment", title: kept.commitment }, shortHex(kept.commitment, 16)), h("div", { class: "dim" }, t("table.fair.commitment_about")));
    if (kept.seat !== null) {
      row(t("table.fair.my_seed"), kept.my_seed ? h("code", { id: "my-seed", title: kept.my_seed }, kept.my_seed) : "—", h("div", { class: "dim" }, kept.my_seed ? t("table.fair.my_seed_made") : t("table.fair.my_seed_not_made")));
    }
    if (kept.seat_seeds) {
      row(
        t("table.fair.seat_seeds"),
        h(
          "ul",
          { id: "seat-seeds" },
          kept.seat_seeds.map((s, i) => h("li", {}, `${i === kept.seat ? t("table.seat.you") : page.seatName(i)}: `, s ? h("code", { title: s }, shortHex(s, 8)) : h("span", { class: "dim" }, t("table.fair.no_seat_seed")))),
        ),
      );
    } else {
      row(t("table.fair.seat_seeds"), t("table.fair.seat_seeds_later"));
    }
    const chain = kept.chain ?? "quicknet";
    if (kept.fallback) {
      row("drand", h("strong", { class: "warn", id: "fallback" }, t("table.fair.fallback")), h("div", {}, t("table.fair.fallback_about", { reason: fallbackReason(kept.fallback.reason), round: String(kept.fallback.round) })));
    } else if (kept.drand_round !== null) {
      const own = kept.drand_seen?.[String(kept.drand_round)];
      row(
        t("table.fair.drand_round"),
        h("a", { id: "drand-round", href: drandPage(chain, kept.drand_round), target: "_blank", rel: "noopener noreferrer" }, t("table.fair.chain_round", { chain, round: String(kept.drand_round) })),
        kept.drand ? h("div", {}, `${t("table.fair.randomness")} `, h("code", { title: kept.drand.randomness }, shortHex(kept.drand.randomness, 12))) : h("div", { class: "dim" }, t("table.fair.drand_waiting")),
        own ? h("div", { class: "dim", id: "drand-own" }, t("table.fair.drand_own", { relay: own.relay })) : null,
      );
    }
    const deals = Object.keys(kept.deals ?? {}).length;
    if (deals) row(t("table.fair.deals_kept"), t("table.fair.deals_kept_value", { count: deals }));
    if (kept.reveal) row(t("table.fair.server_seed"), h("code", { id: "server-seed", title: kept.reveal.server_seed }, shortHex(kept.reveal.server_seed, 16)));
  }
  return h("dl", {}, rows);
}

/** The table's data-check: waiting (no complete check yet), pass (ok), fail (something
 * failed), unchecked (nothing failed, but not everything could be checked). */
export function statusOf(check) {
  if (!check || !check.complete) return "waiting";
  if (check.ok) return "pass";
  return check.failed || check.checks.some((c) => c.status === "fail") ? "fail" : "unchecked";
}

function checkBanner(kept, liveFailed, status) {
  const c = kept?.check;
  if (status === "running") return h("div", { class: "banner info", id: "banner" }, t("table.fair.checking"));
  const failedNow = liveFailed;
  if (failedNow.length && status === "waiting") {
    // What can already be known to have failed is said now, not at the end.
    const names = [...new Set(failedNow.map((x) => x.name))];
    return h("div", { class: "banner fail", id: "banner", role: "alert", dataset: { failed: names.join(",") } }, t("table.banner.failed_now", { names: names.map(checkName).join(", "), detail: failedNow[0].detail }));
  }
  if (status === "waiting") return kept?.fallback ? h("div", { class: "banner warn", id: "banner" }, t("table.banner.fallback")) : null;
  if (status === "pass") return h("div", { class: "banner pass", id: "banner" }, t("table.banner.pass"));
  if (status === "unchecked") {
    const open = c.checks.filter((x) => x.status === "unchecked");
    return h(
      "div",
      { class: "banner unchecked", id: "banner", dataset: { unchecked: open.map((x) => x.name).join(",") } },
      withElements(t("table.banner.unchecked", { count: open.length }), {
        list: open.map((x, i) => [i ? "; " : "", h("b", {}, checkName(x.name)), " (", linkify(x.detail), ")"]),
      }),
    );
  }
  const failed = [...new Set(c.checks.filter((x) => x.status === "fail").map((x) => x.name))];
  return h("div", { class: "banner fail", id: "banner", role: "alert", dataset: { failed: failed.join(",") } }, t("table.banner.failed", { names: failed.map(checkName).join(", ") }));
}


function linkify(text) {
  const m = /(https:\/\/\S+)/.exec(text);
  if (!m) return text;
  return [text.slice(0, m.index), h("a", { href: m[1], target: "_blank", rel: "noopener noreferrer" }, m[1]), text.slice(m.index + m[1].length)];
}
