"""Inclusion and consistency proofs (RFC 9162 §2.1.3 and §2.1.4): making them, from the
leaves or from a store's nodes, and checking them.

An *inclusion proof* for leaf m of a tree of n leaves is the list of subtree hashes that,
hashed up the path from the leaf, give the root (RFC 9162 PATH, deepest first). A
*consistency proof* from size m to size n is the list that lets someone holding only the
root at m compute both that root and the root at n, so that the first tree is a prefix of
the second: nothing before m was changed (RFC 9162 SUBPROOF). Each element of either is
the hash of one range of leaves ``[a, b)`` (:func:`inclusion_ranges`,
:func:`consistency_ranges`); each range is tiled by at most log2(b - a) + 1 perfect
subtrees (:func:`translog.tree.range_nodes`), which a store keeps. So a proof's
:class:`ProofPlan` lists the stored nodes it needs (O(log n) of them, one query) and
:meth:`ProofPlan.assemble` folds the answers into the proof. :func:`inclusion_path` and
:func:`consistency_path` make the same proofs straight from the RFC's recursion over the
leaf hashes; the tests check that the two ways agree for every pair of sizes they try.

Verification is RFC 9162 §2.1.3.2 and §2.1.4.2 step by step, with two cases the RFC's
algorithm leaves out, decided as transparency-dev/merkle and C2SP tlog-witness decide
them: between equal sizes the proof is empty and the roots are equal; from size 0 the
proof is empty and the first root is the empty tree's (every tree extends the empty
one; a witness that has seen nothing yet is in that case). Every hash handed in must be
32 bytes. A verifier returns nothing when the proof holds and raises
:class:`~translog.errors.BadProof` (or ``OutOfRange``, ``BadHash``) when it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from translog.errors import BadProof, OutOfRange
from translog.hashing import EMPTY_ROOT, Hash, check_hash, node_hash
from translog.tree import (
    NodeId,
    NodeReader,
    check_size,
    fold_range,
    range_nodes,
    split_point,
    subtree_hash,
)

Range = tuple[int, int]


def _check_index(index: int, size: int) -> None:
    check_size(size)
    check_size(index, "leaf index")
    if index >= size:
        raise OutOfRange(f"leaf {index} is not in a tree of {size} leaves")


def _check_sizes(first: int, second: int) -> None:
    check_size(first, "first tree size")
    check_size(second, "second tree size")
    if first > second:
        raise OutOfRange(f"the first tree size {first} is larger than the second {second}")


def inclusion_ranges(index: int, size: int) -> tuple[Range, ...]:
    """The leaf ranges whose hashes make the inclusion proof of leaf ``index`` in a tree
    of ``size`` leaves, in proof order (the leaf's sibling first)."""
    _check_index(index, size)
    ranges: list[Range] = []
    start, end = 0, size
    # PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]) if m < k, else PATH(m - k, D[k:n]) :
    # MTH(D[0:k]): walk down from the root; each step's sibling goes after the rest.
    while end - start > 1:
        k = split_point(end - start)
        if index < start + k:
            ranges.append((start + k, end))
            end = start + k
        else:
            ranges.append((start, start + k))
            start += k
    return tuple(reversed(ranges))


def consistency_ranges(first: int, second: int) -> tuple[Range, ...]:
    """The leaf ranges whose hashes make the consistency proof from ``first`` to
    ``second`` leaves, in proof order. Empty when the sizes are equal or ``first`` is 0."""
    _check_sizes(first, second)
    if first in (0, second):
        return ()
    ranges: list[Range] = []
    start, end, known = 0, second, True
    # SUBPROOF(m, D[n], b): at m = n, nothing if the verifier knows this subtree (b, only
    # while we have gone left all the way: it is the old tree itself) else its hash; else
    # split at k and recurse into the side holding m, the other side's hash after.
    while True:
        if first == end:
            if not known:
                ranges.append((start, end))
            break
        k = split_point(end - start)
        if first <= start + k:
            ranges.append((start + k, end))
            end = start + k
        else:
            ranges.append((start, start + k))
            start += k
            known = False
    return tuple(reversed(ranges))


@dataclass(frozen=True, slots=True)
class ProofPlan:
    """The stored nodes a proof needs, and how they fold into it: proof element i is
    :func:`~translog.tree.fold_range` of the next ``spans[i]`` node hashes."""

    nodes: tuple[NodeId, ...]
    spans: tuple[int, ...]

    @classmethod
    def of_ranges(cls, ranges: Sequence[Range]) -> ProofPlan:
        groups = [range_nodes(a, b) for a, b in ranges]
        return cls(tuple(n for group in groups for n in group), tuple(map(len, groups)))

    def assemble(self, hashes: Sequence[Hash]) -> tuple[Hash, ...]:
        """The proof, from the hashes of :attr:`nodes` in their order."""
        if len(hashes) != len(self.nodes):
            raise BadProof(f"the plan needs {len(self.nodes)} node hashes, got {len(hashes)}")
        checked = [check_hash(h, "node hash") for h in hashes]
        proof: list[Hash] = []
        at = 0
        for span in self.spans:
            proof.append(fold_range(checked[at : at + span]))
            at += span
        return tuple(proof)


def inclusion_nodes(index: int, size: int) -> ProofPlan:
    """Which stored nodes the inclusion proof of leaf ``index`` in ``size`` needs."""
    return ProofPlan.of_ranges(inclusion_ranges(index, size))


def consistency_nodes(first: int, second: int) -> ProofPlan:
    """Which stored nodes the consistency proof from ``first`` to ``second`` needs."""
    return ProofPlan.of_ranges(consistency_ranges(first, second))


def inclusion_proof(index: int, size: int, read: NodeReader) -> tuple[Hash, ...]:
    """The inclusion proof of leaf ``index`` in a tree of ``size``, from one call of
    ``read`` for the nodes it needs."""
    plan = inclusion_nodes(index, size)
    return plan.assemble(read(plan.nodes))


def consistency_proof(first: int, second: int, read: NodeReader) -> tuple[Hash, ...]:
    """The consistency proof from ``first`` to ``second``, from one call of ``read``."""
    plan = consistency_nodes(first, second)
    return plan.assemble(read(plan.nodes))


def inclusion_path(leaves: Sequence[Hash], index: int, size: int | None = None) -> tuple[Hash, ...]:
    """The inclusion proof computed from the leaf hashes (RFC 9162 §2.1.3.1), over the
    first ``size`` of them (all by default)."""
    size = len(leaves) if size is None else size
    if size > len(leaves):
        raise OutOfRange(f"a tree of {size} leaves from {len(leaves)} leaf hashes")
    return tuple(subtree_hash(leaves, a, b) for a, b in inclusion_ranges(index, size))


def consistency_path(
    leaves: Sequence[Hash], first: int, second: int | None = None
) -> tuple[Hash, ...]:
    """The consistency proof computed from the leaf hashes (RFC 9162 §2.1.4.1)."""
    second = len(leaves) if second is None else second
    if second > len(leaves):
        raise OutOfRange(f"a tree of {second} leaves from {len(leaves)} leaf hashes")
    return tuple(subtree_hash(leaves, a, b) for a, b in consistency_ranges(first, second))


def root_from_inclusion(leaf: Hash, index: int, size: int, proof: Sequence[Hash]) -> Hash:
    """The root an inclusion proof leads to from ``leaf`` at ``index`` (RFC 9162
    §2.1.3.2 steps 1-4, and the check of step 5 that the proof was neither too long nor
    too short)."""
    _check_index(index, size)
    r = check_hash(leaf, "leaf hash")
    fn, sn = index, size - 1
    for p in proof:
        check_hash(p, "proof hash")
        if sn == 0:
            raise BadProof(f"the inclusion proof is longer than a tree of {size} needs")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise BadProof(f"the inclusion proof is shorter than a tree of {size} needs")
    return r


def verify_inclusion(leaf: Hash, index: int, size: int, proof: Sequence[Hash], root: Hash) -> None:
    """Raises :class:`BadProof` unless ``proof`` shows ``leaf`` at ``index`` in the tree
    of ``size`` leaves whose root is ``root``."""
    check_hash(root, "root hash")
    if root_from_inclusion(leaf, index, size, proof) != root:
        raise BadProof(f"the inclusion proof of leaf {index} does not lead to the root of {size}")


def verify_consistency(
    first: int, second: int, proof: Sequence[Hash], first_root: Hash, second_root: Hash
) -> None:
    """Raises :class:`BadProof` unless ``proof`` shows the tree of ``first`` leaves with
    root ``first_root`` to be a prefix of the tree of ``second`` leaves with root
    ``second_root`` (RFC 9162 §2.1.4.2)."""
    _check_sizes(first, second)
    check_hash(first_root, "first root")
    check_hash(second_root, "second root")
    path = [check_hash(p, "proof hash") for p in proof]
    if first == 0:
        if path:
            raise BadProof("a consistency proof from the empty tree is empty")
        if first_root != EMPTY_ROOT:
            raise BadProof("the root of the empty tree is SHA-256 of nothing")
        if second == 0 and second_root != EMPTY_ROOT:
            raise BadProof("the root of the empty tree is SHA-256 of nothing")
        return
    if first == second:
        if path:
            raise BadProof("a consistency proof between equal sizes is empty")
        if first_root != second_root:
            raise BadProof(f"two different roots for the same size {first}")
        return
    # Step 1: an empty proof between different sizes proves nothing.
    if not path:
        raise BadProof(f"the consistency proof from {first} to {second} is empty")
    # Step 2: when the old tree is a perfect subtree of the new one, its root is the
    # first node of the path and the proof leaves it out.
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    # Steps 3-4.
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    # Steps 5-6.
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise BadProof(f"the consistency proof is longer than {first} to {second} needs")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    # Step 7.
    if sn != 0:
        raise BadProof(f"the consistency proof is shorter than {first} to {second} needs")
    if fr != first_root:
        raise BadProof(f"the consistency proof does not lead to the root of {first}")
    if sr != second_root:
        raise BadProof(f"the consistency proof does not lead to the root of {second}")
