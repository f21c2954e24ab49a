"""The database roles on real PostgreSQL: what ``belot db setup`` makes, what each
service's role may not do (change, remove or hide events, disable the log's triggers,
drop or alter its tables, touch another service's schema, read the server seeds), who
sees secret rows and when, and that each role can do its service's job.

The roles here have a prefix of this module's own, dropped at its end; the schemas are
laid out as in production (one per service) unless a test says otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.dbroles import drop_roles, ensure_role, role_dsn
from belot_platform.settings import DB_ROLES, Settings
from commands.db import PARTS, Layout, SetupError, role_names, setup, setup_on
from eventlog import EventStore, NewEvent
from eventlog.envelope import GENESIS_HASH, canonical_bytes, chain_hash, format_time
from eventlog.migrations import MIGRATIONS
from fairdeal import logentries
from services.gateway import store as gateway_store
from services.rating.app import create_app as create_rating
from services.rating.handlers import PROJECTION
from services.verify import store as verify_store
from services.verify.app import create_app as build_verify
from services.verify.http import RateLimits
from tests.fakenats import FakeNats
from tests.integration import roles
from tests.integration.gateway_support import Player
from tests.integration.roles import RoleKit, shared_layout
from tests.integration.table_support import check_decks, wait_for_table
from tests.integration.tournament_support import harness

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]
ROOT = Path(__file__).resolve().parents[2]
INSUFFICIENT_PRIVILEGE = "42501"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def kit(servers: Any, pg_pool: asyncpg.Pool) -> AsyncIterator[RoleKit]:
    k = RoleKit(servers.pg_dsn)
    try:
        yield k
    finally:
        async with pg_pool.acquire() as conn:
            await k.drop(conn)
        left = await pg_pool.fetchval(
            "SELECT count(*) FROM pg_roles WHERE rolname LIKE $1", f"{k.prefix}\\_%"
        )
        assert left == 0


def separate(base: str) -> Layout:
    """One schema per service, as in production."""
    return Layout(
        eventlog=f"{base}_log",
        randomness=f"{base}_rnd",
        gateway=f"{base}_gw",
        tournament=f"{base}_t",
        rating=f"{base}_r",
        verify=f"{base}_v",
    )


async def drop_layout(pool: asyncpg.Pool, layout: Layout) -> None:
    for s in {layout.eventlog, layout.randomness, layout.gateway, layout.tournament,
              layout.rating, layout.verify}:  # fmt: skip
        await pool.execute(f'DROP SCHEMA IF EXISTS "{s}" CASCADE')


@pytest_asyncio.fixture(loop_scope="session")
async def layout(kit: RoleKit, pg_pool: asyncpg.Pool) -> AsyncIterator[Layout]:
    lay = separate(f"t_{uuid.uuid4().hex[:10]}")
    async with pg_pool.acquire() as conn:
        await kit.setup(conn, lay)
    try:
        yield lay
    finally:
        await drop_layout(pg_pool, lay)


@contextlib.asynccontextmanager
async def as_role(kit: RoleKit, role: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(kit.dsn(role))
    try:
        yield conn
    finally:
        await conn.close()


async def refused(conn: asyncpg.Connection, sql: str) -> str | None:
    """None if PostgreSQL refused ``sql`` for lack of privilege (in a transaction rolled
    back either way), else what happened."""
    try:
        async with conn.transaction():
            await conn.execute(sql)
            raise _Done
    except _Done:
        return "succeeded"
    except asyncpg.PostgresError as exc:
        if exc.sqlstate == INSUFFICIENT_PRIVILEGE:
            return None
        return f"{exc.sqlstate} {exc}"


class _Done(Exception):
    pass


async def fill(store: EventStore) -> None:
    """A running match with a deck (secret), a seat's cards and public play; a second
    match with a deck; a private tournament's configuration (secret)."""
    await store.append(
        "match-a",
        0,
        [
            NewEvent("MatchStarted", {"ruleset": "club"}),
            NewEvent("DeckSupplied", {"cards": ["7C", "8C"]}, "secret"),
            NewEvent("CardsDealt", {"seat": 0, "cards": ["7C"]}, "seat:0"),
            NewEvent("CardPlayed", {"seat": 0, "card": "7C"}),
        ],
    )
    await store.append(
        "match-b", 0, [NewEvent("MatchStarted", {}), NewEvent("DeckSupplied", {}, "secret")]
    )
    await store.append(
        "tournament-x",
        0,
        [NewEvent("TournamentCreated", {}), NewEvent("TournamentConfigured", {}, "secret")],
    )


