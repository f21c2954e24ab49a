"""A plain, line-by-line transcription of the draw (``fairdeal.draw``'s docstring and
docs/tournaments.md, "The draw (random seeding)"), kept deliberately naive.

It is the independent second implementation ``fairdeal.draw`` is checked against, and the
one ``tools/make_draw_vectors.py`` builds the published vectors with.
"""

from __future__ import annotations

import hashlib
import hmac


def message(tournament_id: str, b: int) -> bytes:
    tid = tournament_id.encode("utf-8")
    msg = b"belot.club/draw/v1"
    msg += len(tid).to_bytes(2, "big")
    msg += tid
    msg += b.to_bytes(4, "big")
    return msg


def stream(randomness: bytes, tournament_id: str):
    """Yield (block number, byte) pairs of the draw's stream."""
    b = 0
    while True:
        block = hmac.new(randomness, message(tournament_id, b), hashlib.sha256).digest()
        for x in block:
            yield b, x
        b += 1


def draw(randomness: bytes, tournament_id: str, entrants: list[str]) -> dict:
    """The seed order, plus what the stream did (for the vectors file)."""
    order = list(entrants)
    source = stream(randomness, tournament_id)
    bytes_read = 0
    blocks = 1 if len(order) > 1 else 0
    rejected = []
    for i in range(len(order) - 1, 0, -1):
        m = i + 1
        k = 1
        while 256**k < m:
            k += 1
        while True:
            x = 0
            for _ in range(k):
                b, byte = next(source)
                bytes_read += 1
                blocks = b + 1
                x = x * 256 + byte
            if x < 256**k - (256**k % m):
                break
            rejected.append({"position": i, "value": x})
        j = x % m
        order[i], order[j] = order[j], order[i]
    return {"order": order, "bytes_read": bytes_read, "blocks_used": blocks, "rejected": rejected}
