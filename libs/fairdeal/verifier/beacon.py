"""drand: the round named by the rule, its value as drand published it and in time, or a
fallback that was the round's fact and not the match's choice.

The third input of every deck is a drand round's value, named only after the seats'
seeds are in, so that neither the server nor any seat knew it when its own input was
fixed. What could still be chosen is *which* round, and *whether* to use it; these
checks close both:

``drand_round``      the named round is the rule's (:func:`fairdeal.fairness.round_named_for`):
                     the first due more than the commitment's lead after the seeds were in,
                     from the recorded times (``SeedWindowClosed.at_ms``; no recorded lead:
                     0, the rule before it). An earlier round fails: it may have been out
                     when named, and then the server knew the deck before naming it. The
                     round is no later than the last one the commitment allowed, which is
                     the rule's round for the window's end, and the window and the lead are
                     no longer than the longest allowed (:func:`_round_bounds` says why).
``drand_beacon``     the chain is the pinned one; randomness = SHA-256(signature); the value
                     came between the due time and due + 5 s (``DRAND_GRACE_MS``); or the
                     fallback came no earlier than due + 5 s, and a late value no earlier
                     than the fallback (one "late" by less came in time: falling back was a
                     choice).
``drand_fact``       the round's one public fact (its own stream, shared by every match that
                     named the round) says what the match did: dealt from its value in time,
                     the very signature, or without drand when the round was declared
                     missed. A fallback is a fact about a round, never one match's choice.
``drand_signature``  the beacon's BLS signature verifies against the chain's pinned public
                     key (a late, unused value's too), by the function the caller handed
                     in (:data:`fairdeal.verifier.context.BlsCheck`); without one the check
                     is skipped, and the report is not ``ok``. Unchecked, the "signature"
                     could be bytes made up, with their SHA-256 beside them as the value.

Whether every match that named the round did the same is a question for the whole log
(:func:`fairdeal.verifier.wholelog.round_check`).
"""

from __future__ import annotations

import hashlib

from fairdeal.chains import CHAINS, Chain
from fairdeal.fairness import (
    DRAND_GRACE_MS,
    MAX_ROUND_LEAD_MS,
    MAX_SEED_WINDOW_MS,
    PUBLIC,
    DrandBeaconLate,
    DrandBeaconVerified,
    DrandFallback,
    DrandRoundBeacon,
    DrandRoundMissed,
    DrandRoundNamed,
    SeedWindowClosed,
    ServerSeedCommitted,
    last_round_for,
    round_named_for,
)
from fairdeal.record import drand_stream_of
from fairdeal.verifier.context import Context, in_seconds, where_of
from fairdeal.verifier.report import FAIL, Check, Difference, pass_check, skip_check, verdict

# drand round ------------------------------------------------------------------------------


def check_drand_round(ctx: Context) -> Check:
    commit = ctx.one(ServerSeedCommitted)
    closed = ctx.one(SeedWindowClosed)
    named = ctx.one(DrandRoundNamed)
    if commit is None or closed is None or named is None:
        return Check("drand_round", FAIL, "the window's closing or the named round is missing")
    chain = CHAINS.get(named.chain)
    if chain is None:
        return Check(
            "drand_round",
            FAIL,
            f"unknown drand chain {named.chain!r}",
            (
                Difference(
                    "DrandRoundNamed.chain", "not a pinned chain", named.chain, sorted(CHAINS)
                ),
            ),
        )
    problems: list[Difference] = []
    if named.chain != commit.chain:
        problems.append(
            Difference(
                "DrandRoundNamed.chain",
                "not the chain the match committed to",
                named.chain,
                commit.chain,
            )
        )
    lead = commit.round_lead_ms
    lead_ok = 0 <= lead <= MAX_ROUND_LEAD_MS
    # A lead out of bounds is _round_bounds' difference; the rule is computed with 0.
    first = round_named_for(chain.name, closed.at_ms, lead if lead_ok else 0)
    rule = (
        f"the first due more than the commitment's lead of {lead} ms after the seeds "
        f"were in at {closed.at_ms} ms"
        if lead
        else f"the first produced after the seeds were in at {closed.at_ms} ms (a "
        "commitment with no lead: the rule before the lead)"
    )
    if named.round < first:
        problems.append(
            Difference(
                "DrandRoundNamed.round",
                f"earlier than the rule's round ({rule}): it may have been out when named",
                named.round,
                first,
            )
        )
    elif named.round != first:
        problems.append(
            Difference(
                "DrandRoundNamed.round", f"not the rule's round ({rule})", named.round, first
            )
        )
    due = chain.time_of_round(named.round) * 1000 if named.round >= 1 else None
    if named.due_at_ms != due:
        problems.append(
            Difference("DrandRoundNamed.due_at_ms", "not the round's time", named.due_at_ms, due)
        )
    if named.at_ms < closed.at_ms:
        problems.append(
            Difference(
                "DrandRoundNamed.at_ms",
                "named before the seeds were in",
                named.at_ms,
                f">= {closed.at_ms}",
            )
        )
    problems += _round_bounds(chain, commit, closed, named)
    before = first - 1
    return verdict(
        "drand_round",
        problems,
        f"round {named.round} of {chain.name} is {rule} (round {before} was due at "
        f"{chain.time_of_round(before) * 1000 if before >= 1 else 'genesis'} ms, round "
        f"{named.round} at {named.due_at_ms} ms), within the commitment's last round "
        f"{commit.last_round}",
        "the drand round was not the rule's",
    )


