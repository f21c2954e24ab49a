"""The salts of a deal's hidden events: which is whose, and why they are there.

Every event of the log is chained into its stream's hash (docs/event-log.md), and a hash
is a test of a guess: whoever holds the hash of an event and the hash before it can try
every content the event might have. A hidden event is short of unknown bits: another
seat's five cards are one of 26·25·24·23·22 ≈ 7.9·10^6 ordered packets, its three
completion cards one of fewer than 10^4, and everything else in the event (its time,
metadata, seat) is shared with the public events beside it. So each hidden event of a
deal carries a salt of :data:`SALT_SIZE` bytes that nobody but the server knows until the
match ends: with it, a guess is one of at least 2^128 and the hash says nothing
(docs/threat-model.md, "Hidden cards stay hidden").

The salts come in with the deck (:class:`belot.commands.SupplyDeck`), made by the fair
deal from the server seed (``fairdeal.recipe.deal_salts``), so that once the seed is
revealed a verifier recomputes each of them: a salt the server wrote that is not the
recipe's (a short one, zeros, a repeated one) fails the check. The game only puts each
into its event. The deal's hidden events, in the order of :func:`salt_index`:

- index 0: the deck itself (``DeckSupplied``, secret), which also carries all of them
  (a new owner of the table replays the log and deals the completion with its salts);
- index ``1 + s``: seat ``s``'s first distribution (``CardsDealt``, private to ``s``);
- index ``1 + n + s``: seat ``s``'s completion, ``n`` being the number of players.

A deal without salts (an empty tuple: every match made before them, and the game's own
tests and bots) gives every hidden event an empty salt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

#: Bytes of one salt: 128 bits, the least a served value may leave unknown.
SALT_SIZE: Final = 16
#: Index of the deck's own salt.
DECK: Final = 0
#: The parts of a deal in which a seat is dealt cards.
FIRST: Final = 0
COMPLETION: Final = 1


def salt_count(players: int) -> int:
    """How many salts a deal at ``players`` seats takes: the deck's and two per seat."""
    return 1 + 2 * players


def salt_index(players: int, seat: int, part: int) -> int:
    """The index of the salt of ``seat``'s cards in ``part`` (FIRST or COMPLETION)."""
    return 1 + part * players + seat


def salts_problem(players: int, salts: Sequence[bytes]) -> str | None:
    """What is wrong with a deal's salts (None: nothing): none at all, or exactly
    :func:`salt_count` of them, each :data:`SALT_SIZE` bytes."""
    if not salts:
        return None
    want = salt_count(players)
    if len(salts) != want:
        return f"a deal at {players} seats takes {want} salts, not {len(salts)}"
    for i, s in enumerate(salts):
        if not isinstance(s, bytes) or len(s) != SALT_SIZE:
            return f"salt {i} is not {SALT_SIZE} bytes"
    return None


def salt_of(salts: Sequence[bytes], index: int) -> bytes:
    """The salt at ``index``, or empty for a deal without salts."""
    return salts[index] if salts else b""
