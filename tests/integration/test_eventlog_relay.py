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
from nats.js.errors import BadRequestError
from prometheus_client import REGISTRY

from eventlog import EventStore, NewEvent, seat
from eventlog import relay as relay_module
from eventlog.relay import OutboxRelay, RelayError
from tests.integration.conftest import Servers, StreamNames

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]
ROOT = Path(__file__).resolve().parents[2]


async def _positions(js: JetStreamContext, stream: str) -> list[int]:
    """Every message's Belot-Position, in stream order, checked against its body."""
    info = await js.stream_info(stream)
    out = []
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(stream, seq=seq)
        assert msg.headers is not None and msg.data is not None
        body = orjson.loads(msg.data)
        assert int(msg.headers["Belot-Position"]) == body["position"]
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
    assert [h["Belot-Position"] for _, h, _ in messages] == [str(p) for p in range(1, 15)]
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
        else:  # whole, but for the hash: no message carries one (eventlog.relay)
            assert body == {**e.to_json_dict(), "hash": None}
    assert stubs == 2
    await nc.flush()
    deadline = asyncio.get_running_loop().time() + 5
    while len(live) < 14 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    await sub.unsubscribe()
    assert len(live) == 14
    hashes = [e.hash.hex().encode() for e in logged.values()]
    for data in live:
        assert orjson.dumps(DECK) not in data
        assert not any(h in data for h in hashes)


