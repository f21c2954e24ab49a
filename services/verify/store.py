"""Finished matches, for ``GET /v1/matches``: a small projection in the verify service's
own schema (its migrations, its role's privileges, its writes and queries), fed from the
event log by :meth:`Projection.feed`. The row an ended match makes is
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

import asyncpg
import orjson
from prometheus_client import Gauge

from eventkit import streams
from eventlog import EventStore, RecordedEvent
from eventlog.follow import Follower
from eventlog.migrations import Component, Migration, apply, quote_schema
from fairdeal.record import ENDING_EVENTS, match_stream, randomness_stream
from services.verify.analyses import ANALYSES_MIGRATION, ANALYSES_PRIVILEGES
from services.verify.domain import FinishedMatch, summarize_end
from services.verify.facts import FACT_TYPES, FACTS_MIGRATION, FACTS_PRIVILEGES, Facts
from services.verify.fairplay import (
    FAIRPLAY_METHOD_MIGRATION,
    FAIRPLAY_MIGRATION,
    FAIRPLAY_PRIVILEGES,
)
from services.verify.reads import ReadPool
from services.verify.translog import MIGRATION as TRANSLOG_MIGRATION
from services.verify.translog import PRIVILEGES as TRANSLOG_PRIVILEGES
from services.verify.translog import REGISTRATIONS_MIGRATION, WITNESSES_MIGRATION

log = logging.getLogger(__name__)

SCHEMA: Final = "verify"
#: The events :meth:`Projection.handle` acts on: a match's end, a seed's reveal, and the
#: cross-match facts. The follower reads these alone (the database filters them: of a
#: deal's ~60 events, verify had parsed every one to act on none).
HANDLED: Final = ENDING_EVENTS | {"ServerSeedRevealed"} | FACT_TYPES
RETRY_SECONDS: Final = 1.0
MAX_RETRY_SECONDS: Final = 30.0

POSITION = Gauge("belot_verify_projection_position", "Last log position the projection read.")

# IF NOT EXISTS: schemas made before the migrations were versioned hold these already.
COMPONENT: Final = Component(
    "verify",
    "verify_migrations",
    (
        Migration(
            1,
            "finished matches, position",
            """
CREATE TABLE IF NOT EXISTS {s}.verify_matches (
    match_id         text PRIMARY KEY,
    ruleset          text NOT NULL,
    players          text[] NOT NULL,
    ended_by         text NOT NULL,
    winner           integer,
    scores           integer[] NOT NULL,
    ended_position   bigint NOT NULL,
    ended_at         timestamptz NOT NULL,
    revealed         boolean NOT NULL DEFAULT false,
    dealt_with_drand boolean
);
CREATE INDEX IF NOT EXISTS verify_matches_by_end ON {s}.verify_matches (ended_position DESC);
CREATE TABLE IF NOT EXISTS {s}.verify_position (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    position  bigint NOT NULL
);
INSERT INTO {s}.verify_position (singleton, position) VALUES (true, 0)
    ON CONFLICT (singleton) DO NOTHING;
""",
        ),
        Migration(2, "the platform's facts across matches", FACTS_MIGRATION),
        Migration(3, "the transparency log's checkpoints and cosignatures", TRANSLOG_MIGRATION),
        Migration(4, "the transparency log's registered witnesses", WITNESSES_MIGRATION),
        Migration(
            5,
            "per-witness cosignature lookups; registrations that expire, by client address",
            REGISTRATIONS_MIGRATION,
        ),
        # The receipts the seats publish for their seeds once the match has ended
        # (fairdeal.receipts): each signed with its match's receipt key, checked before
        # it is kept, one per seat and event, never changed or removed.
        Migration(
            6,
            "the seats' published seed receipts",
            """
