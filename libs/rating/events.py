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

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Final


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

EVENT_TYPES: Final[dict[str, type[MatchRated] | type[MatchNotRated]]] = {
    MatchRated.TYPE: MatchRated,
    MatchNotRated.TYPE: MatchNotRated,
}


def to_payload(event: RatingEvent) -> dict[str, Any]:
    """The event as JSON data without floats: the log refuses them, since libraries print
    floats differently and its hash chain needs exact bytes. mu and sigma are written as
    the shortest decimal text that reads back to the same float (Python's repr), so
    a replay rebuilds exactly the state the live service had."""
    out: dict[str, Any] = {"schema": event.SCHEMA}
    for f in fields(event):
        value = getattr(event, f.name)
        if f.name == "changes":
            value = [{g.name: _encode(getattr(c, g.name)) for g in fields(c)} for c in value]
        elif f.name == "sides":
            value = [list(side) for side in value]
        out[f.name] = value
    return out


def _encode(value: object) -> object:
    return repr(value) if isinstance(value, float) else value


def _change(data: dict[str, Any]) -> PlayerChange:
    for name in _FLOAT_FIELDS:
        text = data[name]
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a decimal string")
        data = {**data, name: float(text)}
    return PlayerChange(**data)


_FLOAT_FIELDS: Final = ("mu_before", "sigma_before", "mu_after", "sigma_after")


def from_payload(event_type: str, payload: dict[str, Any]) -> RatingEvent:
    """Rebuild an event; raises RatingEventError on an unknown type or schema, or a
    payload that does not fit."""
    cls = EVENT_TYPES.get(event_type)
    if cls is None:
        raise RatingEventError(f"unknown rating event type {event_type!r}")
    data = dict(payload)
    schema = data.pop("schema", None)
    if schema != cls.SCHEMA:
        raise RatingEventError(f"{event_type}: schema {schema!r}, expected {cls.SCHEMA}")
    try:
        if cls is MatchRated:
            a, b = data["sides"]
            data["sides"] = (tuple(a), tuple(b))
            data["changes"] = tuple(_change(c) for c in data["changes"])
        return cls(**data)
    except (KeyError, TypeError, ValueError) as exc:
        raise RatingEventError(f"{event_type}: malformed payload ({exc})") from exc
