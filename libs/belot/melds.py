"""Melds (docs/specification.md §3): four of a kind and sequences, their values and their order.

A seat declares before its first card; the declaration names only the rank of its best
meld (kind, length, top card, whether it is in trump), which is what the comparison
needs. After the first trick the side holding the best declared meld shows every meld
its declared seats hold, and only those score.

Comparison (seed 002, also used for club): any four of a kind beats any sequence; fours
J > 9 > A > 10 > K > Q (the trump order); a longer sequence beats a shorter one; at equal
length the higher top card; then trump beats plain; then the earlier declaration.

A card may be part of a four of a kind and of a sequence at once (002: "the cards of
bela and of fours may enter other melds"). Each maximal run of three or more cards in
a suit is one sequence: eight in a row is one 100, not a 100 and a 20.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from belot.cards import (
    EIGHT,
    RANK_MASKS,
    RANKS,
    SEVEN,
    SUITS,
    TRUMP_STRENGTH,
    Card,
    Mask,
    make_card,
)
from belot.ruleset import MeldTable, Strain


class MeldKind(enum.Enum):
    FOUR = "four"
    SEQUENCE = "sequence"


@dataclass(frozen=True)
class Meld:
    """A four of a kind (``rank``) or a sequence (``suit``, ``length`` cards up to ``rank``)."""

    kind: MeldKind
    #: The rank of a four; the top card's rank of a sequence.
    rank: int
    length: int
    #: The suit of a sequence; None for a four.
    suit: int | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        if self.suit is None:
            return tuple(make_card(s, self.rank) for s in range(4))
        return tuple(
            make_card(self.suit, r) for r in range(self.rank - self.length + 1, self.rank + 1)
        )

    def value(self, table: MeldTable) -> int:
        if self.kind is MeldKind.FOUR:
            return table.four_value(self.rank)
        return table.sequence_value(self.length)

    def is_trump(self, strain: int) -> bool:
        if self.suit is None:
            return False
        return strain == Strain.ALL_TRUMPS or self.suit == strain

    def claim(self, strain: int) -> MeldClaim:
        return MeldClaim(self.kind, self.rank, self.length, self.is_trump(strain))

    def __str__(self) -> str:
        if self.suit is None:
            return f"four {RANKS[self.rank]}"
        return f"{self.length} to {RANKS[self.rank]}{SUITS[self.suit]}"


@dataclass(frozen=True)
class MeldClaim:
    """What a declaration says aloud: the rank of the seat's best meld, not its cards."""

    kind: MeldKind
    rank: int
    length: int
    trump: bool

    @property
    def key(self) -> tuple[int, int, int, int]:
        """Higher is better (ties go to the earlier declaration)."""
        if self.kind is MeldKind.FOUR:
            return (1, TRUMP_STRENGTH[self.rank], 0, 0)
        return (0, self.length, self.rank, int(self.trump))


def find_melds(hand: Mask, table: MeldTable) -> tuple[Meld, ...]:
    """Every meld in ``hand`` worth points under ``table``, fours first."""
    melds = [
        Meld(MeldKind.FOUR, rank, 4)
        for rank in range(8)
        if hand & RANK_MASKS[rank] == RANK_MASKS[rank] and table.four_value(rank) > 0
    ]
    for suit in range(4):
        bits = (hand >> (8 * suit)) & 0xFF
        run = 0
        for rank in range(9):
            if rank < 8 and bits >> rank & 1:
                run += 1
                continue
            if run >= 3:
                melds.append(Meld(MeldKind.SEQUENCE, rank - 1, run, suit))
            run = 0
    return tuple(melds)


#: Bits of each suit where a run of three can start (ranks 7 to Q), all four suits.
_RUN_STARTS: Final = 0x3F3F3F3F


def has_meld(hand: Mask, table: MeldTable) -> bool:
    """``bool(find_melds(hand, table))``, quickly: the engine asks before every first card."""
    if hand & (hand >> 1) & (hand >> 2) & _RUN_STARTS:
        return True
    return any(hand & RANK_MASKS[r] == RANK_MASKS[r] and table.four_value(r) > 0 for r in range(8))


def best_meld(melds: Iterable[Meld], strain: int) -> Meld | None:
    best: Meld | None = None
    for m in melds:
        if best is None or m.claim(strain).key > best.claim(strain).key:
            best = m
    return best


def meld_points(melds: Iterable[Meld], table: MeldTable) -> int:
    return sum(m.value(table) for m in melds)


def winning_claim(claims: Iterable[tuple[int, MeldClaim]]) -> int | None:
    """The seat whose claim wins, from ``(seat, claim)`` in declaration order."""
    best_seat, best_key = None, None
    for seat, claim in claims:
        if best_key is None or claim.key > best_key:
            best_seat, best_key = seat, claim.key
    return best_seat


FOUR_LOW: Final = (RANK_MASKS[SEVEN], RANK_MASKS[EIGHT])


def has_four_low(hand: Mask) -> bool:
    """Four 7s or four 8s: gambler's right to demand a redeal."""
    return any(hand & m == m for m in FOUR_LOW)
