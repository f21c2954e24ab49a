"""Bots for AI seats (docs/specification.md §4): easy, medium and hard.

A bot is given a :class:`~belot.view.SeatView` (its own hand, the public history and
its legal moves) and a ``random.Random`` its caller seeded; it returns one of the
view's legal commands. It cannot see other hands: it is never given the match state.

    choose(view, rng, level="medium", budget=None, out_of_time=None) -> Command

``budget`` is the hard level's play-outs per decision (deterministic work, no clock);
``out_of_time`` its time budget, a predicate the caller's clock answers (the table
service gives each hard decision ``HARD_BOT_SECONDS``).
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable

from belot.bots import easy, hard, medium
from belot.commands import Command
from belot.view import SeatView


class Level(enum.Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


LEVELS = tuple(level.value for level in Level)


def choose(
    view: SeatView,
    rng: random.Random,
    level: Level | str = Level.MEDIUM,
    budget: int | None = None,
    out_of_time: Callable[[], bool] | None = None,
) -> Command:
    """The bot's command for ``view``; raises ValueError if the seat has nothing to do.
    ``out_of_time``: the hard bot's time budget (see :mod:`belot.bots.hard`)."""
    if not view.legal:
        raise ValueError(f"seat {view.seat} has no move to make now")
    lvl = Level(level)
    if lvl is Level.EASY:
        return easy.choose(view, rng)
    if lvl is Level.MEDIUM:
        return medium.choose(view, rng)
    return hard.choose(view, rng, hard.DEFAULT_BUDGET if budget is None else budget, out_of_time)
