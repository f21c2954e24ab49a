"""The deck recipe of docs/specification.md §6, exactly, and the server-seed commitment.

Deal ``k`` reads a byte stream made of 32-byte blocks. Block ``b`` is
``HMAC-SHA256(key=server_seed, msg)`` with::

    msg = b"belot.club/deal/v1"            18 bytes
        + k.to_bytes(4, "big")
        + b.to_bytes(4, "big")
        + len(seats).to_bytes(1, "big")
        + for each seat: len(seed) (0 or 16) as 1 byte, then the seed
        + drand_round.to_bytes(8, "big")   (0 without drand)
        + drand_value                      (32 zero bytes without drand)

The 32 cards start in order (clubs, diamonds, hearts, spades, each 7..A). For each
position ``i`` from 31 down to 1: take the next byte ``x``; while
``x >= 256 - (256 % (i + 1))`` take another (rejection sampling keeps every position
equally likely); swap positions ``i`` and ``x % (i + 1)``. The 24-card deck then drops
the sevens and eights, the others keeping their order.

The salts of deal ``k``'s hidden events (:mod:`belot.salts` says which is whose and why
they exist): salt ``i`` is the first 16 bytes of
``HMAC-SHA256(key=server_seed, b"belot.club/salt/v1" + k.to_bytes(4, "big") +
i.to_bytes(4, "big"))``. They are the server seed's alone, so nobody else knows one before
the seed is revealed, and everybody can recompute every one after; the domain text keeps
them apart from the deck's blocks (a different message under the same key).

Everything here is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from belot.cards import FULL_DECK, NINE, Card
from belot.salts import SALT_SIZE

DOMAIN: Final = b"belot.club/deal/v1"
SALT_DOMAIN: Final = b"belot.club/salt/v1"
SERVER_SEED_SIZE: Final = 32
SEAT_SEED_SIZE: Final = 16
DRAND_VALUE_SIZE: Final = 32
MAX_SEATS: Final = 255
MAX_DEAL: Final = 2**32 - 1
MAX_BLOCK: Final = 2**32 - 1
MAX_ROUND: Final = 2**64 - 1
DECK_SIZES: Final = (32, 24)
NO_DRAND_VALUE: Final = bytes(DRAND_VALUE_SIZE)


class RecipeError(ValueError):
    """Inputs the recipe does not accept. Subclasses name the input at fault."""


class ServerSeedError(RecipeError):
    """The server seed is not exactly 32 bytes."""


class SeatSeedError(RecipeError):
    """A seat seed is neither empty (a bot or a silent seat) nor 16 bytes."""


class SeatCountError(RecipeError):
    """Fewer than 1 or more than 255 seats."""


class DealNumberError(RecipeError):
    """A deal number outside 0..2**32-1."""


class DrandError(RecipeError):
    """A drand round outside 0..2**64-1, a value that is not 32 bytes, or one without the other."""


class DeckSizeError(RecipeError):
    """A deck size other than 32 or 24."""


def commitment(server_seed: bytes) -> bytes:
    """The commitment shown before any seat seed: ``SHA-256(server_seed)``.

    Raises :class:`ServerSeedError` unless the seed is 32 bytes.
    """
    _check_server_seed(server_seed)
    return hashlib.sha256(server_seed).digest()


@dataclass(frozen=True, slots=True)
class Drand:
    """A drand beacon's round and randomness (the value the deck is made from)."""

    round: int
    value: bytes

    def __post_init__(self) -> None:
        if not 0 <= self.round <= MAX_ROUND:
            raise DrandError(f"drand round {self.round} is outside 0..2^64-1")
        if len(self.value) != DRAND_VALUE_SIZE:
            raise DrandError(
                f"drand value is {len(self.value)} bytes, it must be {DRAND_VALUE_SIZE}"
            )


