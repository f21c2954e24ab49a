"""The transparency log's tables (:mod:`services.verify.translog` is the service):
``verify_checkpoints`` (every checkpoint the log signed), ``verify_cosignatures`` (the
first cosignature each witness sent for each) and ``verify_witnesses`` (the keys that
registered themselves). The signer and the witnesses' part read and write on the
primary; the public reads (checkpoints, cosignatures, entries) go to the read pool
(:mod:`.reads`), which a caller may have pinned to one replica.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, Final

import asyncpg

from eventlog.migrations import quote_schema
from eventlog.translog import StoredEntry
from services.verify.store.reads import ReadPool

#: Registrations are serialised per verify schema under this advisory lock, so that
#: concurrent ones (on several replicas) cannot exceed the cap together.
_REGISTER_LOCK: Final = "verify:witnesses:"

#: The verify component's migration 3 (:data:`services.verify.store.COMPONENT`).
TRANSLOG_MIGRATION: Final = """
-- Every checkpoint the log signed (the note as signed: text, blank line, the log's line)
-- and the first cosignature each witness sent for it, with the witness's own time.
CREATE TABLE IF NOT EXISTS {s}.verify_checkpoints (
    size      bigint      PRIMARY KEY CHECK (size >= 0),
    root      bytea       NOT NULL CHECK (length(root) = 32),
    note      text        NOT NULL,
    signed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS {s}.verify_cosignatures (
    size        bigint      NOT NULL REFERENCES {s}.verify_checkpoints (size),
    witness     text        NOT NULL,
    key_id      bigint      NOT NULL,
    "timestamp" bigint      NOT NULL,
    line        text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (size, witness, key_id)
);
"""
#: The verify component's migration 4.
WITNESSES_MIGRATION: Final = """
-- Witnesses that registered their key themselves (POST /v1/log/witnesses): the log
-- collects and serves their cosignatures as it does the configured witnesses'. A
-- registration is no trust (readers name the witnesses they trust). `vkey` is the key
-- as the log formats it; (name, key_id) is how a signature line names its key, and
-- two keys sharing it would make every note ambiguous.
CREATE TABLE IF NOT EXISTS {s}.verify_witnesses (
    vkey          text        PRIMARY KEY,
    name          text        NOT NULL,
    key_id        bigint      NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (name, key_id)
);
"""
#: The verify component's migration 5.
REGISTRATIONS_MIGRATION: Final = """
-- Per-witness lookups: the first checkpoint after an entry that one witness cosigned
-- (GET /v1/log/entries, witnessed_by), one index probe per witness and entry.
CREATE INDEX IF NOT EXISTS verify_cosignatures_by_witness
    ON {s}.verify_cosignatures (witness, key_id, size);
-- Registrations expire unless renewed (registering again, or a cosignature from the
-- key), and are counted per client address. A registration made before this has no
-- address (it counts against the cap only) and lives one default term from now: its
-- witness renews it as any other.
ALTER TABLE {s}.verify_witnesses
    ADD COLUMN IF NOT EXISTS client      text,
    ADD COLUMN IF NOT EXISTS cosigned_at timestamptz,
    ADD COLUMN IF NOT EXISTS expires_at  timestamptz NOT NULL
        DEFAULT now() + interval '1 day';
UPDATE {s}.verify_witnesses w SET cosigned_at = c.at
    FROM (SELECT witness, key_id, max(received_at) AS at FROM {s}.verify_cosignatures
          GROUP BY witness, key_id) c
    WHERE c.witness = w.name AND c.key_id = w.key_id AND w.cosigned_at IS NULL;
CREATE INDEX IF NOT EXISTS verify_witnesses_by_client
    ON {s}.verify_witnesses (client, expires_at);
"""
#: What the verify role may do to the log's tables: keep checkpoints and cosignatures
#: (never changed), and register witnesses.
TRANSLOG_PRIVILEGES: Final = {
    "verify_checkpoints": "SELECT, INSERT",
    "verify_cosignatures": "SELECT, INSERT",
    # UPDATE: a renewal moves expires_at; DELETE: an expired registration is removed
    # (under the registration lock) when another registers.
    "verify_witnesses": "SELECT, INSERT, UPDATE, DELETE",
}


class Registrations:
    """The witness registrations inside :meth:`LogStore.registering`'s transaction, on
    its connection: every count and write sees every other registration."""

    def __init__(self, store: LogStore, conn: Any) -> None:
        self._store = store
        self._conn = conn

    async def taken(self, name: str, key_id: int) -> tuple[str, bool] | None:
        """The key registered under (name, key ID), and whether it has cosigned; None if
        none is."""
        row = await self._conn.fetchrow(self._store._sql_taken, name, key_id)
        return None if row is None else (row[0], row[1])

    async def renew(
        self, name: str, key_id: int, ttl: float, slack: float
    ) -> tuple[datetime, datetime]:
        """Renew (name, key ID) for ``ttl`` seconds from now, unless that moves its end by
        no more than ``slack``; its registration and end."""
        at, until = await self._conn.fetchrow(self._store._sql_renew, name, key_id, ttl, slack)
        return at, until

    async def live(self, client: str | None) -> tuple[int, datetime | None, datetime]:
        """How many registrations are live (``client``'s, or all with None), when the
        first of them ends, and the database's now."""
        count, first_end, now = await self._conn.fetchrow(self._store._sql_live, client)
        return count, first_end, now

    async def add(
        self, vkey: str, name: str, key_id: int, client: str, ttl: float
    ) -> tuple[datetime, datetime]:
        """Register a key for ``client``, for ``ttl`` seconds; its registration and end."""
        at, until = await self._conn.fetchrow(
            self._store._sql_register, vkey, name, key_id, client, ttl
        )
        return at, until


class LogStore:
    """The log's tables and the event log's entries: the signer's and the witnesses'
    reads and writes on ``pool`` (the primary), the public reads on ``reads``."""

    def __init__(self, pool: asyncpg.Pool, reads: ReadPool, log_schema: str, schema: str) -> None:
        self._pool = pool
        self._reads = reads
        self._register_lock = int.from_bytes(
            hashlib.sha256(f"{_REGISTER_LOCK}{schema}".encode()).digest()[:8], "big", signed=True
        )
        v = quote_schema(schema)
        s = quote_schema(log_schema)
        self._sql_latest = (
            f"SELECT size, root, note FROM {v}.verify_checkpoints ORDER BY size DESC LIMIT 1"
        )
        self._sql_at = f"SELECT size, root, note FROM {v}.verify_checkpoints WHERE size = $1"
        self._sql_insert = f"""
INSERT INTO {v}.verify_checkpoints (size, root, note) VALUES ($1, $2, $3)
ON CONFLICT (size) DO NOTHING"""
        self._sql_lines = (
            f"SELECT line FROM {v}.verify_cosignatures WHERE size = $1 ORDER BY witness, key_id"
        )
        self._sql_cosign = f"""
INSERT INTO {v}.verify_cosignatures (size, witness, key_id, "timestamp", line)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING"""
        # Each witness's first cosigned checkpoint after each entry: one probe of the
        # index on (witness, key_id, size) per witness and entry (migration 5).
        self._sql_first_cosigned = f"""
SELECT e.idx, w.i, c.size
FROM unnest($1::bigint[]) AS e (idx)
CROSS JOIN unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS w (name, kid, i)
CROSS JOIN LATERAL (
    SELECT size FROM {v}.verify_cosignatures
    WHERE witness = w.name AND key_id = w.kid AND size > e.idx
    ORDER BY size LIMIT 1
) c"""
        self._sql_notes = f"SELECT size, note FROM {v}.verify_checkpoints WHERE size = ANY($1)"
        self._sql_notes_lines = f"""
SELECT size, line FROM {v}.verify_cosignatures WHERE size = ANY($1)
ORDER BY size, witness, key_id"""
        # Registrations: the live ones only (an expired one is neither accepted nor
        # counted; the next registration deletes it).
        self._sql_registered = f"""
SELECT vkey, registered_at, expires_at FROM {v}.verify_witnesses
WHERE expires_at > now() ORDER BY registered_at, vkey"""
        self._sql_expire = f"DELETE FROM {v}.verify_witnesses WHERE expires_at <= now()"
        self._sql_taken = f"""
SELECT vkey, cosigned_at IS NOT NULL FROM {v}.verify_witnesses
WHERE name = $1 AND key_id = $2"""
        # Renewal: a term from now (the long one once the key has cosigned), never
        # shortened, and left as it is unless it moves by more than the slack ($4): a
        # registration repeated at once is answered as it was (idempotent), and
        # renewals cost a write at most once a slack.
        self._sql_renew = f"""
UPDATE {v}.verify_witnesses
SET expires_at = CASE
    WHEN now() + make_interval(secs => $3) > expires_at + make_interval(secs => $4)
    THEN now() + make_interval(secs => $3) ELSE expires_at END
WHERE name = $1 AND key_id = $2
RETURNING registered_at, expires_at"""
        # The live registrations, all or one address's: how many, and the first to end.
        self._sql_live = f"""
SELECT count(*), min(expires_at), now() FROM {v}.verify_witnesses
WHERE $1::text IS NULL OR client = $1"""
        self._sql_register = f"""
INSERT INTO {v}.verify_witnesses (vkey, name, key_id, client, expires_at)
VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
RETURNING registered_at, expires_at"""
        # A cosignature renews its registered key (if it moves its end by more than the
        # slack) and marks it as one that has cosigned; an expired one stays expired.
        self._sql_cosigned = f"""
UPDATE {v}.verify_witnesses
SET cosigned_at = now(), expires_at = now() + make_interval(secs => $3)
WHERE name = $1 AND key_id = $2 AND expires_at > now()
  AND (cosigned_at IS NULL OR expires_at < now() + make_interval(secs => $4))"""
        self._sql_by_streams = f"""
SELECT t.index, t.entry, t.event_position
FROM {s}.events e JOIN {s}.translog_entries t ON t.event_position = e.position
WHERE e.stream_id = ANY($1::text[]) ORDER BY t.index"""

    # ------------------------------------------------------------ checkpoints

    async def checkpoint(
        self, size: int | None = None, *, primary: bool = False
    ) -> tuple[int, bytes, str] | None:
        """The checkpoint of ``size`` (the latest by default) as signed: its size, root
        and note; on the read pool, or on the primary."""
        on = self._pool if primary else self._reads
        row = await (
            on.fetchrow(self._sql_latest) if size is None else on.fetchrow(self._sql_at, size)
        )
        return None if row is None else (int(row[0]), bytes(row[1]), row[2])

    async def add_checkpoint(self, size: int, root: bytes, note: str) -> None:
        await self._pool.execute(self._sql_insert, size, root, note)

    async def lines(self, size: int) -> list[str]:
        """The cosignature lines of the checkpoint of ``size``, by witness and key ID."""
        return [r[0] for r in await self._reads.fetch(self._sql_lines, size)]

    async def first_cosigned(
        self, indices: list[int], names: list[str], key_ids: list[int]
    ) -> list[tuple[int, int, int]]:
        """For each entry of ``indices`` and each witness (``names[i]``, ``key_ids[i]``),
        the size of the first checkpoint holding it that the witness cosigned: (entry,
        witness's 1-based place, size), none where it cosigned none."""
        rows = await self._reads.fetch(self._sql_first_cosigned, indices, names, key_ids)
        return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    async def notes(self, sizes: list[int]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        """The cosignature lines of the checkpoints of ``sizes`` (by size, witness and key
        ID), then their notes as signed: each as (size, text)."""
        lines = [
            (int(size), line)
            for size, line in await self._reads.fetch(self._sql_notes_lines, sizes)
        ]
        notes = [
            (int(size), text) for size, text in await self._reads.fetch(self._sql_notes, sizes)
        ]
        return lines, notes

    async def entries_of(self, streams: list[str]) -> list[StoredEntry]:
        """The log's entries of the events of ``streams``, by index."""
        rows = await self._reads.fetch(self._sql_by_streams, streams)
        return [StoredEntry(r[0], bytes(r[1]), r[2]) for r in rows]

    # ------------------------------------------------------------ witnesses

    async def registered(self) -> list[tuple[str, datetime, datetime]]:
        """The live registrations, on the primary: (vkey, registered, ends), oldest first."""
        return [(r[0], r[1], r[2]) for r in await self._pool.fetch(self._sql_registered)]

    @contextlib.asynccontextmanager
    async def registering(self) -> AsyncIterator[Registrations]:
        """A transaction under the registration lock, the expired registrations removed
        first (they hold no slot, nor a name and key ID): what is done inside commits
        when the block ends, and nothing of it (the removal included) if it raises."""
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", self._register_lock)
            await conn.execute(self._sql_expire)
            yield Registrations(self, conn)

    async def add_cosignature(
        self, size: int, witness: str, key_id: int, timestamp: int, line: str
    ) -> None:
        """Keep a witness's cosignature line of a checkpoint (its first one stays)."""
        await self._pool.execute(self._sql_cosign, size, witness, key_id, timestamp, line)

    async def cosigned(self, name: str, key_id: int, ttl: float, slack: float) -> None:
        """A registered key cosigned: it has, and lives ``ttl`` seconds from now (unless
        that moves its end by no more than ``slack``, or it has expired)."""
        await self._pool.execute(self._sql_cosigned, name, key_id, ttl, slack)
