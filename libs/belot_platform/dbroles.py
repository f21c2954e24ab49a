"""PostgreSQL roles: their names, making them (safe when several setups run at once),
their passwords, and the URL a service connects with.

Roles are cluster-wide, so their names start with a configurable prefix
(``BELOT_PG_ROLE_PREFIX``, default ``belot``): ``belot_owner`` owns every schema and
table and runs every migration; ``belot_table``, ``belot_gateway``, ... are the services'
login roles (see :data:`belot_platform.settings.DB_ROLES`). Tests use a prefix of their
own and drop their roles after (:func:`drop_roles`), never touching another run's.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import re
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import quote, urlsplit, urlunsplit

import asyncpg

OWNER: Final = "owner"
SCRAM_ITERATIONS: Final = 4096
_PREFIX_RE: Final = re.compile(r"[a-z_][a-z0-9_]{0,39}")


def role_name(prefix: str, role: str) -> str:
    """``belot_table`` for prefix ``belot`` and role ``table``."""
    if _PREFIX_RE.fullmatch(prefix) is None:
        raise ValueError(f"role prefix {prefix!r}: lower-case letters, digits, '_' (1-40)")
    return f"{prefix}_{role}"


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def scram_verifier(password: str, *, salt: bytes | None = None) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for ``password`` (RFC 5802/7677).

    ``ALTER ROLE ... PASSWORD`` takes a verifier as it takes a password, so the password
    itself never travels to the server, nor into its log when statements are logged.
    (The password is used as given: PostgreSQL applies SASLprep, which changes nothing
    for ASCII, and the passwords here are hex.)
    """
    salt = os.urandom(16) if salt is None else salt
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, SCRAM_ITERATIONS)
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()

    def b64(b: bytes) -> str:
        return base64.b64encode(b).decode()

    return f"SCRAM-SHA-256${SCRAM_ITERATIONS}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


def role_dsn(admin_dsn: str, user: str, password: str | None) -> str:
    """``admin_dsn`` (host, port, database, options) with another user and password."""
    parts = urlsplit(admin_dsn)
    hosts = parts.netloc.rpartition("@")[2]
    auth = quote(user, safe="") + ("" if password is None else ":" + quote(password, safe=""))
    return urlunsplit(parts._replace(netloc=f"{auth}@{hosts}"))


async def ensure_role(conn: Any, name: str, *, login: bool) -> bool:
    """Create role ``name`` unless it exists; True if this call created it.

    Two setups starting at once both find the role missing and both create it: one
    wins, the other gets duplicate_object (or, in the race inside the catalog insert,
    unique_violation on pg_authid), which here means "it exists now", as wanted. The
    savepoint keeps the caller's transaction usable after that error.
    """
    if await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", name):
        return False
    try:
        async with conn.transaction():
            await conn.execute(f"CREATE ROLE {quote_ident(name)} {'LOGIN' if login else 'NOLOGIN'}")
    except (asyncpg.DuplicateObjectError, asyncpg.UniqueViolationError):
        return False
    return True


async def restrict(conn: Any, name: str, *, login: bool | None) -> None:
    """Take every power a service role must not have from ``name`` (a superuser runs
    this): no superuser, no creating databases or roles, no replication, no bypassing
    row-level security, and membership in no role at all (a member of the owner would
    have the owner's rights; one of pg_read_all_data could read the server seeds).
    ``login`` None leaves LOGIN as it is."""
    q = quote_ident(name)
    attrs = "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
    if login is not None:
        attrs += " LOGIN" if login else " NOLOGIN"
    await conn.execute(f"ALTER ROLE {q} WITH {attrs}")
    groups = await conn.fetch(
        "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
        "JOIN pg_roles r ON r.oid = m.member WHERE r.rolname = $1",
        name,
    )
    for (group,) in groups:
        await conn.execute(f"REVOKE {quote_ident(group)} FROM {q}")


async def set_password(conn: Any, name: str, password: str) -> None:
    """Give role ``name`` this password (as a SCRAM verifier: see :func:`scram_verifier`)."""
    await conn.execute(
        f"ALTER ROLE {quote_ident(name)} PASSWORD {quote_literal(scram_verifier(password))}"
    )


async def drop_roles(conn: Any, names: Iterable[str]) -> None:
    """Drop these roles (those that exist) from the cluster, in this database.

    What they own goes to the connecting role first (REASSIGN), so that DROP OWNED only
    revokes their privileges and drops their policies, never a schema another
    deployment still uses. Roles with objects in other databases cannot be dropped from
    here; PostgreSQL says so.
    """
    for name in names:
        if not await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", name):
            continue
        q = quote_ident(name)
        await conn.execute(f"REASSIGN OWNED BY {q} TO CURRENT_USER; DROP OWNED BY {q}")
        with contextlib.suppress(asyncpg.UndefinedObjectError):  # dropped meanwhile
            await conn.execute(f"DROP ROLE {q}")
