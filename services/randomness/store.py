"""The private store of server seeds: the randomness service's own table.

The seed of a running match lives here and nowhere else: not in the event log, not in a
log line, not in a reply. Only the service reads it (to make decks) until the reveal,
when it becomes the public ``ServerSeedRevealed`` event. ``pending`` marks matches whose
seed window or drand round is still open, so a restarted service can resume their timers.
"""

from __future__ import annotations

from typing import Any, Final

from eventlog.migrations import Component, Migration, apply

SCHEMA = "randomness"

# IF NOT EXISTS: schemas made before the migrations were versioned hold these already.
COMPONENT: Final = Component(
    "randomness",
    "randomness_migrations",
    (
        Migration(
            1,
            "server seeds",
            """
CREATE TABLE IF NOT EXISTS {s}.server_seeds (
    match_id    text PRIMARY KEY,
    seed        bytea NOT NULL CHECK (length(seed) = 32),
    pending     boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS server_seeds_pending ON {s}.server_seeds (match_id)
    WHERE pending;
""",
        ),
        # A seed is one match's: once revealed, whoever saw it could compute every deck
        # of a second match that used it, from that match's public events, while it
        # runs (docs/threat-model.md). Drawn from the OS's CSPRNG, two never meet; this
        # makes a code path that would reuse one fail instead (the verify API's
        # commitment_unique and the player's tab check it from outside).
        Migration(
            2,
            "one match per server seed",
            """
CREATE UNIQUE INDEX IF NOT EXISTS server_seeds_seed ON {s}.server_seeds (seed);
""",
        ),
        # The match's receipt key (fairdeal.receipts): its private half signs each
        # seat's receipt for its seed, and is kept here with the seed, never revealed
        # (the server seed is, at the end: a key derived from it would let anyone sign
        # receipts then). NULL for matches opened before signed receipts.
        Migration(
            3,
            "a receipt key per match",
            """
ALTER TABLE {s}.server_seeds ADD COLUMN IF NOT EXISTS receipt_key bytea
    CHECK (receipt_key IS NULL OR length(receipt_key) = 32);
""",
        ),
    ),
)

#: What the randomness service's role may do (``belot db setup`` grants it, and nothing
#: on this table to any other role: the seeds of running matches are the one secret
#: the deal's fairness rests on): open inserts (its ON CONFLICT DO UPDATE needs UPDATE),
#: a deck or reveal selects, settle updates. No DELETE.
PRIVILEGES: Final = {"server_seeds": "SELECT, INSERT, UPDATE"}


class SeedStore:
    def __init__(self, pool: Any, schema: str = SCHEMA) -> None:
        if not schema.replace("_", "").isalnum() or not schema.islower():
            raise ValueError(f"schema {schema!r}: lower-case letters, digits and '_'")
        self._pool = pool
        self.schema = schema

    async def migrate(self) -> None:
        async with self._pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)

    async def put(self, match_id: str, seed: bytes, receipt_key: bytes) -> tuple[bytes, bytes]:
        """Keep ``seed`` and the private ``receipt_key`` for ``match_id``; returns those
        kept (the first ones if the match was already opened, so a retried open never
        makes two)."""
        row = await self._pool.fetchrow(
            f"""INSERT INTO {self.schema}.server_seeds (match_id, seed, receipt_key)
                VALUES ($1, $2, $3)
                ON CONFLICT (match_id) DO UPDATE SET match_id = EXCLUDED.match_id
                RETURNING seed, receipt_key""",
            match_id,
            seed,
            receipt_key,
        )
        kept = row["receipt_key"]
        return bytes(row["seed"]), b"" if kept is None else bytes(kept)

    async def receipt_key(self, match_id: str) -> bytes | None:
        """The match's private receipt key (None: unknown match, or opened before)."""
        key = await self._pool.fetchval(
            f"SELECT receipt_key FROM {self.schema}.server_seeds WHERE match_id = $1", match_id
        )
        return None if key is None else bytes(key)

    async def get(self, match_id: str) -> bytes | None:
        seed = await self._pool.fetchval(
            f"SELECT seed FROM {self.schema}.server_seeds WHERE match_id = $1", match_id
        )
        return None if seed is None else bytes(seed)

    async def settle(self, match_id: str) -> None:
        await self._pool.execute(
            f"UPDATE {self.schema}.server_seeds SET pending = false WHERE match_id = $1", match_id
        )

    async def pending(self) -> list[str]:
        rows = await self._pool.fetch(
            f"SELECT match_id FROM {self.schema}.server_seeds WHERE pending ORDER BY created_at"
        )
        return [r["match_id"] for r in rows]
