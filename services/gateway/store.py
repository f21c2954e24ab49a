"""The gateway's own table: accounts (name, argon2 password hash). Its schema is
``BELOT_GATEWAY_SCHEMA``; nothing else reads it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from belot_platform import fields
from eventlog.migrations import Component, Migration, apply

# IF NOT EXISTS: schemas made before the migrations were versioned hold these already.
COMPONENT: Final = Component(
    "gateway",
    "gateway_migrations",
    (
        Migration(
            1,
            "accounts",
            """
CREATE TABLE IF NOT EXISTS {s}.accounts (
    id            text PRIMARY KEY,
    name          text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS accounts_name ON {s}.accounts (lower(name));
""",
        ),
    ),
)

#: What the gateway's database role may do to its tables (``belot db setup`` grants it):
#: sign-up inserts, log-in and the seat names select, a rehash on log-in updates. No
#: DELETE: nothing here removes an account.
PRIVILEGES: Final = {"accounts": "SELECT, INSERT, UPDATE"}


class NameTaken(Exception):
    """Another account has this name (names are compared without case)."""


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    password_hash: str


class AccountStore:
    def __init__(self, pool: Any, schema: str) -> None:
        if not schema.replace("_", "").isalnum() or not schema.islower():
            raise ValueError(f"schema {schema!r}: lower-case letters, digits and '_'")
        self._pool = pool
        self.schema = schema

    async def migrate(self) -> None:
        async with self._pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)

    async def create(self, name: str, password_hash: str) -> Account:
        """A new account; raises :class:`NameTaken`."""
        account = Account(uuid.uuid4().hex, name, password_hash)
        try:
            await self._pool.execute(
                f"INSERT INTO {self.schema}.accounts (id, name, password_hash) VALUES ($1, $2, $3)",
                account.id,
                name,
                password_hash,
            )
        except asyncpg.UniqueViolationError:
            raise NameTaken(name) from None
        return account

    async def by_name(self, name: str) -> Account | None:
        row = await self._pool.fetchrow(
            f"SELECT id, name, password_hash FROM {self.schema}.accounts "
            "WHERE lower(name) = lower($1)",
            name,
        )
        return None if row is None else Account(row["id"], row["name"], row["password_hash"])

    async def set_hash(self, account_id: str, password_hash: str) -> None:
        await self._pool.execute(
            f"UPDATE {self.schema}.accounts SET password_hash = $2 WHERE id = $1",
            account_id,
            password_hash,
        )

    async def names(self, ids: list[str]) -> dict[str, str]:
        """The names of the accounts ``ids`` name (others have none). Ids come from
        lobby lines and tournaments, written by other services: one PostgreSQL could
        not even compare (a NUL, a lone surrogate) names no account, and must not fail
        the whole list."""
        ids = [i for i in ids if isinstance(i, str) and fields.problem_of(i) is None]
        if not ids:
            return {}
        rows = await self._pool.fetch(
            f"SELECT id, name FROM {self.schema}.accounts WHERE id = ANY($1::text[])", ids
        )
        return {r["id"]: r["name"] for r in rows}
