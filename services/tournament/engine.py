"""The tournament service's engine: its parts put together, and their life cycle.

- :mod:`services.tournament.sequencer`: every change, serialised per tournament;
- :mod:`services.tournament.commands`: what organisers and players ask;
- :mod:`services.tournament.effects`: the tables a change makes due, and the sweep;
- :mod:`services.tournament.draws`: random seedings drawn from their named drand round;
- :mod:`services.tournament.clocks`: the deadlines the events set;
- :mod:`services.tournament.results`: the matches played, followed in the log.

Each module's docstring says how its part works. The engine starts the three loops
(clock, results, sweep) under the app's supervisor, and on shutdown stops them first
(a loop that sees ``stopping`` ends as asked, not failed), then the tasks in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from argon2 import PasswordHasher
from nats.aio.client import Client

from belot_platform.supervise import Supervised, Supervisor
from drand.client import DrandClient
from eventkit import PUBLIC
from services.tournament import domain
from services.tournament.clocks import CLOCK_TASK, Clocks
from services.tournament.commands import Commands
from services.tournament.domain import Loaded, Refused
from services.tournament.draws import Draws
from services.tournament.effects import SWEEP_TASK, Effects
from services.tournament.results import RESULTS_TASK, Results
from services.tournament.sequencer import Clock, Sequencer, wall_clock
from services.tournament.store import TournamentStore
from tournament import Standing, standings

__all__ = ["Clock", "Engine", "wall_clock"]


class Engine:
    def __init__(
        self,
        store: TournamentStore,
        nc: Client,
        drand: DrandClient,
        *,
        prefix: str = "belot",
        clock: Clock = wall_clock,
        timeout: float = 2.0,
        tick: float = 1.0,
        hasher: PasswordHasher | None = None,
        supervisor: Supervisor | None = None,
    ) -> None:
        self.seq = Sequencer(
            store, nc, prefix=prefix, clock=clock, timeout=timeout, on_change=self._changed
        )
        self.commands = Commands(self.seq, hasher)
        self.draws = Draws(self.seq, drand)
        self.effects = Effects(self.seq, self.draws)
        self.clocks = Clocks(self.seq, tick)
        self.results = Results(self.seq, self.effects)
        self.store = store
        #: Runs the clock, results and sweep loops (the app's, for its /readyz).
        self.supervisor = supervisor or Supervisor()
        self._tasks: list[Supervised] = []

    def _changed(self, tid: str) -> None:
        self.effects.kick(tid)

    async def startup(self) -> None:
        for tid in await self.store.live_ids():
            with contextlib.suppress(Refused):
                await self.seq.get(tid)
            self.effects.kick(tid)
        self._tasks = [
            self.supervisor.spawn(CLOCK_TASK, lambda _: self.clocks.loop()),
            self.supervisor.spawn(RESULTS_TASK, lambda _: self.results.loop()),
            self.supervisor.spawn(SWEEP_TASK, lambda _: self.effects.sweep_loop()),
        ]

    async def shutdown(self) -> None:
        for t in self._tasks:  # first: a loop that sees stopping ends as asked, not failed
            t.stopping.set()
        self.seq.stopping.set()
        self.seq.changed.set()
        await asyncio.gather(*(t.stop() for t in self._tasks))
        await self.effects.stop()
        await self.draws.stop()
        await self.clocks.stop()
        self._tasks.clear()

    # ------------------------------------------------------------------ queries

    async def get(self, tid: str) -> Loaded:
        """The tournament as its stream stands now; raises Refused (unknown)."""
        return await self.seq.get(tid)

    async def draw_document(self, tid: str) -> dict[str, Any]:
        """The tournament's public draw document (its core events; raises Refused)."""
        loaded = await self.seq.get(tid)
        events = await self.seq.log.read_stream(domain.stream_of(loaded.id))
        return domain.draw_document(
            loaded.id, ((e.version, e.type, e.payload) for e in events if e.visibility == PUBLIC)
        )

    async def standings(self, tid: str) -> tuple[Loaded, list[Standing], dict[str, float]]:
        """The live standings, with the ratings they were ordered by."""
        loaded = await self.seq.get(tid)
        ratings = await self.seq.players_ratings(loaded.state)
        return loaded, standings(loaded.state, ratings), ratings
