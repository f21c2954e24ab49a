// Finished matches, and the replay of one: every input, every deck recomputed in this
// tab (deck.js) and compared with the record's and with what this tab kept if it played
// there, each deal step by step from the record's own events, and the verify service's
// report, and its analysis. The record, the report and the analysis come from the verify
// API (another origin, CORS); the deals' steps are replaysteps.js's, the report's view
// report.js's, the analysis's view analysis.js's.
// A record of a match not yet ended that serves a hash of its events (nobody is served
// one while it runs) is kept against the match, if this tab played it (keeper.js
// recordHash, keepHashServed): its check at the table then fails "hashes".

import { cardLabel, strainLabel } from "./cards.js";
import { now } from "./clock.js";
import { deck, fromHex, sha256Hex } from "./deck.js";
import { drandPage, seatCards } from "./fairdeal.js";
import { keepHashServed, recordHash } from "./keepown.js";
import { formatTime, t } from "./i18n.js";
import { scoreSheet, sheetTable } from "./sheet.js";
import { fallbackReason, rulesetName, withElements } from "./names.js";
import { cardVerdict, dealAnalysis, dealSection, seatsTable } from "./analysis.js";
import { reportSection } from "./report.js";
import { playerNames, seatNames } from "./replaynames.js";
import { dealMeta, dealSteps } from "./replaysteps.js";
import { cardFace, errorText, h, replace, sayError } from "./ui.js";
import { statusOf } from "./dealpanel.js";
import { feltView } from "./felt.js";

