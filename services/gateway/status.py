"""``/status`` on the gateway: a small status page for when Grafana is not there, made
from the same Prometheus metrics the dashboards use. The gateway scrapes every service's
``/metrics`` (``BELOT_STATUS_TARGETS``, else each service's configured port on
``BELOT_HTTP_HOST``) and sums what they say. HTML by default; ``?format=text`` or
``?format=json``.

First on the page, the alerts: every rule of :mod:`belot_platform.alerts` (the ones
``deploy/prometheus/alerts.yml`` is generated from) with its state, firing, pending, ok
or unknown, and its value. With ``BELOT_PROMETHEUS_URL`` they are that Prometheus's:
``/api/v1/rules`` gives each rule's state and its active alerts with their values (and
says whether the rule is loaded at all, which ``/api/v1/alerts`` would not), and an
instant query of a quiet rule's measure gives its value; so the page says what the pager
says. Without the setting, or when that Prometheus does not answer (the page says so),
the gateway judges the same rules from the scrape it has just made
(:class:`belot_platform.alerts.Evaluator`, which also keeps what increases and ``for``
need between two views of the page).
"""

from __future__ import annotations

import asyncio
import html
import math
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import aiohttp
import orjson
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from belot_platform import alerts
from belot_platform.alerts import RULES, Alert, Labels, Rule, RuleStatus
from belot_platform.app import error_response
from belot_platform.settings import SERVICES, Settings, redact


@dataclass
class Scrape:
    """Samples summed over every target: name -> labels (sorted tuple) -> value."""

    up: dict[str, bool] = field(default_factory=dict)
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(float))
    )
    #: The same samples by target, not summed (what the alert rules read).
    by_target: dict[str, dict[str, dict[Labels, float]]] = field(default_factory=dict)

    def add(self, text: str, target: str = "") -> None:
        own = self.by_target.setdefault(target, {})
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                key = tuple(sorted(sample.labels.items()))
                self.samples[sample.name][key] += sample.value
                own.setdefault(sample.name, {})[key] = sample.value

    def scrapes(self) -> dict[str, Mapping[str, Mapping[Labels, float]] | None]:
        """Each target's samples, None for a target whose scrape failed."""
        return {t: self.by_target.get(t, {}) if up else None for t, up in self.up.items()}

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
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
        return await scrape_with(http, urls)


async def scrape_with(http: aiohttp.ClientSession, urls: Mapping[str, str]) -> Scrape:
    result = Scrape()

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
        result.add(text, name)

    await asyncio.gather(*(one(n, u) for n, u in urls.items()))
    return result


# ---------------------------------------------------------------------- alerts


class PrometheusError(Exception):
    """Prometheus did not answer, or not as its HTTP API says it does."""


async def _api(http: aiohttp.ClientSession, url: str, params: Mapping[str, str]) -> Any:
    """The ``data`` of a Prometheus API answer; raises :class:`PrometheusError`."""
    try:
        async with http.get(url, params=params) as r:
            status = r.status
            body = await r.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
        raise PrometheusError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from None
    if not isinstance(body, dict) or body.get("status") != "success" or "data" not in body:
        said = body.get("error") if isinstance(body, dict) else None
        raise PrometheusError(f"HTTP {status}: {said or 'not an API answer'}")
    return body["data"]


def _labels(given: Any) -> Labels:
    """An alert's labels without those every alert of the rule has."""
    drop = {"alertname", "severity", "__name__"}
    return tuple(sorted((str(k), str(v)) for k, v in dict(given).items() if k not in drop))


