"""The tournament service's effects: what a change to a tournament makes due on the
table service.

After every change (:meth:`Effects.kick`), one task per tournament looks at it and does
what is due: see that a random draw whose round is named gets drawn
(:mod:`services.tournament.draws`), pair the next round once the current one is
complete (unless paused, or the organiser pairs by hand), open a table for each
undecided game of the round that has none (``belot.table.create`` with a command id, so
a retry names the same table; then ``TableAssigned``), and abort the tables whose match
the tournament decided otherwise (a no-show, a withdrawal, the round's clock, the end).
Every ``SWEEP_S`` the sweep kicks every live tournament again, which retries what failed
(a table the table service could not open, an abort that found nobody, a draw that
failed), and counts the tournaments by status.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from prometheus_client import Counter, Gauge

from belot_platform import messaging
from belot_platform.messaging import ServiceError
from belot_platform.supervise import cancel, retried
from eventlog import NewEvent
from services.tournament import domain
from services.tournament.commands import pair
from services.tournament.domain import Assigned, Loaded, Refused
from services.tournament.draws import Draws
from services.tournament.sequencer import Sequencer

log = logging.getLogger(__name__)

#: How often the effects of every live tournament are looked at again.
SWEEP_S: Final = 5.0
#: The sweep's supervised loop, and the per-tournament effects' failures (the ``task``
#: label of belot_task_up and belot_task_restarts_total).
SWEEP_TASK: Final = "tournament-sweep"
ADVANCE_TASK: Final = "tournament-advance"

TOURNAMENTS = Gauge("belot_tournament_tournaments", "Tournaments by status.", ["status"])
TABLES = Counter("belot_tournament_tables_total", "Tables opened and aborted.", ["what"])


class Effects:
    def __init__(self, seq: Sequencer, draws: Draws) -> None:
        self.seq = seq
        self.draws = draws
        self._advancing: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        #: Tables finished or aborted: never aborted (again).
        self._done_tables: set[str] = set()

    def table_done(self, table_id: str) -> None:
        """The table reported its match's end: there is nothing to abort."""
        self._done_tables.add(table_id)

    async def stop(self) -> None:
        await cancel(*self._advancing.values())

    def kick(self, tid: str) -> None:
        """Look at ``tid`` again soon (one task per tournament; a kick while it runs
        makes it look once more)."""
        if self.seq.stopping.is_set():
            return
        task = self._advancing.get(tid)
        if task is not None and not task.done():
            self._again.add(tid)
            return
        self._advancing[tid] = asyncio.create_task(self._advance_loop(tid))

    async def _advance_loop(self, tid: str) -> None:
        while True:
            self._again.discard(tid)
            try:
                await self.advance(tid)
            except asyncio.CancelledError:
                raise
            except Refused as exc:
                log.info("tournament %s: %s", tid, exc)
            except Exception:
                # The sweep kicks every live tournament again within SWEEP_S.
                retried(log, ADVANCE_TASK, "tournament effects failed", tournament_id=tid)
            if tid not in self._again:
                return

    async def advance(self, tid: str) -> None:
        loaded = await self.seq.get(tid)
        state = loaded.state
        if state.is_draw_pending:
            self.draws.ensure(loaded)
        if state.is_started and not state.is_finished and not loaded.paused:
            current = state.current
            if (
                state.settings.has_rounds
                and current is not None
                and state.is_round_complete(current)
                and loaded.config.auto_next
            ):
                k = current.number + 1

                async def paired(fresh: Loaded) -> list[NewEvent]:
                    return await pair(self.seq, fresh, k, self.seq.clock())

                loaded = await self.seq.run(tid, paired, command_id=f"{tid}:pair:{k}")
            if not loaded.state.is_finished:
                await self._open_tables(loaded)
                loaded = self.seq.cache[tid]
        await self._release_tables(loaded)

    async def _open_tables(self, loaded: Loaded) -> None:
        state = loaded.state
        r = state.current
        if r is None:
            return
        for m in state.undecided(r):
            if m.pairing.is_bye or loaded.table_for(r.number, m) is not None:
                continue
            game = len(m.games) + 1
            seats = domain.seats_for(state, m.pairing)
            request = domain.table_request(
                loaded, m.pairing, seats, f"r{r.number}m{m.pairing.match}g{game}"
            )
            try:
                reply = await messaging.request(
                    self.seq.nc,
                    f"{self.seq.prefix}.table.create",
                    request,
                    timeout=self.seq.timeout * 2,
                )
            except ServiceError as exc:
                log.warning(
                    "no table for %s r%s m%s: %s", loaded.id, r.number, m.pairing.match, exc
                )
                return  # the sweep tries again
            assigned = Assigned(
                r.number, m.pairing.match, game, reply["table_id"], reply["match_id"], seats,
                self.seq.clock(),
            )  # fmt: skip

            async def record(fresh: Loaded, a: Assigned = assigned) -> list[NewEvent]:
                if a.key in fresh.tables:
                    return []
                return [NewEvent(*domain.service_event(a))]

            loaded = await self.seq.run(
                loaded.id,
                record,
                command_id=f"{loaded.id}:table:{r.number}:{m.pairing.match}:{game}",
            )
            TABLES.labels("opened").inc()

    async def _release_tables(self, loaded: Loaded) -> None:
        """Abort the tables whose game the tournament no longer waits for."""
        state = loaded.state
        for a in list(loaded.tables.values()):
            if a.table_id in self._done_tables:
                continue
            r = state.rounds[a.round - 1]
            m = r.matches[a.match - 1]
            waited_for = a.game == len(m.games) + 1 and state.decision(r.number, m) is None
            if waited_for and not state.is_finished:
                continue  # still played
            # Decided otherwise (or its game recorded without it: both sides no-shows),
            # unless the table reported it itself.
            events = await self.seq.log.read_stream(f"{domain.TABLE_STREAM}{a.table_id}")
            if any(e.type in ("TableMatchFinished", "TableClosed") for e in events):
                self._done_tables.add(a.table_id)
                continue
            reason = "tournament finished" if state.is_finished else "decided by the tournament"
            try:
                await messaging.request(
                    self.seq.nc,
                    f"{self.seq.prefix}.table.{a.table_id}.abort",
                    {"reason": reason, "by": f"tournament:{loaded.id}"},
                    timeout=self.seq.timeout,
                )
            except ServiceError as exc:
                if exc.code != "match_over":
                    log.info("table %s not aborted yet: %s", a.table_id, exc)
                    continue
            self._done_tables.add(a.table_id)
            TABLES.labels("aborted").inc()

    async def sweep_loop(self) -> None:
        while not self.seq.stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.seq.stopping.wait(), SWEEP_S)
            for tid in list(self.seq.live):
                self.kick(tid)
            counts = await self.seq.store.count_by_status()
            for status in ("registering", "running", "paused", "finished", "cancelled"):
                TOURNAMENTS.labels(status).set(0)
            for status, n in counts.items():
                TOURNAMENTS.labels(status).set(n)
