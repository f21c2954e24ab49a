"""The transparency log's entries: which events of the event log get one, and its bytes
(format ``belot-log-entry/1``). Pure: standard library and the fair-deal events.

Why here and not in ``translog``: ``translog`` is the log's generic core (RFC 9162,
C2SP), which knows nothing of matches; what a Belot match must put in a public log is
fair-deal knowledge, and the verifier and the auditor, which are pure too, read it.

What goes in, one entry per event, appended in the same transaction as the event (the
event store calls :func:`prepare` on every event it appends and writes the entry with
it, see ``eventlog.store``), so that nothing can be dealt that the log does not hold:

==============  ============================  =========================================
kind            the event (stream)            what the entry adds to the event's ref
==============  ============================  =========================================
commitment      ServerSeedCommitted           match, commitment, seats, chain, window
                (``randomness-<id>``)         deadline (ms), last allowed round
round_named     DrandRoundNamed (same)        match, chain, round, due time (ms)
fallback        DrandFallback (same)          match, round, reason
round_missed    DrandRoundMissed              chain, round, due time (ms), reason
                (``drand-<chain>-<round>``)
ending          MatchEnded, MatchForfeited,   match, which ending, and the heads
                MatchAborted (``match-<id>``) (version and hash) of the match's two
                                              streams as the ending was written
reveal          ServerSeedRevealed            match, the server seed
                (``randomness-<id>``)
==============  ============================  =========================================

Every entry names its event: ``{"stream", "version", "hash", "recorded_at"}``, the hash
being the stream's hash chain at that version (:mod:`eventkit.envelope`), which
commits to everything in the event and everything before it in its stream. So a record
is tied to the log by its events' hashes: ``belot verify`` checks that every event of
these types in a record has its entry in the log and that the entries' fields are the
events' own; ``belot log audit`` reads the entries alone (a commitment used twice, a
match that named a round declared missed and did not fall back or fell back on a round
nobody declared missed, the abort and fallback rates) and then looks for each entry's
event. ``fallback`` is not in the issue's list; it is there because without it the log
could not show "a match that fell back on a round whose value came" (the reverse of a
round declared missed) without reading every match's events.

The ``ending`` heads: the match stream's head is the ending event itself; the
randomness stream's is the last event of it the writer knew (read in the ending's
transaction, or one appended earlier in the same batch). A concurrent append to the
randomness stream can make it one event older than the true head: it is still a head
that stream had, and the verifier checks it against the record as such.

Bytes: canonical JSON (keys sorted at every depth, no whitespace, UTF-8, integers in
decimal, bytes as lower-case hex), the same rule as the event log's hash chain, so any
JSON library reproduces them; ``"v": 1`` is the format's version, a later format adds
a number and keeps reading this one. JSON rather than a fixed binary layout: a third
party reads an entry with ``jq`` and a tile's bundle with a few lines of any language,
and entries are small (200 to 600 bytes, far below a bundle's 64 KiB limit).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from eventkit import streams
from eventkit.envelope import GENESIS_HASH
from fairdeal.fairness import (
    MATCH_ENDING_EVENTS,
    DrandFallback,
    DrandRoundMissed,
    DrandRoundNamed,
    FairnessError,
    FairnessEvent,
    ServerSeedCommitted,
    ServerSeedRevealed,
    from_payload,
    round_stream,
)
from fairdeal.record import is_match_id

VERSION: Final = 1
FORMAT: Final = "belot-log-entry/1"
#: The bundle format's bound (tlog-tiles: a uint16 length before each entry).
MAX_ENTRY_BYTES: Final = 0xFFFF
RANDOMNESS_PREFIX: Final = streams.RANDOMNESS
MATCH_PREFIX: Final = streams.MATCH
DRAND_PREFIX: Final = streams.DRAND
HASH_SIZE: Final = 32

_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class LogEntryError(ValueError):
    """An event that cannot be logged as its type says (a malformed payload, a stream
    that is not the type's) or bytes that are not a log entry. ``code`` is stable."""

    code: ClassVar[str] = "log_entry_invalid"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class EventRef:
    """The event an entry stands for: where it is, its chain hash, its recorded time
    (as in the hash chain: ``YYYY-MM-DDTHH:MM:SS.ffffffZ``)."""

    stream: str
    version: int
    hash: bytes
    recorded_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "hash": self.hash.hex(),
            "recorded_at": self.recorded_at,
            "stream": self.stream,
            "version": self.version,
        }


