"""The double-dummy analyses of the finished matches (``verify_analyses``): derived data
anyone recomputes from the record, kept by the analysis job
(:mod:`services.verify.analyses`) so as not to solve again. Read and written on the
primary; the first row of a match wins.
"""

from __future__ import annotations

from typing import Any, Final

import asyncpg
import orjson

from eventlog.migrations import quote_schema

#: The verify component's migration 7 (:data:`services.verify.store.COMPONENT`).
ANALYSES_MIGRATION: Final = """
CREATE TABLE IF NOT EXISTS {s}.verify_analyses (
    match_id     text PRIMARY KEY,
    digest       text NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('analysed', 'not_verified')),
    analysis     jsonb,
    reason       text,
    seconds      double precision NOT NULL,
    analysed_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((outcome = 'analysed') = (analysis IS NOT NULL))
);
"""
#: Kept once, never changed or removed (derived data: recomputed, not corrected).
ANALYSES_PRIVILEGES: Final = {"verify_analyses": "SELECT, INSERT"}


class AnalysisStore:
    """The stored analyses, beside the finished matches they are of."""

    def __init__(self, pool: asyncpg.Pool, schema: str) -> None:
        self._pool = pool
        self._s = quote_schema(schema)

    async def pending(self, limit: int) -> list[str]:
        """Finished matches (ended, seed revealed) with no analysis yet, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT m.match_id FROM {self._s}.verify_matches m WHERE m.revealed AND NOT EXISTS"
            f" (SELECT 1 FROM {self._s}.verify_analyses a WHERE a.match_id = m.match_id)"
            " ORDER BY m.ended_position LIMIT $1",
            limit,
        )
        return [r["match_id"] for r in rows]

    async def backlog(self) -> int:
        """How many finished matches wait for their analysis."""
        count: int = await self._pool.fetchval(
            f"SELECT count(*) FROM {self._s}.verify_matches m WHERE m.revealed AND NOT EXISTS"
            f" (SELECT 1 FROM {self._s}.verify_analyses a WHERE a.match_id = m.match_id)"
        )
        return count

    async def keep(
        self,
        match_id: str,
        digest: str,
        outcome: str,
        analysis: dict[str, Any] | None,
        reason: str | None,
        seconds: float,
    ) -> None:
        """A match's analysis (or why it has none), unless one is kept already."""
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_analyses"
            " (match_id, digest, outcome, analysis, reason, seconds)"
            " VALUES ($1, $2, $3, $4::jsonb, $5, $6) ON CONFLICT (match_id) DO NOTHING",
            match_id,
            digest,
            outcome,
            None if analysis is None else orjson.dumps(analysis).decode(),
            reason,
            seconds,
        )

    async def get(self, match_id: str, reads: Any = None) -> dict[str, Any] | None:
        """The stored row of ``match_id`` ({outcome, analysis, reason, digest}), or None;
        read on ``reads`` if given, else on the primary."""
        row = await (reads or self._pool).fetchrow(
            f"SELECT outcome, analysis, reason, digest FROM {self._s}.verify_analyses"
            " WHERE match_id = $1",
            match_id,
        )
        if row is None:
            return None
        analysis = row["analysis"]
        return {
            "outcome": row["outcome"],
            "analysis": None if analysis is None else orjson.loads(analysis),
            "reason": row["reason"],
            "digest": row["digest"],
        }