# ---------------------------------------------------------------------- setup


async def test_setup_makes_least_privileged_roles_and_puts_back_what_was_changed(
    kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool
) -> None:
    names = role_names(kit.prefix)
    owner = names["owner"]
    q = {r: f'"{n}"' for r, n in names.items()}
    s = f'"{layout.eventlog}"'
    # What an operator (or an attacker with the admin's URL, once) might have done.
    await pg_pool.execute(
        f"GRANT {q['owner']} TO {q['gateway']}; GRANT pg_read_all_data TO {q['verify']};"
        f"ALTER ROLE {q['table']} CREATEDB BYPASSRLS; GRANT UPDATE, DELETE ON {s}.events"
        f' TO {q["table"]}; GRANT SELECT ON "{layout.randomness}".server_seeds TO'
        f" {q['gateway']}; GRANT CREATE ON SCHEMA {s} TO {q['rating']};"
        f'ALTER TABLE "{layout.gateway}".accounts OWNER TO {q["gateway"]}'
    )
    async with pg_pool.acquire() as conn:
        report = await setup_on(conn, layout, kit.prefix, {})
    assert report.created == []  # the second run: nothing new
    assert report.versions[f"{layout.eventlog} (event log)"] == MIGRATIONS[-1].version

    rows = await pg_pool.fetch(
        "SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls,"
        " rolcanlogin FROM pg_roles WHERE rolname = ANY($1::text[])",
        list(names.values()),
    )
    assert len(rows) == len(names) == 1 + len(DB_ROLES)
    for r in rows:
        assert not any(r[1:6]), r  # no superuser, createdb, createrole, replication, bypassrls
        assert r["rolcanlogin"] == (r["rolname"] != owner), r  # the owner: no login here
    members = await pg_pool.fetchval(
        "SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member"
        " WHERE r.rolname = ANY($1::text[])",
        list(names.values()),
    )
    assert members == 0
    owners = await pg_pool.fetch(
        "SELECT DISTINCT pg_get_userbyid(c.relowner) FROM pg_class c"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ANY($1::text[])",
        [layout.eventlog, layout.randomness, layout.gateway, layout.tournament, layout.rating,
         layout.verify],
    )  # fmt: skip
    assert [r[0] for r in owners] == [owner]
    acl = await pg_pool.fetchval(
        f"SELECT has_table_privilege($1, '{s}.events', 'UPDATE')"
        f" OR has_table_privilege($2, '\"{layout.randomness}\".server_seeds', 'SELECT')"
        f" OR has_schema_privilege($3, '{layout.eventlog}', 'CREATE')",
        names["table"],
        names["gateway"],
        names["rating"],
    )
    assert acl is False


async def test_concurrent_setups_and_role_creation_are_safe(
    servers: Any, pg_pool: asyncpg.Pool
) -> None:
    other = RoleKit(servers.pg_dsn)
    lay = separate(f"t_{uuid.uuid4().hex[:10]}")
    try:
        reports = await asyncio.gather(
            *(setup(servers.pg_dsn, lay, other.prefix, other.passwords) for _ in range(4))
        )
        created = sorted(n for r in reports for n in r.created)
        assert created == sorted(role_names(other.prefix).values())  # each made once
        # Without setup's lock: racing CREATE ROLEs, one makes it, none fails.
        name = other.name("racer")
        conns = [await asyncpg.connect(servers.pg_dsn) for _ in range(6)]
        try:
            made = await asyncio.gather(*(ensure_role(c, name, login=False) for c in conns))
        finally:
            for c in conns:
                await c.close()
        assert made.count(True) == 1
    finally:
        await drop_layout(pg_pool, lay)
        async with pg_pool.acquire() as conn:
            await drop_roles(
                conn, [other.name("racer"), *reversed(role_names(other.prefix).values())]
            )


