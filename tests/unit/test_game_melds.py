"""Melds (docs/specification.md §3): values per ruleset, what counts as a meld, the
comparison order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from belot.melds import (
    MeldKind,
    best_meld,
    find_melds,
    has_four_low,
    has_meld,
    meld_points,
    winning_claim,
)
from belot.ruleset import CLASSIC, CLUB, FRENCH, GAMBLER, Strain
from tests.unit.game_support import mask

#: meld, a hand holding exactly it, gambler value, club (standard French) value.
VALUES = [
    ("four jacks", "JC JD JH JS", 200, 200),
    ("four nines", "9C 9D 9H 9S", 140, 150),
    ("four aces", "AC AD AH AS", 110, 100),
    ("four kings", "KC KD KH KS", 100, 100),
    ("four queens", "QC QD QH QS", 100, 100),
    ("four tens", "TC TD TH TS", 100, 100),
    ("four 7s: no points", "7C 7D 7H 7S", 0, 0),
    ("four 8s: no points", "8C 8D 8H 8S", 0, 0),
    ("eight in sequence", "7S 8S 9S TS JS QS KS AS", 100, 100),
    ("5 in sequence", "9H TH JH QH KH", 100, 100),
    ("4 in sequence", "TD JD QD KD", 50, 50),
    ("3 in sequence", "7C 8C 9C", 20, 20),
    ("2 in sequence: nothing", "7C 8C", 0, 0),
]


@pytest.mark.parametrize(
    ("hand", "gambler", "club"), [v[1:] for v in VALUES], ids=[v[0] for v in VALUES]
)
def test_meld_values(hand: str, gambler: int, club: int) -> None:
    assert GAMBLER.melds is not None and CLUB.melds is not None
    assert meld_points(find_melds(mask(hand), GAMBLER.melds), GAMBLER.melds) == gambler
    assert meld_points(find_melds(mask(hand), CLUB.melds), CLUB.melds) == club


@pytest.mark.parametrize("ruleset", [CLASSIC, FRENCH], ids=lambda r: r.name)
def test_classic_and_french_have_no_melds(ruleset) -> None:
    assert ruleset.melds is None


def test_a_card_may_be_in_a_four_and_a_sequence() -> None:
    assert GAMBLER.melds is not None
    melds = find_melds(mask("JC JD JH JS QS KS"), GAMBLER.melds)
    assert sorted((m.kind.value, m.length) for m in melds) == [("four", 4), ("sequence", 3)]


def test_separate_runs_in_one_suit_are_separate_sequences() -> None:
    assert CLUB.melds is not None
    melds = find_melds(mask("7H 8H 9H JH QH KH"), CLUB.melds)
    assert sorted(str(m) for m in melds) == ["3 to 9H", "3 to KH"]


def test_four_sevens_or_eights_give_the_redeal_right() -> None:
    assert has_four_low(mask("7C 7D 7H 7S AS"))
    assert has_four_low(mask("8C 8D 8H 8S"))
    assert not has_four_low(mask("7C 7D 7H 8S"))


#: Two seats' best melds, declared in this order (the first is seat 0's), trump hearts:
#: which seat wins the comparison.
COMPARE = [
    ("any four beats any sequence", "QC QD QH QS", "7S 8S 9S TS JS QS KS AS", 0),
    ("four jacks beat four nines", "9C 9D 9H 9S", "JC JD JH JS", 1),
    ("four nines beat four aces", "AC AD AH AS", "9C 9D 9H 9S", 1),
    ("four aces beat four tens", "TC TD TH TS", "AC AD AH AS", 1),
    ("four tens beat four kings", "TC TD TH TS", "KC KD KH KS", 0),
    ("four kings beat four queens", "QC QD QH QS", "KC KD KH KS", 1),
    ("longer sequence beats shorter", "9C TC JC QC KC", "TD JD QD KD", 0),
    ("six beats five (both 100)", "7C 8C 9C TC JC", "8D 9D TD JD QD KD", 1),
    ("equal length: higher top card", "7C 8C 9C", "QD KD AD", 1),
    ("equal length and top: trump beats plain", "QC KC AC", "QH KH AH", 1),
    ("all equal: earlier declaration", "QC KC AC", "QD KD AD", 0),
]


@pytest.mark.parametrize(
    ("first", "second", "winner"), [c[1:] for c in COMPARE], ids=[c[0] for c in COMPARE]
)
def test_meld_comparison(first: str, second: str, winner: int) -> None:
    assert GAMBLER.melds is not None
    claims = []
    for seat, hand in enumerate((first, second)):
        best = best_meld(find_melds(mask(hand), GAMBLER.melds), Strain.HEARTS)
        assert best is not None
        claims.append((seat, best.claim(Strain.HEARTS)))
    assert winning_claim(claims) == winner


def test_all_trumps_every_sequence_is_trump() -> None:
    assert GAMBLER.melds is not None
    best = best_meld(find_melds(mask("QC KC AC"), GAMBLER.melds), Strain.ALL_TRUMPS)
    assert best is not None and best.claim(Strain.ALL_TRUMPS).trump
    assert best.kind is MeldKind.SEQUENCE


@settings(max_examples=300, deadline=None)
@given(hand=st.integers(0, 2**32 - 1))
def test_the_quick_meld_check_agrees_with_find_melds(hand: int) -> None:
    for table in (GAMBLER.melds, CLUB.melds):
        assert table is not None
        assert has_meld(hand, table) == bool(find_melds(hand, table))
