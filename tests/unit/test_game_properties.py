"""Properties over random legal playouts of every ruleset (hypothesis).

Each example plays a whole match with random legal moves on random decks and checks:
the match ends; a move is always available when one is due; no card is dealt or played
twice; the card points of a deal (last trick included) are the deal's total; replaying
the log (also through its JSON form) rebuilds an equal state; and every command outside
``legal_moves`` is refused.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from belot.cards import FULL_DECK, SUIT_MASKS, Card, cards_in, mask_of
from belot.codec import from_payload, to_payload
from belot.commands import Bid, PlayCard
from belot.errors import RulesError
from belot.events import (
    CardPlayed,
    CardsDealt,
    ContractTaken,
    DealAbandoned,
    DealScored,
    DeckSupplied,
    MatchEnded,
    MisereStarted,
    TrickTaken,
    TrumpSevenSwapped,
)
from belot.match import DueKind, decide, due, legal_moves, replay
from belot.play import CARD_POINTS, implied_absent, playable
from belot.ruleset import RULESETS, Strain
from tests.unit.game_support import Table

#: A whole match of random play is ~10-60 deals; the cap only catches a loop.
MAX_STEPS = 20_000
NAMES = sorted(RULESETS)


def random_match(name: str, seed: int, target: int | None, pass_bias: float = 0.0) -> Table:
    """Random legal moves; with ``pass_bias`` a seat passes that often when it may, so
    that redeals and misère come up."""
    rng = random.Random(seed)
    table = Table(RULESETS[name], target=target, first_dealer=seed % RULESETS[name].players)
    for _ in range(MAX_STEPS):
        d = due(table.state)
        if d.kind is DueKind.NOTHING:
            return table
        if d.kind is DueKind.DECK:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            table.deck(deck)
            continue
        moves = legal_moves(table.state)
        assert moves, f"a {d.kind.value} is due from seat {d.seat} but no move is legal"
        assert all(getattr(m, "seat", d.seat) == d.seat for m in moves)
        # Every card the seat holds outside the legal set is refused.
        deal = table.state.deal
        assert deal is not None
        if d.kind is DueKind.CARD:
            legal = {m.card for m in moves if isinstance(m, PlayCard)}
            for card in cards_in(deal.hands[d.seat]):
                if card not in legal:
                    with pytest.raises(RulesError):
                        decide(table.state, PlayCard(d.seat, card))
        passes = [m for m in moves if isinstance(m, Bid) and m.strain is None]
        if passes and rng.random() < pass_bias:
            table.do(passes[0])
        else:
            table.do(rng.choice(moves))
    raise AssertionError("the match did not end")


def check_deals(table: Table) -> None:
    """No card twice; card points add up; each played card came from its seat's hand."""
    ruleset = table.ruleset
    dealt: dict[int, int] = {}
    played = 0
    strain = -1
    trick_points = 0
    for e in table.log:
        if isinstance(e, DeckSupplied):
            assert sorted(e.cards) == list(range(32))
            dealt, played, strain, trick_points = {}, 0, -1, 0
        elif isinstance(e, CardsDealt):
            m = mask_of(e.cards)
            assert all(m & other == 0 for other in dealt.values()), "a card dealt twice"
            dealt[e.seat] = dealt.get(e.seat, 0) | m
        elif isinstance(e, TrumpSevenSwapped):
            dealt[e.seat] = dealt[e.seat] & ~(1 << e.seven) | (1 << e.taken)
        elif isinstance(e, ContractTaken):
            strain = int(e.strain)
        elif isinstance(e, MisereStarted):
            strain = int(Strain.MISERE)
        elif isinstance(e, CardPlayed):
            assert not played >> e.card & 1, "a card played twice"
            assert dealt[e.seat] >> e.card & 1, "a card played by a seat that was not dealt it"
            played |= 1 << e.card
        elif isinstance(e, TrickTaken):
            trick_points += e.points
        elif isinstance(e, DealScored):
            in_play = sum(CARD_POINTS[strain][c] for c in cards_in(played))
            assert trick_points == in_play + 10
            assert played.bit_count() == ruleset.players * ruleset.hand_size
            if ruleset.players == 4:
                expected = {int(Strain.ALL_TRUMPS): 258, int(Strain.NO_TRUMPS): 130}
                assert trick_points == expected.get(strain, 162)
        elif isinstance(e, DealAbandoned):
            dealt, played = {}, 0


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    target=st.sampled_from([None, 300, 1]),
    pass_bias=st.sampled_from([0.0, 0.9]),
)
def test_random_legal_matches_end_and_keep_the_invariants(
    name: str, seed: int, target: int | None, pass_bias: float
) -> None:
    table = random_match(name, seed, target, pass_bias)
    ended = table.log[-1]
    assert isinstance(ended, MatchEnded)
    assert table.state.result is not None
    check_deals(table)
    # Replaying the events rebuilds an equal state, also through their JSON form.
    assert replay(table.ruleset, table.log) == table.state
    decoded = [from_payload(json.loads(json.dumps(to_payload(e)))) for e in table.log]
    assert decoded == table.log
    assert replay(table.ruleset, decoded) == table.state
    if table.state.result.winner is not None:
        scores = ended.scores
        assert scores[table.state.result.winner] >= table.state.target


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_implied_absent_is_sound(name: str, data: st.DataObject) -> None:
    """Whatever card a hand plays, the inference never rules out a card the hand held."""
    ruleset = RULESETS[name]
    deck = data.draw(st.permutations(range(32)))
    strain = data.draw(st.sampled_from(range(7)))
    n = ruleset.players
    trick_len = data.draw(st.integers(0, n - 1))
    trick = tuple(Card(c) for c in deck[:trick_len])
    hand = mask_of([Card(c) for c in deck[trick_len : trick_len + 8]])
    allowed = playable(hand, trick, strain, ruleset)
    assert allowed and allowed & ~hand == 0
    for card in cards_in(allowed):
        assert implied_absent(trick, card, strain, ruleset) & hand == 0
    # A seat with cards of the led suit always follows.
    if trick and hand & SUIT_MASKS[trick[0] >> 3]:
        assert allowed & ~SUIT_MASKS[trick[0] >> 3] == 0
