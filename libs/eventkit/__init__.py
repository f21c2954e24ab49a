"""The event kit: events declared one way (:mod:`eventkit.declare`) and stored by one
codec (:mod:`eventkit.codec`). Pure: the standard library only."""

from eventkit.codec import (
    BAD_PAYLOAD,
    BAD_SCHEMA,
    UNKNOWN_EVENT,
    Codec,
    Converter,
    EventKitError,
    Upcaster,
)
from eventkit.declare import PUBLIC, SEAT, SECRET, declared, visibility_of

__all__ = [
    "BAD_PAYLOAD",
    "BAD_SCHEMA",
    "PUBLIC",
    "SEAT",
    "SECRET",
    "UNKNOWN_EVENT",
    "Codec",
    "Converter",
    "EventKitError",
    "Upcaster",
    "declared",
    "visibility_of",
]
