"""The platform layer on real servers: embedded stack start/stop, NATS helpers, the app
factory's health/readiness/metrics, graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys
import tempfile
import textwrap
import uuid
from pathlib import Path

import aiohttp
import asyncpg
import nats
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from belot_platform import messaging
from belot_platform.app import METRICS_REFRESH, NATS, PG_POOL, TASKS, create_app
from belot_platform.embedded import EmbeddedStack
from belot_platform.settings import Settings
from belot_platform.supervise import Supervised
from tests.integration.conftest import Servers

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]
ROOT = Path(__file__).resolve().parents[2]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_embedded_stack_starts_is_reused_and_stops() -> None:
    base = Path(tempfile.mkdtemp(prefix="belot-stack-"))
    base.chmod(0o755)
    settings = Settings(embedded_pg_port=0, embedded_nats_port=0)
    stack = EmbeddedStack(settings, base)
    try:
        dsn = await asyncio.to_thread(stack.start_postgres)
        url = await asyncio.to_thread(stack.start_nats)
        conn = await asyncpg.connect(dsn)
        assert (await conn.fetchval("SHOW server_version")).startswith("18")
        await conn.close()
        nc = await nats.connect(url)
        await nc.jetstream().account_info()  # JetStream is on
        await nc.close()

        again = EmbeddedStack(settings, base)  # a second start finds them running
        assert await asyncio.to_thread(again.start_postgres) == dsn
        assert await asyncio.to_thread(again.start_nats) == url
        assert not again.postgres.started and not again.nats.started

        pg_port, nats_port = stack.postgres.port, stack.nats.port
        await asyncio.to_thread(stack.stop)
        assert not _listening(pg_port) and not _listening(nats_port)
        assert not (base / "pg" / "postmaster.pid").exists()
        # Data survives a restart.
        assert (await asyncio.to_thread(stack.start_postgres)).startswith("postgresql://")
    finally:
        await asyncio.to_thread(stack.stop)
        shutil.rmtree(base, ignore_errors=True)


async def test_request_reply_with_error_codes(nc: Client) -> None:
    subject = f"t.{uuid.uuid4().hex}.echo"

    async def handler(body: dict[str, object]) -> dict[str, object]:
        if body.get("fail") == "service":
            raise messaging.ServiceError("not_your_turn", "seat 2 is to play")
        if body.get("fail") == "crash":
            raise RuntimeError("boom")
        if body.get("fail") == "slow":
            await asyncio.sleep(1)
        return {"echo": body}

    sub = await messaging.serve(nc, subject, handler, queue="echo")
    try:
        assert await messaging.request(nc, subject, {"a": 1}, timeout=2) == {"echo": {"a": 1}}
        with pytest.raises(messaging.ServiceError) as info:
            await messaging.request(nc, subject, {"fail": "service"}, timeout=2)
        assert (info.value.code, info.value.message) == ("not_your_turn", "seat 2 is to play")
        with pytest.raises(messaging.ServiceError) as info:
            await messaging.request(nc, subject, {"fail": "crash"}, timeout=2)
        assert info.value.code == messaging.INTERNAL
        with pytest.raises(messaging.ServiceError) as info:
            await messaging.request(nc, subject, {"fail": "slow"}, timeout=0.2)
        assert info.value.code == messaging.TIMEOUT
    finally:
        await sub.unsubscribe()
    with pytest.raises(messaging.ServiceError) as info:
        await messaging.request(nc, f"{subject}.nobody", {}, timeout=1)
    assert info.value.code in (messaging.UNAVAILABLE, messaging.TIMEOUT)


async def test_queue_group_shares_the_work(nc: Client, servers: Servers) -> None:
    subject = f"t.{uuid.uuid4().hex}.work"
    other = await messaging.connect(servers.nats_url, name="tests-2")
    got: dict[str, list[int]] = {"a": [], "b": []}

    def member(name: str):
        async def handle(msg: Msg) -> None:
            got[name].append(int(msg.data))

        return handle

    await messaging.subscribe_queue(nc, subject, "workers", member("a"))
    await messaging.subscribe_queue(other, subject, "workers", member("b"))
    await nc.flush()
    await other.flush()
    for i in range(40):
        await nc.publish(subject, str(i).encode())
    await nc.flush()
    for _ in range(100):
        if len(got["a"]) + len(got["b"]) == 40:
            break
        await asyncio.sleep(0.02)
    assert sorted(got["a"] + got["b"]) == list(range(40))
    assert got["a"] and got["b"]
    await other.drain()


async def test_kv_bucket_is_created_once_and_bound_after(js: JetStreamContext) -> None:
    bucket = f"t_{uuid.uuid4().hex[:12]}"
    try:
        kv = await messaging.kv_bucket(js, bucket, ttl=30)
        await kv.put("table-1", b"worker-a")
        again = await messaging.kv_bucket(js, bucket, ttl=30)
        assert (await again.get("table-1")).value == b"worker-a"
        status = await again.status()
        assert status.ttl == 30
    finally:
        await js.delete_key_value(bucket)


async def test_app_health_readiness_and_metrics(servers: Servers) -> None:
    settings = Settings().with_servers(servers.pg_dsn, servers.nats_url)
    app = create_app(settings, name="test-service")
    async with TestClient(TestServer(app)) as client:
        assert isinstance(app[PG_POOL], asyncpg.Pool) and app[NATS].is_connected
        r = await client.get("/healthz")
        assert r.status == 200 and (await r.json())["status"] == "ok"
        r = await client.get("/readyz")
        body = await r.json()
        assert r.status == 200, body
        assert body["checks"] == {"postgres": "ok", "nats": "ok"}
        r = await client.get("/metrics")
        text = await r.text()
        assert r.status == 200 and "belot_eventlog_append_seconds" in text

        # Readiness reports a dependency that stops answering.
        await app[NATS].close()
        r = await client.get("/readyz")
        body = await r.json()
        assert r.status == 503 and body["checks"]["nats"].startswith("failed")


async def test_readiness_names_a_supervised_task_that_is_down(servers: Servers) -> None:
    """A task of the app's supervisor that fails makes /readyz 503, naming it and its
    error; once it runs again, ready. A metrics refresher runs before /metrics renders."""
    settings = Settings().with_servers(servers.pg_dsn, servers.nats_url)
    app = create_app(settings, name="test-service")
    healthy = asyncio.Event()
    running = asyncio.Event()

    async def flaky(t: Supervised) -> None:
        if not healthy.is_set():
            raise ConnectionError("the upstream is away")
        running.set()
        await t.stopping.wait()

    refreshed = []

    async def refresh() -> None:
        refreshed.append(True)

    app[METRICS_REFRESH].append(refresh)
    async with TestClient(TestServer(app)) as client:
        app[TASKS].spawn("test-flaky", flaky)
        r = await client.get("/readyz")
        body = await r.json()
        assert r.status == 503, body
        assert body["checks"] == {"postgres": "ok", "nats": "ok"}
        assert "ConnectionError: the upstream is away" in body["tasks"]["test-flaky"]
        healthy.set()
        await asyncio.wait_for(running.wait(), 30)
        r = await client.get("/readyz")
        assert r.status == 200 and (await r.json())["tasks"] == {"test-flaky": "ok"}
        text = await (await client.get("/metrics")).text()
        assert 'belot_task_up{task="test-flaky"} 1.0' in text
        assert 'belot_task_restarts_total{task="test-flaky"}' in text and refreshed
    assert app[TASKS].tasks["test-flaky"].task.done()  # type: ignore[union-attr]


SERVICE = textwrap.dedent(
    """
    import asyncio, sys
    from aiohttp import web
    from belot_platform.app import create_app, serve
    from belot_platform.logs import configure_logging
    from belot_platform.settings import Settings

    async def main():
        configure_logging("INFO", "json")
        settings = Settings.from_env()
        app = create_app(settings, name="sleeper")

        async def slow(request):
            await asyncio.sleep(1.0)
            return web.json_response({"done": True})

        app.router.add_get("/slow", slow)
        await serve(app, "127.0.0.1", 0, shutdown_timeout=5,
                    on_listening=lambda port: print(port, flush=True))

    asyncio.run(main())
    """
)


async def test_sigterm_finishes_in_flight_requests_then_exits(servers: Servers) -> None:
    env = {**os.environ, "BELOT_PG_DSN": servers.pg_dsn, "BELOT_NATS_URL": servers.nats_url}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SERVICE,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        port = int(await asyncio.wait_for(proc.stdout.readline(), 30))
        async with aiohttp.ClientSession() as session:
            slow = asyncio.create_task(session.get(f"http://127.0.0.1:{port}/slow"))
            await asyncio.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
            response = await slow
            assert response.status == 200 and (await response.json()) == {"done": True}
        _, err = await asyncio.wait_for(proc.communicate(), 20)
        assert proc.returncode == 0, err.decode()
        messages = [line for line in err.decode().splitlines() if line.startswith("{")]
        assert any('"msg":"stopped"' in line for line in messages)
        assert any('"msg":"shutting down"' in line for line in messages)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_web_app_key_types() -> None:
    assert isinstance(PG_POOL, web.AppKey) and isinstance(NATS, web.AppKey)