@dataclass(frozen=True, slots=True)
class StreamHead:
    """A stream's version and chain hash at one moment (version 0: no event yet)."""

    stream: str
    version: int
    hash: bytes


@dataclass(frozen=True, slots=True)
class Commitment:
    KIND: ClassVar[str] = "commitment"
    event: EventRef
    match: str
    commitment: bytes
    #: (seat, player id or None for a bot), in seat order.
    seats: tuple[tuple[int, str | None], ...]
    chain: str
    window_closes_at_ms: int
    #: The commitment's lead of the round (``ServerSeedCommitted.round_lead_ms``) is not
    #: repeated here: no reader of the log alone needs it (``log_timing`` compares the
    #: witness's time with the ``round_named`` entry's due time, which is what the lead is
    #: for), the entry's event hash commits to it, and the format stays the bytes it was.
    last_round: int


@dataclass(frozen=True, slots=True)
class RoundNamed:
    KIND: ClassVar[str] = "round_named"
    event: EventRef
    match: str
    chain: str
    round: int
    due_at_ms: int


@dataclass(frozen=True, slots=True)
class Fallback:
    KIND: ClassVar[str] = "fallback"
    event: EventRef
    match: str
    round: int
    reason: str


@dataclass(frozen=True, slots=True)
class RoundMissed:
    KIND: ClassVar[str] = "round_missed"
    event: EventRef
    chain: str
    round: int
    due_at_ms: int
    reason: str


@dataclass(frozen=True, slots=True)
class Ending:
    KIND: ClassVar[str] = "ending"
    event: EventRef
    match: str
    #: MatchEnded, MatchForfeited or MatchAborted.
    ending: str
    #: The match stream's head (the ending itself), then the randomness stream's.
    heads: tuple[StreamHead, ...]


@dataclass(frozen=True, slots=True)
class Reveal:
    KIND: ClassVar[str] = "reveal"
    event: EventRef
    match: str
    server_seed: bytes


LogEntry = Commitment | RoundNamed | Fallback | RoundMissed | Ending | Reveal
KINDS: Final[dict[str, type[Any]]] = {
    c.KIND: c for c in (Commitment, RoundNamed, Fallback, RoundMissed, Ending, Reveal)
}


def entry_match(entry: LogEntry) -> str | None:
    """The match an entry is about (None for a round's fact, shared by its matches)."""
    return None if isinstance(entry, RoundMissed) else entry.match


# --- which events get an entry ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """An event's entry before the event has its version and hash: what the store
    holds between encoding an append and planning its write. ``heads_needed``: the
    other streams whose heads the entry records."""

    #: The fair-deal event, or the type of a match's ending (its payload is not needed).
    event: FairnessEvent | str
    stream_id: str
    match: str | None
    heads_needed: tuple[str, ...] = ()

    def encode(
        self,
        version: int,
        hash: bytes,
        recorded_at: str,
        heads: Mapping[str, tuple[int, bytes]],
    ) -> bytes:
        """The entry's bytes once the event has its place in its stream."""
        return to_bytes(self.entry(version, hash, recorded_at, heads))

    def entry(
        self,
        version: int,
        hash: bytes,
        recorded_at: str,
        heads: Mapping[str, tuple[int, bytes]],
    ) -> LogEntry:
        ref = EventRef(self.stream_id, version, hash, recorded_at)
        e = self.event
        match = self.match or ""
        if isinstance(e, ServerSeedCommitted):
            return Commitment(
                ref,
                e.match_id,
                e.commitment,
                tuple((s.seat, s.player) for s in e.seats),
                e.chain,
                e.window_closes_at_ms,
                e.last_round,
            )
        if isinstance(e, DrandRoundNamed):
            return RoundNamed(ref, match, e.chain, e.round, e.due_at_ms)
        if isinstance(e, DrandFallback):
            return Fallback(ref, match, e.round, e.reason)
        if isinstance(e, DrandRoundMissed):
            return RoundMissed(ref, e.chain, e.round, e.due_at_ms, e.reason)
        if isinstance(e, ServerSeedRevealed):
            return Reveal(ref, match, e.server_seed)
        # An ending: the match stream's head is this event; the others as known.
        own = StreamHead(self.stream_id, version, hash)
        others = []
        for sid in self.heads_needed:
            v, h = heads.get(sid, (0, GENESIS_HASH))
            others.append(StreamHead(sid, v, h))
        if not isinstance(e, str):
            raise LogEntryError(f"{type(e).__name__} gets no entry")
        return Ending(ref, match, e, (own, *others))


