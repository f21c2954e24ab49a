"""The event envelope and its hash chain: values and pure functions, no I/O.

An event is stored once and never changed. Each stream carries a hash chain:

    hash(v) = SHA-256(hash(v - 1) || canonical_bytes(event v)),   hash(0) = 32 zero bytes

``canonical_bytes`` is the JSON document

    {"metadata": M, "payload": P, "recorded_at": T, "stream": S, "type": Y,
     "version": V, "visibility": W}

serialised with keys sorted by code point at every depth, no whitespace, strings as UTF-8
with only the escapes JSON requires, integers in decimal. Floats are refused in payloads
and metadata so that any JSON library can reproduce the bytes: ``orjson.dumps(doc,
option=orjson.OPT_SORT_KEYS)`` and ``json.dumps(doc, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` give the same bytes (a test checks this). ``T`` is the recorded time
in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (always six fractional digits). The global
position is not hashed: it orders streams against each other, the chain orders one stream.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from eventlog.errors import InvalidEvent

HASH_SIZE: Final = 32
GENESIS_HASH: Final = bytes(HASH_SIZE)
"""The ``prev_hash`` of a stream's first event (version 1): 32 zero bytes."""
WITHHELD: Final = b""
"""The hash of an event read by a viewer while its stream still hides something
(:meth:`eventlog.EventStore.read_stream_as`): not served, ``null`` in JSON."""

PUBLIC: Final = "public"
SECRET: Final = "secret"
SEAT_PREFIX: Final = "seat:"

# Stream ids become NATS subject tokens (no '.', '*', '>', whitespace) and appear in
# URLs: letters, digits, '_', '-', ':'. The category is the part before the first '-'.
STREAM_ID_RE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:\-]{0,199}")
EVENT_TYPE_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,99}")
VISIBILITY_RE: Final = re.compile(r"public|secret|seat:(0|[1-9][0-9]{0,2})")
METADATA_KEYS: Final = ("causation_id", "correlation_id", "command_id", "producer")


def seat(n: int) -> str:
    """The visibility of an event private to seat ``n`` until the stream's match ends."""
    if not 0 <= n <= 999:
        raise InvalidEvent(f"seat {n} is outside 0..999")
    return f"{SEAT_PREFIX}{n}"


def check_stream_id(stream_id: str) -> str:
    """Return ``stream_id`` if it is a valid stream id; raises :class:`InvalidEvent`."""
    if not isinstance(stream_id, str) or STREAM_ID_RE.fullmatch(stream_id) is None:
        raise InvalidEvent(
            f"stream id {stream_id!r} must be 1-200 letters, digits, '_', '-' or ':' "
            "starting with a letter or digit"
        )
    return stream_id


