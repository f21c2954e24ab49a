"""The published deal pattern, the codec, errors, and what a seat's view shows."""

from __future__ import annotations

import json
import random

import pytest

from belot import RULESETS, deal_pattern, first_dealer, new_match, view
from belot.cards import FULL_DECK, Card, cards_in, mask_of
from belot.codec import (
    CodecError,
    command_from_payload,
    command_to_payload,
    from_payload,
    to_payload,
)
from belot.commands import Bid, DeclareMelds, DemandRedeal, PlayCard, SupplyDeck, SwapTrumpSeven
from belot.deal import completion_hands, first_hands
from belot.errors import MatchOver, NotExpected, RulesError, UnknownSeat, WrongDeck
from belot.events import CardsDealt, DeckSupplied, Visibility
from belot.match import Phase, decide, evolve, legal_moves, replay, started_event
from belot.ruleset import Strain
from belot.salts import COMPLETION, DECK, FIRST, SALT_SIZE, salt_count, salt_index
from fairdeal import DeckInputs, Shuffler
from tests.unit.game_support import Table

NAMES = sorted(RULESETS)


@pytest.mark.parametrize("name", NAMES)
def test_the_pattern_deals_each_index_once(name: str) -> None:
    ruleset = RULESETS[name]
    p = deal_pattern(ruleset)
    for taker in range(ruleset.players):
        indices = [i for h in p.first for i in h] + [i for h in p.completion[taker] for i in h]
        if not ruleset.taker_gets_turned:
            assert p.turned not in indices
        assert len(indices) == len(set(indices)) == ruleset.players * ruleset.hand_size
        assert all(len(h) == ruleset.hand_size - len(p.first[0]) for h in p.completion[taker])
    json.dumps(p.to_payload())


def test_the_published_patterns() -> None:
    club = deal_pattern(RULESETS["club"])
    assert club.first == (
        (9, 10, 11, 18, 19),
        (0, 1, 2, 12, 13),
        (3, 4, 5, 14, 15),
        (6, 7, 8, 16, 17),
    )
    assert club.turned == 20
    assert club.completion[1] == ((29, 30, 31), (20, 21, 22), (23, 24, 25), (26, 27, 28))
    assert deal_pattern(RULESETS["french"]).completion[2] == (
        (26, 27, 28),
        (29, 30, 31),
        (20, 21, 22),
        (23, 24, 25),
    )
    gambler = deal_pattern(RULESETS["gambler"])
    assert gambler.first == ((3, 4, 5, 9, 10, 11), (0, 1, 2, 6, 7, 8))
    assert (gambler.turned, gambler.shown) == (12, 31)
    assert gambler.completion_without_taker == ((16, 17, 18), (13, 14, 15))


@pytest.mark.parametrize("name", NAMES)
def test_every_published_index_is_in_the_deck(name: str) -> None:
    # A completion without a taker exists only where four passes start a misère; the
    # published pattern must not name cards past the deck's end.
    pattern = deal_pattern(RULESETS[name])
    indices = [i for hand in pattern.first for i in hand] + [pattern.turned]
    for by_taker in pattern.completion:
        indices += [i for hand in by_taker for i in hand]
    if pattern.completion_without_taker is not None:
        indices += [i for hand in pattern.completion_without_taker for i in hand]
    assert all(0 <= i < pattern.deck_size for i in indices)
    assert (pattern.completion_without_taker is not None) == (name == "gambler")


@pytest.mark.parametrize("name", NAMES)
def test_a_verifier_maps_a_fairdeal_deck_to_the_seats_cards(name: str) -> None:
    ruleset = RULESETS[name]
    deck = Shuffler(DeckInputs(bytes(32), (b"",) * ruleset.players, None)).deck(0)
    table = Table(ruleset, first_dealer=1)
    table.deck(deck)
    table.bid(table.state.deal.turn, Strain(deck[deal_pattern(ruleset).turned] >> 3))  # type: ignore[union-attr]
    taker = table.state.deal.taker  # type: ignore[union-attr]
    dealt = {s: 0 for s in range(ruleset.players)}
    for e in table.log:
        if isinstance(e, CardsDealt):
            dealt[e.seat] |= mask_of(e.cards)
    first = first_hands(ruleset, deck, 1)
    rest = completion_hands(ruleset, deck, 1, taker)
    for seat in range(ruleset.players):
        assert dealt[seat] == mask_of(first[seat] + rest[seat])


