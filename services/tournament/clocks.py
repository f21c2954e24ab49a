"""The tournament service's clocks: the deadlines a tournament's events set, acted on
when they pass.

The core's ``deadlines(state)`` (seat windows, the round's end, a ladder's end) come from
the events alone; the clock loop wakes for the earliest, at most every ``tick`` seconds
and on every change, so a restarted service sets them again from the log and a deadline
that passed while it was down fires at once. Time is the injected clock (unix ms). A
seat window that passes with entrants not seated is a no-show (docs/specification.md
§5); a round's end times out its undecided games; a ladder's end finishes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from prometheus_client import Counter

from belot_platform.supervise import cancel, retried
from eventlog import NewEvent
from services.tournament import domain
from services.tournament.domain import Assigned, Loaded, Refused
from services.tournament.sequencer import Sequencer, core
from tournament import Deadline, Outcome, commands, deadlines

log = logging.getLogger(__name__)

#: The clock's supervised loop (the ``task`` label of belot_task_up).
CLOCK_TASK: Final = "tournament-clock"

TIMERS = Counter("belot_tournament_timers_fired_total", "Deadlines acted on, by kind.", ["kind"])


class Clocks:
    def __init__(self, seq: Sequencer, tick: float) -> None:
        self.seq = seq
        self.tick = tick
        self._fired: set[tuple[str, str, int, int, int]] = set()
        self._firing: set[asyncio.Task[None]] = set()

    async def stop(self) -> None:
        await cancel(*self._firing)

    async def loop(self) -> None:
        while not self.seq.stopping.is_set():
            self.seq.changed.clear()
            now = self.seq.clock()
            sleep_ms = self.tick * 1000
            for tid in list(self.seq.live):
                loaded = self.seq.cache.get(tid)
                if loaded is None:
                    continue
                for d in deadlines(loaded.state):
                    if d.at_ms > now:
                        sleep_ms = min(sleep_ms, d.at_ms - now)
                        continue
                    key = (tid, d.kind, d.round, d.match, d.at_ms)
                    if key in self._fired:
                        continue
                    self._fired.add(key)
                    task = asyncio.create_task(self._fire(tid, d))
                    self._firing.add(task)
                    task.add_done_callback(self._firing.discard)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.seq.changed.wait(), max(0.01, sleep_ms / 1000))

    async def _fire(self, tid: str, d: Deadline) -> None:
        try:
            if d.kind == "seat":
                if not await self._seat_deadline(tid, d):
                    return  # no table yet, or its window not over: fired again later
            elif d.kind == "round":
                await self._round_deadline(tid, d)
            elif d.kind == "ladder":
                await self._ladder_deadline(tid)
            TIMERS.labels(d.kind).inc()
        except Refused as exc:
            log.info("deadline %s of %s: %s", d.kind, tid, exc)
        except Exception:
            # The clock loop fires it again at its next tick.
            retried(log, CLOCK_TASK, "deadline failed", tournament_id=tid, kind=d.kind)
            self._again(tid, d)
            self.seq.changed.set()

    def _again(self, tid: str, d: Deadline) -> None:
        """The deadline is not spent: the loop fires it again at its next pass."""
        self._fired.discard((tid, d.kind, d.round, d.match, d.at_ms))

    async def _seated(self, a: Assigned) -> list[str]:
        """The entrants of a table whose human players are not seated."""
        events = await self.seq.log.read_stream(f"{domain.TABLE_STREAM}{a.table_id}")
        seated, began = domain.seated_players((e.type, e.payload) for e in events)
        return [] if began else domain.missing_entrants(a, seated)

    async def _seat_deadline(self, tid: str, d: Deadline) -> bool:
        """Act on a seat window's end; False when it is not over yet (no table, or a table
        opened late), so that it is fired again."""
        loaded = await self.seq.get(tid)
        state = loaded.state
        r = state.current
        if r is None or r.number != d.round:
            return True
        m = r.matches[d.match - 1]
        a = loaded.table_for(r.number, m)
        if state.decision(r.number, m) is not None:
            return True
        # The window runs from when there is a table to sit at: a table the table service
        # opened late (a loaded machine) gives its players the whole window. Until then the
        # deadline is not spent: the loop fires it again at its next tick (it was once
        # fired here while no table existed, did nothing, and never fired again: the round
        # then waited for its end with the no-show unrecorded).
        if a is None or a.at_ms + state.settings.seat_window_ms > self.seq.clock():
            self._again(tid, d)
            return False
        missing = await self._seated(a)
        if not missing:
            return True
        now = self.seq.clock()

        async def decide(fresh: Loaded) -> list[NewEvent]:
            st = fresh.state
            fm = st.rounds[d.round - 1].matches[d.match - 1]
            if st.decision(d.round, fm) is not None or len(fm.games) + 1 != a.game:
                return []
            p = fm.pairing
            a_out = any(e in missing for e in p.a)
            b_out = any(e in missing for e in p.b)
            if len(missing) == 1:
                # docs/specification.md §5: not seated within the window: out, and the match lost.
                return core(lambda: commands.no_show(st, missing[0], now))
            outcome = {True: Outcome.LOSS, False: Outcome.WIN}
            return core(
                lambda: commands.record_result(
                    st, d.round, d.match, outcome[a_out], outcome[b_out], now,
                    game=a.game, no_show=missing,
                )
            )  # fmt: skip

        await self.seq.run(tid, decide, command_id=f"{tid}:seat:{d.round}:{d.match}:{a.game}")
        return True

    async def _round_deadline(self, tid: str, d: Deadline) -> None:
        loaded = await self.seq.get(tid)
        state = loaded.state
        r = state.current
        if r is None or r.number != d.round:
            return
        never: list[str] = []
        for m in state.undecided(r):
            a = loaded.table_for(r.number, m)
            if a is not None:
                never += await self._seated(a)
        now = self.seq.clock()

        async def decide(fresh: Loaded) -> list[NewEvent]:
            return core(lambda: commands.round_timeout(fresh.state, now, never))

        await self.seq.run(tid, decide, command_id=f"{tid}:timeout:{d.round}")

    async def _ladder_deadline(self, tid: str) -> None:
        async def decide(fresh: Loaded) -> list[NewEvent]:
            ratings = await self.seq.players_ratings(fresh.state)
            return core(lambda: commands.finish_if_due(fresh.state, self.seq.clock(), ratings))

        await self.seq.run(tid, decide, command_id=f"{tid}:ladder_end")
