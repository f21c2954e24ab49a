"""The rating service's own tables (schema ``BELOT_RATING_SCHEMA``, default ``rating``):
where the consumer is in the log, and the projection the HTTP API and the look-up read.

- ``checkpoint(consumer, position)``: the last log position the consumer has handled.
  It is updated in the same transaction as the effects of the event at that position
  (the appended verdict and the projection rows), so a crash can never leave an effect
  without its position, nor a position without its effect.
- ``matches(match_id, pool, verdict, detail, position)``: every match id decided, rated
  or not (the core's "seen" set), with the log position of its verdict.
- ``players(pool, player, mu, sigma, games, wins, draws, losses, last_at_ms)``: the
  core's ``PlayerRating`` per pool; mu and sigma as double precision, which holds a
  Python float exactly.
- ``history(pool, player, seq, ...)``: the core's ``HistoryEntry`` rows, ``seq`` counting
  a player's rated matches in the pool from 1 (the fold order).

Everything but the checkpoint is a projection: :meth:`Projection.rebuild` empties it and
folds the ``rating-*`` streams again with the pure core, which must give the same rows
as the live consumer wrote one match at a time (a test compares them).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from eventlog import EventStore
from eventlog.migrations import Component, Migration, apply, quote_schema
from rating import (
    EVENT_TYPES,
    HistoryEntry,
    MatchRated,
    PlayerRating,
    Pool,
    RatingEvent,
    RatingSettings,
    RatingState,
    Result,
    from_payload,
    replay,
)
from services.rating.domain import POOL_SIDE_SIZES, STREAM_PREFIX, verdict_of

CONSUMER: Final = "rating"

COMPONENT: Final = Component(
    "rating",
    "rating_migrations",
    (
        Migration(
            1,
            "checkpoint, matches, players, history",
            """