export function renderMatches(root, ctx) {
  const list = h("div", { id: "matches" }, h("p", {}, t("replay.loading_matches")));
  const kept = ctx.store.keptMatches();
  replace(
    root,
    h(
      "div",
      { class: "matches" },
      h("h1", {}, t("replay.finished_matches")),
      list,
      kept.length
        ? h("section", {}, h("h2", {}, t("replay.kept_matches")), h("ul", {}, kept.map((k) => h("li", {}, h("a", { href: `#/replay/${encodeURIComponent(k.match_id)}` }, k.match_id), " ", k.ruleset ? rulesetName(k.ruleset) : ""))))
        : null,
    ),
  );
  let stopped = false;
  (async () => {
    try {
      if (!ctx.verify) throw Object.assign(new Error("the verify API's address is unknown"), { code: "network" });
      const { matches } = await ctx.verify.matches("?limit=50");
      if (stopped) return;
      replace(
        list,
        matches.length
          ? h(
              "table",
              { class: "tables" },
              h("thead", {}, h("tr", {}, [t("replay.match"), t("pages.ruleset"), t("replay.result"), t("pages.ended"), t("replay.drand"), ""].map((x) => h("th", {}, x)))),
              h(
                "tbody",
                {},
                matches.map((m) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, h("code", {}, m.match_id)),
                    h("td", {}, rulesetName(m.ruleset)),
                    h("td", {}, matchResult(m.ended_by, m.scores.join(":"))),
                    h("td", {}, formatTime(m.ended_at)),
                    h("td", {}, m.dealt_with_drand === false ? t("replay.drand_fallback") : m.dealt_with_drand ? t("replay.drand_yes") : "—"),
                    h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(m.match_id)}` }, t("pages.replay"))),
                  ),
                ),
              ),
            )
          : h("p", {}, t("replay.none_finished")),
      );
    } catch (e) {
      if (!stopped) {
        replace(list, h("p", {}, t("replay.verify_silent")));
        sayError(e, t("pages.doing_loading_finished"));
      }
    }
  })();
  return () => {
    stopped = true;
  };
}

/** A finished match's result in the list: its score, and how it ended unless played out. */
function matchResult(endedBy, scores) {
  if (endedBy === "MatchEnded") return scores;
  return endedBy === "MatchForfeited" ? t("replay.result_forfeited", { scores }) : t("replay.result_aborted", { scores });
}

/** ``at``: a card to open at ({deal, trick, index}, from 0), or null for the start. */
export function renderReplay(root, ctx, matchId, at = null) {
  let stopped = false;
  replace(root, h("div", { class: "replay", id: "replay" }, h("p", {}, t("replay.loading_match", { match: matchId }))));
  (async () => {
    let record;
    let report = null;
    let reportError = null;
    try {
      record = await ctx.verify.record(matchId);
    } catch (e) {
      sayError(e, t("replay.doing_loading_record"));
      replace(root, h("p", {}, t("replay.record_unavailable", { match: matchId })));
      return;
    }
    const served = recordHash(record, now());
    if (served && ctx.store.kept(matchId)) ctx.store.updateKept(matchId, () => null, (k) => keepHashServed(k, served));
    try {
      report = await ctx.verify.verification(matchId);
    } catch (e) {
      reportError = e;
    }
    let analysis = null;
    let analysisError = null;
    try {
      analysis = await ctx.verify.analysis(matchId);
    } catch (e) {
      analysisError = e;
    }
    const inputs = await recompute(record);
    const names = seatNames(record, ctx, await playerNames(record, ctx));
    if (stopped) return;
    const kept = ctx.store.kept(matchId);
    // First a viewer of the game (the felt, the steps, the sheet, the analysis), then
    // its verification: every input, what this tab kept, the verify service's report.
    replace(
      root,
      h(
        "div",
        { class: "replay", id: "replay", dataset: { report: report ? (report.ok ? "ok" : "failed") : "none", recomputed: inputs.ok ? "ok" : "failed" } },
        header(record, ctx, names),
        dealsSection(record, inputs, names, analysis, at),
        sheetSection(record, ctx, names),
        analysisSection(analysis, analysisError, names),
        h("div", { class: "verification", id: "verification", dataset: { region: "verification" } }, h("h2", {}, t("replay.verification")), inputsSection(record, inputs, names), keptSection(record, kept, inputs), reportSection(report, reportError, ctx, matchId)),
      ),
    );
  })();
  return () => {
    stopped = true;
  };
}

function sideLabel(record, side, names = null) {
  if (record.ruleset?.players === 2) return names ? names.seat(side) : t("replay.seat", { seat: side + 1 });
  return t("replay.seats_and", { a: side + 1, b: side + 3 });
}

/** How the match ended: in progress, its score and winner, a forfeit or an abort. */
function howItEnded(record, names) {
  const r = record.result;
  if (!r) return t("replay.in_progress");
  const scores = r.scores.join(":");
  if (r.ended_by === "MatchEnded") return r.winner === null ? t("replay.ended_draw", { scores }) : t("replay.ended_won", { scores, side: sideLabel(record, r.winner, names) });
  if (r.ended_by === "MatchForfeited") return t("replay.forfeited_by", { seat: names.seat(r.leaver), scores });
  return t("replay.aborted", { reason: r.reason });
}

function header(record, ctx, names) {
  const base = ctx.verify.base;
  const ruleset = record.ruleset?.name ? rulesetName(record.ruleset.name) : "?";
  const target = String(record.ruleset?.target ?? "?");
  return h(
    "header",
    {},
    h("h1", {}, t("replay.match_title", { match: record.match_id })),
    h("p", {}, t("replay.about_match", { ruleset, target, how: howItEnded(record, names) })),
    h(
      "p",
      { class: "dim" },
      withElements(t("replay.record_links"), {
        record: h("a", { href: `${base}/v1/matches/${encodeURIComponent(record.match_id)}/record`, target: "_blank", rel: "noopener" }, t("replay.json")),
        report: h("a", { href: `${base}/v1/matches/${encodeURIComponent(record.match_id)}/verification`, target: "_blank", rel: "noopener" }, t("replay.json")),
      }),
    ),
  );
}

/** Every deck from the record's inputs, here, with Web Crypto: {ok, problems,
 * commitmentOk, decks: {deal: {cards, sameDeck, seatsOk, ok}}}. */
export async function recompute(record) {
  const f = record.fair_deal;
  const out = { ok: true, problems: [], commitmentOk: null, decks: {} };
  if (!f.server_seed) {
    out.ok = false;
    out.problems.push(t("replay.problem_no_seed"));
    return out;
  }
  const seed = fromHex(f.server_seed);
  out.commitmentOk = (await sha256Hex(seed)) === f.commitment;
  if (!out.commitmentOk) out.problems.push(t("replay.problem_commitment"));
  const seats = record.seats.map((s) => fromHex(s.seed ?? ""));
  const di = f.deck_inputs;
  const drand = di && di.drand_round ? { round: di.drand_round, value: fromHex(di.drand_value) } : null;
  for (const d of record.deals) {
    const cards = await deck(seed, seats, d.deal, drand, record.ruleset.deck_size);
    const sameDeck = d.deck ? d.deck.join(" ") === cards.join(" ") : null;
    const bySeat = record.seats.map((s) => seatCards(record.deal_pattern, cards, d.dealer, s.seat, d.contract ? d.contract.taker : null));
    const seatsOk = record.seats.map((s) => {
      const want = bySeat[s.seat];
      const first = (d.first_cards?.[s.seat] ?? []).join(" ") === want.first.join(" ");
      const completed = d.completion_cards ? (d.completion_cards[s.seat] ?? []).join(" ") === (want.completion ?? []).join(" ") : true;
      return first && completed;
    });
    const ok = sameDeck !== false && seatsOk.every(Boolean) && (bySeat.length === 0 || bySeat[0].turned === d.turned);
    if (!ok) out.problems.push(t("replay.problem_deal", { deal: d.deal }));
    out.decks[d.deal] = { cards, sameDeck, seatsOk, ok };
    out.ok &&= ok;
  }
  out.ok &&= out.commitmentOk;
  return out;
}

function inputsSection(record, inputs, names) {
  const f = record.fair_deal;
  const chain = f.chain?.name ?? "quicknet";
  const rows = [
    [t("replay.commitment"), h("code", { id: "r-commitment" }, f.commitment)],
    [t("replay.server_seed"), f.server_seed ? [h("code", { id: "r-server-seed" }, f.server_seed), " ", verdict(inputs.commitmentOk, t("replay.seed_is_commitment"), t("replay.seed_not_commitment"))] : t("replay.not_revealed")],
    [t("replay.seat_seeds"), h("ul", {}, record.seats.map((s) => h("li", {}, names.seat(s.seat), ": ", s.seed ? h("code", {}, s.seed) : h("span", { class: "dim" }, t("replay.no_seed")))))],
    [
      t("replay.deal_pattern"),
      h("details", {}, h("summary", {}, t("replay.pattern_summary", { ruleset: rulesetName(record.ruleset.name) })), h("pre", { class: "pattern" }, JSON.stringify(record.deal_pattern))),
    ],
  ];
  if (f.drand) {
    rows.push([t("replay.drand"), [h("a", { href: drandPage(chain, f.drand.round), target: "_blank", rel: "noopener noreferrer", id: "r-drand-round" }, t("replay.drand_round", { chain, round: String(f.drand.round) })), " ", t("replay.randomness"), " ", h("code", {}, f.drand.randomness)]]);
  } else if (f.fallback) {
    rows.push([t("replay.drand"), h("strong", { class: "warn", id: "r-fallback" }, t("replay.dealt_without_drand", { reason: fallbackReason(f.fallback.reason), round: String(f.fallback.round) }))]);
  }
  return h(
    "section",
    { id: "inputs" },
    h("h2", {}, t("replay.every_input")),
    h("dl", {}, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("p", { id: "recomputed", class: inputs.ok ? "pass" : "fail" }, inputs.ok ? t("replay.recomputed_ok", { count: record.deals.length }) : t("replay.recomputed_failed", { problems: inputs.problems.join("; ") })),
  );
}

function verdict(ok, yes, no) {
  return h("span", { class: ok ? "pass" : "fail" }, ok ? `✓ ${yes}` : `✗ ${no}`);
}

/** What the tab that played here kept, against the record. */
function keptSection(record, kept, inputs) {
  if (!kept) return h("section", { id: "kept" }, h("h2", {}, t("replay.tab_kept")), h("p", { class: "dim" }, t("replay.tab_did_not_play")));
  const items = [];
  const check = (ok, text) => items.push(h("li", { class: ok ? "pass" : "fail" }, `${ok ? "✓" : "✗"} ${text}`));
  const sameCommitment = kept.commitment === record.fair_deal.commitment;
  check(sameCommitment, sameCommitment ? t("replay.kept_commitment_ok") : t("replay.kept_commitment_bad"));
  if (kept.seat !== null && kept.my_seed) {
    const s = record.seats[kept.seat]?.seed;
    const params = { seed: kept.my_seed, seat: kept.seat + 1 };
    check(s === kept.my_seed, s === kept.my_seed ? t("replay.kept_seed_ok", params) : t("replay.kept_seed_bad", params));
  }
  if (kept.drand) {
    const same = record.fair_deal.drand?.randomness === kept.drand.randomness;
    check(same, same ? t("replay.kept_drand_ok") : t("replay.kept_drand_bad"));
  }
  if (kept.fallback) check(!!record.fair_deal.fallback, t("replay.kept_fallback"));
  for (const [k, d] of Object.entries(kept.deals ?? {})) {
    const rd = record.deals.find((x) => String(x.deal) === k);
    const mine = [...(d.first?.cards ?? []), ...(d.completion?.cards ?? [])].join(" ");
    const recorded = rd ? [...(rd.first_cards?.[kept.seat] ?? []), ...(rd.completion_cards?.[kept.seat] ?? [])].join(" ") : "";
    const recomputed = inputs.decks[k] && kept.seat !== null ? seatCards(record.deal_pattern, inputs.decks[k].cards, d.dealer, kept.seat, d.misere ? null : d.taker) : null;
    const fromDeck = recomputed ? [...recomputed.first, ...(d.taker !== null || d.misere ? recomputed.completion ?? [] : [])].join(" ") : "";
    const same = mine === recorded && mine === fromDeck;
    const params = { deal: Number(k) + 1, cards: mine.split(" ").filter(Boolean).map(cardLabel).join(" ") };
    check(same, same ? t("replay.kept_cards_ok", params) : t("replay.kept_cards_bad", params));
  }
  if (kept.hash_served) check(false, t("replay.kept_hash_served"));
  const c = kept.check;
  return h(
    "section",
    { id: "kept" },
    h("h2", {}, t("replay.tab_kept")),
    h("p", { id: "kept-verdict", dataset: { status: statusOf(c) } }, t("replay.tab_played_seat", { seat: kept.seat + 1 }), " ", keptVerdict(c)),
    h("ul", { class: "checks" }, items),
  );
}

/** What the tab's own check at the table said, in the table's words: "could not check"
 * is never "failed" (dealpanel.js statusOf keeps them apart). */
function keptVerdict(check) {
  const status = statusOf(check);
  if (!check) return t("replay.tab_not_checked");
  if (status === "pass") return t("replay.tab_check_passed");
  if (status === "fail") return t("replay.tab_check_failed");
  if (status === "unchecked") return t("replay.tab_check_unchecked");
  return t("replay.tab_not_checked");
}

/** The score sheet (sheet.js) from the record's match stream, side 0 first, or this
 * tab's side if it played here. */
function sheetSection(record, ctx, names) {
  const rules = ctx.rulesets?.[record.ruleset?.name];
  if (!rules?.scoring) return h("section", { id: "sheet" }, h("h2", {}, t("replay.score_sheet")), h("p", { class: "dim" }, t("replay.scoring_unknown")));
  const events = (record.streams?.match?.events ?? []).map((e) => ({ type: e.type, payload: e.payload }));
  const mine = record.seats.find((s) => s.human && ctx.session && s.player === ctx.session.player);
  const first = mine ? mine.seat % 2 : 0;
  const short = (side) => (record.ruleset?.players === 2 ? names.seat(side) : t("replay.seats_plus", { a: side + 1, b: side + 3 }));
  const sides = [first, 1 - first].map((side) => (mine && side === first && record.ruleset?.players !== 2 ? t("replay.you", { name: short(side) }) : short(side)));
  return sheetTable(scoreSheet(events, rules).rows, { first, names: sides, seatName: names.seat });
}

/** The match analysed double-dummy (analysis.js): each seat's figures; a deal's are in
 * its view below. When the API has none yet, why. */
function analysisSection(analysis, error, names) {
  const seatName = names.seat;
  const body = analysis ? seatsTable(analysis, seatName) : h("p", { class: "dim", id: "analysis-none" }, error ? errorText(error, t("analysis.none")) : t("analysis.none"));
  return h("section", { id: "analysis", dataset: { ready: analysis ? "yes" : "no", region: "analysis" } }, h("h2", {}, t("analysis.title")), h("p", { class: "dim" }, t("analysis.about")), body);
}

function dealsSection(record, inputs, names, analysis = null, at = null) {
  const box = h("div", { id: "deal-view" });
  const tabs = h("div", { class: "deal-tabs" });
  const show = (i, card = null) => {
    for (const [j, b] of [...tabs.children].entries()) b.classList.toggle("active", j === i);
    replace(box, dealView(record, record.deals[i], inputs.decks[record.deals[i].deal], names, analysis ? dealAnalysis(analysis, record.deals[i].deal) : undefined, card));
  };
  record.deals.forEach((d, i) => tabs.append(h("button", { type: "button", dataset: { deal: d.deal }, onclick: () => show(i) }, d.abandoned ? t("replay.deal_tab_redealt", { deal: d.deal + 1 }) : t("replay.deal_tab", { deal: d.deal + 1 }))));
  const section = h("section", { id: "deals", dataset: { region: "game" } }, h("h2", {}, t("replay.each_deal")), tabs, box);
  // Opened at a card (a fair-play position): its deal, its step; else the first deal.
  const asked = at ? record.deals.findIndex((d) => d.deal === at.deal && !d.abandoned) : -1;
  if (asked >= 0) {
    show(asked, at.trick * record.ruleset.players + at.index);
    section.dataset.opened = `${at.deal}/${at.trick}/${at.index}`;
    requestAnimationFrame(() => section.scrollIntoView({ block: "start" }));
  } else if (record.deals.length) show(0);
  return section;
}

/** ``da``: the deal's analysis (null: none for this deal; undefined: no analysis);
 * ``card``: the card (its place in the deal, from 0) whose step to open at, or null. */
function dealView(record, d, recomputed, names, da = undefined, card = null) {
  const n = record.ruleset.players;
  const steps = dealSteps(record, d, names.seat);
  const deckLine = h(
    "div",
    { class: "deck-line" },
    h("b", {}, t("replay.deck_recomputed"), " "),
    recomputed ? recomputed.cards.map((c) => cardFace(c, { small: true })) : "—",
    " ",
    recomputed ? verdict(recomputed.sameDeck !== false && recomputed.ok, t("replay.deck_ok"), t("replay.deck_bad")) : null,
  );
  const meta = h("p", {}, `${dealMeta(d, names.seat).join("; ")}.`);
  const stage = h("div", { class: "stage" });
  const slider = h("input", { type: "range", min: 0, max: Math.max(0, steps.length - 1), value: 0, id: "step", "aria-label": t("replay.step_slider") });
  const label = h("span", { id: "step-label" });
  const judged = h("p", { class: "step-analysis", id: "step-analysis", "aria-live": "polite" });
  const draw = () => {
    const i = Number(slider.value);
    const s = steps[i];
    label.textContent = s ? t("replay.step_label", { step: i + 1, steps: steps.length, text: s.text }) : t("replay.no_steps");
    judged.textContent = s?.cardIndex !== undefined && da ? cardVerdict(da, s.cardIndex) : "";
    judged.dataset.card = s?.cardIndex ?? "";
    if (!s) return replace(stage);
    replace(
      stage,
      feltView({
        id: "replay-felt",
        players: n,
        bottom: 0,
        label: t("replay.felt_label", { deal: d.deal + 1 }),
        seats: Array.from({ length: n }, (_, seat) => ({
          seat,
          name: names.seat(seat),
          dealer: d.dealer === seat,
          line: s.calls.filter(([x]) => x === seat).map(([, c]) => strainLabel(c)).join(", ") || null,
          count: t("replay.tricks", { count: s.won[seat] }),
          hand: s.hands[seat],
          strain: d.contract?.strain,
        })),
        trick: { cards: s.trick.length ? s.trick : s.last ?? [], old: !s.trick.length },
      }),
    );
  };
  const opened = card === null ? -1 : steps.findIndex((s) => s.cardIndex === card);
  if (opened >= 0) slider.value = String(opened);
  slider.addEventListener("input", draw);
  const go = (delta) => () => {
    slider.value = String(Math.min(steps.length - 1, Math.max(0, Number(slider.value) + delta)));
    draw();
  };
  const controls = h(
    "div",
    { class: "step-controls" },
    h("button", { type: "button", title: t("replay.deal_start"), onclick: () => ((slider.value = "0"), draw()) }, "«"),
    h("button", { type: "button", id: "step-back", onclick: go(-1) }, "◀"),
    slider,
    h("button", { type: "button", id: "step-next", onclick: go(1) }, "▶"),
    h("button", { type: "button", title: t("replay.deal_end"), onclick: () => ((slider.value = String(steps.length - 1)), draw()) }, "»"),
    label,
  );
  draw();
  const sideName = (side) => sideLabel(record, side, names);
  return h("div", {}, meta, controls, judged, stage, deckLine, da === undefined ? null : dealSection(da, names.seat, sideName));
}

