"""The rating service's composition root: ``create_app(settings)``, ``main`` (``belot
serve rating``) and ``rebuild`` (``belot rating rebuild``).

The app is ``belot_platform.app.create_app``'s (PostgreSQL pool, NATS, ``/healthz``,
``/readyz``, ``/metrics``) plus, in one cleanup context: the event store and the
projection (migrated on start), the log consumer as a background task, and the NATS
look-up responder. Shutdown runs it backwards: stop answering look-ups, let the
consumer finish the delivery in hand, close the store; then the platform drains NATS
and closes the pool. Readiness includes the consumer: not ready until it has read its
checkpoint, nor while it is failing.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web

from belot_platform import messaging, pgpool
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from eventlog import EventStore
from rating import DEFAULT_SETTINGS, RatingSettings
from services.rating.consumer import Consumer
from services.rating.handlers import (
    LOOKUP_SUBJECT,
    PROJECTION,
    add_routes,
    lookup_handler,
    reads_handlers,
)
from services.rating.store import Projection, RebuildReport, has_event_log

NAME: Final = "rating"
CONSUMER: Final = web.AppKey("rating_consumer", Consumer)
#: The consumer's supervised task (the ``task`` label of belot_task_up and restarts).
CONSUMER_TASK: Final = "rating-consumer"


class NoEventLog(LookupError):
    """The configured schema holds no event log to rebuild from."""


def lookup_subject_of(settings: Settings) -> str:
    """``belot.rating.lookup`` (the first token is ``BELOT_SUBJECT_PREFIX``, as in the
    tournament service's request)."""
    return LOOKUP_SUBJECT.replace("belot", settings.subject_prefix, 1)


def create_app(
    settings: Settings,
    *,
    rating_settings: RatingSettings = DEFAULT_SETTINGS,
    flush_interval: float = 0.5,
    poll_interval: float = 1.0,
) -> web.Application:
    """The rating service. ``settings`` must have its server URLs resolved."""

    async def consumer_ready(app: web.Application) -> None:
        error = app[CONSUMER].error
        if error is not None:
            raise RuntimeError(f"consumer: {error}")

    app = create_platform_app(settings, name=NAME, checks={"consumer": consumer_ready})
    add_routes(app)

    async def rating(app: web.Application) -> AsyncIterator[None]:
        pool = app[PG_POOL]
        log_store = await EventStore.open(
            pool, settings.pg_schema, producer=NAME, app_role=settings.pg_app_role
        )
        projection = Projection(pool, settings.rating_schema, rating_settings)
        await projection.migrate()
        app[PROJECTION] = projection
        consumer = Consumer(
            log_store, projection, flush_interval=flush_interval, poll_interval=poll_interval
        )
        app[CONSUMER] = consumer
        task = app[TASKS].spawn(CONSUMER_TASK, lambda t: consumer.run(t.stopping), grace=5.0)
        # A queue group: replicas share the look-ups (each reads the same projection).
        lookups = [
            await messaging.serve(
                app[NATS], lookup_subject_of(settings), lookup_handler(projection), queue=NAME
            )
        ]
        for subject, handler in reads_handlers(projection, settings.subject_prefix).items():
            lookups.append(await messaging.serve(app[NATS], subject, handler, queue=NAME))
        try:
            yield
        finally:
            for sub in lookups:
                await sub.unsubscribe()
            await task.stop()
            await log_store.close()

    app.cleanup_ctx.append(rating)
    return app


async def rebuild(
    settings: Settings, *, rating_settings: RatingSettings = DEFAULT_SETTINGS
) -> RebuildReport:
    """Empty the projection and fold the log's ``rating-*`` streams again (a running
    service's consumer waits meanwhile, then carries on)."""
    if settings.pg_dsn is None:
        raise ValueError("settings.pg_dsn is unset: resolve the servers first")
    pool = await pgpool.create_pool(settings.pg_dsn, min_size=1, max_size=3)
    try:
        # Never create an empty log in a mistyped schema: a rebuild reads an existing one.
        if not await has_event_log(pool, settings.pg_schema):
            raise NoEventLog(f"no event log in schema {settings.pg_schema!r} (BELOT_PG_SCHEMA)")
        log_store = EventStore(pool, settings.pg_schema)
        projection = Projection(pool, settings.rating_schema, rating_settings)
        await projection.migrate()
        try:
            return await projection.rebuild(log_store)
        finally:
            await log_store.close()
    finally:
        await pool.close()


def print_report(report: RebuildReport) -> None:
    sys.stdout.write(
        f"rebuilt: {report.events} rating events, {report.matches} matches, "
        f"{report.players} player ratings; checkpoint at position {report.checkpoint}\n"
    )


def main() -> None:
    """``belot serve rating``: serve on ``BELOT_RATING_PORT`` until SIGTERM or SIGINT, on
    the servers ``BELOT_PG_DSN`` / ``BELOT_NATS_URL`` name, else the embedded ones."""
    run_service(NAME, create_app)
