"""The transparency log's tree in the event log's schema: what the store's writer needs
to append entries with their events, and the reads a log service answers proofs and
tiles from.

Which events get an entry, and its bytes, is not the event log's business: the store is
handed an :class:`EntrySource` (the platform's is :mod:`fairdeal.logentries`) and asks it
about every event it encodes. An event the source says gets an entry is written with
it, in the same statement, so the entry commits with the event or not at all.

The tree (``translog_nodes``) holds every perfect subtree once complete (see
:mod:`translog.tree`): the writer keeps the tree's :class:`~translog.Frontier` (its size
and at most 64 hashes), and appending an entry yields the new leaf and the parents it
completes without reading anything. The frontier is a cache: the primary key of
``translog_entries`` is the check that it is current (another process that appended
meanwhile took the index we would write, the statement fails, nothing is written, and
the writer reads the frontier again: :func:`read_frontier`). Within one process the
store's writer never has two batches with entries in flight (they would share the same
frontier), so only another process's append can collide, and then once.

Reads (:class:`TreeReader`): a proof's nodes in one query, a tile's hashes in one query
(a tile is 256 consecutive nodes of one level), a range of entries for a bundle, an
entry by the event it stands for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from eventlog.migrations import quote_schema
from translog import Frontier, Hash, NodeId, range_nodes


class PendingEntry(Protocol):
    """An event's entry before its version and hash are known."""

    @property
    def heads_needed(self) -> tuple[str, ...]:
        """Other streams whose (version, hash) the entry records."""
        ...

    def encode(
        self, version: int, hash: bytes, recorded_at: str, heads: Mapping[str, tuple[int, bytes]]
    ) -> bytes:
        """The entry's bytes, once the event has its version and chain hash."""
        ...


class EntrySource(Protocol):
    """Which events get an entry. ``prepare`` returns None for one that gets none, and
    raises ``ValueError`` for one that should get one and cannot (the append is refused)."""

    def prepare(self, stream_id: str, type_: str, payload: Any) -> PendingEntry | None: ...


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """An entry as stored: its index in the tree, its bytes, the event's position."""

    index: int
    entry: bytes
    event_position: int


class TreeSql:
    """The statements on one schema's tree (shared by the writer and the readers)."""

    def __init__(self, schema: str) -> None:
        s = quote_schema(schema)
        self.size = f"SELECT coalesce(max(index) + 1, 0) FROM {s}.translog_entries"
        # A query of nodes by (level, index), answered in the order asked.
        self.nodes = f"""
SELECT n.hash FROM unnest($1::smallint[], $2::bigint[]) WITH ORDINALITY AS q(level, index, o)
JOIN {s}.translog_nodes n ON n.level = q.level AND n.index = q.index ORDER BY q.o"""
        self.row = f"""
SELECT hash FROM {s}.translog_nodes WHERE level = $1 AND index >= $2 AND index < $3
ORDER BY index"""
        self.entries = f"""
SELECT index, entry, event_position FROM {s}.translog_entries
WHERE index >= $1 AND index < $2 ORDER BY index"""
        self.by_positions = f"""
SELECT index, entry, event_position FROM {s}.translog_entries
WHERE event_position = ANY($1::bigint[]) ORDER BY index"""


class MissingNodes(LookupError):
    """The store lacks nodes a complete tree must have: a broken or rewritten log."""


async def read_nodes(conn: Any, sql: TreeSql, nodes: Sequence[NodeId]) -> list[Hash]:
    """The hashes of ``nodes``, in their order (one query); raises :class:`MissingNodes`."""
    if not nodes:
        return []
    rows = await conn.fetch(sql.nodes, [n.level for n in nodes], [n.index for n in nodes])
    if len(rows) != len(nodes):
        raise MissingNodes(f"{len(nodes) - len(rows)} of {len(nodes)} tree nodes are missing")
    return [bytes(r[0]) for r in rows]


async def read_frontier(conn: Any, sql: TreeSql) -> Frontier:
    """The tree's frontier as committed: its size, then its perfect subtrees (two
    queries). Every node of the frontier of size n is complete at n, so an append
    committed between the two reads changes none of them."""
    size = int(await conn.fetchval(sql.size))
    return Frontier(size, tuple(await read_nodes(conn, sql, range_nodes(0, size))))


#: Where a busy writer marks that a batch with entries is in flight (not a stream id:
#: those have no space).
TRANSLOG_BUSY: Final = " translog"


class TreeReader:
    """Reads of the tree for a log service (any role with ``SELECT`` on it)."""

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self.sql = TreeSql(schema)

    async def size(self) -> int:
        return int(await self._pool.fetchval(self.sql.size))

    async def nodes(self, nodes: Sequence[NodeId]) -> list[Hash]:
        async with self._pool.acquire() as conn:
            return await read_nodes(conn, self.sql, nodes)

    async def row(self, level: int, start: int, end: int) -> list[Hash]:
        """The hashes of nodes ``(level, start) .. (level, end - 1)`` (a tile's)."""
        rows = await self._pool.fetch(self.sql.row, level, start, end)
        if len(rows) != end - start:
            raise MissingNodes(f"nodes {level}/{start}..{end - 1}: {len(rows)} stored")
        return [bytes(r[0]) for r in rows]

    async def entries(self, start: int, end: int) -> list[StoredEntry]:
        rows = await self._pool.fetch(self.sql.entries, start, end)
        return [StoredEntry(r[0], bytes(r[1]), r[2]) for r in rows]

    async def by_positions(self, positions: Sequence[int]) -> list[StoredEntry]:
        rows = await self._pool.fetch(self.sql.by_positions, list(positions))
        return [StoredEntry(r[0], bytes(r[1]), r[2]) for r in rows]