def test_every_event_and_command_round_trips_through_json() -> None:
    rng = random.Random(0)
    for name in NAMES:
        table = Table(RULESETS[name])
        table.play_out(rng)
        for e in table.log:
            payload = to_payload(e)
            assert payload["type"] == e.TYPE and payload["schema"] == 1
            assert from_payload(json.loads(json.dumps(payload))) == e
    for cmd in (
        SupplyDeck(3, FULL_DECK),
        SupplyDeck(3, FULL_DECK, (bytes(16),) * 9),
        Bid(1, None),
        Bid(0, Strain.ALL_TRUMPS),
        PlayCard(2, Card(31), True),
        DeclareMelds(0),
        SwapTrumpSeven(1),
        DemandRedeal(1),
    ):
        assert command_from_payload(json.loads(json.dumps(command_to_payload(cmd)))) == cmd
    salt = bytes(range(16))
    assert to_payload(CardsDealt(2, (Card(0), Card(31)), salt)) == {
        "type": "CardsDealt",
        "schema": 1,
        "seat": 2,
        "cards": ["7C", "AS"],
        "salt": "000102030405060708090a0b0c0d0e0f",
    }
    # A payload written before salts (every match then) reads as an empty salt.
    old = {"type": "CardsDealt", "schema": 1, "seat": 2, "cards": ["7C", "AS"]}
    assert from_payload(old) == CardsDealt(2, (Card(0), Card(31)), b"")
    for bad in ("0G", "ABCD", "abc", 12):  # only the writer's form: lower-case hex
        with pytest.raises(CodecError):
            from_payload({**old, "salt": bad})


def test_codec_refuses_unknown_types_and_schemas() -> None:
    with pytest.raises(CodecError):
        from_payload({"type": "Nope", "schema": 1})
    with pytest.raises(CodecError):
        from_payload({"type": "CardPlayed", "schema": 2, "seat": 0, "card": "AS"})
    with pytest.raises(CodecError):
        from_payload({"type": "CardPlayed", "schema": 1, "seat": 0, "card": "XX"})
    with pytest.raises(CodecError):
        command_from_payload({"type": "PlayCard", "seat": "one", "card": "AS"})


def test_visibility_of_deals() -> None:
    assert DeckSupplied.VISIBILITY is Visibility.SECRET
    dealt = CardsDealt(2, (Card(0),))
    assert dealt.visible_to(2) and not dealt.visible_to(1) and not dealt.visible_to(None)
    assert not DeckSupplied(0, FULL_DECK).visible_to(0)


def test_error_codes_are_stable_snake_case_and_distinct() -> None:
    codes = [cls.code for cls in _subclasses(RulesError)]
    assert len(codes) == len(set(codes))
    assert all(c.replace("_", "").isalpha() and c.islower() for c in codes)


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def test_decks_are_checked() -> None:
    state = new_match(RULESETS["classic"])
    with pytest.raises(WrongDeck):
        decide(state, SupplyDeck(1, FULL_DECK))
    with pytest.raises(WrongDeck):
        decide(state, SupplyDeck(0, (*FULL_DECK[:-1], Card(0))))
    with pytest.raises(NotExpected):
        decide(state, Bid(1, None))
    with pytest.raises(UnknownSeat):
        new_match(RULESETS["gambler"], first_dealer=2)


def test_nothing_is_accepted_after_the_match() -> None:
    table = Table(RULESETS["classic"], target=1)
    table.play_out(random.Random(1))
    while table.state.phase is not Phase.OVER:
        table.play_out(random.Random(2))
    with pytest.raises(MatchOver):
        decide(table.state, SupplyDeck(table.state.deal_number, FULL_DECK))


@pytest.mark.parametrize("name", NAMES)
def test_a_view_shows_only_the_seats_own_cards(name: str) -> None:
    """Two deals that differ only in the other seats' hidden cards give equal views."""
    ruleset = RULESETS[name]
    rng = random.Random(5)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    a = Table(ruleset)
    a.deck(deck)
    # Swap two cards between two other seats' first distributions.
    p = deal_pattern(ruleset)
    seat = 0
    others = [(s - a.state.dealer) % ruleset.players for s in range(ruleset.players) if s != seat]
    i, j = p.first[others[0]][0], p.first[others[-1]][0]
    deck2 = list(deck)
    deck2[i], deck2[j] = deck2[j], deck2[i]
    b = Table(ruleset)
    b.deck(deck2)
    assert view(a.state, seat) == view(b.state, seat)
    assert view(a.state, seat).hand == cards_in(a.hand(seat))
    own = view(a.state, a.state.deal.turn)  # type: ignore[union-attr]
    assert own.legal and own.is_my_turn
    assert not view(a.state, (a.state.deal.turn + 1) % ruleset.players).legal  # type: ignore[union-attr]


