"""Versioned SQL migrations for one event-log schema, applied on start.

``migrate`` is idempotent (applied versions are recorded in ``schema_migrations``) and
safe to run from many processes at once: everything happens in one transaction that first
takes a transaction-scoped advisory lock keyed by the schema name, so concurrent starters
queue behind the first and then find nothing left to do.

Migrations are append-only too: never edit a published one, add the next version.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final

from eventlog.errors import EventLogError

SCHEMA_RE: Final = re.compile(r"[a-z_][a-z0-9_]{0,50}")
APPEND_ONLY_SQLSTATE: Final = "EL001"
"""SQLSTATE raised by the trigger that refuses UPDATE, DELETE and TRUNCATE on the log."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str  # ``{s}`` stands for the quoted schema name


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        1,
        "events, log head, relay offsets, append-only triggers",
        """
CREATE TABLE {s}.events (
    position    bigint      PRIMARY KEY,
    stream_id   text        NOT NULL,
    version     integer     NOT NULL CHECK (version >= 1),
    type        text        NOT NULL,
    payload     jsonb       NOT NULL,
    metadata    jsonb       NOT NULL,
    visibility  text        NOT NULL
        CHECK (visibility ~ '^(public|secret|seat:(0|[1-9][0-9]{{0,2}}))$'),
    recorded_at timestamptz NOT NULL,
    hash        bytea       NOT NULL CHECK (length(hash) = 32),
    -- The command id of the append this event opened (NULL on its other events): a
    -- retried command finds its first result instead of appending again.
    command_id  text,
    CONSTRAINT events_stream_version UNIQUE (stream_id, version)
);
CREATE UNIQUE INDEX events_command_id ON {s}.events (command_id) WHERE command_id IS NOT NULL;

-- The last global position handed out. Appends take this row's lock in the statement
-- that inserts their events and keep it until they commit, so positions are handed out
-- in commit order and without gaps (a rolled-back append rolls the counter back too).
-- A reader that sees position p therefore sees every position below p: reading
-- "position > last seen" can never skip an event that commits later.
CREATE TABLE {s}.log_head (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    position  bigint  NOT NULL
);
INSERT INTO {s}.log_head (singleton, position) VALUES (true, 0);

-- How far each outbox relay has published (updated after JetStream acknowledges).
CREATE TABLE {s}.relay_offsets (
    relay      text        PRIMARY KEY,
    position   bigint      NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION {s}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % on %.% is refused',
        TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
        USING ERRCODE = 'EL001';
END
$$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON {s}.events
    FOR EACH ROW EXECUTE FUNCTION {s}.refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON {s}.events
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.refuse_change();

REVOKE UPDATE, DELETE, TRUNCATE ON {s}.events FROM PUBLIC;
""",
    ),
)


class MigrationError(EventLogError):
    """A schema name that cannot be used, or a database newer than this code."""


def quote_schema(schema: str) -> str:
    """The schema name as a quoted SQL identifier; raises :class:`MigrationError`."""
    if SCHEMA_RE.fullmatch(schema) is None:
        raise MigrationError(
            f"schema {schema!r} must be 1-51 lower-case letters, digits or '_', "
            "not starting with a digit"
        )
    return f'"{schema}"'


def lock_key(schema: str) -> int:
    """A signed 64-bit advisory-lock key for migrating ``schema``."""
    digest = hashlib.sha256(f"eventlog:migrate:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def migrate(conn: Any, schema: str, *, app_role: str | None = None) -> list[int]:
    """Bring ``schema`` up to date on asyncpg connection ``conn``; return versions applied.

    With ``app_role``, that role may read and append but not change or remove events
    (``UPDATE``, ``DELETE``, ``TRUNCATE`` revoked); the triggers refuse them for everyone,
    the owner included. Raises :class:`MigrationError` for a bad schema name or a
    database migrated by newer code.
    """
    s = quote_schema(schema)
    applied: list[int] = []
    async with conn.transaction():
        # Serialise concurrent starters, including CREATE SCHEMA IF NOT EXISTS, which
        # is not itself safe against a concurrent create of the same name.
        await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(schema))
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
        await conn.execute(
            f"CREATE TABLE IF NOT EXISTS {s}.schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r[0] for r in await conn.fetch(f"SELECT version FROM {s}.schema_migrations")}
        newest = max(m.version for m in MIGRATIONS)
        if done and max(done) > newest:
            raise MigrationError(
                f"schema {schema!r} is at migration {max(done)}, this code knows {newest}"
            )
        for m in MIGRATIONS:
            if m.version in done:
                continue
            await conn.execute(m.sql.format(s=s))
            await conn.execute(
                f"INSERT INTO {s}.schema_migrations (version, name) VALUES ($1, $2)",
                m.version,
                m.name,
            )
            applied.append(m.version)
        if app_role is not None:
            await _grant(conn, s, app_role)
    return applied


async def _grant(conn: Any, s: str, role: str) -> None:
    r = '"' + role.replace('"', '""') + '"'
    await conn.execute(
        f"GRANT USAGE ON SCHEMA {s} TO {r};"
        f"GRANT SELECT, INSERT ON {s}.events TO {r};"
        f"GRANT SELECT, UPDATE ON {s}.log_head TO {r};"
        f"GRANT SELECT, INSERT, UPDATE ON {s}.relay_offsets TO {r};"
        f"GRANT SELECT ON {s}.schema_migrations TO {r};"
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {s}.events FROM {r}"
    )
