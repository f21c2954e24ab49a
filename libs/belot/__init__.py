"""The game of belot: cards, rulesets, deals, bidding, play, scoring and bots.

Pure: standard library only, no I/O, no clock, no global randomness. The table service,
the verifier and the bots share it.

Public API (stable; everything else is internal)::

    RULESETS["club" | "classic" | "french" | "gambler"] -> Ruleset   (frozen dataclass:
        players, deck_size, target, the deal pattern's packets, bidding, duties, melds...)
    deal_pattern(ruleset) -> DealPattern      deck indices per seat offset from the dealer:
        .first, .turned, .completion[taker_offset], .completion_without_taker, .shown,
        .first_dealer_from
    first_dealer(ruleset, deck) -> int        who deals deal 0, recomputable from its deck

    new_match(ruleset, match_id="", *, target=None, first_dealer=0) -> Match
    started_event(state) -> MatchStarted      the first event of the match's log
    decide(state, command) -> list[Event]     raises a RulesError subclass, never appends
    evolve(state, event) -> Match
    replay(ruleset, events) -> Match          events[0] is MatchStarted
    legal_moves(state) -> tuple[Command, ...] the seat due to act; the single source
    due(state) -> Due(kind=DECK|BID|CARD|NOTHING, seat, deal_number)
    whose_turn(state) -> int | None
    view(state, seat) -> SeatView             own hand, public history, legal moves

    Commands: SupplyDeck(deal_number, cards), Bid(seat, strain | None),
        PlayCard(seat, card, belote=False), DeclareMelds(seat), SwapTrumpSeven(seat),
        DemandRedeal(seat)
    Events (belot.events): past-tense frozen dataclasses with TYPE, SCHEMA, VISIBILITY
        (PUBLIC, SEAT: only event.seat, SECRET: nobody until the match ends);
        to_payload(event) / from_payload(dict) in belot.codec.
    Errors (belot.errors): RulesError(.code, .message) and its subclasses.

    Sides: side 0 = seats 0 and 2, side 1 = seats 1 and 3; at two players side = seat.

A deck enters as ``SupplyDeck(k, cards)`` when ``due(state)`` is DECK with deal number
``k`` (redeals count); cards are ``fairdeal``'s deck, top card first. Bots live in
:mod:`belot.bots`; whole matches between bots on the recipe's decks in
:mod:`fairdeal.simulate` (the game sits below the recipe and never imports it).
"""

from belot.cards import Card, parse_card, to_code
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SupplyDeck,
    SwapTrumpSeven,
)
from belot.deal import DealPattern, deal_pattern, first_dealer
from belot.errors import RulesError
from belot.events import Event, Visibility
from belot.match import (
    Due,
    DueKind,
    Match,
    Phase,
    decide,
    due,
    evolve,
    legal_moves,
    new_match,
    replay,
    started_event,
    whose_turn,
)
from belot.ruleset import RULESETS, Ruleset, Strain
from belot.view import SeatView, view

__all__ = [
    "RULESETS",
    "Bid",
    "Card",
    "Command",
    "DealPattern",
    "DeclareMelds",
    "DemandRedeal",
    "Due",
    "DueKind",
    "Event",
    "Match",
    "Phase",
    "PlayCard",
    "RulesError",
    "Ruleset",
    "SeatView",
    "Strain",
    "SupplyDeck",
    "SwapTrumpSeven",
    "Visibility",
    "deal_pattern",
    "decide",
    "due",
    "evolve",
    "first_dealer",
    "legal_moves",
    "new_match",
    "parse_card",
    "replay",
    "started_event",
    "to_code",
    "view",
    "whose_turn",
]
