"""The supervisor on plain asyncio: a failing task is logged, counted and restarted with
a capped doubling back-off (reset after a healthy run), a task that returns is restarted
too, readiness names what is down or lagging, and stopping always ends, even a task that
swallows its cancellation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest
from prometheus_client import REGISTRY

from belot_platform.supervise import Lag, Supervised, Supervisor


def _sample(metric: str, task: str) -> float | None:
    return REGISTRY.get_sample_value(metric, {"task": task})


class Pauses:
    """A pause that records each back-off and returns at once (no real waiting)."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.resume = asyncio.Event()
        self.resume.set()

    async def __call__(self, stopping: asyncio.Event, seconds: float) -> None:
        self.delays.append(seconds)
        await self.resume.wait()


class Failing:
    """A task that fails ``times`` times, then runs until stopped (or cancelled)."""

    def __init__(self, times: int, error: Callable[[int], BaseException] | None = None) -> None:
        self.times = times
        self.runs = 0
        self.error = error or (lambda n: RuntimeError(f"failure {n}"))
        self.running = asyncio.Event()

    async def __call__(self, t: Supervised) -> None:
        self.runs += 1
        if self.runs <= self.times:
            raise self.error(self.runs)
        self.running.set()
        await t.stopping.wait()


async def test_a_failing_task_is_logged_counted_and_restarted_with_capped_backoff(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pauses = Pauses()
    sup = Supervisor(first_delay=0.1, max_delay=1.0, pause=pauses)
    task = Failing(6)
    before = _sample("belot_task_restarts_total", "unit-fail") or 0.0
    with caplog.at_level(logging.ERROR, logger="belot_platform.supervise"):
        sup.spawn("unit-fail", task)
        await task.running.wait()
    assert task.runs == 7
    assert pauses.delays == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert _sample("belot_task_restarts_total", "unit-fail") == before + 6
    assert _sample("belot_task_up", "unit-fail") == 1.0
    failures = [r for r in caplog.records if r.getMessage().startswith("task unit-fail failed")]
    assert len(failures) == 6
    assert all(r.exc_info is not None and getattr(r, "task", None) == "unit-fail" for r in failures)
    assert "failure 1" in str(failures[0].exc_info[1])  # type: ignore[index]
    assert (await sup.check()) == {"unit-fail": "ok"}
    await sup.stop()
    assert _sample("belot_task_up", "unit-fail") == 0.0
    assert (await sup.check()) == {"unit-fail": "stopped"}


async def test_while_down_the_task_is_not_ready_and_says_why() -> None:
    pauses = Pauses()
    pauses.resume.clear()  # hold the task in its back-off
    sup = Supervisor(pause=pauses)
    task = Failing(1, lambda n: ConnectionError("the database went away"))
    sup.spawn("unit-down", task)
    while not pauses.delays:
        await asyncio.sleep(0)
    assert _sample("belot_task_up", "unit-down") == 0.0
    why = (await sup.check())["unit-down"]
    assert why.startswith("down for ") and "ConnectionError: the database went away" in why
    pauses.resume.set()
    await task.running.wait()
    assert (await sup.check())["unit-down"] == "ok"
    await sup.stop()


async def test_the_backoff_resets_after_a_run_that_lasted() -> None:
    now = [0.0]
    pauses = Pauses()
    sup = Supervisor(first_delay=0.1, max_delay=10.0, healthy_after=30.0,
                     pause=pauses, clock=lambda: now[0])  # fmt: skip
    runs = 0
    running = asyncio.Event()

    async def flaky(t: Supervised) -> None:
        nonlocal runs
        runs += 1
        if runs == 4:
            now[0] += 31.0  # this run lasts long enough to count as healthy
        if runs <= 5:
            raise RuntimeError(f"run {runs}")
        running.set()
        await t.stopping.wait()

    sup.spawn("unit-reset", flaky)
    await running.wait()
    assert pauses.delays == [0.1, 0.2, 0.4, 0.1, 0.2]
    await sup.stop()


async def test_a_task_that_returns_is_restarted(caplog: pytest.LogCaptureFixture) -> None:
    pauses = Pauses()
    sup = Supervisor(pause=pauses)
    runs = 0
    running = asyncio.Event()

    async def quits(t: Supervised) -> None:
        nonlocal runs
        runs += 1
        if runs < 3:
            return
        running.set()
        await t.stopping.wait()

    with caplog.at_level(logging.ERROR, logger="belot_platform.supervise"):
        sup.spawn("unit-return", quits)
        await running.wait()
    assert runs == 3 and len(pauses.delays) == 2
    assert sum("ended by itself" in r.getMessage() for r in caplog.records) == 2
    await sup.stop()


async def test_a_cancellation_nobody_asked_for_is_a_failure() -> None:
    """A library that raises CancelledError of its own (the task was not cancelled):
    restarted, not ended."""
    pauses = Pauses()
    sup = Supervisor(pause=pauses)
    task = Failing(2, lambda n: asyncio.CancelledError(f"spurious {n}"))
    sup.spawn("unit-spurious", task)
    await task.running.wait()
    assert task.runs == 3 and len(pauses.delays) == 2
    await sup.stop()


async def test_stop_lets_a_graceful_task_finish_then_cancels_the_rest() -> None:
    sup = Supervisor()
    finished = asyncio.Event()
    started = asyncio.Event()

    async def graceful(t: Supervised) -> None:
        started.set()
        await t.stopping.wait()
        await asyncio.sleep(0)  # the end of its batch
        finished.set()

    cancelled = asyncio.Event()

    async def forever(t: Supervised) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    sup.spawn("unit-graceful", graceful, grace=30.0)
    sup.spawn("unit-forever", forever)
    await started.wait()
    await asyncio.sleep(0)
    await sup.stop()
    assert finished.is_set() and cancelled.is_set()
    assert all(t.task is not None and t.task.done() for t in sup.tasks.values())


async def test_stop_ends_a_task_that_swallows_its_cancellation() -> None:
    """The table scan's old loop: ``except Exception`` around a call that turns a
    cancellation into an error of its own, so one cancel is not enough."""
    sup = Supervisor()
    swallowed = 0
    started = asyncio.Event()

    async def stubborn(t: Supervised) -> None:
        nonlocal swallowed
        started.set()
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed >= 3:
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]

    sup.spawn("unit-stubborn", stubborn)
    await started.wait()
    await sup.stop(timeout=30.0)
    assert swallowed == 3
    assert sup.tasks["unit-stubborn"].task.done()  # type: ignore[union-attr]


