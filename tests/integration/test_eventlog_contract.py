"""The event log's contract, run over every store: PostgreSQL's (:class:`eventlog.EventStore`)
and the one in memory (:class:`eventlog.memory.MemoryEventStore`), as the ``eventsourcing``
library runs one recorder suite over every backend. A service's logic tested on the
memory store meets the same rules as on the server: appends on expected versions, command
ids that append once, events checked before anything is written, one hash chain, viewers
that see only what they may, reads by position, and subscriptions."""

from __future__ import annotations

import asyncio

import pytest

from eventlog import (
    WITHHELD,
    CommandIdReused,
    EventStore,
    InvalidEvent,
    NewEvent,
    RecordedEvent,
    Viewer,
    WrongExpectedVersion,
    seat,
)
from eventlog.envelope import GENESIS_HASH, chain_hash
from eventlog.memory import MemoryEventStore

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

Log = EventStore | MemoryEventStore


@pytest.fixture(params=["postgres", "memory"])
def log(request: pytest.FixtureRequest) -> Log:
    if request.param == "postgres":
        store: EventStore = request.getfixturevalue("store")  # its own schema (conftest)
        return store
    return MemoryEventStore(producer="tests")


def ev(n: int, **kw: object) -> NewEvent:
    return NewEvent("Thing", {"n": n}, **kw)  # type: ignore[arg-type]


async def test_append_and_read_back_the_envelope(log: Log) -> None:
    r = await log.append(
        "match-1",
        0,
        [ev(1, metadata={"correlation_id": "c"}), ev(2, visibility=seat(2))],
        command_id="cmd-1",
    )
    assert (r.first_version, r.last_version, r.first_position, r.last_position) == (1, 2, 1, 2)
    events = await log.read_stream("match-1")
    assert [e.version for e in events] == [1, 2]
    assert [e.position for e in events] == [1, 2]
    first = events[0]
    assert first.type == "Thing" and first.payload == {"n": 1}
    assert first.metadata == {"correlation_id": "c", "command_id": "cmd-1", "producer": "tests"}
    assert events[1].visibility == "seat:2"
    # The hash chain, recomputed from the stored envelope.
    prev = GENESIS_HASH
    for e in events:
        prev = chain_hash(prev, e.canonical_bytes())
        assert e.hash == prev
    assert await log.stream_version("match-1") == 2
    assert await log.head_position() == 2


async def test_wrong_expected_version_is_refused(log: Log) -> None:
    await log.append("table-1", 0, [ev(1)])
    with pytest.raises(WrongExpectedVersion) as info:
        await log.append("table-1", 0, [ev(2)])
    assert (info.value.expected, info.value.actual) == (0, 1)
    with pytest.raises(WrongExpectedVersion):
        await log.append("table-1", 5, [ev(2)])
    assert [e.payload["n"] for e in await log.read_stream("table-1")] == [1]


async def test_retried_command_appends_nothing_twice(log: Log) -> None:
    first = await log.append("match-2", 0, [ev(1), ev(2)], command_id="c-42")
    again = await log.append("match-2", 0, [ev(1), ev(2)], command_id="c-42")
    assert again.duplicate and not first.duplicate
    assert (again.first_position, again.last_position) == (
        first.first_position,
        first.last_position,
    )
    assert (again.first_version, again.last_version) == (1, 2)
    # A retry that re-read the stream first, after other appends moved it.
    await log.append("match-2", 2, [ev(3)])
    late = await log.append("match-2", 3, [ev(1), ev(2)], command_id="c-42")
    assert late.duplicate and late.last_version == 2
    assert len(await log.read_stream("match-2")) == 3
    with pytest.raises(CommandIdReused):
        await log.append("match-3", 0, [ev(1)], command_id="c-42")


