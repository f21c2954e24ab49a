"""The tournament service's storage: its streams in the event log, and its own schema
(``BELOT_TOURNAMENT_SCHEMA``, default ``tournament``; the names are prefixed, so the
schema may be shared) with three tables:

- ``tournaments(id, name, format, status, creator, created_at_ms, version)``: the list
  the API serves and the service reloads at start;
- ``tournament_tables(table_id, tournament_id, round, match, game)``: which pairing a
  table plays, so that a ``TableMatchFinished`` finds its tournament;
- ``tournament_checkpoint(consumer, position)``: how far the results consumer has read
  the log.

Every append to ``tournament-<id>`` goes through :meth:`TournamentStore.append`, one
transaction with ``append_in`` and the rows it changes (and the consumer's checkpoint
when the append is a result it consumed): a crash leaves all of it or none of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from eventlog import AppendResult, EventStore, NewEvent
from eventlog.migrations import Component, Migration, apply, quote_schema
from services.tournament.domain import Assigned, Loaded, fold, stream_of

CONSUMER: Final = "results"

# IF NOT EXISTS: schemas made before the migrations were versioned hold these already.
COMPONENT: Final = Component(
    "tournament",
    "tournament_migrations",
    (
        Migration(
            1,
            "tournaments, tables, checkpoint",
            """
CREATE TABLE IF NOT EXISTS {s}.tournaments (
    id            text PRIMARY KEY,
    name          text NOT NULL,
    format        text NOT NULL,
    status        text NOT NULL,
    creator       text,
    created_at_ms bigint NOT NULL,
    version       integer NOT NULL
);
CREATE INDEX IF NOT EXISTS tournaments_status ON {s}.tournaments (status, created_at_ms);
CREATE TABLE IF NOT EXISTS {s}.tournament_tables (
    table_id      text PRIMARY KEY,
    tournament_id text NOT NULL,
    round         integer NOT NULL,
    match         integer NOT NULL,
    game          integer NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.tournament_checkpoint (
    consumer text PRIMARY KEY,
    position bigint NOT NULL
);
""",
        ),
    ),
)

#: What the tournament service's role may do (``belot db setup`` grants it): the list row
#: is upserted (its WHERE reads the old row), a table row inserted once and looked up, the
#: checkpoint upserted. No DELETE, no TRUNCATE.
PRIVILEGES: Final = {
    "tournaments": "SELECT, INSERT, UPDATE",
    "tournament_tables": "SELECT, INSERT",
    "tournament_checkpoint": "SELECT, INSERT, UPDATE",
}


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    name: str
    format: str
    status: str
    creator: str | None
    created_at_ms: int
    version: int


def row_of(loaded: Loaded) -> Row:
    s = loaded.state
    return Row(
        s.id,
        loaded.config.name,
        s.settings.format.value,
        loaded.status,
        loaded.config.creator,
        s.created_at_ms,
        loaded.version,
    )


class TournamentStore:
    def __init__(self, log: EventStore, pool: asyncpg.Pool, schema: str) -> None:
        self.log = log
        self.pool = pool
        self.schema = schema
        self.s = quote_schema(schema)

    async def migrate(self) -> None:
        async with self.pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)

    # ------------------------------------------------------------------ the stream

    async def load(self, tournament_id: str, since: Loaded | None = None) -> Loaded:
        """The tournament folded from its stream (from ``since`` on, when given)."""
        base = since or Loaded()
        events = await self.log.read_stream(stream_of(tournament_id), base.version + 1)
        if not events:
            return base
        return fold(base, ((e.version, e.type, e.payload, e.command_id) for e in events))

    async def append(
        self,
        loaded: Loaded,
        events: Sequence[NewEvent],
        *,
        command_id: str | None,
        checkpoint: int | None = None,
    ) -> tuple[AppendResult, Loaded]:
        """Append to the tournament's stream at ``loaded.version`` (raises
        WrongExpectedVersion when another writer got there first), with the list row,
        the table rows of any ``TableAssigned``, and the consumer's ``checkpoint``, in
        one transaction. Returns the result and the tournament after the events."""
        tournament_id = loaded.id or _created_id(events)
        stream = stream_of(tournament_id)
        async with self.pool.acquire() as conn, conn.transaction():
            result = await self.log.append_in(
                conn, stream, loaded.version, events, command_id=command_id
            )
            if result.duplicate:
                after = loaded
            else:
                after = fold(
                    loaded,
                    (
                        (result.first_version + i, e.type, e.payload, command_id)
                        for i, e in enumerate(events)
                    ),
                )
                await self._put_row(conn, row_of(after))
                for e in events:
                    if e.type == "TableAssigned":
                        a = Assigned.from_payload(e.payload)
                        await conn.execute(
                            f"INSERT INTO {self.s}.tournament_tables VALUES ($1, $2, $3, $4, $5) "
                            "ON CONFLICT (table_id) DO NOTHING",
                            a.table_id,
                            tournament_id,
                            a.round,
                            a.match,
                            a.game,
                        )
            if checkpoint is not None:
                await self._set_checkpoint(conn, checkpoint)
        return result, after

    async def _put_row(self, conn: Any, row: Row) -> None:
        await conn.execute(
            f"""
