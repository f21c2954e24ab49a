"""The gateway's own tables: accounts (name, argon2 password hash) and the tables'
chat (what players said at a table: :mod:`services.gateway.chat` has the rules). Its
schema is ``BELOT_GATEWAY_SCHEMA``; nothing else reads it."""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from belot_platform import fields
from eventlog.migrations import Component, Migration, apply
from services.gateway.names import AccountName, name_key

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
        # Only what players wrote: the table's own lines are derived from the log's
        # events when they are read (services/gateway/chat.py), never stored twice.
        # An identity column, not a serial: inserting needs no grant on its sequence.
        Migration(
            2,
            "chat messages",
            """
CREATE TABLE {s}.chat_messages (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_id  text        NOT NULL,
    player    text        NOT NULL,
    kind      text        NOT NULL CHECK (kind IN ('say', 'rematch')),
    body      text        NOT NULL,
    rematch   text,
    sent_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX chat_messages_table ON {s}.chat_messages (table_id, id);
CREATE INDEX chat_messages_player ON {s}.chat_messages (player, sent_at);
""",
        ),
        # Names in any script (services/gateway/names.py): unique by their look-alike
        # key. Accounts made before have none until the gateway fills it in at start
        # (AccountStore.migrate); one whose key another account took first keeps none,
        # and its name still works (it is found by its name, case aside).
        Migration(
            3,
            "account names by their look-alike key",
            """
ALTER TABLE {s}.accounts ADD COLUMN name_key text;
CREATE UNIQUE INDEX accounts_name_key ON {s}.accounts (name_key) WHERE name_key IS NOT NULL;
""",
        ),
        # The language the player chose for the web client (one of LANGUAGES, checked by
        # the gateway; the column only keeps the shape, so a new catalogue needs no
        # migration). None: not chosen yet, the browser's languages decide.
        Migration(
            4,
            "the account's language",
            """
ALTER TABLE {s}.accounts ADD COLUMN language text CHECK (language ~ '^[a-z]{{2,3}}$');
""",
        ),
    ),
)

#: The web client's languages (its catalogues, web/js/lang/; tests/unit/test_web_catalogues.py
#: keeps the two lists the same).
LANGUAGES: Final = ("ru", "bg", "en", "fr")

#: What the gateway's database role may do to its tables (``belot db setup`` grants it):
#: sign-up inserts, log-in and the seat names select, a rehash on log-in updates; a
#: chat message is inserted and read, never changed. No DELETE: nothing here removes an
#: account or a message.
PRIVILEGES: Final = {"accounts": "SELECT, INSERT, UPDATE", "chat_messages": "SELECT, INSERT"}


class NameTaken(Exception):
    """Another account has this name (names are compared without case)."""


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str
    password_hash: str
    language: str | None = None


class AccountStore:
    def __init__(self, pool: Any, schema: str) -> None:
        if not schema.replace("_", "").isalnum() or not schema.islower():
            raise ValueError(f"schema {schema!r}: lower-case letters, digits and '_'")
        self._pool = pool
        self.schema = schema

    async def migrate(self) -> None:
        async with self._pool.acquire() as conn:
            await apply(conn, COMPONENT, self.schema)
        await self.fill_name_keys()

    async def fill_name_keys(self) -> int:
        """Give the accounts made before look-alike keys theirs, oldest first (the
        first of two look-alikes keeps the key); returns how many got one."""
        rows = await self._pool.fetch(
            f"SELECT id, name FROM {self.schema}.accounts WHERE name_key IS NULL "
            "ORDER BY created_at, id"
        )
        filled = 0
        for row in rows:
            try:
                status = await self._pool.execute(
                    f"UPDATE {self.schema}.accounts SET name_key = $2 "
                    "WHERE id = $1 AND name_key IS NULL",
                    row["id"],
                    name_key(row["name"]),
                )
            except asyncpg.UniqueViolationError:
                continue  # a look-alike was there first: this name keeps working unkeyed
            filled += status.endswith(" 1")
        return filled

    async def create(self, name: AccountName, password_hash: str) -> Account:
        """A new account; raises :class:`NameTaken` (the name, or a look-alike, is)."""
        account = Account(uuid.uuid4().hex, name.display, password_hash)
        try:
            await self._pool.execute(
                f"INSERT INTO {self.schema}.accounts (id, name, name_key, password_hash) "
                "VALUES ($1, $2, $3, $4)",
                account.id,
                name.display,
                name.key,
                password_hash,
            )
        except asyncpg.UniqueViolationError:
            raise NameTaken(name.display) from None
        return account

    async def by_name(self, name: str) -> Account | None:
        """The account named ``name``, or a look-alike of it (the key), or an account
        from before keys named so, case aside."""
        row = await self._pool.fetchrow(
            f"SELECT id, name, password_hash, language FROM {self.schema}.accounts "
            "WHERE name_key = $1 OR (name_key IS NULL AND lower(name) = lower($2)) "
            "ORDER BY name_key IS NULL, created_at LIMIT 1",
            name_key(name),
            unicodedata.normalize("NFKC", name),
        )
        if row is None:
            return None
        return Account(row["id"], row["name"], row["password_hash"], row["language"])

    async def set_language(self, account_id: str, language: str) -> None:
        """Keep the language the player chose (one of :data:`LANGUAGES`)."""
        if language not in LANGUAGES:
            raise ValueError(f"language {language!r}: one of {', '.join(LANGUAGES)}")
        await self._pool.execute(
            f"UPDATE {self.schema}.accounts SET language = $2 WHERE id = $1",
            account_id,
            language,
        )

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


