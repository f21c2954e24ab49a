"""Pooled connections reset in full only when they took session state.

asyncpg gives a connection back to its pool with a reset: a ROLLBACK of a transaction
left open (in Python, no round trip when none is), then one query of four statements,
``SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``. That query is a
round trip and four statements for the server, as costly as the query before it, and
the services give a connection back after nearly every query (about twice a deal in
bench/capacity.py). The session state it undoes is state this code takes in two places
only, and marks there:

- ``LISTEN`` (:meth:`Connection.add_listener`, which marks the connection itself): the
  relay's wake-up and a :class:`~eventlog.store.Subscription`'s;
- a session advisory lock: the relay's "one active relay" lock
  (:func:`took_session_state` before it is asked for).

Both also undo what they took before giving the connection back; the mark is what makes
a failed undo (the unlock refused, the task cancelled in between) harmless: the next
release runs asyncpg's full reset, and a reset that fails closes the connection (asyncpg
terminates it). Everything else the services send is a statement or a transaction,
whose state ends with it (``SET LOCAL``, ``pg_advisory_xact_lock``). A session-level
``SET``, ``LISTEN``, advisory lock, ``WITH HOLD`` cursor or temporary table anywhere else
must be marked too: tests/unit/test_pg_sessions.py finds them in the code and fails on
one whose function does not call :func:`took_session_state`.

A pool made by anything else (asyncpg's own ``create_pool``, as the tests do) resets in
full every time: :func:`took_session_state` is then a no-op.
"""

from __future__ import annotations

from typing import Any

import asyncpg


class Connection(asyncpg.Connection):  # type: ignore[misc]
    """asyncpg's connection whose reset query (:meth:`get_reset_query`, asyncpg's hook
    for it) is empty unless the connection was marked since its last reset."""

    _session_state = False

    def took_session_state(self) -> None:
        """The next release resets this connection in full."""
        self._session_state = True

    async def add_listener(self, channel: str, callback: Any) -> None:
        self._session_state = True
        await super().add_listener(channel, callback)

    def get_reset_query(self) -> str:
        if not self._session_state:
            return ""
        # Cleared when asked (the release's reset runs it next): if it fails, asyncpg
        # terminates the connection, so nothing is left to reset.
        self._session_state = False
        query: str = super().get_reset_query()
        return query


def took_session_state(conn: Any) -> None:
    """Mark ``conn`` (a pool's connection, or the proxy ``pool.acquire()`` gives) as
    holding session state: its pool resets it in full when it comes back."""
    mark = getattr(conn, "took_session_state", None)
    if mark is not None:
        mark()


async def create_pool(dsn: str, **options: Any) -> asyncpg.Pool:
    """``asyncpg.create_pool`` with :class:`Connection`: what the services' pools are."""
    pool: asyncpg.Pool = await asyncpg.create_pool(dsn, connection_class=Connection, **options)
    return pool
