"""Elimination (docs/specification.md §5): a knockout bracket of 2, 4, 8, 16… places.

- Standard seeding: seed 1 meets the last seed, and seeds 1 and 2 can meet only in the
  final (each half of the bracket is itself seeded the same way).
- When the entrants do not fill the bracket, the empty places are the lowest seeds', so
  the highest seeds go through round 1 without playing.
- A meeting is one match or the best of three (the first to win two goes through). A
  meeting that ends level is played again in the same round; a final that ends level
  goes to the higher seed (the one placed higher in the bracket).
- A meeting nobody can win (both sides out: time-out, no-show, withdrawal) sends nobody
  on: the next meeting is a walkover for the other side, or empty.

Plain functions on seeds and outcomes; the aggregate (commands.py) feeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from tournament.settings import Outcome


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds everyone (2 entrants: a final alone)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def rounds_for(entrants: int) -> int:
    return bracket_size(entrants).bit_length() - 1


def seed_positions(size: int) -> list[int]:
    """Seeds (1-based) in bracket order: pairs of neighbours meet in round 1.

    >>> seed_positions(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def first_round(order: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """Round 1's meetings from the entrants in seed order; None is an empty place."""
    size = bracket_size(len(order))
    slots = [order[s - 1] if s <= len(order) else None for s in seed_positions(size)]
    return [(slots[i], slots[i + 1]) for i in range(0, size, 2)]


def next_round(winners: Sequence[str | None]) -> list[tuple[str | None, str | None]]:
    """The next round's meetings: the winners of meetings 1 and 2 meet, 3 and 4, …"""
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


class Meeting(Enum):
    A = "a"
    B = "b"
    UNDECIDED = "undecided"  # more games to play in this leg
    LEVEL = "level"  # the leg ended level: replay (a final goes to the higher seed)


def meeting_state(games: Sequence[tuple[Outcome, Outcome]], best_of: int) -> Meeting:
    """Where a meeting stands after ``games`` (each side's outcome, oldest first).

    A leg is ``best_of`` games at most; a leg that ends level is replayed, so games are
    read in legs and only the last leg counts. A game lost by both sides gives neither
    a win. Within a leg, a side is through once the other cannot catch up.
    """
    if not games:
        return Meeting.UNDECIDED
    played_in_leg = len(games) % best_of or best_of
    leg = games[len(games) - played_in_leg :]
    a = sum(1 for x, _ in leg if x is Outcome.WIN)
    b = sum(1 for _, y in leg if y is Outcome.WIN)
    left = best_of - len(leg)
    if a > b + left:
        return Meeting.A
    if b > a + left:
        return Meeting.B
    if left == 0:
        return Meeting.A if a > b else Meeting.B if b > a else Meeting.LEVEL
    return Meeting.UNDECIDED


def leg_is_over(games: Sequence[tuple[Outcome, Outcome]], best_of: int) -> bool:
    """True when the games so far close a leg (decided or level)."""
    return meeting_state(games, best_of) is not Meeting.UNDECIDED