@dataclass(frozen=True, slots=True)
class ChatRow:
    """A message a player wrote at a table (or the rematch it opened from there)."""

    id: int
    table_id: str
    player: str
    name: str | None
    kind: str  # "say" or "rematch"
    body: str
    rematch: str | None  # the new table's id, for a rematch
    at_ms: int

    def to_json(self) -> dict[str, Any]:
        """The message as the chat API and the WebSocket give it."""
        return {
            "id": f"m:{self.id}",
            "kind": self.kind,
            "player": self.player,
            "name": self.name,
            "text": self.body,
            "rematch": self.rematch,
            "at_ms": self.at_ms,
        }


@dataclass(frozen=True, slots=True)
class TooMany:
    """The player has written its fill for now: ``wait_s`` until the next may go."""

    wait_s: float


_ROW = (
    "m.id, m.table_id, m.player, a.name, m.kind, m.body, m.rematch,"
    " (extract(epoch FROM m.sent_at) * 1000)::bigint AS at_ms"
)


def _chat_row(r: Any) -> ChatRow:
    return ChatRow(r["id"], r["table_id"], r["player"], r["name"], r["kind"], r["body"],
                   r["rematch"], r["at_ms"])  # fmt: skip


class ChatStore:
    """The tables' chat: what players wrote, in the gateway's schema."""

    def __init__(self, pool: Any, schema: str) -> None:
        if not schema.replace("_", "").isalnum() or not schema.islower():
            raise ValueError(f"schema {schema!r}: lower-case letters, digits and '_'")
        self._pool = pool
        self.schema = schema

    async def post(
        self,
        table_id: str,
        player: str,
        body: str,
        *,
        kind: str = "say",
        rematch: str | None = None,
        most: int | None,
        window_s: float,
    ) -> ChatRow | TooMany:
        """Store a message unless ``player`` wrote ``most`` in the last ``window_s``
        seconds (at any table), in which case nothing is stored (``most`` None: no
        limit, for what the gateway writes on the player's behalf).

        The count and the insert run under a transaction-scoped advisory lock on the
        player: two requests of one player at once (or on two gateways) are counted one
        after the other, so the limit holds exactly across replicas; other players'
        messages never wait for it. The window is the database's clock, the one that
        stamps ``sent_at``."""
        s = self.schema
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", f"belot.chat:{player}"
            )
            recent = (
                []
                if most is None
                else await conn.fetch(
                    f"SELECT extract(epoch FROM clock_timestamp() - sent_at) AS age"
                    f" FROM {s}.chat_messages WHERE player = $1"
                    f" AND sent_at > clock_timestamp() - make_interval(secs => $2)"
                    f" ORDER BY sent_at DESC LIMIT $3",
                    player,
                    window_s,
                    most,
                )
            )
            if most is not None and len(recent) >= most:
                oldest = float(recent[-1]["age"])
                return TooMany(max(0.0, window_s - oldest))
            row = await conn.fetchrow(
                f"WITH m AS (INSERT INTO {s}.chat_messages"
                f" (table_id, player, kind, body, rematch) VALUES ($1, $2, $3, $4, $5)"
                f" RETURNING *)"
                f" SELECT {_ROW} FROM m LEFT JOIN {s}.accounts a ON a.id = m.player",
                table_id,
                player,
                kind,
                body,
                rematch,
            )
        return _chat_row(row)

    async def history(self, table_id: str, limit: int) -> list[ChatRow]:
        """The table's last ``limit`` messages, oldest first."""
        s = self.schema
        rows = await self._pool.fetch(
            f"SELECT * FROM (SELECT {_ROW} FROM {s}.chat_messages m"
            f" LEFT JOIN {s}.accounts a ON a.id = m.player"
            f" WHERE m.table_id = $1 ORDER BY m.id DESC LIMIT $2) x ORDER BY id",
            table_id,
            limit,
        )
        return [_chat_row(r) for r in rows]
