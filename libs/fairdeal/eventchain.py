"""The event log's hash chain, recomputed with the standard library alone.

The same rule as :mod:`eventlog.envelope` (docs/event-log.md, "The hash chain, for third parties"),
written again here because the verifier must stay pure: ``eventlog`` imports asyncpg and
orjson. A test checks that both give the same bytes for the same event.

Per stream::

    hash(v) = SHA-256(hash(v - 1) || canonical_bytes(event v)),   hash(0) = 32 zero bytes

``canonical_bytes`` is the UTF-8 JSON text of ``{"metadata", "payload", "recorded_at",
"stream", "type", "version", "visibility"}`` with keys sorted at every depth, no
whitespace and no escaping beyond what JSON requires; ``recorded_at`` is the recorded time
as written in the log (``YYYY-MM-DDTHH:MM:SS.ffffffZ``). The global position is not hashed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

GENESIS_HASH: Final = bytes(32)
# One encoder for every event: json.dumps would build one per call.
_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(
    stream: str,
    version: int,
    type_: str,
    payload: Any,
    metadata: Any,
    visibility: str,
    recorded_at: str,
) -> bytes:
    """The bytes one event contributes to its stream's chain.

    Raises ValueError (or TypeError) for values JSON cannot represent the log's way
    (a lone surrogate in a string, a non-string key), RecursionError for absurd nesting.
    """
    doc = {
        "metadata": metadata,
        "payload": payload,
        "recorded_at": recorded_at,
        "stream": stream,
        "type": type_,
        "version": version,
        "visibility": visibility,
    }
    return _ENCODER.encode(doc).encode("utf-8")


def chain_hash(prev_hash: bytes, canonical: bytes) -> bytes:
    """``SHA-256(prev_hash || canonical)``."""
    return hashlib.sha256(prev_hash + canonical).digest()
