"""Which finished matches are rated, and how (issue 9; docs/specification.md §5).

The table service reports every match that ends, however it ends, as a
:class:`MatchSummary`; :func:`eligibility` turns it into a :class:`RatedMatch` or says
why not (:class:`Unrated`). It never raises: a consumer of the event log must be able to
record a verdict for every delivery, malformed ones included.

The rules, in the order they are checked:

1. the table was opened as casual (``rated=False``): unrated;
2. malformed (not 2 or 4 seats numbered 0..n-1, a player in two seats, an empty player
   id, a winner or a leaver that is no side or seat): unrated, with the reason;
3. any bot seat: unrated. Bots carry no rating, and a human partnered with or facing a
   bot would be rated against a strength nobody measured (and could farm the easy bot);
4. a seat left the match: rated, a loss for the leaver's side and a win for the other
   side, whatever the score was when they left (docs/specification.md §5: "leaving a
   match is a loss"). ``leaver`` is the first seat that left: the match ended there;
5. otherwise unfinished (aborted, a server failure, a round's time limit reached with
   the match undecided, a side that never turned up): unrated. The tournament scores
   those as docs/specification.md §5 says (both sides lose, or the absent side alone);
   the rating does not, since no result was played out, and a no-show win handed out as rating
   would be a gift anyone could arrange;
6. finished: rated, a win for ``winner`` (0 or 1) or, with no winner, a draw
   (docs/specification.md §5: "no winner = draw").

Sides: one-against-one, seat 0 against seat 1; two-against-two, partners sit opposite
(docs/specification.md §2), so side 0 is seats 0 and 2 and side 1 is seats 1 and 3:
side = seat mod 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    player: str | None  # None for a bot


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """A match as the table service reports it when it ends. ``finished_at_ms`` is the time
    the match ended (unix milliseconds, from the table service's clock: this package reads
    none)."""

    match_id: str
    ruleset: str  # the rating pool
    seats: tuple[Seat, ...]  # in seat order
    winner: int | None  # winning side 0 or 1; None: no winner (a draw, if finished)
    finished: bool  # played to its end
    leaver: int | None  # the first seat that left the match, if any
    finished_at_ms: int
    rated: bool = True  # the table was opened as rated


class Reason(StrEnum):
    CASUAL = "casual"
    MALFORMED = "malformed"
    BOT_SEAT = "bot-seat"
    UNFINISHED = "unfinished"
    SIDE_SIZE = "side-size"  # not the pool's side size (decided where the pool is known)


@dataclass(frozen=True, slots=True)
class Unrated:
    reason: Reason
    detail: str = ""


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """A match to rate: two sides of player ids; ``winner`` 0 or 1, None for a draw;
    ``left_by`` the player whose leaving decided it."""

    match_id: str
    pool: str
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    winner: int | None
    left_by: str | None
    at_ms: int


def side_of(seat: int) -> int:
    """Side of a seat: partners sit opposite, so seats 0 and 2 against 1 and 3."""
    return seat % 2


def eligibility(summary: MatchSummary) -> RatedMatch | Unrated:
    """Decide whether and how a match is rated (the module docstring lists the rules)."""
    if not summary.rated:
        return Unrated(Reason.CASUAL)
    problem = _malformed(summary)
    if problem:
        return Unrated(Reason.MALFORMED, problem)
    if any(s.player is None for s in summary.seats):
        return Unrated(Reason.BOT_SEAT)
    players = [s.player or "" for s in summary.seats]
    sides = (tuple(players[0::2]), tuple(players[1::2]))
    if summary.leaver is not None:
        winner: int | None = 1 - side_of(summary.leaver)
        left_by: str | None = players[summary.leaver]
    elif not summary.finished:
        return Unrated(Reason.UNFINISHED)
    else:
        winner, left_by = summary.winner, None
    return RatedMatch(
        summary.match_id, summary.ruleset, sides, winner, left_by, summary.finished_at_ms
    )


def _malformed(summary: MatchSummary) -> str:
    n = len(summary.seats)
    if n not in (2, 4):
        return f"{n} seats: rated matches are one-against-one or two-against-two"
    if [s.seat for s in summary.seats] != list(range(n)):
        return "seats are not numbered 0..n-1 in order"
    humans = [s.player for s in summary.seats if s.player is not None]
    if any(not p for p in humans):
        return "empty player id"
    if len(set(humans)) != len(humans):
        return "a player sits in two seats"
    if summary.winner not in (None, 0, 1):
        return f"winner {summary.winner} is not a side"
    if summary.leaver is not None and not 0 <= summary.leaver < n:
        return f"leaver {summary.leaver} is not a seat"
    if not summary.match_id or not summary.ruleset:
        return "empty match id or ruleset"
    return ""
