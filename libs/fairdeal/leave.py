"""A seat's own request to leave its match, signed with a key only the seat holds.

Leaving a started match is a loss (docs/specification.md §5): the table writes
``MatchForfeited`` and the leaver's side loses. An operator that could write that event
for a seat that never asked could end any match it liked once the decks were known, a
free way out of a deal it did not want. So the seat asks with a signature:

- the player's page makes an Ed25519 key pair when it takes the seat, keeps the private
  half to itself, and sends the public half (``key``) with the seat;
- the commitment (``ServerSeedCommitted``, before any seed and any card) records every
  seat's key, and the seat's page fails its check if its own key is not there;
- ``leave`` carries the seat's signature over :func:`leave_message` (the match and the
  seat), and ``MatchForfeited`` records it;
- a checker verifies that signature with the key the commitment recorded
  (:func:`verify_leave`): a forfeit the seat did not sign fails.

The operator cannot forge the signature; it could only have recorded a key of its own in
the commitment, which the seat's page sees before it sends its seed. A seat with no key
(a client that sent none, a bot) has no signature to check: docs/threat-model.md says
what a checker concludes then.

Ed25519 is pyca cryptography's (OpenSSL's), as the transparency log's
(:mod:`translog.keys`); the page signs with @noble/curves. Pure: bytes in, bytes out.
"""

from __future__ import annotations

from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

#: An Ed25519 public key and signature, in bytes (RFC 8032).
KEY_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
#: The first line of what a seat signs: the purpose and its version, so that a signature
#: made for anything else never reads as a leave.
LEAVE_CONTEXT: Final = "belot-leave/1"


def leave_message(match_id: str, seat: int) -> bytes:
    """What a seat signs to leave match ``match_id``: three lines of UTF-8 text."""
    return f"{LEAVE_CONTEXT}\n{match_id}\n{seat}\n".encode()


def verify_leave(key: bytes, match_id: str, seat: int, signature: bytes) -> bool:
    """Is ``signature`` the holder of ``key``'s request that ``seat`` leave ``match_id``?
    False for a key or signature of the wrong size, never an exception."""
    if len(key) != KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        public = Ed25519PublicKey.from_public_bytes(key)
        public.verify(signature, leave_message(match_id, seat))
    except (InvalidSignature, ValueError):
        return False
    return True
