"""A seat's receipt for its seed, signed with the match's own receipt key.

A seat sends its seed while the window is open; the randomness service records it
(``SeatSeedReceived``) and answers with a receipt: the event's place (stream and
version) and the seed's SHA-256. A server that acknowledged a seed and then dealt
without it (or with another in its place) would leave the seat's word against its own,
unless the receipt is the server's signature. So each match has a receipt key:

- the randomness service draws a fresh Ed25519 key for the match when it commits to its
  server seed, keeps the private half with the server seed (never revealed, never in
  the event log), and the commitment (``ServerSeedCommitted.receipt_key``) records the
  public half, before any seed, in the witnessed transparency log;
- each receipt carries the key's signature over :func:`receipt_message`;
- the seat's tab checks the signature as soon as it has the receipt, and the receipt
  then proves, to anyone holding the commitment, that the server acknowledged that seed
  at that place: a record whose window closed without it, or with another seed, is the
  server's doing (docs/threat-model.md).

The key is the match's, not the platform's: nothing to configure, rotate or leak across
matches, and a reader needs nothing but the record to check a receipt. Its private half
is not derived from the server seed, which is revealed at the end: anyone could then
sign receipts.

Ed25519 is pyca cryptography's (OpenSSL's), as :mod:`fairdeal.leave`; the page checks
with @noble/curves. Pure: the randomness service draws the key
(``secrets.token_bytes(SECRET_SIZE)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

#: An Ed25519 private key's seed, public key and signature, in bytes (RFC 8032).
SECRET_SIZE: Final = 32
KEY_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
SHA256_SIZE: Final = 32
#: The first line of what the key signs: the purpose and its version.
RECEIPT_CONTEXT: Final = "belot-seed-receipt/1"


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a seat is given for its seed (the seed reply's ``receipt``)."""

    match_id: str
    seat: int
    seed_sha256: bytes
    stream: str
    version: int
    signature: bytes = b""

    def message(self) -> bytes:
        return receipt_message(
            self.match_id, self.seat, self.seed_sha256, self.stream, self.version
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "seat": self.seat,
            "seed_sha256": self.seed_sha256.hex(),
            "stream": self.stream,
            "version": self.version,
            "signature": self.signature.hex(),
        }


def receipt_message(
    match_id: str, seat: int, seed_sha256: bytes, stream: str, version: int
) -> bytes:
    """What the match's receipt key signs: six lines of UTF-8 text."""
    return (
        f"{RECEIPT_CONTEXT}\n{match_id}\n{seat}\n{seed_sha256.hex()}\n{stream}\n{version}\n"
    ).encode()


def public_key(secret: bytes) -> bytes:
    """The public key of the private key ``secret``."""
    return Ed25519PrivateKey.from_private_bytes(secret).public_key().public_bytes_raw()


def sign_receipt(secret: bytes, receipt: Receipt) -> Receipt:
    """``receipt`` signed with the match's private key ``secret``."""
    signature = Ed25519PrivateKey.from_private_bytes(secret).sign(receipt.message())
    return Receipt(
        receipt.match_id,
        receipt.seat,
        receipt.seed_sha256,
        receipt.stream,
        receipt.version,
        signature,
    )


def verify_receipt(key: bytes, receipt: Receipt) -> bool:
    """Is ``receipt`` signed with the public key ``key``? False for a key, hash or
    signature of the wrong size, never an exception."""
    if (
        len(key) != KEY_SIZE
        or len(receipt.signature) != SIGNATURE_SIZE
        or len(receipt.seed_sha256) != SHA256_SIZE
    ):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(receipt.signature, receipt.message())
    except (InvalidSignature, ValueError):
        return False
    return True


def receipt_from_json(doc: Any) -> Receipt:
    """A receipt from its JSON form; raises ValueError naming what is wrong."""
    if not isinstance(doc, dict):
        raise ValueError("a receipt is a JSON object")
    match_id, seat, stream, version = (
        doc.get(k) for k in ("match_id", "seat", "stream", "version")
    )
    if not isinstance(match_id, str) or not isinstance(stream, str):
        raise ValueError("a receipt names its match_id and stream (text)")
    if type(seat) is not int or type(version) is not int or seat < 0 or version < 1:
        raise ValueError("a receipt's seat and version are whole numbers (version from 1)")
    try:
        seed_sha256 = bytes.fromhex(doc.get("seed_sha256", ""))
        signature = bytes.fromhex(doc.get("signature", ""))
    except (TypeError, ValueError):
        raise ValueError("a receipt's seed_sha256 and signature are hex") from None
    if len(seed_sha256) != SHA256_SIZE or len(signature) != SIGNATURE_SIZE:
        raise ValueError("a receipt's seed_sha256 is 32 bytes and its signature 64")
    return Receipt(match_id, seat, seed_sha256, stream, version, signature)
