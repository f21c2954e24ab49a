"""The rating service's domain glue: what it reads from the log, which stream it writes,
and the small pieces between the log's JSON and the pure core (``libs/rating``).

The contract with the table service: when a match ends, however it ends, the table
appends ``TableMatchFinished`` (public) to its stream ``table-<table id>``, the payload
being the fields of :class:`rating.MatchSummary`::

    {"match_id": str, "ruleset": str, "seats": [{"seat": int, "player": str | null}],
     "winner": 0 | 1 | null, "finished": bool, "leaver": int | null,
     "finished_at_ms": int, "rated": bool}

:func:`summary_from_payload` never raises: a payload that does not fit becomes a
:class:`Malformed` record, which :func:`decide_delivery` turns into a recorded
``MatchNotRated`` (reason ``malformed``), so every delivery gets a verdict in the log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from belot.ruleset import RULESETS
from belot_platform import fields
from eventkit import streams
from eventlog.envelope import NewEvent, RecordedEvent
from rating import (
    MatchNotRated,
    MatchRated,
    MatchSummary,
    PlayerRating,
    Pool,
    RatingEvent,
    RatingSettings,
    RatingState,
    Reason,
    Seat,
    decide,
    to_payload,
)

#: The event the table service appends when a match ends (its stream: ``table-<id>``).
TABLE_MATCH_FINISHED: Final = "TableMatchFinished"

#: The rating pools: the game's rulesets (docs/specification.md §2), with the players on a side
#: (partners sit opposite at the tables of four; gambler is one against one). A match
#: reported under any other ruleset is malformed.
POOL_SIDE_SIZES: Final[Mapping[str, int]] = {
    name: ruleset.players // 2 for name, ruleset in RULESETS.items()
}
POOLS: Final = tuple(POOL_SIDE_SIZES)

#: The service's streams are ``rating-<pool>``; a verdict on a match whose ruleset is no
#: pool (so it has no pool stream) goes to this one. "malformed" can never be a pool.
STREAM_PREFIX: Final = streams.RATING
MALFORMED_STREAM: Final = "rating-malformed"

#: Ids (match, player) are at most this long: they travel in URLs and stream metadata.
MAX_ID_LENGTH: Final = fields.MAX_ID

#: Metric label of a delivery that changed nothing (its match id was decided before).
DUPLICATE: Final = "duplicate"
RATED: Final = "rated"


@dataclass(frozen=True, slots=True)
class Malformed:
    """A ``TableMatchFinished`` payload that does not fit the contract. ``match_id`` is the
    payload's when it has a usable one, else the delivering event's ``<stream>@<version>``
    (so a redelivery of that same event is still recognised)."""

    match_id: str
    pool: str  # the payload's ruleset if it is text, else ""
    detail: str
    at_ms: int


Delivery = MatchSummary | Malformed


def stream_of(pool: str) -> str:
    """The stream a verdict on a match of ``pool`` is appended to."""
    return f"{STREAM_PREFIX}{pool}" if pool in POOL_SIDE_SIZES else MALFORMED_STREAM


def command_id(match_id: str) -> str:
    """The append's command id: the log refuses to record a match's verdict twice."""
    return f"rate:{match_id}"


def is_id(value: object) -> TypeGuard[str]:
    """A player or match id: 1 to MAX_ID_LENGTH characters PostgreSQL can hold."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= MAX_ID_LENGTH
        and fields.problem_of(value) is None
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def summary_from_payload(payload: object, *, source: str) -> Delivery:
    """Decode a ``TableMatchFinished`` payload; never raises. ``source`` names the
    delivering event (``<stream>@<version>``), the fallback id of a match without one.
    Only the shapes are checked here; what makes a match unratable (seat numbering, a
    player twice, a winner that is no side, ...) is the core's ``eligibility``."""
    if not isinstance(payload, dict):
        return Malformed(source, "", "the payload is not a JSON object", 0)
    at = payload.get("finished_at_ms")
    at_ms = at if _is_int(at) and at >= 0 else 0
    valid_at = _is_int(at) and at >= 0
    match_id = payload.get("match_id")
    ruleset = payload.get("ruleset")
    pool = ruleset[:MAX_ID_LENGTH] if isinstance(ruleset, str) else ""

    def bad(detail: str) -> Malformed:
        return Malformed(match_id if is_id(match_id) else source, pool, detail, at_ms)

    if not is_id(match_id):
        return bad(f"match_id must be a string of 1 to {MAX_ID_LENGTH} characters")
    if pool not in POOL_SIDE_SIZES:
        return bad(f"ruleset {ruleset!r} is no rating pool (one of {', '.join(POOLS)})")
    if not valid_at:
        return bad("finished_at_ms must be a whole number of milliseconds, not negative")
    for name in ("finished", "rated"):
        if not isinstance(payload.get(name), bool):
            return bad(f"{name} must be true or false")
    for name in ("winner", "leaver"):
        value = payload.get(name, "missing")
        if value is not None and not _is_int(value):
            return bad(f"{name} must be a whole number or null")
    seats = payload.get("seats")
    if not isinstance(seats, list):
        return bad("seats must be a list")
    decoded: list[Seat] = []
    for s in seats:
        if not isinstance(s, dict) or not _is_int(s.get("seat")):
            return bad("each seat must be an object with a whole number 'seat'")
        player = s.get("player", 0)  # a missing player is not a bot: 0 is refused below
        if player is not None and not isinstance(player, str):
            return bad("a seat's player must be a string, or null for a bot")
        if player is not None and len(player) > MAX_ID_LENGTH:
            return bad(f"a player id is longer than {MAX_ID_LENGTH} characters")
        decoded.append(Seat(s["seat"], player))
    return MatchSummary(
        match_id=match_id,
        ruleset=pool,
        seats=tuple(decoded),
        winner=payload["winner"],
        finished=payload["finished"],
        leaver=payload["leaver"],
        finished_at_ms=at_ms,
        rated=payload["rated"],
    )


