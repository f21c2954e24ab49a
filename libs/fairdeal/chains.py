"""drand chains pinned in code, and round/time arithmetic (pure, no I/O).

Here rather than in ``libs/drand`` because the fair-deal rules and the verifier need the
round arithmetic and must stay standard-library only; ``drand.chain`` re-exports it.

The chain hash and public key are hard-coded on purpose: a beacon "cannot be biased by
anybody unless the attacker is able to change the public key of the group, which should
be hard-coded in your code" (drand's quicknet launch post). Values from
drand/drand-client:lib/defaults.ts and drand/drand:common/chain/info_test.go (see
tests/data/DRAND.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Chain:
    name: str
    hash: str
    public_key: bytes
    period: int
    genesis_time: int
    scheme: str
    genesis_seed: bytes

    @property
    def is_chained(self) -> bool:
        """Chained schemes sign the previous signature too (drand's ``default`` chain)."""
        return self.scheme == "pedersen-bls-chained"

    def time_of_round(self, round_: int) -> int:
        """Unix time when ``round_`` is produced: ``genesis + (round - 1) * period``."""
        if round_ < 1:
            raise ValueError(f"drand rounds start at 1, not {round_}")
        return self.genesis_time + (round_ - 1) * self.period

    def round_at(self, unix_time: float) -> int:
        """The latest round produced at ``unix_time`` (1 before genesis, as drand does)."""
        if unix_time < self.genesis_time:
            return 1
        return math.floor((unix_time - self.genesis_time) / self.period) + 1

    def next_round_after(self, unix_time: float) -> int:
        """The first round produced strictly after ``unix_time``: its value is unknown then."""
        return self.round_at(unix_time) + 1

    def next_round_after_ms(self, unix_ms: int) -> int:
        """:meth:`next_round_after` of a time in whole milliseconds, in integers (exact at a
        round's boundary, as the tab's ``roundAt`` in web/js/drand.js is)."""
        genesis_ms = self.genesis_time * 1000
        if unix_ms < genesis_ms:
            return 2
        return (unix_ms - genesis_ms) // (self.period * 1000) + 2


QUICKNET: Final = Chain(
    name="quicknet",
    hash="52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key=bytes.fromhex(
        "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c"
        "8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb"
        "5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"
    ),
    period=3,
    genesis_time=1692803367,
    scheme="bls-unchained-g1-rfc9380",
    genesis_seed=bytes.fromhex("f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e"),
)

DEFAULT: Final = Chain(
    name="default",
    hash="8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce",
    public_key=bytes.fromhex(
        "868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a5699"
        "37c529eeda66c7293784a9402801af31"
    ),
    period=30,
    genesis_time=1595431050,
    scheme="pedersen-bls-chained",
    genesis_seed=bytes.fromhex("176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a"),
)

CHAINS: Final = {c.name: c for c in (QUICKNET, DEFAULT)}
CHAINS_BY_HASH: Final = {c.hash: c for c in (QUICKNET, DEFAULT)}

#: The League of Entropy mainnet's public HTTP relays (drand-docs, API-v1 intro).
DEFAULT_RELAYS: Final = (
    "https://api.drand.sh",
    "https://api2.drand.sh",
    "https://api3.drand.sh",
    "https://drand.cloudflare.com",
    "https://api.drand.secureweb3.com:6875",
)
