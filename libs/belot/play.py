"""Playing a trick: which cards may be played, who wins, what cards are worth.

The single source of legality for cards (docs/specification.md §2, rows "void in led suit" and
"trump led"). A trick is the tuple of cards played so far, in order; the seat to play
is at position ``len(trick)``, so its partner (at four) is at ``len(trick) - 2``.

Strains (``belot.ruleset.Strain``) as plain ints: 0-3 a trump suit, 4 all trumps,
5 no trumps, 6 misère (played as no trumps).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from belot.cards import (
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    SUIT_MASKS,
    TRUMP_ABOVE,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    Card,
    Mask,
    to_code,
)
from belot.ruleset import PartnerException, Ruleset, Strain

ALL_TRUMPS: Final = int(Strain.ALL_TRUMPS)
NO_TRUMPS: Final = int(Strain.NO_TRUMPS)
MISERE: Final = int(Strain.MISERE)


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: who led, the cards in play order, who took it, its points
    (the last trick's 10 included)."""

    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int


def _points_table(strain: int) -> tuple[int, ...]:
    def value(c: int) -> int:
        suit, rank = c >> 3, c & 7
        is_trump = strain == ALL_TRUMPS or suit == strain
        return TRUMP_POINTS[rank] if is_trump else PLAIN_POINTS[rank]

    return tuple(value(c) for c in range(32))


#: ``CARD_POINTS[strain][card]``: trump values for trumps (every suit in all-trumps),
#: plain values otherwise. A suit deal holds 152 in cards, all-trumps 248, no-trumps 120.
CARD_POINTS: Final[tuple[tuple[int, ...], ...]] = tuple(_points_table(s) for s in range(7))


def _key_table(strain: int, led: int) -> tuple[int, ...]:
    """Trick-taking power of each card when ``led`` was led: higher wins, -1 never."""

    def key(c: int) -> int:
        suit, rank = c >> 3, c & 7
        if strain <= 3 and suit == strain:
            return 16 + TRUMP_STRENGTH[rank]
        if suit != led:
            return -1
        return TRUMP_STRENGTH[rank] if strain == ALL_TRUMPS else PLAIN_STRENGTH[rank]

    return tuple(key(c) for c in range(32))


_KEYS: Final = tuple(tuple(_key_table(s, led) for led in range(4)) for s in range(7))


def power_table(strain: int, led: int) -> tuple[int, ...]:
    """``power_table(strain, led)[card]``: higher takes the trick; -1 cannot take it."""
    return _KEYS[strain][led]


def winning_index(trick: Sequence[int], strain: int) -> int:
    """The position in ``trick`` of the card that holds it."""
    keys = _KEYS[strain][trick[0] >> 3]
    best, best_key = 0, keys[trick[0]]
    for i in range(1, len(trick)):
        k = keys[trick[i]]
        if k > best_key:
            best, best_key = i, k
    return best


def _best_of_suit(trick: Sequence[int], suit: int) -> int:
    """The highest card of ``suit`` in the trick by trump order, or -1."""
    best, best_strength = -1, -1
    for c in trick:
        if c >> 3 == suit and TRUMP_STRENGTH[c & 7] > best_strength:
            best, best_strength = c, TRUMP_STRENGTH[c & 7]
    return best


def _excused(trick: Sequence[int], strain: int, ruleset: Ruleset) -> bool:
    """Void in the (plain) led suit: is the seat excused from trumping by its partner?"""
    n = len(trick)
    if ruleset.players != 4 or n < 2:
        return False
    rule = ruleset.partner_exception
    if rule is PartnerException.PARTNER_WINNING:
        return winning_index(trick, strain) == n - 2
    if rule is PartnerException.PARTNER_LED:
        # 004: "но если партнёр начал взятку, тогда это совсем не обязательно": the
        # partner is two seats before; only the third seat's partner can have led.
        return n == 2
    return False


def _must_beat(trick: Sequence[int], strain: int, ruleset: Ruleset, excused: bool) -> int:
    """The trump a seat void in the led suit must beat if it can, or -1.

    Where a ruff must be overtrumped (``overtrump_a_ruff``), the highest trump in the
    trick. A seat excused by a winning partner (001: "когда выигрывает партнёр, можно
    сбросить любую карту") need not; a seat whose partner led still must (004: "если у
    него нет карты такой же масти, и кто-то уже бил до него, то он обязан играть старшим
    козырем": someone, the partner too), though, if it cannot, it may play any card."""
    if not ruleset.overtrump_a_ruff:
        return -1
    if excused and ruleset.partner_exception is not PartnerException.PARTNER_LED:
        return -1
    return _best_of_suit(trick, strain)