async def from_prometheus(
    http: aiohttp.ClientSession, base: str, rules: Sequence[Rule] = RULES
) -> list[RuleStatus]:
    """Each rule's state as the Prometheus at ``base`` judges it; raises
    :class:`PrometheusError` when it does not answer."""
    data = await _api(http, f"{base}/api/v1/rules", {"type": "alert"})
    try:
        loaded = {r["name"]: r for g in data["groups"] for r in g["rules"]}
    except (KeyError, TypeError) as exc:
        raise PrometheusError(f"unexpected rules answer ({type(exc).__name__})") from None

    async def one(rule: Rule) -> RuleStatus:
        got = loaded.get(rule.name)
        if got is None:
            return RuleStatus(rule, "unknown", note="not loaded in Prometheus (alerts.yml)")
        if got.get("health") == "err":
            return RuleStatus(rule, "unknown", note=f"Prometheus: {got.get('lastError', '')}")
        try:
            active = [
                Alert(_labels(a["labels"]), float(a["value"]), a["state"])
                for a in got.get("alerts") or []
                if a.get("state") in ("firing", "pending")
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise PrometheusError(f"unexpected alert ({type(exc).__name__})") from None
        if active:
            active.sort(key=lambda a: (a.state != "firing", a.labels))
            top = active[0]
            return RuleStatus(rule, top.state, top.value, top.labels, tuple(active))
        first = rule.when[0]
        result = await _api(http, f"{base}/api/v1/query", {"query": first.measure.promql()})
        try:
            values = {_labels(r["metric"]): float(r["value"][1]) for r in result["result"]}
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise PrometheusError(f"unexpected query answer ({type(exc).__name__})") from None
        if not values:
            return RuleStatus(rule, "unknown", note="Prometheus has no data for it")
        top_labels = alerts.worst(first, values)
        return RuleStatus(rule, "ok", values[top_labels], top_labels)

    return list(await asyncio.gather(*(one(r) for r in rules)))


#: The order of the page: what needs a person first.
STATE_ORDER: Final = {"firing": 0, "pending": 1, "unknown": 2, "ok": 3}


class AlertView:
    """The alerts of the page: Prometheus's when ``prometheus_url`` is given and answers,
    else judged from each scrape (every scrape is also judged here, so the page has the
    history it needs the moment Prometheus stops answering)."""

    def __init__(self, prometheus_url: str | None) -> None:
        self.prometheus_url = prometheus_url
        self.evaluator = alerts.Evaluator()

    async def judge(
        self, http: aiohttp.ClientSession, scraped: Scrape, now: float
    ) -> dict[str, Any]:
        statuses = self.evaluator.observe(now, scraped.scrapes())
        source = "judged here from the services' /metrics"
        if self.prometheus_url is not None:
            where = redact(self.prometheus_url)
            try:
                statuses = await from_prometheus(http, self.prometheus_url)
                source = f"Prometheus at {where}"
            except PrometheusError as exc:
                source = f"{source}: Prometheus at {where} did not answer ({exc})"
        ordered = sorted(statuses, key=lambda s: STATE_ORDER[s.state])
        return {"from": source, "rules": [s.to_json() for s in ordered]}


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


def _alert_rows(data: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """(state, rule, value, what) for each rule on the page."""
    units = {r.name: r.unit for r in RULES}
    rows = []
    for rule in data.get("alerts", {}).get("rules", []):
        value = alerts.format_value(rule["value"], units.get(rule["name"], "count"))
        what = rule["summary"] if rule["state"] in ("firing", "pending") else rule["note"]
        rows.append((rule["state"], rule["name"], value, what))
    return rows


def _metrics(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "alerts"}


def to_text(data: Mapping[str, Any]) -> str:
    lines = []
    if "alerts" in data:
        lines.append(f"alerts ({data['alerts']['from']}):")
        lines += [f"  {s:<8} {n:<32} {v:>6}  {w}".rstrip() for s, n, v, w in _alert_rows(data)]
    return "\n".join([*lines, *_lines(_metrics(data))]) + "\n"


def to_html(data: Mapping[str, Any]) -> str:
    rows = "\n".join(
        f"<tr><td>{html.escape(line.split(':', 1)[0])}</td>"
        f"<td>{html.escape(line.split(':', 1)[1] if ':' in line else '')}</td></tr>"
        for line in _lines(_metrics(data))
    )
    alert_rows = "\n".join(
        f"<tr class='{html.escape(s)}'><td>{html.escape(s)}</td><td>{html.escape(n)}</td>"
        f"<td>{html.escape(v)}</td><td>{html.escape(w)}</td></tr>"
        for s, n, v, w in _alert_rows(data)
    )
    source = html.escape(data["alerts"]["from"]) if "alerts" in data else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta http-equiv='refresh' content='5'><title>belot status</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}"
        "td{padding:2px 12px;white-space:pre;font-family:ui-monospace,monospace}"
        ".firing td:first-child{color:#b00;font-weight:bold}"
        ".pending td:first-child{color:#b60}.ok td:first-child{color:#070}"
        ".unknown td:first-child{color:#777}</style>"
        "</head><body><h1>belot status</h1>"
        f"<h2>alerts</h2><p>{source}; what each means and what to do: docs/alerts.md.</p>"
        f"<table>{alert_rows}</table>"
        f"<h2>metrics</h2><table>{rows}</table>"
        "<p>From every service's /metrics, summed; refreshes every 5 s. "
        "?format=text or ?format=json for machines.</p></body></html>"
    )


def handler(settings: Settings, configured: str | None, timeout: float = 2.0) -> Any:
    urls = targets(settings, configured)
    view = AlertView(settings.prometheus_url)

    async def status(request: web.Request) -> web.Response:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http:
            scraped = await scrape_with(http, urls)
            judged = await view.judge(http, scraped, time.monotonic())
        data = {"alerts": judged, **summary(scraped)}
        fmt = request.query.get("format", "html")
        if fmt == "json":
            return web.Response(body=orjson.dumps(data), content_type="application/json")
        if fmt == "text":
            return web.Response(text=to_text(data), content_type="text/plain")
        if fmt != "html":
            return error_response("bad_request", "format is html, text or json")
        return web.Response(text=to_html(data), content_type="text/html")

    return status