#: The fair-deal event types that get an entry, by the prefix of their stream.
LOGGED_TYPES: Final[dict[str, frozenset[str]]] = {
    RANDOMNESS_PREFIX: frozenset(
        {
            ServerSeedCommitted.TYPE,
            DrandRoundNamed.TYPE,
            DrandFallback.TYPE,
            ServerSeedRevealed.TYPE,
        }
    ),
    DRAND_PREFIX: frozenset({DrandRoundMissed.TYPE}),
    MATCH_PREFIX: MATCH_ENDING_EVENTS,
}


#: Every type some stream logs: any other (a card played, most of a match's events)
#: is answered by one set lookup, before any prefix is compared.
_ANY_LOGGED: Final = frozenset().union(*LOGGED_TYPES.values())


def is_logged(stream_id: str, type_: str) -> bool:
    """Whether an event of ``type_`` in ``stream_id`` gets an entry."""
    if type_ not in _ANY_LOGGED:
        return False
    for prefix, types in LOGGED_TYPES.items():
        if stream_id.startswith(prefix):
            return type_ in types
    return False


def prepare(stream_id: str, type_: str, payload: Any) -> PendingEntry | None:
    """The entry an event will get (None: it gets none). Raises :class:`LogEntryError`
    when the event is of a logged type but cannot be logged: the store then refuses the
    append, because an event the log cannot hold must not be written either."""
    if not is_logged(stream_id, type_):
        return None
    if stream_id.startswith(MATCH_PREFIX):
        match = stream_id.removeprefix(MATCH_PREFIX)
        if not is_match_id(match):
            raise LogEntryError(f"{stream_id!r} does not name a match")
        return PendingEntry(type_, stream_id, match, (RANDOMNESS_PREFIX + match,))
    if not isinstance(payload, dict):
        raise LogEntryError(f"{type_} in {stream_id}: the payload is not a JSON object")
    try:
        event = from_payload(type_, payload)
    except FairnessError as exc:
        raise LogEntryError(f"{type_} in {stream_id}: {exc.message}") from None
    if isinstance(event, DrandRoundMissed):
        if stream_id != round_stream(event.chain, event.round):
            raise LogEntryError(f"{type_} of round {event.round} is not in {stream_id}")
        return PendingEntry(event, stream_id, None)
    match = stream_id.removeprefix(RANDOMNESS_PREFIX)
    if isinstance(event, ServerSeedCommitted) and event.match_id != match:
        raise LogEntryError(f"the commitment of {event.match_id!r} is not in {stream_id}")
    return PendingEntry(event, stream_id, match)


# --- bytes -----------------------------------------------------------------------------


def to_json(entry: LogEntry) -> dict[str, Any]:
    """The entry as a JSON object (what :func:`to_bytes` serialises)."""
    doc: dict[str, Any] = {"v": VERSION, "kind": entry.KIND, "event": entry.event.to_json()}
    if isinstance(entry, Commitment):
        doc |= {
            "match": entry.match,
            "commitment": entry.commitment.hex(),
            "seats": [{"seat": s, "player": p} for s, p in entry.seats],
            "chain": entry.chain,
            "window_closes_at_ms": entry.window_closes_at_ms,
            "last_round": entry.last_round,
        }
    elif isinstance(entry, RoundNamed):
        doc |= {
            "match": entry.match,
            "chain": entry.chain,
            "round": entry.round,
            "due_at_ms": entry.due_at_ms,
        }
    elif isinstance(entry, Fallback):
        doc |= {"match": entry.match, "round": entry.round, "reason": entry.reason}
    elif isinstance(entry, RoundMissed):
        doc |= {
            "chain": entry.chain,
            "round": entry.round,
            "due_at_ms": entry.due_at_ms,
            "reason": entry.reason,
        }
    elif isinstance(entry, Ending):
        doc |= {
            "match": entry.match,
            "ending": entry.ending,
            "heads": [
                {"stream": h.stream, "version": h.version, "hash": h.hash.hex()}
                for h in entry.heads
            ],
        }
    else:
        doc |= {"match": entry.match, "server_seed": entry.server_seed.hex()}
    return doc


