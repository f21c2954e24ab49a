"""The finished-matches projection's tables: ``verify_matches`` (one row per ended
match, for ``GET /v1/matches``), ``verify_position`` (how far in the log the projection
has read) and ``verify_seed_receipts`` (the receipts the seats publish). Written on the
primary by the feed (:mod:`services.verify.projection`) and by ``POST
/v1/matches/{id}/receipts``; queried on the read pool (:mod:`.reads`).

Every write is idempotent (an upsert keyed by the match id), so replaying events after
a restart, or two replicas feeding the same table, cannot do harm; the position only
ever grows, and it is saved in the transaction of the row it covers.
"""

from __future__ import annotations

from typing import Any, Final

import asyncpg
import orjson

from eventlog.migrations import quote_schema
from services.verify.domain import FinishedMatch
from services.verify.store.reads import ReadPool

#: The verify component's migration 1 (:data:`services.verify.store.COMPONENT`).
MATCHES_MIGRATION: Final = """
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
"""
#: The verify component's migration 6. The receipts the seats publish for their seeds
#: once the match has ended (fairdeal.receipts): each signed with its match's receipt
#: key, checked before it is kept, one per seat and event, never changed or removed.
RECEIPTS_MIGRATION: Final = """
CREATE TABLE IF NOT EXISTS {s}.verify_seed_receipts (
    match_id      text NOT NULL,
    seat          integer NOT NULL,
    version       bigint NOT NULL,
    receipt       jsonb NOT NULL,
    published_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, seat, version)
);
"""

#: Upsert and list the finished matches; read and advance the position (its one row is
#: the migration's).
MATCHES_PRIVILEGES: Final = {
    "verify_matches": "SELECT, INSERT, UPDATE",
    "verify_position": "SELECT, UPDATE",
}
#: A receipt is kept once (no UPDATE, no DELETE): what a seat published stays.
RECEIPTS_PRIVILEGES: Final = {"verify_seed_receipts": "SELECT, INSERT"}


class ProjectionStore:
    """The projection's rows: written on ``pool`` (the primary), listed on ``reads``."""

    def __init__(self, pool: asyncpg.Pool, schema: str, reads: ReadPool) -> None:
        self._pool = pool
        self._reads = reads
        self._s = quote_schema(schema)

    async def publish_receipt(self, match_id: str, seat: int, version: int, doc: Any) -> bool:
        """Keep a seat's receipt; False: it was kept already."""
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
        rows = await self._reads.fetch(
            f"""SELECT receipt::text AS r, published_at FROM {self._s}.verify_seed_receipts
                WHERE match_id = $1 ORDER BY seat, version""",
            match_id,
        )
        return [{**orjson.loads(r["r"]), "published_at": r["published_at"].isoformat()}
                for r in rows]  # fmt: skip

    async def position(self) -> int:
        """The saved position, on the primary."""
        return int(await self._pool.fetchval(f"SELECT position FROM {self._s}.verify_position"))

    async def read_position(self) -> int:
        """The saved position as the read pool sees it."""
        saved = await self._reads.fetchval(f"SELECT position FROM {self._s}.verify_position")
        return int(saved)

    async def _save_position(self, conn: Any, position: int) -> None:
        await conn.execute(
            f"UPDATE {self._s}.verify_position SET position = greatest(position, $1)", position
        )

    async def save_position(self, position: int) -> None:
        async with self._pool.acquire() as conn:
            await self._save_position(conn, position)

    async def record_end(self, row: FinishedMatch) -> None:
        """The ended match's row and the position of its end, in one transaction."""
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
        """The match's seed revealed, and the reveal's position, in one transaction."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                f"UPDATE {self._s}.verify_matches SET revealed = true WHERE match_id = $1",
                match_id,
            )
            await self._save_position(conn, position)

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
        rows = await self._reads.fetch(
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
