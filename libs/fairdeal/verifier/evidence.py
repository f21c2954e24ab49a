"""The record as evidence: its hash chains hold, its events are a well-formed match, and
its summary is what the events say.

These come first because every later check reads the events: a stream whose chain is
broken, or an event that does not decode, is named here, once, and a later check that
needs the missing piece skips or fails saying what it lacked.

``hash_chain``  each stream (the match's, the fair deal's, the drand round's own):
                versions 1, 2, 3, ..., positions increasing, each event's hash
                recomputed from its canonical bytes and the previous hash
                (:mod:`eventkit.envelope`), ``head`` the last one. The chain runs on
                the *recorded* hash, so one altered event is named alone rather than
                every event after it.
``events``      every event decodes; the match stream starts with ``MatchStarted`` and
                the fair-deal stream with ``ServerSeedCommitted``, both for this match;
                each event has the visibility the rules give it (a deck in the open
                would have shown the cards still to come); one ending event, nothing
                after it; the fair deal's one-time events recorded once.
``summary``     the summary fields are exactly what the events derive
                (:func:`fairdeal.record.summarize_decoded`): the summary is for people
                and for checking by hand, so it must not say anything the evidence
                does not. Compared as canonical JSON text first, which unlike ``==``
                tells ``1`` from ``1.0`` and ``true``; each differing path is listed.
"""

from __future__ import annotations

import json
from typing import Any, Final

from belot import RULESETS
from belot.events import MatchEnded, MatchStarted, Visibility
from eventkit.envelope import GENESIS_HASH, chain_hash
from fairdeal.fairness import (
    PUBLIC,
    DrandBeaconLate,
    DrandBeaconVerified,
    DrandFallback,
    DrandRoundNamed,
    SeedWindowClosed,
    ServerSeedCommitted,
    ServerSeedRevealed,
    visibility,
)
from fairdeal.record import (
    MatchItem,
    StreamRecord,
    TableEnd,
    is_match_id,
    match_stream,
    randomness_stream,
    summarize_decoded,
)
from fairdeal.verifier.context import Context, where_of
from fairdeal.verifier.report import Check, Difference, diff_json, verdict

# hash_chain -------------------------------------------------------------------------------


def _chain_problems(stream: StreamRecord, expected_id: str) -> list[Difference]:
    problems: list[Difference] = []
    if stream.id != expected_id:
        problems.append(Difference(stream.id, "wrong stream id", stream.id, expected_id))
    if not stream.events:
        problems.append(Difference(expected_id, "the stream has no events"))
        return problems
    prev = GENESIS_HASH
    last_position = 0
    for i, e in enumerate(stream.events):
        where = f"{expected_id} version {e.version}"
        if e.stream != expected_id:
            problems.append(Difference(where, "event of another stream", e.stream, expected_id))
        if e.version != i + 1:
            problems.append(
                Difference(
                    where,
                    f"version {e.version} at place {i + 1}: an event is missing, added or "
                    "out of order",
                    e.version,
                    i + 1,
                )
            )
        if e.position <= last_position:
            problems.append(
                Difference(where, "positions do not increase", e.position, f"> {last_position}")
            )
        last_position = e.position
        if e.hash is None:
            problems.append(
                Difference(where, "no hash: the hashes of a match in progress are not served")
            )
            return problems
        try:
            recomputed = chain_hash(prev, e.canonical_bytes()).hex()
        except (TypeError, ValueError, RecursionError) as exc:
            problems.append(Difference(where, f"cannot be hashed: {type(exc).__name__}"))
            recomputed = ""
        if e.hash != recomputed:
            problems.append(
                Difference(
                    where,
                    "hash differs from SHA-256(previous hash || canonical bytes)",
                    e.hash,
                    recomputed,
                )
            )
        # Chain on the recorded hash, so that one altered event is named alone.
        try:
            prev = bytes.fromhex(e.hash)
        except ValueError:
            prev = bytes.fromhex(recomputed) if recomputed else GENESIS_HASH
        if len(prev) != 32:
            prev = GENESIS_HASH
    if stream.head is not None and stream.head != stream.events[-1].hash:
        problems.append(
            Difference(
                f"{expected_id} head",
                "head is not the last event's hash",
                stream.head,
                stream.events[-1].hash,
            )
        )
    return problems


def check_hash_chain(ctx: Context) -> Check:
    r = ctx.record
    problems = _chain_problems(r.match, match_stream(r.match_id))
    problems += _chain_problems(r.randomness, randomness_stream(r.match_id))
    if r.drand.events:
        # Chained under its own id: whether it is the named round's is drand_fact's.
        problems += _chain_problems(r.drand, r.drand.id)
    return verdict(
        "hash_chain",
        problems,
        f"the hash chains hold ({len(r.match.events)} match events, "
        f"{len(r.randomness.events)} fair-deal events, {len(r.drand.events)} of the "
        "drand round's)",
        "a hash chain is broken",
    )