def test_a_view_has_no_path_to_the_state() -> None:
    fields = set(view(new_match(RULESETS["club"]), 0).__dataclass_fields__)
    assert not fields & {"deal", "deck", "hands", "state"}


# Who deals first: a rule anyone can recompute from the record, so that the server, which
# knows deal 0's deck before the match starts, has no dealer to choose (docs/specification.md §2:
# gambler's first dealer is random; the four-player seeds name no draw).
@pytest.mark.parametrize(
    ("ruleset", "rule"),
    [
        ("club", "seat 0 always deals first"),
        ("classic", "seat 0 always deals first"),
        ("french", "seat 0 always deals first"),
        ("gambler", "the bottom card's number modulo 2"),
    ],
)
def test_the_first_dealer_follows_the_published_rule(ruleset: str, rule: str) -> None:
    rules = RULESETS[ruleset]
    decks = [
        Shuffler(DeckInputs(bytes([i]) * 32, (b"",) * rules.players, None)).deck(0, rules.deck_size)
        for i in range(24)
    ]
    dealers = [first_dealer(rules, d) for d in decks]
    index = deal_pattern(rules).first_dealer_from
    if rule.startswith("seat 0"):
        assert index is None and set(dealers) == {0}
    else:
        assert index == rules.deck_size - 1
        assert dealers == [int(d[-1]) % rules.players for d in decks]
        assert set(dealers) == {0, 1}, "the draw gives either seat the deal"
    assert deal_pattern(rules).to_payload()["first_dealer_from"] == index


@pytest.mark.parametrize("name", NAMES)
def test_each_hidden_event_carries_its_own_salt(name: str) -> None:
    """docs/threat-model.md, "Hidden cards stay hidden": the deck's event carries every
    salt of its deal, each seat's cards the salt belot.salts gives them, first
    distribution and completion apart, and a new owner replaying the log deals the
    completion with the same salts."""
    ruleset = RULESETS[name]
    n = ruleset.players
    rng = random.Random(11)
    deck = list(FULL_DECK[: ruleset.deck_size])
    rng.shuffle(deck)
    salts = tuple(bytes([i]) * SALT_SIZE for i in range(salt_count(n)))
    state = new_match(ruleset)
    events = decide(state, SupplyDeck(0, tuple(deck), salts))
    for e in events:
        state = evolve(state, e)
    assert [e.salts for e in events if isinstance(e, DeckSupplied)] == [salts]
    first = {e.seat: e.salt for e in events if isinstance(e, CardsDealt)}
    assert first == {s: salts[salt_index(n, s, FIRST)] for s in range(n)}
    # The first seat able to take takes: then check its salts, on the replayed state too.
    replayed = replay(ruleset, [started_event(new_match(ruleset)), *events])
    completion: dict[int, bytes] = {}
    while not completion:
        moves = legal_moves(state)
        move = next((m for m in moves if getattr(m, "strain", None) is not None), moves[0])
        out = decide(state, move)
        assert decide(replayed, move) == out
        for e in out:
            state, replayed = evolve(state, e), evolve(replayed, e)
        completion = {e.seat: e.salt for e in out if isinstance(e, CardsDealt)}
    assert completion == {s: salts[salt_index(n, s, COMPLETION)] for s in range(n)}
    assert len({*first.values(), *completion.values(), salts[DECK]}) == salt_count(n)


def test_a_deal_takes_all_its_salts_or_none() -> None:
    state = new_match(RULESETS["club"])
    good = tuple(bytes([i]) * SALT_SIZE for i in range(salt_count(4)))
    for bad in (good[:-1], (*good, bytes(16)), (*good[:-1], bytes(15))):
        with pytest.raises(WrongDeck):
            decide(state, SupplyDeck(0, FULL_DECK, bad))
    unsalted = decide(state, SupplyDeck(0, FULL_DECK))  # a match from before salts
    assert all(e.salt == b"" for e in unsalted if isinstance(e, CardsDealt))
