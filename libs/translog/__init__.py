"""A transparency log's pure core: the RFC 9162 Merkle tree, its proofs, C2SP tiles.

No I/O; SHA-256 from hashlib. The public API is listed here once the package is whole.
"""
