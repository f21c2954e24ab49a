"""Composition of a table worker: the event store, the worker (leases, tables), the
outbox relay (one active in the whole deployment, by an advisory lock), and the HTTP app
with /healthz, /readyz and /metrics. ``belot serve table`` runs :func:`main`; several
workers may run at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web

from belot_platform.app import METRICS_REFRESH, NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from belot_platform.supervise import Lag, Supervised
from eventlog import EventStore
from eventlog.relay import READY_LAG_EVENTS, READY_LAG_GRACE_S, OutboxRelay
from fairdeal import logentries
from services.table.worker import TableWorker

WORKER: Final = web.AppKey("table_worker", TableWorker)
#: The relay's supervised task (the ``task`` label of belot_task_up and restarts).
RELAY_TASK: Final = "outbox-relay"


def create_app(
    settings: Settings, *, worker_id: str | None = None, relay: bool = True
) -> web.Application:
    """A table worker's app; ``relay`` also runs the outbox relay (it waits for the
    advisory lock while another process relays), supervised as ``outbox-relay``: its
    /readyz says not ready while it is down or stalled, or while the relay lag
    (:meth:`OutboxRelay.lag`) stays above ``READY_LAG_EVENTS`` for ``READY_LAG_GRACE_S``;
    /metrics reads the lag from both ends first."""
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
        )
        app[WORKER] = worker
        relay_task: Supervised | None = None
        if relay:
            outbox = OutboxRelay(
                store,
                app[NATS].jetstream(),
                stream=settings.events_stream,
                subject_prefix=settings.events_subject,
            )
            relay_task = app[TASKS].spawn(
                RELAY_TASK,
                lambda t: outbox.run(t.stopping, t.beat),
                grace=outbox.ack_timeout,
                stall_after=outbox.stall_after,
                # The deployment's lag, from both ends: the same in every worker.
                lag=Lag(outbox.lag, READY_LAG_EVENTS, READY_LAG_GRACE_S, " events"),
            )
            app[METRICS_REFRESH].append(outbox.refresh_metrics)
        await worker.start()
        yield
        # SIGTERM: stop taking tables, finish in-flight commands, hand the leases over,
        # then let the relay publish what they appended.
        await worker.stop(handover=True)
        if relay_task is not None:
            await relay_task.stop()
        await store.close()

    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    run_service("table", create_app)
