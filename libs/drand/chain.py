"""drand chains and the default public relays (pinned in :mod:`fairdeal.chains`)."""

from fairdeal.chains import CHAINS, CHAINS_BY_HASH, DEFAULT, DEFAULT_RELAYS, QUICKNET, Chain

__all__ = ["CHAINS", "CHAINS_BY_HASH", "DEFAULT", "DEFAULT_RELAYS", "QUICKNET", "Chain"]
