"""Helpers for the game tests: stacked decks written as card codes, and a table that
applies commands with decide/evolve and keeps the log."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from belot.cards import FULL_DECK, Card, mask_of, parse_card
from belot.commands import Bid, Command, PlayCard, SupplyDeck
from belot.deal import deal_pattern
from belot.events import Event
from belot.match import (
    DueKind,
    Match,
    decide,
    due,
    evolve,
    legal_moves,
    new_match,
    replay,
    started_event,
)
from belot.play import MISERE, playable, trick_points, winning_index
from belot.ruleset import Ruleset, Strain


def cards(text: str) -> tuple[Card, ...]:
    """``"JH 9H AH"`` -> cards."""
    return tuple(parse_card(c) for c in text.split())


def mask(text: str) -> int:
    return mask_of(cards(text))


def random_hands(
    rng: random.Random, rules: Ruleset, strain: int, size: int, played: int | None = None
) -> tuple[list[int], int, list[int]]:
    """Hands of ``size`` cards from a shuffled deck for every seat, a random leader, and
    ``played`` random legal cards of a trick led by it (None: a random count short of a
    whole trick), taken from their hands: ``(hands, leader, trick)``."""
    n = rules.players
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[s * size : (s + 1) * size]) for s in range(n)]
    leader = rng.randrange(n)
    trick: list[int] = []
    for i in range(rng.randrange(n) if played is None else played):
        seat = (leader + i) % n
        legal = playable(hands[seat], tuple(trick), strain, rules)
        card = rng.choice([c for c in range(32) if legal >> c & 1])
        hands[seat] &= ~(1 << card)
        trick.append(card)
    return hands, leader, trick


def stack(
    ruleset: Ruleset,
    dealer: int,
    first: Sequence[str],
    turned: str,
    completion: Sequence[str] | None = None,
    taker: int | None = None,
) -> tuple[Card, ...]:
    """A deck that deals ``first[seat]`` in the first distribution, turns ``turned``, and
    deals ``completion[seat]`` after bidding (the taker's without the turned card when it
    gets it). Unnamed positions take the remaining cards in ascending order."""
    pattern = deal_pattern(ruleset)
    n = ruleset.players
    deck: list[int | None] = [None] * ruleset.deck_size
    for seat in range(n):
        for i, c in zip(pattern.first[(seat - dealer) % n], cards(first[seat]), strict=False):
            deck[i] = c
    deck[pattern.turned] = parse_card(turned)
    if completion is not None:
        if taker is None:
            assert pattern.completion_without_taker is not None
            by_offset = pattern.completion_without_taker
        else:
            by_offset = pattern.completion[(taker - dealer) % n]
        for seat in range(n):
            indices = [i for i in by_offset[(seat - dealer) % n] if i != pattern.turned]
            for i, c in zip(indices, cards(completion[seat]), strict=False):
                deck[i] = c
    used = {c for c in deck if c is not None}
    assert len(used) == sum(c is not None for c in deck), "a card is stacked twice"
    rest = iter(c for c in range(ruleset.deck_size) if c not in used)
    return tuple(Card(c if c is not None else next(rest)) for c in deck)


class Table:
    """A match driven by commands, keeping the log; ``replay`` of the log must agree."""

    def __init__(self, ruleset: Ruleset, *, target: int | None = None, first_dealer: int = 0):
        self.ruleset = ruleset
        self.state: Match = new_match(ruleset, "test", target=target, first_dealer=first_dealer)
        self.log: list[Event] = [started_event(self.state)]

    def do(self, command: Command) -> list[Event]:
        events = decide(self.state, command)
        for e in events:
            self.state = evolve(self.state, e)
        self.log.extend(events)
        return events

    def deck(self, deck: Sequence[Card]) -> list[Event]:
        return self.do(SupplyDeck(self.state.deal_number, tuple(deck)))

    def bid(self, seat: int, strain: Strain | None = None) -> list[Event]:
        return self.do(Bid(seat, strain))

    def passes(self, *seats: int) -> None:
        for seat in seats:
            self.bid(seat)

    def play(self, seat: int, code: str, belote: bool = False) -> list[Event]:
        return self.do(PlayCard(seat, parse_card(code), belote))

    def hand(self, seat: int) -> int:
        assert self.state.deal is not None
        return self.state.deal.hands[seat]

    def play_out(self, rng: random.Random, *, decks: bool = True) -> None:
        """Random legal moves (random decks too) until the deal ends (or the match)."""
        start = self.state.deals_scored, self.state.deal_number
        while True:
            d = due(self.state)
            if d.kind is DueKind.NOTHING:
                return
            if d.kind is DueKind.DECK:
                if (self.state.deals_scored, self.state.deal_number) != start or not decks:
                    return
                deck = list(range(32))
                rng.shuffle(deck)
                self.deck([Card(c) for c in deck])
                continue
            self.do(rng.choice(legal_moves(self.state)))

    def check_replay(self) -> None:
        assert replay(self.ruleset, self.log) == self.state


def brute_force(
    rules: Ruleset,
    strain: int,
    hands: list[int],
    trick: list[int],
    leader: int,
    left: int,
    won: int,
    only: int | None = None,
) -> int:
    """Minimax over every legal card, no pruning: the value for the side to play of the
    points it takes from here minus the other side's (misère: the other way round),
    the last trick's 10 and capot included (see belot.bots.solver). ``only``: the value of
    that card alone for the seat to play (it must be legal)."""
    n = rules.players
    seat = (leader + len(trick)) % n
    legal = playable(hands[seat], tuple(trick), strain, rules)
    best = -(10**9)
    for c in range(32) if only is None else (only,):
        if not legal >> c & 1:
            continue
        after = list(hands)
        after[seat] &= ~(1 << c)
        played = [*trick, c]
        if len(played) < n:
            v = -brute_force(rules, strain, after, played, leader, left, won)
        else:
            winner = (leader + winning_index(played, strain)) % n
            p = trick_points(played, strain) + (10 if left == 1 else 0)
            won2 = won | 1 << (winner & 1)
            if strain == MISERE:
                p = -p
            elif left == 1 and won2 != 3:
                p += rules.capot_bonus
            if left > 1:
                p += brute_force(rules, strain, after, [], winner, left - 1, won2)
            v = p if winner & 1 == seat & 1 else -p
        best = max(best, v)
    return best


def play_cards(table: Table, rng: random.Random, card_of: Callable[[int], Card | None]) -> Table:
    """Play ``table``'s match to its end on shuffled decks: when a card is due, the card
    ``card_of(seat)`` names (it must be legal), and a random legal move otherwise (or
    when it names none)."""
    while (d := due(table.state)).kind is not DueKind.NOTHING:
        if d.kind is DueKind.DECK:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            table.deck(deck)
            continue
        moves = legal_moves(table.state)
        card = card_of(d.seat) if d.kind is DueKind.CARD and d.seat is not None else None
        if card is None:
            table.do(rng.choice(moves))
        else:
            table.do(next(m for m in moves if isinstance(m, PlayCard) and m.card == card))
    return table
