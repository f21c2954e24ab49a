"""Cards as small integers with a two-letter text form.

A card is ``suit * 8 + rank``: suits in the order clubs, diamonds, hearts, spades
(``C D H S``) and ranks from seven to ace (``7 8 9 T J Q K A``). That is exactly the
order in which the fair-deal recipe lays out the 32 cards before shuffling
(docs/specification.md §6), so ``FULL_DECK[i] == i``.
"""

from __future__ import annotations

from typing import Final, NewType

Card = NewType("Card", int)
Suit = NewType("Suit", int)
Rank = NewType("Rank", int)

SUITS: Final = "CDHS"
RANKS: Final = "789TJQKA"

CLUBS, DIAMONDS, HEARTS, SPADES = (Suit(i) for i in range(4))
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = (Rank(i) for i in range(8))

#: The 32 cards in the recipe's starting order: clubs 7..A, diamonds, hearts, spades.
FULL_DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(32))
#: The 24-card deck: the 32 without sevens and eights, in the same relative order.
SHORT_DECK: Final[tuple[Card, ...]] = tuple(c for c in FULL_DECK if c % 8 >= NINE)

CARD_CODES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
_BY_CODE: Final[dict[str, Card]] = {code: Card(i) for i, code in enumerate(CARD_CODES)}


class CardError(ValueError):
    """A card code that is not rank ``7 8 9 T J Q K A`` followed by suit ``C D H S``."""


def make_card(suit: Suit | int, rank: Rank | int) -> Card:
    return Card(suit * 8 + rank)


def suit_of(card: Card | int) -> Suit:
    return Suit(card >> 3)


def rank_of(card: Card | int) -> Rank:
    return Rank(card & 7)


def to_code(card: Card | int) -> str:
    """``to_code(0) == "7C"``; ``to_code(31) == "AS"``."""
    return CARD_CODES[card]


def parse_card(code: str) -> Card:
    """Parse a code such as ``TS`` or ``AH``; raises :class:`CardError`."""
    try:
        return _BY_CODE[code.upper()]
    except (KeyError, AttributeError):
        raise CardError(
            f"bad card {code!r}: expected a rank of 7 8 9 T J Q K A then a suit of C D H S"
        ) from None


def to_codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [CARD_CODES[c] for c in cards]


# --- Order and points (docs/specification.md §1) ------------------------------------------------
#
# Indexed by rank (7 8 9 T J Q K A). A higher strength wins the trick.

#: Trump order J 9 A 10 K Q 8 7, as strengths 7..0.
TRUMP_STRENGTH: Final[tuple[int, ...]] = (0, 1, 6, 4, 7, 2, 3, 5)
#: Plain order A 10 K Q J 9 8 7, as strengths 7..0.
PLAIN_STRENGTH: Final[tuple[int, ...]] = (0, 1, 2, 6, 3, 4, 5, 7)
#: J=20, 9=14, A=11, 10=10, K=4, Q=3, 8 and 7 nothing.
TRUMP_POINTS: Final[tuple[int, ...]] = (0, 0, 14, 10, 20, 3, 4, 11)
#: A=11, 10=10, K=4, Q=3, J=2, 9 8 7 nothing.
PLAIN_POINTS: Final[tuple[int, ...]] = (0, 0, 0, 10, 2, 3, 4, 11)
LAST_TRICK_POINTS: Final = 10

# --- Sets of cards as 32-bit masks -------------------------------------------------
#
# Bit ``c`` stands for card ``c``. Masks are what the rules compute with; events and
# views carry sorted tuples of cards.

Mask = int
FULL_MASK: Final[Mask] = (1 << 32) - 1
SUIT_MASKS: Final[tuple[Mask, ...]] = tuple(0xFF << (8 * s) for s in range(4))
#: All four cards of each rank, indexed by rank.
RANK_MASKS: Final[tuple[Mask, ...]] = tuple(
    sum(1 << (s * 8 + r) for s in range(4)) for r in range(8)
)


def _above(strength: tuple[int, ...]) -> tuple[Mask, ...]:
    return tuple(
        sum(1 << (c & ~7 | r) for r in range(8) if strength[r] > strength[c & 7]) for c in range(32)
    )


#: The cards of the same suit that beat card ``c`` when that suit is trump.
TRUMP_ABOVE: Final[tuple[Mask, ...]] = _above(TRUMP_STRENGTH)
#: The cards of the same suit that beat card ``c`` in a plain suit.
PLAIN_ABOVE: Final[tuple[Mask, ...]] = _above(PLAIN_STRENGTH)


def mask_of(cards: tuple[Card, ...] | list[Card] | frozenset[Card]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_in(mask: Mask) -> tuple[Card, ...]:
    """The cards of a mask in ascending order (clubs 7 first)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(Card(low.bit_length() - 1))
        mask ^= low
    return tuple(out)


def count(mask: Mask) -> int:
    return mask.bit_count()
