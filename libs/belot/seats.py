"""Per-seat and per-side values: small immutable tuples with a ``set`` that copies.

Seats are numbered from 0 in playing order. Side 0 is seats 0 and 2, side 1 seats 1
and 3; at a two-player table each seat is its own side (``side_of(seat) == seat % 2``).
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class BySeat(tuple[T, ...]):
    """One value per seat."""

    __slots__ = ()

    def set(self, seat: int, value: T) -> BySeat[T]:
        return BySeat((*self[:seat], value, *self[seat + 1 :]))


class BySide(tuple[T, ...]):
    """One value per side (team): index 0 and 1."""

    __slots__ = ()

    def set(self, side: int, value: T) -> BySide[T]:
        return BySide((*self[:side], value, *self[side + 1 :]))


def side_of(seat: int) -> int:
    """Side 0 is seats 0 and 2, side 1 seats 1 and 3; at two players, the seat itself."""
    return seat & 1


def partner_of(seat: int, players: int) -> int | None:
    """The seat opposite at four players; None at two."""
    return (seat + 2) % 4 if players == 4 else None