async def test_stop_leaves_behind_a_task_that_never_ends(caplog: pytest.LogCaptureFixture) -> None:
    sup = Supervisor()
    release = asyncio.Event()
    started = asyncio.Event()

    async def immortal(t: Supervised) -> None:
        started.set()
        while not release.is_set():
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]

    sup.spawn("unit-immortal", immortal)
    await started.wait()
    with caplog.at_level(logging.ERROR, logger="belot_platform.supervise"):
        await sup.stop(timeout=0.3)
    assert any("did not stop" in r.getMessage() for r in caplog.records)
    release.set()
    task = sup.tasks["unit-immortal"].task
    assert task is not None
    task.cancel()
    await asyncio.wait({task})


async def test_cancelling_the_supervised_task_ends_it() -> None:
    sup = Supervisor()
    task = Failing(0)
    handle = sup.spawn("unit-cancel", task)
    await task.running.wait()
    assert handle.task is not None
    handle.task.cancel()
    await asyncio.wait({handle.task})
    assert handle.task.cancelled() and task.runs == 1
    assert _sample("belot_task_up", "unit-cancel") == 0.0
    assert (await sup.check())["unit-cancel"] == "not running"


async def test_a_lag_over_its_limit_for_its_grace_is_not_ready() -> None:
    now = [100.0]
    value = [0.0]
    sup = Supervisor(clock=lambda: now[0])
    task = Failing(0)

    async def measure() -> float:
        return value[0]

    sup.spawn("unit-lag", task, lag=Lag(measure, limit=10, grace=5, unit=" events"))
    await task.running.wait()
    assert (await sup.check())["unit-lag"] == "ok"
    value[0] = 50
    assert (await sup.check())["unit-lag"] == "ok"  # over the limit, within the grace
    now[0] += 6
    why = (await sup.check())["unit-lag"]
    assert why == "lagging: 50 events for 6s (more than 10 events for 5s)"
    value[0] = 3
    assert (await sup.check())["unit-lag"] == "ok"
    value[0] = 50
    assert (await sup.check())["unit-lag"] == "ok"  # a new excursion starts a new grace

    def broken() -> float:
        raise ConnectionError("no server")

    sup.tasks["unit-lag"].lag = Lag(broken, limit=10, grace=0)
    assert "unknown (ConnectionError: no server)" in (await sup.check())["unit-lag"]
    await sup.stop()


async def test_two_tasks_of_one_name_cannot_run_at_once() -> None:
    sup = Supervisor()
    task = Failing(0)
    sup.spawn("unit-twice", task)
    with pytest.raises(ValueError):
        sup.spawn("unit-twice", Failing(0))
    await sup.stop()
    again = Failing(0)
    sup.spawn("unit-twice", again)  # the first has ended: its name is free
    await again.running.wait()
    await sup.stop()


async def test_a_task_that_beats_is_up_only_once_it_made_progress_and_stalls_without() -> None:
    """A relay hanging on a server that is away is not up for having been restarted:
    up from its first beat, stalled when the beats stop."""
    now = [0.0]
    pauses = Pauses()
    sup = Supervisor(pause=pauses, clock=lambda: now[0])
    progress = asyncio.Event()
    hang = asyncio.Event()
    runs = 0

    async def relay(t: Supervised) -> None:
        nonlocal runs
        runs += 1
        if runs == 1:
            raise TimeoutError("no acknowledgement")
        await progress.wait()
        t.beat()
        await hang.wait()
        await t.stopping.wait()

    handle = sup.spawn("unit-beats", relay, stall_after=10.0)
    while runs < 2:
        await asyncio.sleep(0)
    why = (await sup.check())["unit-beats"]
    assert why.startswith("down for ") and "TimeoutError: no acknowledgement" in why
    assert _sample("belot_task_up", "unit-beats") == 0.0
    progress.set()
    while not handle.is_up:
        await asyncio.sleep(0)
    assert (await sup.check())["unit-beats"] == "ok"
    now[0] += 11.0
    assert (await sup.check())["unit-beats"] == "stalled: no progress for 11s"
    sup.refresh_gauges()
    assert _sample("belot_task_up", "unit-beats") == 0.0
    handle.beat()
    sup.refresh_gauges()
    assert _sample("belot_task_up", "unit-beats") == 1.0
    assert (await sup.check())["unit-beats"] == "ok"
    hang.set()
    await sup.stop()


async def test_a_task_that_beats_is_starting_until_its_first_beat() -> None:
    sup = Supervisor()

    async def slow(t: Supervised) -> None:
        await t.stopping.wait()

    sup.spawn("unit-starting", slow, stall_after=5.0)
    await asyncio.sleep(0)
    assert (await sup.check())["unit-starting"].startswith("starting for ")
    await sup.stop()