INSERT INTO {self.s}.tournaments VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (id) DO UPDATE SET name = $2, status = $4, version = $7
WHERE {self.s}.tournaments.version < $7""",
            row.id,
            row.name,
            row.format,
            row.status,
            row.creator,
            row.created_at_ms,
            row.version,
        )

    # ------------------------------------------------------------------ the lists

    async def list_rows(self, status: str | None = None, limit: int = 100) -> list[Row]:
        if status is None:
            rows = await self.pool.fetch(
                f"SELECT * FROM {self.s}.tournaments ORDER BY created_at_ms DESC, id LIMIT $1",
                limit,
            )
        else:
            rows = await self.pool.fetch(
                f"SELECT * FROM {self.s}.tournaments WHERE status = $1 "
                "ORDER BY created_at_ms DESC, id LIMIT $2",
                status,
                limit,
            )
        return [Row(**dict(r)) for r in rows]

    async def live_ids(self) -> list[str]:
        """Tournaments not over: the ones whose clocks and tables the service keeps."""
        rows = await self.pool.fetch(
            f"SELECT id FROM {self.s}.tournaments WHERE status NOT IN ('finished', 'cancelled')"
        )
        return [r["id"] for r in rows]

    async def running_ladders(self) -> list[str]:
        rows = await self.pool.fetch(
            f"SELECT id FROM {self.s}.tournaments WHERE format = 'ladder' "
            "AND status IN ('running', 'paused')"
        )
        return [r["id"] for r in rows]

    async def count_by_status(self) -> dict[str, int]:
        """How many tournaments each status holds (a status none holds is not there)."""
        rows = await self.pool.fetch(
            f"SELECT status, count(*) AS n FROM {self.s}.tournaments GROUP BY status"
        )
        return {r["status"]: r["n"] for r in rows}

    async def table_owner(self, table_id: str) -> str | None:
        value = await self.pool.fetchval(
            f"SELECT tournament_id FROM {self.s}.tournament_tables WHERE table_id = $1", table_id
        )
        return None if value is None else str(value)

    # ------------------------------------------------------------------ checkpoint

    async def checkpoint(self) -> int | None:
        """The consumer's position, None before its first start."""
        value = await self.pool.fetchval(
            f"SELECT position FROM {self.s}.tournament_checkpoint WHERE consumer = $1", CONSUMER
        )
        return None if value is None else int(value)

    async def advance_checkpoint(self, position: int) -> None:
        async with self.pool.acquire() as conn:
            await self._set_checkpoint(conn, position)

    async def _set_checkpoint(self, conn: Any, position: int) -> None:
        await conn.execute(
            f"""
INSERT INTO {self.s}.tournament_checkpoint AS c VALUES ($1, $2)
ON CONFLICT (consumer) DO UPDATE SET position = greatest(c.position, $2)""",
            CONSUMER,
            position,
        )


def _created_id(events: Sequence[NewEvent]) -> str:
    for e in events:
        if e.type == "TournamentCreated":
            return str(e.payload["tournament_id"])
    raise ValueError("a new tournament's first append holds TournamentCreated")
