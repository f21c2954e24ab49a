"""The event log: an append-only, hash-chained store of events on PostgreSQL.

The source of truth for replay and for public verification (docs/architecture.md, "The
event log is the source of truth"; docs/event-log.md). Layers: :mod:`eventlog.envelope`
(values, canonical bytes, hash chain; no I/O), :mod:`eventlog.migrations`,
:mod:`eventlog.store` (append, reads, subscriptions), :mod:`eventlog.verify`,
:mod:`eventlog.relay` (outbox to JetStream).
"""

from eventlog.envelope import (
    GENESIS_HASH,
    PUBLIC,
    SECRET,
    WITHHELD,
    NewEvent,
    RecordedEvent,
    canonical_bytes,
    chain_hash,
    seat,
)
from eventlog.errors import (
    CommandIdReused,
    EntryMissing,
    EventLogError,
    InvalidEvent,
    StoreClosed,
    WrongExpectedVersion,
)
from eventlog.migrations import migrate
from eventlog.store import DEFAULT_SCHEMA, AppendResult, EventStore, Subscription, Viewer

__all__ = [
    "DEFAULT_SCHEMA",
    "GENESIS_HASH",
    "PUBLIC",
    "SECRET",
    "WITHHELD",
    "AppendResult",
    "CommandIdReused",
    "EntryMissing",
    "EventLogError",
    "EventStore",
    "InvalidEvent",
    "NewEvent",
    "RecordedEvent",
    "StoreClosed",
    "Subscription",
    "Viewer",
    "WrongExpectedVersion",
    "canonical_bytes",
    "chain_hash",
    "migrate",
    "seat",
]
