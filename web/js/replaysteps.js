// A finished match's deals read from its record, for the replay (replay.js draws them):
// each deal's steps (the hands, the bids, the tricks, state by state) and what the deal
// was, in the player's words. Pure: the record in, data and sentences out.

import { cardLabel, strainLabel } from "./cards.js";
import { has, t } from "./i18n.js";

/** A deal's outcome as the record names it ("made", "failed", "level", ...). */
function outcomeWord(outcome) {
  return has(`replay.outcome.${outcome}`) ? t(`replay.outcome.${outcome}`) : outcome;
}

/** Why a deal was abandoned ("all_passed", "redeal_demanded"). */
function abandonedWhy(reason) {
  return has(`replay.abandoned.${reason}`) ? t(`replay.abandoned.${reason}`) : reason.replace("_", " ");
}

/** The steps of a deal from the record's match events: the hands, bids and tricks;
 * ``name`` names a seat (its player's name). */
export function dealSteps(record, d, name = (seat) => String(seat + 1)) {
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
      snap(t("replay.step_pass", { seat: name(p.seat) }));
    } else if (e.type === "ContractTaken") {
      state.calls.push([p.seat, p.strain]);
      snap(t("replay.step_take", { seat: name(p.seat), contract: strainLabel(p.strain) }));
    } else if (e.type === "CardPlayed") {
      state.hands[p.seat] = state.hands[p.seat].filter((c) => c !== p.card);
      state.trick.push([p.seat, p.card]);
      snap(t("replay.step_play", { seat: name(p.seat), card: cardLabel(p.card) }), { cardIndex: played++ });
    } else if (e.type === "TrickTaken") {
      state.won[p.seat] += 1;
      state.last = state.trick;
      state.trick = [];
      snap(t("replay.step_trick", { seat: name(p.seat), points: p.points }));
    } else if (e.type === "TrumpSevenSwapped") {
      state.hands[p.seat] = [...state.hands[p.seat].filter((c) => c !== p.seven), p.taken];
      snap(t("replay.step_swap", { seat: name(p.seat), seven: cardLabel(p.seven), taken: cardLabel(p.taken) }));
    } else if (e.type === "BeloteAnnounced") {
      snap(t("replay.step_belote", { seat: name(p.seat), card: cardLabel(p.card) }));
    } else if (e.type === "MeldDeclared" || e.type === "MeldsShown" || e.type === "RedealDemanded" || e.type === "MisereStarted" || e.type === "BottomCardShown") {
      const what = t(`replay.event.${e.type.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()}`);
      snap(p.seat !== undefined ? t("replay.step_by_seat", { what, seat: name(p.seat) }) : what);
    } else if (e.type === "DealScored") {
      snap(t("replay.step_scored", { outcome: outcomeWord(p.outcome), awarded: p.awarded.join(":"), scores: p.scores.join(":") }));
      break;
    } else if (e.type === "DealAbandoned") {
      snap(t("replay.step_abandoned", { reason: abandonedWhy(p.reason) }));
      break;
    } else if (e.type === "MatchForfeited" || e.type === "MatchAborted") {
      snap(e.type === "MatchForfeited" ? t("replay.step_forfeit", { seat: name(p.leaver) }) : t("replay.aborted", { reason: p.reason }));
      break;
    }
  }
  return steps;
}

/** What a deal was: its dealer, turned card and contract; then how it was scored or
 * why abandoned. */
export function dealMeta(d, name = (seat) => String(seat + 1)) {
  const said = { seat: name(d.dealer), card: d.turned ? cardLabel(d.turned) : "—" };
  let first;
  if (!d.contract) first = t("replay.meta_dealer", said);
  else if (d.contract.taker === null) first = t("replay.meta_contract", { ...said, contract: strainLabel(d.contract.strain) });
  else first = t("replay.meta_contract_by", { ...said, contract: strainLabel(d.contract.strain), taker: name(d.contract.taker) });
  const parts = [first];
  if (d.score) parts.push(t("replay.meta_scored", { awarded: d.score.awarded.join(":"), outcome: outcomeWord(d.score.outcome) }));
  if (d.abandoned) parts.push(t("replay.meta_abandoned", { reason: abandonedWhy(d.abandoned) }));
  return parts;
}
