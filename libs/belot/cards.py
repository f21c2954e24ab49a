"""Cards as small integers with a two-letter text form.

A card is ``suit * 8 + rank``: suits in the order clubs, diamonds, hearts, spades
(``C D H S``) and ranks from seven to ace (``7 8 9 T J Q K A``). That is exactly the
order in which the fair-deal recipe lays out the 32 cards before shuffling
(RULES.md §6), so ``FULL_DECK[i] == i``.
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
