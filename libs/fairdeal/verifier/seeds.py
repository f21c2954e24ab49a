"""The seeds: the server's committed before any seat sent one, each seat's as it sent it,
and the server's revealed only after the match's end.

The server's seed alone would let the server choose the decks; the seats' seeds alone,
a seat. So the server commits first (SHA-256 of its 32-byte seed, published before any
seat sent a seed), each human seat then sends 16 bytes of its own while the seed window
is open, and the server reveals its seed once the match is over. Each step is checked
against the one before it:

``commitment``  SHA-256 of the revealed server seed is the commitment published first,
                and the seed is 32 bytes: the server could not have picked its seed
                after seeing the seats'.
``seat_seeds``  each seat's seed as shown when the window closed is the one that seat
                sent (``SeatSeedReceived``), 16 bytes, sent before the window's end and
                recorded before it closed; a bot seat sends none and shows none; the
                seats that sent nothing are listed as missing; the window closed when
                the last seed was in, or at its end if one was missing (closing early
                would drop a seed the server did not like).
``reveal``      the seed was revealed after the match's ending event, in time and in
                the log's order, and no deck was issued after it: a seed revealed
                before the end gives away every card still to come. (That it was
                revealed once is ``events``'.)
"""

from __future__ import annotations

import hashlib
from typing import Final

from belot.events import MatchEnded
from fairdeal.fairness import (
    DeckIssued,
    SeatSeedReceived,
    SeedWindowClosed,
    ServerSeedCommitted,
    ServerSeedRevealed,
)
from fairdeal.recipe import SEAT_SEED_SIZE, SERVER_SEED_SIZE
from fairdeal.record import TableEnd
from fairdeal.verifier.context import Context, where_of
from fairdeal.verifier.report import FAIL, Check, Difference, pass_check, verdict

# commitment -------------------------------------------------------------------------------


def check_commitment(ctx: Context) -> Check:
    commit = ctx.one(ServerSeedCommitted)
    if commit is None:
        return Check("commitment", FAIL, "no commitment was recorded")
    seed = ctx.server_seed()
    if seed is None:
        return Check("commitment", FAIL, "the server seed was not revealed")
    got = hashlib.sha256(seed).digest()
    if len(seed) != SERVER_SEED_SIZE:
        return Check(
            "commitment",
            FAIL,
            f"the revealed seed is {len(seed)} bytes, not 32",
            (Difference("ServerSeedRevealed.server_seed", "wrong length", len(seed), 32),),
        )
    if got != commit.commitment:
        return Check(
            "commitment",
            FAIL,
            "SHA-256 of the revealed server seed is not the commitment",
            (
                Difference(
                    "ServerSeedCommitted.commitment",
                    "SHA-256(revealed seed) differs",
                    commit.commitment.hex(),
                    got.hex(),
                ),
            ),
        )
    return pass_check(
        "commitment",
        f"SHA-256 of the revealed server seed is the commitment {commit.commitment.hex()} "
        "made before any seat sent a seed",
    )


# seat seeds -------------------------------------------------------------------------------