def _round_bounds(
    chain: Chain,
    commit: ServerSeedCommitted,
    closed: SeedWindowClosed,
    named: DrandRoundNamed,
) -> list[Difference]:
    """The bounds the commitment set before any seed came: the window's length and the
    last round the match may name. A server holding the window open to wait for a
    round it likes can choose among those rounds only."""
    problems: list[Difference] = []
    lead = commit.round_lead_ms
    if not 0 <= lead <= MAX_ROUND_LEAD_MS:
        problems.append(
            Difference(
                "ServerSeedCommitted.round_lead_ms",
                f"the round's lead must be 0..{MAX_ROUND_LEAD_MS} ms",
                lead,
                f"0..{MAX_ROUND_LEAD_MS}",
            )
        )
        lead = 0
    window = commit.window_closes_at_ms - commit.at_ms
    if not 0 < window <= MAX_SEED_WINDOW_MS:
        problems.append(
            Difference(
                "ServerSeedCommitted.window_closes_at_ms",
                f"the seed window lasts {window} ms: it must be 1..{MAX_SEED_WINDOW_MS}",
                window,
                f"1..{MAX_SEED_WINDOW_MS}",
            )
        )
    if commit.last_round == 0:
        problems.append(
            Difference(
                "ServerSeedCommitted.last_round",
                "the commitment fixed no last round: the round could have been waited for",
            )
        )
    else:
        want = last_round_for(chain.name, commit.window_closes_at_ms, lead)
        if commit.last_round != want:
            problems.append(
                Difference(
                    "ServerSeedCommitted.last_round",
                    "not the rule's round for a window closed at its end",
                    commit.last_round,
                    want,
                )
            )
        if named.round > commit.last_round:
            problems.append(
                Difference(
                    "DrandRoundNamed.round",
                    "later than the last round the commitment allowed",
                    named.round,
                    f"<= {commit.last_round}",
                )
            )
    if closed.at_ms < commit.at_ms:
        problems.append(
            Difference(
                "SeedWindowClosed.at_ms",
                "closed before it opened",
                closed.at_ms,
                f">= {commit.at_ms}",
            )
        )
    if closed.at_ms > commit.window_closes_at_ms:
        problems.append(
            Difference(
                "SeedWindowClosed.at_ms",
                "closed after the window's end",
                closed.at_ms,
                f"<= {commit.window_closes_at_ms}",
            )
        )
    return problems


# drand beacon -----------------------------------------------------------------------------


