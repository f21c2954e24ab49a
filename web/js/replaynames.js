// The seats of a finished match named by their players, for the replay (replay.js):
// names asked of the gateway, "you" for this tab's player, seats numbered 1 to 4 where no
// name is known.

import { t } from "./i18n.js";

/** The players' names, by account, from the gateway: the table's seats (its id is the
 * match's without the match's number), else each player's page (GET /v1/players/{id});
 * {} when it cannot say (the seats are then numbered). */
export async function playerNames(record, ctx) {
  const ids = [...new Set(record.seats.filter((s) => s.human && s.player).map((s) => s.player))];
  const names = {};
  try {
    const reply = await ctx.gateway.table(record.match_id.replace(/-\d+$/, ""));
    for (const s of reply?.table?.seats ?? []) if (s.player && s.name && ids.includes(s.player)) names[s.player] = s.name;
  } catch {
    // The table is gone or not ours to see: each player's page, below.
  }
  await Promise.all(
    ids
      .filter((id) => !names[id])
      .map(async (id) => {
        try {
          const p = await ctx.gateway.request("GET", `/v1/players/${encodeURIComponent(id)}`);
          if (p?.name) names[id] = p.name;
        } catch {
          // No name: the seat is numbered.
        }
      }),
  );
  return names;
}

/** The seats named by their players: "Ivan", "you (Ivan)", "seat 2 (bot)", numbered 1
 * to 4 where a number is needed. */
export function seatNames(record, ctx, names) {
  const seat = (n) => {
    const s = record.seats[n];
    if (!s) return t("replay.seat", { seat: n + 1 });
    if (!s.human) return t("replay.seat_bot", { seat: n + 1 });
    const name = names[s.player];
    if (ctx.session && s.player === ctx.session.player) return name ? t("table.seat.you_named", { name }) : t("replay.seat_you", { seat: n + 1 });
    return name ?? t("replay.seat_player", { seat: n + 1, player: String(s.player).slice(0, 6) });
  };
  return { seat };
}
