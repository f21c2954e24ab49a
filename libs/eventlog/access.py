"""What one database role may do to the event log: table privileges and row policies.

The log's owner (the migration role) owns every table and function; no other role may
change or drop them, disable their triggers, or update, delete or truncate an event.
A role given :class:`LogAccess` gets only the privileges it needs:

- every reader: ``SELECT`` on ``events`` (rows filtered by row-level security, below) and
  on ``schema_migrations`` (to check the log's version at start);
- ``append``: ``INSERT`` on ``events`` and ``SELECT, UPDATE`` on ``log_head`` (an append
  bumps the position counter in the statement that inserts its events);
- ``head``: ``SELECT`` on ``log_head`` (the head position: lag, catch-up);
- ``relay``: ``SELECT, INSERT, UPDATE`` on ``relay_offsets`` (the outbox relay's offset);
- ``translog``: the transparency log's tables (``translog_entries``, ``translog_nodes``):
  ``SELECT, INSERT`` for an appender (it writes the entries of the events it appends, and
  reads the tree's frontier to do so), ``SELECT`` for a reader. Nobody may update or
  delete them (triggers, and no such grant). They have no row-level security: every row
  is public, by design; what a role may insert is bounded by the events it may insert
  (each entry references its event, one entry per event).

Rows. Migration 2 enables row-level security with two policies for everyone: rows that
are not ``secret`` are visible, and inserting is allowed (``INSERT`` itself is granted
only to appenders). :func:`grant_log` adds a role's own policies:

- ``secret_prefixes``: it also sees the secret rows of streams with these id prefixes. A
  role needs this for every stream it appends to that holds secret rows: it reads the
  stream's head (version and hash) to append, and a hidden row would make it compute
  the wrong one.
- ``ended_prefix`` / ``ended_by``: it sees the secret rows of a stream (with that
  prefix) once the stream holds a public event of one of the ``ended_by`` types: a
  finished match's deck is public, a running one's is not.
- ``append_prefixes``: it may append only to streams with these id prefixes (a
  restrictive policy, AND-ed with the permissive one): a table worker cannot write a
  match's fair-deal stream or a drand round's fact, nor the randomness service a match.

Policies are OR-ed per row; the cheap tests come first in each expression (``AND`` is
evaluated left to right), so the function that looks for the end runs for secret rows
only.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Final

from eventlog.migrations import quote_schema

#: The transparency log's tables in the log's schema (migration 4).
TRANSLOG_TABLES: Final = ("translog_entries", "translog_nodes")
_PREFIX_RE: Final = re.compile(r"[a-z][a-z0-9]*-")
_TYPE_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9]*")


@dataclass(frozen=True, slots=True)
class LogAccess:
    append: bool = False
    head: bool = False
    relay: bool = False
    translog: bool = False
    secret_prefixes: tuple[str, ...] = ()
    ended_prefix: str | None = None
    ended_by: tuple[str, ...] = ()
    append_prefixes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # These end up in SQL text (policies take no parameters): letters and digits only.
        ended = [self.ended_prefix] if self.ended_prefix else []
        for p in (*self.secret_prefixes, *ended, *self.append_prefixes):
            if _PREFIX_RE.fullmatch(p) is None:
                raise ValueError(f"stream prefix {p!r}: lower-case letters and digits, then '-'")
        for t in self.ended_by:
            if _TYPE_RE.fullmatch(t) is None:
                raise ValueError(f"event type {t!r}: letters and digits")
        if (self.ended_prefix is None) != (not self.ended_by):
            raise ValueError("ended_prefix and ended_by go together")
        if self.append_prefixes and not self.append:
            raise ValueError("append_prefixes name where an appender may append")

    def privileges(self) -> dict[str, str]:
        """Table -> the privileges this access grants on it."""
        out = {"events": "SELECT, INSERT" if self.append else "SELECT"}
        if self.append:
            out["log_head"] = "SELECT, UPDATE"
        elif self.head or self.relay:
            out["log_head"] = "SELECT"
        if self.relay:
            out["relay_offsets"] = "SELECT, INSERT, UPDATE"
        if self.translog:
            for table in TRANSLOG_TABLES:
                out[table] = "SELECT, INSERT" if self.append else "SELECT"
        out["schema_migrations"] = "SELECT"
        return out

    def policies(self, s: str) -> dict[str, str]:
        """Policy kind -> its expression (``s``: the quoted schema): USING for the reading
        kinds, WITH CHECK for ``append`` (see :data:`POLICY_CLAUSES`)."""
        out: dict[str, str] = {}
        if self.append_prefixes:
            out["append"] = " OR ".join(f"stream_id LIKE '{p}%'" for p in self.append_prefixes)
        if self.secret_prefixes:
            streams = " OR ".join(f"stream_id LIKE '{p}%'" for p in self.secret_prefixes)
            out["secret"] = f"visibility = 'secret' AND ({streams})"
        if self.ended_prefix is not None:
            types = ", ".join(f"'{t}'" for t in self.ended_by)
            out["ended"] = (
                f"visibility = 'secret' AND stream_id LIKE '{self.ended_prefix}%' "
                f"AND {s}.stream_has_public_event(stream_id, ARRAY[{types}])"
            )
        return out


#: How each kind of policy is made: reading kinds widen what a role sees (permissive,
#: OR-ed); ``append`` narrows where it may insert (restrictive, AND-ed).
POLICY_CLAUSES: Final = {
    "secret": "FOR SELECT TO {role} USING ({expression})",
    "ended": "FOR SELECT TO {role} USING ({expression})",
    "append": "AS RESTRICTIVE FOR INSERT TO {role} WITH CHECK ({expression})",
}


def quote_role(role: str) -> str:
    return '"' + role.replace('"', '""') + '"'


def policy_name(kind: str, role: str, expression: str) -> str:
    """A name that changes with the policy's role and text (names are at most 63 bytes,
    roles up to 51 characters here): a changed policy is a new one, the old is dropped."""
    digest = hashlib.sha256(f"{role}\x00{expression}".encode()).hexdigest()[:16]
    return f"events_{kind}_{digest}"


async def grant_log(conn: Any, schema: str, role: str, access: LogAccess) -> None:
    """Give ``role`` exactly ``access`` to the log in ``schema``, inside the caller's
    transaction, as the log's owner (policies can only be made by the table's owner).
    The caller revokes what the role had first; this drops the role's policies that
    ``access`` no longer has and creates the missing ones (CREATE POLICY locks the
    table for a moment, so an unchanged policy is left alone)."""
    s = quote_schema(schema)
    r = quote_role(role)
    await conn.execute(f"GRANT USAGE ON SCHEMA {s} TO {r}")
    for table, privileges in access.privileges().items():
        await conn.execute(f"GRANT {privileges} ON {s}.{table} TO {r}")
    if access.ended_prefix is not None:
        await conn.execute(
            f"GRANT EXECUTE ON FUNCTION {s}.stream_has_public_event(text, text[]) TO {r}"
        )
    wanted = {
        policy_name(kind, role, expression): POLICY_CLAUSES[kind].format(
            role=r, expression=expression
        )
        for kind, expression in access.policies(s).items()
    }
    existing = {
        row[0]
        for row in await conn.fetch(
            "SELECT policyname FROM pg_policies WHERE schemaname = $1 AND tablename = 'events'"
            " AND $2 = ANY (roles)",
            schema,
            role,
        )
    }
    for name in existing - wanted.keys():
        await conn.execute(f'DROP POLICY "{name}" ON {s}.events')
    for name, clause in wanted.items():
        if name not in existing:
            await conn.execute(f'CREATE POLICY "{name}" ON {s}.events {clause}')
