"""The hard bot where melds count (club): its bidding threshold gives credit for the melds
a seat holds, and in the first trick each world says which side's melds will score."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import pytest

from belot import view
from belot.bots import hard, medium
from belot.cards import JACK, KING
from belot.commands import Bid
from belot.melds import MeldClaim, MeldKind
from belot.ruleset import CLASSIC, CLUB, GAMBLER, Ruleset, Strain
from belot.view import SeatView
from tests.unit.game_support import Table, cards, mask, stack


@dataclass(frozen=True)
class Threshold:
    id: str
    ruleset: Ruleset
    #: The first seat to speak's cards, and the turned card.
    hand: str
    turned: str
    take_at: int


THRESHOLDS = [
    Threshold("classic: no melds in the rules: medium's 52", CLASSIC, "7H 8H 9H AS KC", "JD", 52),
    Threshold("club: no meld: medium's 52", CLUB, "7H 9C AS KD 8S", "JD", 52),
    Threshold("club: three in sequence (20): 52 - 10", CLUB, "7H 8H 9H AS KC", "JD", 42),
    Threshold("club: the turned card completes a three", CLUB, "7H 8H AS KC QD", "9H", 42),
    Threshold("club: four in sequence (50): 52 - 25", CLUB, "7H 8H 9H TH AS", "JD", 27),
    Threshold("club: two threes (40): 52 - 20", CLUB, "7H 8H 9H QS KS", "AS", 32),
    Threshold(
        "club: four jacks with the turned one (200): 52 - 100", CLUB, "JH JS JC 7D 8S", "JD", -48
    ),
    Threshold(
        "gambler: the turned card stays on the table: 50", GAMBLER, "7H 8H AS KC QD 7C", "9H", 50
    ),
]


def _bidding_view(ruleset: Ruleset, hand: str, turned: str) -> SeatView:
    table = Table(ruleset, first_dealer=0)
    first = ["", hand] + [""] * (ruleset.players - 2)
    table.deck(stack(ruleset, 0, first, turned))
    v = view(table.state, 1)
    assert v.hand == tuple(sorted(cards(hand))), "the stacked deck deals the hand"
    return v


@pytest.mark.parametrize("case", THRESHOLDS, ids=lambda c: c.id)
def test_melds_in_hand_lower_the_bidding_threshold(case: Threshold) -> None:
    assert hard.take_at(_bidding_view(case.ruleset, case.hand, case.turned)) == case.take_at


def test_held_melds_make_the_hard_bot_take_where_medium_passes() -> None:
    """Spades Q K with the turned ace, and hearts 7 8 9: medium's evaluation is 35, under
    its 52; the two threes (40), half credited, bring the hard bot's threshold to 32."""
    v = _bidding_view(CLUB, "7H 8H 9H QS KS", "AS")
    bids = [m for m in v.legal if isinstance(m, Bid)]
    assert medium.bid(v, bids) == Bid(1, None)
    assert hard.choose(v, random.Random(0)) == Bid(1, Strain.SPADES)


def _seq(top: int, length: int, trump: bool = False) -> MeldClaim:
    return MeldClaim(MeldKind.SEQUENCE, top, length, trump)


@dataclass(frozen=True)
class FirstTrick:
    id: str
    #: Declared before seat 2 (the seat asking) plays its first card: (seat, claim).
    claims: tuple[tuple[int, MeldClaim], ...]
    #: The world: hands of seats 0, 1, 2, 3 now (seat 1 led the 7C).
    hands: tuple[str, str, str, str]
    #: What each side (0: seats 0 and 2) will score in melds.
    melds: tuple[int, int]


#: Seat 2 asks; seat 1 led (its claim is declared), seats 3 and 0 are still to play,
#: hearts are trump. Sides: seats 0 and 2 against 1 and 3.
FIRST_TRICKS = [
    FirstTrick("nobody holds a meld", (),
               ("7D 9D JD KD 7S 9S JS KS", "8D TD QD 8S TS QS AS", "7H 9H JH KH AD 8C TC QC",
                "8H TH QH AH 9C JC KC AC"), (0, 0)),
    FirstTrick("our declared 50 against nothing to come", ((2, _seq(JACK, 4)),),
               ("7D 9D JD KD 7S 9S JS KS", "8D TD QD 8S TS QS AS", "7H 8H 9H TH JH AD 8C QC",
                "QH KH AH TC 9C JC KC AC"), (50, 0)),
    FirstTrick("a later opponent's four kings beat our 50", ((2, _seq(JACK, 4)),),
               ("7D 9D JD AD 7S 9S JS 8C", "8D TD QD 8S TS QS AS", "7H 8H 9H TH JH QH QC TC",
                "KH KD KS KC AH 9C JC AC"), (0, 100)),
    FirstTrick("a later partner's three adds to our 50", ((2, _seq(JACK, 4)),),
               ("7D 8D 9D KD 7S 9S JS KS", "JD TD QD 8S TS QS AS", "7H 8H 9H TH JH AD 8C QC",
                "QH KH AH TC 9C JC KC AC"), (70, 0)),
    FirstTrick("the leader's claim, its world hand not matching it: the claim's 20",
               ((1, _seq(KING, 3)),),
               ("7D 9D JD KD 7S 9S JS KS", "8D TD QD 8S TS QS AS", "7H 9H JH KH AD 8C TC QC",
                "8H TH QH AH 9C JC KC AC"), (0, 20)),
]  # fmt: skip


@pytest.mark.parametrize("case", FIRST_TRICKS, ids=lambda c: c.id)
def test_first_trick_melds_are_read_from_the_world(case: FirstTrick) -> None:
    base = _bidding_view(CLUB, "7H 8H 9H AS KC", "JD")
    v = replace(
        base,
        seat=2,
        strain=Strain.HEARTS,
        taker=1,
        trick=((1, cards("7C")[0]),),
        tricks=(),
        meld_claims=case.claims,
        melds_shown=(),
    )
    hands = [mask(h) for h in case.hands]
    assert hard._melds(v, hands) == list(case.melds)
