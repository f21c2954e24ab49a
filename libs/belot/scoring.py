"""Scoring a deal (docs/specification.md §2, rows capot, contract failed, tie; §3 for melds).

Pure arithmetic on what the play produced, in integer points, per side. A side's total
for the deal is its card points (last trick included), the capot bonus if it took every
trick, its scoring melds and its belote; in no-trumps all of it is multiplied (gambler:
doubled). The takers make the contract by scoring more than the defenders, melds
included (002: "more points in tricks and melds"); belote is part of that test only
where the ruleset says so (``belote_in_contract``): classic and french judge the contract
on the deal's points without it (001: "всего без белота-ребелота: 162") and give it to
its side whatever happens (004: "независимо от исполнения или провала контракта").

- Made: each side scores its total; hanging points go to the takers.
- Failed: the defenders score every point of the deal except the takers' belote, which
  stays with the takers (docs/specification.md: belote stays with its side whatever happens).
- Level: by the ruleset's :class:`~belot.ruleset.TieRule`; belote is scored at once.
- Misère: the side with fewer card points wins the deal and scores the deal's points;
  level misère scores nothing.

Hanging points go to the next deal's winner; a level deal adds to them, or, without
``hanging_accumulates`` (gambler), replaces them: 002's hanging points "обязательно
разыгрываются в следующей раздаче и не накапливаются", so the next deal played decides
them, and if it has no winner (a level deal, a level misère) they are lost. A redeal is
not a deal played (the cards go back before the first one): they wait for the next.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from belot.ruleset import FailedContract, Ruleset, Strain, TieRule


class Outcome(enum.Enum):
    MADE = "made"
    FAILED = "failed"
    LEVEL = "level"
    MISERE = "misere"
    MISERE_LEVEL = "misere_level"


@dataclass(frozen=True)
class Tally:
    """What a deal's play produced, per side (index 0 and 1)."""

    #: Card points in tricks, the last trick's 10 included.
    cards: tuple[int, int]
    tricks: tuple[int, int]
    #: Points of the melds that score (already compared, shown, and trick-checked).
    melds: tuple[int, int]
    belote: tuple[int, int]


@dataclass(frozen=True)
class DealScore:
    outcome: Outcome
    #: Each side's total for the deal, the contract judged on it (multiplied); belote is in
    #: it only where the ruleset judges the contract with it.
    totals: tuple[int, int]
    #: What each side adds to its score, hanging points received included.
    awarded: tuple[int, int]
    #: The side that won the deal (None when level).
    winner: int | None
    #: The side that took every trick, if any.
    capot: int | None
    #: Hanging points waiting for the next deal's winner after this deal.
    hanging: int


def score_deal(
    ruleset: Ruleset, strain: int, taker_side: int | None, tally: Tally, hanging: int
) -> DealScore:
    """Score one deal; ``taker_side`` is None for misère."""
    if strain == Strain.MISERE or taker_side is None:
        return _score_misere(tally, hanging if ruleset.hanging_accumulates else 0, hanging)
    assert ruleset.failed_contract is FailedContract.DEFENDERS_TAKE_ALL
    mult = ruleset.no_trumps_multiplier if strain == Strain.NO_TRUMPS else 1
    all_tricks = ruleset.tricks
    capot = next((s for s in (0, 1) if tally.tricks[s] == all_tricks), None)
    # What each side's total holds besides belote; belote is added to the totals the
    # contract is judged on only where the ruleset says so, and to what each side is
    # awarded always (it stays with its side whatever happens).
    play = tuple(
        mult * (tally.cards[s] + tally.melds[s] + (ruleset.capot_bonus if capot == s else 0))
        for s in (0, 1)
    )
    judged = ruleset.belote_in_contract
    totals = tuple(play[s] + (tally.belote[s] if judged else 0) for s in (0, 1))
    t, d = taker_side, 1 - taker_side
    belote = tally.belote
    awarded = [0, 0]
    winner: int | None
    new_hang = 0
    if totals[t] > totals[d]:
        outcome, winner = Outcome.MADE, t
        awarded[t], awarded[d] = play[t] + belote[t], play[d] + belote[d]
    elif totals[t] < totals[d]:
        outcome, winner = Outcome.FAILED, d
        awarded[d] = play[d] + play[t] + belote[d]
        awarded[t] = belote[t]
    else:
        outcome, winner = Outcome.LEVEL, None
        if ruleset.tie is TieRule.TAKERS_HANG:
            awarded[d], awarded[t] = play[d] + belote[d], belote[t]
            new_hang = play[t]
        else:
            awarded[d], awarded[t] = belote[d], belote[t]
            new_hang = play[t] + play[d]
    if winner is not None:
        awarded[winner] += hanging
        left = 0
    else:
        left = hanging + new_hang if ruleset.hanging_accumulates else new_hang
    return DealScore(outcome, (totals[0], totals[1]), (awarded[0], awarded[1]), winner, capot, left)


def _score_misere(tally: Tally, left_if_level: int, hanging: int) -> DealScore:
    a, b = tally.cards
    totals = (a, b)
    if a == b:
        return DealScore(Outcome.MISERE_LEVEL, totals, (0, 0), None, None, left_if_level)
    winner = 0 if a < b else 1
    awarded = [0, 0]
    awarded[winner] = a + b + hanging
    return DealScore(Outcome.MISERE, totals, (awarded[0], awarded[1]), winner, None, 0)