async def test_setup_takes_over_the_schemas_an_older_version_made(
    servers: Any, pg_pool: asyncpg.Pool
) -> None:
    """As deployed before roles: the superuser made the log at migration 1 (no row
    security) and the gateway's accounts without a version table. Setup hands both to
    the owner, applies what is missing, keeps the data, and the roles work."""
    other = RoleKit(servers.pg_dsn)
    lay = separate(f"t_{uuid.uuid4().hex[:10]}")
    s, gw = f'"{lay.eventlog}"', f'"{lay.gateway}"'
    async with pg_pool.acquire() as conn, conn.transaction():
        await conn.execute(f"CREATE SCHEMA {s}; CREATE SCHEMA {gw}")
        await conn.execute(MIGRATIONS[0].sql.format(s=s))
        await conn.execute(
            f"CREATE TABLE {s}.schema_migrations (version integer PRIMARY KEY, name text NOT"
            f" NULL, applied_at timestamptz NOT NULL DEFAULT now());"
            f"INSERT INTO {s}.schema_migrations (version, name) VALUES (1, 'old');"
            f"CREATE TABLE {gw}.accounts (id text PRIMARY KEY, name text NOT NULL,"
            f" password_hash text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());"
            f"INSERT INTO {gw}.accounts (id, name, password_hash) VALUES ('a1', 'old', 'h')"
        )
    old = EventStore(pg_pool, lay.eventlog)
    await old.append("match-old", 0, [NewEvent("MatchStarted", {}),
                                      NewEvent("DeckSupplied", {}, "secret")])  # fmt: skip
    try:
        report = await setup(servers.pg_dsn, lay, other.prefix, other.passwords)
        assert report.versions[f"{lay.eventlog} (event log)"] == MIGRATIONS[-1].version
        owners = await pg_pool.fetch(
            "SELECT DISTINCT pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = ANY($1::text[])",
            [lay.eventlog, lay.gateway],
        )
        assert [r[0] for r in owners] == [other.name("owner")]
        async with as_role(other, "gateway") as conn:
            assert await conn.fetchval(f"SELECT name FROM {gw}.accounts") == "old"
            types = [r[0] for r in await conn.fetch(f"SELECT type FROM {s}.events")]
            assert types == ["MatchStarted"]  # row-level security is on now
        async with as_role(other, "table") as conn:
            assert await conn.fetchval(f"SELECT count(*) FROM {s}.events") == 2
    finally:
        await old.close()
        await drop_layout(pg_pool, lay)
        async with pg_pool.acquire() as conn:
            await drop_roles(conn, reversed(role_names(other.prefix).values()))


async def test_the_owner_alone_migrates_and_grants_but_makes_no_role(
    servers: Any, pg_pool: asyncpg.Pool
) -> None:
    """With a login, the owner's URL is enough for an upgrade: a schema behind the code is
    migrated and the grants set; making roles and setting passwords stay a superuser's."""
    other = RoleKit(servers.pg_dsn)
    other.passwords["owner"] = f"p{uuid.uuid4().hex}"
    lay = separate(f"t_{uuid.uuid4().hex[:10]}")
    try:
        await setup(servers.pg_dsn, lay, other.prefix, other.passwords)
        # An older version's verify schema: its table and its migration record gone.
        v = f'"{lay.verify}"'
        await pg_pool.execute(f"DROP TABLE {v}.verify_matches; DELETE FROM {v}.verify_migrations")
        owner_dsn = role_dsn(servers.pg_dsn, other.name("owner"), other.passwords["owner"])
        report = await setup(owner_dsn, lay, other.prefix, {})
        assert report.created == []
        assert report.versions[f"{lay.verify} (verify)"] == verify_store.COMPONENT.newest
        assert await pg_pool.fetchval(
            "SELECT has_table_privilege($1, $2, 'INSERT')",
            other.name("verify"),
            f"{v}.verify_matches",
        )
        with pytest.raises(SetupError, match="only a superuser sets passwords"):
            await setup(owner_dsn, lay, other.prefix, {"table": "p" * 20})
        async with pg_pool.acquire() as conn:
            await drop_roles(conn, [other.name("relay")])
        with pytest.raises(SetupError, match=f"roles {other.name('relay')} do not exist"):
            await setup(owner_dsn, lay, other.prefix, {})
    finally:
        await drop_layout(pg_pool, lay)
        async with pg_pool.acquire() as conn:
            await drop_roles(conn, reversed(role_names(other.prefix).values()))


