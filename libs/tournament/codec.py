"""Events to JSON-able payloads and back: the one place the stored shape is declared.

A payload is ``{"schema": n, ...}`` and the event's fields as the event kit's one codec
writes them (:mod:`eventkit.codec`: nested values as objects, tuples as lists, enums as
their text, bytes as lower-case hex: a draw's drand signature and value). Stored type
names are never reused; when an event's shape changes, its SCHEMA goes up and an
upcaster registered in ``UPCASTERS`` turns the old payload into the new one on read.
"""

from __future__ import annotations

from typing import Any, Final

from eventkit import UNKNOWN_EVENT, Codec
from tournament.errors import BadPayload, TournamentError, UnknownEvent
from tournament.events import EVENT_CLASSES, TournamentEvent


def _refused(code: str, message: str) -> TournamentError:
    if code == UNKNOWN_EVENT:
        return UnknownEvent(f"unknown tournament event type: {message}")
    return BadPayload(message)


CODEC: Final = Codec(EVENT_CLASSES, converters={bytes: (bytes.hex, bytes.fromhex)}, error=_refused)
EVENT_TYPES: Final[dict[str, type[TournamentEvent]]] = CODEC.types
#: (type name, old schema) -> a function making the payload of schema + 1. None yet.
UPCASTERS: Final = CODEC.upcasters


def event_type(event: TournamentEvent) -> str:
    return event.TYPE


def to_payload(event: TournamentEvent) -> dict[str, Any]:
    """The event as a JSON-able dict (with its schema number)."""
    return CODEC.to_payload(event)


def from_payload(type_name: str, payload: dict[str, Any]) -> TournamentEvent:
    """Rebuild an event. Raises UnknownEvent for a type never stored, BadPayload for a
    payload that does not fit it."""
    event: TournamentEvent = CODEC.from_payload(payload, type_name)
    return event
