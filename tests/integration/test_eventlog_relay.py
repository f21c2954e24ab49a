"""The outbox relay puts every event on JetStream once, in order, across restarts and a
kill -9 in the middle of publishing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from nats.js import JetStreamContext

from eventlog import EventStore, NewEvent
from eventlog.relay import OutboxRelay
from tests.integration.conftest import Servers, StreamNames

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]
ROOT = Path(__file__).resolve().parents[2]


async def _positions(js: JetStreamContext, stream: str) -> list[int]:
    """Every message's Nats-Msg-Id, in stream order, checked against its body."""
    info = await js.stream_info(stream)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(stream, seq=seq)
        assert msg.headers is not None and msg.data is not None
        body = orjson.loads(msg.data)
        assert int(msg.headers["Nats-Msg-Id"]) == body["position"]
        out.append(body["position"])
    return out


async def _append(store: EventStore, n: int, tag: str) -> None:
    await asyncio.gather(
        *(
            store.append(
                f"match-{tag}{s}", 0, [NewEvent("E", {"s": s, "i": i}) for i in range(n // 10)]
            )
            for s in range(10)
        )
    )


async def test_relay_publishes_each_event_once_in_order(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    await _append(store, 200, "a")
    relay = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await relay.ensure_stream()
    assert await relay.relay_once() == 200
    assert await relay.relay_once() == 0
    await _append(store, 50, "b")
    assert await relay.relay_once() == 50
    assert await _positions(js, js_names.stream) == list(range(1, 251))
    msg = await js.get_msg(js_names.stream, seq=1)
    assert msg.subject.startswith(f"{js_names.subject_prefix}.match.match-a")


async def test_a_restarted_relay_neither_repeats_nor_skips_beyond_the_duplicate_window(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """The offset table lags JetStream (a crash between the ack and the offset update)
    and the duplicate window has long passed: the new relay still starts after the last
    message JetStream holds."""
    await _append(store, 100, "a")
    first = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await first.ensure_stream(duplicate_window=0.2)
    await first.relay_once()
    await store.pool.execute(f'UPDATE "{store.schema}".relay_offsets SET position = 10')
    await asyncio.sleep(0.5)
    await _append(store, 30, "b")
    second = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    assert await second.relay_once() == 30
    assert await _positions(js, js_names.stream) == list(range(1, 131))


async def test_two_relays_at_once_cannot_interleave(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """Without the advisory lock (relay_once called directly), two relays race: the
    expected-last-sequence check lets only one chain through; the loser resyncs."""
    await _append(store, 300, "a")
    relays = [
        OutboxRelay(
            store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix, batch_size=50
        )
        for _ in range(2)
    ]
    await relays[0].ensure_stream()

    async def drive(relay: OutboxRelay) -> None:
        for _ in range(50):
            try:
                await relay.relay_once()
                return
            except Exception:
                await asyncio.sleep(0.01)

    await asyncio.gather(*(drive(r) for r in relays))
    await relays[0].relay_once()
    assert await _positions(js, js_names.stream) == list(range(1, 301))


def _relay_process(servers: Servers, schema: str, names: StreamNames) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "services.cli",
            "log",
            "relay",
            "--dsn",
            servers.pg_dsn,
            "--nats-url",
            servers.nats_url,
            "--schema",
            schema,
            "--stream",
            names.stream,
            "--subject-prefix",
            names.subject_prefix,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "BELOT_LOG_FORMAT": "text"},
    )


async def _wait_for(js: JetStreamContext, stream: str, at_least: int, timeout: float) -> int:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            count = (await js.stream_info(stream)).state.messages
        except Exception:
            count = 0
        if count >= at_least or asyncio.get_running_loop().time() > deadline:
            return count
        await asyncio.sleep(0.02)


async def test_relay_killed_mid_way_and_restarted_loses_and_repeats_nothing(
    store: EventStore, js: JetStreamContext, js_names: StreamNames, servers: Servers
) -> None:
    await _append(store, 3000, "a")
    proc = _relay_process(servers, store.schema, js_names)
    try:
        published = await _wait_for(js, js_names.stream, 300, 60)
        proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(proc.wait, 10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert published >= 300
    at_kill = (await js.stream_info(js_names.stream)).state.messages
    assert at_kill < 3000, "the relay finished before it was killed: nothing was tested"
    await _append(store, 500, "b")  # more events arrive while no relay runs

    proc = _relay_process(servers, store.schema, js_names)
    try:
        assert await _wait_for(js, js_names.stream, 3500, 60) == 3500
        await _append(store, 100, "c")  # and live ones after the catch-up
        assert await _wait_for(js, js_names.stream, 3600, 30) == 3600
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.to_thread(proc.communicate, timeout=20)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:
            proc.kill()
    assert await _positions(js, js_names.stream) == list(range(1, 3601))
    offset = await store.pool.fetchval(f'SELECT position FROM "{store.schema}".relay_offsets')
    assert offset == 3600
