"""Structured logging: one JSON object a line, with context ids (table, match, …).

``configure_logging(level, fmt)`` once at start; ``log_context(match_id=...)`` adds ids
to every record logged inside it (a context variable, so it follows asyncio tasks).
``extra={...}`` fields of a single call are included too.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Final

import orjson

_CONTEXT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "belot_log_context", default=None
)
_STANDARD: Final = frozenset(
    logging.LogRecord("", 0, "", 0, "", (), None).__dict__.keys() | {"message", "asctime"}
)


@contextlib.contextmanager
def log_context(**ids: Any) -> Iterator[None]:
    """Add ``ids`` to every record logged in this block (and tasks started in it)."""
    token = _CONTEXT.set({**(_CONTEXT.get() or {}), **ids})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **(_CONTEXT.get() or {}),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(entry, default=str).decode()


def configure_logging(level: str = "INFO", fmt: str = "json") -> None:
    """Send the root logger to stderr, as JSON lines (``fmt="json"``) or plain text."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
