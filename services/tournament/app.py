"""The tournament service's composition root: ``create_app(settings)`` and ``main``
(``belot serve tournament``).

The platform's app (PostgreSQL pool, NATS, ``/healthz``, ``/readyz``, ``/metrics``) plus,
in one cleanup context: the event store, the service's schema (migrated on start), the
engine (its clock loop, results consumer and sweep) and the NATS responders in the queue
group ``tournament``. Shutdown runs backwards: stop answering, stop the engine (the
command in hand finishes or rolls back; nothing is lost: the log and the checkpoint say
where to resume), close the store; then the platform drains NATS and closes the pool.
Readiness includes the consumer.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web
from argon2 import PasswordHasher

from belot_platform import messaging
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from drand.chain import CHAINS
from drand.client import DrandClient
from eventlog import EventStore
from fairdeal.draw import DRAW_CHAIN
from services.tournament.engine import Clock, Engine, wall_clock
from services.tournament.handlers import QUEUE, Handlers
from services.tournament.store import TournamentStore

NAME: Final = "tournament"
ENGINE: Final = web.AppKey("tournament_engine", Engine)


def create_app(
    settings: Settings,
    *,
    clock: Clock = wall_clock,
    tick: float = 1.0,
    hasher: PasswordHasher | None = None,
    drand: DrandClient | None = None,
) -> web.Application:
    """The tournament service. ``settings`` must have its server URLs resolved;
    ``clock`` (unix milliseconds) and ``tick`` (the clock loop's longest sleep) are for
    tests that move time themselves; ``drand``, the client the draws ask for their named
    round (default: ``settings.drand_urls`` on the draw's chain, quicknet), for tests
    that serve recorded beacons."""
    holder: dict[str, Engine] = {}

    async def consumer_ready(app: web.Application) -> None:
        engine = holder.get("engine")
        if engine is None or engine.results.consumer_error is not None:
            raise RuntimeError(
                f"consumer: {engine.results.consumer_error if engine else 'starting'}"
            )

    app = create_platform_app(settings, name=NAME, checks={"consumer": consumer_ready})

    async def service(app: web.Application) -> AsyncIterator[None]:
        log_store = await EventStore.open(
            app[PG_POOL], settings.pg_schema, producer=NAME, app_role=settings.pg_app_role
        )
        store = TournamentStore(log_store, app[PG_POOL], settings.tournament_schema)
        await store.migrate()
        client = drand or DrandClient(settings.drand_urls, CHAINS[DRAW_CHAIN])
        engine = Engine(
            store,
            app[NATS],
            client,
            prefix=settings.subject_prefix,
            clock=clock,
            timeout=settings.nats_timeout,
            tick=tick,
            hasher=hasher,
            supervisor=app[TASKS],
        )
        app[ENGINE] = engine
        holder["engine"] = engine
        await engine.startup()
        subs = [
            await messaging.serve(app[NATS], subject, handler, queue=QUEUE)
            for subject, handler in Handlers(engine, settings.subject_prefix).routes().items()
        ]
        # Ready means answering: the server has our subscriptions before /readyz says so.
        await app[NATS].flush()
        try:
            yield
        finally:
            for sub in subs:
                with contextlib.suppress(Exception):
                    await sub.unsubscribe()
            await engine.shutdown()
            if drand is None:
                await client.close()
            await log_store.close()

    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    """``belot serve tournament``: serve on ``BELOT_TOURNAMENT_PORT`` until SIGTERM."""
    run_service(NAME, create_app)
