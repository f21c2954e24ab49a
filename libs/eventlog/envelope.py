"""The event envelope: values and pure functions, no I/O.

An event is stored once and never changed; each stream carries a hash chain, whose bytes
(``canonical_bytes``) and hash (``chain_hash``) are defined once, in
:mod:`eventkit.envelope`, for the store and the verifier alike (re-exported here). This
module holds what the store adds: the events to append and as recorded, their JSON, and
the checks an event passes before it is stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

import orjson

# Re-exported: the store's callers and the relay read them here.
from eventkit.envelope import GENESIS_HASH as GENESIS_HASH
from eventkit.envelope import HASH_SIZE as HASH_SIZE
from eventkit.envelope import Envelope as Envelope
from eventkit.envelope import canonical_bytes as canonical_bytes
from eventkit.envelope import canonical_bytes_encoded as canonical_bytes_encoded
from eventkit.envelope import chain_hash as chain_hash
from eventkit.envelope import format_time as format_time
from eventkit.envelope import parse_time as parse_time
from eventlog.errors import InvalidEvent

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
        return self.envelope().canonical_bytes()

    def envelope(self) -> Envelope:
        """The event as JSON values (:class:`eventkit.envelope.Envelope`): the hash in
        hex, or None when withheld; the time as in the hash chain."""
        return Envelope(
            self.position, self.stream_id, self.version, self.type, self.payload,
            self.metadata, self.visibility, format_time(self.recorded_at),
            self.hash.hex() if self.hash else None,  # None: WITHHELD
        )  # fmt: skip

    def to_json_dict(self) -> dict[str, Any]:
        """The envelope as a JSON object (:meth:`Envelope.to_json`)."""
        return self.envelope().to_json()

    @classmethod
    def from_json_dict(cls, doc: Any) -> RecordedEvent:
        """The event :meth:`to_json_dict` wrote (a relay's message, a record's line): a
        null hash is :data:`WITHHELD`. Raises ValueError
        (:class:`eventkit.envelope.EnvelopeError`, or a time or hash that does not parse)
        for a document that is not an envelope."""
        env = Envelope.from_json(doc)
        return cls(
            env.position, env.stream, env.version, env.type, env.payload, env.metadata,
            env.visibility, parse_time(env.recorded_at),
            WITHHELD if env.hash is None else bytes.fromhex(env.hash),
        )  # fmt: skip


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


#: At most this many events in one append.
MAX_EVENTS_PER_APPEND: Final = 10_000


def check_append(expected_version: Any, events: Sequence[NewEvent], command_id: Any) -> None:
    """An append's own arguments, whatever store takes it: raises :class:`InvalidEvent`.
    (Each event is checked by :func:`check_event` and :func:`encode_json`.)"""
    if type(expected_version) is not int:
        raise InvalidEvent(f"expected_version must be an int, not {expected_version!r}")
    if expected_version < 0:
        raise InvalidEvent(f"expected_version {expected_version} is negative")
    if not events:
        raise InvalidEvent("an append needs at least one event")
    if len(events) > MAX_EVENTS_PER_APPEND:
        raise InvalidEvent(f"{len(events)} events in one append, at most {MAX_EVENTS_PER_APPEND}")
    if command_id is not None and (type(command_id) is not str or not command_id):
        raise InvalidEvent("command_id must be a non-empty string")


def check_metadata(metadata: dict[str, Any]) -> None:
    """The well-known metadata keys hold strings; raises :class:`InvalidEvent`."""
    for key in METADATA_KEYS:
        v = metadata.get(key)
        if v is not None and type(v) is not str:
            raise InvalidEvent(f"metadata {key} must be a string, not {v!r}")
