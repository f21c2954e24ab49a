"""The one log follower (``eventlog.follow``): every event once, in order, from its
checkpoint; the position past events without effect written when the log goes quiet and
when it stops; a failure said and raised, and a restart resumes from the checkpoint."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from eventlog import EventStore, NewEvent, RecordedEvent
from eventlog.follow import Follower

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]


class Checkpoint:
    """A service's checkpoint, kept in memory: what the follower saves, in order."""

    def __init__(self, at: int = 0) -> None:
        self.at = at
        self.saves: list[int] = []

    async def load(self) -> int:
        return self.at

    async def save(self, position: int) -> None:
        self.saves.append(position)
        self.at = position


async def _until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_each_event_once_in_order_and_the_quiet_position_written(store: EventStore) -> None:
    before = await store.head_position()
    cp = Checkpoint(before)
    seen: list[RecordedEvent] = []

    async def handle(e: RecordedEvent) -> bool:
        seen.append(e)
        if e.type == "Effect":  # the service writes its checkpoint with its effect
            cp.at = e.position
            return True
        return False

    follower = Follower(
        store, start=cp.load, save=cp.save, handle=handle, flush_interval=0.1, poll_interval=0.1
    )
    stop = asyncio.Event()
    task = asyncio.create_task(follower.run(stop))
    await _until(lambda: follower.error is None)
    assert follower.caught_up.is_set()  # nothing after the checkpoint
    await store.append("follow-a", 0, [NewEvent("Noise", {}), NewEvent("Effect", {})])
    last = (await store.append("follow-b", 0, [NewEvent("Noise", {})])).last_position
    await _until(lambda: follower.flushed == last)
    assert [e.type for e in seen] == ["Noise", "Effect", "Noise"]
    assert [e.position for e in seen] == list(range(before + 1, last + 1))
    # The effect's position was the handler's to write; the follower wrote the last one,
    # once the log went quiet, and never a position twice or backwards.
    assert cp.saves[-1] == last and cp.saves == sorted(set(cp.saves))
    assert before + 2 not in cp.saves
    stop.set()
    await asyncio.wait_for(task, 5)
    assert cp.at == last


async def test_a_failure_is_said_and_raised_and_a_restart_resumes(store: EventStore) -> None:
    cp = Checkpoint(await store.head_position())
    first = (await store.append("follow-c", 0, [NewEvent("Fails", {})])).last_position
    handled: list[int] = []

    async def failing(e: RecordedEvent) -> bool:
        raise RuntimeError("the database went away")

    follower = Follower(store, start=cp.load, save=cp.save, handle=failing, poll_interval=0.1)
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(follower.run(), 5)
    assert follower.error == "RuntimeError: the database went away"
    assert follower.failures == 1
    assert cp.at == first - 1  # nothing written past the event that failed

    async def working(e: RecordedEvent) -> bool:
        handled.append(e.position)
        return False

    again = Follower(store, start=cp.load, save=cp.save, handle=working, flush_interval=0.1)
    stop = asyncio.Event()
    task = asyncio.create_task(again.run(stop))
    await _until(lambda: again.flushed == first)
    stop.set()
    await asyncio.wait_for(task, 5)
    assert handled == [first]  # the failed event, handled again, once


async def test_a_follower_of_some_types_hands_on_those_and_writes_the_position_past_the_rest(
    store: EventStore,
) -> None:
    """A service that acts on a few event types reads those alone (verify: a match's end,
    a reveal, the round facts); its position still moves past everything else, and it is
    caught up when the log holds nothing of its types after it."""
    cp = Checkpoint(await store.head_position())
    seen: list[str] = []

    async def handle(e: RecordedEvent) -> bool:
        seen.append(e.type)
        return False

    await store.append("follow-t", 0, [NewEvent("Noise", {}), NewEvent("Wanted", {})])
    follower = Follower(
        store, start=cp.load, save=cp.save, handle=handle, flush_interval=0.1,
        poll_interval=0.1, types=frozenset({"Wanted"}),
    )  # fmt: skip
    stop = asyncio.Event()
    task = asyncio.create_task(follower.run(stop))
    await _until(lambda: follower.caught_up.is_set())
    last = (await store.append("follow-t", 2, [NewEvent("Noise", {})] * 3)).last_position
    await _until(lambda: follower.flushed == last)  # nothing of its own: written past them
    assert seen == ["Wanted"]
    stop.set()
    await asyncio.wait_for(task, 5)
    assert cp.at == last
