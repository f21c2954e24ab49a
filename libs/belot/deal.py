"""The deal pattern: which deck index goes to which seat.

Published per ruleset so that a verifier can map a deck (``fairdeal``'s, top card at
index 0) to each seat's cards. Seats are named by their offset from the dealer: offset 1
is the seat to the dealer's left (the non-dealer at two players), offset 0 the dealer.

Every ruleset deals its first distribution in packets going round the table from
offset 1, then turns up the next card. After bidding the dealer carries on from the
next index: the completion goes round from offset 1 (or from the taker, french), each
seat receiving ``completion_packet`` cards, the taker one fewer plus the turned card
when the ruleset gives it the turned card. Gambler's deck then shows its bottom card.

For the 4-player presets (packets 3 then 2)::

    first:      offset 1: 0 1 2  12 13    offset 2: 3 4 5  14 15
                offset 3: 6 7 8  16 17    offset 0: 9 10 11 18 19
    turned:     20
    completion: from 21, three each, the taker two and the turned card

For gambler (packets 3 then 3, two seats)::

    first:      non-dealer: 0 1 2  6 7 8    dealer: 3 4 5  9 10 11
    turned:     12 (stays on the table)
    completion: non-dealer 13 14 15, dealer 16 17 18; bottom card 31 shown
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from belot.cards import Card
from belot.ruleset import AllPass, CompletionStart, NextDealer, Ruleset

Indices = tuple[int, ...]


@dataclass(frozen=True)
class DealPattern:
    """Deck indices per seat offset from the dealer (0 = dealer, 1 = its left, ...)."""

    players: int
    deck_size: int
    #: ``first[offset]``: the indices of the first distribution, in dealing order.
    first: tuple[Indices, ...]
    #: The index of the card turned up for bidding.
    turned: int
    #: ``completion[taker_offset][offset]``: the indices dealt after bidding when the
    #: seat at ``taker_offset`` took; the taker's include ``turned`` when it gets it.
    completion: tuple[tuple[Indices, ...], ...]
    #: The completion when nobody took (gambler's misère), else ``None``.
    completion_without_taker: tuple[Indices, ...] | None
    #: The index of the card shown after the completion (gambler's bottom card).
    shown: int | None
    #: Who deals first (:func:`first_dealer`): ``None``, seat 0; an index ``i``, the
    #: number of deal 0's card ``i`` (suit * 8 + rank) modulo the number of players.
    first_dealer_from: int | None = None

    def to_payload(self) -> dict[str, object]:
        """A JSON-able form for verifiers: lists of indices, keys as documented above."""
        return {
            "players": self.players,
            "deck_size": self.deck_size,
            "first": [list(i) for i in self.first],
            "turned": self.turned,
            "completion": [[list(i) for i in by_taker] for by_taker in self.completion],
            "completion_without_taker": (
                None
                if self.completion_without_taker is None
                else [list(i) for i in self.completion_without_taker]
            ),
            "shown": self.shown,
            "first_dealer_from": self.first_dealer_from,
        }


def _round_order(players: int, start: int) -> list[int]:
    return [(start + i) % players for i in range(players)]


def _completion(
    ruleset: Ruleset, start_index: int, taker: int | None, turned: int
) -> tuple[Indices, ...]:
    n = ruleset.players
    start = (
        1 if taker is None or ruleset.completion_start is CompletionStart.LEFT_OF_DEALER else taker
    )
    hands: list[list[int]] = [[] for _ in range(n)]
    i = start_index
    for offset in _round_order(n, start):
        count = ruleset.completion_packet
        if offset == taker and ruleset.taker_gets_turned:
            hands[offset].append(turned)
            count -= 1
        hands[offset].extend(range(i, i + count))
        i += count
    return tuple(tuple(h) for h in hands)


#: Patterns by ruleset identity: hashing a Ruleset (a frozenset inside) on every deal
#: would cost more than dealing.
_PATTERNS: dict[int, tuple[Ruleset, DealPattern]] = {}


def deal_pattern(ruleset: Ruleset) -> DealPattern:
    """The published pattern of ``ruleset`` (see the module docstring)."""
    hit = _PATTERNS.get(id(ruleset))
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    pattern = _build_pattern(ruleset)
    _PATTERNS[id(ruleset)] = (ruleset, pattern)
    return pattern


def _build_pattern(ruleset: Ruleset) -> DealPattern:
    n = ruleset.players
    first: list[list[int]] = [[] for _ in range(n)]
    i = 0
    for packet in ruleset.first_packets:
        for offset in _round_order(n, 1):
            first[offset].extend(range(i, i + packet))
            i += packet
    turned = i
    completion = tuple(_completion(ruleset, turned + 1, t, turned) for t in range(n))
    return DealPattern(
        players=n,
        deck_size=ruleset.deck_size,
        first=tuple(tuple(h) for h in first),
        turned=turned,
        completion=completion,
        # Only a ruleset that plays misère deals after four passes; for the others a
        # completion without a taker does not exist (and would run past the deck's end).
        completion_without_taker=(
            _completion(ruleset, turned + 1, None, turned)
            if ruleset.all_pass is AllPass.MISERE
            else None
        ),
        shown=ruleset.deck_size - 1 if ruleset.shows_bottom_card else None,
        first_dealer_from=(
            ruleset.deck_size - 1 if ruleset.next_dealer is NextDealer.DEAL_WINNER else None
        ),
    )


def first_dealer(ruleset: Ruleset, deck: Sequence[Card]) -> int:
    """Who deals the first deal, a rule anyone can recompute from the record.

    Gambler's first dealer is random (docs/specification.md §2), and the rulesets whose
    deal passes to the last deal's winner draw it: from deal 0's deck, which the fair-deal
    recipe makes from the committed server seed, the seats' seeds and drand's value, so the server
    cannot choose the dealer without choosing the deck. The rule: the bottom card's
    number (suit * 8 + rank: clubs..spades, 7..ace) modulo the number of players. The
    four-player rulesets always start with seat 0 dealing: their seeds name no draw, and
    a fixed seat leaves nobody a choice to make once the cards are known.
    """
    index = deal_pattern(ruleset).first_dealer_from
    if index is None:
        return 0
    return int(deck[index]) % ruleset.players


def seat_cards(
    indices_by_offset: tuple[Indices, ...], deck: Sequence[Card], dealer: int
) -> tuple[tuple[Card, ...], ...]:
    """Map per-offset indices to per-seat cards: ``result[seat]`` in dealing order."""
    n = len(indices_by_offset)
    return tuple(
        tuple(deck[i] for i in indices_by_offset[(seat - dealer) % n]) for seat in range(n)
    )


def first_hands(
    ruleset: Ruleset, deck: Sequence[Card], dealer: int
) -> tuple[tuple[Card, ...], ...]:
    """The cards each seat gets in the first distribution, by seat."""
    return seat_cards(deal_pattern(ruleset).first, deck, dealer)


def completion_hands(
    ruleset: Ruleset, deck: Sequence[Card], dealer: int, taker: int | None
) -> tuple[tuple[Card, ...], ...]:
    """The cards each seat gets after bidding, by seat (``taker`` None: nobody took)."""
    pattern = deal_pattern(ruleset)
    if taker is None:
        assert pattern.completion_without_taker is not None
        by_offset = pattern.completion_without_taker
    else:
        by_offset = pattern.completion[(taker - dealer) % ruleset.players]
    return seat_cards(by_offset, deck, dealer)
