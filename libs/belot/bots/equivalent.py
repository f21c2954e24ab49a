"""Equivalent cards: cards of one hand that no other card separates and that are worth
the same, so that playing either leads to the same deal up to swapping them.

Two cards of one hand in one suit are equivalent when no card of another hand, nor of
the trick on the table, lies between them in the trick-taking order, and they are worth
the same points. In belot points differ along the order (a king is not a queen), so only
the pointless low cards merge: 9 8 7 of a plain suit, 8 7 of a trump suit. Searching one
card of each run is what double-dummy engines do; the hard bot also weighs one candidate
per run (:mod:`belot.bots.hard`), and the solver merges them at every node
(:mod:`belot.bots.solver`, which compiles :data:`MERGE`).
"""

from __future__ import annotations

from typing import Final

from belot.cards import Mask
from belot.ruleset import Strain


def _low_merge(lows: int) -> tuple[tuple[int, ...], ...]:
    """``[hand][others]`` over the ``lows`` lowest ranks (bits 0.., rank 7 first, which is
    also their order of power): the hand's cards to keep, one per run of hand cards with
    no card of ``others`` between them."""
    table = []
    for hand in range(8):
        row = []
        for others in range(8):
            keep = 0
            top = -1
            for b in range(lows):
                if hand >> b & 1:
                    if top >= 0:
                        keep &= ~(1 << top)
                    keep |= 1 << b
                    top = b
                elif others >> b & 1:
                    top = -1
            row.append(keep | (hand & ~((1 << lows) - 1) & 7))
        table.append(tuple(row))
    return tuple(table)


#: ``MERGE[trump][hand & 7][others & 7]``: the low cards a hand keeps in a suit, for a
#: plain suit (0: 7 8 9 merge) and a trump suit (1: 7 8 merge).
MERGE: Final = (_low_merge(3), _low_merge(2))


def reduce_equivalent(moves: Mask, others: Mask, strain: int) -> Mask:
    """``moves`` with each run of equivalent cards cut to its top card (see module
    docstring); ``others``: the cards of the other hands and of the trick on the table."""
    out = moves
    for suit in range(4):
        shift = 8 * suit
        byte = (moves >> shift) & 0xFF
        if byte & (byte - 1) and byte & 7:
            trump = strain == Strain.ALL_TRUMPS or suit == strain
            low = MERGE[trump][byte & 7][(others >> shift) & 7]
            out = out & ~(7 << shift) | low << shift
    return out
