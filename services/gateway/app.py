"""Composition of the gateway: accounts, tokens, rate limits, the live hub, the routes,
on top of the platform's app (/healthz, /readyz, /metrics). ``belot serve gateway``."""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections.abc import AsyncIterator, Callable
from typing import Final

from aiohttp import web
from argon2 import PasswordHasher

from belot_platform import messaging
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from eventlog import EventStore
from services.gateway import status
from services.gateway.chat import Chat
from services.gateway.domain import RateLimiter, Tokens, token_secret
from services.gateway.handlers import Api, Deps
from services.gateway.live import Hub
from services.gateway.playnow import PlayNow
from services.gateway.ratings import Ratings
from services.gateway.store import AccountStore, ChatStore
from services.gateway.tournaments import Tournaments
from services.gateway.web import (
    DEFAULT_WEB_DIR,
    SERVED_DIRS,
    StaticSite,
    client_config,
    rulesets_json,
    static_handler,
)

log = logging.getLogger(__name__)

API: Final = web.AppKey("gateway_api", Api)
#: The live hub's follower (the ``task`` label of belot_task_up and restarts).
FOLLOWER_TASK: Final = "gateway-follower"
#: The live hub's presence heartbeat (services.gateway.live).
PRESENCE_TASK: Final = "gateway-presence"
#: File descriptors kept for what is not a WebSocket: PostgreSQL, NATS, HTTP, files.
FD_RESERVE: Final = 256


def raise_fd_limit(sockets: int) -> int:
    """Room for ``sockets`` WebSockets (BELOT_GATEWAY_MAX_SOCKETS) besides
    :data:`FD_RESERVE`: the soft limit on open files raised toward the hard one, which
    only the system may raise; a warning when even that is short (past it, accepting a
    connection fails, for HTTP requests too). Returns the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = sockets + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < want:
        soft = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft != resource.RLIM_INFINITY and soft < want:
        log.warning(
            "open files are limited to %d: fewer than BELOT_GATEWAY_MAX_SOCKETS=%d plus %d "
            "(raise the hard limit, ulimit -Hn, or lower the setting)",
            soft,
            sockets,
            FD_RESERVE,
        )
    return int(soft)


def create_app(
    settings: Settings,
    *,
    hasher: PasswordHasher | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> web.Application:
    """The gateway's app; ``hasher`` can be given (tests use cheaper argon2 parameters),
    and the rate limiter's ``clock`` (seconds: a test moves it instead of waiting)."""
    app = create_platform_app(settings, name="gateway")
    api = Api(
        hasher=hasher or PasswordHasher(),
        limiter=RateLimiter(settings.rate_per_second, settings.rate_burst),
        prefix=settings.subject_prefix,
        timeout=settings.nats_timeout,
        admin_token=settings.admin_token,
        clock=clock,
    )
    app[API] = api
    app.middlewares.append(api.middleware)
    chat = Chat(api)

    async def service(app: web.Application) -> AsyncIterator[None]:
        raise_fd_limit(settings.gateway_max_sockets)
        nc = app[NATS]
        store = EventStore(app[PG_POOL], settings.pg_schema, producer="gateway")
        accounts = AccountStore(app[PG_POOL], settings.gateway_schema)
        await accounts.migrate()
        chat.attach(ChatStore(app[PG_POOL], settings.gateway_schema))
        secret = await asyncio.to_thread(token_secret, settings.token_secret, settings.data_dir)
        registry = await messaging.kv_bucket(nc.jetstream(), f"{settings.subject_prefix}_tables")
        hub = Hub(
            nc,
            store,
            events_subject=settings.events_subject,
            prefix=settings.subject_prefix,
            chat_history=chat.history,
            max_sockets=settings.gateway_max_sockets,
            presence_seconds=settings.presence_seconds,
        )
        tokens = Tokens(secret, settings.token_ttl, settings.token_secret_previous)
        api.attach(Deps(nc, store, accounts, tokens, registry, hub))
        await hub.start()
        follower = app[TASKS].spawn(FOLLOWER_TASK, hub.follow, grace=1.0, stall_after=30.0)
        heartbeat = app[TASKS].spawn(PRESENCE_TASK, hub.presence, grace=1.0)
        yield
        await heartbeat.stop()
        await follower.stop()
        await hub.stop()
        await store.close()

    app.cleanup_ctx.append(service)
    # Routes are added now: the router freezes at start, before the Api has its Deps.
    app.router.add_get("/status", status.handler(settings, settings.status_targets))
    app.router.add_routes(Tournaments(api, settings.admin_token).routes())
    app.router.add_routes(api.routes())
    app.router.add_routes(chat.routes())
    app.router.add_routes(Ratings(api).routes())
    app.router.add_routes(PlayNow(api, settings.play_now_wait).routes())
    _add_web_client(app, settings)
    return app


def _add_web_client(app: web.Application, settings: Settings) -> None:
    """The web client's files at / (index.html, js/, css/, img/, vendor/), and what it
    asks first."""
    root = settings.web_dir or DEFAULT_WEB_DIR
    site = StaticSite(root) if (root / "index.html").is_file() else None
    files = static_handler(site, settings)
    app.router.add_get("/", files)
    app.router.add_get("/index.html", files)
    for folder in SERVED_DIRS:
        app.router.add_get(f"/{folder}/{{path:.+}}", files)

    async def config(request: web.Request) -> web.Response:
        return web.json_response(client_config(settings, request))

    rulesets = rulesets_json()

    async def list_rulesets(request: web.Request) -> web.Response:
        return web.json_response(rulesets, headers={"Cache-Control": "public, max-age=300"})

    app.router.add_get("/v1/config", config)
    app.router.add_get("/v1/rulesets", list_rulesets)


def main() -> None:
    run_service("gateway", create_app)
