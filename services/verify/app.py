"""Composition of the verify service: the platform app (/healthz, /readyz, /metrics, the
PostgreSQL pool), read-only access to the event log, the finished-matches projection fed
from it, and the public API under /v1 with CORS, rate limits and JSON errors. With
``BELOT_VERIFY_READ_DSN``, a second pool on the replicas for the API's reads
(:mod:`services.verify.store.reads` says which), checked by /readyz as ``postgres_read``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final, cast

import asyncpg
from aiohttp import web

from belot_platform import pgpool
from belot_platform.app import PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from belot_platform.supervise import Supervised
from drand import verify as drand_verify
from eventlog import EventStore
from fairdeal.verifier.context import BlsCheck
from services.verify.analyses import ANALYSIS_TASK, Analyses
from services.verify.fairplay import FAIRPLAY_TASK, FairPlay, FairPlayApi, preflight_middleware
from services.verify.handlers import MAX_RECORD_BYTES, Api
from services.verify.http import (
    RateLimiter,
    RateLimits,
    cors_middleware,
    errors_middleware,
    rate_limit_middleware,
    route_index,
)
from services.verify.projection import Projection
from services.verify.store import ReadPool
from services.verify.translog import SIGNER_TASK, LogApi, LogService, log_signer, witness_keys

API: Final = web.AppKey("verify_api", Api)
PROJECTION: Final = web.AppKey("verify_projection", Projection)
FEED: Final = web.AppKey("verify_feed", Supervised)
LOG: Final = web.AppKey("verify_translog", LogService)
#: Where the API reads (the replicas' pool, or the primary's without a read DSN).
READS: Final = web.AppKey("verify_reads", ReadPool)
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
    analysis_poll: float = 1.0,
) -> web.Application:
    """The service's app. ``schema``: where its projection lives (default
    ``BELOT_VERIFY_SCHEMA``; tests give their own); ``bls``: the BLS check handed to the
    verifier (drand's)."""
    limiter = RateLimiter(limits or RateLimits())

    async def projection_ready(app: web.Application) -> None:
        problem = app[PROJECTION].problem
        if problem is not None:
            raise RuntimeError(problem)

    async def read_pool_ready(app: web.Application) -> None:
        await app[READS].ping()

    read_dsn = settings.verify_read_dsn
    checks = {"projection": projection_ready}
    if read_dsn is not None:
        checks["postgres_read"] = read_pool_ready
    app = create_platform_app(settings, name="verify", use_nats=False, checks=checks)
    # The fair-play routes' preflight (their Authorization header) before the API's CORS.
    app.middlewares.extend(
        [
            preflight_middleware,
            cors_middleware,
            errors_middleware,
            rate_limit_middleware(limiter, COSTLY_ROUTES),
        ]
    )
    # Routes are registered now (the router freezes at start); the store and the
    # projection are handed to the API once the pool exists.
    api = Api(bls, max_record_bytes=max_record_bytes)
    app[API] = api
    app.router.add_routes(api.routes())
    log_api = LogApi()
    app.router.add_routes(log_api.routes())
    # The operators' fair-play evidence (services/verify/fairplay.py): their token only.
    fairplay_api = FairPlayApi(settings.admin_token)
    app.router.add_routes(fairplay_api.routes())
    signer = log_signer(settings)
    app.router.add_get("/", route_index("verify", "/v1/openapi.json"), allow_head=False)

    async def read_pool(app: web.Application) -> AsyncIterator[None]:
        if read_dsn is None:
            app[READS] = ReadPool(app[PG_POOL], replicas=False)
            yield
            return
        # As large as the primary's: the reads are most of this service's queries.
        pool = await pgpool.create_pool(read_dsn, min_size=1, max_size=settings.pg_pool_max)
        app[READS] = ReadPool(pool, replicas=True)
        yield
        await pool.close()

    async def service(app: web.Application) -> AsyncIterator[None]:
        pool, reads = app[PG_POOL], app[READS]
        # Read-only use of the log: no migration, no append (the store's writer is only
        # started by an append). The feed reads the log on the primary (its position and
        # its effects are written there); the API reads it through ``reads``, whose
        # fetch/acquire are the pool's (services/verify/store/reads.py).
        store = EventStore(pool, settings.pg_schema)
        api_store = EventStore(cast(asyncpg.Pool, reads), settings.pg_schema)
        projection = Projection(pool, schema or settings.verify_schema, reads)
        await projection.migrate()
        app[PROJECTION] = projection
        # The analysis job reads and writes on the primary; the API reads its rows there
        # too (one row a match, read once a page: not worth a replica's lag).
        workers = settings.verify_analysis_workers
        analyses = Analyses(pool, schema or settings.verify_schema, store, bls,
                            poll_interval=analysis_poll, workers=workers)  # fmt: skip
        api.attach(api_store, projection, analyses)
        app[FEED] = feed = app[TASKS].spawn(FEED_TASK, lambda _: projection.feed(store))
        # BELOT_VERIFY_ANALYSIS_WORKERS=0: no job here (another replica, or none, runs it;
        # the API serves what is stored and says analysis_pending for the rest).
        analysing = app[TASKS].spawn(ANALYSIS_TASK, lambda _: analyses.run()) if workers else None
        # The fair-play job follows the analyses, where they are made (one match at a
        # time: its searches are a second a deal).
        fairplay = FairPlay(pool, schema or settings.verify_schema, store,
                            poll_interval=analysis_poll)  # fmt: skip
        fairplay_api.attach(fairplay)
        judging = app[TASKS].spawn(FAIRPLAY_TASK, lambda _: fairplay.run()) if workers else None
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
            reads,
            witness_ttl=float(settings.translog_witness_ttl),
            new_witness_ttl=float(settings.translog_witness_ttl_new),
            witnesses_per_address=settings.translog_witnesses_per_address,
        )
        log_api.attach(log_service)
        signing = app[TASKS].spawn(SIGNER_TASK, log_service.run_signer)
        yield
        await signing.stop()
        if judging is not None:
            await judging.stop()
        if analysing is not None:
            await analysing.stop()
        await feed.stop()

    # The read pool after the primary's (it may be the primary's) and closed before it,
    # once the service's tasks have stopped.
    app.cleanup_ctx.append(read_pool)
    app.cleanup_ctx.append(service)
    return app


def main() -> None:
    run_service("verify", create_app)
