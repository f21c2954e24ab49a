"""``belot db setup``: the database's roles, schemas, migrations and grants.

Given a superuser's URL (``--admin-dsn``, else ``BELOT_PG_DSN``, else the running
embedded PostgreSQL), it makes (or brings back to what they must be):

- ``<prefix>_owner`` (``BELOT_PG_ROLE_PREFIX``, default ``belot``): owns every schema,
  table and function of the platform and runs every migration. It logs in only if
  ``BELOT_PG_OWNER_PASSWORD`` gives it a password; else it is reached by ``SET ROLE``
  from a superuser's session, as here.
- one login role per service (``<prefix>_table``, ``_randomness``, ``_gateway``,
  ``_tournament``, ``_rating``, ``_verify``) and ``<prefix>_relay`` for a ``belot log
  relay`` run on its own: no superuser, no CREATEDB, no CREATEROLE, no BYPASSRLS, a
  member of no role; passwords from ``BELOT_PG_<ROLE>_PASSWORD`` where set.
- each schema of the layout (``BELOT_PG_SCHEMA``, ``BELOT_RANDOMNESS_SCHEMA``, ...) owned
  by the owner, every service's migrations applied as the owner, and each role's
  privileges set to exactly what its service uses (:data:`LOG_ACCESS`, each store's
  ``PRIVILEGES``): what a role had beyond that is revoked.

Idempotent, and safe to run while the services run and from several processes at once
(advisory locks serialise the parts that would collide). Run again with the owner's URL
(once it may log in) to apply a newer version's migrations without a superuser.
Exit status 0, or 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import asyncpg

from belot_platform import dbroles
from belot_platform.dbroles import OWNER, quote_ident, role_name
from belot_platform.errors import EXIT_USAGE
from belot_platform.settings import (
    DB_ROLES,
    Settings,
    SettingsError,
    redact,
    refuse_placeholder,
    url_password,
)
from eventkit import streams
from eventlog.access import LogAccess, grant_log
from eventlog.migrations import LOG, Component, MigrationError, apply, lock_key, quote_schema
from services.gateway import store as gateway_store
from services.randomness import store as randomness_store
from services.rating import store as rating_store
from services.tournament import store as tournament_store
from services.verify import store as verify_store

#: Match streams end with one of these (public) events; then their decks are public.
MATCH_ENDINGS: Final = tuple(sorted(streams.MATCH_ENDINGS))

#: What each role may do to the event log, from what its service's code does (see
#: eventlog.access for what each flag grants).
LOG_ACCESS: Final[Mapping[str, LogAccess]] = {
    # Appends to table-* and match-* and reads them back to fold a table; the match
    # streams hold the decks (secret), whose rows it must see to append after them.
    # Writes the transparency-log entries of a match's ending (translog). The relay is a
    # process of its own, with its own role (below).
    "table": LogAccess(
        append=True,
        translog=True,
        secret_prefixes=(streams.MATCH,),
        append_prefixes=(streams.TABLE, streams.MATCH),
    ),
    # Appends to randomness-* (no secret rows) and to drand-* (a round's one fact), and
    # reads a match's end; writes the transparency-log entries of the fair deal.
    "randomness": LogAccess(
        append=True, translog=True, append_prefixes=(streams.RANDOMNESS, streams.DRAND)
    ),
    # Reads table, match and randomness streams for players and spectators; it never
    # appends. Once a match has ended its decks are public: the final view replays them
    # and a table's events include them.
    "gateway": LogAccess(ended_prefix=streams.MATCH, ended_by=MATCH_ENDINGS),
    # Appends to tournament-*, whose TournamentConfigured events (a private tournament's
    # password hash, the forbidden pairs) are secret; follows the log (head) for results.
    "tournament": LogAccess(
        append=True,
        head=True,
        secret_prefixes=(streams.TOURNAMENT,),
        append_prefixes=(streams.TOURNAMENT,),
    ),
    # Appends verdicts to rating-* (public) and follows the log.
    "rating": LogAccess(append=True, head=True, append_prefixes=(streams.RATING,)),
    # Reads the log and serves records: a match's decks once it has ended, never before;
    # serves the transparency log (reads its tree).
    "verify": LogAccess(
        head=True, translog=True, ended_prefix=streams.MATCH, ended_by=MATCH_ENDINGS
    ),
    # The outbox relay (`belot serve relay`, `belot log relay`): reads the log and publishes
    # it. It sees the secret rows of match-* (a running match's decks) only to publish
    # their stubs in their place (position, stream, "withheld"; never a payload or hash:
    # eventlog.relay), so that every position reaches JetStream: the read power a table
    # worker has, in a process that appends nothing.
    "relay": LogAccess(head=True, relay=True, secret_prefixes=(streams.MATCH,)),
}


@dataclass(frozen=True, slots=True)
class Layout:
    """Which schema holds what (they may coincide: the tests put several in one)."""

    eventlog: str = "eventlog"
    randomness: str = "randomness"
    gateway: str = "gateway"
    tournament: str = "tournament"
    rating: str = "rating"
    verify: str = "verify"

    @classmethod
    def of(cls, settings: Settings) -> Layout:
        return cls(
            settings.pg_schema,
            settings.randomness_schema,
            settings.gateway_schema,
            settings.tournament_schema,
            settings.rating_schema,
            settings.verify_schema,
        )


@dataclass(frozen=True, slots=True)
class Part:
    """A service's own tables: their migrations, where they live, what its role may do."""

    role: str
    component: Component
    privileges: Mapping[str, str]
    schema: Callable[[Layout], str]


