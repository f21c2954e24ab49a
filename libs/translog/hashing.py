"""The two hashes of an RFC 9162 (Certificate Transparency 2.0, §2.1.1) Merkle tree.

    leaf hash  = SHA-256(0x00 || entry)
    node hash  = SHA-256(0x01 || left || right)
    empty tree = SHA-256()                        (the hash of no bytes)

The one-byte prefixes are domain separation: without them a node's 64 input bytes could be
offered as an entry, and a proof for that "entry" would pass for the two subtrees under it
(the second-preimage attack RFC 6962 was written against). These are the hashes of C2SP
tlog-tiles and of Go's checksum database too, so a tree built here can be checked by their
tools, and theirs by ours.

SHA-256 is hashlib's (OpenSSL underneath): the only code here is the framing.
"""

from __future__ import annotations

import hashlib
from typing import TypeAlias

from translog.errors import BadHash

#: A SHA-256 value: a leaf, a node, a root. Always 32 bytes where the library hands one out;
#: everything it is handed is checked with :func:`check_hash`.
Hash: TypeAlias = bytes

HASH_SIZE = 32
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"

#: The Merkle tree hash of the empty list (RFC 9162 §2.1.1: MTH({}) = SHA-256()).
EMPTY_ROOT: Hash = hashlib.sha256(b"").digest()


def leaf_hash(entry: bytes) -> Hash:
    """The hash of one entry as a leaf of the tree."""
    return hashlib.sha256(LEAF_PREFIX + entry).digest()


def node_hash(left: Hash, right: Hash) -> Hash:
    """The hash of an interior node from its two children's hashes (not checked: the
    library calls it only on hashes it has checked or made)."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def check_hash(value: bytes, what: str = "hash") -> Hash:
    """``value`` if it is 32 bytes; raises :class:`BadHash` naming ``what`` otherwise."""
    if not isinstance(value, bytes | bytearray) or len(value) != HASH_SIZE:
        size = len(value) if isinstance(value, bytes | bytearray) else type(value).__name__
        raise BadHash(f"the {what} is not a {HASH_SIZE}-byte SHA-256 value ({size})")
    return bytes(value)
