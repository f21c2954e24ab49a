"""The tournament service's results: the matches its tables played, followed in the
event log.

The consumer follows the log from its checkpoint (as the rating service does): a
``TableMatchFinished`` of a table the tournament opened becomes the core's
``record_result`` (the match's final score from its ``MatchEnded``), appended with the
command id ``<id>:result:<table id>`` in the same transaction as the checkpoint; a rated
one with no bot seat also scores for every running ladder of its ruleset. The other
events only move the position, which the follower writes down (:mod:`eventlog.follow`),
so a restart does not read the log again from far back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from belot.seats import side_of
from eventkit import streams
from eventlog import NewEvent, RecordedEvent
from eventlog.follow import Follower
from services.tournament import domain
from services.tournament.domain import Loaded
from services.tournament.effects import Effects
from services.tournament.sequencer import Sequencer, new_events
from tournament import Outcome, TournamentError, commands

log = logging.getLogger(__name__)

#: The consumer's supervised loop (the ``task`` label of belot_task_up).
RESULTS_TASK: Final = "tournament-results"


class Results:
    def __init__(self, seq: Sequencer, effects: Effects) -> None:
        self.seq = seq
        self.effects = effects
        self.follower = Follower(
            seq.log,
            start=self._start,
            save=seq.store.advance_checkpoint,
            handle=self._handle,
            poll_interval=0.5,
        )

    @property
    def consumer_error(self) -> str | None:
        """Why the consumer is not following the log (None: it is); the app's readiness."""
        return self.follower.error

    @property
    def consumer_failures(self) -> int:
        return self.follower.failures

    async def loop(self) -> None:
        """Follow the log for results (:mod:`eventlog.follow`: a failure is said in
        ``consumer_error`` and raised, and the supervisor starts again from the
        checkpoint; nothing is lost: an uncommitted result is simply handled again)."""
        await self.follower.run()

    async def _start(self) -> int:
        at = await self.seq.store.checkpoint()
        if at is None:
            # The first start: no tournament existed before, so nothing earlier in the log
            # is ours. Start at the head, and say so at once (a restart resumes there).
            at = await self.seq.log.head_position()
            await self.seq.store.advance_checkpoint(at)
        return at

    async def _handle(self, event: RecordedEvent) -> bool:
        if event.type == "TableMatchFinished" and event.stream_id.startswith(domain.TABLE_STREAM):
            await self.on_match_finished(event)  # moves the checkpoint with its effect
            return True
        return False

    async def on_match_finished(self, event: RecordedEvent) -> None:
        table_id = event.stream_id[len(domain.TABLE_STREAM) :]
        payload = event.payload if isinstance(event.payload, dict) else {}
        tid = await self.seq.store.table_owner(table_id)
        if tid is not None:
            await self._table_result(tid, table_id, payload, event.position)
        # A ladder scores the rated matches of the lobby: not a tournament's own tables,
        # nor a table with a bot seat (never rated).
        humans = all(s.get("player") for s in payload.get("seats", []))
        if tid is None and payload.get("rated") and humans:
            for lid in await self.seq.store.running_ladders():
                await self._ladder_result(lid, payload, event.position)
        await self.seq.store.advance_checkpoint(event.position)

    async def _final_score(self, match_id: str) -> tuple[int, int] | None:
        stream = streams.match_stream(match_id)
        version = await self.seq.log.stream_version(stream)
        for e in await self.seq.log.read_stream(stream, max(1, version - 2)):
            if e.type == "MatchEnded":
                s = e.payload.get("scores")
                if isinstance(s, list) and len(s) == 2:
                    return int(s[0]), int(s[1])
        return None

    async def _table_result(
        self, tid: str, table_id: str, payload: Mapping[str, Any], position: int
    ) -> None:
        scores = None
        if payload.get("finished"):
            scores = await self._final_score(str(payload.get("match_id")))
        result = domain.result_of(payload, scores)
        self.effects.table_done(table_id)
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            a = next((x for x in loaded.tables.values() if x.table_id == table_id), None)
            st = loaded.state
            if result is None or a is None or st.is_finished:
                return []
            m = st.rounds[a.round - 1].matches[a.match - 1]
            if st.decision(a.round, m) is not None or len(m.games) + 1 != a.game:
                return []  # decided otherwise meanwhile (a no-show, a withdrawal, the clock)
            try:
                return new_events(
                    commands.record_result(
                        st, a.round, a.match, Outcome(result.a), Outcome(result.b), now,
                        result.a_points, result.b_points, game=a.game,
                    )
                )  # fmt: skip
            except TournamentError as exc:
                log.warning("result of table %s refused: %s", table_id, exc)
                return []

        await self.seq.run(tid, decide, command_id=f"{tid}:result:{table_id}", checkpoint=position)

    async def _ladder_result(self, lid: str, payload: Mapping[str, Any], position: int) -> None:
        winner, leaver = payload.get("winner"), payload.get("leaver")
        outcomes: dict[str, Outcome] = {}
        left: list[str] = []
        for s in payload.get("seats", []):
            player, seat = s.get("player"), s.get("seat")
            if not isinstance(player, str) or type(seat) is not int:
                return
            side = side_of(seat)
            outcomes[player] = (
                Outcome.DRAW if winner is None else Outcome.WIN if winner == side else Outcome.LOSS
            )
            if leaver is not None and type(leaver) is int and side_of(leaver) == side:
                left.append(player)
        played = payload.get("finished_at_ms")
        match_id = payload.get("match_id")
        if type(played) is not int or not isinstance(match_id, str):
            return
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            try:
                return new_events(
                    commands.record_ladder_match(
                        loaded.state, match_id, outcomes, played, now, left,
                        str(payload.get("ruleset")),
                    )
                )  # fmt: skip
            except TournamentError:
                return []

        await self.seq.run(lid, decide, command_id=f"{lid}:ladder:{match_id}", checkpoint=position)