PARTS: Final = (
    Part(
        "randomness",
        randomness_store.COMPONENT,
        randomness_store.PRIVILEGES,
        lambda lay: lay.randomness,
    ),
    Part("gateway", gateway_store.COMPONENT, gateway_store.PRIVILEGES, lambda lay: lay.gateway),
    Part(
        "tournament",
        tournament_store.COMPONENT,
        tournament_store.PRIVILEGES,
        lambda lay: lay.tournament,
    ),
    Part("rating", rating_store.COMPONENT, rating_store.PRIVILEGES, lambda lay: lay.rating),
    Part("verify", verify_store.COMPONENT, verify_store.PRIVILEGES, lambda lay: lay.verify),
)

#: Serialises the cluster- and database-wide steps of concurrent setups: two sessions
#: altering one catalog row at once (a role, the database's ACL) fail with "tuple
#: concurrently updated".
_CLUSTER_LOCK: Final = int.from_bytes(
    hashlib.sha256(b"belot:db-setup:cluster").digest()[:8], "big", signed=True
)


class SetupError(Exception):
    """Setup cannot go on: said in one line (exit status 2)."""


@dataclass
class SetupReport:
    owner: str
    roles: dict[str, str]
    created: list[str] = field(default_factory=list)
    passwords: list[str] = field(default_factory=list)
    #: "schema (component)" -> its migration version now.
    versions: dict[str, int] = field(default_factory=dict)


def role_names(prefix: str) -> dict[str, str]:
    """Role (``owner``, ``table``, ...) -> its name in the database."""
    return {r: role_name(prefix, r) for r in (OWNER, *DB_ROLES)}


async def setup(
    admin_dsn: str, layout: Layout, prefix: str, passwords: Mapping[str, str]
) -> SetupReport:
    """Connect with ``admin_dsn`` and run :func:`setup_on`; raises :class:`SetupError`."""
    try:
        conn = await asyncpg.connect(admin_dsn, timeout=10)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        what = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        raise SetupError(f"cannot connect to {redact(admin_dsn)}: {what}") from None
    try:
        return await setup_on(conn, layout, prefix, passwords)
    except MigrationError as exc:
        raise SetupError(str(exc)) from None
    except asyncpg.PostgresError as exc:
        raise SetupError(f"{type(exc).__name__}: {exc}") from None
    finally:
        await conn.close()


async def setup_on(
    conn: Any, layout: Layout, prefix: str, passwords: Mapping[str, str]
) -> SetupReport:
    """Everything :func:`setup` does, on an open connection (a superuser's, or the
    owner's to migrate and grant with existing roles)."""
    names = role_names(prefix)
    owner = names[OWNER]
    report = SetupReport(owner, names)
    me, superuser = await conn.fetchrow(
        "SELECT rolname, rolsuper FROM pg_roles WHERE rolname = current_user"
    )
    if not superuser and me != owner:
        raise SetupError(
            f"role {me!r} is neither a superuser nor the owner {owner!r}: give a superuser's "
            "URL (--admin-dsn or BELOT_PG_DSN)"
        )
    if superuser:
        await _roles(conn, names, passwords, report)
    else:
        missing = [
            n
            for n in names.values()
            if not await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", n)
        ]
        if missing:
            raise SetupError(
                f"roles {', '.join(missing)} do not exist: run belot db setup once with a "
                "superuser's URL"
            )
        if passwords:
            raise SetupError(
                f"only a superuser sets passwords: unset {', '.join(_password_vars(passwords))}"
                " or give a superuser's URL"
            )
    schemas: dict[str, list[Part]] = {layout.eventlog: []}
    for part in PARTS:
        schemas.setdefault(part.schema(layout), []).append(part)
    for schema in sorted(schemas):
        await _schema(conn, schema, schemas[schema], schema == layout.eventlog, names, report,
                      superuser=superuser)  # fmt: skip
    return report


