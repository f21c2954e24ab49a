"""A whole match played in the game core alone (``belot.match``: ``due``, ``decide``,
``evolve``), each seat's command from the bench's own chooser and the decks from the
fair-deal recipe with seeds drawn from the bench's generator: what bench/analysis.py and
bench/fairplay.py play before they analyse."""

from __future__ import annotations

import random
from collections.abc import Callable

from belot.commands import Command, SupplyDeck
from belot.events import Event
from belot.match import DueKind, Match, decide, due, evolve, new_match, started_event
from belot.ruleset import Ruleset
from belot.view import SeatView, view
from fairdeal import DeckInputs, Drand, Shuffler

#: The command for the seat whose view it is (the whole state for a chooser that peeks).
Chooser = Callable[[Match, SeatView, random.Random], Command]


def bot_match(
    ruleset: Ruleset, match_id: str, first_dealer: int, rng: random.Random, chooser: Chooser
) -> list[Event]:
    """The match's events, from ``MatchStarted`` to its end."""
    inputs = DeckInputs(rng.randbytes(32), (rng.randbytes(16),), Drand(1, rng.randbytes(32)))
    shuffler = Shuffler(inputs)
    state = new_match(ruleset, match_id, first_dealer=first_dealer)
    log: list[Event] = [started_event(state)]
    while (d := due(state)).kind is not DueKind.NOTHING:
        if d.kind is DueKind.DECK:
            command: Command = SupplyDeck(
                d.deal_number, shuffler.deck(d.deal_number, ruleset.deck_size)
            )
        else:
            assert d.seat is not None
            command = chooser(state, view(state, d.seat), rng)
        for e in decide(state, command):
            state = evolve(state, e)
            log.append(e)
    return log
