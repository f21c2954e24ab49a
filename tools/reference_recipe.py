"""A plain, line-by-line transcription of docs/specification.md §6, kept deliberately naive.

It is the independent second implementation the optimised ``fairdeal.recipe`` is checked
against, and the one ``tools/make_deal_vectors.py`` builds the published vectors with.
"""

from __future__ import annotations

import hashlib
import hmac

RANKS = "789TJQKA"
SUITS = "CDHS"


def message(k: int, b: int, seat_seeds: list[bytes], drand_round: int, drand_value: bytes) -> bytes:
    msg = b"belot.club/deal/v1"
    msg += k.to_bytes(4, "big")
    msg += b.to_bytes(4, "big")
    msg += len(seat_seeds).to_bytes(1, "big")
    for seed in seat_seeds:
        msg += len(seed).to_bytes(1, "big") + seed
    msg += drand_round.to_bytes(8, "big")
    msg += drand_value
    return msg


def stream(
    server_seed: bytes, k: int, seat_seeds: list[bytes], drand_round: int, drand_value: bytes
):
    """Yield (block number, byte) pairs of deal k's stream."""
    b = 0
    while True:
        block = hmac.new(
            server_seed, message(k, b, seat_seeds, drand_round, drand_value), hashlib.sha256
        ).digest()
        for x in block:
            yield b, x
        b += 1


def shuffle(
    server_seed: bytes,
    seat_seeds: list[bytes],
    k: int,
    drand_round: int = 0,
    drand_value: bytes = bytes(32),
    cards: int = 32,
) -> dict:
    """The deck as card codes, plus what the stream did (for the vectors file)."""
    deck = [r + s for s in SUITS for r in RANKS]
    bytes_read = 0
    rejected = []
    blocks = 1
    source = stream(server_seed, k, seat_seeds, drand_round, drand_value)
    for i in range(31, 0, -1):
        b, x = next(source)
        bytes_read += 1
        while x >= 256 - (256 % (i + 1)):
            rejected.append({"position": i, "byte": x})
            b, x = next(source)
            bytes_read += 1
        blocks = b + 1
        j = x % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    if cards == 24:
        deck = [c for c in deck if c[0] not in "78"]
    return {"deck": deck, "bytes_read": bytes_read, "blocks_used": blocks, "rejected": rejected}