def _password_vars(passwords: Mapping[str, str]) -> list[str]:
    return [f"BELOT_PG_{r.upper()}_PASSWORD" for r in sorted(passwords)]


async def _roles(
    conn: Any, names: Mapping[str, str], passwords: Mapping[str, str], report: SetupReport
) -> None:
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _CLUSTER_LOCK)
        for role, name in names.items():
            # The owner logs in only when given a password (else only a superuser's SET
            # ROLE reaches it; an existing owner keeps what an operator chose). Every
            # service role logs in.
            login = role != OWNER or role in passwords
            if await dbroles.ensure_role(conn, name, login=login):
                report.created.append(name)
            await dbroles.restrict(conn, name, login=True if login else None)
            if role in passwords:
                await dbroles.set_password(conn, name, passwords[role])
                report.passwords.append(name)
        db = quote_ident(await conn.fetchval("SELECT current_database()"))
        logins = [quote_ident(n) for r, n in names.items() if r != OWNER or r in passwords]
        await conn.execute(f"GRANT CONNECT ON DATABASE {db} TO {', '.join(logins)}")
        # Nothing of ours lives in public, and nobody but the owner may create schemas
        # (PostgreSQL 15+ no longer lets PUBLIC create in public; older ones do).
        await conn.execute(
            f"REVOKE CREATE ON DATABASE {db} FROM PUBLIC; "
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC"
        )


async def _schema(
    conn: Any,
    schema: str,
    parts: list[Part],
    has_log: bool,
    names: Mapping[str, str],
    report: SetupReport,
    *,
    superuser: bool,
) -> None:
    s = quote_schema(schema)
    owner = quote_ident(names[OWNER])
    async with conn.transaction():
        # The migrations' lock (re-entrant: apply() takes it again): a service starting
        # now waits for this, then finds its schema current.
        await conn.execute("SELECT pg_advisory_xact_lock($1)", lock_key(schema))
        # A scan, not the catalog cache: it also takes in what other sessions committed
        # while we waited (see eventlog.migrations.apply).
        found = await conn.fetchrow(
            "SELECT n.oid, pg_get_userbyid(n.nspowner) FROM pg_catalog.pg_namespace n "
            "WHERE n.nspname = $1",
            schema,
        )
        if found is None:
            if not superuser:
                raise SetupError(f"no schema {schema!r}: run belot db setup with a superuser's URL")
            await conn.execute(f"CREATE SCHEMA {s} AUTHORIZATION {owner}")
        elif superuser:
            await _give_to_owner(conn, s, found[0], names[OWNER], found[1])
        elif await _foreign_objects(conn, found[0], names[OWNER]):
            raise SetupError(
                f"schema {schema!r} holds objects another role owns: run belot db setup once "
                "with a superuser's URL"
            )
        if superuser:
            # From here on as the owner: what it creates is its own, and the grants it
            # makes are the owner's (a superuser's would be recorded as the owner's too).
            await conn.execute(f"SET LOCAL ROLE {owner}")
        components = ([LOG] if has_log else []) + [p.component for p in parts]
        for component in components:
            await apply(conn, component, schema)
            label = schema if component.name == schema else f"{schema} ({component.name})"
            report.versions[label] = component.newest
        await _grant(conn, schema, parts, has_log, names)


async def _foreign_objects(conn: Any, namespace: int, owner: str) -> list[tuple[str, str]]:
    """(kind, name) of the tables, views, sequences and functions in the schema that
    ``owner`` does not own (sequences owned by a column follow their table)."""
    rows = await conn.fetch(
        """
SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                      WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE'
                      ELSE 'TABLE' END, c.oid::regclass::text
FROM pg_catalog.pg_class c
WHERE c.relnamespace = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  AND c.relowner <> $2::text::regrole
  AND NOT (c.relkind = 'S' AND EXISTS (
      SELECT 1 FROM pg_catalog.pg_depend d
      WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
UNION ALL
SELECT 'ROUTINE', p.oid::regprocedure::text FROM pg_catalog.pg_proc p
WHERE p.pronamespace = $1 AND p.proowner <> $2::text::regrole""",
        namespace,
        owner,
    )
    return [(r[0], r[1]) for r in rows]


