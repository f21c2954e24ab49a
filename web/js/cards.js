// Cards and contracts as people read them: "TS" is the ten of spades, shown "10♠".

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_LABELS = { T: "10" };
const STRAIN_SUIT = { clubs: "C", diamonds: "D", hearts: "H", spades: "S" };

export function cardLabel(code) {
  return (RANK_LABELS[code[0]] ?? code[0]) + SUITS[code[1]];
}

export function isRed(code) {
  return code[1] === "D" || code[1] === "H";
}

/** "hearts" -> "♥ hearts", "all_trumps" -> "all trumps", null -> "pass". */
export function strainLabel(strain) {
  if (strain === null || strain === undefined || strain === "pass") return "pass";
  const suit = STRAIN_SUIT[strain];
  if (suit) return `${SUITS[suit]} ${strain}`;
  return strain.replace("_", " ");
}

export function strainSuit(strain) {
  return STRAIN_SUIT[strain] ?? null;
}

// Display order in a hand: suits alternate colours, trump first; ranks by the order that
// matters in the contract (trump: J 9 A 10 K Q 8 7; plain: A 10 K Q J 9 8 7).
const PLAIN = "ATKQJ987";
const TRUMP = "J9ATKQ87";

export function sortHand(cards, strain) {
  const trump = strainSuit(strain);
  const allTrumps = strain === "all_trumps";
  const suitOrder = trump ? [trump, ...["S", "H", "C", "D"].filter((s) => s !== trump)] : ["S", "H", "C", "D"];
  return [...cards].sort((a, b) => {
    const sa = suitOrder.indexOf(a[1]);
    const sb = suitOrder.indexOf(b[1]);
    if (sa !== sb) return sa - sb;
    const order = allTrumps || a[1] === trump ? TRUMP : PLAIN;
    return order.indexOf(a[0]) - order.indexOf(b[0]);
  });
}