async def test_the_setup_command_reports_in_one_line(servers: Any, pg_pool: asyncpg.Pool) -> None:
    other = RoleKit(servers.pg_dsn)
    lay = separate(f"t_{uuid.uuid4().hex[:10]}")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("BELOT_")},
        "BELOT_PG_DSN": servers.pg_dsn,
        "BELOT_PG_ROLE_PREFIX": other.prefix,
        "BELOT_PG_SCHEMA": lay.eventlog,
        "BELOT_RANDOMNESS_SCHEMA": lay.randomness,
        "BELOT_GATEWAY_SCHEMA": lay.gateway,
        "BELOT_TOURNAMENT_SCHEMA": lay.tournament,
        "BELOT_RATING_SCHEMA": lay.rating,
        "BELOT_VERIFY_SCHEMA": lay.verify,
        "BELOT_PG_GATEWAY_PASSWORD": other.passwords["gateway"],
    }

    def belot(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "commands.cli", "db", "setup", *args],
            capture_output=True, encoding="utf-8", cwd=ROOT, env={**env, **extra}, timeout=120,
        )  # fmt: skip

    try:
        first = await asyncio.to_thread(belot)
        assert first.returncode == 0, first.stderr
        assert f"{other.name('gateway')} (new) (password set)" in first.stdout
        again = await asyncio.to_thread(belot)
        assert again.returncode == 0 and "(new)" not in again.stdout, again.stdout
        bad = [
            belot("--admin-dsn", "mysql://root@localhost/x"),
            belot("--admin-dsn", "postgresql://postgres@127.0.0.1:1/none"),
            belot("--admin-dsn", other.dsn("gateway")),  # a service role: not an admin
            belot("--admin-dsn", role_dsn(servers.pg_dsn, "postgres", "change-me-please")),
            belot(BELOT_PG_TABLE_PASSWORD="password1234567890"),
            belot(BELOT_PG_ROLE_PREFIX="Bad-Prefix"),
        ]
        for proc in bad:
            assert proc.returncode == 2 and proc.stdout == "", proc
            assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
        messages = [p.stderr for p in bad]
        assert "must start with postgresql://" in messages[0]
        assert "cannot connect" in messages[1]
        assert "neither a superuser nor the owner" in messages[2]
        assert "placeholder" in messages[3] and "change-me-please" not in messages[3]
        assert "BELOT_PG_TABLE_PASSWORD" in messages[4] and "placeholder" in messages[4]
        assert "BELOT_PG_ROLE_PREFIX" in messages[5]
    finally:
        await drop_layout(pg_pool, lay)
        async with pg_pool.acquire() as conn:
            await drop_roles(conn, reversed(role_names(other.prefix).values()))