@dataclass(frozen=True, slots=True)
class DeckInputs:
    """Everything a match's decks are made from, validated once.

    ``seat_seeds`` are in seat order; ``b""`` for a seat that sent no seed (a bot).
    ``drand`` is ``None`` for a match dealt without drand (round 0, value all zeros).
    Raises a :class:`RecipeError` subclass naming the bad input.
    """

    server_seed: bytes
    seat_seeds: tuple[bytes, ...]
    drand: Drand | None = None

    def __post_init__(self) -> None:
        _check_server_seed(self.server_seed)
        if not 1 <= len(self.seat_seeds) <= MAX_SEATS:
            raise SeatCountError(
                f"{len(self.seat_seeds)} seats: the recipe takes 1 to {MAX_SEATS} seats"
            )
        for seat, seed in enumerate(self.seat_seeds):
            if len(seed) not in (0, SEAT_SEED_SIZE):
                raise SeatSeedError(
                    f"seat {seat} seed is {len(seed)} bytes, it must be 0 (no seed) or "
                    f"{SEAT_SEED_SIZE}"
                )

    def message_parts(self) -> tuple[bytes, bytes]:
        """The message bytes before ``k`` and after ``b``: ``DOMAIN`` and the tail."""
        tail = bytearray([len(self.seat_seeds)])
        for seed in self.seat_seeds:
            tail.append(len(seed))
            tail += seed
        drand = self.drand
        tail += (drand.round if drand else 0).to_bytes(8, "big")
        tail += drand.value if drand else NO_DRAND_VALUE
        return DOMAIN, bytes(tail)


def _check_server_seed(server_seed: bytes) -> None:
    if len(server_seed) != SERVER_SEED_SIZE:
        raise ServerSeedError(
            f"server seed is {len(server_seed)} bytes, it must be {SERVER_SEED_SIZE}"
        )


def _check_deal(k: int) -> None:
    if not 0 <= k <= MAX_DEAL:
        raise DealNumberError(f"deal number {k} is outside 0..2^32-1")


# The shuffle's steps in the order the stream is consumed: step n handles position
# i = 31 - n. _TABLES[i][x] is x mod (i + 1), or _REJECT when x >= 256 - 256 mod (i + 1)
# and the byte must be skipped.
_REJECT: Final = 0xFF
_BLOCK_0: Final = bytes(4)
_SEVENS_AND_EIGHTS: Final = bytes(c for c in FULL_DECK if c & 7 < NINE)
_TABLES: Final = {
    i: bytes(x % (i + 1) if x < 256 - 256 % (i + 1) else _REJECT for x in range(256))
    for i in range(31, 0, -1)
}


def _unrolled_steps(start: int) -> str:
    """Source of ``steps_<start>(stream, deck)``: steps ``start``..30 written out in full.

    Step n reads ``stream[n - start]``. The function returns 31 when every position is
    done, or the step whose byte was rejected (that step not yet applied). It raises
    IndexError, before touching the deck, at step ``start + len(stream)`` when the stream
    runs out. Positions 31, 15, 7, 3, 1 (i + 1 a power of two) never reject.
    """
    lines = [f"def steps_{start}(stream, deck):"]
    for n in range(start, 31):
        i = 31 - n
        lines.append(f"    j = T{i}[stream[{n - start}]]")
        if 256 % (i + 1):
            lines.append(f"    if j == {_REJECT}: return {n}")
        lines.append(f"    deck[{i}], deck[j] = deck[j], deck[{i}]")
    lines.append("    return 31")
    return "\n".join(lines)


def _compile_steps() -> tuple[Callable[[bytes, list[Card]], int], ...]:
    # Why generated code: the recipe is 31 dependent swaps, and in CPython a loop over
    # them spends more on iteration than on the swaps. Straight-line code, one function
    # per resume point, is about 1.3x faster and keeps decks/s near the HMAC limit
    # (bench/deck.py). The plain transcription in tests/ is the reference it must match.
    namespace: dict[str, Any] = {f"T{i}": table for i, table in _TABLES.items()}
    exec("\n\n".join(_unrolled_steps(s) for s in range(31)), namespace)
    return tuple(namespace[f"steps_{s}"] for s in range(31))