def playable(hand: Mask, trick: Sequence[int], strain: int, ruleset: Ruleset) -> Mask:
    """The cards of ``hand`` the seat to play may play to ``trick``.

    Never empty for a non-empty hand: with no card a duty asks for, any card goes.
    """
    if not trick:
        return hand
    led = trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    if strain >= NO_TRUMPS:
        return follow or hand
    if strain == ALL_TRUMPS or led == strain:
        # Every led card is a trump: follow, and go higher if able.
        if follow and ruleset.raise_when_trump_led:
            return (follow & TRUMP_ABOVE[_best_of_suit(trick, led)]) or follow
        return follow or hand
    if follow:
        return follow
    trumps = hand & SUIT_MASKS[strain]
    if not trumps:
        return hand
    excused = _excused(trick, strain, ruleset)
    best = _must_beat(trick, strain, ruleset, excused)
    if best >= 0 and trumps & TRUMP_ABOVE[best]:
        return trumps & TRUMP_ABOVE[best]
    # Unable to beat it: an excused seat plays anything; otherwise a lower trump is due.
    return hand if excused else trumps


def implied_absent(trick: Sequence[int], card: Card, strain: int, ruleset: Ruleset) -> Mask:
    """Cards the seat cannot have held when it played ``card`` to ``trick``.

    The inverse of :func:`playable`, for void inference: had the seat held any of these,
    ``card`` would not have been legal.
    """
    if not trick:
        return 0
    led = trick[0] >> 3
    suit = card >> 3
    if strain >= NO_TRUMPS:
        return 0 if suit == led else SUIT_MASKS[led]
    if strain == ALL_TRUMPS or led == strain:
        if suit != led:
            return SUIT_MASKS[led]
        if ruleset.raise_when_trump_led:
            above = TRUMP_ABOVE[_best_of_suit(trick, led)]
            if not (1 << card) & above:
                return above
        return 0
    if suit == led:
        return 0
    absent = SUIT_MASKS[led]
    excused = _excused(trick, strain, ruleset)
    best = _must_beat(trick, strain, ruleset, excused)
    if best >= 0 and not (1 << card) & TRUMP_ABOVE[best]:
        absent |= TRUMP_ABOVE[best]  # a higher trump would have been due
    if excused or suit == strain:
        return absent
    return absent | SUIT_MASKS[strain]


def trick_points(trick: Sequence[int], strain: int) -> int:
    points = CARD_POINTS[strain]
    return sum(points[c] for c in trick)


_SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
_SUIT_LETTERS: Final = "CDHS"


@dataclass(frozen=True, slots=True)
class BrokenRule:
    """Why a card outside :func:`playable` may not be played, as facts a client can say
    in its player's language: the card, the rule (``follow``: follow ``suit``;
    ``overtrump``: play a higher trump when you can; ``trump``: with no ``suit`` you must
    trump; ``beat_trump``: beat the trump already played when you can), the suit led
    (a letter of CDHS, or None) and the cards allowed."""

    card: str
    rule: str
    suit: str | None
    allowed: tuple[str, ...]

    def words(self) -> str:
        """The rule in plain (English) words, as the API's message says it."""
        suit = _SUIT_NAMES[_SUIT_LETTERS.index(self.suit)] if self.suit else ""
        rule = {
            "follow": f"you must follow {suit}",
            "overtrump": "you must play a higher trump when you can",
            "trump": f"with no {suit} you must trump",
            "beat_trump": "you must beat the trump already played when you can",
        }[self.rule]
        return f"{self.card} may not be played: {rule} (allowed: {' '.join(self.allowed)})"

    def details(self) -> dict[str, object]:
        """The facts as a refusal's ``details``."""
        allowed = list(self.allowed)
        return {"card": self.card, "rule": self.rule, "suit": self.suit, "allowed": allowed}


def broken_rule(
    hand: Mask, trick: Sequence[int], strain: int, ruleset: Ruleset, card: Card
) -> BrokenRule:
    """The rule a card outside :func:`playable` breaks."""
    allowed = playable(hand, trick, strain, ruleset)
    led = trick[0] >> 3 if trick else -1
    codes = tuple(to_code(c) for c in range(32) if allowed >> c & 1)
    if led >= 0 and hand & SUIT_MASKS[led] and card >> 3 != led:
        rule = "follow"
    elif led >= 0 and allowed & SUIT_MASKS[led] and card >> 3 == led:
        rule = "overtrump"
    elif strain <= 3 and allowed & ~SUIT_MASKS[strain] == 0 and card >> 3 != strain:
        rule = "trump"
    else:
        rule = "beat_trump"
    suit = _SUIT_LETTERS[led] if led >= 0 else None
    return BrokenRule(to_code(card), rule, suit, codes)


def why_illegal(hand: Mask, trick: Sequence[int], strain: int, ruleset: Ruleset, card: Card) -> str:
    """The rule a card outside :func:`playable` breaks, in plain words."""
    return broken_rule(hand, trick, strain, ruleset, card).words()
