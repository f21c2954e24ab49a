"""Beacon verification: BLS12-381 signatures against a chain's pinned public key.

The pairing arithmetic is py-arkworks-bls12381's (Rust, arkworks); nothing here
re-implements cryptography. Randomness is derived as SHA-256 of the verified signature,
never taken from a relay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from py_arkworks_bls12381 import GT, G1Point, G2Point

from drand.chain import Chain

T = TypeVar("T")
_DST_G1: bytes = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
_DST_G2: bytes = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"
MAX_ROUND = 2**64 - 1


class BeaconError(ValueError):
    """A beacon that does not verify; the message says why."""


@dataclass(frozen=True, slots=True)
class Beacon:
    """A verified beacon: its round, signature and the randomness derived from it."""

    chain: str
    round: int
    signature: bytes
    randomness: bytes
    previous_signature: bytes | None = None


def randomness_of(signature: bytes) -> bytes:
    """drand's randomness: SHA-256 of the signature bytes (``RandomnessFromSignature``)."""
    return hashlib.sha256(signature).digest()


@cache
def _g1_key(public_key: bytes) -> G1Point:
    return G1Point.from_compressed_bytes(public_key)


@cache
def _g2_key(public_key: bytes) -> G2Point:
    return G2Point.from_compressed_bytes(public_key)


def _decode(decode: Callable[[bytes], T], data: bytes, what: str) -> T:
    try:
        return decode(data)
    except Exception as exc:  # the library raises ValueError for bytes off the curve
        raise BeaconError(f"{what} is not a valid compressed curve point: {exc}") from None
    except BaseException as exc:  # pyo3 panics derive from BaseException, not Exception
        if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
            raise
        raise BeaconError(f"{what} could not be decoded ({type(exc).__name__})") from None


def verify(
    chain: Chain, round_: int, signature: bytes, previous_signature: bytes | None = None
) -> Beacon:
    """Verify a beacon and return it with its randomness; raise :class:`BeaconError`.

    quicknet (unchained, G1 signatures): ``msg = sha256(round_be8)``, hashed to G1.
    default (chained, G2 signatures): ``msg = sha256(previous_signature || round_be8)``,
    hashed to G2. Accept iff the pairing equation holds with the pinned public key.
    """
    if not 1 <= round_ <= MAX_ROUND:
        raise BeaconError(f"round {round_} is outside 1..2^64-1")
    round_be = round_.to_bytes(8, "big")
    if chain.is_chained:
        if previous_signature is None:
            raise BeaconError(
                f"the {chain.name} chain is chained: the previous signature is needed"
            )
        if len(signature) != 96:
            raise BeaconError(f"signature is {len(signature)} bytes, {chain.name} signs with 96")
        sig2 = _decode(G2Point.from_compressed_bytes, signature, "signature")
        msg = hashlib.sha256(previous_signature + round_be).digest()
        h2 = G2Point.hash_to_curve(msg, _DST_G2)
        ok = GT.pairing_check([G1Point(), -_g1_key(chain.public_key)], [sig2, h2])
    else:
        if previous_signature is not None:
            raise BeaconError(f"the {chain.name} chain is unchained: no previous signature")
        if len(signature) != 48:
            raise BeaconError(f"signature is {len(signature)} bytes, {chain.name} signs with 48")
        sig1 = _decode(G1Point.from_compressed_bytes, signature, "signature")
        h1 = G1Point.hash_to_curve(hashlib.sha256(round_be).digest(), _DST_G1)
        ok = GT.pairing_check([sig1, -h1], [G2Point(), _g2_key(chain.public_key)])
    if not ok:
        raise BeaconError(
            f"signature does not verify for round {round_} against the {chain.name} public key"
        )
    return Beacon(chain.name, round_, signature, randomness_of(signature), previous_signature)
