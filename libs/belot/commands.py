"""Commands: what a seat (or the table, for decks) asks the match to do.

``decide(state, command)`` turns one into events or raises a
:class:`~belot.errors.RulesError`. ``legal_moves(state)`` lists exactly the commands
``decide`` accepts from the seat due to act.
"""

from __future__ import annotations

from dataclasses import dataclass

from belot.cards import Card
from belot.ruleset import Strain


@dataclass(frozen=True, slots=True)
class Command:
    pass


@dataclass(frozen=True, slots=True)
class SupplyDeck(Command):
    """The table hands in deal ``deal_number``'s deck (``fairdeal``'s, top card first)
    and the salts of the deal's hidden events (:mod:`belot.salts`; empty: none)."""

    deal_number: int
    cards: tuple[Card, ...]
    salts: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class Bid(Command):
    """Take ``strain``, or pass with ``strain=None``."""

    seat: int
    strain: Strain | None = None


@dataclass(frozen=True, slots=True)
class PlayCard(Command):
    """Play ``card``; ``belote=True`` announces belote (or rebelote) with it."""

    seat: int
    card: Card
    belote: bool = False


@dataclass(frozen=True, slots=True)
class DeclareMelds(Command):
    """Declare one's melds before one's first card (rulesets with melds)."""

    seat: int


@dataclass(frozen=True, slots=True)
class SwapTrumpSeven(Command):
    """Gambler: take the turned card for the trump seven, before one's first card."""

    seat: int


@dataclass(frozen=True, slots=True)
class DemandRedeal(Command):
    """Gambler: with four 7s or four 8s, before one's first card."""

    seat: int


SeatCommand = Bid | PlayCard | DeclareMelds | SwapTrumpSeven | DemandRedeal
