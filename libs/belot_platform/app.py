"""The aiohttp app factory every service starts from, and the service runner.

``create_app(settings, name=...)`` builds an app whose resources (the PostgreSQL pool, the
NATS connection, the :class:`~belot_platform.supervise.Supervisor` of its long-running
tasks) live in ``cleanup_ctx`` under typed ``web.AppKey``s, with ``/healthz`` (the
process answers), ``/readyz`` (each dependency answers within a second, and every
supervised task is up and not lagging: ``"tasks"`` names each with ``"ok"`` or why not)
and ``/metrics`` (prometheus-client; the async refreshers in ``app[METRICS_REFRESH]``
run first, each within a second, so that a value read from a server is current).
``serve(app, ...)`` runs it until SIGTERM or SIGINT, then shuts down in the documented
order: stop accepting connections, let in-flight requests finish (up to the shutdown
timeout), run ``on_shutdown``, then the cleanup contexts in reverse (the services' own,
which stop their tasks; any supervised task left; drain NATS; close the pool).
``run_service(name, build)`` is every service's ``main``: settings from the
environment, logging, the servers (embedded unless named), then ``serve`` on the
service's port. ``error_response`` is every service's HTTP answer to a refusal
(:mod:`belot_platform.errors`), ``outage_response`` its answer to an outage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final

import asyncpg
from aiohttp import web
from nats.aio.client import Client
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

from belot_platform import collector, messaging, outage, pgpool
from belot_platform.errors import ServiceError, status_of
from belot_platform.settings import Settings
from belot_platform.supervise import Supervisor

log = logging.getLogger(__name__)

SETTINGS: Final = web.AppKey("settings", Settings)
PG_POOL: Final = web.AppKey("pg_pool", asyncpg.Pool)
NATS: Final = web.AppKey("nats", Client)
TASKS: Final = web.AppKey("tasks", Supervisor)
#: Refreshed before ``/metrics`` renders (a lag read from two servers, say).
Refresh = Callable[[], Awaitable[None]]
METRICS_REFRESH: Final = web.AppKey("metrics_refresh", list[Refresh])
CHECK_TIMEOUT: Final = 1
#: aiohttp's HTTP parser answers a request line or a header longer than its limit with
#: a plain-text 400 before any app (and its JSON errors) sees it. Its default, 8 KiB,
#: is less than a verify API /v1/decks query with 255 seat seeds, or a long token in a
#: query; 64 KiB leaves every sensible request to the app, in every service alike.
HTTP_LIMIT: Final = 64 * 1024
HTTP_LIMITS: Final = {"max_line_size": HTTP_LIMIT, "max_field_size": HTTP_LIMIT}

Check = Callable[[web.Application], Awaitable[None]]


def error_response(
    code: str,
    message: str,
    *,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    details: Mapping[str, object] | None = None,
) -> web.Response:
    """A refusal as HTTP: ``{"error": code, "message": message}`` (and ``"details"``
    when the refusal carries facts for the client to say) with ``status``
    (default: :func:`~belot_platform.errors.status_of` the code) and ``headers``.

    A NATS reply's ``timeout`` is answered as ``unavailable``
    (:func:`~belot_platform.outage.client_code`), and every 503 carries a
    ``Retry-After`` (the outage's, unless one is given)."""
    code = outage.client_code(code)
    status = status_of(code) if status is None else status
    out = {**outage.headers(), **(headers or {})} if status == 503 else dict(headers or {})
    body: dict[str, object] = {"error": code, "message": message}
    if details:
        body["details"] = dict(details)
    return web.json_response(body, status=status, headers=out)


def refusal_response(exc: ServiceError) -> web.Response:
    """:func:`error_response` of a raised :class:`~belot_platform.errors.ServiceError`."""
    return error_response(
        exc.code, exc.message, status=exc.status, headers=exc.headers, details=exc.details
    )


def outage_response(message: str) -> web.Response:
    """The HTTP answer to an outage: 503 ``unavailable`` with ``Retry-After``."""
    return error_response(outage.UNAVAILABLE, f"{message}: retry in a few seconds")


async def _check_pg(app: web.Application) -> None:
    await app[PG_POOL].fetchval("SELECT 1")


async def _check_nats(app: web.Application) -> None:
    nc = app[NATS]
    if not nc.is_connected:
        raise ConnectionError("not connected")
    await nc.flush(timeout=CHECK_TIMEOUT)


def create_app(
    settings: Settings,
    *,
    name: str,
    use_pg: bool = True,
    use_nats: bool = True,
    checks: Mapping[str, Check] | None = None,
    registry: CollectorRegistry = REGISTRY,
    handler_args: Mapping[str, Any] | None = None,
) -> web.Application:
    """A service's app. ``settings`` must have its server URLs resolved (see
    :func:`belot_platform.embedded.servers`). ``checks`` add readiness checks (each
    raises when not ready). ``handler_args`` go to aiohttp's request handler, over
    :data:`HTTP_LIMITS` (a request the HTTP parser refuses gets aiohttp's plain-text
    400, before any middleware)."""
    app = web.Application(handler_args={**HTTP_LIMITS, **(handler_args or {})})
    app[SETTINGS] = settings
    app[TASKS] = Supervisor()
    app[METRICS_REFRESH] = []
    all_checks: dict[str, Check] = {}

    if use_pg:
        if settings.pg_dsn is None:
            raise ValueError("settings.pg_dsn is unset: resolve the servers first")
        dsn = settings.pg_dsn

        async def pg_pool(app: web.Application) -> AsyncIterator[None]:
            pool = await pgpool.create_pool(dsn, min_size=1, max_size=settings.pg_pool_max)
            app[PG_POOL] = pool
            yield
            await pool.close()

        app.cleanup_ctx.append(pg_pool)
        all_checks["postgres"] = _check_pg

    if use_nats:
        if settings.nats_url is None:
            raise ValueError("settings.nats_url is unset: resolve the servers first")
        url = settings.nats_url

        async def nats_connection(app: web.Application) -> AsyncIterator[None]:
            nc = await messaging.connect(url, name=name)
            app[NATS] = nc
            yield
            # Drain: stop taking messages, finish the handlers running, flush, close.
            # While the server is away there is nothing to drain through: just close.
            if nc.is_connected:
                await nc.drain()
            elif not nc.is_closed:
                with contextlib.suppress(OSError):  # the transport is gone already
                    await nc.close()

        app.cleanup_ctx.append(nats_connection)
        all_checks["nats"] = _check_nats

    async def supervised(app: web.Application) -> AsyncIterator[None]:
        # Cleaned up after the service's own contexts (added later, so cleaned earlier:
        # they stop their tasks in their order) and before NATS and the pool close:
        # whatever task is left is stopped while what it uses still works.
        yield
        await app[TASKS].stop()

    app.cleanup_ctx.append(supervised)
    all_checks.update(checks or {})

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "service": name})

    async def readyz(request: web.Request) -> web.Response:
        results: dict[str, str] = {}
        for check_name, check in all_checks.items():
            try:
                await asyncio.wait_for(check(request.app), CHECK_TIMEOUT)
                results[check_name] = "ok"
            except Exception as exc:  # reported, not raised: this endpoint says what fails
                results[check_name] = f"failed: {type(exc).__name__}: {exc}".strip()
        tasks = await request.app[TASKS].check()
        ready = all(v == "ok" for v in (*results.values(), *tasks.values()))
        return web.json_response(
            {
                "status": "ready" if ready else "not ready",
                "service": name,
                "checks": results,
                "tasks": tasks,
            },
            status=200 if ready else 503,
        )

    async def metrics(request: web.Request) -> web.Response:
        request.app[TASKS].refresh_gauges()
        refreshers = request.app[METRICS_REFRESH]
        if refreshers:
            outcomes = await asyncio.gather(
                *(asyncio.wait_for(refresh(), CHECK_TIMEOUT) for refresh in refreshers),
                return_exceptions=True,
            )
            for outcome in outcomes:
                if isinstance(outcome, BaseException):  # a refresher keeps its own fallback
                    log.debug("metrics refresh failed: %r", outcome)
        return web.Response(
            body=generate_latest(registry), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    return app


async def serve(
    app: web.Application,
    host: str,
    port: int,
    *,
    shutdown_timeout: float = 10.0,
    stop: asyncio.Event | None = None,
    on_listening: Callable[[int], Any] | None = None,
) -> None:
    """Serve ``app`` until SIGTERM/SIGINT (or ``stop`` is set), then shut down gracefully."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=shutdown_timeout)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = port
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            bound = server.sockets[0].getsockname()[1]
        log.info("listening", extra={"host": host, "port": bound})
        if on_listening is not None:
            on_listening(bound)
        await stop.wait()
        log.info("shutting down")
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await runner.cleanup()
        log.info("stopped")


def run_service(name: str, build: Callable[[Settings], web.Application]) -> None:
    """``belot serve <name>``: read the settings, configure logging, resolve the servers
    (``BELOT_PG_DSN`` / ``BELOT_NATS_URL``, else the embedded ones), and serve
    ``build(settings)`` on the service's port until SIGTERM or SIGINT, its garbage
    collector tuned once it listens (:mod:`belot_platform.collector`)."""
    from belot_platform.embedded import servers
    from belot_platform.logs import configure_logging

    settings = Settings.from_env()
    configure_logging(settings.log_level, settings.log_format)
    with servers(settings) as resolved:
        asyncio.run(
            serve(
                build(resolved),
                resolved.http_host,
                resolved.port(name),
                shutdown_timeout=resolved.shutdown_timeout,
                # Started: the process is the service's own, so its collector is tuned.
                on_listening=lambda _port: collector.tune(),
            )
        )
