"""drand: pinned chains, round/time arithmetic, beacon verification, an HTTP client
with a deadline (for the 5-second fallback), and a local relay for tests."""

from drand.bls import Beacon, BeaconError, randomness_of, verify
from drand.chain import CHAINS, CHAINS_BY_HASH, DEFAULT, DEFAULT_RELAYS, QUICKNET, Chain

__all__ = [
    "CHAINS",
    "CHAINS_BY_HASH",
    "DEFAULT",
    "DEFAULT_RELAYS",
    "QUICKNET",
    "Beacon",
    "BeaconError",
    "Chain",
    "randomness_of",
    "verify",
]
