"""The analysis job: every finished match analysed double-dummy once, off the hot path.

A table worker never analyses: its loop serves moves. This job follows the finished
matches the projection lists (ended, server seed revealed), oldest first, and for each
one loads its record as the API serves it, verifies it (the API's verifier, drand's BLS
check included) and analyses it (:func:`fairdeal.analysis.analyse_record`, what ``belot
analyse`` runs), in a thread, one match at a time. The result is stored as derived data
(``verify_analyses``): anyone recomputes it from the record, so the store is a cache
that the API serves, never a source of truth. A record that does not verify is stored
as such (``not_verified``, with the failed checks): its cards are not the match's.

Two replicas may analyse the same match at the same time; the first row wins (INSERT ...
ON CONFLICT DO NOTHING) and the second's work is wasted, never different: the analysis
is a function of the record. A record that changes after its analysis (a drand value
that arrives late after a fallback changes no card) keeps its analysis; the row holds the
digest of the record it analysed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Final

import asyncpg
import orjson
from prometheus_client import Counter, Gauge, Histogram

from eventlog import EventStore
from eventlog.migrations import quote_schema
from fairdeal.analysis import AnalysisError, analyse_record
from fairdeal.verifier import verify_record
from fairdeal.verifier.context import BlsCheck
from services.verify.matches import load_match

log = logging.getLogger(__name__)

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

#: The job's supervised task (belot_task_up, restarts).
ANALYSIS_TASK: Final = "verify-analysis"
#: Matches taken per look at the projection.
BATCH: Final = 8

ANALYSES = Counter(
    "belot_verify_analyses_total",
    "Finished matches the analysis job took, by outcome (analysed, not_verified).",
    ["outcome"],
)
BACKLOG = Gauge(
    "belot_verify_analysis_backlog",
    "Finished matches waiting for the analysis job (ended, seed revealed, not analysed).",
)
ANALYSIS_SECONDS = Histogram(
    "belot_verify_analysis_seconds",
    "Time to verify and analyse one finished match.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 60, 120),
)


class Analyses:
    """The stored analyses: the job that makes them, and the API's read of one."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        schema: str,
        store: EventStore,
        bls: BlsCheck | None,
        *,
        poll_interval: float = 1.0,
        workers: int = 1,
    ) -> None:
        self._pool = pool
        self._workers = max(1, workers)
        self._s = quote_schema(schema)
        self._store = store
        self._bls = bls
        self._poll = poll_interval

    async def pending(self, limit: int = BATCH) -> list[str]:
        """Finished matches (ended, seed revealed) with no analysis yet, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT m.match_id FROM {self._s}.verify_matches m WHERE m.revealed AND NOT EXISTS"
            f" (SELECT 1 FROM {self._s}.verify_analyses a WHERE a.match_id = m.match_id)"
            " ORDER BY m.ended_position LIMIT $1",
            limit,
        )
        return [r["match_id"] for r in rows]

    async def analyse(self, match_id: str) -> str | None:
        """Analyse one finished match and keep the result; its outcome, or None when the
        match is not finished after all (nothing kept)."""
        loaded = await load_match(self._store, match_id)
        if loaded is None or not loaded.finished:
            return None
        started = time.perf_counter()
        doc = loaded.record
        analysis: dict[str, Any] | None = None
        reason = None
        try:
            report = await asyncio.to_thread(verify_record, doc, bls=self._bls)
            result = await asyncio.to_thread(analyse_record, doc, report=report)
            analysis = result.to_json()
            outcome = "analysed"
        except AnalysisError as exc:
            outcome, reason = "not_verified", f"{exc.code}: {exc.message}"
        seconds = time.perf_counter() - started
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_analyses"
            " (match_id, digest, outcome, analysis, reason, seconds)"
            " VALUES ($1, $2, $3, $4::jsonb, $5, $6) ON CONFLICT (match_id) DO NOTHING",
            match_id,
            loaded.digest,
            outcome,
            None if analysis is None else orjson.dumps(analysis).decode(),
            reason,
            seconds,
        )
        ANALYSES.labels(outcome).inc()
        ANALYSIS_SECONDS.observe(seconds)
        return outcome

    async def backlog(self) -> int:
        """How many finished matches wait for their analysis."""
        count: int = await self._pool.fetchval(
            f"SELECT count(*) FROM {self._s}.verify_matches m WHERE m.revealed AND NOT EXISTS"
            f" (SELECT 1 FROM {self._s}.verify_analyses a WHERE a.match_id = m.match_id)"
        )
        return count

    async def run(self) -> None:
        """Forever (cancel to stop): analyse what is pending, ``workers`` matches at once
        (each in a thread: the solver releases the GIL), then look again after
        ``poll_interval``; the backlog is a gauge. A failure is raised: run it under a
        supervisor, which logs it and starts it again (what is not stored is analysed
        again)."""
        gate = asyncio.Semaphore(self._workers)

        async def one(match_id: str) -> str | None:
            async with gate:
                return await self.analyse(match_id)

        while True:
            BACKLOG.set(await self.backlog())
            pending = await self.pending(max(BATCH, self._workers))
            done = [o for o in await asyncio.gather(*map(one, pending)) if o is not None]
            if not done:
                await asyncio.sleep(self._poll)

    async def get(self, match_id: str, reads: Any = None) -> dict[str, Any] | None:
        """The stored row of ``match_id`` ({outcome, analysis, reason, digest}), or None."""
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