_STEPS_FROM: Final = _compile_steps()


class Shuffler:
    """Decks of one match: the HMAC key and the message's fixed parts set up once.

    ``Shuffler(inputs).deck(k)`` is deal ``k``'s deck, top card (index 0) first.
    """

    __slots__ = ("_keyed", "_tail", "inputs")

    def __init__(self, inputs: DeckInputs) -> None:
        self.inputs = inputs
        # An HMAC object keyed once and copied per block: the key schedule (the ipad and
        # opad blocks) is computed once per match instead of once per block.
        # The domain text starts every message, so it is absorbed into the keyed state too.
        head, self._tail = inputs.message_parts()
        self._keyed = hmac.new(inputs.server_seed, head, digestmod=hashlib.sha256)

    def block(self, k: int, b: int) -> bytes:
        """Block ``b`` of deal ``k``'s stream (32 bytes)."""
        _check_deal(k)
        if not 0 <= b <= MAX_BLOCK:
            raise RecipeError(f"block number {b} is outside 0..2^32-1")
        return self._block(k.to_bytes(4, "big"), b)

    def _block(self, k4: bytes, b: int) -> bytes:
        mac = self._keyed.copy()
        mac.update(k4 + b.to_bytes(4, "big") + self._tail)
        return mac.digest()

    def deck(self, k: int, cards: int = 32) -> tuple[Card, ...]:
        """Deal ``k``'s deck of 32 or 24 cards. Raises :class:`RecipeError`."""
        if not 0 <= k <= MAX_DEAL:
            _check_deal(k)
        if cards != 32 and cards != 24:
            raise DeckSizeError(f"a deck has 32 or 24 cards, not {cards}")
        k4 = k.to_bytes(4, "big")
        mac = self._keyed.copy()
        mac.update(k4 + _BLOCK_0 + self._tail)
        stream = mac.digest()
        deck = list(FULL_DECK)
        step = b = 0
        while True:
            try:
                step_done = _STEPS_FROM[step](stream, deck)
            except IndexError:  # this block is used up: the next one, same step
                step += len(stream)
                b += 1
                stream = self._block(k4, b)
                continue
            if step_done == 31:
                break
            # The byte of step `step_done` was rejected: resume that step on the next byte.
            stream = stream[step_done - step + 1 :]
            step = step_done
        if cards == 24:
            return tuple(bytes(deck).translate(None, _SEVENS_AND_EIGHTS))  # type: ignore[arg-type]
        return tuple(deck)


def deck(
    server_seed: bytes,
    seat_seeds: Sequence[bytes],
    k: int,
    drand: Drand | None = None,
    cards: int = 32,
) -> tuple[Card, ...]:
    """Deal ``k``'s deck, top card first. Raises a :class:`RecipeError` subclass.

    For many deals of one match, build one :class:`Shuffler` and call ``deck(k)``.
    """
    return Shuffler(DeckInputs(server_seed, tuple(seat_seeds), drand)).deck(k, cards)


def deal_salts(server_seed: bytes, k: int, count: int) -> tuple[bytes, ...]:
    """The ``count`` salts of deal ``k``'s hidden events (module docstring), index 0
    first. Raises :class:`ServerSeedError`, :class:`DealNumberError`, or RecipeError for a
    count outside 0..2^32-1."""
    _check_server_seed(server_seed)
    _check_deal(k)
    if not 0 <= count <= MAX_BLOCK + 1:
        raise RecipeError(f"{count} salts: a deal takes 0 to 2^32")
    keyed = hmac.new(server_seed, SALT_DOMAIN + k.to_bytes(4, "big"), digestmod=hashlib.sha256)
    out = []
    for i in range(count):
        mac = keyed.copy()
        mac.update(i.to_bytes(4, "big"))
        out.append(mac.digest()[:SALT_SIZE])
    return tuple(out)
