"""A tournament's draw: the entrants' seed order from a drand round's value, exactly, and
the rule that names the round (docs/tournaments.md, "The draw (random seeding)").

The draw reads a byte stream made of 32-byte blocks. Block ``b`` is
``HMAC-SHA256(key=randomness, msg)``, ``randomness`` being the named drand round's
32-byte value (SHA-256 of its signature), with::

    msg = b"belot.club/draw/v1"                     18 bytes, ASCII
        + len(tid).to_bytes(2, "big")               the tournament id's length in bytes
        + tid                                       the tournament id, UTF-8
        + b.to_bytes(4, "big")                      the block number, from 0

The stream is block 0, block 1, ... read in order, a number never restarting at a
block's edge. The entrants start in the order the naming lists them (entry order). For
each position ``i`` from ``n - 1`` down to 1, with ``m = i + 1`` and ``k`` the fewest
bytes with ``256**k >= m`` (1 up to 256 entrants): read the next ``k`` bytes as a
big-endian number ``x``; while ``x >= 256**k - (256**k % m)`` read ``k`` more (rejection
sampling keeps every position equally likely); swap positions ``i`` and ``x % m``. The
list is then the seed order, seed 1 first. Up to 256 entrants this is, byte for byte,
the deck recipe's Fisher-Yates (``fairdeal.recipe``), over the entrants instead of the
cards.

The round (:func:`draw_round_for`): the first round of the chain due more than the lead
(:data:`DRAW_ROUND_LEAD_MS`) after the naming, strictly, as the matches name theirs
(``fairdeal.fairness.round_named_for``, the same arithmetic; a test holds the two
together). Nobody, the operator included, knows that value when the round is named,
and drand publishes it whatever anyone would prefer.

Pure: no I/O, no clock, no randomness of its own. Only the standard library and the
pinned chains (this module sits below the tournament core, which draws with it).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import Final

from fairdeal.chains import CHAINS

DOMAIN: Final = b"belot.club/draw/v1"
RANDOMNESS_SIZE: Final = 32
MAX_ID_BYTES: Final = 2**16 - 1
MAX_BLOCK: Final = 2**32 - 1
#: The chain a draw names its round on (quicknet: a round every 3 s).
DRAW_CHAIN: Final = "quicknet"
#: The lead of the round a draw names: the first round due more than this after the
#: naming. The same sum as the matches' (``fairdeal.fairness.ROUND_LEAD_MS``): time for
#: the naming to be in a checkpoint of the transparency log and cosigned by a witness
#: before the value exists, and margin. A tournament's start waits this once.
DRAW_ROUND_LEAD_MS: Final = 6_000
#: The longest lead a naming may record: more only delays the draw.
MAX_DRAW_ROUND_LEAD_MS: Final = 60_000


class DrawError(ValueError):
    """Inputs the draw does not accept; ``code`` is stable, the message plain words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def message(tournament_id: str, block: int) -> bytes:
    """Block ``block``'s HMAC message (module docstring). Raises DrawError."""
    tid = tournament_id.encode()
    if not 1 <= len(tid) <= MAX_ID_BYTES:
        raise DrawError("bad_tournament_id", f"a tournament id is 1 to {MAX_ID_BYTES} bytes")
    if not 0 <= block <= MAX_BLOCK:
        raise DrawError("bad_block", f"block number {block} is outside 0..2^32-1")
    return DOMAIN + len(tid).to_bytes(2, "big") + tid + block.to_bytes(4, "big")


def block(randomness: bytes, tournament_id: str, b: int) -> bytes:
    """Block ``b`` of the draw's stream (32 bytes)."""
    _check_randomness(randomness)
    return hmac.new(randomness, message(tournament_id, b), hashlib.sha256).digest()


def stream(randomness: bytes, tournament_id: str) -> Iterator[int]:
    """The draw's bytes, block after block."""
    _check_randomness(randomness)
    keyed = hmac.new(randomness, digestmod=hashlib.sha256)
    for b in range(MAX_BLOCK + 1):
        mac = keyed.copy()
        mac.update(message(tournament_id, b))
        yield from mac.digest()


def draw_order(randomness: bytes, tournament_id: str, entrants: Sequence[str]) -> tuple[str, ...]:
    """The seed order (seed 1 first) of ``entrants`` (as named: entry order).

    Raises DrawError for a value that is not 32 bytes, an empty or repeated entrant, or
    a tournament id that cannot be in the message."""
    if len(set(entrants)) != len(entrants) or not all(entrants):
        raise DrawError("bad_entrants", "the entrants are distinct, non-empty ids")
    order = list(entrants)
    source = stream(randomness, tournament_id)
    for i in range(len(order) - 1, 0, -1):
        m = i + 1
        k = ((m - 1).bit_length() + 7) >> 3  # the fewest bytes with 256**k >= m
        span = 1 << (8 * k)
        limit = span - span % m
        while True:
            x = 0
            for _ in range(k):
                x = x << 8 | next(source)
            if x < limit:
                break
        j = x % m
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def draw_round_for(chain: str, named_at_ms: int, round_lead_ms: int) -> int:
    """The round a draw named at ``named_at_ms`` names: the first of ``chain`` due more
    than ``round_lead_ms`` after it. Raises DrawError for a chain not pinned."""
    c = CHAINS.get(chain)
    if c is None:
        raise DrawError("unknown_chain", f"no drand chain named {chain!r}")
    return c.next_round_after_ms(named_at_ms + round_lead_ms)


def due_at_ms(chain: str, round_: int) -> int:
    """When ``round_`` of ``chain`` is produced, unix milliseconds."""
    c = CHAINS.get(chain)
    if c is None:
        raise DrawError("unknown_chain", f"no drand chain named {chain!r}")
    return c.time_of_round(round_) * 1000


def randomness_of(signature: bytes) -> bytes:
    """drand's value of a beacon: SHA-256 of its signature (never a relay's word)."""
    return hashlib.sha256(signature).digest()


def _check_randomness(randomness: bytes) -> None:
    if len(randomness) != RANDOMNESS_SIZE:
        raise DrawError(
            "bad_randomness",
            f"a drand value is {RANDOMNESS_SIZE} bytes, this one is {len(randomness)}",
        )
