"""drand chains (pinned in :mod:`fairdeal.chains`) and the default public relays."""

from typing import Final

from fairdeal.chains import CHAINS, CHAINS_BY_HASH, DEFAULT, QUICKNET, Chain

#: Public HTTP relays of the League of Entropy mainnet (drand-docs, API-v1 intro).
DEFAULT_RELAYS: Final = (
    "https://api.drand.sh",
    "https://api2.drand.sh",
    "https://api3.drand.sh",
    "https://drand.cloudflare.com",
    "https://api.drand.secureweb3.com:6875",
)

__all__ = ["CHAINS", "CHAINS_BY_HASH", "DEFAULT", "DEFAULT_RELAYS", "QUICKNET", "Chain"]