def summary_to_payload(summary: MatchSummary) -> dict[str, Any]:
    """The contract's payload for ``summary`` (what the table service appends; tests and
    the bench use it to stand in for the table service)."""
    return {
        "match_id": summary.match_id,
        "ruleset": summary.ruleset,
        "seats": [{"seat": s.seat, "player": s.player} for s in summary.seats],
        "winner": summary.winner,
        "finished": summary.finished,
        "leaver": summary.leaver,
        "finished_at_ms": summary.finished_at_ms,
        "rated": summary.rated,
    }


def players_of(delivery: Delivery) -> tuple[str, ...]:
    """The human players a delivery names (the rows ``decide`` needs to read)."""
    if isinstance(delivery, Malformed):
        return ()
    return tuple(s.player for s in delivery.seats if s.player is not None)


def partial_state(
    settings: RatingSettings,
    pool: str,
    players: Mapping[str, PlayerRating],
    *,
    seen: bool,
    match_id: str,
) -> RatingState:
    """Just what ``decide`` reads for one match (ledger.py says so): the seated players'
    records, the pool's side size and whether the match id was seen."""
    pools: dict[str, Pool] = {}
    if pool in POOL_SIDE_SIZES:
        pools[pool] = Pool(pool, POOL_SIDE_SIZES[pool], dict(players), {})
    return RatingState(settings, pools, frozenset({match_id}) if seen else frozenset())


def decide_delivery(state: RatingState, delivery: Delivery) -> tuple[RatingEvent, ...]:
    """The events for one delivery: none if its match id was decided before, else one
    ``MatchRated`` or ``MatchNotRated`` (a malformed payload included)."""
    if delivery.match_id in state.seen:
        return ()
    if isinstance(delivery, Malformed):
        return (
            MatchNotRated(
                delivery.match_id,
                delivery.pool,
                Reason.MALFORMED.value,
                delivery.detail,
                delivery.at_ms,
            ),
        )
    return decide(state, delivery)


def verdict_of(event: RatingEvent) -> str:
    """``rated``, or the reason a match was not rated (a metric label)."""
    return RATED if isinstance(event, MatchRated) else event.reason


def to_new_event(event: RatingEvent, source: RecordedEvent) -> NewEvent:
    """The event to append, with the delivery that caused it in its metadata (a rebuild
    reads ``source_position`` back to know how far the log was consumed)."""
    return NewEvent(
        type(event).TYPE,
        to_payload(event),
        metadata={
            "causation_id": f"{source.stream_id}@{source.version}",
            "source_position": source.position,
        },
    )
