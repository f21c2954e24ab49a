"""The event log's errors: one base class, a subclass per thing that can go wrong, each
with a stable snake_case ``code``."""

from __future__ import annotations

from typing import ClassVar


class EventLogError(Exception):
    """Base class of every error the event log raises on purpose."""

    code: ClassVar[str] = "eventlog_error"


class InvalidEvent(EventLogError, ValueError):
    """An event (or an append call) that cannot be stored: bad type, visibility, JSON."""

    code = "invalid_event"


class WrongExpectedVersion(EventLogError):
    """Optimistic concurrency: the stream is not at the version the appender expected.

    ``actual`` is the stream's version when the append was refused (0: no such stream).
    """

    code = "wrong_expected_version"

    def __init__(self, stream_id: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual}, the append expected {expected}"
        )
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class CommandIdReused(EventLogError):
    """A command id already used for an append to another stream."""

    code = "command_id_reused"

    def __init__(self, command_id: str, stream_id: str, used_by: str) -> None:
        super().__init__(
            f"command id {command_id!r} was already used for stream {used_by!r}, not {stream_id!r}"
        )
        self.command_id = command_id
        self.stream_id = stream_id
        self.used_by = used_by


class StoreClosed(EventLogError):
    """The store was closed while an append waited."""

    code = "store_closed"


class EntryMissing(EventLogError):
    """An event the transparency log must hold was appended without its entry: the
    database refused the append (SQLSTATE ``EL002``, event-log migration 5) and nothing
    of it was written. The store was built without the entry source
    (``EventStore(..., entries=logentries)``), or with one that skips this event."""

    code = "translog_entry_missing"
