"""Scoring a deal (docs/specification.md §2 rows capot, contract failed, tie; §3 for melds), as a
table: ruleset, contract, taker side, what the play produced, hanging points before;
then the outcome, what each side is awarded, and the points left hanging."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from belot.ruleset import CLASSIC, CLUB, FRENCH, GAMBLER, Ruleset, Strain
from belot.scoring import Outcome, Tally, score_deal

H, NT = Strain.HEARTS, Strain.NO_TRUMPS


@dataclass(frozen=True)
class Case:
    id: str
    ruleset: Ruleset
    strain: Strain
    taker: int | None
    cards: tuple[int, int]
    tricks: tuple[int, int]
    outcome: Outcome
    awarded: tuple[int, int]
    melds: tuple[int, int] = (0, 0)
    belote: tuple[int, int] = (0, 0)
    hanging_in: int = 0
    hanging_out: int = 0


CASES = [
    Case(
        "made: each side scores its points",
        CLASSIC,
        H,
        0,
        (100, 62),
        (5, 3),
        Outcome.MADE,
        (100, 62),
    ),
    Case(
        "failed: defenders 162, takers 0", CLASSIC, H, 0, (70, 92), (3, 5), Outcome.FAILED, (0, 162)
    ),
    Case(
        "failed: belote stays with the takers",
        CLASSIC,
        H,
        0,
        (60, 102),
        (3, 5),
        Outcome.FAILED,
        (20, 162),
        belote=(20, 0),
    ),
    # Belote and the contract. 001: "Последняя взятка: 10 очков; всего без
    # белота-ребелота: 162" and "Если разыгрывающие не набрали больше защиты, контракт
    # провален: защита 162, разыгрывающие 0, белот-ребелот остаётся у своей команды";
    # 004: "20 очков за белот и марьяж засчитываются команде независимо от исполнения или
    # провала контракта". The contract is judged on the 162 points; belote goes to its side.
    Case(
        "001: the contract is judged on the 162 points, without belote",
        CLASSIC,
        H,
        0,
        (72, 90),
        (4, 4),
        Outcome.FAILED,
        (20, 162),
        belote=(20, 0),
    ),
    Case(
        "004: belote to its side whether the contract is made or failed",
        FRENCH,
        H,
        0,
        (75, 87),
        (4, 4),
        Outcome.FAILED,
        (20, 162),
        belote=(20, 0),
    ),
    Case(
        "004: the defenders' belote when the takers make it",
        FRENCH,
        H,
        0,
        (90, 72),
        (5, 3),
        Outcome.MADE,
        (90, 92),
        belote=(0, 20),
    ),
    Case(
        "club: belote counts towards the contract (the seed is silent: our choice)",
        CLUB,
        H,
        0,
        (72, 90),
        (4, 4),
        Outcome.MADE,
        (92, 90),
        belote=(20, 0),
    ),
    Case(
        "002: the taker must outscore in tricks and melds, bela among them",
        GAMBLER,
        H,
        0,
        (50, 60),
        (4, 5),
        Outcome.MADE,
        (70, 60),
        belote=(20, 0),
    ),
    Case(
        "defenders' belote stays theirs when they win",
        FRENCH,
        H,
        1,
        (92, 70),
        (5, 3),
        Outcome.FAILED,
        (162, 20),
        belote=(0, 20),
    ),
    *(
        Case(f"{r.name}: capot is 252", r, H, 0, (162, 0), (8, 0), Outcome.MADE, (252, 0))
        for r in (CLUB, CLASSIC, FRENCH)
    ),
    Case(
        "capot against the takers: defenders 252",
        FRENCH,
        H,
        0,
        (0, 162),
        (0, 8),
        Outcome.FAILED,
        (0, 252),
    ),
    Case(
        "gambler: capot adds 90 (our choice)",
        GAMBLER,
        H,
        0,
        (120, 0),
        (9, 0),
        Outcome.MADE,
        (210, 0),
    ),
    Case(
        "french: level: defenders score, takers' hang",
        FRENCH,
        H,
        0,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (0, 81),
        hanging_out=81,
    ),
    Case(
        "club: level: defenders score, takers' hang",
        CLUB,
        H,
        1,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (81, 0),
        hanging_out=81,
    ),
    Case(
        "classic: level: the deal's points hang",
        CLASSIC,
        H,
        0,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (0, 0),
        hanging_out=162,
    ),
    Case(
        "classic: level on the 162 points; belote is scored at once",
        CLASSIC,
        H,
        0,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (20, 0),
        belote=(20, 0),
        hanging_out=162,
    ),
    Case(
        "004: level (81 each): the defenders score theirs and their belote, it never hangs",
        FRENCH,
        H,
        0,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (0, 101),
        belote=(0, 20),
        hanging_out=81,
    ),
    Case(
        "hanging points go to the next deal's winner",
        FRENCH,
        H,
        1,
        (50, 112),
        (2, 6),
        Outcome.MADE,
        (50, 193),
        hanging_in=81,
    ),
    Case(
        "hanging points go to winning defenders",
        CLASSIC,
        H,
        1,
        (100, 62),
        (6, 2),
        Outcome.FAILED,
        (324, 0),
        hanging_in=162,
    ),
    Case(
        "french: a second level deal adds to the hanging",
        FRENCH,
        H,
        0,
        (81, 81),
        (4, 4),
        Outcome.LEVEL,
        (0, 81),
        hanging_in=81,
        hanging_out=162,
    ),
    Case(
        "gambler: hanging bait never accumulates",
        GAMBLER,
        H,
        0,
        (60, 60),
        (4, 5),
        Outcome.LEVEL,
        (0, 60),
        hanging_in=70,
        hanging_out=60,
    ),
    Case(
        "gambler: bait: the defender adds the taker's points",
        GAMBLER,
        H,
        0,
        (50, 80),
        (4, 5),
        Outcome.FAILED,
        (0, 130),
    ),
    Case(
        "gambler: bait: the taker keeps its bela",
        GAMBLER,
        H,
        0,
        (40, 80),
        (4, 5),
        Outcome.FAILED,
        (20, 120),
        belote=(20, 0),
    ),
    Case(
        "gambler: no-trumps doubles cards and melds",
        GAMBLER,
        NT,
        0,
        (80, 50),
        (5, 4),
        Outcome.MADE,
        (200, 100),
        melds=(20, 0),
    ),
    Case(
        "club: melds count towards the contract",
        CLUB,
        H,
        0,
        (70, 92),
        (4, 4),
        Outcome.MADE,
        (120, 92),
        melds=(50, 0),
    ),
    Case(
        "club: failed: defenders take the takers' melds",
        CLUB,
        H,
        0,
        (60, 102),
        (3, 5),
        Outcome.FAILED,
        (0, 182),
        melds=(20, 0),
    ),
    Case(
        "gambler: misère: fewer points takes the deal's",
        GAMBLER,
        Strain.MISERE,
        None,
        (30, 100),
        (3, 6),
        Outcome.MISERE,
        (130, 0),
    ),
    # 002: "Очки «висячего байта» обязательно разыгрываются в следующей раздаче и не
    # накапливаются": the next deal played decides them; with no winner they are lost.
    Case(
        "002: a level misère scores nothing, and the hanging points it decided are lost",
        GAMBLER,
        Strain.MISERE,
        None,
        (65, 65),
        (4, 5),
        Outcome.MISERE_LEVEL,
        (0, 0),
        hanging_in=40,
        hanging_out=0,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_score_deal(case: Case) -> None:
    tally = Tally(case.cards, case.tricks, case.melds, case.belote)
    score = score_deal(case.ruleset, case.strain, case.taker, tally, case.hanging_in)
    assert (score.outcome, score.awarded, score.hanging) == (
        case.outcome,
        case.awarded,
        case.hanging_out,
    )