async def test_a_service_role_meets_a_schema_behind_its_code_with_one_line(
    kit: RoleKit, layout: Layout, servers: Any
) -> None:
    """A service whose schema was not set up (here: a gateway schema nobody made) says
    what to run, in one line, instead of a traceback; it changes nothing."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("BELOT_")},
        "BELOT_PG_DSN": kit.dsn("gateway"),
        "BELOT_NATS_URL": servers.nats_url,
        "BELOT_PG_SCHEMA": layout.eventlog,
        "BELOT_GATEWAY_SCHEMA": f"{layout.gateway}_missing",
        "BELOT_GATEWAY_PORT": "0",
        "BELOT_LOG_LEVEL": "ERROR",
    }
    proc = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "commands.cli", "serve", "gateway"],
        capture_output=True, encoding="utf-8", cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (
        f"schema '{layout.gateway}_missing' (gateway) is at migration 0, this code needs "
        f"{gateway_store.COMPONENT.newest}" in last
    )
    assert "run `belot db setup` with the owner's URL" in last
    assert kit.name("gateway") in last


# ---------------------------------------------------------------------- what roles may not do


def log_statements(s: str, appends: bool) -> list[str]:
    out = [
        f"UPDATE {s}.events SET payload = '{{}}'",
        f"UPDATE {s}.events SET hash = hash WHERE position = 1",
        f"DELETE FROM {s}.events",
        f"TRUNCATE {s}.events",
        f"ALTER TABLE {s}.events DISABLE TRIGGER ALL",
        f"ALTER TABLE {s}.events DISABLE TRIGGER events_append_only",
        f"ALTER TABLE {s}.events DISABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {s}.events ADD COLUMN forged text",
        f"ALTER TABLE {s}.events OWNER TO CURRENT_USER",
        f"DROP POLICY events_not_secret ON {s}.events",
        f"CREATE POLICY mine ON {s}.events FOR SELECT USING (true)",
        f"CREATE TRIGGER mine BEFORE INSERT ON {s}.events FOR EACH ROW"
        f" EXECUTE FUNCTION {s}.refuse_change()",
        f"DROP TABLE {s}.events",
        f"DROP TABLE {s}.log_head",
        f"TRUNCATE {s}.log_head",
        f"DELETE FROM {s}.log_head",
        f"DROP FUNCTION {s}.refuse_change() CASCADE",
        f"CREATE OR REPLACE FUNCTION {s}.refuse_change() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RETURN NEW; END $$",
        f"DROP SCHEMA {s} CASCADE",
        f"CREATE TABLE {s}.mine (x int)",
        "CREATE TABLE public.mine (x int)",
        f'CREATE SCHEMA {s[:-1]}_mine"',
        f"DELETE FROM {s}.schema_migrations",
        f"DELETE FROM {s}.relay_offsets",
    ]
    if not appends:
        # An appender must bump the counter (see docs/database-roles.md: what remains).
        out += [f"UPDATE {s}.log_head SET position = 0", f"INSERT INTO {s}.events"
                " SELECT * FROM " + s + ".events LIMIT 1"]  # fmt: skip
    return out


async def other_schema_statements(pool: asyncpg.Pool, layout: Layout, role: str) -> list[str]:
    """Every change to the tables of the services other than ``role``'s, and reading them."""
    out = []
    for part in PARTS:
        if part.role == role:
            continue
        schema = part.schema(layout)
        s = f'"{schema}"'
        for table in part.privileges:
            column = await pool.fetchval(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = $1"
                " AND table_name = $2 ORDER BY ordinal_position LIMIT 1",
                schema,
                table,
            )
            out += [
                f"SELECT * FROM {s}.{table}",
                f"INSERT INTO {s}.{table} SELECT * FROM {s}.{table}",
                f"UPDATE {s}.{table} SET {column} = {column}",
                f"DELETE FROM {s}.{table}",
                f"TRUNCATE {s}.{table}",
                f"ALTER TABLE {s}.{table} ADD COLUMN forged text",
                f"DROP TABLE {s}.{table}",
            ]
        out.append(f"DROP SCHEMA {s} CASCADE")
    return out


@pytest.mark.parametrize("role", DB_ROLES)
async def test_no_service_role_can_change_the_log_or_another_schema(
    role: str, kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool
) -> None:
    admin = EventStore(pg_pool, layout.eventlog)
    await fill(admin)
    s = f'"{layout.eventlog}"'
    before = await pg_pool.fetch(f"SELECT position, hash FROM {s}.events ORDER BY position")
    appends = role in ("table", "randomness", "tournament", "rating")
    statements = [
        *log_statements(s, appends),
        *await other_schema_statements(pg_pool, layout, role),
        f'SET ROLE "{kit.name("owner")}"',
        *(f'SET ROLE "{kit.name(r)}"' for r in DB_ROLES if r != role),
    ]
    async with as_role(kit, role) as conn:
        outcomes = {sql: await refused(conn, sql) for sql in statements}
        # What the role may do still works (the refusals above are not a broken role).
        assert await conn.fetchval(f"SELECT count(*) FROM {s}.events") > 0
    allowed = {sql: what for sql, what in outcomes.items() if what is not None}
    assert allowed == {}, allowed
    assert len(statements) > 40
    after = await pg_pool.fetch(f"SELECT position, hash FROM {s}.events ORDER BY position")
    assert after == before
    await admin.close()


#: Where each appending role may append: its own streams, nobody else's. A table worker
#: cannot write a match's fair deal or a drand round's fact; the randomness service
#: cannot write a match.
OWN_STREAMS = {
    "table": ("table-t1", "match-m1"),
    "randomness": ("randomness-m1", "drand-quicknet-7"),
    "tournament": ("tournament-x1",),
    "rating": ("rating-club",),
}
EVERY_STREAM = ("table-t1", "match-m1", "randomness-m1", "drand-quicknet-7",
                "tournament-x1", "rating-club", "anything-else")  # fmt: skip


@pytest.mark.parametrize("role", sorted(OWN_STREAMS))
async def test_an_appender_appends_to_its_own_streams_only(
    role: str, kit: RoleKit, layout: Layout
) -> None:
    pool = await asyncpg.create_pool(kit.dsn(role), min_size=1, max_size=2)
    store = EventStore(pool, layout.eventlog)
    appended, refused_to = [], []
    try:
        for stream in EVERY_STREAM:
            try:
                await store.append(stream, 0, [NewEvent("Probe", {"by": role})])
                appended.append(stream)
            except asyncpg.InsufficientPrivilegeError:
                refused_to.append(stream)
    finally:
        await store.close()
        await pool.close()
    assert appended == list(OWN_STREAMS[role])
    assert sorted(refused_to) == sorted(set(EVERY_STREAM) - set(OWN_STREAMS[role]))


