"""Composition of the verify service: the platform app (/healthz, /readyz, /metrics, the
PostgreSQL pool), read-only access to the event log, the finished-matches projection fed
from it, and the public API under /v1 with CORS, rate limits and JSON errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web

from belot_platform.app import PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from belot_platform.supervise import Supervised
from drand import verify as drand_verify
from eventlog import EventStore
from fairdeal.verifier.context import BlsCheck
from services.verify.handlers import MAX_RECORD_BYTES, Api
from services.verify.http import (
    RateLimiter,
    RateLimits,
    cors_middleware,
    errors_middleware,
    rate_limit_middleware,
    route_index,
)
from services.verify.store import Projection
from services.verify.translog import SIGNER_TASK, LogApi, LogService, log_signer, witness_keys

API: Final = web.AppKey("verify_api", Api)
PROJECTION: Final = web.AppKey("verify_projection", Projection)
FEED: Final = web.AppKey("verify_feed", Supervised)
LOG: Final = web.AppKey("verify_translog", LogService)
#: The feed's supervised task (the ``task`` label of belot_task_up and restarts).
FEED_TASK: Final = "verify-feed"
#: Routes that cost ``verify_cost`` tokens: the verifications (CPU), and a witness's
#: registration (a row kept for good, checked on every cosignature after).
COSTLY_ROUTES: Final = frozenset(
    {"/v1/verify", "/v1/matches/{match_id}/verification", "POST /v1/log/witnesses"}
)


def create_app(
    settings: Settings,
    *,
    schema: str | None = None,
    limits: RateLimits | None = None,
    bls: BlsCheck | None = drand_verify,
    max_record_bytes: int = MAX_RECORD_BYTES,
) -> web.Application:
    """The service's app. ``schema``: where its projection lives (default
    ``BELOT_VERIFY_SCHEMA``; tests give their own); ``bls``: the BLS check handed to the
    verifier (drand's)."""
    limiter = RateLimiter(limits or RateLimits())

    async def projection_ready(app: web.Application) -> None:
        problem = app[PROJECTION].problem
        if problem is not None:
            raise RuntimeError(problem)

    app = create_platform_app(
        settings,
        name="verify",
        use_nats=False,
        checks={"projection": projection_ready},
    )
    app.middlewares.extend(
        [cors_middleware, errors_middleware, rate_limit_middleware(limiter, COSTLY_ROUTES)]
    )
    # Routes are registered now (the router freezes at start); the store and the
    # projection are handed to the API once the pool exists.
    api = Api(bls, max_record_bytes=max_record_bytes)
    app[API] = api
    app.router.add_routes(api.routes())
    log_api = LogApi()
    app.router.add_routes(log_api.routes())
    signer = log_signer(settings)
    app.router.add_get("/", route_index("verify", "/v1/openapi.json"), allow_head=False)

    async def service(app: web.Application) -> AsyncIterator[None]:
        pool = app[PG_POOL]
        # Read-only use of the log: no migration, no append (the store's writer is only
        # started by an append).
        store = EventStore(pool, settings.pg_schema)
        projection = Projection(pool, schema or settings.verify_schema)
        await projection.migrate()
        app[PROJECTION] = projection
        api.attach(store, projection)
        app[FEED] = feed = app[TASKS].spawn(FEED_TASK, lambda _: projection.feed(store))
        # The transparency log: reads, cosignatures, and the signer (its key is this
        # process's only: services/verify/translog.py says why it lives here).
        app[LOG] = log_service = LogService(
            pool,
            settings.pg_schema,
            schema or settings.verify_schema,
            signer,
            witness_keys(settings),
            settings.translog_interval,
            settings.translog_max_witnesses,
        )
        log_api.attach(log_service)
        signing = app[TASKS].spawn(SIGNER_TASK, log_service.run_signer)
        yield
        await signing.stop()
        await feed.stop()

    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    run_service("verify", create_app)
