"""Finished matches, for ``GET /v1/matches``: a small projection in the verify service's
own schema (its tables, migrations and queries: :mod:`services.verify.store.projection`),
fed from the event log by :meth:`Projection.feed`. The row an ended match makes is
:func:`services.verify.domain.summarize_end` (pure).

Why a projection: the log's ``events`` table has no index on the event type, so finding
ended matches there is a scan of the whole log, and the service must not add indexes to
another component's tables. One row per ended match is written when the subscription
meets a public ``MatchEnded``, ``MatchForfeited`` or ``MatchAborted`` in a ``match-*``
stream (reading that match's two streams once, for the ruleset, the players, the
result and whether drand was used); ``ServerSeedRevealed`` in the ``randomness-*``
stream sets ``revealed``. Every write is idempotent (an upsert keyed by the match id), so
replaying events after a restart, or two replicas feeding the same table, cannot do
harm; the position read so far is kept in ``verify_position`` and only ever grows.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from prometheus_client import Gauge

from eventkit import streams
from eventlog import EventStore, RecordedEvent
from eventlog.follow import Follower
from fairdeal.record import ENDING_EVENTS, match_stream, randomness_stream
from services.verify.domain import FinishedMatch, summarize_end
from services.verify.facts import FACT_TYPES, Facts
from services.verify.store import (
    SCHEMA,
    Pool,
    ProjectionStore,
    ReadPool,
    UndefinedTableError,
    migrate,
)

log = logging.getLogger(__name__)

#: The events :meth:`Projection.handle` acts on: a match's end, a seed's reveal, and the
#: cross-match facts. The follower reads these alone (the database filters them: of a
#: deal's ~60 events, verify had parsed every one to act on none).
HANDLED: Final = ENDING_EVENTS | {"ServerSeedRevealed"} | FACT_TYPES
RETRY_SECONDS: Final = 1.0
MAX_RETRY_SECONDS: Final = 30.0

POSITION = Gauge("belot_verify_projection_position", "Last log position the projection read.")


class Projection:
    """The finished-matches table: migrate, feed from the log (on ``pool``, the
    primary), query (on ``reads``: :mod:`services.verify.store.reads`; default ``pool``)."""

    def __init__(self, pool: Pool, schema: str = SCHEMA, reads: ReadPool | None = None) -> None:
        self._pool = pool
        self.reads = ReadPool(pool, replicas=False) if reads is None else reads
        self._rows = ProjectionStore(pool, schema, self.reads)
        self.schema = schema
        #: The cross-match facts (commitments, rounds, rates), fed by the same events.
        self.facts = Facts(pool, schema, self.reads)
        #: Why the feed cannot read the log now (None: it can).
        self.problem: str | None = None
        self._follower: Follower | None = None

    @property
    def read_to(self) -> int:
        """The last position this process has taken into account (the saved position
        lags it by up to a second of events without effect)."""
        return 0 if self._follower is None else self._follower.position

    async def migrate(self) -> None:
        await migrate(self._pool, self.schema)

    async def publish_receipt(self, match_id: str, seat: int, version: int, doc: Any) -> bool:
        """Keep a seat's receipt (checked by the caller); False: it was kept already."""
        return await self._rows.publish_receipt(match_id, seat, version, doc)

    async def receipts(self, match_id: str) -> list[dict[str, Any]]:
        """The receipts the seats published for ``match_id``, by seat and version."""
        return await self._rows.receipts(match_id)

    async def position(self) -> int:
        return await self._rows.position()

    async def caught_up(self, position: int) -> bool:
        """Do the API's reads see this projection's effects of every event up to
        ``position``? On the primary, what this process has handled is there. On a
        replica, only what the position saved there says: it is written after the
        effects it covers, so a replica that has it has them (inside
        :meth:`ReadPool.pinned <services.verify.store.reads.ReadPool.pinned>`, the
        replica the next reads go to)."""
        if not self.reads.replicas and self.read_to >= position:
            return True
        return await self._rows.read_position() >= position

    async def record_end(self, row: FinishedMatch) -> None:
        """The ended match's row, and the position of its end with it."""
        await self._rows.record_end(row)
        POSITION.set(row.ended_position)

    async def record_reveal(self, match_id: str, position: int) -> None:
        """The match's seed revealed, and the reveal's position with it."""
        await self._rows.record_reveal(match_id, position)
        POSITION.set(position)

    async def handle(self, store: EventStore, e: RecordedEvent) -> bool:
        """Take one event into account; True if it changed a row and saved the position
        with it (the cross-match facts are idempotent writes that leave the position to
        the periodic save)."""
        if (
            e.type in ENDING_EVENTS
            and e.visibility == "public"
            and e.stream_id.startswith(streams.MATCH)
        ):
            match_id = e.stream_id.removeprefix(streams.MATCH)
            # Its row wants the match's first event (the ruleset) and its scores: a
            # MatchEnded says them, so only a forfeit or an abort reads the whole stream
            # for the last deal scored (a stream of some 500 events a match otherwise).
            ended = e.type == "MatchEnded"
            match_events = await store.read_stream(match_stream(match_id), 1, 1 if ended else None)
            fair_events = await store.read_stream(randomness_stream(match_id))
            await self.facts.record_ending(e, fair_events)
            await self.record_end(summarize_end(e, match_events, fair_events))
            return True
        if e.type == "ServerSeedRevealed" and e.stream_id.startswith(streams.RANDOMNESS):
            await self.record_reveal(e.stream_id.removeprefix(streams.RANDOMNESS), e.position)
            return True
        await self.facts.handle(e)
        return False

    async def feed(self, store: EventStore, *, poll_interval: float = 1.0) -> None:
        """Follow the log forever (cancel to stop). While the schema has no event log yet
        it waits for one, looking again after a growing pause (up to half a minute) and
        saying so in ``problem``. Any other failure is said in ``problem`` and raised:
        run it under a :class:`~belot_platform.supervise.Supervisor`, which logs it and
        starts it again (from the saved position: what was not saved is read again)."""
        pause = RETRY_SECONDS
        while True:
            try:
                await self._follow(store, poll_interval)
            except UndefinedTableError:
                pause = pause if self.problem is not None else RETRY_SECONDS
                # No event log in this schema yet: nothing has been appended anywhere.
                if self.problem is None:
                    log.warning("verify projection: no event log yet in %s", store.schema)
                self.problem = f"no event log in schema {store.schema!r} yet"
            except Exception as exc:
                self.problem = f"reading the log failed: {type(exc).__name__}"
                raise
            await asyncio.sleep(pause)
            pause = min(MAX_RETRY_SECONDS, pause * 2)

    async def _follow(self, store: EventStore, poll_interval: float) -> None:
        async def start() -> int:
            await store.head_position()  # no event log yet: UndefinedTableError
            self.problem = None
            at = await self.position()
            POSITION.set(at)
            return at

        async def save(position: int) -> None:
            await self._rows.save_position(position)
            POSITION.set(position)

        async def handle(e: RecordedEvent) -> bool:
            return await self.handle(store, e)

        self._follower = Follower(
            store, start=start, save=save, handle=handle, poll_interval=poll_interval,
            types=HANDLED,
        )  # fmt: skip
        await self._follower.run()

    async def list(
        self,
        *,
        limit: int,
        before: int | None = None,
        ruleset: str | None = None,
        player: str | None = None,
        ended_by: str | None = None,
    ) -> list[FinishedMatch]:
        """Finished matches, the latest end first; ``before``: ended before that position."""
        return await self._rows.list(
            limit=limit, before=before, ruleset=ruleset, player=player, ended_by=ended_by
        )
