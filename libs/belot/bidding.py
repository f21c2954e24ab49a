"""Bidding: two rounds, the first seat to take ends it (docs/specification.md §2).

Round one goes round the table from the dealer's left (the non-dealer at two): each
seat takes the turned card's suit or passes. Round two, in the same order: each names
a contract of the ruleset's ``second_round`` other than the turned suit, or passes.
Under ``AllPass.DEALER_MUST_CHOOSE`` the dealer, last in round two, may not pass.
"""

from __future__ import annotations

from typing import Final

from belot.ruleset import AllPass, Ruleset, Strain

#: A call: a strain taken, or None for a pass.
Call = Strain | None
PASS: Final = None


def bidder(dealer: int, players: int, calls_made: int) -> int:
    """The seat to speak after ``calls_made`` calls."""
    return (dealer + 1 + calls_made) % players


def bidding_round(players: int, calls_made: int) -> int:
    """1 or 2."""
    return 1 if calls_made < players else 2


def allowed_calls(ruleset: Ruleset, turned_suit: int, calls_made: int) -> tuple[Call, ...]:
    """The calls open to the seat to speak, passes last.

    Assumes every call so far was a pass (the first take ends bidding).
    """
    n = ruleset.players
    if calls_made < n:
        return (Strain(turned_suit), PASS)
    named = tuple(s for s in sorted(ruleset.second_round) if s != turned_suit)
    forced = ruleset.all_pass is AllPass.DEALER_MUST_CHOOSE and calls_made == 2 * n - 1
    return named if forced else (*named, PASS)


def is_all_passed(players: int, calls_made: int) -> bool:
    """Everyone passed twice (only reachable when the dealer may pass)."""
    return calls_made >= 2 * players
