"""What the chaos run records, as plain values: the log's events, the JetStream
stream's messages, what each WebSocket connection received, the looks at /readyz.
The checks (tests/chaos/checks.py) judge these alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

PUBLIC: Final = "public"
#: Headers the outbox relay puts on every message it publishes (eventlog/relay.py):
#: the event's stream, and its position (``Belot-Position``; a relay of an earlier
#: version wrote it as the ``Nats-Msg-Id`` alone).
MSG_ID: Final = "Nats-Msg-Id"
POSITION_HEADER: Final = "Belot-Position"
RELAY_HEADER: Final = "Belot-Stream"


@dataclass(frozen=True)
class Logged:
    """One event as the log holds it."""

    position: int
    stream: str
    version: int
    type: str
    visibility: str


@dataclass(frozen=True)
class Message:
    """One message of the JetStream stream: its sequence and headers."""

    seq: int
    subject: str
    headers: Mapping[str, str]

    @property
    def is_relays(self) -> bool:
        return RELAY_HEADER in self.headers

    @property
    def position(self) -> int | None:
        """The log position the relay's message carries (None: not a number)."""
        text = self.headers.get(POSITION_HEADER, self.headers.get(MSG_ID, ""))
        return int(text) if text.isdigit() else None


@dataclass(frozen=True)
class Got:
    """One event message a socket received."""

    at: float  # time.monotonic()
    table: str
    stream: str
    version: int
    type: str
    visibility: str
    replay: bool


@dataclass
class Feed:
    """One WebSocket connection of one account, from open to close."""

    owner: str
    number: int  # 1 for the account's first connection, 2 after a reconnection, ...
    tables: tuple[str, ...]
    opened_at: float
    events: list[Got] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)  # {"type": "error"} messages
    #: Set when the connection ended before the suite closed it: why.
    lost: str | None = None

    @property
    def name(self) -> str:
        return f"{self.owner}#{self.number}"


@dataclass(frozen=True)
class Sample:
    """One look at a table worker's /readyz, and at the relay's two ends."""

    at: float  # time.monotonic() when asked
    done: float  # when /readyz answered (or the request gave up)
    worker: str
    status: int  # 0: no answer
    body: str
    head: int | None  # the log's head position (None: PostgreSQL did not answer)
    relayed: int | None  # the relay's last position in JetStream (None: NATS did not)


@dataclass(frozen=True)
class Window:
    name: str
    start: float
    end: float
