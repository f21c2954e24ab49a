// Finished matches, and the replay of one: every input, every deck recomputed in this
// tab (deck.js) and compared with the record's and with what this tab kept if it played
// there, each deal step by step from the record's own events, and the verify service's
// report. The record and the report come from the verify API (another origin, CORS).
// A record of a match not yet ended that serves a hash of its events (nobody is served
// one while it runs) is kept against the match, if this tab played it (keeper.js
// recordHash, keepHashServed): its check at the table then fails "hashes".

import { cardLabel, sortHand, strainLabel } from "./cards.js";
import { now } from "./clock.js";
import { deck, fromHex, sha256Hex } from "./deck.js";
import { drandPage, seatCards } from "./fairdeal.js";
import { keepHashServed, recordHash } from "./keeper.js";
import { formatTime, has, language, t } from "./i18n.js";
import { scoreSheet, sheetTable } from "./sheet.js";
import { fallbackReason, rulesetName, withElements } from "./names.js";
import { cardVerdict, dealAnalysis, dealSection, seatsTable } from "./analysis.js";
import { cardFace, errorText, h, replace, sayError } from "./ui.js";

/** A deal's outcome as the record names it ("made", "failed", "level", ...). */
function outcomeWord(outcome) {
  return has(`replay.outcome.${outcome}`) ? t(`replay.outcome.${outcome}`) : outcome;
}

/** Why a deal was abandoned ("all_passed", "redeal_demanded"). */
function abandonedWhy(reason) {
  return has(`replay.abandoned.${reason}`) ? t(`replay.abandoned.${reason}`) : reason.replace("_", " ");
}

/** A check's status in the report ("pass", "fail", "skip"), as a verdict. */
function checkStatus(status) {
  return has(`replay.check_status.${status}`) ? t(`replay.check_status.${status}`) : status.toUpperCase();
}

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

export function renderReplay(root, ctx, matchId) {
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
    if (stopped) return;
    const kept = ctx.store.kept(matchId);
    replace(
      root,
      h(
        "div",
        { class: "replay", id: "replay", dataset: { report: report ? (report.ok ? "ok" : "failed") : "none", recomputed: inputs.ok ? "ok" : "failed" } },
        header(record, ctx),
        inputsSection(record, inputs, ctx),
        keptSection(record, kept, inputs),
        sheetSection(record, ctx),
        analysisSection(record, analysis, analysisError, ctx),
        dealsSection(record, inputs, ctx, analysis),
        reportSection(report, reportError, ctx, matchId),
      ),
    );
  })();
  return () => {
    stopped = true;
  };
}

/** "seat 2 (you)", "seat 1 (bot)", "seat 0 (player 5478d4…)". */
function seatLabel(record, seat, ctx) {
  const s = record.seats[seat];
  if (!s) return t("replay.seat", { seat });
  if (!s.human) return t("replay.seat_bot", { seat });
  if (ctx.session && s.player === ctx.session.player) return t("replay.seat_you", { seat });
  return t("replay.seat_player", { seat, player: String(s.player).slice(0, 6) });
}

function sideLabel(record, side) {
  return record.ruleset?.players === 2 ? t("replay.seat", { seat: side }) : t("replay.seats_and", { a: side, b: side + 2 });
}

/** How the match ended: in progress, its score and winner, a forfeit or an abort. */
function howItEnded(record) {
  const r = record.result;
  if (!r) return t("replay.in_progress");
  const scores = r.scores.join(":");
  if (r.ended_by === "MatchEnded") return r.winner === null ? t("replay.ended_draw", { scores }) : t("replay.ended_won", { scores, side: sideLabel(record, r.winner) });
  if (r.ended_by === "MatchForfeited") return t("replay.forfeited_by", { seat: r.leaver, scores });
  return t("replay.aborted", { reason: r.reason });
}