CREATE TABLE IF NOT EXISTS {s}.verify_seed_receipts (
    match_id      text NOT NULL,
    seat          integer NOT NULL,
    version       bigint NOT NULL,
    receipt       jsonb NOT NULL,
    published_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, seat, version)
);
""",
        ),
        # Each finished match analysed double-dummy (services/verify/analyses.py): derived
        # data anyone recomputes from the record, kept so as not to solve again.
        Migration(7, "finished matches analysed double-dummy", ANALYSES_MIGRATION),
        # Each analysed match's card decisions against what each seat could know
        # (services/verify/fairplay.py): derived data, recomputed from the record.
        Migration(8, "fair-play decisions of the analysed matches, by seat", FAIRPLAY_MIGRATION),
        Migration(
            9,
            "fair-play decisions kept by the method that computed them",
            FAIRPLAY_METHOD_MIGRATION,
        ),
    ),
)

#: What the verify service's role may do (``belot db setup`` grants it): upsert and list
#: the finished matches; read and advance its position (its one row is the migration's);
#: keep the cross-match facts.
PRIVILEGES: Final = {
    "verify_matches": "SELECT, INSERT, UPDATE",
    "verify_position": "SELECT, UPDATE",
    **FACTS_PRIVILEGES,
    **TRANSLOG_PRIVILEGES,
    # A receipt is kept once (no UPDATE, no DELETE): what a seat published stays.
    "verify_seed_receipts": "SELECT, INSERT",
    **ANALYSES_PRIVILEGES,
    **FAIRPLAY_PRIVILEGES,
}


class Projection:
    """The finished-matches table: migrate, feed from the log (on ``pool``, the
    primary), query (on ``reads``: :mod:`services.verify.reads`; default ``pool``)."""

    def __init__(
        self, pool: asyncpg.Pool, schema: str = SCHEMA, reads: ReadPool | None = None
    ) -> None:
        self._pool = pool
        self.reads = ReadPool(pool, replicas=False) if reads is None else reads
        self._s = quote_schema(schema)
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
        async with self._pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)

    async def publish_receipt(self, match_id: str, seat: int, version: int, doc: Any) -> bool:
        """Keep a seat's receipt (checked by the caller); False: it was kept already."""
        status = await self._pool.execute(
            f"""INSERT INTO {self._s}.verify_seed_receipts (match_id, seat, version, receipt)
                VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING""",
            match_id,
            seat,
            version,
            orjson.dumps(doc).decode(),
        )
        return bool(status.endswith(" 1"))

    async def receipts(self, match_id: str) -> list[dict[str, Any]]:
        """The receipts the seats published for ``match_id``, by seat and version."""
        rows = await self.reads.fetch(
            f"""SELECT receipt::text AS r, published_at FROM {self._s}.verify_seed_receipts
                WHERE match_id = $1 ORDER BY seat, version""",
            match_id,
        )
        return [{**orjson.loads(r["r"]), "published_at": r["published_at"].isoformat()}
                for r in rows]  # fmt: skip

    async def position(self) -> int:
        return int(await self._pool.fetchval(f"SELECT position FROM {self._s}.verify_position"))

    async def caught_up(self, position: int) -> bool:
        """Do the API's reads see this projection's effects of every event up to
        ``position``? On the primary, what this process has handled is there. On a
        replica, only what the position saved there says: it is written after the
        effects it covers, so a replica that has it has them (inside
        :meth:`ReadPool.pinned <services.verify.reads.ReadPool.pinned>`, the replica
        the next reads go to)."""
        if not self.reads.replicas and self.read_to >= position:
            return True
        saved = await self.reads.fetchval(f"SELECT position FROM {self._s}.verify_position")
        return int(saved) >= position

    async def _save_position(self, conn: Any, position: int) -> None:
        await conn.execute(
            f"UPDATE {self._s}.verify_position SET position = greatest(position, $1)", position
        )
        POSITION.set(position)

    async def record_end(self, row: FinishedMatch) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"""INSERT INTO {self._s}.verify_matches (match_id, ruleset, players, ended_by,
                        winner, scores, ended_position, ended_at, revealed, dealt_with_drand)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                    ON CONFLICT (match_id) DO UPDATE SET revealed =
                        {self._s}.verify_matches.revealed OR EXCLUDED.revealed""",
                row.match_id,
                row.ruleset,
                row.players,
                row.ended_by,
                row.winner,
                row.scores,
                row.ended_position,
                row.ended_at,
                row.revealed,
                row.dealt_with_drand,
            )
            await self._save_position(conn, row.ended_position)

    async def record_reveal(self, match_id: str, position: int) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"UPDATE {self._s}.verify_matches SET revealed = true WHERE match_id = $1",
                match_id,
            )
            await self._save_position(conn, position)

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
            except asyncpg.UndefinedTableError:
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
            async with self._pool.acquire() as conn:
                await self._save_position(conn, position)

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
        rows = await self.reads.fetch(
            f"""SELECT match_id, ruleset, players, ended_by, winner, scores, ended_position,
                       ended_at, revealed, dealt_with_drand
                FROM {self._s}.verify_matches
                WHERE ($1::bigint IS NULL OR ended_position < $1)
                  AND ($2::text IS NULL OR ruleset = $2)
                  AND ($3::text IS NULL OR $3 = ANY(players))
                  AND ($4::text IS NULL OR ended_by = $4)
                ORDER BY ended_position DESC
                LIMIT $5""",
            before,
            ruleset,
            player,
            ended_by,
            limit,
        )
        return [
            FinishedMatch(
                r["match_id"],
                r["ruleset"],
                list(r["players"]),
                r["ended_by"],
                r["winner"],
                list(r["scores"]),
                r["ended_position"],
                r["ended_at"],
                r["revealed"],
                r["dealt_with_drand"],
            )
            for r in rows
        ]