def to_bytes(entry: LogEntry) -> bytes:
    """The entry's canonical bytes: the leaf of the log's tree is SHA-256(0x00 || these)."""
    data = _ENCODER.encode(to_json(entry)).encode("utf-8")
    if len(data) > MAX_ENTRY_BYTES:
        raise LogEntryError(f"an entry of {len(data)} bytes is over {MAX_ENTRY_BYTES}")
    return data


def _get(doc: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    value = doc.get(key)
    ok = type(value) is int and value >= 0 if kind is int else isinstance(value, kind)
    if not ok:
        raise LogEntryError(
            f"{what}: {key!r} is not {'a whole number' if kind is int else kind.__name__}"
        )
    return value


def _hex(doc: Mapping[str, Any], key: str, what: str, size: int | None = None) -> bytes:
    text = _get(doc, key, str, what)
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise LogEntryError(f"{what}: {key!r} is not hex") from None
    if value.hex() != text or (size is not None and len(value) != size):
        raise LogEntryError(f"{what}: {key!r} is not {size or 'some'} bytes in lower-case hex")
    return value


def _ref(doc: Any) -> EventRef:
    if not isinstance(doc, dict):
        raise LogEntryError("an entry's 'event' is an object")
    return EventRef(
        _get(doc, "stream", str, "event"),
        _get(doc, "version", int, "event"),
        _hex(doc, "hash", "event", HASH_SIZE),
        _get(doc, "recorded_at", str, "event"),
    )


def parse_entry(data: bytes) -> LogEntry:
    """The entry ``data`` holds; raises :class:`LogEntryError` unless it is one, in its
    canonical bytes (an entry spelt another way is not this log's)."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise LogEntryError("an entry is UTF-8 JSON") from None
    if not isinstance(doc, dict):
        raise LogEntryError("an entry is a JSON object")
    if doc.get("v") != VERSION:
        raise LogEntryError(f"entry format version {doc.get('v')!r}, this code reads {VERSION}")
    kind = doc.get("kind")
    if kind not in KINDS:
        raise LogEntryError(f"unknown entry kind {kind!r}")
    ref = _ref(doc.get("event"))
    w = str(kind)
    entry: LogEntry
    if kind == Commitment.KIND:
        seats = doc.get("seats")
        if not isinstance(seats, list):
            raise LogEntryError("commitment: 'seats' is a list")
        parsed = []
        for s in seats:
            if not isinstance(s, dict) or not (
                s.get("player") is None or isinstance(s["player"], str)
            ):
                raise LogEntryError("commitment: a seat is {seat, player}")
            parsed.append((_get(s, "seat", int, "seat"), s.get("player")))
        entry = Commitment(
            ref,
            _get(doc, "match", str, w),
            _hex(doc, "commitment", w, HASH_SIZE),
            tuple(parsed),
            _get(doc, "chain", str, w),
            _get(doc, "window_closes_at_ms", int, w),
            _get(doc, "last_round", int, w),
        )
    elif kind == RoundNamed.KIND:
        entry = RoundNamed(
            ref,
            _get(doc, "match", str, w),
            _get(doc, "chain", str, w),
            _get(doc, "round", int, w),
            _get(doc, "due_at_ms", int, w),
        )
    elif kind == Fallback.KIND:
        entry = Fallback(
            ref, _get(doc, "match", str, w), _get(doc, "round", int, w), _get(doc, "reason", str, w)
        )
    elif kind == RoundMissed.KIND:
        entry = RoundMissed(
            ref,
            _get(doc, "chain", str, w),
            _get(doc, "round", int, w),
            _get(doc, "due_at_ms", int, w),
            _get(doc, "reason", str, w),
        )
    elif kind == Ending.KIND:
        heads = doc.get("heads")
        if not isinstance(heads, list) or not heads:
            raise LogEntryError("ending: 'heads' is a non-empty list")
        entry = Ending(
            ref,
            _get(doc, "match", str, w),
            _get(doc, "ending", str, w),
            tuple(
                StreamHead(
                    _get(h, "stream", str, "head"),
                    _get(h, "version", int, "head"),
                    _hex(h, "hash", "head", HASH_SIZE),
                )
                if isinstance(h, dict)
                else _bad_head()
                for h in heads
            ),
        )
    else:
        entry = Reveal(ref, _get(doc, "match", str, w), _hex(doc, "server_seed", w))
    if to_bytes(entry) != data:
        raise LogEntryError(f"{w}: not in canonical form (or with fields of another format)")
    return entry


def _bad_head() -> StreamHead:
    raise LogEntryError("ending: a head is {stream, version, hash}")


# --- a record against the log ------------------------------------------------------------


def _stream_events(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    streams = record.get("streams")
    out: list[Mapping[str, Any]] = []
    if not isinstance(streams, Mapping):
        return out
    for part in ("randomness", "drand", "match"):
        stream = streams.get(part)
        events = stream.get("events") if isinstance(stream, Mapping) else None
        if isinstance(events, list):
            out.extend(e for e in events if isinstance(e, Mapping))
    return out


def record_entries(record: Mapping[str, Any]) -> list[tuple[EventRef, LogEntry]]:
    """The entries the log must hold for a record's events, each with its event's ref
    (an ending's heads as the record has them at the ending; the log's may be older:
    :func:`compare_with_record` checks them against the record's streams instead)."""
    out = []
    for env in _stream_events(record):
        stream, type_, version = env.get("stream"), env.get("type"), env.get("version")
        if not isinstance(stream, str) or not isinstance(type_, str) or type(version) is not int:
            continue
        try:
            pending = prepare(stream, type_, env.get("payload"))
            if pending is None:
                continue
            ref = EventRef(
                stream, version, bytes.fromhex(str(env.get("hash"))), str(env.get("recorded_at"))
            )
        except (LogEntryError, ValueError):
            continue  # the verifier reports a malformed event; here it cannot be matched
        out.append((ref, pending.entry(ref.version, ref.hash, ref.recorded_at, {})))
    return out


def _record_hashes(record: Mapping[str, Any]) -> dict[tuple[str, int], bytes]:
    out: dict[tuple[str, int], bytes] = {}
    for env in _stream_events(record):
        try:
            out[(str(env["stream"]), int(env["version"]))] = bytes.fromhex(str(env["hash"]))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def compare_with_record(record: Mapping[str, Any], logged: list[LogEntry]) -> list[str]:
    """What does not agree between a record and the entries the log holds for its match
    and its round (empty: they agree). Every logged event of the record must have its
    entry, field for field; an ending's heads must be heads the record's streams had; an
    entry of an event the record holds with another hash is a rewrite of one or the
    other. Entries of events after the record's (a record taken before the reveal) are
    not problems."""
    problems = []
    by_ref = {(e.event.stream, e.event.version): e for e in logged}
    hashes = _record_hashes(record)
    for ref, expected in record_entries(record):
        found = by_ref.get((ref.stream, ref.version))
        where = f"{expected.KIND} ({ref.stream} v{ref.version})"
        if found is None:
            problems.append(f"{where}: the log holds no entry for it")
            continue
        if not isinstance(expected, Ending):
            if found != expected:
                problems.append(f"{where}: the log's entry says otherwise than the record")
            continue
        if not isinstance(found, Ending) or (found.event, found.ending, found.match) != (
            expected.event,
            expected.ending,
            expected.match,
        ):
            problems.append(f"{where}: the log's entry says otherwise than the record")
            continue
        for head in found.heads:
            have = GENESIS_HASH if head.version == 0 else hashes.get((head.stream, head.version))
            if have != head.hash:
                problems.append(
                    f"{where}: the log pins {head.stream} v{head.version} to a hash the "
                    "record's stream does not have there"
                )
    expected_refs = {(r.stream, r.version) for r, _ in record_entries(record)}
    for entry in logged:
        key = (entry.event.stream, entry.event.version)
        if key in expected_refs:
            continue
        if key in hashes:
            problems.append(
                f"{entry.KIND} ({key[0]} v{key[1]}): the log holds an entry for an event the "
                "record has as another"
            )
    return problems


__all__ = [
    "FORMAT",
    "KINDS",
    "LOGGED_TYPES",
    "VERSION",
    "Commitment",
    "Ending",
    "EventRef",
    "Fallback",
    "LogEntry",
    "LogEntryError",
    "PendingEntry",
    "Reveal",
    "RoundMissed",
    "RoundNamed",
    "StreamHead",
    "compare_with_record",
    "entry_match",
    "is_logged",
    "parse_entry",
    "prepare",
    "record_entries",
    "to_bytes",
    "to_json",
]
