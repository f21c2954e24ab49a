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
import { scoreSheet, sheetTable } from "./sheet.js";
import { cardFace, h, replace, sayError } from "./ui.js";

export function renderMatches(root, ctx) {
  const list = h("div", { id: "matches" }, h("p", {}, "Loading the finished matches…"));
  const kept = ctx.store.keptMatches();
  replace(
    root,
    h(
      "div",
      { class: "matches" },
      h("h1", {}, "Finished matches"),
      list,
      kept.length
        ? h("section", {}, h("h2", {}, "Matches this tab kept"), h("ul", {}, kept.map((k) => h("li", {}, h("a", { href: `#/replay/${encodeURIComponent(k.match_id)}` }, k.match_id), ` ${k.ruleset ?? ""}`))))
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
              h("thead", {}, h("tr", {}, ["Match", "Ruleset", "Result", "Ended", "drand", ""].map((x) => h("th", {}, x)))),
              h(
                "tbody",
                {},
                matches.map((m) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, h("code", {}, m.match_id)),
                    h("td", {}, m.ruleset),
                    h("td", {}, `${m.ended_by === "MatchEnded" ? "" : `${m.ended_by.replace("Match", "")}, `}${m.scores.join(":")}`),
                    h("td", {}, new Date(m.ended_at).toLocaleString()),
                    h("td", {}, m.dealt_with_drand === false ? "without (fallback)" : m.dealt_with_drand ? "yes" : "—"),
                    h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(m.match_id)}` }, "Replay")),
                  ),
                ),
              ),
            )
          : h("p", {}, "No match has finished yet."),
      );
    } catch (e) {
      if (!stopped) {
        replace(list, h("p", {}, "The verify API does not answer."));
        sayError(e, "Loading the finished matches");
      }
    }
  })();
  return () => {
    stopped = true;
  };
}

export function renderReplay(root, ctx, matchId) {
  let stopped = false;
  replace(root, h("div", { class: "replay", id: "replay" }, h("p", {}, `Loading match ${matchId}…`)));
  (async () => {
    let record;
    let report = null;
    let reportError = null;
    try {
      record = await ctx.verify.record(matchId);
    } catch (e) {
      sayError(e, "Loading the match record");
      replace(root, h("p", {}, `The record of match ${matchId} cannot be loaded.`));
      return;
    }
    const served = recordHash(record, now());
    if (served && ctx.store.kept(matchId)) ctx.store.updateKept(matchId, () => null, (k) => keepHashServed(k, served));
    try {
      report = await ctx.verify.verification(matchId);
    } catch (e) {
      reportError = e;
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
        dealsSection(record, inputs, ctx),
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
  if (!s) return `seat ${seat}`;
  if (!s.human) return `seat ${seat} (bot)`;
  if (ctx.session && s.player === ctx.session.player) return `seat ${seat} (you)`;
  return `seat ${seat} (player ${String(s.player).slice(0, 6)}…)`;
}

function sideLabel(record, side) {
  return record.ruleset?.players === 2 ? `seat ${side}` : `seats ${side} and ${side + 2}`;
}

function header(record, ctx) {
  const r = record.result;
  const base = ctx.verify.base;
  const how = !r ? "in progress" : r.ended_by === "MatchEnded" ? `ended ${r.scores.join(":")}, ${r.winner === null ? "a draw" : `${sideLabel(record, r.winner)} won`}` : r.ended_by === "MatchForfeited" ? `forfeited by seat ${r.leaver}, ${r.scores.join(":")}` : `aborted: ${r.reason}`;
  return h(
    "header",
    {},
    h("h1", {}, `Match ${record.match_id}`),
    h("p", {}, `${record.ruleset?.name ?? "?"} to ${record.ruleset?.target ?? "?"}, ${how}.`),
    h(
      "p",
      { class: "dim" },
      "The record: ",
      h("a", { href: `${base}/v1/matches/${encodeURIComponent(record.match_id)}/record`, target: "_blank", rel: "noopener" }, "JSON"),
      " · the verify service's report: ",
      h("a", { href: `${base}/v1/matches/${encodeURIComponent(record.match_id)}/verification`, target: "_blank", rel: "noopener" }, "JSON"),
      " · check it with your own program: docs/verifying.md, \"Checking a match by hand\", or belot verify.",
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
    out.problems.push("the server seed is not revealed: no deck can be recomputed");
    return out;
  }
  const seed = fromHex(f.server_seed);
  out.commitmentOk = (await sha256Hex(seed)) === f.commitment;
  if (!out.commitmentOk) out.problems.push("SHA-256 of the server seed is not the commitment");
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
    if (!ok) out.problems.push(`deal ${d.deal}: the recomputed deck does not give the recorded cards`);
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
    ["Commitment", h("code", { id: "r-commitment" }, f.commitment)],
    ["Server seed (revealed)", f.server_seed ? [h("code", { id: "r-server-seed" }, f.server_seed), " ", verdict(inputs.commitmentOk, "its SHA-256 is the commitment", "its SHA-256 is NOT the commitment")] : "not revealed yet"],
    ["Seats' seeds", h("ul", {}, record.seats.map((s) => h("li", {}, `${seatLabel(record, s.seat, ctx)}: `, s.seed ? h("code", {}, s.seed) : h("span", { class: "dim" }, "none"))))],
    [
      "Deal pattern",
      h("details", {}, h("summary", {}, `${record.ruleset.name}'s published pattern: deck indices (0 = top) by seat offset from the dealer`), h("pre", { class: "pattern" }, JSON.stringify(record.deal_pattern))),
    ],
  ];
  if (f.drand) {
    rows.push(["drand", [h("a", { href: drandPage(chain, f.drand.round), target: "_blank", rel: "noopener noreferrer", id: "r-drand-round" }, `${chain} round ${f.drand.round}`), " randomness ", h("code", {}, f.drand.randomness)]]);
  } else if (f.fallback) {
    rows.push(["drand", h("strong", { class: "warn", id: "r-fallback" }, `Dealt without drand: ${f.fallback.reason} (round ${f.fallback.round} was named; the decks use round 0 and zeros)`)]);
  }
  return h(
    "section",
    { id: "inputs" },
    h("h2", {}, "Every input"),
    h("dl", {}, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("p", { id: "recomputed", class: inputs.ok ? "pass" : "fail" }, inputs.ok ? `Recomputed in this tab: the commitment and all ${record.deals.length} decks match the record, and each deck gives every seat exactly its recorded cards.` : `Recomputed in this tab: ${inputs.problems.join("; ")}.`),
  );
}

function verdict(ok, yes, no) {
  return h("span", { class: ok ? "pass" : "fail" }, ok ? `✓ ${yes}` : `✗ ${no}`);
}

/** What the tab that played here kept, against the record. */
function keptSection(record, kept, inputs) {
  if (!kept) return h("section", { id: "kept" }, h("h2", {}, "What this tab kept"), h("p", { class: "dim" }, "This tab did not play this match: open the replay in the tab you played in to compare your own seed and cards."));
  const items = [];
  const check = (ok, text) => items.push(h("li", { class: ok ? "pass" : "fail" }, `${ok ? "✓" : "✗"} ${text}`));
  check(kept.commitment === record.fair_deal.commitment, `the commitment shown at the table ${kept.commitment === record.fair_deal.commitment ? "is" : "is NOT"} the record's`);
  if (kept.seat !== null && kept.my_seed) {
    const s = record.seats[kept.seat]?.seed;
    check(s === kept.my_seed, `your seed ${kept.my_seed} ${s === kept.my_seed ? "is" : "is NOT"} the one the record shows for seat ${kept.seat}`);
  }
  if (kept.drand) check(record.fair_deal.drand?.randomness === kept.drand.randomness, `drand's value shown at the table ${record.fair_deal.drand?.randomness === kept.drand.randomness ? "is" : "is NOT"} the record's`);
  if (kept.fallback) check(!!record.fair_deal.fallback, "the table said the match was dealt without drand, as the record does");
  for (const [k, d] of Object.entries(kept.deals ?? {})) {
    const rd = record.deals.find((x) => String(x.deal) === k);
    const mine = [...(d.first?.cards ?? []), ...(d.completion?.cards ?? [])].join(" ");
    const recorded = rd ? [...(rd.first_cards?.[kept.seat] ?? []), ...(rd.completion_cards?.[kept.seat] ?? [])].join(" ") : "";
    const recomputed = inputs.decks[k] && kept.seat !== null ? seatCards(record.deal_pattern, inputs.decks[k].cards, d.dealer, kept.seat, d.misere ? null : d.taker) : null;
    const fromDeck = recomputed ? [...recomputed.first, ...(d.taker !== null || d.misere ? recomputed.completion ?? [] : [])].join(" ") : "";
    check(mine === recorded && mine === fromDeck, `deal ${Number(k) + 1}: your cards as dealt to this tab (${mine.split(" ").filter(Boolean).map(cardLabel).join(" ")}) ${mine === recorded && mine === fromDeck ? "are" : "are NOT"} the record's and the recomputed deck's`);
  }
  if (kept.hash_served) check(false, "the server serves the hashes of a running match: another seat can search your cards with them");
  const c = kept.check;
  return h(
    "section",
    { id: "kept" },
    h("h2", {}, "What this tab kept"),
    h("p", {}, `This tab played seat ${kept.seat}. ${c ? (c.ok ? "Its own check at the table passed." : "Its own check at the table FAILED.") : "It has not checked the match yet."}`),
    h("ul", { class: "checks" }, items),
  );
}

/** The score sheet (sheet.js) from the record's match stream, side 0 first, or this
 * tab's side if it played here. */
function sheetSection(record, ctx) {
  const rules = ctx.rulesets?.[record.ruleset?.name];
  if (!rules?.scoring) return h("section", { id: "sheet" }, h("h2", {}, "Score sheet"), h("p", { class: "dim" }, "This ruleset's scoring is unknown here."));
  const events = (record.streams?.match?.events ?? []).map((e) => ({ type: e.type, payload: e.payload }));
  const mine = record.seats.find((s) => s.human && ctx.session && s.player === ctx.session.player);
  const first = mine ? mine.seat % 2 : 0;
  const short = (side) => (record.ruleset?.players === 2 ? `seat ${side}` : `seats ${side}+${side + 2}`);
  const names = [first, 1 - first].map((side) => (mine && side === first ? `${short(side)} (you)` : short(side)));
  return sheetTable(scoreSheet(events, rules).rows, { first, names, seatName: (seat) => `seat ${seat}${mine?.seat === seat ? " (you)" : ""}` });
}

function dealsSection(record, inputs, ctx) {
  const box = h("div", { id: "deal-view" });
  const tabs = h("div", { class: "deal-tabs" });
  const show = (i) => {
    for (const [j, b] of [...tabs.children].entries()) b.classList.toggle("active", j === i);
    replace(box, dealView(record, record.deals[i], inputs.decks[record.deals[i].deal], ctx));
  };
  record.deals.forEach((d, i) => tabs.append(h("button", { type: "button", dataset: { deal: d.deal }, onclick: () => show(i) }, `Deal ${d.deal + 1}${d.abandoned ? " (redealt)" : ""}`)));
  const section = h("section", { id: "deals" }, h("h2", {}, "Each deal, step by step"), tabs, box);
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
  const snap = (text) => steps.push({ ...structuredClone(state), text });
  const seat = (s) => `seat ${s}`;
  for (let i = start; i >= 0 && i < events.length; i++) {
    const e = events[i];
    const p = e.payload;
    if (i > start && (e.type === "DealStarted" || e.type === "DeckSupplied")) break;
    if (e.type === "DealStarted") continue;
    if (e.type === "CardsDealt") {
      state.hands[p.seat].push(...p.cards);
      const next = events[i + 1];
      if (next?.type !== "CardsDealt") snap(`the cards are dealt (${state.hands.map((x) => x.length).join(", ")})`);
    } else if (e.type === "Passed") {
      state.calls.push([p.seat, "pass"]);
      snap(`${seat(p.seat)} passes`);
    } else if (e.type === "ContractTaken") {
      state.calls.push([p.seat, p.strain]);
      snap(`${seat(p.seat)} takes ${strainLabel(p.strain)}`);
    } else if (e.type === "CardPlayed") {
      state.hands[p.seat] = state.hands[p.seat].filter((c) => c !== p.card);
      state.trick.push([p.seat, p.card]);
      snap(`${seat(p.seat)} plays ${cardLabel(p.card)}`);
    } else if (e.type === "TrickTaken") {
      state.won[p.seat] += 1;
      state.last = state.trick;
      state.trick = [];
      snap(`${seat(p.seat)} takes the trick (${p.points})`);
    } else if (e.type === "TrumpSevenSwapped") {
      state.hands[p.seat] = [...state.hands[p.seat].filter((c) => c !== p.seven), p.taken];
      snap(`${seat(p.seat)} swaps ${cardLabel(p.seven)} for ${cardLabel(p.taken)}`);
    } else if (e.type === "BeloteAnnounced") {
      snap(`${seat(p.seat)} announces belote with ${cardLabel(p.card)}`);
    } else if (e.type === "MeldDeclared" || e.type === "MeldsShown" || e.type === "RedealDemanded" || e.type === "MisereStarted" || e.type === "BottomCardShown") {
      snap(`${e.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase()}${p.seat !== undefined ? ` by ${seat(p.seat)}` : ""}`);
    } else if (e.type === "DealScored") {
      snap(`scored (${p.outcome}): ${p.awarded.join(":")}, match ${p.scores.join(":")}`);
      break;
    } else if (e.type === "DealAbandoned") {
      snap(`abandoned (${p.reason.replace("_", " ")}): redeal`);
      break;
    } else if (e.type === "MatchForfeited" || e.type === "MatchAborted") {
      snap(e.type === "MatchForfeited" ? `seat ${p.leaver} left: forfeit` : `aborted: ${p.reason}`);
      break;
    }
  }
  return steps;
}

function dealView(record, d, recomputed, ctx) {
  const n = record.ruleset.players;
  const steps = dealSteps(record, d);
  const deckLine = h(
    "div",
    { class: "deck-line" },
    h("b", {}, "Deck (top first), recomputed here: "),
    recomputed ? recomputed.cards.map((c) => cardFace(c, { small: true })) : "—",
    " ",
    recomputed ? verdict(recomputed.sameDeck !== false && recomputed.ok, "the record's deck, and every seat's cards follow from it", "differs from the record") : null,
  );
  const meta = h("p", {}, `Dealer seat ${d.dealer}, turned ${d.turned ? cardLabel(d.turned) : "—"}${d.contract ? `, contract ${strainLabel(d.contract.strain)}${d.contract.taker !== null ? ` by seat ${d.contract.taker}` : ""}` : ""}${d.score ? `; scored ${d.score.awarded.join(":")} (${d.score.outcome})` : ""}${d.abandoned ? `; abandoned (${d.abandoned.replace("_", " ")})` : ""}.`);
  const stage = h("div", { class: "stage" });
  const slider = h("input", { type: "range", min: 0, max: Math.max(0, steps.length - 1), value: 0, id: "step" });
  const label = h("span", { id: "step-label" });
  const draw = () => {
    const i = Number(slider.value);
    const s = steps[i];
    label.textContent = s ? `step ${i + 1} of ${steps.length}: ${s.text}` : "no steps";
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
            h("div", { class: "seat-name" }, seatLabel(record, seat, ctx), d.dealer === seat ? h("span", { class: "dealer", title: "dealer" }, " D") : null, h("span", { class: "dim" }, ` tricks ${s.won[seat]}`)),
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
    h("button", { type: "button", title: "the start of the deal", onclick: () => ((slider.value = "0"), draw()) }, "«"),
    h("button", { type: "button", id: "step-back", onclick: go(-1) }, "◀"),
    slider,
    h("button", { type: "button", id: "step-next", onclick: go(1) }, "▶"),
    h("button", { type: "button", title: "the end of the deal", onclick: () => ((slider.value = String(steps.length - 1)), draw()) }, "»"),
    label,
  );
  draw();
  return h("div", {}, meta, deckLine, controls, stage);
}

function reportSection(report, error, ctx, matchId) {
  if (!report) {
    const why = error?.code === "seed_not_revealed" ? "the server has not revealed its seed yet: try again in a few seconds" : error ? error.message : "none";
    return h("section", { id: "report" }, h("h2", {}, "The verify service's report"), h("p", {}, `No report: ${why}.`));
  }
  return h(
    "section",
    { id: "report", dataset: { ok: report.ok } },
    h("h2", {}, "The verify service's report"),
    h("p", { class: report.ok ? "pass" : "fail", id: "report-verdict" }, report.ok ? "VERIFIED by the verify service: every check passed." : `NOT VERIFIED by the verify service: ${report.failed.join(", ")}.`),
    h("p", { class: "dim" }, report.dealt_with_drand === false ? `Dealt without drand: ${report.fallback_reason}.` : `Dealt with drand round ${report.drand_round}${report.bls_checked ? ", its BLS signature checked by the service" : ""}.`),
    h(
      "ul",
      { class: "checks" },
      report.checks.map((c) => h("li", { class: c.status, dataset: { check: c.name } }, h("b", {}, `${c.status.toUpperCase()} `), `${c.name}: ${c.detail}`)),
    ),
    h("p", { class: "dim" }, `This report is the server side's (`, h("code", {}, `${ctx.verify.base}/v1/matches/${matchId}/verification`), "); the checks above it were made in this tab, on its own."),
  );
}
