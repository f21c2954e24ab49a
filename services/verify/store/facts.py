"""The platform's facts across matches (:mod:`services.verify.facts` says what they
catch): ``verify_commitments``, ``verify_named_rounds``, ``verify_round_facts``,
``verify_seeds`` and ``verify_endings``. Written on the primary, one event at a time,
each write an idempotent insert keyed by the match (or round); queried on the read
pool (:mod:`.reads`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import asyncpg

from eventlog.migrations import quote_schema
from services.verify.store.reads import ReadPool

#: The verify component's migration 2 (:data:`services.verify.store.COMPONENT`).
FACTS_MIGRATION: Final = """
CREATE TABLE IF NOT EXISTS {s}.verify_commitments (
    commitment  text NOT NULL,
    match_id    text NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (commitment, match_id)
);
CREATE TABLE IF NOT EXISTS {s}.verify_named_rounds (
    match_id    text PRIMARY KEY,
    chain       text NOT NULL,
    round       bigint NOT NULL,
    -- true: dealt from drand; false: without; NULL: not resolved yet
    with_drand  boolean,
    recorded_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS verify_named_rounds_round ON {s}.verify_named_rounds (chain, round);
CREATE TABLE IF NOT EXISTS {s}.verify_round_facts (
    chain       text NOT NULL,
    round       bigint NOT NULL,
    type        text NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (chain, round)
);
CREATE TABLE IF NOT EXISTS {s}.verify_seeds (
    match_id    text PRIMARY KEY,
    humans      integer NOT NULL,
    missing     integer NOT NULL,
    recorded_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.verify_endings (
    match_id     text PRIMARY KEY,
    ended_by     text NOT NULL,
    aborted_by   text,
    decks_issued integer NOT NULL,
    recorded_at  timestamptz NOT NULL
);
"""

#: What the verify role may do to these tables: add facts; a named round's outcome is
#: set once it is known.
FACTS_PRIVILEGES: Final = {
    "verify_commitments": "SELECT, INSERT",
    "verify_named_rounds": "SELECT, INSERT, UPDATE",
    "verify_round_facts": "SELECT, INSERT",
    "verify_seeds": "SELECT, INSERT",
    "verify_endings": "SELECT, INSERT",
}


class FactStore:
    """The cross-match tables: written on ``pool`` (the primary), queried on ``reads``."""

    def __init__(self, pool: asyncpg.Pool, schema: str, reads: ReadPool) -> None:
        self._pool = pool
        self._reads = reads
        self._s = quote_schema(schema)

    # ------------------------------------------------------------------ writes

    async def add_commitment(self, commitment: str, match_id: str, at: datetime) -> None:
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_commitments VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            commitment,
            match_id,
            at,
        )

    async def add_seeds(self, match_id: str, humans: int, missing: int, at: datetime) -> None:
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_seeds VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (match_id) DO NOTHING",
            match_id,
            humans,
            missing,
            at,
        )

    async def name_round(self, match_id: str, chain: str, round_: int, at: datetime) -> None:
        """The round a match named, its outcome not known yet."""
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_named_rounds VALUES ($1, $2, $3, NULL, $4)"
            " ON CONFLICT (match_id) DO NOTHING",
            match_id,
            chain,
            round_,
            at,
        )

    async def resolve_round(self, match_id: str, with_drand: bool) -> None:
        """Whether the match was dealt from its named round's value."""
        await self._pool.execute(
            f"UPDATE {self._s}.verify_named_rounds SET with_drand = $2 WHERE match_id = $1",
            match_id,
            with_drand,
        )

    async def add_round_fact(self, chain: str, round_: int, fact: str, at: datetime) -> None:
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_round_facts VALUES ($1, $2, $3, $4)"
            " ON CONFLICT DO NOTHING",
            chain,
            round_,
            fact,
            at,
        )

    async def add_ending(
        self, match_id: str, ended_by: str, aborted_by: str | None, decks: int, at: datetime
    ) -> None:
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_endings VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (match_id) DO NOTHING",
            match_id,
            ended_by,
            aborted_by,
            decks,
            at,
        )

    # ------------------------------------------------------------------ queries

    async def commitment_users(self, commitment: str) -> list[str]:
        rows = await self._reads.fetch(
            f"SELECT match_id FROM {self._s}.verify_commitments WHERE commitment = $1"
            " ORDER BY recorded_at, match_id",
            commitment,
        )
        return [r["match_id"] for r in rows]

    async def round_matches(
        self, chain: str, round_: int
    ) -> tuple[str | None, list[tuple[str, bool | None]]]:
        """The round's fact (its event type, None if none yet) and every match that named
        it, with whether it was dealt with drand (None: not known yet)."""
        fact = await self._reads.fetchval(
            f"SELECT type FROM {self._s}.verify_round_facts WHERE chain = $1 AND round = $2",
            chain,
            round_,
        )
        rows = await self._reads.fetch(
            f"SELECT match_id, with_drand FROM {self._s}.verify_named_rounds"
            " WHERE chain = $1 AND round = $2 ORDER BY recorded_at, match_id",
            chain,
            round_,
        )
        return fact, [(r["match_id"], r["with_drand"]) for r in rows]

    async def counts(self, interval: str | None) -> dict[str, Any]:
        """The counts behind the rates, over the facts recorded in the last ``interval``
        (a PostgreSQL interval, e.g. ``24 hours``; None: all): ``rounds`` (facts,
        missed), ``dealt`` (resolved, without_drand), ``ends`` (ended, forfeited,
        aborted, aborted_after_deck, aborted_after_round), ``seeds`` (humans, missing)
        and ``reused`` (commitments used twice)."""
        since = "" if interval is None else f"WHERE recorded_at > now() - interval '{interval}'"
        s = self._s
        rounds = await self._reads.fetchrow(
            f"SELECT count(*) AS facts,"
            f" count(*) FILTER (WHERE type = 'DrandRoundMissed') AS missed"
            f" FROM {s}.verify_round_facts {since}"
        )
        dealt = await self._reads.fetchrow(
            f"SELECT count(with_drand) AS resolved,"
            f" count(*) FILTER (WHERE with_drand = false) AS without_drand"
            f" FROM {s}.verify_named_rounds {since}"
        )
        ends = await self._reads.fetchrow(
            f"SELECT count(*) AS ended,"
            f" count(*) FILTER (WHERE ended_by = 'MatchForfeited') AS forfeited,"
            f" count(*) FILTER (WHERE ended_by = 'MatchAborted') AS aborted,"
            f" count(*) FILTER (WHERE ended_by = 'MatchAborted' AND decks_issued > 0)"
            f" AS aborted_after_deck,"
            # After the round was named, its value is out within seconds and every
            # deck can be computed: the verifier's ``ending`` fails such an abort,
            # deck or no deck, and this is how often it happens.
            f" count(*) FILTER (WHERE ended_by = 'MatchAborted' AND (decks_issued > 0"
            f" OR EXISTS (SELECT 1 FROM {s}.verify_named_rounds n"
            f" WHERE n.match_id = e.match_id AND n.recorded_at <= e.recorded_at)))"
            f" AS aborted_after_round"
            f" FROM {s}.verify_endings e {since}"
        )
        seeds = await self._reads.fetchrow(
            f"SELECT coalesce(sum(humans), 0) AS humans,"
            f" coalesce(sum(missing), 0) AS missing FROM {s}.verify_seeds {since}"
        )
        reused = await self._reads.fetchval(
            f"SELECT count(*) FROM (SELECT commitment FROM {s}.verify_commitments"
            f" {since} GROUP BY commitment HAVING count(*) > 1) AS twice"
        )
        return {"rounds": rounds, "dealt": dealt, "ends": ends, "seeds": seeds, "reused": reused}
