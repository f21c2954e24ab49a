"""Tournaments (docs/specification.md §5): round-robin, Swiss, elimination and ladder as a pure,
event-sourced core. No I/O, no clock, no global randomness; networkx for the Swiss
pairing's maximum-weight matching.

The service decides with the commands (``commands``), appends the events they return,
and folds them with ``evolve``; ``standings`` and ``export`` are queries on the state.
"""

from tournament.codec import from_payload, to_payload
from tournament.commands import (
    Deadline,
    cancel,
    correct_result,
    create,
    deadlines,
    edit,
    enter,
    finish_if_due,
    make_draw,
    name_draw_round,
    no_show,
    pair_next_round,
    record_ladder_match,
    record_result,
    round_timeout,
    start,
    terminate,
    withdraw,
)
from tournament.errors import TournamentError
from tournament.events import TournamentEvent
from tournament.settings import DEFAULT_RATING, Format, Outcome, Points, Seeding, Settings
from tournament.standings import Standing, standings
from tournament.state import Tournament, evolve, replay

__all__ = [
    "DEFAULT_RATING",
    "Deadline",
    "Format",
    "Outcome",
    "Points",
    "Seeding",
    "Settings",
    "Standing",
    "Tournament",
    "TournamentError",
    "TournamentEvent",
    "cancel",
    "correct_result",
    "create",
    "deadlines",
    "edit",
    "enter",
    "evolve",
    "finish_if_due",
    "from_payload",
    "make_draw",
    "name_draw_round",
    "no_show",
    "pair_next_round",
    "record_ladder_match",
    "record_result",
    "replay",
    "round_timeout",
    "standings",
    "start",
    "terminate",
    "to_payload",
    "withdraw",
]