async def test_a_relay_resumes_after_a_stub_and_resyncs_as_before(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """The stream's last message is a stub: a restarted relay reads its position from the
    stub and goes on; a stale relay is refused and resyncs past it."""
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
    # and it resyncs from the stream (publishing nothing twice).
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
            "commands.cli",
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


async def _foreign(js: JetStreamContext, names: StreamNames, what: str, **headers: str) -> int:
    """Publish a message the relay did not: plain, or dressed as the relay's."""
    body = orjson.dumps({"position": int(headers.get("Belot-Position", 0)), "what": what})
    ack = await js.publish(f"{names.subject_prefix}.match.match-x", body, headers=headers or None)
    return ack.seq


def _dressed(position: int) -> dict[str, str]:
    """A forger's message for ``position``: the relay's headers, and the id the relay
    used to give it (its position), published before the relay's."""
    return {
        "Nats-Msg-Id": str(position),
        "Belot-Position": str(position),
        "Belot-Stream": "match-x",
        "Belot-Version": "1",
        "Belot-Type": "E",
        "Belot-Visibility": "public",
    }


async def test_foreign_messages_neither_hide_nor_duplicate_a_position(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """Foreign messages before, between and after the relay's (plain ones, ones dressed
    as the relay's with the next position's old id, a copy of a relay message published
    again past the duplicate window): the relay's positions are exactly 1..n, across
    restarts, and each message of the relay sits where it put it."""
    names = js_names

    def relay() -> OutboxRelay:
        return OutboxRelay(store, js, stream=names.stream, subject_prefix=names.subject_prefix)

    first = relay()
    await first.ensure_stream(duplicate_window=0.5)
    # Before: the stream starts with foreign messages, one claiming position 1.
    await _foreign(js, names, "plain")
    await _foreign(js, names, "dressed", **_dressed(1))
    await _append(store, 10, "a")
    assert await first.relay_once() == 10
    # Between: the next position's old id taken first, and a replay of the relay's
    # last message once the duplicate window has passed: with its expectations
    # JetStream refuses it; without them it is stored, its seal valid but not its place.
    last = await js.get_msg(names.stream, seq=(await js.stream_info(names.stream)).state.last_seq)
    await _foreign(js, names, "dressed", **_dressed(11))
    await asyncio.sleep(0.6)
    assert last.data is not None and last.headers is not None
    with pytest.raises(BadRequestError):
        await js.publish(last.subject or "", last.data, headers=dict(last.headers))
    stripped = {k: v for k, v in last.headers.items() if not k.startswith("Nats-Expected")}
    replayed = await js.publish(last.subject or "", last.data, headers=stripped)
    assert not replayed.duplicate
    await _append(store, 10, "b")
    assert await first.relay_once() == 10
    # A restarted relay walks back past them; one more foreign at the tail.
    await _foreign(js, names, "dressed", **_dressed(21))
    await _foreign(js, names, "plain")
    second = relay()
    assert (await second.published()).position == 20
    await _append(store, 10, "c")
    assert await second.relay_once() == 10
    # After: foreign messages last; a third relay starts from them.
    await _foreign(js, names, "dressed", **_dressed(31))
    third = relay()
    assert (await third.published()).position == 30
    assert await third.relay_once() == 0
    assert await third.positions() == list(range(1, 31))
    # Consumers key on Belot-Position: the relay's messages carry each position once.
    info = await js.stream_info(names.stream)
    bodies = {}
    for seq in range(info.state.first_seq, info.state.last_seq + 1):
        msg = await js.get_msg(names.stream, seq=seq)
        if third.owns(msg) is not None:
            assert msg.data is not None
            bodies[third.owns(msg)] = orjson.loads(msg.data)["position"]
    assert bodies == {p: p for p in range(1, 31)}


async def test_foreign_messages_during_a_batch_cost_no_position(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """A foreign publisher at work while the relay publishes batches: a refused batch
    is resumed after the foreign message; positions exactly 1..n."""
    await _append(store, 400, "a")
    relay = OutboxRelay(
        store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix, batch_size=50
    )
    await relay.ensure_stream()
    stop = asyncio.Event()
    foreign = 0

    async def forger() -> None:
        nonlocal foreign
        while not stop.is_set():
            await _foreign(
                js,
                js_names,
                "dressed",
                **_dressed(relay._published.position + 1 if relay._published else 1),
            )
            foreign += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(forger())
    refused = 0
    try:
        for _ in range(500):
            try:
                await relay.relay_once()
            except RelayError:
                refused += 1
                continue
            if (await store.head_position()) == relay._published.position:  # type: ignore[union-attr]
                break
    finally:
        stop.set()
        await task
    assert foreign > 0
    assert await relay.positions() == list(range(1, 401))


async def test_a_message_refused_mid_batch_leaves_no_hole(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """Only a batch's last message is acknowledged: one in the middle that JetStream
    refuses for itself (here: too large for the stream) stops every one after it, which
    expected it; the relay says which position was refused and stores nothing past it,
    then, once the stream takes it, goes on with no hole and no repeat."""
    await store.append("match-big", 0, [NewEvent("E", {"i": i}) for i in range(3)])
    await store.append("match-big", 3, [NewEvent("E", {"i": 3, "pad": "x" * 4000})])
    await store.append("match-big", 4, [NewEvent("E", {"i": i}) for i in range(4, 8)])
    relay = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await relay.ensure_stream()
    config = (await js.stream_info(js_names.stream)).config
    config.max_msg_size = 2048
    await js.update_stream(config)
    with pytest.raises(RelayError, match="refused position 4"):
        await relay.relay_once()
    assert await _positions(js, js_names.stream) == [1, 2, 3]
    config.max_msg_size = -1
    await js.update_stream(config)
    assert await relay.relay_once() == 5
    assert await _positions(js, js_names.stream) == list(range(1, 9))


async def test_a_stream_of_the_old_relay_goes_on_without_a_repeat(
    store: EventStore, js: JetStreamContext, js_names: StreamNames
) -> None:
    """Upgrading: the stream holds the old relay's messages (Nats-Msg-Id = position, no
    seal) and its offset row no anchor: the new relay takes the last of them once, then
    seals; restarted, it goes on from its own."""
    await _append(store, 10, "a")
    relay = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    await relay.ensure_stream()
    for e in await store.read_all(0, 100):
        headers = {"Nats-Msg-Id": str(e.position), "Belot-Stream": e.stream_id,
                   "Belot-Version": str(e.version), "Belot-Type": e.type,
                   "Belot-Visibility": e.visibility}  # fmt: skip
        await js.publish(
            f"{js_names.subject_prefix}.match.{e.stream_id}",
            orjson.dumps(e.to_json_dict()),
            headers=headers,
        )
    s = f'"{store.schema}"'
    await store.pool.execute(
        f"INSERT INTO {s}.relay_offsets (relay, position) VALUES ('jetstream', 10)"
    )
    await _append(store, 10, "b")
    assert await relay.relay_once() == 10
    await _append(store, 10, "c")
    again = OutboxRelay(store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix)
    assert await again.relay_once() == 10
    info = await js.stream_info(js_names.stream)
    bodies = []
    for seq in range(1, info.state.last_seq + 1):
        msg = await js.get_msg(js_names.stream, seq=seq)
        assert msg.data is not None
        bodies.append(orjson.loads(msg.data)["position"])
    assert bodies == list(range(1, 31))
    assert await again.positions() == list(range(11, 31))


async def test_the_lag_is_read_from_both_ends_by_a_relay_that_waits_too(
    store: EventStore, js: JetStreamContext, js_names: StreamNames, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relay waiting for the lock reads the same lag as the active one, from the log's
    head and the stream; a flood of foreign messages is read over several reads cut
    short by their timeout, each going on where the last stopped."""
    monkeypatch.setattr(relay_module, "LAG_CACHE_S", 0.0)

    def relay() -> OutboxRelay:
        return OutboxRelay(
            store, js, stream=js_names.stream, subject_prefix=js_names.subject_prefix
        )

    active, waiting = relay(), relay()
    await active.ensure_stream()
    await _append(store, 100, "a")
    assert await waiting.lag() == 100
    await active.relay_once()
    assert await waiting.lag() == 0 and await active.lag() == 0
    for _ in range(3000):
        await _foreign(js, js_names, "plain")
    await _append(store, 10, "b")
    monkeypatch.setattr(relay_module, "LAG_READ_TIMEOUT_S", 0.02)
    reads = 1
    while waiting._unread or reads == 1:
        assert await waiting.lag() == 10
        reads += 1
        assert reads < 1000
    assert reads > 2, "the foreign messages were read in one go: nothing was cut short"
    assert await waiting.lag() == 10
    monkeypatch.setattr(relay_module, "LAG_READ_TIMEOUT_S", 0.5)
    await active.relay_once()
    assert await waiting.lag() == 0
    assert REGISTRY.get_sample_value("belot_eventlog_relay_lag_events") == 0
