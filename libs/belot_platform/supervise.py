"""Supervised tasks: every long-running loop of a process runs under a :class:`Supervisor`.

Why. A loop that ends (an exception nobody catches, a ``return`` nobody expected) takes
its work with it, silently: the outbox relay dies after a PostgreSQL restart and every
WebSocket stops receiving events; a timer gives up and a match waits for ever. Catching
everything inside each loop is how that happened (each one decides on its own to log and
stop), so the rule here is the opposite: a loop handles what it expects (a refusal it
knows how to resolve), and lets everything else out, to its supervisor, which

- logs it with its stack (``logging.exception``) and the task's name (``extra["task"]``);
- counts it (``belot_task_restarts_total{task}``) and sets ``belot_task_up{task}`` to 0
  until the task runs again (:mod:`belot_platform.health`);
- restarts the task after a back-off that doubles from :data:`FIRST_DELAY` up to
  :data:`MAX_DELAY` (an outage of PostgreSQL or NATS is not hammered), reset once a run
  has lasted :data:`HEALTHY_AFTER` (a failure a day is not a crash loop);
- treats a task that returns while the supervisor is not stopping as failed too: a
  supervised loop runs until it is stopped, so a return is a bug, restarted like one.

Readiness. :meth:`Supervisor.check` says, for each task, ``"ok"`` or why not: down
since when and on what error, or lagging (a :class:`Lag` the task registered, say the
relay's events not yet on JetStream, over its limit for longer than its grace).
``/readyz`` (:mod:`belot_platform.app`) answers 503 while any is not ok and names it.

Stopping. :meth:`Supervisor.stop` (or :meth:`Supervised.stop` for one task) sets the
task's ``stopping`` event, gives it its ``grace`` (0 unless it was spawned with one: a
loop that watches the event, like the relay, finishes the batch it is publishing), then
cancels it, again and again until it ends: a task that swallows a cancellation is
cancelled at its next ``await``. (A loop that catches too much swallows one; so does
Python 3.11's ``asyncio.wait_for``, which nats-py's requests use, when the cancellation
meets the reply: that is how the table scan used to hang at shutdown.) Past ``timeout``
it is left behind with an error logged: a shutdown never hangs on a task. A
``CancelledError`` that nobody asked for (``Task.cancelling()`` is 0: a library raised
it) is a failure like any other, not a reason to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from belot_platform.health import TASK_RESTARTS, TASK_UP

log = logging.getLogger(__name__)

#: The first pause before a restart, doubled after each failure up to :data:`MAX_DELAY`.
FIRST_DELAY: Final = 0.1
MAX_DELAY: Final = 10.0
#: A run that lasted this long before failing resets the back-off to :data:`FIRST_DELAY`.
HEALTHY_AFTER: Final = 30.0
#: Seconds :meth:`Supervisor.stop` waits in all before leaving a task behind.
STOP_TIMEOUT: Final = 10.0
#: Seconds a lag's measure may take (it runs in ``/readyz``).
MEASURE_TIMEOUT: Final = 1.0
OK: Final = "ok"

#: A supervised loop: called with its :class:`Supervised` (``stopping``: set when it is
#: to end; ``beat()``: it made progress).
Run = Callable[["Supervised"], Awaitable[None]]
Measure = Callable[[], "float | Awaitable[float]"]
Pause = Callable[[asyncio.Event, float], Awaitable[None]]


async def pause_unless_stopped(stopping: asyncio.Event, seconds: float) -> None:
    """Wait ``seconds``, or less if ``stopping`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), seconds)


def retried(logger: logging.Logger, task: str, message: str, *args: object, **extra: Any) -> None:
    """Work that its own loop retries, one of many (a match's timers, a table's driver, a
    tournament's effects), failed: log the exception being handled on ``logger``, with
    its stack and ``task``, and count it in ``belot_task_restarts_total{task}`` as a
    restart. Call it from an ``except`` block that goes on."""
    logger.exception(message, *args, extra={"task": task, **extra})
    TASK_RESTARTS.labels(task).inc()


async def cancel(*tasks: asyncio.Future[Any], timeout: float = STOP_TIMEOUT) -> None:
    """Cancel ``tasks`` and wait until they end, cancelling again every 0.1 s those that
    swallowed it (module docstring); past ``timeout``, log the ones left and return."""
    pending = {t for t in tasks if not t.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while pending:
        for t in pending:
            t.cancel()
        left = deadline - loop.time()
        if left <= 0:
            names = sorted(getattr(t, "get_name", t.__repr__)() for t in pending)
            log.error("tasks did not stop: left behind: %s", ", ".join(names))
            return
        _, pending = await asyncio.wait(pending, timeout=min(0.1, left))


@dataclass(slots=True)
class Lag:
    """A task's own readiness check: ``measure()`` (a number, or an awaitable of one) must
    not stay above ``limit`` for ``grace`` seconds or more. A measure that fails counts
    as above the limit (what cannot be measured is not known to be fine)."""

    measure: Measure
    limit: float
    grace: float
    unit: str = ""
    _over_since: float | None = field(default=None, repr=False)

    async def check(self, now: float) -> str:
        """``"ok"``, or how far behind and for how long."""
        try:
            value = self.measure()
            if inspect.isawaitable(value):
                value = await asyncio.wait_for(value, MEASURE_TIMEOUT)
            reading = f"{value:g}{self.unit}"
            over = value > self.limit
        except Exception as exc:  # a measure that fails is reported, not raised
            reading = f"unknown ({type(exc).__name__}: {exc})"
            over = True
        if not over:
            self._over_since = None
            return OK
        if self._over_since is None:
            self._over_since = now
        lasted = now - self._over_since
        if lasted < self.grace:
            return OK
        return (
            f"lagging: {reading} for {lasted:.0f}s "
            f"(more than {self.limit:g}{self.unit} for {self.grace:g}s)"
        )


class Supervised:
    """One task under a :class:`Supervisor`: its name (the metrics' ``task`` label), how
    to run it, and how it is doing.

    A task spawned with ``stall_after`` says it makes progress: its run calls
    :meth:`beat` (after each batch, each idle poll). It counts as up only from its first
    beat of a run (a relay that hangs on a server that is away is not up because it
    was restarted), and as stalled, not ready, once no beat came for ``stall_after``
    seconds. Without it, a task is up from the start of each run."""

    def __init__(
        self,
        supervisor: Supervisor,
        name: str,
        run: Run,
        *,
        lag: Lag | None,
        grace: float,
        stall_after: float | None,
    ) -> None:
        self.supervisor = supervisor
        self.name = name
        self.run = run
        self.lag = lag
        self.grace = grace
        self.stall_after = stall_after
        self.is_up = False
        self.restarts = 0
        self.down_since: float | None = time.time()  # wall-clock seconds
        self.last_error: str | None = None
        self.last_beat: float | None = None  # the supervisor's clock
        self.stopping = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def beat(self) -> None:
        """The task made progress (see the class docstring)."""
        self.last_beat = self.supervisor.clock()
        if not self.is_up:
            self._up()

    @property
    def is_stalled(self) -> bool:
        return (
            self.is_up
            and self.stall_after is not None
            and self.last_beat is not None
            and self.supervisor.clock() - self.last_beat > self.stall_after
        )

    def _up(self) -> None:
        self.is_up = True
        self.down_since = None
        TASK_UP.labels(self.name).set(1)

    def _starting(self) -> None:
        if self.stall_after is None:
            self._up()
        else:
            self.last_beat = None

    def _down(self, why: str) -> None:
        self.is_up = False
        if self.down_since is None:
            self.down_since = time.time()
        self.last_error = why
        self.restarts += 1
        TASK_UP.labels(self.name).set(0)
        TASK_RESTARTS.labels(self.name).inc()

    def refresh_gauge(self) -> None:
        """``belot_task_up`` is 0 for a stalled task too (set as it is scraped)."""
        running = self.task is not None and not self.task.done()
        TASK_UP.labels(self.name).set(1 if running and self.is_up and not self.is_stalled else 0)

    async def check(self) -> str:
        """``"ok"``, or why not: stopped, down (since when, on what), stalled, lagging."""
        if self.task is None or self.task.done():
            return "stopped" if self.stopping.is_set() else "not running"
        if not self.is_up:
            since = time.time() - (self.down_since or time.time())
            if self.last_error is None:
                return f"starting for {since:.0f}s"
            return f"down for {since:.0f}s: {self.last_error}"
        if self.is_stalled:
            assert self.last_beat is not None
            quiet = self.supervisor.clock() - self.last_beat
            return f"stalled: no progress for {quiet:.0f}s"
        if self.lag is not None:
            return await self.lag.check(self.supervisor.clock())
        return OK

    async def stop(self, *, timeout: float = STOP_TIMEOUT) -> None:
        """Stop this task (see the module docstring); returns once it ended or was left."""
        self.stopping.set()
        task = self.task
        if task is None or task.done():
            return
        if self.grace > 0:
            await asyncio.wait({task}, timeout=self.grace)
        await cancel(task, timeout=timeout)


class Supervisor:
    """The supervised tasks of one app (``create_app`` keeps one under ``app[TASKS]``).

    ``pause`` (how to wait between restarts) and ``clock`` (monotonic seconds) are for
    tests; the rest is the back-off (module docstring)."""

    def __init__(
        self,
        *,
        first_delay: float = FIRST_DELAY,
        max_delay: float = MAX_DELAY,
        healthy_after: float = HEALTHY_AFTER,
        pause: Pause = pause_unless_stopped,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.healthy_after = healthy_after
        self.pause = pause
        self.clock = clock
        self.tasks: dict[str, Supervised] = {}

    def spawn(
        self,
        name: str,
        run: Run,
        *,
        lag: Lag | None = None,
        grace: float = 0.0,
        stall_after: float | None = None,
    ) -> Supervised:
        """Run ``run(supervised)`` as task ``name`` (unique while it runs; a task of that
        name that has ended is replaced). ``lag``: its readiness check; ``grace``:
        seconds it may take to end by itself once its ``stopping`` event is set;
        ``stall_after``: it calls ``beat()`` and is stalled without one for that long
        (:class:`Supervised`)."""
        old = self.tasks.get(name)
        if old is not None and old.task is not None and not old.task.done():
            raise ValueError(f"a supervised task {name!r} is already running")
        supervised = Supervised(self, name, run, lag=lag, grace=grace, stall_after=stall_after)
        self.tasks[name] = supervised
        supervised.task = asyncio.create_task(self._keep(supervised), name=name)
        return supervised

    async def _keep(self, t: Supervised) -> None:
        delay = self.first_delay
        current = asyncio.current_task()
        assert current is not None
        try:
            while not t.stopping.is_set():
                started = self.clock()
                t._starting()
                try:
                    await t.run(t)
                except asyncio.CancelledError as exc:
                    if current.cancelling() or t.stopping.is_set():
                        raise
                    why = f"CancelledError: {exc}" if str(exc) else "CancelledError"
                    log.exception(
                        "task %s was cancelled by no one; restarting in %.1fs",
                        t.name, delay, extra={"task": t.name},
                    )  # fmt: skip
                except Exception as exc:
                    if t.stopping.is_set():
                        log.info("task %s ended while stopping: %r", t.name, exc)
                        return
                    why = f"{type(exc).__name__}: {exc}"
                    log.exception(
                        "task %s failed; restarting in %.1fs", t.name, delay,
                        extra={"task": t.name},
                    )  # fmt: skip
                else:
                    if t.stopping.is_set():
                        return
                    why = "it returned without being stopped"
                    log.error(
                        "task %s ended by itself; restarting in %.1fs", t.name, delay,
                        extra={"task": t.name},
                    )  # fmt: skip
                if self.clock() - started >= self.healthy_after:
                    delay = self.first_delay
                t._down(why)
                await self.pause(t.stopping, delay)
                delay = min(delay * 2, self.max_delay)
        finally:
            t.is_up = False
            TASK_UP.labels(t.name).set(0)

    def refresh_gauges(self) -> None:
        for t in list(self.tasks.values()):
            t.refresh_gauge()

    async def check(self) -> dict[str, str]:
        """Each task's name -> ``"ok"`` or why it is not (see the module docstring)."""
        return {name: await t.check() for name, t in list(self.tasks.items())}

    async def stop(self, *, timeout: float = STOP_TIMEOUT) -> None:
        """Stop every task at once (each as :meth:`Supervised.stop`)."""
        await asyncio.gather(*(t.stop(timeout=timeout) for t in list(self.tasks.values())))
