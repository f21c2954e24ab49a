"""What must hold of libs/translog for every input, not just the published ones: every
inclusion and consistency proof verifies, the proof from a store's nodes and from tiles
is the RFC's own, and any one altered byte of a proof, a root, a signature or a signed
checkpoint is refused."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from translog import (
    TILE_WIDTH,
    BadProof,
    Checkpoint,
    Cosigner,
    Ed25519Signer,
    Frontier,
    NodeId,
    Tile,
    TranslogError,
    consistency_nodes,
    consistency_path,
    consistency_proof,
    encode_bundle,
    inclusion_nodes,
    inclusion_path,
    inclusion_proof,
    leaf_hash,
    nodes_from_tiles,
    open_checkpoint,
    parse_bundle,
    parse_checkpoint,
    parse_entries_path,
    parse_note,
    parse_skey,
    parse_tile_path,
    parse_vkey,
    sign_checkpoint,
    tiles_for,
    verify_consistency,
    verify_inclusion,
)
from translog.tree import subtree_hash

SMALL = 400
#: Large enough for three tile levels' worth of partial tiles (256**2 = 65,536).
LARGE = 70_000


def build(n: int) -> tuple[list[bytes], dict[NodeId, bytes], list[bytes]]:
    """Leaf hashes, every stored node, and the root at every size 0..n."""
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(n)]
    store: dict[NodeId, bytes] = {}
    frontier = Frontier()
    roots = [frontier.root()]
    for leaf in leaves:
        frontier, new = frontier.append(leaf)
        store.update(new)
        roots.append(frontier.root())
    return leaves, store, roots


LEAVES, STORE, ROOTS = build(SMALL)
BIG_LEAVES, BIG_STORE, BIG_ROOTS = build(LARGE)


def reader(store: dict[NodeId, bytes]):  # type: ignore[no-untyped-def]
    def read(nodes: Sequence[NodeId]) -> list[bytes]:
        return [store[n] for n in nodes]

    return read


READ, BIG_READ = reader(STORE), reader(BIG_STORE)


def tile_bytes(store: dict[NodeId, bytes], tile: Tile) -> bytes:
    return b"".join(store[n] for n in tile.nodes())


@st.composite
def index_in_tree(draw: st.DrawFn, largest: int = SMALL) -> tuple[int, int]:
    size = draw(st.integers(1, largest))
    return draw(st.integers(0, size - 1)), size


@st.composite
def two_sizes(draw: st.DrawFn, largest: int = SMALL) -> tuple[int, int]:
    second = draw(st.integers(0, largest))
    return draw(st.integers(0, second)), second


def flip(data: bytes, position: int, mask: int) -> bytes:
    """``data`` with the byte at ``position`` (mod its length) XORed with ``mask`` != 0."""
    position %= len(data)
    return data[:position] + bytes([data[position] ^ mask]) + data[position + 1 :]


MASK = st.integers(1, 255)
POSITION = st.integers(0, 10_000)


def test_every_proof_of_every_small_tree() -> None:
    for size in range(1, 65):
        for index in range(size):
            proof = inclusion_proof(index, size, READ)
            assert proof == inclusion_path(LEAVES, index, size)
            verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size])
        for first in range(size + 1):
            proof = consistency_proof(first, size, READ)
            assert proof == consistency_path(LEAVES, first, size)
            verify_consistency(first, size, proof, ROOTS[first], ROOTS[size])


@settings(max_examples=300, deadline=None)
@given(index_in_tree())
def test_inclusion_proof_verifies(case: tuple[int, int]) -> None:
    index, size = case
    proof = inclusion_proof(index, size, READ)
    assert proof == inclusion_path(LEAVES, index, size)
    assert ROOTS[size] == subtree_hash(LEAVES, 0, size)
    verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size])


@settings(max_examples=300, deadline=None)
@given(two_sizes())
def test_consistency_proof_verifies(case: tuple[int, int]) -> None:
    first, second = case
    proof = consistency_proof(first, second, READ)
    assert proof == consistency_path(LEAVES, first, second)
    verify_consistency(first, second, proof, ROOTS[first], ROOTS[second])


@settings(max_examples=200, deadline=None)
@given(index_in_tree(LARGE), two_sizes(LARGE))
def test_proofs_from_tiles_are_the_proofs_from_nodes(
    inclusion: tuple[int, int], consistency: tuple[int, int]
) -> None:
    index, size = inclusion
    first, second = consistency
    for plan, tree_size in (
        (inclusion_nodes(index, size), size),
        (consistency_nodes(first, second), second),
    ):
        tiles = {t: tile_bytes(BIG_STORE, t) for t in tiles_for(plan.nodes, tree_size)}
        assert nodes_from_tiles(plan.nodes, tree_size, tiles) == tuple(BIG_READ(plan.nodes))
        # A stored node costs at most one tile, so the reads stay logarithmic. (Not one
        # tile per proof element: an element folded from nodes of several levels, e.g.
        # (8, 2) and (0, 768) at size 769, reads a tile of each level.)
        assert len(tiles) <= len(plan.nodes)
        assert len(plan.nodes) <= 2 * tree_size.bit_length()
    verify_inclusion(
        BIG_LEAVES[index], index, size, inclusion_proof(index, size, BIG_READ), BIG_ROOTS[size]
    )
    verify_consistency(
        first,
        second,
        consistency_proof(first, second, BIG_READ),
        BIG_ROOTS[first],
        BIG_ROOTS[second],
    )


@settings(max_examples=100, deadline=None)
@given(st.integers(0, LARGE))
def test_frontier_resumes_from_stored_nodes(size: int) -> None:
    frontier = Frontier.from_nodes(size, BIG_READ)
    assert frontier.root() == BIG_ROOTS[size]
    if size < LARGE:
        grown, new = frontier.append(BIG_LEAVES[size])
        assert grown.root() == BIG_ROOTS[size + 1]
        assert all(BIG_STORE[node] == h for node, h in new)


@settings(max_examples=300, deadline=None)
@given(index_in_tree(), st.data(), POSITION, MASK)
def test_altered_inclusion_proof_or_root_fails(
    case: tuple[int, int], data: st.DataObject, position: int, mask: int
) -> None:
    index, size = case
    proof = list(inclusion_proof(index, size, READ))
    root = ROOTS[size]
    altered_root = flip(root, position, mask)
    assert_refused(lambda: verify_inclusion(LEAVES[index], index, size, proof, altered_root))
    assert_refused(
        lambda: verify_inclusion(flip(LEAVES[index], position, mask), index, size, proof, root)
    )
    if proof:
        k = data.draw(st.integers(0, len(proof) - 1))
        bad = [*proof[:k], flip(proof[k], position, mask), *proof[k + 1 :]]
        assert_refused(lambda: verify_inclusion(LEAVES[index], index, size, bad, root))
        assert_refused(lambda: verify_inclusion(LEAVES[index], index, size, proof[:-1], root))
    assert_refused(lambda: verify_inclusion(LEAVES[index], index, size, [*proof, root], root))


@settings(max_examples=300, deadline=None)
@given(two_sizes(), st.data(), POSITION, MASK)
def test_altered_consistency_proof_or_root_fails(
    case: tuple[int, int], data: st.DataObject, position: int, mask: int
) -> None:
    first, second = case
    proof = list(consistency_proof(first, second, READ))
    r1, r2 = ROOTS[first], ROOTS[second]
    assert_refused(lambda: verify_consistency(first, second, proof, flip(r1, position, mask), r2))
    # From the empty tree nothing is claimed of the second root (any tree extends the
    # empty one), so only there may it differ.
    if first or not second:
        assert_refused(
            lambda: verify_consistency(first, second, proof, r1, flip(r2, position, mask))
        )
    if proof:
        k = data.draw(st.integers(0, len(proof) - 1))
        bad = [*proof[:k], flip(proof[k], position, mask), *proof[k + 1 :]]
        assert_refused(lambda: verify_consistency(first, second, bad, r1, r2))
        assert_refused(lambda: verify_consistency(first, second, proof[1:], r1, r2))
    assert_refused(lambda: verify_consistency(first, second, [*proof, r1], r1, r2))


def assert_refused(check) -> None:  # type: ignore[no-untyped-def]
    try:
        check()
    except TranslogError:
        return
    raise AssertionError("an altered proof or root verified")


LOG = Ed25519Signer("belot.example/log", bytes(range(32)))
WITNESS = Cosigner("witness.example/w1", bytes(range(32, 64)))

checkpoints = st.builds(
    Checkpoint,
    origin=st.just(LOG.name),
    size=st.integers(0, 2**63 - 1),
    root_hash=st.binary(min_size=32, max_size=32),
    extensions=st.lists(st.text("abc xyz+/é", min_size=1, max_size=8), max_size=2).map(tuple),
)


def cosigned_text(checkpoint: Checkpoint, timestamp: int) -> bytes:
    note = sign_checkpoint(checkpoint, LOG)
    return note.with_signatures(WITNESS.sign(note.text, timestamp)).to_text().encode()


@settings(max_examples=300, deadline=None)
@given(checkpoints, st.integers(0, 2**63 - 1), POSITION, MASK)
def test_any_altered_byte_of_a_signed_checkpoint_fails(
    checkpoint: Checkpoint, timestamp: int, position: int, mask: int
) -> None:
    text = cosigned_text(checkpoint, timestamp)
    signed = open_checkpoint(text, LOG.verifier(), [WITNESS.verifier()], quorum=1)
    assert signed.checkpoint == checkpoint
    assert [c.timestamp for c in signed.cosignatures] == [timestamp]
    altered = flip(text, position, mask)
    try:
        open_checkpoint(altered, LOG.verifier(), [WITNESS.verifier()], quorum=1)
    except TranslogError:
        return
    raise AssertionError(f"an altered checkpoint was accepted: {altered!r}")


@settings(max_examples=200, deadline=None)
@given(checkpoints, st.integers(0, 2**63 - 1), POSITION, MASK)
def test_any_altered_byte_of_a_signature_fails(
    checkpoint: Checkpoint, timestamp: int, position: int, mask: int
) -> None:
    text = checkpoint.to_text()
    signature = LOG.sign(text)
    cosignature = WITNESS.sign(text, timestamp)
    assert LOG.verifier().verify(text, signature.data)
    assert WITNESS.verifier().verify(text, cosignature.data)
    assert not LOG.verifier().verify(text, flip(signature.data, position, mask))
    assert not WITNESS.verifier().verify(text, flip(cosignature.data, position, mask))
    # Nor does either verify another text.
    other = Checkpoint(
        checkpoint.origin, checkpoint.size, flip(checkpoint.root_hash, position, mask)
    )
    assert not LOG.verifier().verify(other.to_text(), signature.data)
    assert not WITNESS.verifier().verify(other.to_text(), cosignature.data)


@given(st.integers(0, 63), st.integers(0, 2**63 - 1), st.integers(1, TILE_WIDTH))
def test_tile_paths_round_trip(level: int, index: int, width: int) -> None:
    tile = Tile(level, index, width)
    assert parse_tile_path(tile.path()) == tile
    assert parse_entries_path(Tile(0, index, width).entries_path()) == Tile(0, index, width)


@given(st.lists(st.binary(max_size=300), min_size=1, max_size=TILE_WIDTH))
def test_entry_bundles_round_trip(entries: list[bytes]) -> None:
    assert parse_bundle(encode_bundle(entries), len(entries)) == tuple(entries)


def test_a_proof_that_does_not_verify_says_why() -> None:
    proof = inclusion_proof(3, 10, READ)
    try:
        verify_inclusion(LEAVES[3], 3, 10, proof, ROOTS[9])
    except BadProof as e:
        assert e.code == "proof_invalid"
        assert "root of 10" in e.message
    else:
        raise AssertionError("a proof for the wrong root verified")


FUZZ_ALPHABET = st.sampled_from(list("ab+/=.px0123456789\n —é\x00\x01"))


@settings(max_examples=300, deadline=None)
@given(st.text(FUZZ_ALPHABET, max_size=120), st.binary(max_size=120))
def test_parsers_refuse_garbage_only_with_their_errors(text: str, raw: bytes) -> None:
    # What a service hands the parsers comes off the wire: whatever it is, the answer is
    # a value or a TranslogError (a 4xx), never another exception.
    for parse in (
        parse_note,
        parse_checkpoint,
        parse_tile_path,
        parse_entries_path,
        parse_vkey,
        parse_skey,
    ):
        for value in (text, "tile/" + text, "PRIVATE+KEY+" + text, text + "\n\n— a " + text + "\n"):
            with contextlib.suppress(TranslogError):
                parse(value)  # type: ignore[operator]
    for value in (raw, raw + b"\n\n- a AAAAAAAA\n"):
        with contextlib.suppress(TranslogError):
            parse_note(value)
    with contextlib.suppress(TranslogError):
        parse_bundle(raw)
