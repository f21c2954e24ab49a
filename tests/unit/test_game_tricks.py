"""The rules of a trick (docs/specification.md §2, rows "void in led suit" and "trump led"), as a
table: ruleset, contract, the trick so far, the hand, and the cards it may play.

The seat to play sits at position len(trick); its partner (at four) is two before it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from belot.cards import to_code
from belot.play import playable, winning_index
from belot.ruleset import CLASSIC, CLUB, FRENCH, GAMBLER, PartnerException, Ruleset, Strain
from tests.unit.game_support import cards, mask

#: French with the common custom instead of its seed's words: excused when the partner
#: holds the trick (a table may want it; the preset follows 004).
FRENCH_CUSTOM = replace(
    FRENCH, name="french-custom", partner_exception=PartnerException.PARTNER_WINNING
)
H, S = Strain.HEARTS, Strain.SPADES


@dataclass(frozen=True)
class Case:
    id: str
    ruleset: Ruleset
    strain: Strain
    trick: str
    hand: str
    allowed: str


CASES = [
    # Follow suit, every ruleset.
    *(
        Case(f"{r.name}: follow the led suit", r, H, "AS", "7S KS JH 7C", "7S KS")
        for r in (CLUB, CLASSIC, FRENCH, GAMBLER)
    ),
    *(
        Case(f"{r.name}: void and no trump: any card", r, H, "AS", "8C 9D", "8C 9D")
        for r in (CLUB, CLASSIC, FRENCH, GAMBLER)
    ),
    *(
        Case(f"{r.name}: void, opponent winning: must trump", r, H, "AS", "JH 7H 8C", "JH 7H")
        for r in (CLUB, CLASSIC, FRENCH, GAMBLER)
    ),
    # Club: trump and overtrump even when the partner holds the trick.
    Case("club: overtrump the partner's trump", CLUB, H, "7S 9H 8S", "JH 7H AC", "JH"),
    Case("club: trump although the partner wins", CLUB, H, "AS 7S", "JH 7H 8C", "JH 7H"),
    Case("club: cannot overtrump: a lower trump", CLUB, H, "7S JH 8S", "9H 7H AC", "9H 7H"),
    # Classic: the partner-winning exception; overtrump an opponent's trump.
    Case("classic: partner winning: discard anything", CLASSIC, H, "AS 7S", "JH 7H 8C", "JH 7H 8C"),
    Case("classic: partner led but losing: trump", CLASSIC, H, "7S AS", "JH 7H 8C", "JH 7H"),
    Case(
        "classic: partner's trump winning: anything", CLASSIC, H, "7S 9H 8S", "JH 7H AC", "JH 7H AC"
    ),
    Case("classic: opponent trumped: overtrump", CLASSIC, H, "AS 9H", "JH 7H 8C", "JH"),
    Case("classic: cannot overtrump: lower trump", CLASSIC, H, "AS JH", "7H 8C", "7H"),
    Case(
        "classic: overtrump the opponent over the partner",
        CLASSIC,
        H,
        "7S 9H JH",
        "AH 8H 8C",
        "AH 8H",
    ),
    # French as 004 words it: "Если у него нет карты такой же масти, тогда он обязан бить
    # козырем, если это возможно ...; но если партнёр начал взятку, тогда это совсем не
    # обязательно. Если у него нет карты такой же масти, и кто-то уже бил до него, то он
    # обязан играть старшим козырем".
    Case("004: partner led, nobody trumped: anything", FRENCH, H, "7S AS", "JH 8C", "JH 8C"),
    Case("004: partner led, opponent trumped: overtrump", FRENCH, H, "7S 9H", "JH 7H 8C", "JH"),
    Case(
        "004: partner led, trumped, cannot overtrump: anything",
        FRENCH,
        H,
        "7S JH",
        "9H 8C",
        "9H 8C",
    ),
    Case("004: partner second, winning, did not lead: trump", FRENCH, H, "7S AS 8S", "JH 8C", "JH"),
    Case("004: the partner trumped (someone did): overtrump", FRENCH, H, "7S 9H 8S", "JH AC", "JH"),
    Case("004: opponent led and trumped: overtrump", FRENCH, H, "AS 7S 9H", "JH 7H 8C", "JH"),
    Case("004: opponent trumped, none higher: a lower trump", FRENCH, H, "AS 7S JH", "7H 8C", "7H"),
    # The common custom, for a table that wants it: the partner-winning exception.
    Case(
        "french-custom: partner winning: discard anything",
        FRENCH_CUSTOM,
        H,
        "AS 7S",
        "JH 7H 8C",
        "JH 7H 8C",
    ),
    Case("french-custom: partner led, losing: trump", FRENCH_CUSTOM, H, "7S AS", "JH 7H", "JH 7H"),
    Case(
        "french-custom: partner (second) winning: anything",
        FRENCH_CUSTOM,
        H,
        "7S AS 8S",
        "JH 8C",
        "JH 8C",
    ),
    # Trump led: a higher trump if able, even over the partner; else any trump.
    *(
        Case(f"{r.name}: trump led: play higher", r, H, "9H", "JH 7H AS", "JH")
        for r in (CLUB, CLASSIC, FRENCH, GAMBLER)
    ),
    *(
        Case(f"{r.name}: trump led, none higher: any trump", r, H, "JH", "9H 7H AS", "9H 7H")
        for r in (CLUB, CLASSIC, FRENCH, GAMBLER)
    ),
    Case("classic: trump led, partner winning: still higher", CLASSIC, H, "9H 7H", "JH 8H", "JH"),
    Case("club: trump led, no trump: any card", CLUB, H, "JH", "AS 7C", "AS 7C"),
    # Gambler's contracts without a single trump suit.
    Case(
        "gambler: all trumps: follow and go higher",
        GAMBLER,
        Strain.ALL_TRUMPS,
        "9S",
        "JS 7S AH",
        "JS",
    ),
    Case("gambler: all trumps: void: any card", GAMBLER, Strain.ALL_TRUMPS, "9S", "AH 7C", "AH 7C"),
    Case(
        "gambler: no trumps: follow, no need to win",
        GAMBLER,
        Strain.NO_TRUMPS,
        "TS",
        "AS 7S JH",
        "AS 7S",
    ),
    Case("gambler: no trumps: void: any card", GAMBLER, Strain.NO_TRUMPS, "TS", "JH 7C", "JH 7C"),
    Case(
        "gambler: misère: follow, no need to win", GAMBLER, Strain.MISERE, "TS", "AS 7S JH", "AS 7S"
    ),
    Case("any: leading: any card", CLUB, S, "", "JH 7H 8C", "JH 7H 8C"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_playable(case: Case) -> None:
    got = playable(mask(case.hand), cards(case.trick), case.strain, case.ruleset)
    assert got == mask(case.allowed), " ".join(to_code(c) for c in range(32) if got >> c & 1)


WINNERS = [
    ("highest trump wins", H, "AS 7H", 1),
    ("trump jack beats trump nine", H, "9H JH", 1),
    ("no trump: highest of the led suit", H, "TS AS 9S", 1),
    ("plain ten beats king", H, "KS TS", 1),
    ("off suit never wins", H, "7S AC JD", 0),
    ("all trumps: jack beats ace", Strain.ALL_TRUMPS, "AS JS", 1),
    ("all trumps: another suit's jack does not win", Strain.ALL_TRUMPS, "7S JH", 0),
    ("no trumps: ace beats jack", Strain.NO_TRUMPS, "JS AS", 1),
]


@pytest.mark.parametrize(
    ("trick", "strain", "winner"),
    [(w[2], w[1], w[3]) for w in WINNERS],
    ids=[w[0] for w in WINNERS],
)
def test_trick_winner(trick: str, strain: Strain, winner: int) -> None:
    assert winning_index(cards(trick), strain) == winner
