"""Decks per second against the HMAC limit measured in the same run.

The limit: a deck cannot be made faster than the HMAC-SHA256 blocks it reads. We time
bare blocks (the fastest of two standard-library ways: hmac.digest, and a keyed HMAC
object copied per block, which is what the recipe code uses), multiply by the measured
blocks per deck, and report decks per second as a share of that. Each figure is the best
of several interleaved rounds so that a busy moment hits both sides alike.

    python bench/deck.py [--decks N] [--rounds R]
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairdeal import DeckInputs, Drand, Shuffler
from tools.reference_recipe import shuffle

TARGET = 0.30
INPUTS = DeckInputs(
    hashlib.sha256(b"bench/server").digest(),
    tuple(hashlib.sha256(b"bench/seat%d" % i).digest()[:16] for i in range(4)),
    Drand(1, hashlib.sha256(b"bench/drand").digest()),
)


class CountingShuffler(Shuffler):
    """Counts the blocks after the first (the first is computed inline in deck())."""

    __slots__ = ("extra",)

    def __init__(self, inputs: DeckInputs) -> None:
        super().__init__(inputs)
        self.extra = 0

    def _block(self, k4: bytes, b: int) -> bytes:
        self.extra += 1
        return super()._block(k4, b)


def rate(fn, n: int) -> float:
    start = time.perf_counter()
    fn(n)
    return n / (time.perf_counter() - start)


def decks(n: int, cards: int = 32) -> None:
    deck = Shuffler(INPUTS).deck
    for k in range(n):
        deck(k, cards)


def decks24(n: int) -> None:
    decks(n, 24)


def plain(n: int) -> None:
    seeds = list(INPUTS.seat_seeds)
    for k in range(n):
        shuffle(INPUTS.server_seed, seeds, k, 1, INPUTS.drand.value)  # type: ignore[union-attr]


_HEAD, _TAIL = INPUTS.message_parts()
_MSG = _HEAD + bytes(8) + _TAIL


def hmac_oneshot(n: int) -> None:
    key, msg, digest = INPUTS.server_seed, _MSG, hmac.digest
    for _ in range(n):
        digest(key, msg, "sha256")


def hmac_keyed_copy(n: int) -> None:
    keyed = hmac.new(INPUTS.server_seed, digestmod=hashlib.sha256)
    msg = _MSG
    for _ in range(n):
        mac = keyed.copy()
        mac.update(msg)
        mac.digest()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--decks", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = args.decks

    counter = CountingShuffler(INPUTS)
    for k in range(n):
        counter.deck(k)
    blocks_per_deck = (n + counter.extra) / n

    best: dict[str, float] = {}
    cases = {
        "deck32": decks,
        "deck24": decks24,
        "hmac.digest": hmac_oneshot,
        "hmac keyed copy": hmac_keyed_copy,
    }
    for _ in range(args.rounds):
        for name, fn in cases.items():
            best[name] = max(best.get(name, 0.0), rate(fn, n))
    best["plain transcription"] = max(rate(plain, n // 10) for _ in range(args.rounds))

    hmac_rate = max(best["hmac.digest"], best["hmac keyed copy"])
    limit = hmac_rate / blocks_per_deck
    print(f"python {sys.version.split()[0]}, {n} decks x {args.rounds} rounds (best of)")
    print(f"HMAC-SHA256 blocks/s   hmac.digest {best['hmac.digest']:>12,.0f}")
    print(f"                       keyed copy  {best['hmac keyed copy']:>12,.0f}")
    print(f"blocks per deck        {blocks_per_deck:.4f}")
    print(f"limit decks/s          {limit:>12,.0f}   (fastest HMAC / blocks per deck)")
    for name in ("deck32", "deck24", "plain transcription"):
        print(f"{name:<22} {best[name]:>12,.0f}   {best[name] / limit:6.1%} of limit")
    ratio = best["deck32"] / limit
    verdict = "PASS" if ratio >= TARGET else "FAIL"
    print(f"target: 32-card decks/s >= {TARGET:.0%} of limit: {ratio:.1%} {verdict}")
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