async def test_one_bad_append_does_not_fail_its_batch(log: Log) -> None:
    await log.append("match-old", 0, [ev(0)])
    ok = [log.append(f"match-b{i}", 0, [ev(i)]) for i in range(20)]
    bad = log.append("match-old", 0, [ev(1)])  # wrong expected version
    results = await asyncio.gather(*ok, bad, return_exceptions=True)
    assert isinstance(results[-1], WrongExpectedVersion)
    assert all(not isinstance(r, BaseException) for r in results[:-1])
    positions = sorted(r.first_position for r in results[:-1])  # type: ignore[union-attr]
    assert positions == list(range(2, 22))


async def test_chained_appends_to_one_stream_in_one_batch(log: Log) -> None:
    results = await asyncio.gather(*(log.append("match-c", v, [ev(v)]) for v in range(30)))
    assert [r.first_version for r in results] == list(range(1, 31))
    assert [e.payload["n"] for e in await log.read_stream("match-c")] == list(range(30))


@pytest.mark.parametrize(
    ("stream", "event", "message"),
    [
        ("match 1", ev(1), "stream id"),
        ("match-1", NewEvent("Thing", {"x": 1.5}), "float"),
        ("match-1", NewEvent("Thing", {"x": "a\x00b"}), "NUL"),
        ("match-1", NewEvent("Thing", visibility="seat:x"), "visibility"),
        ("match-1", NewEvent("9Thing"), "event type"),
        ("match-1", NewEvent("Thing", {"x": object()}), "not JSON"),
        ("match-1", NewEvent("Thing", metadata={"producer": 3}), "producer"),
    ],
)
async def test_invalid_events_are_refused_before_anything_is_written(
    log: Log, stream: str, event: NewEvent, message: str
) -> None:
    with pytest.raises(InvalidEvent, match=message):
        await log.append(stream, 0, [event])
    assert await log.head_position() == 0


async def test_viewers_see_only_what_they_may(log: Log) -> None:
    await log.append(
        "match-v",
        0,
        [
            NewEvent("SeedCommitted", {"c": "ab"}),
            NewEvent("CardsDealt", {"cards": ["AS"]}, visibility=seat(0)),
            NewEvent("CardsDealt", {"cards": ["KH"]}, visibility=seat(1)),
            NewEvent("SeedKept", {"seed": "00"}, visibility="secret"),
        ],
    )
    ends = {"MatchEnded"}

    async def types(viewer: Viewer) -> list[tuple[str, str]]:
        events = await log.read_stream_as("match-v", viewer, ended_by=ends)
        return [(e.type, e.visibility) for e in events]

    assert await types(Viewer.public()) == [("SeedCommitted", "public")]
    assert await types(Viewer.at_seat(1)) == [
        ("SeedCommitted", "public"),
        ("CardsDealt", "seat:1"),
    ]
    await log.append("match-v", 4, [NewEvent("MatchEnded", {})])
    assert len(await types(Viewer.public())) == 5
    assert len(await types(Viewer.at_seat(0))) == 5