@pytest.mark.parametrize("role", DB_ROLES)
async def test_only_the_randomness_role_reads_the_server_seeds(
    role: str, kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool
) -> None:
    seeds = f'"{layout.randomness}".server_seeds'
    await pg_pool.execute(f"INSERT INTO {seeds} (match_id, seed) VALUES ('m1', $1)", b"s" * 32)
    async with as_role(kit, role) as conn:
        try:
            got = await conn.fetchval(f"SELECT seed FROM {seeds} WHERE match_id = 'm1'")
        except asyncpg.InsufficientPrivilegeError:
            got = None
    assert got == (b"s" * 32 if role == "randomness" else None)


# ---------------------------------------------------------------------- who sees secret rows


async def visible(kit: RoleKit, role: str, schema: str) -> set[tuple[str, str]]:
    """(stream, type) of every event ``role`` sees, through the store's own reads."""
    pool = await asyncpg.create_pool(kit.dsn(role), min_size=1, max_size=2)
    try:
        store = EventStore(pool, schema)
        seen = {(e.stream_id, e.type) async for e in store.iter_all(0)}
        for stream in ("match-a", "match-b", "tournament-x"):
            assert {(stream, e.type) for e in await store.read_stream(stream)} == {
                x for x in seen if x[0] == stream
            }
        return seen
    finally:
        await pool.close()


SECRETS = {("match-a", "DeckSupplied"), ("match-b", "DeckSupplied"),
           ("tournament-x", "TournamentConfigured")}  # fmt: skip