def check_drand_beacon(ctx: Context) -> Check:
    named = ctx.one(DrandRoundNamed)
    verified = ctx.one(DrandBeaconVerified)
    fallback = ctx.one(DrandFallback)
    late = ctx.one(DrandBeaconLate)
    chain = ctx.chain()
    if named is None or chain is None:
        return Check("drand_beacon", FAIL, "no drand round was named on a pinned chain")
    problems: list[Difference] = []
    if verified is not None and fallback is not None:
        problems.append(Difference("randomness stream", "both a drand value and a fallback"))
    if verified is not None:
        if verified.round != named.round:
            problems.append(
                Difference(
                    "DrandBeaconVerified.round",
                    "not the named round",
                    verified.round,
                    named.round,
                )
            )
        want = hashlib.sha256(verified.signature).digest()
        if verified.randomness != want:
            problems.append(
                Difference(
                    "DrandBeaconVerified.randomness",
                    "is not SHA-256 of the signature",
                    verified.randomness.hex(),
                    want.hex(),
                )
            )
        if chain.is_chained != (verified.previous_signature is not None):
            problems.append(
                Difference(
                    "DrandBeaconVerified.previous_signature",
                    f"the {chain.name} chain is {'chained' if chain.is_chained else 'unchained'}",
                )
            )
        if verified.at_ms < named.due_at_ms:
            problems.append(
                Difference(
                    "DrandBeaconVerified.at_ms",
                    "recorded before the round was due",
                    verified.at_ms,
                    f">= {named.due_at_ms}",
                )
            )
        if verified.at_ms >= named.due_at_ms + DRAND_GRACE_MS:
            problems.append(
                Difference(
                    "DrandBeaconVerified.at_ms",
                    "came after due + 5 s: the match should have fallen back",
                    verified.at_ms,
                    f"< {named.due_at_ms + DRAND_GRACE_MS}",
                )
            )
        if late is not None:
            problems.append(Difference("DrandBeaconLate", "a late value after a value in time"))
        return verdict(
            "drand_beacon",
            problems,
            f"dealt with drand {chain.name} round {verified.round} (pinned chain "
            f"{chain.hash[:16]}...): randomness {verified.randomness.hex()} is SHA-256 of "
            f"the signature, recorded {in_seconds(verified.at_ms - named.due_at_ms)} after "
            "the round was due",
            "the drand beacon does not hold",
        )
    if fallback is None:
        return Check("drand_beacon", FAIL, "neither a drand value nor a fallback was recorded")
    if fallback.round != named.round:
        problems.append(
            Difference("DrandFallback.round", "not the named round", fallback.round, named.round)
        )
    earliest = named.due_at_ms + DRAND_GRACE_MS
    if fallback.at_ms < earliest:
        problems.append(
            Difference(
                "DrandFallback.at_ms",
                "fell back before the round was due + 5 s",
                fallback.at_ms,
                f">= {earliest}",
            )
        )
    late_text = ""
    if late is not None:
        want = hashlib.sha256(late.signature).digest()
        if late.randomness != want:
            problems.append(
                Difference(
                    "DrandBeaconLate.randomness",
                    "is not SHA-256 of the signature",
                    late.randomness.hex(),
                    want.hex(),
                )
            )
        if late.round != named.round:
            problems.append(
                Difference("DrandBeaconLate.round", "not the named round", late.round, named.round)
            )
        if late.at_ms < max(fallback.at_ms, earliest):
            # A value "late" by less than 5 s came in time: the match should have
            # been dealt from it, so the fallback was a choice.
            problems.append(
                Difference(
                    "DrandBeaconLate.at_ms",
                    "a value recorded as late came before the fallback, or by due + 5 s",
                    late.at_ms,
                    f">= {max(fallback.at_ms, earliest)}",
                )
            )
        late_text = (
            f"; round {late.round}'s value came later, at "
            f"{in_seconds(late.at_ms - named.due_at_ms)} after it was due, and was not used"
        )
    return verdict(
        "drand_beacon",
        problems,
        f"dealt without drand: round {named.round} had no value by its due time + 5 s, so "
        f"the decks use round 0 and 32 zero bytes (fallback recorded "
        f"{in_seconds(fallback.at_ms - named.due_at_ms)} after the round was due: "
        f"{fallback.reason}){late_text}",
        "the drand fallback does not hold",
    )


# drand fact -------------------------------------------------------------------------------