async def test_subscription_filtered_to_one_stream(log: Log) -> None:
    for i in range(10):
        await log.append(f"match-{i % 2}", i // 2, [NewEvent("E", {"i": i})])
    seen: list[RecordedEvent] = []
    async with log.subscribe(0, stream_id="match-1") as sub:
        async for e in sub:
            seen.append(e)
            if len(seen) == 5:
                break
    assert [e.payload["i"] for e in seen] == [1, 3, 5, 7, 9]


async def test_hashes_are_withheld_from_viewers_until_the_match_ends(log: Log) -> None:
    await log.append("match-h", 0, [ev(1), ev(2, visibility=seat(0)), ev(3)])
    ends = {"MatchEnded"}
    seen = await log.read_stream_as("match-h", Viewer.at_seat(0), ended_by=ends)
    assert [e.version for e in seen] == [1, 2, 3]
    assert all(e.hash == WITHHELD for e in seen)
    assert [
        e.version for e in await log.read_stream_as("match-h", Viewer.public(), ended_by=ends)
    ] == [1, 3]
    await log.append("match-h", 3, [NewEvent("MatchEnded", {})])
    whole = await log.read_stream("match-h")
    seen = await log.read_stream_as("match-h", Viewer.public(), ended_by=ends)
    assert [e.hash for e in seen] == [e.hash for e in whole] and WITHHELD not in [
        e.hash for e in seen
    ]
    later = await log.read_stream_as("match-h", Viewer.public(), ended_by=ends, from_version=3)
    assert [e.version for e in later] == [3, 4] and later[0].hash == whole[2].hash


async def test_reads_by_position_and_the_heads(log: Log) -> None:
    assert await log.head_position() == 0 and await log.stream_version("match-r") == 0
    for i in range(7):
        await log.append(f"match-r{i % 2}", (i // 2) * 2, [ev(i), ev(i + 100)])
    assert await log.head_position() == 14
    assert [e.position for e in await log.read_all(3, 4)] == [4, 5, 6, 7]
    ones = await log.read_all(0, 100, stream_id="match-r1")
    assert [e.payload["n"] for e in ones] == [1, 101, 3, 103, 5, 105]
    assert [e.position for e in [x async for x in log.iter_all(10, batch_size=3)]] == [
        11,
        12,
        13,
        14,
    ]
    assert await log.stream_version("match-r0") == 8
    assert [e.version for e in await log.read_stream("match-r0", 3, limit=2)] == [3, 4]


async def test_a_subscription_catches_up_then_follows_live(log: Log) -> None:
    await log.append("match-s", 0, [ev(1), ev(2)])
    seen: list[RecordedEvent] = []
    got_two = asyncio.Event()

    async def follow() -> None:
        async with log.subscribe(0, poll_interval=0.2) as sub:
            async for e in sub:
                seen.append(e)
                if len(seen) == 2:
                    got_two.set()
                if len(seen) == 5:
                    return

    reader = asyncio.create_task(follow())
    await asyncio.wait_for(got_two.wait(), 10)  # caught up: now live
    await log.append("match-s", 2, [ev(3)])
    await log.append("match-other", 0, [ev(4), ev(5)])
    await asyncio.wait_for(reader, 10)
    assert [e.position for e in seen] == [1, 2, 3, 4, 5]
    assert [e.stream_id for e in seen][-2:] == ["match-other", "match-other"]


async def test_a_subscriptions_batches_are_its_reads_in_order_never_empty(log: Log) -> None:
    await log.append("match-b", 0, [ev(1), ev(2), ev(3)])
    await log.append("match-c", 0, [ev(4)])
    batches: list[list[RecordedEvent]] = []
    async with log.subscribe(0, stream_id="match-b") as sub:
        reads = aiter(sub.batches())
        batches.append(await anext(reads))
        await log.append("match-c", 1, [ev(5)])
        await log.append("match-b", 3, [ev(6)])
        batches.append(await asyncio.wait_for(anext(reads), 10))
    assert [[e.version for e in b] for b in batches] == [[1, 2, 3], [4]]
    assert all(e.stream_id == "match-b" for b in batches for e in b)


async def test_a_subscription_by_type_reads_those_alone_and_moves_past_the_others(
    log: Log,
) -> None:
    await log.append("match-t", 0, [ev(1), NewEvent("Wanted", {"n": 2}), ev(3)])
    async with log.subscribe(0, types=frozenset({"Wanted"})) as sub:
        reads = aiter(sub.batches())
        first = await anext(reads)
        assert [e.type for e in first] == ["Wanted"] and sub.position == 3  # past the last
        await log.append("match-t", 3, [ev(4), ev(5)])
        await log.append("match-t", 5, [NewEvent("Wanted", {"n": 6})])
        later: list[RecordedEvent] = []
        while not later:
            later = await asyncio.wait_for(anext(reads), 10)
        assert [e.position for e in later] == [6] and sub.position == 6
    with pytest.raises(ValueError, match="not both"):
        log.subscribe(0, stream_id="match-t", types=frozenset({"Wanted"}))