def check_seat_seeds(ctx: Context) -> Check:
    commit = ctx.one(ServerSeedCommitted)
    closed = ctx.one(SeedWindowClosed)
    if commit is None or closed is None:
        return Check("seat_seeds", FAIL, "the seed window's opening or closing is missing")
    problems: list[Difference] = []
    seats = commit.seats
    if len(closed.seat_seeds) != len(seats):
        problems.append(
            Difference(
                "SeedWindowClosed.seat_seeds",
                "one seed per seat",
                len(closed.seat_seeds),
                len(seats),
            )
        )
    received: dict[int, SeatSeedReceived] = {}
    closed_seen = False
    for e in ctx.fair:
        if isinstance(e, SeedWindowClosed):
            closed_seen = True
        if not isinstance(e, SeatSeedReceived):
            continue
        where = f"SeatSeedReceived seat {e.seat}"
        if closed_seen:
            problems.append(Difference(where, "recorded after the window closed"))
        if not 0 <= e.seat < len(seats) or not seats[e.seat].is_human:
            problems.append(Difference(where, "not a human seat: a bot sends no seed"))
            continue
        if e.seat in received:
            problems.append(Difference(where, "a second seed from the same seat"))
        if len(e.seed) != SEAT_SEED_SIZE:
            problems.append(Difference(where, "a seat seed is 16 bytes", len(e.seed), 16))
        if e.at_ms >= commit.window_closes_at_ms:
            problems.append(
                Difference(
                    where,
                    "sent after the window's end",
                    e.at_ms,
                    f"< {commit.window_closes_at_ms}",
                )
            )
        received[e.seat] = e
    for spec, shown in zip(seats, closed.seat_seeds, strict=False):
        where = f"SeedWindowClosed.seat_seeds[{spec.seat}]"
        sent = received.get(spec.seat)
        want = sent.seed if sent is not None else b""
        if shown != want:
            what = (
                "differs from the seed the seat sent"
                if sent is not None
                else "the seat sent no seed: it must be empty"
            )
            problems.append(Difference(where, what, shown.hex(), want.hex()))
    missing = tuple(s.seat for s in seats if s.is_human and s.seat not in received)
    if tuple(closed.missing) != missing:
        problems.append(
            Difference(
                "SeedWindowClosed.missing",
                "human seats that sent no seed",
                list(closed.missing),
                list(missing),
            )
        )
    last_seed = max((e.at_ms for e in received.values()), default=commit.at_ms)
    if closed.at_ms < last_seed:
        problems.append(
            Difference(
                "SeedWindowClosed.at_ms",
                "closed before the last seed came in",
                closed.at_ms,
                f">= {last_seed}",
            )
        )
    if missing and closed.at_ms < commit.window_closes_at_ms:
        problems.append(
            Difference(
                "SeedWindowClosed.at_ms",
                "closed early while seeds were missing",
                closed.at_ms,
                f">= {commit.window_closes_at_ms}",
            )
        )
    humans = sum(1 for s in seats if s.is_human)
    return verdict(
        "seat_seeds",
        problems,
        f"{len(received)} of {humans} human seats sent a seed, each shown as sent; "
        f"{len(seats) - humans} bot seats sent none",
        "the seat seeds do not match what the seats sent",
    )


# reveal -----------------------------------------------------------------------------------


def check_reveal(ctx: Context) -> Check:
    revealed = [(env, e) for env, e in ctx.decoded.fairness if isinstance(e, ServerSeedRevealed)]
    if not revealed:
        return Check("reveal", FAIL, "the server seed was never revealed")
    ends = [(env, e) for env, e in ctx.decoded.match if isinstance(e, MatchEnded | TableEnd)]
    if not ends:
        return Check("reveal", FAIL, "the seed was revealed but no event ends the match")
    problems: list[Difference] = []
    env, _ = revealed[0]
    end_env = ends[-1][0]
    for t, what in ((env.recorded_at, "reveal"), (end_env.recorded_at, "match end")):
        if not _is_recorded_time(t):
            problems.append(Difference(f"{what} recorded_at", "not YYYY-MM-DDTHH:MM:SS.ffffffZ", t))
    if not problems and env.recorded_at < end_env.recorded_at:
        problems.append(
            Difference(
                where_of(env),
                "revealed before the match ended",
                env.recorded_at,
                f">= {end_env.recorded_at}",
            )
        )
    if not problems and env.position < end_env.position:
        problems.append(
            Difference(
                where_of(env),
                "written to the log before the match's end",
                env.position,
                f"> {end_env.position}",
            )
        )
    after = False
    for e in ctx.fair:
        if isinstance(e, ServerSeedRevealed):
            after = True
        elif after and isinstance(e, DeckIssued):
            problems.append(Difference(f"DeckIssued deal {e.deal}", "a deck after the reveal"))
    return verdict(
        "reveal",
        problems,
        f"the server seed was revealed at {env.recorded_at}, after the match's "
        f"{end_env.type} at {end_env.recorded_at}",
        "the reveal is out of place",
    )


_TIME_DIGITS: Final = frozenset("0123456789")


def _is_recorded_time(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ``: fixed width, so such times compare as text."""
    shape = "dddd-dd-ddTdd:dd:dd.ddddddZ"
    return len(text) == len(shape) and all(
        (c in _TIME_DIGITS) if s == "d" else c == s for c, s in zip(text, shape, strict=True)
    )
