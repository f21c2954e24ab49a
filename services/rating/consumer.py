"""The rating service's consumer: every ``TableMatchFinished`` in the log, exactly once.

It follows the event log itself (``EventStore.subscribe``: catch-up, then live), not
JetStream: the log is the source of truth, its positions follow commit order without
holes, and the consumer's position is a row in PostgreSQL that can commit in the same
transaction as its effects, which a JetStream acknowledgement cannot. For each delivery,
one transaction:

1. lock the checkpoint row (a second consumer, or a rebuild, waits here) and skip the
   event if the checkpoint is already past it;
2. read what the core needs (was the match id decided, the seated players' ratings) and
   call it (``decide``);
3. append the verdict to ``rating-<pool>`` with ``append_in`` and command id
   ``rate:<match id>``;
4. write the projection rows and move the checkpoint to the event's position; commit.

So a crash anywhere leaves either all of it or none of it. A match delivered twice (a
second ``TableMatchFinished`` with the same match id in another table stream, or the
same event met again after the checkpoint was lost) finds its match id decided and
changes nothing; and should the projection have lost that match id, the log's command
id refuses a second verdict. Events of other types only move the checkpoint, which the
follower writes in batches (when idle, or every half second) since they have no effect
to commit with (:mod:`eventlog.follow`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from prometheus_client import Counter, Gauge

from eventkit import streams
from eventlog import CommandIdReused, EventStore, RecordedEvent, WrongExpectedVersion
from eventlog.follow import Follower
from rating import MatchSummary, evolve
from services.rating.domain import (
    DUPLICATE,
    TABLE_MATCH_FINISHED,
    command_id,
    decide_delivery,
    partial_state,
    players_of,
    stream_of,
    summary_from_payload,
    to_new_event,
    verdict_of,
)
from services.rating.store import Projection

log = logging.getLogger(__name__)

#: Where the table service's events come from (``table-<table id>``).
TABLE_STREAM_PREFIX: Final = streams.TABLE
#: Tries at one delivery when another writer moved a rating stream under us.
_ATTEMPTS: Final = 5

MATCHES_CONSUMED: Final = Counter(
    "belot_rating_matches_consumed_total",
    "TableMatchFinished deliveries handled, by verdict (rated, a reason, or duplicate)",
    ["verdict"],
)
CONSUMER_POSITION: Final = Gauge(
    "belot_rating_consumer_position", "Last event-log position the rating consumer has handled"
)
CONSUMER_LAG: Final = Gauge(
    "belot_rating_consumer_lag_events", "Event-log head position minus the rating consumer's"
)


def is_match_finished(event: RecordedEvent) -> bool:
    return event.type == TABLE_MATCH_FINISHED and event.stream_id.startswith(TABLE_STREAM_PREFIX)


class Consumer:
    """Reads the log from the checkpoint on and rates finished matches (module docstring),
    with the log's :class:`~eventlog.follow.Follower`.

    ``run(stop)`` until ``stop`` is set; a failure (database gone, …) is shown by
    :attr:`error` (the readiness check) and raised, for the supervisor to start it again
    from the checkpoint. ``position`` is the last log position handled.
    """

    def __init__(
        self,
        log_store: EventStore,
        projection: Projection,
        *,
        flush_interval: float = 0.5,
        poll_interval: float = 1.0,
    ) -> None:
        self.log = log_store
        self.projection = projection
        self.follower = Follower(
            log_store,
            start=self.start_position,
            save=projection.advance_checkpoint,
            handle=self._handled,
            flush_interval=flush_interval,
            poll_interval=poll_interval,
            on_flush=self._flushed,
        )

    @property
    def position(self) -> int:
        return self.follower.position

    @property
    def error(self) -> str | None:
        return self.follower.error

    async def run(self, stop: asyncio.Event) -> None:
        """Follow the log until ``stop`` is set (the follower's ``run``)."""
        await self.follower.run(stop)

    async def start_position(self) -> int:
        """The checkpoint; without one (a new schema, or a dropped projection) the
        projection is rebuilt from the log first, which also sets it."""
        at = await self.projection.checkpoint()
        if at is None:
            report = await self.projection.rebuild(self.log)
            log.info(
                "rating projection rebuilt from the log",
                extra={"events": report.events, "checkpoint": report.checkpoint},
            )
            at = report.checkpoint
        return at

    async def _flushed(self, position: int) -> None:
        head = await self.log.head_position()
        CONSUMER_POSITION.set(position)
        CONSUMER_LAG.set(max(0, head - position))

    async def _handled(self, event: RecordedEvent) -> bool:
        return await self.handle(event) is not None

    async def handle(self, event: RecordedEvent) -> str | None:
        """Handle one event of the log; the verdict for a finished match, else None."""
        if not is_match_finished(event):
            return None
        verdict = await self._rate(event)  # moves the checkpoint with its effect
        MATCHES_CONSUMED.labels(verdict).inc()
        return verdict

    async def _rate(self, event: RecordedEvent) -> str:
        delivery = summary_from_payload(event.payload, source=f"{event.stream_id}@{event.version}")
        pool = delivery.ruleset if isinstance(delivery, MatchSummary) else delivery.pool
        projection = self.projection
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                async with projection.holding_checkpoint() as (conn, checkpoint):
                    if checkpoint >= event.position:
                        return DUPLICATE  # another consumer got here first
                    seen = await projection.seen(conn, delivery.match_id)
                    players = (
                        {}
                        if seen
                        else await projection.players_in(conn, pool, players_of(delivery))
                    )
                    state = partial_state(
                        projection.settings, pool, players, seen=seen, match_id=delivery.match_id
                    )
                    decided = decide_delivery(state, delivery)
                    if not decided:
                        await projection.set_checkpoint(conn, event.position)
                        return DUPLICATE
                    verdict = decided[0]
                    stream = stream_of(verdict.pool)
                    try:
                        result = await self.log.append_in(
                            conn,
                            stream,
                            await self.log.stream_version(stream),
                            [to_new_event(verdict, event)],
                            command_id=command_id(verdict.match_id),
                        )
                        duplicate = result.duplicate
                    except CommandIdReused:
                        duplicate = True  # decided before, into another pool's stream
                    if duplicate:
                        log.warning(
                            "the log holds a verdict on match %s that the projection lacks: "
                            "run 'belot rating rebuild'",
                            verdict.match_id,
                        )
                        await projection.set_checkpoint(conn, event.position)
                        return DUPLICATE
                    await projection.record(
                        conn, verdict, result.first_position, evolve(state, verdict)
                    )
                    await projection.set_checkpoint(conn, event.position)
                return verdict_of(verdict)
            except WrongExpectedVersion:
                # Someone else appended to the rating stream between our read of its
                # version and our append; nothing was written: read it again.
                if attempt == _ATTEMPTS:
                    raise
        raise AssertionError("unreachable")
