"""The Merkle tree of RFC 9162 §2.1.1 over any number of entries, and the addresses of
the hashes a store keeps of it.

MTH (the Merkle tree hash) of n leaves splits at k, the largest power of two below n:
MTH(D[0:n]) = node(MTH(D[0:k]), MTH(D[k:n])). So a tree of any size is a row of *perfect*
subtrees, one per set bit of n, largest first, hashed together from the right. Those
perfect subtrees are what a log stores: once the leaves under one are all in, its hash
never changes, whatever is appended later. Each is named by a :class:`NodeId`
``(level, index)``: level 0 are the leaves, and the node at level l, index i covers leaves
``[i * 2**l, (i + 1) * 2**l)``. The nodes on the tree's right edge that are not perfect
(RFC 9162 has no name for them; transparency-dev calls them ephemeral) are never stored:
any hash of a range ``[a, b)`` a proof needs is computed from the perfect nodes that tile
the range (:func:`range_nodes`), at most one per bit of its width, so a proof costs
O(log n) reads of immutable rows.

:class:`Frontier` (Go's and transparency-dev's "compact range") is the row of perfect
subtrees for the current size: at most 64 hashes. Appending an entry to it yields the
new perfect nodes to store and the new root without reading anything, which is what lets
a log append inside its writer's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from translog.errors import OutOfRange
from translog.hashing import EMPTY_ROOT, Hash, check_hash, leaf_hash, node_hash

#: Tree sizes and indices are unsigned 64-bit in every format the log speaks (checkpoints,
#: tlog-tiles, RFC 9162's TLS structures); past that a size would not round-trip.
MAX_SIZE = 2**63 - 1


@dataclass(frozen=True, order=True, slots=True)
class NodeId:
    """A perfect subtree: ``level`` 0 is a leaf; it covers leaves ``[start, end)``."""

    level: int
    index: int

    @property
    def start(self) -> int:
        return self.index << self.level

    @property
    def end(self) -> int:
        return (self.index + 1) << self.level

    def is_complete(self, size: int) -> bool:
        """Whether every leaf under the node is in a tree of ``size`` leaves (so that its
        hash is fixed and stored)."""
        return self.end <= size


#: What reads stored node hashes: called with node ids, it returns their hashes in the same
#: order (a store answers it with one query).
NodeReader: TypeAlias = "Callable[[Sequence[NodeId]], Sequence[Hash]]"


def check_size(size: int, what: str = "tree size") -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_SIZE:
        raise OutOfRange(f"the {what} {size!r} is not an integer in [0, 2**63)")
    return size


def split_point(n: int) -> int:
    """k of RFC 9162 §2.1.1: the largest power of two strictly below ``n`` (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def range_nodes(start: int, end: int) -> tuple[NodeId, ...]:
    """The perfect subtrees that tile leaves ``[start, end)``, left to right, each as large
    as its position allows. For every range a proof names (``start`` a multiple of the
    smallest power of two >= the width) they come largest first, and folding them from
    the right with ``node_hash`` gives MTH of the range: see :func:`fold_range`."""
    nodes: list[NodeId] = []
    while start < end:
        # The largest aligned block that starts here and fits.
        level = (start & -start).bit_length() - 1 if start else (end - start).bit_length() - 1
        while (1 << level) > end - start:
            level -= 1
        nodes.append(NodeId(level, start >> level))
        start += 1 << level
    return tuple(nodes)


def fold_range(hashes: Sequence[Hash]) -> Hash:
    """MTH of a range from the hashes of its :func:`range_nodes`, in their order."""
    if not hashes:
        return EMPTY_ROOT
    root = hashes[-1]
    for left in reversed(hashes[:-1]):
        root = node_hash(left, root)
    return root


def subtree_hash(leaves: Sequence[Hash], start: int = 0, end: int | None = None) -> Hash:
    """MTH(D[start:end]) computed from the leaf hashes by the RFC's recursion. O(width)
    hashes: for tests, small trees and checking a store, not for serving proofs."""
    end = len(leaves) if end is None else end
    n = end - start
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaves[start]
    k = split_point(n)
    return node_hash(subtree_hash(leaves, start, start + k), subtree_hash(leaves, start + k, end))


def root_hash(leaves: Iterable[Hash]) -> Hash:
    """MTH of a list of leaf hashes (any size, ``EMPTY_ROOT`` for none)."""
    frontier = Frontier()
    for leaf in leaves:
        frontier, _ = frontier.append(leaf)
    return frontier.root()


def tree_hash(entries: Iterable[bytes]) -> Hash:
    """MTH of a list of entries: each is leaf-hashed first."""
    return root_hash(leaf_hash(entry) for entry in entries)


@dataclass(frozen=True, slots=True)
class Frontier:
    """The perfect subtrees covering ``[0, size)``, largest first (one per set bit of
    ``size``). It is all a writer needs to keep: ``append`` gives the nodes to store and
    ``root`` the tree's hash."""

    size: int = 0
    hashes: tuple[Hash, ...] = ()

    def __post_init__(self) -> None:
        check_size(self.size)
        if len(self.hashes) != self.size.bit_count():
            raise OutOfRange(
                f"a frontier of size {self.size} has {self.size.bit_count()} hashes,"
                f" not {len(self.hashes)}"
            )
        for h in self.hashes:
            check_hash(h, "frontier hash")

    @classmethod
    def from_nodes(cls, size: int, read: NodeReader) -> Frontier:
        """The frontier of a stored tree of ``size`` leaves, from its stored nodes (one
        read of at most 64 hashes): how a writer resumes after a restart."""
        nodes = frontier_nodes(size)
        return cls(size, tuple(read(nodes)))

    def nodes(self) -> tuple[NodeId, ...]:
        return frontier_nodes(self.size)

    def append(self, leaf: Hash) -> tuple[Frontier, tuple[tuple[NodeId, Hash], ...]]:
        """The frontier with one more leaf, and the perfect nodes that leaf completes
        (the leaf itself first, then each parent it closes), to be stored."""
        check_hash(leaf, "leaf hash")
        index = self.size
        if index >= MAX_SIZE:
            raise OutOfRange("the tree is full (2**63 - 1 leaves)")
        hashes = list(self.hashes)
        new = [(NodeId(0, index), leaf)]
        current, level, position = leaf, 0, index
        # A node at an odd position is a right child: its left sibling is the last
        # frontier hash (a perfect subtree of the same level), and together they close
        # their parent.
        while position & 1:
            current = node_hash(hashes.pop(), current)
            level, position = level + 1, position >> 1
            new.append((NodeId(level, position), current))
        hashes.append(current)
        return Frontier(index + 1, tuple(hashes)), tuple(new)

    def root(self) -> Hash:
        """MTH of the tree of ``size`` leaves."""
        return fold_range(self.hashes)


def frontier_nodes(size: int) -> tuple[NodeId, ...]:
    """The perfect nodes that make up the frontier of a tree of ``size`` leaves."""
    return range_nodes(0, check_size(size))
