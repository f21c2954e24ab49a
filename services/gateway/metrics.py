"""The gateway's Prometheus metrics: requests by route and status, latency, errors by
code, open WebSockets and those refused past the limit."""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Gauge, Histogram

REQUESTS: Final = Counter(
    "belot_gateway_requests_total",
    "HTTP requests answered, by method, route pattern and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS: Final = Histogram(
    "belot_gateway_request_seconds",
    "Time to answer an HTTP request, by route pattern.",
    ["route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15),
)
ERRORS: Final = Counter("belot_gateway_errors_total", "Error answers, by error code.", ["code"])
WEBSOCKETS: Final = Gauge("belot_gateway_websockets", "Open player WebSockets.")
WEBSOCKETS_REFUSED: Final = Counter(
    "belot_gateway_websockets_refused_total",
    "WebSockets closed at once because the gateway had BELOT_GATEWAY_MAX_SOCKETS open.",
)
