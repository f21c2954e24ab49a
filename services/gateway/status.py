"""``/status`` on the gateway: a small status page for when Grafana is not there, made
from the same Prometheus metrics the dashboards use. The gateway scrapes every service's
``/metrics`` (``BELOT_STATUS_TARGETS``, else each service's configured port on
``BELOT_HTTP_HOST``) and sums what they say. HTML by default; ``?format=text`` or
``?format=json``."""

from __future__ import annotations

import asyncio
import html
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import orjson
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from belot_platform.settings import SERVICES, Settings


@dataclass
class Scrape:
    """Samples summed over every target: name -> labels (sorted tuple) -> value."""

    up: dict[str, bool] = field(default_factory=dict)
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(float))
    )

    def add(self, text: str) -> None:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                key = tuple(sorted(sample.labels.items()))
                self.samples[sample.name][key] += sample.value

    def total(self, name: str, **match: str) -> float:
        return sum(
            v
            for labels, v in self.samples.get(name, {}).items()
            if all(dict(labels).get(k) == want for k, want in match.items())
        )

    def by(self, name: str, label: str) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for labels, v in self.samples.get(name, {}).items():
            out[dict(labels).get(label, "")] += v
        return dict(out)

    def quantile(self, histogram: str, q: float) -> float | None:
        """``histogram_quantile`` over the summed buckets (linear within a bucket)."""
        buckets: dict[float, float] = defaultdict(float)
        for labels, v in self.samples.get(f"{histogram}_bucket", {}).items():
            buckets[float(dict(labels)["le"])] += v
        return bucket_quantile(sorted(buckets.items()), q)


def bucket_quantile(buckets: list[tuple[float, float]], q: float) -> float | None:
    """Prometheus's histogram_quantile on cumulative ``(upper bound, count)`` pairs."""
    if not buckets or buckets[-1][1] == 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if math.isinf(bound):
                return lower  # in the +Inf bucket: the highest finite bound
            if count == below:
                return bound
            return lower + (bound - lower) * (rank - below) / (count - below)
        lower, below = bound, count
    return lower


def targets(settings: Settings, configured: str | None) -> dict[str, str]:
    """name -> base URL; ``configured`` is ``name=host:port,...`` (BELOT_STATUS_TARGETS)."""
    if configured:
        out = {}
        for item in configured.split(","):
            name, _, address = item.strip().partition("=")
            if name and address:
                out[name] = address if "://" in address else f"http://{address}"
        return out
    host = settings.http_host if settings.http_host not in ("0.0.0.0", "::") else "127.0.0.1"
    return {s: f"http://{host}:{settings.port(s)}" for s in SERVICES}


async def scrape(urls: Mapping[str, str], timeout: float = 2.0) -> Scrape:
    result = Scrape()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:

        async def one(name: str, base: str) -> None:
            try:
                async with http.get(f"{base}/metrics") as r:
                    if r.status != 200:
                        result.up[name] = False
                        return
                    text = await r.text()
            except (aiohttp.ClientError, TimeoutError, OSError):
                result.up[name] = False
                return
            result.up[name] = True
            result.add(text)

        await asyncio.gather(*(one(n, u) for n, u in urls.items()))
    return result


def summary(s: Scrape) -> dict[str, Any]:
    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 2)

    return {
        "services": dict(sorted(s.up.items())),
        "tables_owned": s.total("belot_tables_owned"),
        "tables_by_state": s.by("belot_tables_by_state", "state"),
        "deals": s.total("belot_table_deals_total"),
        "matches_finished": s.total("belot_table_matches_finished_total"),
        "command_ms": {
            "p50": ms(s.quantile("belot_table_command_seconds", 0.5)),
            "p99": ms(s.quantile("belot_table_command_seconds", 0.99)),
        },
        "append_ms": {
            "p50": ms(s.quantile("belot_eventlog_append_seconds", 0.5)),
            "p99": ms(s.quantile("belot_eventlog_append_seconds", 0.99)),
        },
        "events_appended": s.total("belot_eventlog_events_appended_total"),
        "outbox_lag_events": s.total("belot_eventlog_relay_lag_events"),
        "drand": {
            "rounds_used": s.total("belot_drand_rounds_used_total"),
            "fallbacks": s.total("belot_drand_fallbacks_total"),
            "beacons": s.by("belot_drand_beacons_total", "result"),
        },
        "websockets": s.total("belot_gateway_websockets"),
        "gateway_errors": s.by("belot_gateway_errors_total", "code"),
        "verifications": s.by("belot_verify_verifications_total", "result"),
        "failed_checks": s.by("belot_verify_failed_checks_total", "check"),
        "ratings_consumed": s.by("belot_rating_matches_consumed_total", "verdict"),
    }


def _lines(data: Mapping[str, Any], indent: str = "") -> Iterable[str]:
    for key, value in data.items():
        if isinstance(value, Mapping):
            if not value:
                yield f"{indent}{key}: -"
                continue
            yield f"{indent}{key}:"
            yield from _lines(value, indent + "  ")
        else:
            shown = "up" if value is True else "DOWN" if value is False else value
            if isinstance(shown, float) and shown.is_integer():
                shown = int(shown)
            yield f"{indent}{key}: {'-' if shown is None else shown}"


def to_text(data: Mapping[str, Any]) -> str:
    return "\n".join(_lines(data)) + "\n"


def to_html(data: Mapping[str, Any]) -> str:
    rows = "\n".join(
        f"<tr><td>{html.escape(line.split(':', 1)[0])}</td>"
        f"<td>{html.escape(line.split(':', 1)[1] if ':' in line else '')}</td></tr>"
        for line in _lines(data)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta http-equiv='refresh' content='5'><title>belot status</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}"
        "td{padding:2px 12px;white-space:pre;font-family:ui-monospace,monospace}</style>"
        f"</head><body><h1>belot status</h1><table>{rows}</table>"
        "<p>From every service's /metrics, summed; refreshes every 5 s. "
        "?format=text or ?format=json for machines.</p></body></html>"
    )


def handler(settings: Settings, configured: str | None) -> Any:
    urls = targets(settings, configured)

    async def status(request: web.Request) -> web.Response:
        data = summary(await scrape(urls))
        fmt = request.query.get("format", "html")
        if fmt == "json":
            return web.Response(body=orjson.dumps(data), content_type="application/json")
        if fmt == "text":
            return web.Response(text=to_text(data), content_type="text/plain")
        if fmt != "html":
            return web.json_response(
                {"error": "bad_request", "message": "format is html, text or json"}, status=400
            )
        return web.Response(text=to_html(data), content_type="text/html")

    return status
