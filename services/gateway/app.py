"""Composition of the gateway: accounts, tokens, rate limits, the live hub, the routes,
on top of the platform's app (/healthz, /readyz, /metrics). ``belot serve gateway``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

from aiohttp import web
from argon2 import PasswordHasher

from belot_platform import messaging, outage
from belot_platform.app import NATS, PG_POOL, TASKS, run_service
from belot_platform.app import create_app as create_platform_app
from belot_platform.settings import Settings
from eventlog import EventStore
from services.gateway import status
from services.gateway.domain import RateLimiter, Tokens, token_secret
from services.gateway.handlers import Api
from services.gateway.live import Hub
from services.gateway.store import AccountStore
from services.gateway.tournaments import Tournaments
from services.gateway.tournaments import add_routes as add_tournament_routes
from services.gateway.web import (
    DEFAULT_WEB_DIR,
    SERVED_DIRS,
    StaticSite,
    client_config,
    rulesets_json,
    static_handler,
)

API: Final = web.AppKey("gateway_api", Api)
#: The live hub's follower (the ``task`` label of belot_task_up and restarts).
FOLLOWER_TASK: Final = "gateway-follower"


def create_app(settings: Settings, *, hasher: PasswordHasher | None = None) -> web.Application:
    """The gateway's app; ``hasher`` can be given (tests use cheaper argon2 parameters)."""
    app = create_platform_app(settings, name="gateway")
    holder: dict[str, Api] = {}
    tournaments: list[Tournaments] = []

    @web.middleware
    async def middleware(request: web.Request, handler: messaging.Handler) -> web.StreamResponse:
        api = holder.get("api")
        if api is None:
            return outage.response("the gateway is starting up")
        response: web.StreamResponse = await api.middleware(request, handler)
        return response

    app.middlewares.append(middleware)

    async def service(app: web.Application) -> AsyncIterator[None]:
        nc = app[NATS]
        store = EventStore(app[PG_POOL], settings.pg_schema, producer="gateway")
        accounts = AccountStore(app[PG_POOL], settings.gateway_schema)
        await accounts.migrate()
        secret = await asyncio.to_thread(token_secret, settings.token_secret, settings.data_dir)
        registry = await messaging.kv_bucket(nc.jetstream(), f"{settings.subject_prefix}_tables")
        api_ref: list[Api] = []

        async def fetch_view(table_id: str, player: str) -> dict[str, object] | None:
            return await api_ref[0].fetch_view(table_id, player)

        hub = Hub(
            nc,
            store,
            events_subject=settings.events_subject,
            prefix=settings.subject_prefix,
            fetch_view=fetch_view,
        )
        api = Api(
            nc=nc,
            store=store,
            accounts=accounts,
            tokens=Tokens(secret, settings.token_ttl, settings.token_secret_previous),
            hasher=hasher or PasswordHasher(),
            limiter=RateLimiter(settings.rate_per_second, settings.rate_burst),
            registry=registry,
            hub=hub,
            prefix=settings.subject_prefix,
            timeout=settings.nats_timeout,
            admin_token=settings.admin_token,
        )
        api_ref.append(api)
        app[API] = api
        holder["api"] = api
        tournaments.append(Tournaments(api, settings.admin_token))
        await hub.start()
        follower = app[TASKS].spawn(FOLLOWER_TASK, hub.follow, grace=1.0, stall_after=30.0)
        yield
        await follower.stop()
        await hub.stop()
        await store.close()

    app.cleanup_ctx.append(service)

    # Routes are added now (the router freezes at start); the handlers reach the Api
    # built at start-up through the holder.
    app.router.add_get("/status", status.handler(settings, settings.status_targets))
    add_tournament_routes(app, lambda: tournaments[-1])
    _add_routes(app, holder)
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


def _add_routes(app: web.Application, holder: dict[str, Api]) -> None:
    verbs = ("seed", "bid", "play", "announce", "swap", "redeal", "leave")

    def call(attr: str, verb: str | None = None) -> messaging.Handler:
        async def handler(request: web.Request) -> web.StreamResponse:
            api = holder["api"]
            fn = api.command(verb) if verb is not None else getattr(api, attr)
            response: web.StreamResponse = await fn(request)
            return response

        return handler

    app.router.add_post("/v1/accounts", call("create_account"))
    app.router.add_post("/v1/sessions", call("create_session"))
    app.router.add_get("/v1/lobby", call("lobby"))
    app.router.add_post("/v1/tables", call("create_table"))
    app.router.add_get("/v1/tables/{table_id}", call("get_table"))
    app.router.add_get("/v1/tables/{table_id}/events", call("table_events"))
    app.router.add_post("/v1/tables/{table_id}/seats/{seat}", call("join"))
    app.router.add_get("/v1/ws", call("websocket"))
    for verb in verbs:
        app.router.add_post(f"/v1/tables/{{table_id}}/{verb}", call("command", verb))


def main() -> None:
    run_service("gateway", create_app)
