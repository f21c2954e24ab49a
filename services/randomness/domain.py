"""The randomness service's pure parts: its stream names and what anyone may see of a
match's fair deal. The decisions themselves are :mod:`fairdeal.fairness`; the loop that
drives them is :mod:`services.randomness.service`.
"""

from __future__ import annotations

from typing import Any

from eventkit import streams
from fairdeal.fairness import Fairness


def stream_of(match_id: str) -> str:
    return streams.randomness_stream(match_id)


def match_stream_of(match_id: str) -> str:
    return streams.match_stream(match_id)


def public_view(state: Fairness) -> dict[str, Any]:
    """What anyone may see of a match's fair deal now (no seat's seed before the window
    closes, no server seed before the reveal)."""
    closed = state.seat_seeds is not None
    return {
        "match_id": state.match_id,
        "commitment": state.commitment.hex(),
        "chain": state.chain,
        "window_closes_at_ms": state.window_closes_at_ms,
        "last_round": state.last_round,
        "round_lead_ms": state.round_lead_ms,
        "salted": state.salted,
        "signed_leaves": state.signed_leaves,
        "receipt_key": state.receipt_key.hex() or None,
        "seats": [
            {
                "seat": s.seat,
                "human": s.is_human,
                "key": s.key.hex() or None,
                "seed_sent": s.seat in state.received,
                "seed": state.seat_seeds[s.seat].hex() if state.seat_seeds is not None else None,
            }
            for s in state.seats
        ],
        "window_closed": closed,
        "drand_round": state.drand_round,
        "drand_due_at_ms": state.drand_due_at_ms,
        "drand_randomness": state.drand.value.hex() if state.drand else None,
        "drand_signature": state.drand_signature.hex() if state.drand_signature else None,
        "fallback": state.fallback,
        "decks_issued": list(state.decks_issued),
        "server_seed": state.server_seed.hex() if state.server_seed is not None else None,
    }
