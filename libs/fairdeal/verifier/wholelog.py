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
``seed_receipts``      every receipt a seat published for its seed, signed with the
                       match's receipt key, is honoured by the record: the seed recorded
                       where it says, and dealt from (:func:`receipts_check`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from fairdeal.fairness import DrandRoundBeacon
from fairdeal.receipts import receipt_from_json, verify_receipt
from fairdeal.verifier.report import (
    FAIL,
    MAX_DIFFERENCES,
    Check,
    Difference,
    pass_check,
    skip_check,
)

#: The names of the checks the verify API adds to a report.
PLATFORM_CHECKS: Final = ("commitment_unique", "round_consistency", "seed_receipts")


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


def _sha256_of_hex(text: str) -> bytes | None:
    try:
        return hashlib.sha256(bytes.fromhex(text)).digest()
    except ValueError:
        return None


def _randomness_events(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    streams = record.get("streams")
    stream = streams.get("randomness") if isinstance(streams, Mapping) else None
    events = stream.get("events") if isinstance(stream, Mapping) else None
    return [e for e in events if isinstance(e, Mapping)] if isinstance(events, list) else []


def receipt_key_of(record: Mapping[str, Any]) -> bytes | None:
    """The match's receipt key as its commitment records it (None: none recorded)."""
    commit = next(
        (e for e in _randomness_events(record) if e.get("type") == "ServerSeedCommitted"), None
    )
    payload = (commit or {}).get("payload")
    text = payload.get("receipt_key") if isinstance(payload, Mapping) else None
    try:
        key = bytes.fromhex(text) if isinstance(text, str) else b""
    except ValueError:
        key = b""
    return key or None


def receipts_check(record: Mapping[str, Any], receipts: Sequence[Any]) -> Check:
    """``receipts``: what the seats published of their receipts for their seeds (the
    verify API's ``GET /v1/matches/{id}/receipts``, or given by hand). A receipt signed
    with the match's receipt key, which the commitment recorded before any seed
    (:mod:`fairdeal.receipts`), is the server's word that it recorded that seat's seed at
    that place: a record without that event there, with another seed in it, or whose
    window closed showing another seed (or none) for the seat is the server's doing, a
    seed it acknowledged and then dropped or replaced. A receipt not signed with this
    match's key proves nothing and is set aside (said). No receipt: nothing to hold the
    record to, a pass saying so."""
    name = "seed_receipts"
    match_id = record.get("match_id")
    events = _randomness_events(record)
    if not receipts:
        return pass_check(name, "no seat published a receipt for its seed")
    key = receipt_key_of(record)
    if key is None:
        return skip_check(
            name,
            f"{len(receipts)} receipt(s) published, but the commitment records no receipt key "
            "(a match from before signed receipts): they cannot be checked",
        )
    by_version = {e.get("version"): e for e in events}
    closed = next((e for e in events if e.get("type") == "SeedWindowClosed"), None)
    shown = (closed or {}).get("payload", {}).get("seat_seeds") if closed else None
    problems: list[Difference] = []
    said: list[str] = []
    honoured = ignored = 0
    for doc in receipts:
        try:
            r = receipt_from_json(doc)
        except ValueError:
            ignored += 1
            continue
        if r.match_id != match_id or not verify_receipt(key, r):
            ignored += 1
            continue
        where = f"seat {r.seat}'s seed, acknowledged at {r.stream} version {r.version}"
        e = by_version.get(r.version)
        payload = (e or {}).get("payload") or {}
        seed_hex: str = payload["seed"] if isinstance(payload.get("seed"), str) else ""
        recorded = (
            e is not None
            and e.get("stream") == r.stream
            and e.get("type") == "SeatSeedReceived"
            and payload.get("seat") == r.seat
            and _sha256_of_hex(seed_hex) == r.seed_sha256
        )
        if not recorded:
            said.append(f"{where}: the record holds no such event there")
            problems.append(Difference(where, "the event the signed receipt names", None))
            continue
        if isinstance(shown, list) and (r.seat >= len(shown) or shown[r.seat] != seed_hex):
            got = shown[r.seat] if r.seat < len(shown) else None
            said.append(f"{where}: the window closed showing {got or 'no seed'} for the seat")
            problems.append(Difference(where, "the seed the window closed with", got, seed_hex))
            continue
        honoured += 1
    aside = f"; {ignored} not signed with this match's receipt key, set aside" if ignored else ""
    if problems:
        return Check(
            name,
            FAIL,
            "the server signed a receipt for a seed it then dropped or replaced: "
            + "; ".join(said[:MAX_DIFFERENCES])
            + aside,
            tuple(problems[:MAX_DIFFERENCES]),
        )
    if not honoured:
        return skip_check(name, f"no published receipt is this match's{aside}")
    return pass_check(
        name,
        f"{honoured} receipt(s) the seats published, signed with the match's receipt key, "
        f"are honoured: each seed recorded where its receipt says, and dealt from{aside}",
    )
