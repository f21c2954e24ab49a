"""The fair-play decisions of the analysed matches (:mod:`services.verify.fairplay`):
``verify_fairplay`` (one row per match and seat of an account, every card the seat
played) and ``verify_fairplay_matches`` (one row per match: done), each under the
method of its chances. Derived data, kept once and never changed; read and
written on the primary.
"""

from __future__ import annotations

from typing import Final

import asyncpg
import orjson

from belot.fairplay import Decision
from eventlog.migrations import quote_schema
from services.verify.domain import SeatDecisions, SeatRow

#: The verify component's migration 8 (:data:`services.verify.store.COMPONENT`).
FAIRPLAY_MIGRATION: Final = """
CREATE TABLE IF NOT EXISTS {s}.verify_fairplay_matches (
    match_id     text PRIMARY KEY,
    outcome      text NOT NULL CHECK (outcome IN ('computed', 'failed')),
    reason       text,
    seats        integer NOT NULL,
    seconds      double precision NOT NULL,
    computed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS {s}.verify_fairplay (
    match_id     text NOT NULL,
    seat         integer NOT NULL,
    player       text NOT NULL,
    decisions    jsonb NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS verify_fairplay_by_player ON {s}.verify_fairplay (player);
"""
#: Migration 9: each row under the method of its chances (belot.fairplay.METHOD;
#: the rows kept before were the first's), a new method's beside the old
#: (services/verify/fairplay.py says why). Idempotent, as every migration is (a schema
#: whose migration records are lost runs them again).
FAIRPLAY_METHOD_MIGRATION: Final = """
ALTER TABLE {s}.verify_fairplay_matches
    ADD COLUMN IF NOT EXISTS method text NOT NULL DEFAULT 'hard-240/1';
ALTER TABLE {s}.verify_fairplay_matches ALTER COLUMN method DROP DEFAULT;
ALTER TABLE {s}.verify_fairplay_matches DROP CONSTRAINT IF EXISTS verify_fairplay_matches_pkey;
ALTER TABLE {s}.verify_fairplay_matches ADD PRIMARY KEY (match_id, method);
ALTER TABLE {s}.verify_fairplay ADD COLUMN IF NOT EXISTS method text NOT NULL DEFAULT 'hard-240/1';
ALTER TABLE {s}.verify_fairplay ALTER COLUMN method DROP DEFAULT;
ALTER TABLE {s}.verify_fairplay DROP CONSTRAINT IF EXISTS verify_fairplay_pkey;
ALTER TABLE {s}.verify_fairplay ADD PRIMARY KEY (match_id, seat, method);
"""
#: Kept once, never changed or removed (derived data: recomputed, not corrected).
FAIRPLAY_PRIVILEGES: Final = {
    "verify_fairplay_matches": "SELECT, INSERT",
    "verify_fairplay": "SELECT, INSERT",
}


class FairPlayStore:
    """The stored decisions, by method, beside the analyses they are computed from."""

    def __init__(self, pool: asyncpg.Pool, schema: str) -> None:
        self._pool = pool
        self._s = quote_schema(schema)

    def _waiting(self) -> str:
        return (
            f"FROM {self._s}.verify_analyses a JOIN {self._s}.verify_matches m USING (match_id)"
            f" WHERE a.outcome = 'analysed' AND NOT EXISTS (SELECT 1 FROM"
            f" {self._s}.verify_fairplay_matches f WHERE f.match_id = a.match_id"
            " AND f.method = $1)"
        )

    async def pending(self, method: str, limit: int) -> list[str]:
        """Analysed matches whose decisions are not computed by ``method``, oldest first."""
        rows = await self._pool.fetch(
            f"SELECT a.match_id {self._waiting()} ORDER BY m.ended_position LIMIT $2",
            method,
            limit,
        )
        return [r["match_id"] for r in rows]

    async def backlog(self, method: str) -> int:
        count: int = await self._pool.fetchval(f"SELECT count(*) {self._waiting()}", method)
        return count

    async def analysis(self, match_id: str) -> str | None:
        """The match's stored analysis (JSON), if it was analysed."""
        analysis: str | None = await self._pool.fetchval(
            f"SELECT analysis FROM {self._s}.verify_analyses"
            " WHERE match_id = $1 AND outcome = 'analysed'",
            match_id,
        )
        return analysis

    async def keep(
        self,
        match_id: str,
        seats: list[SeatDecisions],
        outcome: str,
        reason: str | None,
        seconds: float,
        method: str,
    ) -> None:
        """A match's seats' decisions and its done row, in one transaction (each kept
        once: a row already there stays)."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.executemany(
                f"INSERT INTO {self._s}.verify_fairplay"
                " (match_id, seat, player, decisions, method)"
                " VALUES ($1, $2, $3, $4::jsonb, $5) ON CONFLICT DO NOTHING",
                [
                    (match_id, s.seat, s.player,
                     orjson.dumps([d.to_json() for d in s.decisions]).decode(), method)
                    for s in seats
                ],
            )  # fmt: skip
            await conn.execute(
                f"INSERT INTO {self._s}.verify_fairplay_matches"
                " (match_id, outcome, reason, seats, seconds, method)"
                " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                match_id,
                outcome,
                reason,
                len(seats),
                seconds,
                method,
            )

    async def analyses_waiting(self) -> bool:
        """Does a finished match wait for its analysis?"""
        waiting: bool = await self._pool.fetchval(
            f"SELECT EXISTS (SELECT 1 FROM {self._s}.verify_matches m WHERE m.revealed AND"
            f" NOT EXISTS (SELECT 1 FROM {self._s}.verify_analyses a"
            " WHERE a.match_id = m.match_id))"
        )
        return waiting

    async def rows(self, window: int, player: str | None, method: str) -> list[SeatRow]:
        """The rows by ``method`` of every match among each player's (or ``player``'s)
        last ``window`` matches (a match has a deal at least), every seat of them (the
        partners')."""
        recs = await self._pool.fetch(
            f"""WITH ranked AS (
                    SELECT f.match_id, row_number() OVER (PARTITION BY f.player
                        ORDER BY m.ended_position DESC, f.match_id DESC) AS n
                    FROM {self._s}.verify_fairplay f
                    JOIN {self._s}.verify_matches m USING (match_id)
                    WHERE ($2::text IS NULL OR f.player = $2) AND f.method = $3
                      AND jsonb_array_length(f.decisions) > 0)
                SELECT f.match_id, m.ended_position, f.seat, f.player, f.decisions::text AS d
                FROM {self._s}.verify_fairplay f
                JOIN {self._s}.verify_matches m USING (match_id)
                WHERE f.method = $3
                  AND f.match_id IN (SELECT match_id FROM ranked WHERE n <= $1)""",
            window,
            player,
            method,
        )
        return [
            SeatRow(r["match_id"], r["ended_position"], r["seat"], r["player"],
                    tuple(Decision.from_json(d) for d in orjson.loads(r["d"])))
            for r in recs
        ]  # fmt: skip
