"""The analysis job: every finished match analysed double-dummy once, off the hot path.

A table worker never analyses: its loop serves moves. This job follows the finished
matches the projection lists (ended, server seed revealed), oldest first, and for each
one loads its record as the API serves it, verifies it (the API's verifier, drand's BLS
check included) and analyses it (:func:`fairdeal.analysis.analyse_record`, what ``belot
analyse`` runs), in a thread, one match at a time. The result is stored as derived data
(``verify_analyses``, :mod:`services.verify.store.analyses`): anyone recomputes it
from the record, so the store is a cache that the API serves, never a source of truth.
A record that does not verify is stored as such (``not_verified``, with the failed
checks): its cards are not the match's.

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

from prometheus_client import Counter, Gauge, Histogram

from eventlog import EventStore
from fairdeal.analysis import AnalysisError, analyse_record
from fairdeal.verifier import verify_record
from fairdeal.verifier.context import BlsCheck
from services.verify.matches import load_match
from services.verify.store import AnalysisStore, Pool

log = logging.getLogger(__name__)

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
        pool: Pool,
        schema: str,
        store: EventStore,
        bls: BlsCheck | None,
        *,
        poll_interval: float = 1.0,
        workers: int = 1,
    ) -> None:
        self._rows = AnalysisStore(pool, schema)
        self._workers = max(1, workers)
        self._store = store
        self._bls = bls
        self._poll = poll_interval

    async def pending(self, limit: int = BATCH) -> list[str]:
        """Finished matches (ended, seed revealed) with no analysis yet, oldest first."""
        return await self._rows.pending(limit)

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
        await self._rows.keep(match_id, loaded.digest, outcome, analysis, reason, seconds)
        ANALYSES.labels(outcome).inc()
        ANALYSIS_SECONDS.observe(seconds)
        return outcome

    async def backlog(self) -> int:
        """How many finished matches wait for their analysis."""
        return await self._rows.backlog()

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
        return await self._rows.get(match_id, reads)