async def test_secret_rows_are_seen_by_whom_and_when(
    kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    # The endings below need their transparency-log entries (event-log migration 5).
    admin = EventStore(pg_pool, layout.eventlog, entries=logentries)
    await fill(admin)
    running = {r: await visible(kit, r, layout.eventlog) & SECRETS for r in DB_ROLES}
    assert running == {
        "table": {("match-a", "DeckSupplied"), ("match-b", "DeckSupplied")},
        # The relay publishes a stub in each secret event's place (eventlog.relay).
        "relay": {("match-a", "DeckSupplied"), ("match-b", "DeckSupplied")},
        "tournament": {("tournament-x", "TournamentConfigured")},
        **{r: set() for r in ("randomness", "gateway", "rating", "verify")},
    }
    # A seat's cards are not secret rows: the gateway serves them to that seat.
    assert ("match-a", "CardsDealt") in await visible(kit, "gateway", layout.eventlog)

    # An ending that is not public does not open the stream; a public one does, for
    # that stream only, and for the verify and gateway roles only.
    await admin.append("match-a", 4, [NewEvent("MatchEnded", {}, "seat:0")])
    assert await visible(kit, "verify", layout.eventlog) & SECRETS == set()
    await admin.append("match-a", 5, [NewEvent("MatchEnded", {"scores": [1, 0]})])
    ended = {r: await visible(kit, r, layout.eventlog) & SECRETS for r in DB_ROLES}
    assert ended == {
        **running,
        "verify": {("match-a", "DeckSupplied")},
        "gateway": {("match-a", "DeckSupplied")},
    }
    # `belot log verify` as a role that cannot see every row says so, in one line.
    from commands.cli import main as belot

    code = await asyncio.to_thread(
        belot, ["log", "verify", "--dsn", kit.dsn("verify"), "--schema", layout.eventlog]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "row-level security" in err
    await admin.close()


async def test_the_owner_and_a_superuser_can_still_rewrite_the_log(
    kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trust that remains (docs/database-roles.md): the log's owner may disable its
    triggers and rewrite an event, and by re-chaining the stream's hashes make `belot log
    verify` pass. Nothing in the database can stop the role that owns it."""
    from commands.cli import main as belot

    admin = EventStore(pg_pool, layout.eventlog)
    await fill(admin)
    s = f'"{layout.eventlog}"'
    async with pg_pool.acquire() as conn, conn.transaction():
        await conn.execute(f'SET LOCAL ROLE "{kit.name("owner")}"')
        await conn.execute(f"ALTER TABLE {s}.events DISABLE TRIGGER events_append_only")
        rows = await conn.fetch(
            f"SELECT position, version, type, payload::text, metadata::text, visibility,"
            f" recorded_at FROM {s}.events WHERE stream_id = 'match-a' ORDER BY version"
        )
        prev = GENESIS_HASH
        for position, version, type_, payload, metadata, visibility, at in rows:
            body = orjson.loads(payload)
            if type_ == "CardPlayed":
                body["card"] = "AS"  # the forgery
            prev = chain_hash(
                prev,
                canonical_bytes("match-a", version, type_, body, orjson.loads(metadata),
                                visibility, format_time(at)),
            )  # fmt: skip
            await conn.execute(
                f"UPDATE {s}.events SET payload = $1::jsonb, hash = $2 WHERE position = $3",
                orjson.dumps(body).decode(),
                prev,
                position,
            )
        await conn.execute(f"ALTER TABLE {s}.events ENABLE TRIGGER events_append_only")
    (played,) = [e for e in await admin.read_stream("match-a") if e.type == "CardPlayed"]
    assert played.payload["card"] == "AS"
    code = await asyncio.to_thread(
        belot, ["log", "verify", "--dsn", kit.admin_dsn, "--schema", layout.eventlog]
    )
    assert code == 0 and capsys.readouterr().out.startswith("ok:")
    await admin.close()


# ---------------------------------------------------------------------- each role's job


async def test_every_service_does_its_job_as_its_role(
    kit: RoleKit,
    servers: Any,
    store: EventStore,
    pg_pool: asyncpg.Pool,
    nc: Any,
    js_names: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The table workers, the relay and the randomness service (a whole match, decks
    equal to the recipe), the gateway (sign-up, a player on a WebSocket through the whole
    match, the log read with the decks hidden), the tournament service (a private
    tournament: its configuration is a secret row), verify (the finished match verifies)
    and rating (a verdict appended) as this module's roles, on the tests' shared layout."""
    monkeypatch.setattr(roles, "CURRENT", kit)
    async with pg_pool.acquire() as conn:
        await kit.setup(conn, shared_layout(store.schema))
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        tid = await h.create(format="swiss", ruleset="club", rounds=1, password="letmein")
        alice = await Player(h.http, "roles-alice").register()
        status, reply = await alice.call("POST", f"/v1/tournaments/{tid}/entrants", {})
        assert (status, reply.get("error")) == (403, "wrong_password"), reply
        status, reply = await alice.call(
            "POST", f"/v1/tournaments/{tid}/entrants", {"password": "letmein"}
        )
        assert status == 201, reply

        status, created = await alice.call(
            "POST",
            "/v1/tables",
            {"ruleset": "club", "seats": ["human", "bot:easy", "bot:easy", "bot:easy"],
             "sit": 0, "target": 151},
        )  # fmt: skip
        assert status == 201, created
        table_id, match_id = created["table_id"], created["match_id"]
        await alice.play(table_id)
        events = await wait_for_table(store, table_id, "TableClosed")
        # The match has ended: the gateway's role now sees its decks, and serves them.
        status, body = await alice.call("GET", f"/v1/tables/{table_id}/events")
        assert status == 200, body
        match_rows = body["streams"][f"match-{match_id}"]
        assert any(e["type"] == "DeckSupplied" for e in match_rows)
        assert any(e["type"] == "CardPlayed" for e in match_rows)
    assert await check_decks(store, match_id) >= 1
    # Before the end the player saw no deck (the gateway's role could not read one).
    ended_at = next(i for i, m in enumerate(alice.received) if m.get("event") == "MatchEnded")
    assert not any(m.get("event") == "DeckSupplied" for m in alice.received[:ended_at])

    settings = Settings(pg_dsn=kit.dsn("verify"), pg_schema=store.schema)
    verify = TestClient(
        TestServer(
            build_verify(settings, schema=store.schema, limits=RateLimits(rate=1000, burst=1000))
        )
    )
    await verify.start_server()
    try:
        async with verify.get(f"/v1/matches/{match_id}/verification") as r:
            report = await r.json()
        assert r.status == 200 and report["ok"] is True, report
    finally:
        await verify.close()

    rating_settings = Settings(
        pg_schema=store.schema,
        rating_schema=f"{store.schema}_rating",
        subject_prefix=f"t{uuid.uuid4().hex[:10]}",
    ).with_servers(kit.dsn("rating"), servers.nats_url)
    finished = next(e for e in events if e.type == "TableMatchFinished")
    rating = TestClient(TestServer(create_rating(rating_settings, poll_interval=0.2)))
    await rating.start_server()
    try:
        projection = rating.app[PROJECTION]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while (await projection.checkpoint() or 0) < finished.position:
            assert loop.time() < deadline, "the rating consumer did not reach the match"
            await asyncio.sleep(0.05)
    finally:
        await rating.close()
    verdicts = [
        e async for e in store.iter_all(0) if e.stream_id.startswith("rating-")
        and e.payload.get("match_id") == match_id
    ]  # fmt: skip
    assert len(verdicts) == 1 and verdicts[0].metadata.get("producer") == "rating"


class _FakeSocket:
    """What the hub's Connection writes to: records the messages."""

    closed = False

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def send_bytes(self, data: bytes) -> None:
        self.messages.append(orjson.loads(data))


async def test_the_gateways_live_feed_reads_past_the_hidden_decks(
    kit: RoleKit, layout: Layout, pg_pool: asyncpg.Pool
) -> None:
    """As the gateway role, the log has no deck rows while a match runs: a stream read
    back (Hub.resync) has holes in its versions. A watcher catches up past them, a live
    event after a hidden one (a relay that saw no deck, as `belot log relay` as its role)
    costs one read of the log, not a loop, and an event that follows on needs none."""
    from services.gateway.live import Connection, Hub

    admin = EventStore(pg_pool, layout.eventlog)
    m = "match-live"
    await admin.append(
        m,
        0,
        [
            NewEvent("MatchStarted", {}),
            NewEvent("DeckSupplied", {"cards": []}, "secret"),
            NewEvent("DealStarted", {}),
            NewEvent("CardPlayed", {"seat": 0}),
        ],
    )
    pool = await asyncpg.create_pool(kit.dsn("gateway"), min_size=1, max_size=2)
    store = EventStore(pool, layout.eventlog)
    reads: list[tuple[str, int]] = []
    read_stream = store.read_stream

    async def counted(stream: str, from_version: int = 1, limit: int | None = None) -> Any:
        reads.append((stream, from_version))
        return await read_stream(stream, from_version, limit)

    store.read_stream = counted  # type: ignore[method-assign]

    hub = Hub(FakeNats(), store, events_subject="x", prefix="y")  # type: ignore[arg-type]
    ws = _FakeSocket()
    conn = Connection(hub, ws, "p1")  # type: ignore[arg-type]
    try:
        await hub.watch(conn, "live", "live", None)
        w = conn.watches["live"]
        assert w.ready and w.last[m] == 4 and len(reads) == 3  # one read per stream

        await admin.append(m, 4, [NewEvent("DeckSupplied", {}, "secret")])
        await admin.append(m, 5, [NewEvent("DealStarted", {})])
        (v6,) = await admin.read_stream(m, 6)
        reads.clear()
        conn.deliver(w, v6)  # version 6 after 4: a gap (5 is a deck this role cannot see)
        for _ in range(100):
            if w.ready and w.last[m] == 6:
                break
            await asyncio.sleep(0.01)
        assert w.ready and w.last[m] == 6
        assert reads == [("table-live", 1), (m, 5), ("randomness-live", 1)]  # once, no loop
        await admin.append(m, 6, [NewEvent("CardPlayed", {"seat": 1})])
        (v7,) = await admin.read_stream(m, 7)
        reads.clear()
        conn.deliver(w, v7)  # follows on: forwarded at once
        conn.deliver(w, v7)  # a repeat: ignored
        assert reads == [] and w.last[m] == 7
        # The holes are row-level security's: this role reads no deck.
        assert [e.version for e in await read_stream(m)] == [1, 3, 4, 6, 7]
        await asyncio.sleep(0.05)  # the writer task sends what was queued
        sent = [
            (x["stream"], x["version"], x["event"]) for x in ws.messages if x["type"] == "event"
        ]
        assert sent == [(m, 1, "MatchStarted"), (m, 3, "DealStarted"), (m, 4, "CardPlayed"),
                        (m, 6, "DealStarted"), (m, 7, "CardPlayed")]  # fmt: skip
    finally:
        hub.disconnect(conn)
        await conn.close()
        await store.close()
        await pool.close()
        await admin.close()
