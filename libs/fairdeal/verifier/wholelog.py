"""What only the whole log shows: a commitment no other match used, and a round whose
matches all followed its one fact.

A record cannot show that its commitment was never used by another match, nor that every
match that named its round did what the round's fact says: the verify API answers both
from the whole log, and ``belot verify`` asks it. These build the checks from those
answers, so that the API and the command judge alike. They are pure: the caller does
the looking up (``services/verify``), and hands in what the log says.

``commitment_unique``  no other match in the log committed to the same server seed
                       (:func:`commitment_check`).
``round_consistency``  the match followed its round's fact, and no match was dealt from
                       a round declared missed (:func:`round_check`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from fairdeal.fairness import DrandRoundBeacon
from fairdeal.verifier.report import FAIL, MAX_DIFFERENCES, Check, Difference, pass_check

#: The names of the checks the verify API adds to a report.
PLATFORM_CHECKS: Final = ("commitment_unique", "round_consistency")


def commitment_check(match_id: str, commitment: str, users: Sequence[str]) -> Check:
    """``users``: every match the log shows committing to ``commitment``. A server seed
    used twice is a seed known before the second match: its decks were not fresh."""
    others = sorted(m for m in set(users) if m != match_id)
    if match_id not in users:
        return Check(
            "commitment_unique",
            FAIL,
            f"the log shows no match {match_id} committing to {commitment[:16]}...",
        )
    if others:
        return Check(
            "commitment_unique",
            FAIL,
            f"the commitment {commitment[:16]}... was used by {len(others)} other match(es) "
            f"({', '.join(others[:5])}): a server seed used twice was known before the "
            "second match began",
            tuple(Difference("commitment", "also used by", m) for m in others[:MAX_DIFFERENCES]),
        )
    return pass_check(
        "commitment_unique", f"no other match in the log used the commitment {commitment[:16]}..."
    )


def round_check(
    match_id: str,
    chain: str,
    round_: int,
    fact: str | None,
    matches: Sequence[tuple[str, bool | None]],
) -> Check:
    """``fact``: the type of the round's one fact (``DrandRoundBeacon``,
    ``DrandRoundMissed``, None if the log holds none); ``matches``: every match that named
    the round, with whether it was dealt from drand (None: not resolved yet).

    A fallback is a fact about a round: every match that named a missed round is dealt
    without drand, and none that named a round whose value came. A match that fell back
    on a round whose value came had a second deck to choose from: it fails. A round
    declared missed while some match was dealt from its value is a false claim: every
    match of the round fails (each fallback was a choice)."""
    name = "round_consistency"
    if fact is None:
        return Check(
            name,
            FAIL,
            f"the log holds no fact about {chain} round {round_}: its matches followed nothing",
        )
    came = fact == DrandRoundBeacon.TYPE
    dealt_with = [m for m, used in matches if used is True]
    without = [m for m, used in matches if used is False]
    mine = next((used for m, used in matches if m == match_id), None)
    if came and mine is False:
        return Check(
            name,
            FAIL,
            f"{chain} round {round_}'s value came in time ({len(dealt_with)} match(es) were "
            "dealt from it), yet this match was dealt without drand: its fallback was a "
            "choice, a second deck",
        )
    if not came and dealt_with:
        return Check(
            name,
            FAIL,
            f"{chain} round {round_} was declared missed, yet {len(dealt_with)} match(es) "
            f"were dealt from its value ({', '.join(sorted(dealt_with)[:5])}): the value "
            "came, and every fallback of this round was a choice",
            tuple(
                Difference(m, "dealt from a round declared missed")
                for m in sorted(dealt_with)[:MAX_DIFFERENCES]
            ),
        )
    said = "its value came in time" if came else "it was missed"
    others = (
        f"; {len(without)} other match(es) fell back on it and fail their own check"
        if came and without
        else ""
    )
    return pass_check(
        name,
        f"{chain} round {round_}: {said}, and this match, like "
        f"{len(dealt_with) if came else len(without)} of the {len(matches)} that named it, "
        f"was dealt {'from' if came else 'without'} drand{others}",
    )
