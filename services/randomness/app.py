"""Composition of the randomness service: settings, stores, drand client, NATS handlers,
and the HTTP app with /healthz, /readyz and /metrics."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
from aiohttp import web

from belot_platform import messaging
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from drand.chain import CHAINS
from drand.client import DrandClient
from drand.clock import Clock, SystemClock
from eventlog import EventStore
from fairdeal import logentries
from services.randomness.handlers import SUBJECT, Handlers
from services.randomness.service import RandomnessService
from services.randomness.store import SeedStore

SERVICE: Final = web.AppKey("randomness", RandomnessService)
QUEUE: Final = "randomness"


def subject_of(settings: Settings) -> str:
    """``belot.randomness`` (the first token is ``BELOT_SUBJECT_PREFIX``)."""
    return SUBJECT.replace("belot", settings.subject_prefix, 1)


def create_app(
    settings: Settings, *, clock: Clock | None = None, drand: DrandClient | None = None
) -> web.Application:
    """The service's app; ``clock`` and ``drand`` can be given (tests run a virtual clock
    and a local relay)."""
    app = create_platform_app(settings, name="randomness")
    the_clock = clock or SystemClock()
    chain = CHAINS[settings.drand_chain]

    async def service(app: web.Application) -> AsyncIterator[None]:
        nc = app[NATS]
        # Entries: the commitment, the round named, a fallback, a round missed and the
        # reveal go into the transparency log with their events.
        store = await EventStore.open(
            app[PG_POOL], settings.pg_schema, producer="randomness", entries=logentries
        )
        seeds = SeedStore(app[PG_POOL], settings.randomness_schema)
        await seeds.migrate()
        client = drand or DrandClient(settings.drand_urls, chain, clock=the_clock)

        subject = subject_of(settings)

        async def notify(match_id: str, body: dict[str, Any]) -> None:
            await nc.publish(f"{subject}.fixed.{match_id}", orjson.dumps(body))

        svc = RandomnessService(
            store,
            seeds,
            client,
            the_clock,
            window_ms=int(settings.seed_window * 1000),
            notify=notify,
            supervisor=app[TASKS],
        )
        app[SERVICE] = svc
        handlers = Handlers(svc, chain.name, subject)
        subs = [
            await messaging.serve(nc, subject, handler, queue=QUEUE)
            for subject, handler in handlers.routes().items()
        ]
        await svc.start()
        yield
        for sub in subs:
            await sub.unsubscribe()
        await svc.stop()
        await store.close()
        if drand is None:
            await client.close()

    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    run_service("randomness", create_app)
