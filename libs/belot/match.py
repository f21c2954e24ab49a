"""A match as an event-sourced aggregate: ``decide`` commands into events, ``evolve``
the state with each event, ``replay`` a log.

The state is a frozen :class:`Match`; the deal in progress is a frozen :class:`Deal`.
Nothing here does I/O, reads a clock or draws a random number: decks come in as
:class:`~belot.commands.SupplyDeck` commands, and :func:`due` says when one is needed
and for which deal number (redeals count, as the fair-deal recipe says).

The parts: :mod:`belot.state` (the records, what is due), :mod:`belot.legal` (what the
seat due to act may do), :mod:`belot.decide` and :mod:`belot.evolve`. This module
gathers them.

A deal runs: deck supplied -> first distribution and turned card -> bidding ->
completion -> play (with melds, belote, gambler's seven swap and redeal demand before
a seat's first card) -> score -> next deck, until a side reaches the target.
"""

from belot.decide import decide
from belot.evolve import evolve, replay
from belot.legal import (
    belote_points,
    can_announce_belote,
    can_declare_melds,
    can_demand_redeal,
    can_swap_seven,
    legal_cards,
    legal_moves,
)
from belot.state import (
    NO_SEAT,
    NO_STRAIN,
    Deal,
    Due,
    DueKind,
    Match,
    Phase,
    Result,
    due,
    new_match,
    started_event,
    whose_turn,
)

__all__ = [
    "NO_SEAT",
    "NO_STRAIN",
    "Deal",
    "Due",
    "DueKind",
    "Match",
    "Phase",
    "Result",
    "belote_points",
    "can_announce_belote",
    "can_declare_melds",
    "can_demand_redeal",
    "can_swap_seven",
    "decide",
    "due",
    "evolve",
    "legal_cards",
    "legal_moves",
    "new_match",
    "replay",
    "started_event",
    "whose_turn",
]
