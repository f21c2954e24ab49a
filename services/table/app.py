"""Composition of a table worker: the event store, the worker (leases, tables), and the
HTTP app with /healthz, /readyz and /metrics. ``belot serve table`` runs :func:`main`;
several workers may run at once. The outbox relay is a service of its own
(``belot serve relay``, :mod:`services.relay.app`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web

from belot_platform import collector
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from services.table.worker import TableWorker

WORKER: Final = web.AppKey("table_worker", TableWorker)


def create_app(
    settings: Settings, *, worker_id: str | None = None, tune_gc: bool = False
) -> web.Application:
    """A table worker's app. ``tune_gc``: the process is the worker's alone (``belot
    serve table``, which tunes the collector once it listens), so what loading the solver
    makes is frozen too; a test process or ``belot run``'s in-process use leaves the
    collector as it is."""
    app = create_platform_app(settings, name="table")

    async def service(app: web.Application) -> AsyncIterator[None]:
        # Entries: a match's ending goes into the transparency log with it.
        store = await EventStore.open(
            app[PG_POOL], settings.pg_schema, producer="table", entries=logentries
        )
        worker = TableWorker(
            app[NATS],
            store,
            prefix=settings.subject_prefix,
            lease_ttl=settings.lease_ttl,
            turn_ms=int(settings.turn_seconds * 1000),
            timeout=settings.nats_timeout,
            worker_id=worker_id,
            supervisor=app[TASKS],
            autoplay_after=settings.autoplay_after,
            presence_seconds=settings.presence_seconds,
        )
        app[WORKER] = worker
        await worker.start()
        prepared = asyncio.create_task(_prepare(tune_gc))
        yield
        # SIGTERM: stop taking tables, finish in-flight commands, hand the leases over.
        await worker.stop(handover=True)
        await store.close()
        await prepared

    app.cleanup_ctx.append(service)
    return app


async def _prepare(tune_gc: bool) -> None:
    """The hard bot's solver compiled, or its machine code loaded from numba's cache, in
    a thread while the worker serves, so that no bot's first decision waits for it; then
    what that made frozen too (:func:`belot_platform.collector.tune`)."""
    await asyncio.to_thread(_prepare_solver)
    if tune_gc:
        collector.tune()


def _prepare_solver() -> None:
    # Imported here: only a process that runs table workers loads numba.
    from belot.bots.solver import prepare

    prepare()


def main() -> None:
    run_service("table", lambda settings: create_app(settings, tune_gc=True))
