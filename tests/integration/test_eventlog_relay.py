"""The outbox relay puts every event on JetStream once, in order, across restarts and a
kill -9 in the middle of publishing; a secret event as a stub without its payload or hash."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from eventlog import EventStore, NewEvent, seat
from eventlog.relay import OutboxRelay, RelayError
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


DECK = ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]


async def _append_a_deal(store: EventStore, stream: str, deal: int) -> None:
    """What the table writes for a deal: the deck (secret), the turned card (public),
    each seat's cards (seat-private); and a move on another stream in between."""
    await store.append(
        stream,
        6 * (deal - 1),
        [
            NewEvent("DeckSupplied", {"deal_number": deal, "cards": DECK}, "secret"),
            NewEvent("DealStarted", {"deal_number": deal, "turned": "AS"}),
            *(NewEvent("CardsDealt", {"seat": s, "cards": DECK[2 * s : 2 * s + 2]}, seat(s))
              for s in range(4)),
        ],
    )  # fmt: skip
    await store.append(f"table-{stream}", deal - 1, [NewEvent("Tick", {"deal": deal})])


async def _messages(js: JetStreamContext, stream: str) -> list[tuple[int, dict, dict]]:
    """(sequence, headers, body) of every message, in stream order."""
    info = await js.stream_info(stream)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(stream, seq=seq)
        assert msg.headers is not None and msg.data is not None
        out.append((msg.seq, msg.headers, orjson.loads(msg.data)))
    return out


async def test_a_secret_event_is_published_as_a_stub_in_its_place(
    store: EventStore, js: JetStreamContext, nc: Client, js_names: StreamNames
) -> None:
    live: list[bytes] = []

    async def tap(msg: Msg) -> None:
        live.append(msg.data)

    sub = await nc.subscribe(f"{js_names.subject_prefix}.>", cb=tap)
    for deal in (1, 2):
        await _append_a_deal(store, "match-s1", deal)
    relay = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await relay.ensure_stream()
    assert await relay.relay_once() == 14

    logged = {e.position: e for e in await store.read_all(0, 100)}
    messages = await _messages(js, js_names.stream)
    # One message per position, one sequence per message, no hole in either.
    assert [h["Nats-Msg-Id"] for _, h, _ in messages] == [str(p) for p in range(1, 15)]
    assert [seq for seq, _, _ in messages] == list(range(1, 15))
    versions = [int(h["Belot-Version"]) for _, h, _ in messages if h["Belot-Stream"] == "match-s1"]
    assert versions == list(range(1, 13))
    stubs = 0
    for _, headers, body in messages:
        e = logged[body["position"]]
        assert headers["Belot-Stream"] == e.stream_id and headers["Belot-Type"] == e.type
        assert headers["Belot-Visibility"] == e.visibility
        assert (body["stream"], body["version"], body["visibility"]) == (
            e.stream_id,
            e.version,
            e.visibility,
        )
        if e.visibility == "secret":
            stubs += 1
            assert e.payload["cards"] == DECK  # the log keeps the deck
            assert body["payload"] is None and body["hash"] is None and body["withheld"] is True
        else:
            assert body == e.to_json_dict()
    assert stubs == 2
    await nc.flush()
    deadline = asyncio.get_running_loop().time() + 5
    while len(live) < 14 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    await sub.unsubscribe()
    assert len(live) == 14
    secret_hashes = [e.hash.hex().encode() for e in logged.values() if e.visibility == "secret"]
    for data in live:
        assert orjson.dumps(DECK) not in data
        assert not any(h in data for h in secret_hashes)


async def test_a_relay_resumes_after_a_stub_and_resyncs_as_before(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """The stream's last message is a stub: a restarted relay reads its position from the
    stub's Nats-Msg-Id and goes on; a stale relay is refused and resyncs past it."""
    await store.append("match-s2", 0, [NewEvent("E", {"i": 0})])
    await store.append("match-s2", 1, [NewEvent("DeckSupplied", {"cards": DECK}, "secret")])
    first = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await first.ensure_stream()
    assert await first.relay_once() == 2
    second = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    assert (await second.published()).position == 2
    await store.append("match-s2", 2, [NewEvent("DeckSupplied", {"cards": DECK}, "secret")])
    await store.append("match-s2", 3, [NewEvent("E", {"i": 3})])
    assert await second.relay_once() == 2
    # The first relay still thinks position 2 was the last: JetStream refuses its chain,
    # and it resyncs from the stream.
    with pytest.raises(RelayError):
        await first.relay_once()
    assert await first.relay_once() == 0
    await store.append("match-s2", 4, [NewEvent("DeckSupplied", {"cards": DECK}, "secret")])
    assert await first.relay_once() == 1
    assert await _positions(js, js_names.stream) == [1, 2, 3, 4, 5]
    bodies = [body for _, _, body in await _messages(js, js_names.stream)]
    assert [b.get("withheld", False) for b in bodies] == [False, True, True, False, True]


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
