"""Bots (docs/specification.md §4): they only ever see a seat's view, always answer with a legal
move, are deterministic for a seeded generator, and play their level's rules."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from belot import RULESETS, view
from belot.bots import LEVELS, choose, easy, medium
from belot.bots.knowledge import knowledge, sample_hands
from belot.cards import FULL_DECK, SUIT_MASKS, Card, mask_of, parse_card
from belot.commands import PlayCard
from belot.match import DueKind, due
from belot.ruleset import Strain
from belot.view import SeatView
from tests.unit.game_support import Table, stack

BOTS = Path(__file__).resolve().parents[2] / "libs/belot/bots"


#: What a bot may import from the game: cards, commands, rules on cards and the view.
#: Not the state or what builds it (state, match, deal, decide, evolve, legal, codec).
BOT_MAY_IMPORT = {
    "belot.cards", "belot.commands", "belot.melds", "belot.play", "belot.ruleset",
    "belot.scoring", "belot.seats", "belot.view",
}  # fmt: skip


def bot_imports(source: str) -> set[str]:
    """The game modules a bot's source imports (``belot.bots.*`` aside)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("belot") and not m.startswith("belot.bots")}


def test_bots_never_import_the_match_state() -> None:
    """By construction a bot gets a SeatView: the bots package cannot reach the state."""
    for path in BOTS.glob("*.py"):
        assert bot_imports(path.read_text(encoding="utf-8")) <= BOT_MAY_IMPORT, path.name
    # The check can fail: each way of reaching the state is caught.
    for reach in ("from belot.state import State", "import belot.evolve", "from belot import x"):
        assert not bot_imports(reach) <= BOT_MAY_IMPORT, reach
    fields = set(SeatView.__dataclass_fields__)
    assert "hand" in fields and not fields & {"deal", "deck", "hands", "state"}


def a_card_choice(name: str, seed: int) -> SeatView:
    """The first view, in a medium bots' match, with more than one card to choose from."""
    table = Table(RULESETS[name])
    for v in bot_turns(table, ["medium"] * table.state.ruleset.players, seed):
        if len({m.card for m in v.legal if isinstance(m, PlayCard)}) > 1:
            return v
    raise AssertionError("no card choice in the match")


def test_a_hard_bot_out_of_time_plays_its_best_card_so_far() -> None:
    """The time budget: asked after each sampled deal past the minimum, and obeyed."""
    v = a_card_choice("classic", seed=5)
    asked: list[int] = []

    def out_of_time() -> bool:
        asked.append(1)
        return True

    command = choose(v, random.Random(1), "hard", 160, out_of_time)
    assert command in v.legal and isinstance(command, PlayCard)
    assert len(asked) == 1  # stopped at the first question, after MIN_SAMPLES deals
    never: list[int] = []

    def in_time() -> bool:
        never.append(1)
        return False

    patient = choose(v, random.Random(1), "hard", 640, in_time)
    assert len(never) > 1  # asked after every deal past the minimum
    assert patient == choose(v, random.Random(1), "hard", 640)  # never out of time: the same


def bot_turns(table: Table, levels: list[str], seed: int) -> Iterator[SeatView]:
    """Play the table's match with bots of ``levels`` (shuffled decks), yielding each
    seat's view before its bot moves; every move must be one of the view's legal ones."""
    rng = random.Random(seed)
    while True:
        d = due(table.state)
        if d.kind is DueKind.NOTHING:
            return
        if d.kind is DueKind.DECK:
            deck = list(FULL_DECK)
            rng.shuffle(deck)
            table.deck(deck)
            continue
        assert d.seat is not None
        v = view(table.state, d.seat)
        yield v
        command = choose(v, rng, levels[d.seat], 12)
        assert command in v.legal
        table.do(command)


def bot_match(name: str, levels: list[str], seed: int, target: int = 200) -> Table:
    table = Table(RULESETS[name], target=target)
    for _ in bot_turns(table, levels, seed):
        pass
    return table


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_finishes_matches_with_legal_moves(name: str, level: str) -> None:
    n = RULESETS[name].players
    table = bot_match(name, [level] * n, seed=len(name))
    assert table.state.result is not None
    table.check_replay()


def test_bots_are_deterministic_for_a_seed() -> None:
    a = bot_match("club", ["hard", "medium", "easy", "hard"], seed=3)
    b = bot_match("club", ["hard", "medium", "easy", "hard"], seed=3)
    assert a.log == b.log


def _view_after(
    name: str,
    first: list[str],
    turned: str,
    plays: list[tuple[int, str]],
    taker: int,
    completion: list[str] | None = None,
) -> SeatView:
    ruleset = RULESETS[name]
    table = Table(ruleset)
    table.deck(stack(ruleset, 0, first, turned, completion, taker))
    strain = Strain(parse_card(turned) >> 3)
    for seat in range(1, taker):
        table.bid(seat)
    table.bid(taker, strain)
    for seat, code in plays:
        table.play(seat, code)
    seat = due(table.state).seat
    assert seat is not None
    return view(table.state, seat)


