"""The event envelope's hash chain: the one place its bytes are defined. Pure: the
standard library only, so that the verifier (:mod:`fairdeal`), which must stay pure, and
the store (:mod:`eventlog`) compute them with the same code.

An event is stored once and never changed. Each stream carries a hash chain:

    hash(v) = SHA-256(hash(v - 1) || canonical_bytes(event v)),   hash(0) = 32 zero bytes

``canonical_bytes`` is the JSON document

    {"metadata": M, "payload": P, "recorded_at": T, "stream": S, "type": Y,
     "version": V, "visibility": W}

serialised with keys sorted by code point at every depth, no whitespace, strings as UTF-8
with only the escapes JSON requires, integers in decimal. Floats are refused in payloads
and metadata (:func:`eventlog.envelope.encode_json`) so that any JSON library can
reproduce the bytes: ``json.dumps(doc, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` (what this module does) and ``orjson.dumps(doc,
option=orjson.OPT_SORT_KEYS)`` give the same bytes (a property test checks it). ``T`` is
the recorded time in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (always six fractional
digits). The global position is not hashed: it orders streams against each other, the
chain orders one stream.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

HASH_SIZE: Final = 32
GENESIS_HASH: Final = bytes(HASH_SIZE)
"""The ``prev_hash`` of a stream's first event (version 1): 32 zero bytes."""

# One encoder for every event: json.dumps would build one per call.
_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_TIME: Final = "%Y-%m-%dT%H:%M:%S.%fZ"


#: The last time formatted and its text: the events of one append share their time (a
#: bot's run of a deal: sixty events), and strftime was a tenth of the relay's CPU.
_last_formatted: tuple[datetime, str] | None = None


def format_time(t: datetime) -> str:
    """``t`` in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; raises ValueError for a naive time."""
    global _last_formatted
    if t.tzinfo is None:
        raise ValueError("recorded times must be timezone-aware")
    last = _last_formatted
    # Aware times compare as instants: equal ones have the one text.
    if last is not None and last[0] == t:
        return last[1]
    text = t.astimezone(UTC).strftime(_TIME)
    _last_formatted = (t, text)
    return text


def parse_time(text: str) -> datetime:
    """Inverse of :func:`format_time`."""
    return datetime.strptime(text, _TIME).replace(tzinfo=UTC)


def canonical_bytes(
    stream: str,
    version: int,
    type_: str,
    payload: Any,
    metadata: Any,
    visibility: str,
    recorded_at: datetime | str,
) -> bytes:
    """The bytes one event contributes to its stream's chain (see the module doc).

    Raises ValueError (or TypeError) for values JSON cannot represent the log's way
    (a lone surrogate in a string, a non-string key), RecursionError for absurd nesting.
    """
    when = recorded_at if isinstance(recorded_at, str) else format_time(recorded_at)
    doc = {
        "metadata": metadata,
        "payload": payload,
        "recorded_at": when,
        "stream": stream,
        "type": type_,
        "version": version,
        "visibility": visibility,
    }
    return _ENCODER.encode(doc).encode("utf-8")


def canonical_bytes_encoded(
    stream: str,
    version: int,
    type_: str,
    payload_json: str,
    metadata_json: str,
    visibility: str,
    recorded_at: str,
) -> bytes:
    """:func:`canonical_bytes` of an event whose payload and metadata are already
    canonical JSON (:func:`eventlog.envelope.encode_json`'s output, spliced in unchanged:
    the same bytes), whose time is :func:`format_time`'s, and whose stream id, type and
    visibility are valid (:func:`eventlog.envelope.check_stream_id`,
    :func:`eventlog.envelope.check_event`). The store's writer uses it: the payload is
    not encoded twice.

    Written out rather than encoded: the keys in their sorted order, and the three
    names spliced in as they are, since what makes them valid (letters, digits and
    ``_ - : .``) needs no escaping in JSON. A property test holds it to
    :func:`canonical_bytes`."""
    return (
        f'{{"metadata":{metadata_json},"payload":{payload_json},"recorded_at":"{recorded_at}",'
        f'"stream":"{stream}","type":"{type_}","version":{version},'
        f'"visibility":"{visibility}"}}'
    ).encode()


def chain_hash(prev_hash: bytes, canonical: bytes) -> bytes:
    """``SHA-256(prev_hash || canonical)``."""
    return hashlib.sha256(prev_hash + canonical).digest()


#: An event's JSON (the log's reads, the relay's messages, a match record's lines): these
#: keys, in this order.
ENVELOPE_KEYS: Final = (
    "position",
    "stream",
    "version",
    "type",
    "payload",
    "metadata",
    "visibility",
    "recorded_at",
    "hash",
)


class EnvelopeError(ValueError):
    """A JSON document that is not an event's envelope (a part missing or of the wrong
    JSON type)."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """One stored event as JSON: the one pair of functions that writes it
    (:meth:`to_json`) and reads it (:meth:`from_json`), for the store
    (``eventlog.RecordedEvent``), the relay and the gateway, and the match record."""

    position: int
    stream: str
    version: int
    type: str
    payload: Any
    metadata: dict[str, Any]
    visibility: str
    #: :func:`format_time`'s text.
    recorded_at: str
    #: The stream's hash chain at this event, in hex; None where it is not served (a
    #: relay's message, a match that has not ended: docs/threat-model.md).
    hash: str | None

    @classmethod
    def from_json(cls, doc: Any, where: str = "the event") -> Envelope:
        """Raises :class:`EnvelopeError` when a part is missing or of the wrong JSON
        type; ``where`` names the document in the message."""
        if not isinstance(doc, dict):
            raise EnvelopeError(f"{where} is not a JSON object")
        missing = [k for k in ENVELOPE_KEYS if k not in doc]
        if missing:
            raise EnvelopeError(f"{where} lacks {', '.join(missing)}")
        for name in ("position", "version"):
            if type(doc[name]) is not int:
                raise EnvelopeError(f"{where}.{name} is not a whole number")
        for name in ("stream", "type", "visibility", "recorded_at"):
            if not isinstance(doc[name], str):
                raise EnvelopeError(f"{where}.{name} is not a string")
        if doc["hash"] is not None and not isinstance(doc["hash"], str):
            raise EnvelopeError(f"{where}.hash is not a string or null")
        if not isinstance(doc["metadata"], dict):
            raise EnvelopeError(f"{where}.metadata is not a JSON object")
        return cls(*(doc[k] for k in ENVELOPE_KEYS))

    def to_json(self) -> dict[str, Any]:
        # Written out (the relay makes one a message): ENVELOPE_KEYS, in their order.
        return {
            "position": self.position, "stream": self.stream, "version": self.version,
            "type": self.type, "payload": self.payload, "metadata": self.metadata,
            "visibility": self.visibility, "recorded_at": self.recorded_at, "hash": self.hash,
        }  # fmt: skip

    def canonical_bytes(self) -> bytes:
        return canonical_bytes(
            self.stream,
            self.version,
            self.type,
            self.payload,
            self.metadata,
            self.visibility,
            self.recorded_at,
        )
