"""The alerts on the real gateway's /status page, judged by the gateway itself and by a
real Prometheus (Debian's ``prometheus``, loading deploy/prometheus/alerts.yml).

The randomness service is a stand-in here: an HTTP server whose /metrics is
prometheus_client's own exposition of a registry of its own, holding the service's
gauge ``belot_randomness_oldest_due_seconds``. The real service sets that gauge from its
timers, which a stuck match would take minutes (or an outage) to move; the page and
Prometheus only read /metrics, so what they are given is exactly what a stuck service
would say.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import CollectorRegistry, Gauge, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from belot_platform.alerts import RULES
from tests.integration.gateway_support import gateway
from tests.integration.table_support import eventually
from tests.ports import free_port
from tests.prometheus_tools import program

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"


class Randomness:
    """The stand-in: /metrics with the randomness service's oldest-due gauge."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.oldest_due = Gauge(
            "belot_randomness_oldest_due_seconds", "oldest due work", registry=self.registry
        )
        app = web.Application()

        async def metrics(_: web.Request) -> web.Response:
            return web.Response(
                body=generate_latest(self.registry), headers={"Content-Type": CONTENT_TYPE_LATEST}
            )

        app.router.add_get("/metrics", metrics)
        self.server = TestServer(app, host="127.0.0.1", port=free_port())

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"


@contextlib.asynccontextmanager
async def randomness_stand_in() -> AsyncIterator[Randomness]:
    stand_in = Randomness()
    await stand_in.server.start_server()
    try:
        yield stand_in
    finally:
        await stand_in.server.close()


async def status(http: TestClient) -> dict[str, Any]:
    r = await http.get("/status?format=json")
    assert r.status == 200
    body: dict[str, Any] = await r.json()
    return body


def rule(body: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in body["alerts"]["rules"] if r["name"] == name)
    return found


async def test_the_gateway_judges_a_stuck_match_from_the_services_metrics(
    servers, store, js_names
) -> None:
    """No Prometheus answers at BELOT_PROMETHEUS_URL: the gateway judges the rules from
    its scrape, says so, and shows the stuck match firing, then ok, then the randomness
    service's scrape failing."""
    nobody = f"http://127.0.0.1:{free_port()}"
    async with randomness_stand_in() as randomness:
        randomness.oldest_due.set(120)
        async with gateway(
            servers,
            store.schema,
            js_names,
            "alerts1",
            status_targets=f"randomness={randomness.address}",
            prometheus_url=nobody,
        ) as http:
            body = await status(http)
            assert body["alerts"]["from"].startswith("judged here from the services' /metrics")
            assert f"Prometheus at {nobody} did not answer" in body["alerts"]["from"]
            assert body["alerts"]["rules"][0]["name"] == "BelotMatchStuck"  # firing first
            stuck = rule(body, "BelotMatchStuck")
            assert (stuck["state"], stuck["value"], stuck["severity"]) == (
                "firing", 120, "critical"
            )  # fmt: skip
            assert stuck["summary"] == (
                "Work due in the randomness service has waited 120 s: a match is stuck"
            )
            assert {r["name"] for r in body["alerts"]["rules"]} == {r.name for r in RULES}
            assert rule(body, "BelotRandomnessDown")["state"] == "ok"
            # The table workers' metrics are not scraped here: nothing to judge them by.
            assert rule(body, "BelotRelayLagging")["state"] == "unknown"

            page = await (await http.get("/status")).text()
            assert "<tr class='firing'><td>firing</td><td>BelotMatchStuck</td>" in page
            assert "waited 120 s: a match is stuck" in page
            text = await (await http.get("/status?format=text")).text()
            assert text.splitlines()[1].split()[:3] == ["firing", "BelotMatchStuck", "120"]

            randomness.oldest_due.set(0)
            stuck = rule(await status(http), "BelotMatchStuck")
            assert (stuck["state"], stuck["value"]) == ("ok", 0)

            await randomness.server.close()  # its scrape now fails
            body = await status(http)
            assert body["services"] == {"randomness": False}
            down = rule(body, "BelotRandomnessDown")
            assert (down["state"], down["labels"]) == (
                "pending", {"instance": "randomness", "job": "randomness"}
            )  # fmt: skip
            assert rule(body, "BelotMatchStuck")["state"] == "unknown"


async def start_prometheus(config: Path, port: int, target: str) -> subprocess.Popen[bytes]:
    """A real Prometheus scraping ``target`` as the job randomness and evaluating
    deploy/prometheus/alerts.yml, both every second."""
    config.write_text(
        yaml.safe_dump(
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(ALERTS)],
                "scrape_configs": [
                    {"job_name": "randomness", "static_configs": [{"targets": [target]}]}
                ],
            }
        ),
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [
            program("prometheus"),
            f"--config.file={config}",
            f"--storage.tsdb.path={config.parent / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(config.parent / "prometheus.log").open("wb"),
    )

    async def ready() -> bool:
        assert proc.poll() is None, (config.parent / "prometheus.log").read_text(encoding="utf-8")
        try:
            async with (
                aiohttp.ClientSession() as http,
                http.get(f"http://127.0.0.1:{port}/-/ready") as r,
            ):
                return r.status == 200
        except aiohttp.ClientError:
            return False

    await eventually(ready, timeout=30)
    return proc


async def test_the_page_shows_what_prometheus_judges(servers, store, js_names) -> None:
    """With BELOT_PROMETHEUS_URL, the states are that Prometheus's: the stuck match fires
    there with its value, then resolves; a rule with no data there is unknown."""
    program("prometheus")
    base = Path(tempfile.mkdtemp(prefix="belot-prometheus-"))
    port = free_port()
    async with randomness_stand_in() as randomness:
        randomness.oldest_due.set(120)
        proc = await start_prometheus(base / "prometheus.yml", port, randomness.address)
        try:
            async with gateway(
                servers,
                store.schema,
                js_names,
                "alerts2",
                status_targets=f"randomness={randomness.address}",
                prometheus_url=f"http://127.0.0.1:{port}",
            ) as http:
                seen: dict[str, Any] = {}

                async def stuck_is(state: str) -> bool:
                    body = await status(http)
                    seen.update(body["alerts"])
                    return rule(body, "BelotMatchStuck")["state"] == state

                await eventually(lambda: stuck_is("firing"), timeout=30)
                assert seen["from"] == f"Prometheus at http://127.0.0.1:{port}"
                body = await status(http)
                stuck = rule(body, "BelotMatchStuck")
                assert stuck["value"] == 120 and stuck["alerts"][0]["state"] == "firing"
                assert stuck["summary"].startswith("Work due in the randomness service has")
                up = rule(body, "BelotRandomnessDown")
                assert (up["state"], up["value"]) == ("ok", 1)  # its up series, from Prometheus
                relay = rule(body, "BelotRelayLagging")
                assert (relay["state"], relay["note"]) == (
                    "unknown", "Prometheus has no data for it"
                )  # fmt: skip

                randomness.oldest_due.set(0)
                await eventually(lambda: stuck_is("ok"), timeout=30)
                assert rule(await status(http), "BelotMatchStuck")["value"] == 0
        finally:
            proc.terminate()
            await asyncio.to_thread(proc.wait, 30)