def stream_category(stream_id: str) -> str:
    """``match`` for ``match-42``: the part before the first '-' (the whole id if none)."""
    return stream_id.split("-", 1)[0]


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. ``payload`` and ``metadata`` are JSON values without floats.

    ``metadata`` may hold ``causation_id``, ``correlation_id`` and ``producer`` (strings)
    and anything else JSON; the store adds ``command_id`` from the append call.
    """

    type: str
    payload: Any = field(default_factory=dict)
    visibility: str = PUBLIC
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as stored: its envelope, with the hash that chains it to its stream."""

    position: int
    stream_id: str
    version: int
    type: str
    payload: Any
    metadata: dict[str, Any]
    visibility: str
    recorded_at: datetime
    hash: bytes

    @property
    def command_id(self) -> str | None:
        value = self.metadata.get("command_id")
        return value if isinstance(value, str) else None

    def canonical_bytes(self) -> bytes:
        return canonical_bytes(
            self.stream_id,
            self.version,
            self.type,
            self.payload,
            self.metadata,
            self.visibility,
            self.recorded_at,
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The envelope as plain JSON values (hash in hex, or null when withheld; time as
        in the hash chain)."""
        return {
            "position": self.position,
            "stream": self.stream_id,
            "version": self.version,
            "type": self.type,
            "payload": self.payload,
            "metadata": self.metadata,
            "visibility": self.visibility,
            "recorded_at": format_time(self.recorded_at),
            "hash": self.hash.hex() if self.hash else None,  # None: WITHHELD
        }


def format_time(t: datetime) -> str:
    """``t`` in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; raises ValueError for a naive time."""
    if t.tzinfo is None:
        raise ValueError("recorded times must be timezone-aware")
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


#: The types of a JSON value that holds no float and nothing to look into.
_SCALARS: Final = frozenset({str, int, bool, type(None)})


def _refuse_floats(value: Any, part: str) -> None:
    # A flat object (most events': a seat and a card) is checked in one pass at C speed,
    # and one whose values are scalars or lists of them (a trick's cards) field by field.
    if type(value) is dict:
        scalars = _SCALARS
        if scalars.issuperset(map(type, value.values())):
            return
        for v in value.values():
            t = type(v)
            if t not in scalars and not (t is list and scalars.issuperset(map(type, v))):
                break
        else:
            return
    # Iterative walk: payloads are small, but a deep one must not hit the recursion limit.
    # Exact type checks first: this runs for every event appended.
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        v = pop()
        t = type(v)
        if t is str or t is int or t is bool or v is None:
            continue
        if t is dict:
            extend(v.values())
        elif t is list or t is tuple:
            extend(v)
        elif isinstance(v, float):
            raise InvalidEvent(f"{part} holds a float ({v!r}): use integers or strings")
        elif isinstance(v, dict):
            push(dict(v))
        elif isinstance(v, list | tuple):
            extend(v)


def encode_json(value: Any, event_type: str, part: str) -> bytes:
    """Canonical JSON bytes of an event's ``part`` (payload or metadata); raises
    :class:`InvalidEvent` if it cannot be stored.

    Refused: floats (not reproducible across JSON libraries), NUL characters (PostgreSQL's
    jsonb cannot hold them), non-string keys, integers beyond 64 bits, anything not JSON.
    """
    problem = ""
    try:
        _refuse_floats(value, part)
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError as exc:
        problem = f"{event_type} {part} is not JSON: {exc}"
    except InvalidEvent as exc:
        problem = f"{event_type} {exc}"
    if problem:
        raise InvalidEvent(problem)
    if b"\\u0000" in data:
        raise InvalidEvent(f"{event_type} {part} holds a NUL character, which jsonb refuses")
    return data


def check_event(event: NewEvent) -> None:
    """Validate an event's type and visibility; raises :class:`InvalidEvent`."""
    if not isinstance(event.type, str) or EVENT_TYPE_RE.fullmatch(event.type) is None:
        raise InvalidEvent(f"event type {event.type!r} must match {EVENT_TYPE_RE.pattern}")
    if not isinstance(event.visibility, str) or VISIBILITY_RE.fullmatch(event.visibility) is None:
        raise InvalidEvent(
            f"visibility {event.visibility!r} must be 'public', 'secret' or 'seat:<n>'"
        )


def check_metadata(metadata: dict[str, Any]) -> None:
    """The well-known metadata keys hold strings; raises :class:`InvalidEvent`."""
    for key in METADATA_KEYS:
        v = metadata.get(key)
        if v is not None and type(v) is not str:
            raise InvalidEvent(f"metadata {key} must be a string, not {v!r}")


def canonical_bytes(
    stream_id: str,
    version: int,
    type_: str,
    payload: Any,
    metadata: Mapping[str, Any],
    visibility: str,
    recorded_at: datetime | str,
) -> bytes:
    """The bytes one event contributes to its stream's hash chain (see the module doc)."""
    when = recorded_at if isinstance(recorded_at, str) else format_time(recorded_at)
    return orjson.dumps(
        {
            "metadata": metadata,
            "payload": payload,
            "recorded_at": when,
            "stream": stream_id,
            "type": type_,
            "version": version,
            "visibility": visibility,
        },
        option=orjson.OPT_SORT_KEYS,
    )


def canonical_bytes_encoded(
    stream_id: str,
    version: int,
    type_: str,
    payload_json: str,
    metadata_json: str,
    visibility: str,
    recorded_at: str,
) -> bytes:
    """:func:`canonical_bytes` of an event whose payload and metadata are already
    :func:`encode_json`'s output (canonical JSON, so spliced in unchanged: the same
    bytes), whose time is :func:`format_time`'s, and whose stream id, type and
    visibility are valid (:func:`check_stream_id`, :func:`check_event`). The store's
    writer uses it: the payload is not encoded twice.

    Written out rather than encoded: the keys in their sorted order, and the three
    names spliced in as they are, since what makes them valid (letters, digits and
    ``_ - : .``) needs no escaping in JSON. A third of orjson's time for the dict; a
    property test holds it to :func:`canonical_bytes`."""
    return (
        f'{{"metadata":{metadata_json},"payload":{payload_json},"recorded_at":"{recorded_at}",'
        f'"stream":"{stream_id}","type":"{type_}","version":{version},'
        f'"visibility":"{visibility}"}}'
    ).encode()


def chain_hash(prev_hash: bytes, canonical: bytes) -> bytes:
    """``SHA-256(prev_hash || canonical)``."""
    return hashlib.sha256(prev_hash + canonical).digest()


def parse_time(text: str) -> datetime:
    """Inverse of :func:`format_time`."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