def check_drand_fact(ctx: Context) -> Check:
    """A fallback is a platform-wide fact about a round, never one match's choice: the
    round's own stream opens with one fact, and the match must have followed it."""
    named = ctx.one(DrandRoundNamed)
    chain = ctx.chain()
    if named is None or chain is None:
        return Check("drand_fact", FAIL, "no drand round was named on a pinned chain")
    want_id = drand_stream_of(ctx.record.randomness.events)
    stream = ctx.record.drand
    if not stream.events:
        return Check(
            "drand_fact",
            FAIL,
            f"the record lacks the round's own stream {want_id}: whether round "
            f"{named.round} came in time is not shown as the platform's fact",
        )
    problems: list[Difference] = []
    if stream.id != want_id:
        problems.append(
            Difference("streams.drand.id", "not the named round's stream", stream.id, want_id)
        )
    facts = ctx.decoded.drand
    for env, e in facts:
        if env.visibility != PUBLIC:
            problems.append(
                Difference(where_of(env), "a round's fact is public", env.visibility, PUBLIC)
            )
        if not isinstance(e, DrandRoundBeacon | DrandRoundMissed):
            problems.append(Difference(where_of(env), f"{env.type} is not a round's fact"))
    if len(facts) != 1 or not isinstance(facts[0][1], DrandRoundBeacon | DrandRoundMissed):
        problems.append(
            Difference(
                want_id or "streams.drand",
                "a round's stream holds exactly one fact",
                [e.type for e, _ in facts],
                ["DrandRoundBeacon or DrandRoundMissed"],
            )
        )
        return verdict("drand_fact", problems, "", "the round's fact is not one fact")
    fact = facts[0][1]
    assert isinstance(fact, DrandRoundBeacon | DrandRoundMissed)
    if (fact.chain, fact.round) != (named.chain, named.round):
        problems.append(
            Difference(
                f"{fact.TYPE}.round",
                "a fact about another round",
                f"{fact.chain} {fact.round}",
                f"{named.chain} {named.round}",
            )
        )
    verified, fallback = ctx.one(DrandBeaconVerified), ctx.one(DrandFallback)
    due = named.due_at_ms
    if isinstance(fact, DrandRoundMissed):
        if fact.at_ms < due + DRAND_GRACE_MS:
            problems.append(
                Difference(
                    "DrandRoundMissed.at_ms",
                    "declared missed before the round was due + 5 s",
                    fact.at_ms,
                    f">= {due + DRAND_GRACE_MS}",
                )
            )
        if fact.due_at_ms != due:
            problems.append(
                Difference(
                    "DrandRoundMissed.due_at_ms", "not the round's time", fact.due_at_ms, due
                )
            )
        if verified is not None:
            problems.append(
                Difference(
                    "DrandBeaconVerified",
                    "the match was dealt from a round the platform declared missed",
                )
            )
        text = (
            f"round {fact.round} was declared missed for every match that named it, "
            f"{in_seconds(fact.at_ms - due)} after it was due, and this match was dealt "
            "without drand as every such match must be"
        )
    else:
        if not due <= fact.at_ms < due + DRAND_GRACE_MS:
            problems.append(
                Difference(
                    "DrandRoundBeacon.at_ms",
                    "a value in time comes between the due time and due + 5 s",
                    fact.at_ms,
                    f"{due}..{due + DRAND_GRACE_MS - 1}",
                )
            )
        if fallback is not None:
            problems.append(
                Difference(
                    "DrandFallback",
                    f"the platform had round {fact.round}'s value in time, "
                    f"{in_seconds(fact.at_ms - due)} after it was due: the fallback was a "
                    "choice, a second deck for this match",
                )
            )
        elif verified is not None and (
            verified.signature != fact.signature
            or verified.randomness != fact.randomness
            or verified.at_ms != fact.at_ms
        ):
            problems.append(
                Difference(
                    "DrandBeaconVerified",
                    "not the round's value as the platform recorded it",
                    verified.signature.hex(),
                    fact.signature.hex(),
                )
            )
        text = (
            f"round {fact.round}'s value came {in_seconds(fact.at_ms - due)} after it was "
            "due, one fact for every match that named it, and this match was dealt from it"
        )
    return verdict("drand_fact", problems, text, "the match did not follow its round's fact")


# drand signature --------------------------------------------------------------------------


def check_drand_signature(ctx: Context) -> Check:
    verified = ctx.one(DrandBeaconVerified)
    late = ctx.one(DrandBeaconLate)
    chain = ctx.chain()
    beacon = verified if verified is not None else late
    if beacon is None:
        if ctx.one(DrandFallback) is not None:
            return pass_check("drand_signature", "dealt without drand: no drand signature was used")
        return Check("drand_signature", FAIL, "no drand beacon was recorded")
    if chain is None:
        return Check("drand_signature", FAIL, "the match names no pinned drand chain")
    what = "the beacon dealt from" if verified is not None else "the late (unused) value"
    if ctx.bls is None:
        return skip_check(
            "drand_signature",
            f"not checked: this verifier was given no BLS function ({what}, round {beacon.round})",
        )
    previous = verified.previous_signature if verified is not None else None
    try:
        ctx.bls(chain, beacon.round, beacon.signature, previous)
    except Exception as exc:
        return Check(
            "drand_signature",
            FAIL,
            f"the signature of {what} does not verify: {exc}",
            (
                Difference(
                    f"{type(beacon).__name__}.signature",
                    f"does not verify for round {beacon.round} against the {chain.name} public key",
                    beacon.signature.hex(),
                ),
            ),
        )
    return pass_check(
        "drand_signature",
        f"the BLS signature of {what} (round {beacon.round}) verifies against the pinned "
        f"{chain.name} public key {chain.public_key.hex()[:16]}...",
    )
