"""Check the whole log: every stream's versions run 1, 2, 3, … and its hash chain holds;
global positions run 1 … head without a hole.

Reads one consistent snapshot (a REPEATABLE READ, read-only transaction) through a
server-side cursor, so it works on a log larger than memory. Reports the first bad event
by global position, and how many problems it found in all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from eventkit.envelope import GENESIS_HASH, canonical_bytes, chain_hash
from eventlog.migrations import quote_schema


@dataclass(frozen=True, slots=True)
class Problem:
    """One bad event (or hole): where it is and what is wrong."""

    stream_id: str | None
    version: int | None
    position: int
    what: str

    def __str__(self) -> str:
        where = (
            f"position {self.position}"
            if self.stream_id is None
            else f"stream {self.stream_id} version {self.version} position {self.position}"
        )
        return f"{where}: {self.what}"


@dataclass(slots=True)
class Report:
    streams: int = 0
    events: int = 0
    head_position: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def first(self) -> Problem | None:
        """The problem with the lowest global position."""
        return min(self.problems, key=lambda p: p.position, default=None)


async def verify_log(conn: Any, schema: str, *, max_problems: int = 1000) -> Report:
    """Verify the log in ``schema`` on asyncpg connection ``conn``; see the module doc."""
    s = quote_schema(schema)
    report = Report()
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        report.head_position = int(await conn.fetchval(f"SELECT position FROM {s}.log_head"))
        stream: str | None = None
        version = 0
        prev = GENESIS_HASH
        last_position = 0
        broken = False  # a stream reports its first problem only: the rest follows from it
        cursor = conn.cursor(
            f"SELECT position, stream_id, version, type, payload::text, metadata::text,"
            f" visibility, recorded_at, hash FROM {s}.events ORDER BY stream_id, version",
            prefetch=2000,
        )
        async for r in cursor:
            position, sid, v, type_, payload, metadata, visibility, recorded_at, stored = r
            report.events += 1
            if sid != stream:
                stream, version, prev, last_position, broken = sid, 0, GENESIS_HASH, 0, False
                report.streams += 1
            problem = None
            if v != version + 1:
                problem = f"version {v} follows version {version}: versions must be contiguous"
            elif position <= last_position:
                problem = f"position {position} is not after the previous version's {last_position}"
            computed = chain_hash(
                prev,
                canonical_bytes(
                    sid,
                    v,
                    type_,
                    orjson.loads(payload),
                    orjson.loads(metadata),
                    visibility,
                    recorded_at,
                ),
            )
            if problem is None and computed != bytes(stored):
                problem = (
                    f"hash mismatch: stored {bytes(stored).hex()}, computed {computed.hex()} "
                    "(the event or an earlier one of its stream was altered)"
                )
            if problem is not None and not broken and len(report.problems) < max_problems:
                report.problems.append(Problem(sid, v, position, problem))
                broken = True
            # Chain on the stored hash: one altered event is reported once, not with
            # every later event of its stream.
            version, prev, last_position = v, bytes(stored), position

        # Holes in the global order (an event removed) and events beyond the head.
        hole = await conn.fetchrow(
            f"SELECT position, next FROM (SELECT position, lead(position) OVER"
            f" (ORDER BY position) AS next FROM {s}.events) t"
            f" WHERE next <> position + 1 ORDER BY position LIMIT 1"
        )
        bounds = await conn.fetchrow(
            f"SELECT coalesce(min(position), 0), coalesce(max(position), 0) FROM {s}.events"
        )
        if bounds[0] > 1:
            report.problems.append(
                Problem(None, None, 1, f"positions 1..{bounds[0] - 1} are missing")
            )
        if hole is not None:
            report.problems.append(
                Problem(
                    None, None, hole[0] + 1, f"positions {hole[0] + 1}..{hole[1] - 1} are missing"
                )
            )
        if bounds[1] != report.head_position:
            report.problems.append(
                Problem(
                    None,
                    None,
                    min(bounds[1], report.head_position) + 1,
                    f"the log head says {report.head_position} "
                    f"but the last event is at {bounds[1]}",
                )
            )
    return report
