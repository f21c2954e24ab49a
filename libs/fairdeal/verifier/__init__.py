"""Verify a match record: was this match dealt fairly, and played by the rules?

The one verifier: the verify service's API and ``belot verify`` both call
:func:`verify_record`. Pure (standard library and the game core): the BLS check of a drand
signature needs pairing arithmetic, which lives in ``libs/drand``, so it comes in as a
function (``bls=drand.verify``, a :data:`~fairdeal.verifier.context.BlsCheck`); without it
the signature check is reported as skipped and the report is not ``ok``.

This module runs the checks in order; each family lives in its own module, whose
docstring says what each of its checks requires and why:

1. :mod:`~fairdeal.verifier.evidence`  ``hash_chain``, ``events``, ``summary``: the record
   is intact and well formed, and its summary says what its events say
2. :mod:`~fairdeal.verifier.seeds`     ``commitment``, ``seat_seeds``: the server's seed
   was committed before the seats sent theirs, and each seat's is as it sent it
3. :mod:`~fairdeal.verifier.beacon`    ``drand_round``, ``drand_beacon``, ``drand_fact``,
   ``drand_signature``: the rule's round, its value in time (or the round's fallback)
4. :mod:`~fairdeal.verifier.deals`     ``decks``, ``deals``, ``dealer``: the recipe's
   decks, dealt as the published pattern says, by the rule's first dealer
5. :mod:`~fairdeal.verifier.replay`    ``play``, ``score``, ``ending``: the game core
   replays every move, the result follows, the ending left no choice
6. :mod:`~fairdeal.verifier.seeds`     ``reveal``: the server seed came out only after
   the end

Each check passes, fails saying what differs, or is skipped when what it needs failed or
is missing (:mod:`~fairdeal.verifier.report`). The order is the report's, and it matters
twice: ``deals`` maps the decks ``decks`` recomputed, ``score`` judges the state ``play``
replayed (:mod:`~fairdeal.verifier.context` holds what passes between them).

What a record alone cannot show, the verify API adds from the whole log (a commitment
used by two matches, a round whose matches disagree): :mod:`~fairdeal.verifier.wholelog`
builds those checks, and ``services/verify`` looks up what they judge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from fairdeal.fairness import DrandBeaconVerified, DrandFallback, DrandRoundNamed
from fairdeal.record import MatchRecord, parse_record
from fairdeal.verifier import beacon, deals, evidence, replay, seeds
from fairdeal.verifier.context import BlsCheck, Context
from fairdeal.verifier.report import FAIL, Check, Report

#: Every check by name, in the report's order.
CHECK_FUNCTIONS: Final[Mapping[str, Callable[[Context], Check]]] = MappingProxyType(
    {
        "hash_chain": evidence.check_hash_chain,
        "events": evidence.check_events,
        "summary": evidence.check_summary,
        "commitment": seeds.check_commitment,
        "seat_seeds": seeds.check_seat_seeds,
        "drand_round": beacon.check_drand_round,
        "drand_beacon": beacon.check_drand_beacon,
        "drand_fact": beacon.check_drand_fact,
        "drand_signature": beacon.check_drand_signature,
        "decks": deals.check_decks,
        "deals": deals.check_deals,
        "dealer": deals.check_dealer,
        "play": replay.check_play,
        "score": replay.check_score,
        "ending": replay.check_ending,
        "reveal": seeds.check_reveal,
    }
)
CHECKS: Final = tuple(CHECK_FUNCTIONS)
CHECK_CRASHED: Final = "the check could not run on this record"


def verify_record(doc: Any, *, bls: BlsCheck | None = None) -> Report:
    """Verify a record (the parsed JSON document). Raises
    :class:`~fairdeal.record.RecordError` if ``doc`` is not a record at all; everything
    else is a check in the report."""
    return verify(parse_record(doc), bls=bls)


def verify(record: MatchRecord, *, bls: BlsCheck | None = None) -> Report:
    ctx = Context(record, bls)
    checks = tuple(_run(name, check, ctx) for name, check in CHECK_FUNCTIONS.items())
    verified, fallback = ctx.one(DrandBeaconVerified), ctx.one(DrandFallback)
    dealt_with_drand = True if verified is not None else False if fallback is not None else None
    named = ctx.one(DrandRoundNamed)
    return Report(
        record.match_id,
        checks,
        dealt_with_drand,
        named.round if named is not None else None,
        fallback.reason if fallback is not None else None,
        bls is not None,
    )


def _run(name: str, check: Callable[[Context], Check], ctx: Context) -> Check:
    # Records come from anyone: a check that meets something it cannot handle fails
    # closed, saying so, rather than taking the verifier (or the API) down. The tests
    # feed mangled records and require that this never happens.
    try:
        return check(ctx)
    except Exception as exc:
        return Check(name, FAIL, f"{CHECK_CRASHED}: {type(exc).__name__}: {exc}")


__all__ = [
    "CHECKS",
    "CHECK_CRASHED",
    "CHECK_FUNCTIONS",
    "verify",
    "verify_record",
]
