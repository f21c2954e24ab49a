"""HTTP plumbing of the verify API: JSON errors, CORS, per-client rate limits, metrics.

Every error is ``{"error": code, "message": text}`` with a 4xx status for bad input (a
route that does not exist and a method it does not take included), 503 ``unavailable``
with Retry-After when the database does not answer, and 500 only for a fault of ours,
which is logged. A refusal is the platform's ``ServiceError``, its status the platform's
table's (``belot_platform.errors``). Middleware order, outermost first: CORS (so error
responses carry its headers too), errors and metrics, rate limit.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson
from aiohttp import web
from prometheus_client import Counter

from belot_platform import outage
from belot_platform.app import error_response, outage_response, refusal_response
from belot_platform.errors import ServiceError

log = logging.getLogger(__name__)

API_PREFIX: Final = "/v1/"

REQUESTS = Counter(
    "belot_verify_requests_total", "Verify API requests by route and status.", ["route", "status"]
)
RATE_LIMITED = Counter("belot_verify_rate_limited_total", "Requests refused with 429.")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        body=orjson.dumps(body),
        status=status,
        content_type="application/json",
        headers=headers,
    )


def route_index(name: str, reference: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    """``GET /``: what this app serves, read from its router when asked (so it lists
    every route, however and whenever it was added), and where the reference is."""

    async def index(request: web.Request) -> web.Response:
        seen = {
            (route.resource.canonical, route.method)
            for route in request.app.router.routes()
            if route.resource is not None and route.method not in ("HEAD", "OPTIONS")
        }
        routes = [{"method": method, "path": path} for path, method in sorted(seen)]
        return json_response({"service": name, "reference": reference, "routes": routes})

    return index


_HTTP_CODES: Final = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
}


def _route(request: web.Request) -> str:
    info = request.match_info
    resource = info.route.resource if info.route is not None else None
    canonical = getattr(resource, "canonical", None)
    return canonical if isinstance(canonical, str) and not info.http_exception else "unmatched"


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except ServiceError as exc:
        response = refusal_response(exc)
    except web.HTTPException as exc:
        if exc.status < 400:  # redirects and the like pass through as they are
            raise
        code = _HTTP_CODES.get(exc.status, f"http_{exc.status}")
        headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
        message = exc.reason if exc.status != 404 else f"no route {request.path}"
        response = error_response(code, message, status=exc.status, headers=headers)
    except Exception as exc:
        if outage.is_outage(exc):  # the database does not answer: not a bug, not for ever
            log.warning("verify API: %s (%s)", outage.what_failed(exc), exc)
            response = outage_response(outage.what_failed(exc))
        else:
            log.exception("verify API: unexpected error", extra={"path": request.path})
            response = error_response("internal", "an unexpected error; it has been logged")
    REQUESTS.labels(_route(request), str(response.status)).inc()
    return response


# --- CORS ---------------------------------------------------------------------------------

CORS_HEADERS: Final = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag, Retry-After, Cache-Control",
}
PREFLIGHT_HEADERS: Final = {
    **CORS_HEADERS,
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Max-Age": "86400",
}


@web.middleware
async def cors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Anyone's browser may read the API: it serves public data and takes no credentials."""
    if request.method == "OPTIONS" and request.path.startswith(API_PREFIX):
        return web.Response(status=204, headers=PREFLIGHT_HEADERS)
    response = await handler(request)
    response.headers.update(CORS_HEADERS)
    return response


# --- rate limits ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RateLimits:
    """A token bucket per client address: ``rate`` tokens a second up to ``burst``. A
    request costs 1 token; a verification ``verify_cost``."""

    rate: float = 20.0
    burst: float = 100.0
    verify_cost: float = 10.0
    max_clients: int = 100_000


class RateLimiter:
    def __init__(self, limits: RateLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str, cost: float) -> float:
        """Spend ``cost`` tokens of ``client``'s bucket; 0 if allowed, else the seconds
        to wait before the request would be."""
        now = self._clock()
        lim = self.limits
        tokens, at = self._buckets.pop(client, (lim.burst, now))
        tokens = min(lim.burst, tokens + (now - at) * lim.rate)
        if tokens >= cost:
            self._buckets[client] = (tokens - cost, now)
            wait = 0.0
        else:
            self._buckets[client] = (tokens, now)
            wait = (min(cost, lim.burst) - tokens) / lim.rate
        while len(self._buckets) > lim.max_clients:  # forget the least recently seen
            self._buckets.popitem(last=False)
        return wait


def rate_limit_middleware(limiter: RateLimiter, costly: frozenset[str]) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX) or request.method == "OPTIONS":
            return await handler(request)
        client = request.remote or "unknown"
        route = _route(request)
        # A costly route is named alone (any method) or as "METHOD route".
        dear = route in costly or f"{request.method} {route}" in costly
        cost = limiter.limits.verify_cost if dear else 1.0
        wait = limiter.take(client, cost)
        if wait > 0:
            RATE_LIMITED.inc()
            retry = max(1, math.ceil(wait))
            raise ServiceError(
                "rate_limited",
                f"too many requests from {client}: retry in {retry} s",
                headers={"Retry-After": str(retry)},
            )
        return await handler(request)

    return middleware