async def _give_to_owner(conn: Any, s: str, namespace: int, owner: str, schema_owner: str) -> None:
    """Make ``owner`` own the schema and everything in it (a schema an older version's
    services made as whatever role they connected with, a superuser in the shipped
    deployments). ALTER ... OWNER locks each object for a moment: only what is not the
    owner's yet is altered."""
    q = quote_ident(owner)
    if schema_owner != owner:
        await conn.execute(f"ALTER SCHEMA {s} OWNER TO {q}")
    for kind, name in await _foreign_objects(conn, namespace, owner):
        await conn.execute(f"ALTER {kind} {name} OWNER TO {q}")


async def _grant(
    conn: Any, schema: str, parts: list[Part], has_log: bool, names: Mapping[str, str]
) -> None:
    """Each role's privileges in ``schema``, and nothing else: revoke everything first
    (one transaction: no session ever sees the gap), then grant what the plan says."""
    s = quote_schema(schema)
    for role in DB_ROLES:
        q = quote_ident(names[role])
        await conn.execute(
            f"REVOKE ALL ON SCHEMA {s} FROM {q}; REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {q};"
            f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {q};"
            f"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {s} FROM {q}"
        )
    # Nothing here is for everyone: not the tables (PUBLIC has no table privileges by
    # default; make sure), not the functions (PUBLIC may EXECUTE new functions by
    # default; the triggers' fire without it).
    await conn.execute(
        f"REVOKE ALL ON SCHEMA {s} FROM PUBLIC; REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM PUBLIC;"
        f"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA {s} FROM PUBLIC"
    )
    if has_log:
        for role, access in LOG_ACCESS.items():
            await grant_log(conn, schema, names[role], access)
    for part in parts:
        q = quote_ident(names[part.role])
        await conn.execute(f"GRANT USAGE ON SCHEMA {s} TO {q}")
        # The version table: the service checks its schema is current at start.
        await conn.execute(f"GRANT SELECT ON {s}.{part.component.version_table} TO {q}")
        for table, privileges in part.privileges.items():
            await conn.execute(f"GRANT {privileges} ON {s}.{table} TO {q}")


# ---------------------------------------------------------------------- the command


def _admin_dsn(args: argparse.Namespace, settings: Settings) -> str:
    if args.admin_dsn:
        dsn = str(args.admin_dsn)
        if not dsn.startswith(("postgresql://", "postgres://")):
            raise SetupError(f"--admin-dsn {redact(dsn)!r}: must start with postgresql://")
        return dsn
    if settings.pg_dsn:
        return settings.pg_dsn
    from belot_platform.embedded import running_postgres_dsn

    found = running_postgres_dsn(settings)
    if found is None:
        raise SetupError(
            "no database: give --admin-dsn or set BELOT_PG_DSN (a superuser's URL), or start "
            "the embedded stack"
        )
    return found


def print_report(report: SetupReport) -> None:
    created = set(report.created)
    rows = [
        f"{name}{' (new)' if name in created else ''}"
        f"{' (password set)' if name in report.passwords else ''}"
        for name in report.roles.values()
    ]
    sys.stdout.write(f"roles: {', '.join(rows)}\n")
    versions = ", ".join(f"{k} at migration {v}" for k, v in report.versions.items())
    sys.stdout.write(f"schemas: {versions}\n")
    sys.stdout.write(f"ok: every schema is owned by {report.owner}; each role has its grants\n")


def cmd_setup(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env()
        if args.admin_dsn:
            refuse_placeholder("--admin-dsn", url_password(args.admin_dsn), what="the password")
        dsn = _admin_dsn(args, settings)
        report = asyncio.run(
            setup(dsn, Layout.of(settings), settings.pg_role_prefix, settings.pg_passwords)
        )
    except (SettingsError, SetupError) as exc:
        sys.stderr.write(f"belot db setup: error: {exc}\n")
        return EXIT_USAGE
    print_report(report)
    return 0


def register(sub: Any) -> None:
    """Add ``db setup`` to the ``belot`` subparsers."""
    db = sub.add_parser("db", help="the database: roles, schemas, grants")
    dbsub = db.add_subparsers(dest="db_command", required=True, parser_class=type(db))
    setup_ = dbsub.add_parser(
        "setup",
        help="make the owner and service roles, migrate every schema, grant each role its part",
        description=(
            "Make the owner role and one login role per service (BELOT_PG_ROLE_PREFIX), "
            "apply every service's migrations as the owner, and give each role exactly "
            "what its service uses. Idempotent. Passwords come from BELOT_PG_<ROLE>_"
            "PASSWORD. See docs/database-roles.md."
        ),
    )
    setup_.add_argument(
        "--admin-dsn",
        metavar="URL",
        help="a superuser's PostgreSQL URL (default: BELOT_PG_DSN, else the embedded one)",
    )
    setup_.set_defaults(handler=cmd_setup)
