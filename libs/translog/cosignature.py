"""C2SP tlog-cosignature v1 (Ed25519): a witness's signed statement about a checkpoint,
with the witness's own clock in it.

A cosignature is a note signature line on the checkpoint, of signature type 0x04, so its
key ID is SHA-256(name || 0x0A || 0x04 || public key)[:4] and a reader that does not know
the witness simply ignores it. Its bytes after the key ID are a ``timestamped_signature``:

    u64 timestamp (big-endian POSIX seconds) || Ed25519 signature (64 bytes)

and the Ed25519 signature is over :func:`cosigned_message`:

    cosignature/v1\\n
    time <timestamp in decimal, no leading zeroes>\\n
    <the checkpoint's whole note text, extension lines included>

It says: at that time, this was the largest tree the witness had seen for that origin,
and it had checked it consistent with every earlier one it saw. That is the clock this
platform borrows: a round named in an entry covered by a checkpoint a witness cosigned at
time t was named no later than t, whatever the server's own clock says. The "cosignature/v1"
header keeps the message apart from a plain Ed25519 note signature (type 0x01) by the same
key. The message does not name the witness, so one key must never serve two witness
names (the spec says so; :mod:`translog.keys` cannot enforce it).
"""

from __future__ import annotations

from dataclasses import dataclass

from translog.errors import NoteMalformed
from translog.note import Signature

HEADER = "cosignature/v1\n"
TIMESTAMP_SIZE = 8
ED25519_SIGNATURE_SIZE = 64
#: The spec: a timestamp MUST NOT exceed 2**63 - 1.
MAX_TIMESTAMP = 2**63 - 1


def check_timestamp(timestamp: int) -> int:
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise NoteMalformed(f"a cosignature time is an integer, not {timestamp!r}")
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise NoteMalformed(f"a cosignature time is in [0, 2**63), not {timestamp}")
    return timestamp


def cosigned_message(text: str, timestamp: int) -> bytes:
    """The bytes a witness signs for checkpoint ``text`` at ``timestamp``."""
    return f"{HEADER}time {check_timestamp(timestamp)}\n{text}".encode()


def timestamped_signature(timestamp: int, signature: bytes) -> bytes:
    """timestamp (8 bytes, big-endian) || Ed25519 signature."""
    if len(signature) != ED25519_SIGNATURE_SIZE:
        raise NoteMalformed(f"an Ed25519 signature is 64 bytes, not {len(signature)}")
    return check_timestamp(timestamp).to_bytes(TIMESTAMP_SIZE, "big") + signature


def split_timestamped(data: bytes) -> tuple[int, bytes]:
    """(timestamp, Ed25519 signature) of a cosignature's bytes after the key ID."""
    if len(data) != TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE:
        raise NoteMalformed(
            f"a cosignature is {TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE} bytes after"
            f" its key ID, not {len(data)}"
        )
    return check_timestamp(int.from_bytes(data[:TIMESTAMP_SIZE], "big")), data[TIMESTAMP_SIZE:]


@dataclass(frozen=True, slots=True)
class Cosignature:
    """A verified witness statement: ``name`` saw the checkpoint at ``timestamp``."""

    name: str
    key_id: int
    timestamp: int

    @classmethod
    def of(cls, signature: Signature) -> Cosignature:
        """The statement a cosignature line makes (its signature checked elsewhere)."""
        timestamp, _ = split_timestamped(signature.data)
        return cls(signature.name, signature.key_id, timestamp)
