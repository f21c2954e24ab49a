"""Where the verify API reads: :class:`ReadPool`, the replicas' pool
(``BELOT_VERIFY_READ_DSN``) or, without one, the primary's (``BELOT_PG_DSN``).

What reads where, and why:

- **Replicas** (the read pool): the public reads, which are most of the traffic and only
  read: ``GET /v1/matches`` and a match's view, record and verification, the
  commitments, rounds and stats (the projection's tables), and the transparency log's
  checkpoints, tiles, proofs and entries. A replica's delay only makes a match just
  ended, or a checkpoint just signed or cosigned, appear a moment later; nothing a
  reader gets is wrong, only older.
- **The primary** (the service's own pool): every write and every read a write
  depends on. The projection's feed (it reads the log and writes its tables), the
  migrations at start, the log's signer (it must sign the tree the primary holds and
  check it extends the last checkpoint it signed: on a replica that checkpoint may not
  be there yet), and the witnesses' part: ``POST /v1/log/cosignatures`` looks up the
  checkpoint it is given (a witness may have read it from a replica more advanced than
  ours) and the registered keys (one registered a moment ago on any verify replica),
  ``POST /v1/log/witnesses`` registers under a lock, and ``GET /v1/log/witnesses``
  lists the keys as the cosignature intake judges them now, so that a witness that has
  just registered finds itself there (read-your-writes; the table is small).

**One replica per request.** The read-only Service (CloudNativePG's ``belot-pg-ro``)
spreads connections over every replica, each with its own delay, so two queries of one
request on two connections may see two states of the log: a tree size read on one
replica and its nodes on a replica behind it would give a short tile or a proof that
fails, and those are served as immutable. A request that reads more than once does so
inside :meth:`ReadPool.pinned`, on one connection: one replica, whose state only moves
forward, so each read sees at least what the one before it saw. On the primary pool
(no read DSN) pinning is not needed, one server's state only moves forward, and it
holds no connection.

**The projection's position.** A verification's cross-match checks wait until the
projection has taken the record's last event into account. Its writes are made on
the primary; what the read pool sees of them is the position saved there
(``verify_position``, written after the effects it covers, so a replica that shows a
position has every row up to it): :meth:`services.verify.projection.Projection.caught_up`.

The role: the read DSN names the verify role on the replicas, with nothing to grant
(docs/database-roles.md says why).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any, Final

import asyncpg

#: What a read raises when the database cannot answer now (down, restarting, out of
#: connections): no bug, and the API answers 503 with a Retry-After.
DB_ERRORS: Final = (asyncpg.PostgresError, OSError, asyncpg.InterfaceError)


class ReadPool:
    """The API's reads: ``fetch``, ``fetchrow``, ``fetchval`` and ``acquire`` as
    ``asyncpg.Pool`` has them, so that the log's readers (``EventStore``,
    ``TreeReader``) and the projection's queries take it for their pool. It has no
    ``execute``: nothing writes through it. ``replicas``: whether ``pool`` is the
    replicas' (then :meth:`pinned` holds one connection)."""

    def __init__(self, pool: asyncpg.Pool, *, replicas: bool) -> None:
        self.pool = pool
        self.replicas = replicas
        # Per pool, per task: aiohttp runs each request in a task of its own, with a
        # copy of the context, so two requests never share a pinned connection.
        self._pinned: ContextVar[Any] = ContextVar(f"verify_read_{id(self)}", default=None)

    @contextlib.asynccontextmanager
    async def pinned(self) -> AsyncIterator[None]:
        """Every read inside goes to one connection (one replica). Nested: the outer
        one's. Do not run two reads at once inside (one connection runs one query)."""
        if not self.replicas or self._pinned.get() is not None:
            yield
            return
        async with self.pool.acquire() as conn:
            token = self._pinned.set(conn)
            try:
                yield
            finally:
                self._pinned.reset(token)

    def _target(self) -> Any:
        pinned = self._pinned.get()
        return self.pool if pinned is None else pinned

    async def fetch(self, query: str, *args: Any) -> list[Any]:
        return list(await self._target().fetch(query, *args))

    async def fetchrow(self, query: str, *args: Any) -> Any:
        return await self._target().fetchrow(query, *args)

    async def fetchval(self, query: str, *args: Any) -> Any:
        return await self._target().fetchval(query, *args)

    async def ping(self) -> None:
        """One query on the pool, pinned or not (the readiness check of a replicas' pool)."""
        await self.pool.fetchval("SELECT 1")

    def acquire(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """A connection: the pinned one (left pinned after), else one of the pool's."""
        pinned = self._pinned.get()
        if pinned is None:
            return self.pool.acquire()  # type: ignore[no-any-return]
        return contextlib.nullcontext(pinned)
