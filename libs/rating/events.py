"""The rating service's own events (stream ``rating-<pool>``), and their JSON codec.

``MatchRated`` records everything a replay needs, the values before (after inactivity
growth, i.e. what went into the model) and after, so folding the events never calls the
model: replay gives the same table whatever library version is installed later.
``MatchNotRated`` records a match that was delivered and judged unrated, so a second
delivery of it is recognised as well. Inactivity is not an event: it is a pure function
of the time since a player's last rated match, applied when a match is rated and when a
table is read (settings.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final

from eventkit import Codec


class RatingEventError(ValueError):
    """A stored event could not be decoded: unknown type or schema, or a malformed payload."""


@dataclass(frozen=True, slots=True)
class PlayerChange:
    """One player's rating across one match. ``rating_*``: the display rating (integer,
    as shown); ``sigma_before`` includes the growth from inactivity up to the match."""

    player: str
    side: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_before: int
    rating_after: int


@dataclass(frozen=True, slots=True)
class MatchRated:
    TYPE: ClassVar[str] = "MatchRated"
    SCHEMA: ClassVar[int] = 1
    match_id: str
    pool: str
    model: str  # the OpenSkill model that computed it
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    winner: int | None  # side 0 or 1; None: a draw
    left_by: str | None  # the player whose leaving decided the match
    changes: tuple[PlayerChange, ...]  # side 0's players, then side 1's, in seat order
    at_ms: int  # when the match ended (unix milliseconds)


@dataclass(frozen=True, slots=True)
class MatchNotRated:
    TYPE: ClassVar[str] = "MatchNotRated"
    SCHEMA: ClassVar[int] = 1
    match_id: str
    pool: str
    reason: str  # eligibility.Reason
    detail: str
    at_ms: int


RatingEvent = MatchRated | MatchNotRated


def _float_text(text: Any) -> float:
    if not isinstance(text, str):
        raise TypeError(f"{text!r} is not a decimal string")
    return float(text)


def _refused(code: str, message: str) -> RatingEventError:
    return RatingEventError(message)


#: The events as JSON data without floats: the log refuses them, since libraries print
#: floats differently and its hash chain needs exact bytes. mu and sigma are written as
#: the shortest decimal text that reads back to the same float (Python's repr), so a
#: replay rebuilds exactly the state the live service had. Everything else is the event
#: kit's one codec (:mod:`eventkit.codec`).
CODEC: Final = Codec(
    (MatchRated, MatchNotRated), converters={float: (repr, _float_text)}, error=_refused
)
EVENT_TYPES: Final[dict[str, type[MatchRated] | type[MatchNotRated]]] = CODEC.types


def to_payload(event: RatingEvent) -> dict[str, Any]:
    """The event as JSON data (:data:`CODEC`)."""
    return CODEC.to_payload(event)


def from_payload(event_type: str, payload: dict[str, Any]) -> RatingEvent:
    """Rebuild an event; raises RatingEventError on an unknown type or schema, or a
    payload that does not fit."""
    event: RatingEvent = CODEC.from_payload(payload, event_type)
    return event