# events -----------------------------------------------------------------------------------


def check_events(ctx: Context) -> Check:
    problems = [
        Difference(f"{s} version {v}", f"does not decode: {what}")
        for s, v, what in ctx.decoded.problems
    ]
    r = ctx.record
    if not is_match_id(r.match_id):
        problems.append(Difference("match_id", "not a valid match id", r.match_id))
    # The match stream.
    if not ctx.items or not isinstance(ctx.items[0], MatchStarted):
        problems.append(
            Difference(
                match_stream(r.match_id), "the match stream does not start with MatchStarted"
            )
        )
    else:
        started = ctx.items[0]
        assert isinstance(started, MatchStarted)
        if started.match_id not in ("", r.match_id):
            problems.append(
                Difference(
                    where_of(ctx.envs[0]),
                    "MatchStarted of another match",
                    started.match_id,
                    r.match_id,
                )
            )
    if ctx.ruleset is None and ctx.items and isinstance(ctx.items[0], MatchStarted):
        started = ctx.items[0]
        problems.append(
            Difference(where_of(ctx.envs[0]), "unknown ruleset", started.ruleset, sorted(RULESETS))
        )
    ended_at: int | None = None
    for i, (env, e) in enumerate(ctx.decoded.match):
        want = _expected_visibility(e)
        if env.visibility != want:
            problems.append(
                Difference(
                    where_of(env), f"{env.type} has the wrong visibility", env.visibility, want
                )
            )
        if ended_at is not None:
            problems.append(Difference(where_of(env), f"{env.type} after the match's end"))
        if i > 0 and isinstance(e, MatchStarted):
            problems.append(Difference(where_of(env), "a second MatchStarted"))
        if isinstance(e, MatchEnded | TableEnd):
            ended_at = i
    if ended_at is None:
        problems.append(
            Difference(
                match_stream(r.match_id),
                "no event ends the match: the record is of a match in progress",
            )
        )
    # The fair-deal stream.
    fair = ctx.decoded.fairness
    if not fair or not isinstance(fair[0][1], ServerSeedCommitted):
        problems.append(
            Difference(
                randomness_stream(r.match_id),
                "the fair-deal stream does not start with ServerSeedCommitted",
            )
        )
    else:
        commit = fair[0][1]
        if commit.match_id != r.match_id:
            problems.append(
                Difference(
                    where_of(fair[0][0]),
                    "commitment for another match",
                    commit.match_id,
                    r.match_id,
                )
            )
        if ctx.ruleset is not None and len(commit.seats) != ctx.ruleset.players:
            problems.append(
                Difference(
                    where_of(fair[0][0]),
                    "seat count differs from the ruleset's",
                    len(commit.seats),
                    ctx.ruleset.players,
                )
            )
    for env, fe in fair:
        want = visibility(fe)
        if env.visibility != want:
            problems.append(
                Difference(
                    where_of(env), f"{env.type} has the wrong visibility", env.visibility, want
                )
            )
    for cls in (
        ServerSeedCommitted,
        SeedWindowClosed,
        DrandRoundNamed,
        DrandBeaconVerified,
        DrandFallback,
        DrandBeaconLate,
        ServerSeedRevealed,
    ):
        count = len(ctx.all(cls))
        if count > 1:
            problems.append(
                Difference(randomness_stream(r.match_id), f"{cls.TYPE} recorded {count} times")
            )
    return verdict(
        "events",
        problems,
        f"every event decodes and is where and as visible as the rules say "
        f"({ctx.ruleset.name if ctx.ruleset else '?'} ruleset)",
        "the events are not a well-formed match",
    )


def _expected_visibility(e: MatchItem) -> str:
    if isinstance(e, TableEnd):
        return PUBLIC
    if e.VISIBILITY is Visibility.PUBLIC:
        return PUBLIC
    if e.VISIBILITY is Visibility.SEAT:
        return f"seat:{getattr(e, 'seat', '?')}"
    return "secret"


# summary ----------------------------------------------------------------------------------

_CANONICAL: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(value: Any) -> str:
    return _CANONICAL.encode(value)


def check_summary(ctx: Context) -> Check:
    expected = summarize_decoded(ctx.decoded)
    recorded = dict(ctx.record.summary)
    problems: list[Difference] = []
    # Fast path: the same JSON text (which, unlike ==, tells 1 from 1.0 and true).
    try:
        same = _canonical(recorded) == _canonical(expected)
    except (TypeError, ValueError, RecursionError):
        same = False
    if not same:
        diff_json("", recorded, expected, problems)
        if not problems:
            problems.append(Difference("", "the summary's JSON differs from the events'"))
    return verdict(
        "summary",
        problems,
        "the record's summary fields are exactly what its events say",
        "the summary differs from the events",
    )