function header(record, ctx) {
  const base = ctx.verify.base;
  const ruleset = record.ruleset?.name ? rulesetName(record.ruleset.name) : "?";
  const target = String(record.ruleset?.target ?? "?");
  return h(
    "header",
    {},
    h("h1", {}, t("replay.match_title", { match: record.match_id })),
    h("p", {}, t("replay.about_match", { ruleset, target, how: howItEnded(record) })),
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

function inputsSection(record, inputs, ctx) {
  const f = record.fair_deal;
  const chain = f.chain?.name ?? "quicknet";
  const rows = [
    [t("replay.commitment"), h("code", { id: "r-commitment" }, f.commitment)],
    [t("replay.server_seed"), f.server_seed ? [h("code", { id: "r-server-seed" }, f.server_seed), " ", verdict(inputs.commitmentOk, t("replay.seed_is_commitment"), t("replay.seed_not_commitment"))] : t("replay.not_revealed")],
    [t("replay.seat_seeds"), h("ul", {}, record.seats.map((s) => h("li", {}, seatLabel(record, s.seat, ctx), ": ", s.seed ? h("code", {}, s.seed) : h("span", { class: "dim" }, t("replay.no_seed")))))],
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
    const params = { seed: kept.my_seed, seat: kept.seat };
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
    h("p", {}, t("replay.tab_played_seat", { seat: kept.seat }), " ", c ? (c.ok ? t("replay.tab_check_passed") : t("replay.tab_check_failed")) : t("replay.tab_not_checked")),
    h("ul", { class: "checks" }, items),
  );
}

/** The score sheet (sheet.js) from the record's match stream, side 0 first, or this
 * tab's side if it played here. */
function sheetSection(record, ctx) {
  const rules = ctx.rulesets?.[record.ruleset?.name];
  if (!rules?.scoring) return h("section", { id: "sheet" }, h("h2", {}, t("replay.score_sheet")), h("p", { class: "dim" }, t("replay.scoring_unknown")));
  const events = (record.streams?.match?.events ?? []).map((e) => ({ type: e.type, payload: e.payload }));
  const mine = record.seats.find((s) => s.human && ctx.session && s.player === ctx.session.player);
  const first = mine ? mine.seat % 2 : 0;
  const short = (side) => (record.ruleset?.players === 2 ? t("replay.seat", { seat: side }) : t("replay.seats_plus", { a: side, b: side + 2 }));
  const names = [first, 1 - first].map((side) => (mine && side === first ? t("replay.you", { name: short(side) }) : short(side)));
  return sheetTable(scoreSheet(events, rules).rows, { first, names, seatName: (seat) => (mine?.seat === seat ? t("replay.seat_you", { seat }) : t("replay.seat", { seat })) });
}

/** The match analysed double-dummy (analysis.js): each seat's figures; a deal's are in
 * its view below. When the API has none yet, why. */
function analysisSection(record, analysis, error, ctx) {
  const seatName = (seat) => seatLabel(record, seat, ctx);
  const body = analysis ? seatsTable(analysis, seatName) : h("p", { class: "dim", id: "analysis-none" }, error ? errorText(error, t("analysis.none")) : t("analysis.none"));
  return h("section", { id: "analysis", dataset: { ready: analysis ? "yes" : "no" } }, h("h2", {}, t("analysis.title")), h("p", { class: "dim" }, t("analysis.about")), body);
}

function dealsSection(record, inputs, ctx, analysis = null) {
  const box = h("div", { id: "deal-view" });
  const tabs = h("div", { class: "deal-tabs" });
  const show = (i) => {
    for (const [j, b] of [...tabs.children].entries()) b.classList.toggle("active", j === i);
    replace(box, dealView(record, record.deals[i], inputs.decks[record.deals[i].deal], ctx, analysis ? dealAnalysis(analysis, record.deals[i].deal) : undefined));
  };
  record.deals.forEach((d, i) => tabs.append(h("button", { type: "button", dataset: { deal: d.deal }, onclick: () => show(i) }, d.abandoned ? t("replay.deal_tab_redealt", { deal: d.deal + 1 }) : t("replay.deal_tab", { deal: d.deal + 1 }))));
  const section = h("section", { id: "deals" }, h("h2", {}, t("replay.each_deal")), tabs, box);
  if (record.deals.length) show(0);
  return section;
}

/** The steps of a deal from the record's match events: the hands, bids and tricks. */
function dealSteps(record, d) {
  const events = record.streams.match.events;
  const n = record.ruleset.players;
  const start = events.findIndex((e) => e.type === "DealStarted" && e.payload.deal_number === d.deal);
  const steps = [];
  const state = { hands: Array.from({ length: n }, () => []), calls: [], trick: [], last: null, won: Array(n).fill(0), text: "" };
  const snap = (text, extra = {}) => steps.push({ ...structuredClone(state), text, ...extra });
  let played = 0; // the cards played so far in the deal: the analysis's index of each
  for (let i = start; i >= 0 && i < events.length; i++) {
    const e = events[i];
    const p = e.payload;
    if (i > start && (e.type === "DealStarted" || e.type === "DeckSupplied")) break;
    if (e.type === "DealStarted") continue;
    if (e.type === "CardsDealt") {
      state.hands[p.seat].push(...p.cards);
      const next = events[i + 1];
      if (next?.type !== "CardsDealt") snap(t("replay.step_dealt", { counts: state.hands.map((x) => x.length).join(", ") }));
    } else if (e.type === "Passed") {
      state.calls.push([p.seat, "pass"]);
      snap(t("replay.step_pass", { seat: p.seat }));
    } else if (e.type === "ContractTaken") {
      state.calls.push([p.seat, p.strain]);
      snap(t("replay.step_take", { seat: p.seat, contract: strainLabel(p.strain) }));
    } else if (e.type === "CardPlayed") {
      state.hands[p.seat] = state.hands[p.seat].filter((c) => c !== p.card);
      state.trick.push([p.seat, p.card]);
      snap(t("replay.step_play", { seat: p.seat, card: cardLabel(p.card) }), { cardIndex: played++ });
    } else if (e.type === "TrickTaken") {
      state.won[p.seat] += 1;
      state.last = state.trick;
      state.trick = [];
      snap(t("replay.step_trick", { seat: p.seat, points: p.points }));
    } else if (e.type === "TrumpSevenSwapped") {
      state.hands[p.seat] = [...state.hands[p.seat].filter((c) => c !== p.seven), p.taken];
      snap(t("replay.step_swap", { seat: p.seat, seven: cardLabel(p.seven), taken: cardLabel(p.taken) }));
    } else if (e.type === "BeloteAnnounced") {
      snap(t("replay.step_belote", { seat: p.seat, card: cardLabel(p.card) }));
    } else if (e.type === "MeldDeclared" || e.type === "MeldsShown" || e.type === "RedealDemanded" || e.type === "MisereStarted" || e.type === "BottomCardShown") {
      const what = t(`replay.event.${e.type.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()}`);
      snap(p.seat !== undefined ? t("replay.step_by_seat", { what, seat: p.seat }) : what);
    } else if (e.type === "DealScored") {
      snap(t("replay.step_scored", { outcome: outcomeWord(p.outcome), awarded: p.awarded.join(":"), scores: p.scores.join(":") }));
      break;
    } else if (e.type === "DealAbandoned") {
      snap(t("replay.step_abandoned", { reason: abandonedWhy(p.reason) }));
      break;
    } else if (e.type === "MatchForfeited" || e.type === "MatchAborted") {
      snap(e.type === "MatchForfeited" ? t("replay.step_forfeit", { seat: p.leaver }) : t("replay.aborted", { reason: p.reason }));
      break;
    }
  }
  return steps;
}

/** What a deal was: its dealer, turned card and contract; then how it was scored or
 * why abandoned. */
function dealMeta(d) {
  const said = { seat: d.dealer, card: d.turned ? cardLabel(d.turned) : "—" };
  let first;
  if (!d.contract) first = t("replay.meta_dealer", said);
  else if (d.contract.taker === null) first = t("replay.meta_contract", { ...said, contract: strainLabel(d.contract.strain) });
  else first = t("replay.meta_contract_by", { ...said, contract: strainLabel(d.contract.strain), taker: d.contract.taker });
  const parts = [first];
  if (d.score) parts.push(t("replay.meta_scored", { awarded: d.score.awarded.join(":"), outcome: outcomeWord(d.score.outcome) }));
  if (d.abandoned) parts.push(t("replay.meta_abandoned", { reason: abandonedWhy(d.abandoned) }));
  return parts;
}

/** ``da``: the deal's analysis (null: none for this deal; undefined: no analysis). */
function dealView(record, d, recomputed, ctx, da = undefined) {
  const n = record.ruleset.players;
  const steps = dealSteps(record, d);
  const deckLine = h(
    "div",
    { class: "deck-line" },
    h("b", {}, t("replay.deck_recomputed"), " "),
    recomputed ? recomputed.cards.map((c) => cardFace(c, { small: true })) : "—",
    " ",
    recomputed ? verdict(recomputed.sameDeck !== false && recomputed.ok, t("replay.deck_ok"), t("replay.deck_bad")) : null,
  );
  const meta = h("p", {}, `${dealMeta(d).join("; ")}.`);
  const stage = h("div", { class: "stage" });
  const slider = h("input", { type: "range", min: 0, max: Math.max(0, steps.length - 1), value: 0, id: "step" });
  const label = h("span", { id: "step-label" });
  const judged = h("p", { class: "step-analysis", id: "step-analysis", "aria-live": "polite" });
  const draw = () => {
    const i = Number(slider.value);
    const s = steps[i];
    label.textContent = s ? t("replay.step_label", { step: i + 1, steps: steps.length, text: s.text }) : t("replay.no_steps");
    judged.textContent = s?.cardIndex !== undefined && da ? cardVerdict(da, s.cardIndex) : "";
    judged.dataset.card = s?.cardIndex ?? "";
    if (!s) return replace(stage);
    const pos = (seat) => ["bottom", "left", "top", "right"][n === 2 ? seat * 2 : seat];
    replace(
      stage,
      h(
        "div",
        { class: `felt players-${n}` },
        Array.from({ length: n }, (_, seat) =>
          h(
            "div",
            { class: `seat-box ${pos(seat)}` },
            h("div", { class: "seat-name" }, seatLabel(record, seat, ctx), d.dealer === seat ? h("span", { class: "dealer", title: t("replay.dealer") }, " ", t("replay.dealer_mark")) : null, h("span", { class: "dim" }, " ", t("replay.tricks", { count: s.won[seat] }))),
            h("div", { class: "mini-hand" }, sortHand(s.hands[seat], d.contract?.strain).map((c) => cardFace(c, { small: true }))),
            h("div", { class: "call" }, s.calls.filter(([x]) => x === seat).map(([, c]) => strainLabel(c)).join(", ")),
          ),
        ),
        h("div", { class: "trick" }, (s.trick.length ? s.trick : s.last ?? []).map(([seat, c]) => h("div", { class: `played ${pos(seat)}${s.trick.length ? "" : " old"}` }, cardFace(c)))),
      ),
    );
  };
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
  const seatName = (seat) => seatLabel(record, seat, ctx);
  const sideName = (side) => sideLabel(record, side);
  return h("div", {}, meta, deckLine, controls, judged, stage, da === undefined ? null : dealSection(da, seatName, sideName));
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

function reportSection(report, error, ctx, matchId) {
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
