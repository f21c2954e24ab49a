"""A transparency log's pure core: the RFC 9162 Merkle tree and its proofs, C2SP tiles,
checkpoints as signed notes, witness cosignatures.

Pure: no I/O, no clock, no randomness. SHA-256 from hashlib, Ed25519 from pyca
cryptography (the one third-party package, :mod:`translog.keys` says why); everything
else is the standard library. The log service, the witness, ``belot verify`` and the
auditor share it, and it is checked against RFC 6962/9162's, Go's and C2SP's published
vectors (``tests/data/translog``).

Public API (stable; everything else is internal)::

    leaf_hash(entry) -> Hash          SHA-256(0x00 || entry); node_hash(l, r), EMPTY_ROOT
    tree_hash(entries), root_hash(leaf_hashes) -> Hash      MTH of any size
    NodeId(level, index)              a perfect subtree, the unit a store keeps
    Frontier(size, hashes)            the writer's state: .append(leaf) -> (Frontier,
        new (NodeId, Hash) pairs to store), .root(); Frontier.from_nodes(size, read)

    inclusion_nodes(index, size), consistency_nodes(first, second) -> ProofPlan
        (.nodes: the stored nodes a proof needs, O(log n); .assemble(hashes) -> proof)
    inclusion_proof(index, size, read), consistency_proof(first, second, read)
        read(nodes) -> hashes: one query of a store
    inclusion_path(leaves, index), consistency_path(leaves, first, second)
        the same proofs by the RFC's recursion over leaf hashes
    verify_inclusion(leaf, index, size, proof, root)               -> None or raises
    verify_consistency(first, second, proof, first_root, second_root)

    Tile(level, index, width), parse_tile_path, parse_entries_path, node_tile,
        node_from_tile, nodes_from_tiles, tiles_for, partial_tiles, tile_data,
        encode_bundle, parse_bundle                     (C2SP tlog-tiles, translog.tiles)

    Checkpoint(origin, size, root_hash, extensions), parse_checkpoint(text),
        sign_checkpoint(checkpoint, signer) -> Note,
        open_checkpoint(text, log, witnesses, quorum=, origin=) -> SignedCheckpoint
        (.checkpoint, .note, .cosignatures: Cosignature(name, key_id, timestamp))
    Note(text, signatures), Signature(name, key_id, data), parse_note, sign_note,
        open_note(text, verifiers) -> OpenedNote(note, verified, unverified)
    Ed25519Signer(name, seed), Cosigner(name, seed): .vkey, .skey, .verifier(),
        .sign(text) / .sign(text, timestamp); parse_vkey(text), parse_skey(text);
        Ed25519Verifier, CosignatureVerifier (the Verifier protocol of translog.note)

    Errors (translog.errors): TranslogError(.code, .message) and one subclass per reason.
"""

from translog.checkpoint import (
    Checkpoint,
    SignedCheckpoint,
    open_checkpoint,
    parse_checkpoint,
    sign_checkpoint,
)
from translog.cosignature import Cosignature, cosigned_message
from translog.errors import (
    AmbiguousKey,
    BadHash,
    BadProof,
    BadSignature,
    CheckpointMalformed,
    KeyMalformed,
    NoteMalformed,
    OutOfRange,
    TileMalformed,
    TooFewCosignatures,
    TranslogError,
    UnknownKey,
    WrongOrigin,
)
from translog.hashing import EMPTY_ROOT, HASH_SIZE, Hash, leaf_hash, node_hash
from translog.keys import (
    CosignatureVerifier,
    Cosigner,
    Ed25519Signer,
    Ed25519Verifier,
    parse_skey,
    parse_vkey,
)
from translog.note import (
    Note,
    OpenedNote,
    Signature,
    Signer,
    Verifier,
    open_note,
    parse_note,
    parse_signature_line,
    sign_note,
)
from translog.proof import (
    ProofPlan,
    consistency_nodes,
    consistency_path,
    consistency_proof,
    inclusion_nodes,
    inclusion_path,
    inclusion_proof,
    root_from_inclusion,
    verify_consistency,
    verify_inclusion,
)
from translog.tiles import (
    TILE_HEIGHT,
    TILE_WIDTH,
    Tile,
    encode_bundle,
    node_from_tile,
    node_tile,
    nodes_from_tiles,
    parse_bundle,
    parse_entries_path,
    parse_tile_path,
    partial_tiles,
    tile_data,
    tiles_for,
)
from translog.tree import Frontier, NodeId, NodeReader, range_nodes, root_hash, tree_hash

__all__ = [
    "EMPTY_ROOT",
    "HASH_SIZE",
    "TILE_HEIGHT",
    "TILE_WIDTH",
    "AmbiguousKey",
    "BadHash",
    "BadProof",
    "BadSignature",
    "Checkpoint",
    "CheckpointMalformed",
    "Cosignature",
    "CosignatureVerifier",
    "Cosigner",
    "Ed25519Signer",
    "Ed25519Verifier",
    "Frontier",
    "Hash",
    "KeyMalformed",
    "NodeId",
    "NodeReader",
    "Note",
    "NoteMalformed",
    "OpenedNote",
    "OutOfRange",
    "ProofPlan",
    "Signature",
    "SignedCheckpoint",
    "Signer",
    "Tile",
    "TileMalformed",
    "TooFewCosignatures",
    "TranslogError",
    "UnknownKey",
    "Verifier",
    "WrongOrigin",
    "consistency_nodes",
    "consistency_path",
    "consistency_proof",
    "cosigned_message",
    "encode_bundle",
    "inclusion_nodes",
    "inclusion_path",
    "inclusion_proof",
    "leaf_hash",
    "node_from_tile",
    "node_hash",
    "node_tile",
    "nodes_from_tiles",
    "open_checkpoint",
    "open_note",
    "parse_bundle",
    "parse_checkpoint",
    "parse_entries_path",
    "parse_note",
    "parse_signature_line",
    "parse_skey",
    "parse_tile_path",
    "parse_vkey",
    "partial_tiles",
    "range_nodes",
    "root_from_inclusion",
    "root_hash",
    "sign_checkpoint",
    "sign_note",
    "tile_data",
    "tiles_for",
    "tree_hash",
    "verify_consistency",
    "verify_inclusion",
]