def test_easy_plays_the_lowest_legal_card() -> None:
    # Seat 1 took hearts and leads; easy leads its weakest plain card.
    v = _view_after("classic", ["", "AS 7S TC KD 9H", "", ""], "JH", [], taker=1)
    move = easy.choose(v, random.Random(0))
    assert isinstance(move, PlayCard)
    assert move.card == parse_card("7S") or (move.card < 32 and move.card >> 3 != 2)
    cards = [m.card for m in v.legal if isinstance(m, PlayCard)]
    assert easy.weakness(move.card, Strain.HEARTS) == min(
        easy.weakness(c, Strain.HEARTS) for c in cards
    )


def test_medium_supports_a_partner_who_holds_the_trick_last() -> None:
    # Seat 1 takes hearts and leads a spade; seat 2 wins it with the ace, seat 3 follows
    # low; seat 0, last, puts its ten on its partner's ace.
    first = ["TS 8C 9C 7D 8D", "7S 8S JC QC KC", "AS 9S QD KD AD", "QS KS 7C TC AC"]
    v = _view_after("classic", first, "JH", [(1, "7S"), (2, "AS"), (3, "QS")], taker=1)
    assert v.seat == 0
    move = medium.choose(v, random.Random(0))
    assert isinstance(move, PlayCard) and move.card == parse_card("TS")  # ten on the partner's ace


#: A whole deal, dealer 0, seat 1 takes hearts (the 9 turned): seat 2 has no spade.
RUFF_FIRST = ["7C 8C 9C TC JC", "AS 8S 7D 8D 9D", "7H JH 8H QC KC", "KS QS TD JD QD"]
RUFF_REST = ["7S 9S TS", "JS AC", "KD AD AH", "TH QH KH"]


def test_medium_ruffs_with_its_lowest_winning_trump() -> None:
    v = _view_after("classic", RUFF_FIRST, "9H", [(1, "AS")], 1, RUFF_REST)
    assert v.seat == 2
    move = medium.choose(v, random.Random(0))
    assert isinstance(move, PlayCard)
    assert move.card == parse_card("7H")  # the lowest trump that wins, not the jack


def test_knowledge_infers_voids_and_known_cards() -> None:
    v = _view_after("classic", RUFF_FIRST, "9H", [(1, "AS"), (2, "7H")], 1, RUFF_REST)
    kn = knowledge(v)
    assert kn.absent[2] & SUIT_MASKS[3] == SUIT_MASKS[3]  # seat 2 showed no spade
    assert kn.known[1] >> parse_card("9H") & 1  # the taker holds the turned card
    rng = random.Random(1)
    for _ in range(50):
        hands = sample_hands(kn, rng)
        assert hands[2] & SUIT_MASKS[3] == 0
        assert hands[1] >> parse_card("9H") & 1
        assert [h.bit_count() for h in hands] == list(kn.sizes)


@pytest.mark.parametrize("name", sorted(RULESETS))
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 40))
def test_sampled_deals_agree_with_the_hidden_truth_constraints(
    name: str, seed: int, steps: int
) -> None:
    """Whatever the bots know, the true deal satisfies it, and samples satisfy it too."""
    rng = random.Random(seed)
    table = Table(RULESETS[name])
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    table.deck([Card(c) for c in deck])
    for _ in range(steps):
        if due(table.state).kind is not DueKind.CARD and due(table.state).kind is not DueKind.BID:
            break
        table.do(rng.choice(view(table.state, due(table.state).seat).legal))  # type: ignore[arg-type]
    deal = table.state.deal
    if deal is None or deal.strain < 0:
        return
    for seat in range(table.ruleset.players):
        kn = knowledge(view(table.state, seat))
        for other in range(table.ruleset.players):
            truth = deal.hands[other]
            assert truth & kn.absent[other] == 0, "an inference excluded a card actually held"
            assert kn.known[other] & ~truth == 0, "a 'known' card is not there"
        hands = sample_hands(kn, rng)
        assert hands[seat] == deal.hands[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in deal.hands]
        seen = 0
        for h in hands:
            assert h & seen == 0
            seen |= h
        assert seen & mask_of([Card(c) for c in range(32) if deal.played[0] >> c & 1]) == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("strong", "weak", "name"), [("medium", "easy", "classic"), ("hard", "medium", "club")]
)
def test_the_stronger_level_wins_more_small_sample(strong: str, weak: str, name: str) -> None:
    """A smoke check of strength on a fixed seed (docs/benchmarks.md has the real measurement)."""
    from fairdeal.simulate import simulate

    result = simulate(
        RULESETS[name], [strong, weak, strong, weak], 16, "pytest", swap=True, budget=24
    )
    assert result.wins[0] > result.wins[1]
    assert result.points_per_deal[0] > result.points_per_deal[1]