CREATE TABLE {s}.checkpoint (
    consumer   text        PRIMARY KEY,
    position   bigint      NOT NULL CHECK (position >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {s}.matches (
    match_id text   PRIMARY KEY,
    pool     text   NOT NULL,
    verdict  text   NOT NULL,
    detail   text   NOT NULL,
    position bigint NOT NULL
);
CREATE TABLE {s}.players (
    pool       text             NOT NULL,
    player     text             NOT NULL,
    mu         double precision NOT NULL,
    sigma      double precision NOT NULL,
    games      integer          NOT NULL,
    wins       integer          NOT NULL,
    draws      integer          NOT NULL,
    losses     integer          NOT NULL,
    last_at_ms bigint           NOT NULL,
    PRIMARY KEY (pool, player)
);
CREATE TABLE {s}.history (
    pool          text    NOT NULL,
    player        text    NOT NULL,
    seq           integer NOT NULL,
    match_id      text    NOT NULL,
    at_ms         bigint  NOT NULL,
    result        text    NOT NULL,
    partners      text[]  NOT NULL,
    opponents     text[]  NOT NULL,
    left_by       text,
    rating_before integer NOT NULL,
    rating_after  integer NOT NULL,
    PRIMARY KEY (pool, player, seq)
);
""",
        ),
    ),
)

#: What the rating service's role may do (``belot db setup`` grants it): the consumer
#: locks and moves its checkpoint (SELECT ... FOR UPDATE needs UPDATE), inserts verdicts
#: and history rows, upserts players; ``belot rating rebuild``, run as the same role,
#: empties the projection (TRUNCATE) and copies it back (INSERT). The checkpoint is never
#: truncated.
PRIVILEGES: Final = {
    "checkpoint": "SELECT, INSERT, UPDATE",
    "matches": "SELECT, INSERT, TRUNCATE",
    "players": "SELECT, INSERT, UPDATE, TRUNCATE",
    "history": "SELECT, INSERT, TRUNCATE",
}

_PLAYER_COLUMNS: Final = "player, mu, sigma, games, wins, draws, losses, last_at_ms"
_HISTORY_COLUMNS: Final = (
    "match_id, at_ms, result, partners, opponents, left_by, rating_before, rating_after"
)


@dataclass(frozen=True, slots=True)
class RebuildReport:
    events: int  # rating events folded
    matches: int  # match ids decided
    players: int  # (pool, player) rows
    checkpoint: int


def _player(r: Sequence[Any]) -> PlayerRating:
    return PlayerRating(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])


def _entry(r: Sequence[Any]) -> HistoryEntry:
    return HistoryEntry(r[0], r[1], Result(r[2]), tuple(r[3]), tuple(r[4]), r[5], r[6], r[7])


def _player_row(pool: str, p: PlayerRating) -> tuple[Any, ...]:
    return (pool, p.player, p.mu, p.sigma, p.games, p.wins, p.draws, p.losses, p.last_at_ms)


def _history_row(pool: str, player: str, seq: int, h: HistoryEntry) -> tuple[Any, ...]:
    return (
        pool,
        player,
        seq,
        h.match_id,
        h.at_ms,
        h.result.value,
        list(h.partners),
        list(h.opponents),
        h.left_by,
        h.rating_before,
        h.rating_after,
    )


class Projection:
    """The rating schema's tables on a pool. ``log`` is the event store the consumer
    reads and appends to (a rebuild folds its ``rating-*`` streams)."""

    def __init__(self, pool: asyncpg.Pool, schema: str, settings: RatingSettings) -> None:
        self.pool = pool
        self.schema = schema
        self.settings = settings
        self.s = quote_schema(schema)

    # ------------------------------------------------------------------ schema

    async def migrate(self) -> None:
        """Create or update the tables; idempotent, safe from many processes at once
        (see :func:`eventlog.migrations.apply`)."""
        async with self.pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)

    # ------------------------------------------------------------------ checkpoint

    async def checkpoint(self) -> int | None:
        """The consumer's position, or None if it has none (a new or dropped schema)."""
        value = await self.pool.fetchval(
            f"SELECT position FROM {self.s}.checkpoint WHERE consumer = $1", CONSUMER
        )
        return None if value is None else int(value)

    async def lock_checkpoint(self, conn: Any) -> int:
        """Inside a transaction on ``conn``: the consumer's position, its row locked until
        the transaction ends. Whoever holds it is the only one deciding or rebuilding, so
        two consumers (or a consumer and a rebuild) never handle the same event twice."""
        await conn.execute(
            f"INSERT INTO {self.s}.checkpoint (consumer, position) VALUES ($1, 0) "
            "ON CONFLICT (consumer) DO NOTHING",
            CONSUMER,
        )
        return int(
            await conn.fetchval(
                f"SELECT position FROM {self.s}.checkpoint WHERE consumer = $1 FOR UPDATE",
                CONSUMER,
            )
        )

    @contextlib.asynccontextmanager
    async def holding_checkpoint(self) -> AsyncIterator[tuple[Any, int]]:
        """A transaction that holds the checkpoint's row (:meth:`lock_checkpoint`): its
        connection, for the reads and writes of one decision, and the position. It
        commits when the block ends, and rolls back if the block raises."""
        async with self.pool.acquire() as conn, conn.transaction():
            yield conn, await self.lock_checkpoint(conn)

    async def set_checkpoint(self, conn: Any, position: int) -> None:
        await conn.execute(
            f"UPDATE {self.s}.checkpoint SET position = $2, updated_at = now() WHERE consumer = $1",
            CONSUMER,
            position,
        )

    async def advance_checkpoint(self, position: int) -> None:
        """Move the checkpoint forward past events with no effect (never backwards: a
        concurrent consumer may be further on)."""
        await self.pool.execute(
            f"UPDATE {self.s}.checkpoint SET position = $2, updated_at = now() "
            "WHERE consumer = $1 AND position < $2",
            CONSUMER,
            position,
        )

    # ------------------------------------------------------------------ the consumer's reads

    async def seen(self, conn: Any, match_id: str) -> bool:
        found = await conn.fetchval(f"SELECT 1 FROM {self.s}.matches WHERE match_id = $1", match_id)
        return found is not None

    async def players_in(
        self, conn: Any, pool: str, players: Iterable[str]
    ) -> dict[str, PlayerRating]:
        rows = await conn.fetch(
            f"SELECT {_PLAYER_COLUMNS} FROM {self.s}.players "
            "WHERE pool = $1 AND player = ANY($2::text[])",
            pool,
            list(players),
        )
        return {r[0]: _player(r) for r in rows}

    # ------------------------------------------------------------------ the consumer's writes

    async def record(
        self, conn: Any, event: RatingEvent, position: int, after: RatingState
    ) -> None:
        """Write one verdict (at log ``position``) into the projection, inside the
        consumer's transaction. ``after`` is the partial state the core evolved with
        the event: its rows for the seated players are the new ones."""
        await conn.execute(
            f"INSERT INTO {self.s}.matches (match_id, pool, verdict, detail, position) "
            "VALUES ($1, $2, $3, $4, $5)",
            event.match_id,
            event.pool,
            verdict_of(event),
            "" if isinstance(event, MatchRated) else event.detail,
            position,
        )
        if not isinstance(event, MatchRated):
            return
        pool = after.pools[event.pool]
        players = [pool.players[c.player] for c in event.changes]
        await conn.executemany(
            f"INSERT INTO {self.s}.players (pool, {_PLAYER_COLUMNS}) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
            "ON CONFLICT (pool, player) DO UPDATE SET mu = excluded.mu, "
            "sigma = excluded.sigma, games = excluded.games, wins = excluded.wins, "
            "draws = excluded.draws, losses = excluded.losses, "
            "last_at_ms = excluded.last_at_ms",
            [_player_row(event.pool, p) for p in players],
        )
        # The partial state held no history, so each player's one entry is this match;
        # its number is the player's games count after it.
        await conn.executemany(
            f"INSERT INTO {self.s}.history (pool, player, seq, {_HISTORY_COLUMNS}) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            [
                _history_row(event.pool, p.player, p.games, pool.history[p.player][-1])
                for p in players
            ],
        )

    # ------------------------------------------------------------------ reads for the API

    def state_of(self, pool: str, players: Mapping[str, PlayerRating]) -> RatingState:
        """A core state holding ``players`` of ``pool`` (no history), for the views."""
        return RatingState(
            self.settings, {pool: Pool(pool, POOL_SIDE_SIZES[pool], dict(players), {})}
        )

    async def pool_state(self, pool: str) -> RatingState:
        """The pool's players (no history), enough for ``leaderboard`` and ``standings``."""
        rows = await self.pool.fetch(
            f"SELECT {_PLAYER_COLUMNS} FROM {self.s}.players WHERE pool = $1", pool
        )
        return self.state_of(pool, {r[0]: _player(r) for r in rows})

    async def player(self, pool: str, player: str) -> PlayerRating | None:
        r = await self.pool.fetchrow(
            f"SELECT {_PLAYER_COLUMNS} FROM {self.s}.players WHERE pool = $1 AND player = $2",
            pool,
            player,
        )
        return None if r is None else _player(r)

    async def ratings(self, pool: str, players: Sequence[str]) -> dict[str, PlayerRating]:
        async with self.pool.acquire() as conn:
            return await self.players_in(conn, pool, players)

    async def history(self, pool: str, player: str) -> tuple[HistoryEntry, ...]:
        rows = await self.pool.fetch(
            f"SELECT {_HISTORY_COLUMNS} FROM {self.s}.history "
            "WHERE pool = $1 AND player = $2 ORDER BY seq",
            pool,
            player,
        )
        return tuple(_entry(r) for r in rows)

    async def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every projection row, in key order (tests compare a rebuild with the live run)."""
        s = self.s
        return {
            "matches": [
                tuple(r)
                for r in await self.pool.fetch(f"SELECT * FROM {s}.matches ORDER BY match_id")
            ],
            "players": [
                tuple(r)
                for r in await self.pool.fetch(f"SELECT * FROM {s}.players ORDER BY pool, player")
            ],
            "history": [
                tuple(r)
                for r in await self.pool.fetch(
                    f"SELECT * FROM {s}.history ORDER BY pool, player, seq"
                )
            ],
        }

    # ------------------------------------------------------------------ rebuild

    async def rebuild(self, log: EventStore) -> RebuildReport:
        """Empty the projection and fold the log's ``rating-*`` streams again with the
        pure core, in one transaction.

        It holds the checkpoint's row lock throughout, so a running consumer waits and
        then carries on from where it was. The checkpoint becomes the furthest delivery
        any verdict in the log names (``source_position``), if that is further: with the
        checkpoint lost too, the consumer then starts there, and anything it meets again
        is a match id already decided, which changes nothing.
        """
        s = self.s
        async with self.holding_checkpoint() as (conn, checkpoint):
            await conn.execute(f"TRUNCATE {s}.matches, {s}.players, {s}.history")
            events: list[RatingEvent] = []
            positions: dict[str, int] = {}
            furthest = 0
            async for recorded in log.iter_all(0):
                if not recorded.stream_id.startswith(STREAM_PREFIX):
                    continue
                if recorded.type not in EVENT_TYPES:
                    continue
                # Only this service writes these streams, with this codec: a payload it
                # cannot read (RatingEventError) is a bug to see, so it stops the rebuild
                # (the transaction rolls back and the old projection stays).
                event = from_payload(recorded.type, recorded.payload)
                events.append(event)
                positions.setdefault(event.match_id, recorded.position)
                source = recorded.metadata.get("source_position")
                if isinstance(source, int):
                    furthest = max(furthest, source)
            state = replay(events, RatingState(self.settings))
            first: dict[str, RatingEvent] = {}
            for event in events:
                first.setdefault(event.match_id, event)
            await conn.copy_records_to_table(
                "matches",
                schema_name=self.schema,
                records=[
                    (
                        e.match_id,
                        e.pool,
                        verdict_of(e),
                        "" if isinstance(e, MatchRated) else e.detail,
                        positions[e.match_id],
                    )
                    for e in first.values()
                ],
            )
            players = [
                _player_row(name, p)
                for name, pool in state.pools.items()
                for p in pool.players.values()
            ]
            await conn.copy_records_to_table("players", schema_name=self.schema, records=players)
            history = [
                _history_row(name, player, seq, h)
                for name, pool in state.pools.items()
                for player, entries in pool.history.items()
                for seq, h in enumerate(entries, 1)
            ]
            await conn.copy_records_to_table("history", schema_name=self.schema, records=history)
            checkpoint = max(checkpoint, furthest)
            await self.set_checkpoint(conn, checkpoint)
        return RebuildReport(len(events), len(first), len(players), checkpoint)


async def has_event_log(pool: asyncpg.Pool, schema: str) -> bool:
    """Does ``schema`` hold an event log (its ``events`` table)?"""
    log_table = f"{quote_schema(schema)}.events"
    return await pool.fetchval("SELECT to_regclass($1)", log_table) is not None
