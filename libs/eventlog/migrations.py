"""Versioned SQL migrations for one event-log schema, applied on start.

:func:`apply` is how every store of the platform migrates its tables (the event log's
here, each service's in its ``store`` module, each a :class:`Component`): it reads the
schema's version first and does nothing when it is current, so a service connecting as
a role that may not change the schema starts normally; when the schema is behind it
migrates only if the role may (else one line says to run ``belot db setup``), in one
transaction under an advisory lock keyed by the schema name, so concurrent starters
queue behind the first and then find nothing left to do. Applied versions are recorded
per component (the log's in ``schema_migrations``).

Migrations are append-only too: never edit a published one, add the next version.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from eventlog.errors import EventLogError

SCHEMA_RE: Final = re.compile(r"[a-z_][a-z0-9_]{0,50}")
APPEND_ONLY_SQLSTATE: Final = "EL001"
"""SQLSTATE raised by the trigger that refuses UPDATE, DELETE and TRUNCATE on the log."""
ENTRY_MISSING_SQLSTATE: Final = "EL002"
"""SQLSTATE raised by the trigger that refuses a logged event without its transparency-log
entry (migration 5); the store raises it as :class:`~eventlog.errors.EntryMissing`."""
ENTRY_MISMATCH_SQLSTATE: Final = "EL003"
"""SQLSTATE raised by the trigger that refuses a transparency-log entry that does not stand
for the event it names (migration 6): never from the store, which writes them right."""


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
    Migration(
        2,
        "row-level security on events",
        """
-- Who may read which rows is the database's decision, not each service's good manners.
-- These two policies apply to every role that has the table privileges at all (SELECT,
-- INSERT are granted per role by `belot db setup`): secret rows (the decks) are hidden,
-- appending is allowed (which role may append at all is its INSERT privilege). The roles
-- that must see some secret rows get policies of their own from `belot db setup`, which
-- knows their names; policies of one table are OR-ed. The table's owner (the migration
-- role) is not subject to them (no FORCE: it must see everything to verify the log, and
-- the function below relies on it), nor is a superuser.
ALTER TABLE {s}.events ENABLE ROW LEVEL SECURITY;
CREATE POLICY events_not_secret ON {s}.events FOR SELECT USING (visibility <> 'secret');
CREATE POLICY events_append ON {s}.events FOR INSERT WITH CHECK (true);

-- Does the stream hold a public event of one of these types (e.g. the match's end)? A
-- policy on events cannot query events itself (it would apply to its own subquery:
-- infinite recursion), so this runs as its owner, who bypasses row-level security. It
-- answers a question about public rows only. It walks the (stream_id, version) unique
-- index from the stream's last version down: an ending is a stream's last event, so an
-- ended stream answers at its first row (a running one reads its rows once).
-- search_path is pinned, as for every SECURITY DEFINER function, so that no object a
-- caller creates can stand in for pg_catalog's.
CREATE FUNCTION {s}.stream_has_public_event(stream text, types text[]) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$ SELECT EXISTS (SELECT 1 FROM {s}.events e
                         WHERE e.stream_id = stream AND e.type = ANY (types)
                           AND e.visibility = 'public'
                         ORDER BY e.version DESC LIMIT 1) $$;
REVOKE EXECUTE ON FUNCTION {s}.stream_has_public_event(text, text[]) FROM PUBLIC;
""",
    ),
    Migration(
        3,
        "relay offsets: the anchor's sequence and the relay's key",
        """
-- The outbox relay (eventlog/relay.py) reads what it published from JetStream itself,
-- telling its messages from anyone else's by their seal: an HMAC under this key, which
-- only the relay's roles may read. `sequence` is the JetStream sequence of the message
-- at `position` (NULL: written by a relay from before the seal, or none acknowledged
-- yet); the relay's walk back through the stream stops there.
ALTER TABLE {s}.relay_offsets
    ADD COLUMN sequence bigint CHECK (sequence >= 1),
    ADD COLUMN mac_key  bytea  CHECK (length(mac_key) = 32);
""",
    ),
    Migration(
        4,
        "the transparency log's entries and tree nodes",
        """
-- The transparency log (eventlog/translog.py, docs/transparency-log.md): one entry per
-- event of the types the store's entry source names, inserted by the statement that
-- inserts the event, so an entry commits with its event or not at all. `index` is the
-- leaf's place in the RFC 9162 tree; the writer computes it from the tree's size it
-- knows, and this primary key is the check that nobody appended meanwhile (a collision
-- makes the writer read the tree again and re-plan, as a stream's (stream_id, version)
-- does for its head). Indices are therefore handed out without gaps, in commit order.
CREATE TABLE {s}.translog_entries (
    index          bigint PRIMARY KEY CHECK (index >= 0),
    entry          bytea  NOT NULL CHECK (length(entry) BETWEEN 1 AND 65535),
    -- The event the entry stands for: one entry per event. No foreign key: one would
    -- make TRUNCATE of the events fail on the key before the append-only trigger says
    -- why; an entry without its event is what `belot log audit` reports.
    event_position bigint NOT NULL UNIQUE
);

-- Every perfect subtree of the tree, once complete: (level 0, i) is leaf i's hash,
-- (l, i) the root over leaves [i * 2^l, (i + 1) * 2^l). Written with the entries that
-- complete them and never changed, so a proof or a tile is one indexed read of
-- O(log n) rows.
CREATE TABLE {s}.translog_nodes (
    level smallint NOT NULL CHECK (level BETWEEN 0 AND 63),
    index bigint   NOT NULL CHECK (index >= 0),
    hash  bytea    NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, index)
);

