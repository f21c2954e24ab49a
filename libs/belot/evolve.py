"""Evolving: the state after one event, and the replay of a whole log.

``evolve`` trusts that the event came from ``decide`` (it re-checks only what keeps
the state well formed) so that replaying a log is a plain fold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from belot import bidding
from belot.cards import (
    Mask,
    mask_of,
)
from belot.deal import deal_pattern
from belot.errors import (
    BadEvent,
)
from belot.events import (
    BeloteAnnounced,
    BottomCardShown,
    CardPlayed,
    CardsDealt,
    ContractTaken,
    DealAbandoned,
    DealScored,
    DealStarted,
    DeckSupplied,
    Event,
    MatchEnded,
    MatchStarted,
    MeldDeclared,
    MeldsShown,
    MisereStarted,
    Passed,
    RedealDemanded,
    TrickTaken,
    TrumpSevenSwapped,
)
from belot.melds import (
    best_meld,
    find_melds,
)
from belot.play import Trick
from belot.ruleset import NextDealer, Ruleset, Strain
from belot.seats import BySeat, BySide, side_of
from belot.state import NO_SEAT, NO_STRAIN, Deal, Match, Phase, Result, due, new_match


def replay(ruleset: Ruleset, events: Iterable[Event]) -> Match:
    """Rebuild the state from a log that starts with :class:`MatchStarted`.

    Raises :class:`~belot.errors.BadEvent` if the log does not fit the rules.
    """
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, MatchStarted):
        raise BadEvent("a match's log starts with MatchStarted")
    if first.ruleset != ruleset.name:
        raise BadEvent(f"the log is a {first.ruleset} match, not {ruleset.name}")
    state = new_match(ruleset, first.match_id, target=first.target, first_dealer=first.first_dealer)
    for event in it:
        state = evolve(state, event)
    return state


# --- Evolve ------------------------------------------------------------------------------


def evolve(state: Match, event: Event) -> Match:
    """The state after ``event``. Pure; raises :class:`~belot.errors.BadEvent` for an
    event that cannot follow (it does not re-check the rules decide applied)."""
    handler = _EVOLVERS.get(type(event))
    if handler is None:
        raise BadEvent(f"{type(event).__name__} cannot be applied to a match")
    return handler(state, event)


def _need_deal(state: Match) -> Deal:
    if state.deal is None:
        raise BadEvent("no deal is under way")
    return state.deal


def _with_deal(state: Match, deal: Deal, phase: Phase | None = None) -> Match:
    return Match(
        state.ruleset,
        state.match_id,
        state.target,
        state.first_dealer,
        state.phase if phase is None else phase,
        state.scores,
        state.hanging,
        state.deal_number,
        state.dealer,
        state.deals_scored,
        deal,
        state.last_defender,
        state.last_winner,
        state.result,
    )


def _set_hands(deal: Deal, hands: BySeat[Mask]) -> Deal:
    # Written out: dataclasses.replace costs more than the rest of dealing together.
    return Deal(
        deal.number,
        deal.dealer,
        deal.deck,
        deal.turned,
        hands,
        deal.passes,
        deal.strain,
        deal.taker,
        deal.turn,
        deal.trick,
        deal.leader,
        deal.tricks,
        deal.points,
        deal.tricks_won,
        deal.played,
        deal.belote_calls,
        deal.claims,
        deal.shown,
        deal.bottom,
        deal.swapped_by,
        deal.salts,
    )


def _evolve_started(state: Match, e: MatchStarted) -> Match:
    raise BadEvent("MatchStarted opens a log; it cannot be applied to a running match")


def _evolve_deck(state: Match, e: DeckSupplied) -> Match:
    if state.phase is not Phase.DECK or e.deal_number != state.deal_number:
        raise BadEvent(f"deck for deal {e.deal_number} while {due(state)}")
    n = state.ruleset.players
    zeros: BySeat[int] = BySeat((0,) * n)
    deal = Deal(
        number=e.deal_number,
        dealer=state.dealer,
        deck=e.cards,
        turned=e.cards[deal_pattern(state.ruleset).turned],
        hands=zeros,
        passes=0,
        strain=NO_STRAIN,
        taker=NO_SEAT,
        turn=(state.dealer + 1) % n,
        trick=(),
        leader=(state.dealer + 1) % n,
        tricks=(),
        points=BySide((0, 0)),
        tricks_won=zeros,
        played=zeros,
        belote_calls=(),
        claims=(),
        shown=(),
        bottom=None,
        swapped_by=NO_SEAT,
        salts=e.salts,
    )
    return _with_deal(state, deal)


def _evolve_deal_started(state: Match, e: DealStarted) -> Match:
    deal = _need_deal(state)
    return _with_deal(state, deal, Phase.BIDDING)


def _evolve_dealt(state: Match, e: CardsDealt) -> Match:
    deal = _need_deal(state)
    return _with_deal(
        state, _set_hands(deal, deal.hands.set(e.seat, deal.hands[e.seat] | mask_of(e.cards)))
    )


def _evolve_passed(state: Match, e: Passed) -> Match:
    deal = _need_deal(state)
    n = state.ruleset.players
    passes = deal.passes + 1
    return _with_deal(
        state, deal._replace(passes=passes, turn=bidding.bidder(deal.dealer, n, passes))
    )


def _evolve_taken(state: Match, e: ContractTaken) -> Match:
    deal = _need_deal(state)
    deal = deal._replace(strain=int(e.strain), taker=e.seat, turn=deal.leader)
    return _with_deal(state, deal, Phase.PLAYING)


def _evolve_misere(state: Match, e: MisereStarted) -> Match:
    deal = _need_deal(state)
    deal = deal._replace(strain=int(Strain.MISERE), taker=NO_SEAT, turn=deal.leader)
    return _with_deal(state, deal, Phase.PLAYING)


def _evolve_bottom(state: Match, e: BottomCardShown) -> Match:
    return _with_deal(state, _need_deal(state)._replace(bottom=e.card))


def _evolve_redeal_demanded(state: Match, e: RedealDemanded) -> Match:
    _need_deal(state)
    return state


def _next_dealer(state: Match, winner_side: int | None) -> int:
    n = state.ruleset.players
    if state.ruleset.next_dealer is NextDealer.ROTATE:
        return (state.dealer + 1) % n
    # Gambler: the deal's winner deals; a redeal or a level deal keeps the dealer.
    if winner_side is None:
        return state.dealer
    return winner_side  # at two players a side is a seat


def _evolve_abandoned(state: Match, e: DealAbandoned) -> Match:
    _need_deal(state)
    return state._replace(
        phase=Phase.DECK,
        deal=None,
        deal_number=state.deal_number + 1,
        dealer=_next_dealer(state, None),
    )


def _evolve_swap(state: Match, e: TrumpSevenSwapped) -> Match:
    deal = _need_deal(state)
    hand = deal.hands[e.seat] & ~(1 << e.seven) | (1 << e.taken)
    deal = deal._replace(hands=deal.hands.set(e.seat, hand), turned=e.seven, swapped_by=e.seat)
    # A seat that declared and then swaps (002 allows the swap until its first card): its
    # melds are those of the hand it now holds, and its claim the best of them; a seat
    # whose hand no longer holds a meld has nothing left to claim.
    table = state.ruleset.melds
    if table is not None and any(s == e.seat for s, _, _ in deal.claims):
        melds = find_melds(hand, table)
        best = best_meld(melds, deal.strain)
        claims = []
        for s, claim, old in deal.claims:  # in declaration order: it breaks ties
            if s != e.seat:
                claims.append((s, claim, old))
            elif best is not None:
                claims.append((s, best.claim(deal.strain), melds))
        deal = deal._replace(claims=tuple(claims))
    return _with_deal(state, deal)


def _evolve_meld(state: Match, e: MeldDeclared) -> Match:
    deal = _need_deal(state)
    table = state.ruleset.melds
    if table is None:
        raise BadEvent("this ruleset has no melds")
    melds = find_melds(deal.hands[e.seat], table)
    return _with_deal(state, deal._replace(claims=(*deal.claims, (e.seat, e.claim, melds))))


def _evolve_belote(state: Match, e: BeloteAnnounced) -> Match:
    deal = _need_deal(state)
    return _with_deal(state, deal._replace(belote_calls=(*deal.belote_calls, (e.seat, e.card))))


def _evolve_card(state: Match, e: CardPlayed) -> Match:
    deal = state.deal
    if deal is None or state.phase is not Phase.PLAYING or e.seat != deal.turn:
        raise BadEvent(f"seat {e.seat} cannot play now")
    bit = 1 << e.card
    seat = e.seat
    hands = list(deal.hands)
    hands[seat] &= ~bit
    played = list(deal.played)
    played[seat] |= bit
    deal = Deal(
        deal.number,
        deal.dealer,
        deal.deck,
        deal.turned,
        BySeat(hands),
        deal.passes,
        deal.strain,
        deal.taker,
        (seat + 1) % state.ruleset.players,
        (*deal.trick, e.card),
        deal.leader,
        deal.tricks,
        deal.points,
        deal.tricks_won,
        BySeat(played),
        deal.belote_calls,
        deal.claims,
        deal.shown,
        deal.bottom,
        deal.swapped_by,
        deal.salts,
    )
    return _with_deal(state, deal)


def _evolve_trick(state: Match, e: TrickTaken) -> Match:
    deal = _need_deal(state)
    seat = e.seat
    side = side_of(seat)
    deal = Deal(
        deal.number,
        deal.dealer,
        deal.deck,
        deal.turned,
        deal.hands,
        deal.passes,
        deal.strain,
        deal.taker,
        seat,
        (),
        seat,
        (*deal.tricks, Trick(deal.leader, e.cards, seat, e.points)),
        deal.points.set(side, deal.points[side] + e.points),
        deal.tricks_won.set(seat, deal.tricks_won[seat] + 1),
        deal.played,
        deal.belote_calls,
        deal.claims,
        deal.shown,
        deal.bottom,
        deal.swapped_by,
        deal.salts,
    )
    return _with_deal(state, deal)


def _evolve_shown(state: Match, e: MeldsShown) -> Match:
    deal = _need_deal(state)
    return _with_deal(state, deal._replace(shown=(*deal.shown, (e.seat, e.melds))))


def _evolve_scored(state: Match, e: DealScored) -> Match:
    deal = _need_deal(state)
    taker_side = None if deal.taker == NO_SEAT else side_of(deal.taker)
    return state._replace(
        phase=Phase.DECK,
        scores=BySide(e.scores),
        hanging=e.hanging,
        deal_number=state.deal_number + 1,
        dealer=_next_dealer(state, e.winner),
        deals_scored=state.deals_scored + 1,
        deal=None,
        last_defender=None if taker_side is None else 1 - taker_side,
        last_winner=e.winner,
    )


def _evolve_ended(state: Match, e: MatchEnded) -> Match:
    return state._replace(phase=Phase.OVER, result=Result(e.winner, e.scores))


_EVOLVERS: Final[dict[type, Callable[[Match, Any], Match]]] = {
    MatchStarted: _evolve_started,
    DeckSupplied: _evolve_deck,
    DealStarted: _evolve_deal_started,
    CardsDealt: _evolve_dealt,
    Passed: _evolve_passed,
    ContractTaken: _evolve_taken,
    MisereStarted: _evolve_misere,
    BottomCardShown: _evolve_bottom,
    RedealDemanded: _evolve_redeal_demanded,
    DealAbandoned: _evolve_abandoned,
    TrumpSevenSwapped: _evolve_swap,
    MeldDeclared: _evolve_meld,
    BeloteAnnounced: _evolve_belote,
    CardPlayed: _evolve_card,
    TrickTaken: _evolve_trick,
    MeldsShown: _evolve_shown,
    DealScored: _evolve_scored,
    MatchEnded: _evolve_ended,
}
