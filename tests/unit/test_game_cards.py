"""docs/specification.md §1, row by row: order and points of each rank, in trump and plain suits."""

from __future__ import annotations

import pytest

from belot.cards import (
    LAST_TRICK_POINTS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    RANKS,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
)
from belot.play import CARD_POINTS
from belot.ruleset import Strain

#: rank, trump order (1st = highest), trump points, plain order, plain points.
TABLE = [
    ("J", 1, 20, 5, 2),
    ("9", 2, 14, 6, 0),
    ("A", 3, 11, 1, 11),
    ("T", 4, 10, 2, 10),
    ("K", 5, 4, 3, 4),
    ("Q", 6, 3, 4, 3),
    ("8", 7, 0, 7, 0),
    ("7", 8, 0, 8, 0),
]


@pytest.mark.parametrize(
    ("rank", "t_order", "t_points", "p_order", "p_points"), TABLE, ids=[r[0] for r in TABLE]
)
def test_rank_order_and_points(
    rank: str, t_order: int, t_points: int, p_order: int, p_points: int
) -> None:
    r = RANKS.index(rank)
    assert 8 - TRUMP_STRENGTH[r] == t_order
    assert TRUMP_POINTS[r] == t_points
    assert 8 - PLAIN_STRENGTH[r] == p_order
    assert PLAIN_POINTS[r] == p_points


def test_a_deal_holds_162_with_the_last_trick() -> None:
    for suit in Strain.__members__.values():
        if suit.is_suit:
            assert sum(CARD_POINTS[suit]) + LAST_TRICK_POINTS == 162


def test_all_trumps_holds_258_and_no_trumps_130() -> None:
    # Our choice for gambler's all-trumps: every suit counts trump values (docs/rules.md).
    assert sum(CARD_POINTS[Strain.ALL_TRUMPS]) + LAST_TRICK_POINTS == 258
    assert sum(CARD_POINTS[Strain.NO_TRUMPS]) + LAST_TRICK_POINTS == 130