CREATE TRIGGER translog_entries_append_only BEFORE UPDATE OR DELETE ON {s}.translog_entries
    FOR EACH ROW EXECUTE FUNCTION {s}.refuse_change();
CREATE TRIGGER translog_entries_no_truncate BEFORE TRUNCATE ON {s}.translog_entries
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.refuse_change();
CREATE TRIGGER translog_nodes_append_only BEFORE UPDATE OR DELETE ON {s}.translog_nodes
    FOR EACH ROW EXECUTE FUNCTION {s}.refuse_change();
CREATE TRIGGER translog_nodes_no_truncate BEFORE TRUNCATE ON {s}.translog_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.refuse_change();

REVOKE UPDATE, DELETE, TRUNCATE ON {s}.translog_entries, {s}.translog_nodes FROM PUBLIC;
""",
    ),
    Migration(
        5,
        "an event the transparency log must hold commits only with its entry",
        """
-- Migration 4 left it to the appender to be handed the entry source: a store built
-- without it wrote a match's ending with no entry, which `belot log audit` reports but
-- nothing prevented. Now the database refuses it. The events that must have an entry
-- are those fairdeal/logentries.py logs (LOGGED_TYPES, by the stream's prefix); the
-- list is written out here because a published migration never changes:
-- tests/integration/test_translog_required.py appends every type to every kind of
-- stream and checks this trigger refuses exactly what `is_logged` says, so a type
-- added there fails that test until a later migration replaces the trigger.
--
-- A constraint trigger, so that it runs after the whole statement: the store inserts
-- an event and its entry in the one statement (two data-modifying CTEs), and an AFTER
-- trigger fires once all of its rows are in, seeing the entries' CTE's too. INITIALLY
-- IMMEDIATE: the statement that appends without the entry fails itself, so the
-- appender learns it at once, not at a COMMIT far from the append (append_in in a
-- caller's transaction); DEFERRABLE, so that a writer putting the entry in a later
-- statement of its transaction may SET CONSTRAINTS ... DEFERRED and be checked at
-- commit. The WHEN condition keeps the moves (most events) off the trigger queue:
-- only a logged event pays for the check, one probe of the entries' unique index on
-- event_position. Rows inserted before this migration are not checked: a trigger
-- sees inserts, and an old event without entry is what the audit already reports.
--
-- No foreign key either way (see migration 4): TRUNCATE of the events must still
-- meet the append-only trigger first. The owner can disable this trigger as it can
-- the others (docs/database-roles.md, "What trust remains"); no service role can.
CREATE FUNCTION {s}.refuse_unlogged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM {s}.translog_entries WHERE event_position = NEW.position) THEN
        RAISE EXCEPTION '% at version % of % has no transparency-log entry: refused',
            NEW.type, NEW.version, NEW.stream_id
            USING ERRCODE = 'EL002',
                  HINT = 'build the event store with the entry source (entries=logentries)';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER events_logged_have_entries AFTER INSERT ON {s}.events
    DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW
    WHEN ((starts_with(NEW.stream_id, 'randomness-')
           AND NEW.type IN ('ServerSeedCommitted', 'DrandRoundNamed', 'DrandFallback',
                            'ServerSeedRevealed'))
          OR (starts_with(NEW.stream_id, 'drand-') AND NEW.type = 'DrandRoundMissed')
          OR (starts_with(NEW.stream_id, 'match-')
              AND NEW.type IN ('MatchEnded', 'MatchForfeited', 'MatchAborted')))
    EXECUTE FUNCTION {s}.refuse_unlogged();
""",
    ),
    Migration(
        6,
        "a transparency-log entry stands for the event it names",
        """
-- Migration 4 let an appender insert any bytes as an entry, naming any event: a service
-- role (the table's, say) could log a second `round_named` for an honest match, hung on
-- one of its card plays, and the signer signed what the tree held. Now an entry is
-- refused unless it is what fairdeal/logentries.py would write for the event at its
-- `event_position`: JSON of format version 1 whose `event` names that event's stream,
-- version, chain hash and recorded time; whose `kind` is the one its event's type gets
-- in its kind of stream (the list written out, as in migration 5); whose `match` (every
-- kind but a round's fact) is the stream's match, and an ending's `ending` its type; and
-- whose leaf, the tree node (0, index) written by the same statement, is
-- SHA-256(0x00 || entry). The entries' other fields (a commitment's seats, a named
-- round's number) are the event's payload seen through the format: the verifier and the
-- audit compare them with the record; this check ties the bytes to their event, which
-- nothing but the database can do before the signer signs them.
--
-- A constraint trigger, after the statement (the store inserts the event, its entry and
-- the tree's nodes in one statement of three CTEs), immediate as migration 5's is.
-- Entries inserted before this migration are not checked again. The owner can disable
-- it, as any trigger; no service role can (docs/database-roles.md).
CREATE FUNCTION {s}.refuse_false_entry() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e jsonb;
    ev record;
    kind text;
    prefix text;
    types text[];
    leaf bytea;
BEGIN
    BEGIN
        e := convert_from(NEW.entry, 'UTF8')::jsonb;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'transparency-log entry % is not JSON text: refused', NEW.index
            USING ERRCODE = 'EL003';
    END;
    SELECT stream_id, version, type, hash, recorded_at INTO ev
        FROM {s}.events WHERE position = NEW.event_position;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'transparency-log entry % names position %, which holds no event: '
            'refused', NEW.index, NEW.event_position USING ERRCODE = 'EL003';
    END IF;
    kind := e->>'kind';
    CASE kind
        WHEN 'commitment' THEN prefix := 'randomness-'; types := ARRAY['ServerSeedCommitted'];
        WHEN 'round_named' THEN prefix := 'randomness-'; types := ARRAY['DrandRoundNamed'];
        WHEN 'fallback' THEN prefix := 'randomness-'; types := ARRAY['DrandFallback'];
        WHEN 'reveal' THEN prefix := 'randomness-'; types := ARRAY['ServerSeedRevealed'];
        WHEN 'round_missed' THEN prefix := 'drand-'; types := ARRAY['DrandRoundMissed'];
        WHEN 'ending' THEN
            prefix := 'match-'; types := ARRAY['MatchEnded', 'MatchForfeited', 'MatchAborted'];
        ELSE prefix := NULL;
    END CASE;
    IF e->'v' IS DISTINCT FROM '1'::jsonb OR prefix IS NULL
       OR NOT starts_with(ev.stream_id, prefix) OR NOT ev.type = ANY (types)
       OR e->'event'->>'stream' IS DISTINCT FROM ev.stream_id
       OR e->'event'->'version' IS DISTINCT FROM to_jsonb(ev.version)
       OR e->'event'->>'hash' IS DISTINCT FROM encode(ev.hash, 'hex')
       OR e->'event'->>'recorded_at' IS DISTINCT FROM
          to_char(ev.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
       OR (kind <> 'round_missed'
           AND e->>'match' IS DISTINCT FROM substr(ev.stream_id, length(prefix) + 1))
       OR (kind = 'ending' AND e->>'ending' IS DISTINCT FROM ev.type) THEN
        RAISE EXCEPTION 'transparency-log entry % (%) does not stand for % at version % of %: '
            'refused', NEW.index, coalesce(kind, 'no kind'), ev.type, ev.version, ev.stream_id
            USING ERRCODE = 'EL003';
    END IF;
    SELECT hash INTO leaf FROM {s}.translog_nodes WHERE level = 0 AND index = NEW.index;
    IF leaf IS DISTINCT FROM sha256('\\x00'::bytea || NEW.entry) THEN
        RAISE EXCEPTION 'transparency-log entry %: its leaf is not SHA-256(0x00 || entry): '
            'refused', NEW.index USING ERRCODE = 'EL003';
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER translog_entries_stand_for_their_events
    AFTER INSERT ON {s}.translog_entries DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW
    EXECUTE FUNCTION {s}.refuse_false_entry();
""",
    ),
)


class MigrationError(EventLogError):
    """A schema name that cannot be used, a database newer than this code, or one this
    code's role may not bring up to date (:class:`SchemaBehind`)."""


class SchemaBehind(MigrationError):
    """The schema is behind this code and the connecting role may not migrate it."""

    code = "schema_behind"


@dataclass(frozen=True, slots=True)
class Component:
    """The versioned migrations of one component's tables in a schema.

    ``version_table`` records the versions applied; each component has its own, so that
    several may share a schema (the tests put the gateway's accounts beside the log).
    """

    name: str
    version_table: str
    migrations: tuple[Migration, ...]

    @property
    def newest(self) -> int:
        return max(m.version for m in self.migrations)


#: The event log's own migrations.
LOG: Final = Component("event log", "schema_migrations", MIGRATIONS)


def quote_schema(schema: str) -> str:
    """The schema name as a quoted SQL identifier; raises :class:`MigrationError`."""
    if SCHEMA_RE.fullmatch(schema) is None:
        raise MigrationError(
            f"schema {schema!r} must be 1-51 lower-case letters, digits or '_', "
            "not starting with a digit"
        )
    return f'"{schema}"'


def lock_key(schema: str) -> int:
    """A signed 64-bit advisory-lock key for migrating ``schema``.

    One key per schema, whatever the component: components may share a schema, and two
    ``CREATE SCHEMA IF NOT EXISTS`` of one name may collide. It is the key older event-log
    code took, so such a process starting during an upgrade queues behind this one.
    """
    digest = hashlib.sha256(f"eventlog:migrate:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _behind(component: Component, schema: str) -> str:
    """``'gateway'``, or ``'t_1' (gateway)`` where a schema holds another's tables."""
    return repr(schema) if component.name == schema else f"{schema!r} ({component.name})"


async def schema_version(conn: Any, component: Component, schema: str) -> int:
    """The newest of ``component``'s migrations applied in ``schema`` (0: none, or no
    schema). Reads only; raises :class:`MigrationError` if the role may not look."""
    s = quote_schema(schema)
    table = f"{s}.{component.version_table}"
    try:
        if await conn.fetchval("SELECT to_regclass($1)", table) is None:
            return 0
        return int(await conn.fetchval(f"SELECT coalesce(max(version), 0) FROM {table}"))
    except asyncpg.InsufficientPrivilegeError:
        user = await conn.fetchval("SELECT current_user")
        raise MigrationError(
            f"role {user!r} may not read schema {_behind(component, schema)}: run "
            "`belot db setup` with the owner's URL"
        ) from None


async def may_migrate(conn: Any, schema: str) -> bool:
    """May the connecting role change ``schema``: a superuser, a role with the schema
    owner's privileges, or (no such schema yet) one that may create schemas."""
    return bool(
        await conn.fetchval(
            """
SELECT CASE WHEN n.oid IS NULL THEN has_database_privilege(current_database(), 'CREATE')
            ELSE pg_has_role(n.nspowner, 'USAGE') END
FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = $1""",
            schema,
        )
    )


async def apply(conn: Any, component: Component, schema: str) -> list[int]:
    """Bring ``component``'s tables in ``schema`` up to date; return the versions applied.

    The one way every store migrates. First, without a lock or any DDL, it reads the
    version: a schema already at this code's version is left alone, so a service role
    that may not change anything starts normally. A schema behind it is migrated only
    by a role that may (see :func:`may_migrate`), else :class:`SchemaBehind` says in one
    line what to run. Migrating happens in one transaction under the schema's advisory
    lock, so concurrent starters queue behind the first and then find nothing to do.
    Raises :class:`MigrationError` for a bad name or a database migrated by newer code.
    """
    s = quote_schema(schema)
    want = component.newest
    have = await schema_version(conn, component, schema)
    if have > want:
        raise MigrationError(
            f"schema {_behind(component, schema)} is at migration {have}, this code knows {want}"
        )
    if have == want:
        return []
    if not await may_migrate(conn, schema):
        user = await conn.fetchval("SELECT current_user")
        raise SchemaBehind(
            f"schema {_behind(component, schema)} is at migration {have}, this code needs "
            f"{want}: run `belot db setup` with the owner's URL (role {user!r} may not "
            "change it)"
        )
    table = f"{s}.{component.version_table}"
    applied: list[int] = []
    async with conn.transaction():
        # Serialise concurrent starters, including CREATE SCHEMA IF NOT EXISTS, which
        # is not itself safe against a concurrent create of the same name.
        await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(schema))
        # Does the schema exist? Asked with a scan of pg_namespace, not left to CREATE
        # SCHEMA IF NOT EXISTS: the version check above can leave a "no such schema"
        # entry in this session's catalog cache, and waiting for an advisory lock does
        # not process the invalidations another session's commit sent; opening
        # pg_namespace (a relation lock, the first of this transaction) does, so we see
        # the schema a starter before us created (else: a unique violation on
        # pg_namespace). And IF NOT EXISTS checks the database's CREATE privilege even
        # when the schema exists, which its owner need not have.
        if not await conn.fetchval(
            "SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = $1", schema
        ):
            await conn.execute(f"CREATE SCHEMA {s}")
        # The name column is new to the rating service's version table (older code
        # created it without one).
        await conn.execute(
            f"CREATE TABLE IF NOT EXISTS {table} ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now());"
            f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS name text NOT NULL DEFAULT ''"
        )
        done = {r[0] for r in await conn.fetch(f"SELECT version FROM {table}")}
        if done and max(done) > want:
            raise MigrationError(
                f"schema {_behind(component, schema)} is at migration {max(done)}, this "
                f"code knows {want}"
            )
        for m in component.migrations:
            if m.version in done:
                continue
            await conn.execute(m.sql.format(s=s))
            await conn.execute(
                f"INSERT INTO {table} (version, name) VALUES ($1, $2)", m.version, m.name
            )
            applied.append(m.version)
    return applied


async def migrate(conn: Any, schema: str, *, app_role: str | None = None) -> list[int]:
    """Bring the event log in ``schema`` up to date on asyncpg connection ``conn``; return
    the versions applied (see :func:`apply`).

    With ``app_role``, that role may read and append but not change or remove events
    (``UPDATE``, ``DELETE``, ``TRUNCATE`` revoked); the triggers refuse them for everyone,
    the owner included. ``belot db setup`` is the full version of this: a role per
    service, each with only what it uses.
    """
    applied = await apply(conn, LOG, schema)
    # Only the schema's owner (or a superuser) may grant; a service connecting as its own
    # role has its grants from `belot db setup` already, and cannot hand out more.
    if app_role is not None and await may_migrate(conn, schema):
        await _grant(conn, quote_schema(schema), app_role)
    return applied


async def _grant(conn: Any, s: str, role: str) -> None:
    r = '"' + role.replace('"', '""') + '"'
    await conn.execute(
        f"GRANT USAGE ON SCHEMA {s} TO {r};"
        f"GRANT SELECT, INSERT ON {s}.events TO {r};"
        f"GRANT SELECT, UPDATE ON {s}.log_head TO {r};"
        f"GRANT SELECT, INSERT, UPDATE ON {s}.relay_offsets TO {r};"
        f"GRANT SELECT ON {s}.schema_migrations TO {r};"
        f"GRANT SELECT, INSERT ON {s}.translog_entries, {s}.translog_nodes TO {r};"
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {s}.events FROM {r}"
    )
