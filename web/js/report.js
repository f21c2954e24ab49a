// The verify API's report on a finished match, drawn on the replay page: the verdict,
// how it was dealt, and each check, its name in the player's language and its detail as
// the API wrote it (English, marked so).

import { errorText, h } from "./ui.js";
import { has, language, t } from "./i18n.js";
import { fallbackReason, withElements } from "./names.js";

/** A check's status in the report ("pass", "fail", "skip"), as a verdict. */
function checkStatus(status) {
  return has(`replay.check_status.${status}`) ? t(`replay.check_status.${status}`) : status.toUpperCase();
}

/** A check's name in the verify API's report ("seat_seeds"), in the player's language. */
function reportCheckName(name) {
  return has(`replay.report_check.${name}`) ? t(`replay.report_check.${name}`) : name;
}

/** A check of the verify API's report: its name in the player's language, its detail as
 * the API wrote it (English, marked so: a screen reader reads it in English). The tab's
 * own recomputation above says everything in the player's language. */
function reportCheckLine(c) {
  const name = reportCheckName(c.name);
  if (language() === "en") return t("replay.report_check_line", { name, detail: c.detail });
  const detail = h("span", { lang: "en", title: t("replay.report_in_english") }, c.detail);
  return withElements(t("replay.report_check_line", { name }), { detail });
}

export function reportSection(report, error, ctx, matchId) {
  const address = `${ctx.verify.base}/v1/matches/${matchId}/verification`;
  if (!report) {
    const why = error?.code === "seed_not_revealed" ? t("replay.no_report_seed") : error ? errorText(error, t("replay.no_report")) : t("replay.no_report_none");
    return h("section", { id: "report" }, h("h2", {}, t("replay.report")), h("p", {}, why));
  }
  return h(
    "section",
    { id: "report", dataset: { ok: report.ok } },
    h("h2", {}, t("replay.report")),
    h("p", { class: report.ok ? "pass" : "fail", id: "report-verdict" }, report.ok ? t("replay.verified") : t("replay.not_verified", { failed: report.failed.map(reportCheckName).join(", ") })),
    h("p", { class: "dim" }, report.dealt_with_drand === false ? t("replay.report_fallback", { reason: fallbackReason(report.fallback_reason) }) : report.bls_checked ? t("replay.report_drand_bls", { round: String(report.drand_round) }) : t("replay.report_drand", { round: String(report.drand_round) })),
    h(
      "ul",
      { class: "checks" },
      report.checks.map((c) => h("li", { class: c.status, dataset: { check: c.name } }, h("b", {}, checkStatus(c.status), " "), reportCheckLine(c))),
    ),
    h("p", { class: "dim" }, withElements(t("replay.report_source"), { url: h("code", {}, address) })),
  );
}
