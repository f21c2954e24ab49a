"""The tournament service's draws: a random seeding's named round, fetched and drawn.

Starting a random-seeded tournament appends ``DrawRoundNamed`` (the core's
``start``): entries close and the round is the first due more than the lead after now,
so nobody knows its value. Then one task per such tournament (:meth:`Draws.ensure`,
called by the effects after every change, on startup and by the sweep) asks drand's
relays for that round (``drand.client.DrandClient``: every relay in parallel, the first
beacon whose BLS signature verifies against the chain's pinned key wins, a relay's
``randomness`` never trusted) and, with it, appends the core's ``make_draw``:
``DrawMade``, ``Started`` and round 1, under the command id ``<id>:draw``.

There is no fallback and no deadline: a drand value never changes, so one that comes
late is still the value, and any other (a local generator, a later round) would be a
second draw for whoever runs the service. While drand is out of reach the tournament
waits, says so (``belot_tournament_draw_waits_total``, a warning each window), and draws
as soon as the value can be had.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Final

from prometheus_client import Counter

from belot_platform.supervise import cancel, retried
from drand import Beacon
from drand.client import DrandClient
from eventlog import NewEvent
from services.tournament.domain import Loaded
from services.tournament.sequencer import Sequencer, core
from tournament import commands
from tournament.events import DrawRoundNamed

log = logging.getLogger(__name__)

#: The per-tournament draw's failures (the ``task`` label of belot_task_restarts_total).
DRAW_TASK: Final = "tournament-draw"
#: How long one request window for the round lasts before the next (seconds): a window
#: that ends without the value is logged and counted, and the next one begins.
FETCH_WINDOW_S: Final = 30.0
#: The longest pause while the service's clock catches up with the round's due time
#: (the drand client waits on its own clock, which in production is the same one).
CATCH_UP_S: Final = 0.05

DRAWS = Counter("belot_tournament_draws_total", "Random seedings drawn from a drand round.")
WAITS = Counter(
    "belot_tournament_draw_waits_total",
    "Windows of FETCH_WINDOW_S that ended without the named round's verified value.",
)


class Draws:
    def __init__(self, seq: Sequencer, drand: DrandClient) -> None:
        self.seq = seq
        self.drand = drand
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def stop(self) -> None:
        await cancel(*self._tasks.values())
        self._tasks.clear()

    def ensure(self, loaded: Loaded) -> None:
        """Draw ``loaded`` once its named round's value is in, unless a task already
        waits for it (or there is nothing to draw)."""
        named = loaded.state.naming
        if named is None or not loaded.state.is_draw_pending or self.seq.stopping.is_set():
            return
        task = self._tasks.get(loaded.id)
        if task is not None and not task.done():
            return
        self._tasks[loaded.id] = asyncio.create_task(
            self._draw(loaded.id, named), name=f"draw-{loaded.id}"
        )

    async def _draw(self, tid: str, named: DrawRoundNamed) -> None:
        try:
            beacon = await self.beacon(named, lambda: self._pending(tid))
            if beacon is None:
                return  # called off meanwhile: nothing to draw
            while self.seq.clock() < named.due_at_ms:  # the core refuses a draw before
                await asyncio.sleep(min(CATCH_UP_S, (named.due_at_ms - self.seq.clock()) / 1000))

            async def decide(fresh: Loaded) -> list[NewEvent]:
                if not fresh.state.is_draw_pending:
                    return []  # drawn already (a retry, another replica), or called off
                ratings = await self.seq.players_ratings(fresh.state)
                now = self.seq.clock()
                return core(
                    lambda: commands.make_draw(
                        fresh.state,
                        beacon.round,
                        beacon.signature,
                        now,
                        ratings,
                        fresh.config.forbidden_pairs,
                    )
                )

            after = await self.seq.run(tid, decide, command_id=f"{tid}:draw")
            if after.state.draw is not None:
                DRAWS.inc()
        except asyncio.CancelledError:
            raise
        except Exception:
            # The effects' sweep calls ensure() again within its period.
            retried(log, DRAW_TASK, "tournament draw failed", tournament_id=tid)

    def _pending(self, tid: str) -> bool:
        loaded = self.seq.cache.get(tid)
        return loaded is None or loaded.state.is_draw_pending

    async def beacon(
        self, named: DrawRoundNamed, pending: Callable[[], bool] = lambda: True
    ) -> Beacon | None:
        """The named round's verified beacon, however long it takes; None once
        ``pending()`` says the draw is no longer awaited (the tournament was called off
        before its round was due)."""
        if named.chain != self.drand.chain.name:
            raise RuntimeError(
                f"the draw named {named.chain} round {named.round}; this service's drand "
                f"client follows {self.drand.chain.name}"
            )
        while True:
            start = max(self.drand.clock.now(), named.due_at_ms / 1000)
            beacon = await self.drand.beacon_by(named.round, start + FETCH_WINDOW_S)
            if beacon is not None:
                return beacon
            if not pending():
                return None
            WAITS.inc()
            log.warning(
                "drand round %s of %s not had yet: the draw waits for it",
                named.round,
                named.chain,
            )
