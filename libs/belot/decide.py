"""Deciding: a command against the state gives events, or a RulesError and nothing.

Each command has one decider. A card that completes a trick also gives ``TrickTaken``
(and after the first trick ``MeldsShown``); the last trick gives ``DealScored`` and,
when a side reaches the target, ``MatchEnded``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from belot import bidding
from belot.cards import (
    EIGHT,
    LAST_TRICK_POINTS,
    RANK_MASKS,
    SEVEN,
    Card,
    make_card,
    to_code,
)
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SupplyDeck,
    SwapTrumpSeven,
)
from belot.deal import completion_hands, deal_pattern, first_hands
from belot.errors import (
    BeloteNotAllowed,
    BidNotAllowed,
    CardNotInHand,
    IllegalCard,
    MatchOver,
    MeldNotAllowed,
    NotExpected,
    NotYourTurn,
    RedealNotAllowed,
    SwapNotAllowed,
    UnknownSeat,
    WrongDeck,
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
    MeldDeclared,
    MeldsShown,
    MisereStarted,
    Passed,
    RedealDemanded,
    TrickTaken,
    TrumpSevenSwapped,
)
from belot.evolve import evolve
from belot.legal import (
    belote_points,
    can_announce_belote,
    can_declare_melds,
    can_demand_redeal,
    can_swap_seven,
)
from belot.melds import (
    best_meld,
    find_melds,
    meld_points,
    winning_claim,
)
from belot.play import broken_rule, playable, trick_points, winning_index
from belot.ruleset import AllPass, BeloteAnnounce, BothReach, Strain
from belot.salts import COMPLETION, FIRST, salt_index, salt_of, salts_problem
from belot.scoring import Tally, score_deal
from belot.seats import side_of
from belot.state import NO_SEAT, Deal, Match, Phase

# --- Decide ------------------------------------------------------------------------------


def decide(state: Match, command: Command) -> list[Event]:
    """The events ``command`` produces, or a :class:`~belot.errors.RulesError` subclass
    (and no event): MatchOver, UnknownSeat, NotExpected, NotYourTurn, WrongDeck,
    BidNotAllowed, CardNotInHand, IllegalCard, BeloteNotAllowed, MeldNotAllowed,
    SwapNotAllowed, RedealNotAllowed."""
    if state.phase is Phase.OVER:
        raise MatchOver("the match is over")
    handler = _DECIDERS.get(type(command))
    if handler is None:
        raise NotExpected(f"unknown command {type(command).__name__}")
    return handler(state, command)


def _seat_deal(state: Match, seat: int, phase: Phase, what: str) -> Deal:
    if not 0 <= seat < state.ruleset.players:
        raise UnknownSeat(f"seat {seat}: this table has seats 0..{state.ruleset.players - 1}")
    if state.phase is not phase:
        raise NotExpected(f"{what} is not expected now: the match is at {state.phase.value}")
    deal = state.deal
    assert deal is not None
    if deal.turn != seat:
        raise NotYourTurn(f"it is seat {deal.turn}'s turn, not seat {seat}'s")
    return deal


def _decide_deck(state: Match, cmd: SupplyDeck) -> list[Event]:
    if state.phase is not Phase.DECK:
        raise NotExpected("a deck is not expected now: the deal is under way")
    if cmd.deal_number != state.deal_number:
        raise WrongDeck(f"deck for deal {cmd.deal_number}; deal {state.deal_number} is due")
    rules = state.ruleset
    if sorted(cmd.cards) != list(range(rules.deck_size)):
        raise WrongDeck(f"a deck holds each of the {rules.deck_size} cards exactly once")
    problem = salts_problem(rules.players, cmd.salts)
    if problem is not None:
        raise WrongDeck(problem)
    cards = tuple(Card(c) for c in cmd.cards)
    salts = tuple(cmd.salts)
    hands = first_hands(rules, cards, state.dealer)
    turned = cards[deal_pattern(rules).turned]
    events: list[Event] = [
        DeckSupplied(state.deal_number, cards, salts),
        DealStarted(state.deal_number, state.dealer, turned),
    ]
    n = rules.players
    events.extend(
        CardsDealt(seat, hands[seat], salt_of(salts, salt_index(n, seat, FIRST)))
        for seat in _dealing_order(state)
    )
    return events


def _dealing_order(state: Match) -> list[int]:
    n = state.ruleset.players
    return [(state.dealer + 1 + i) % n for i in range(n)]


def _completion(state: Match, deal: Deal, taker: int | None) -> list[Event]:
    rules = state.ruleset
    hands = completion_hands(rules, deal.deck, deal.dealer, taker)
    n = rules.players
    events: list[Event] = [
        CardsDealt(seat, hands[seat], salt_of(deal.salts, salt_index(n, seat, COMPLETION)))
        for seat in _dealing_order(state)
    ]
    shown = deal_pattern(rules).shown
    if shown is not None:
        events.append(BottomCardShown(deal.deck[shown]))
    return events


def _decide_bid(state: Match, cmd: Bid) -> list[Event]:
    deal = _seat_deal(state, cmd.seat, Phase.BIDDING, "a bid")
    rules = state.ruleset
    allowed = bidding.allowed_calls(rules, deal.turned >> 3, deal.passes)
    strain = cmd.strain
    if strain is not None and strain not in list(Strain):
        raise BidNotAllowed(f"{strain!r} is not a contract")
    if strain not in allowed:
        names = ", ".join("pass" if c is None else c.name.lower() for c in allowed)
        said = "pass" if strain is None else Strain(strain).name.lower()
        raise BidNotAllowed(f"{said} is not allowed now; the calls open are: {names}")
    if strain is not None:
        return [ContractTaken(cmd.seat, Strain(strain)), *_completion(state, deal, cmd.seat)]
    events: list[Event] = [Passed(cmd.seat)]
    if bidding.is_all_passed(rules.players, deal.passes + 1):
        if rules.all_pass is AllPass.MISERE:
            events += [MisereStarted(), *_completion(state, deal, None)]
        else:
            events.append(DealAbandoned(deal.number, "all_passed"))
    return events


def _decide_play(state: Match, cmd: PlayCard) -> list[Event]:
    deal = _seat_deal(state, cmd.seat, Phase.PLAYING, "a card")
    rules = state.ruleset
    card = cmd.card
    hand = deal.hands[cmd.seat]
    if not (0 <= card < 32 and hand >> card & 1):
        raise CardNotInHand(
            f"seat {cmd.seat} does not hold {to_code(card) if 0 <= card < 32 else card}"
        )
    if not playable(hand, deal.trick, deal.strain, rules) >> card & 1:
        broken = broken_rule(hand, deal.trick, deal.strain, rules, card)
        raise IllegalCard(broken.words(), details=broken.details())
    events: list[Event] = []
    if cmd.belote:
        if deal.strain > Strain.ALL_TRUMPS or not can_announce_belote(state, cmd.seat, card):
            raise BeloteNotAllowed(
                f"belote cannot be announced with {to_code(card)}: "
                + _belote_rule_words(rules.belote_announce)
            )
        events.append(BeloteAnnounced(cmd.seat, card))
    events.append(CardPlayed(cmd.seat, card))
    n = rules.players
    if len(deal.trick) + 1 < n:
        return events
    cards = (*deal.trick, card)
    winner = (deal.leader + winning_index(cards, deal.strain)) % n
    last = len(deal.tricks) + 1 == rules.tricks
    points = trick_points(cards, deal.strain) + (LAST_TRICK_POINTS if last else 0)
    events.append(TrickTaken(winner, cards, points))
    if not deal.tricks and deal.claims:
        events += _shown_melds(deal)
    if last:
        events += _deal_end(state, events)
    return events


def _belote_rule_words(rule: BeloteAnnounce) -> str:
    if rule is BeloteAnnounce.KING_FIRST:
        return "announce the trump king while holding the queen, then the queen"
    if rule is BeloteAnnounce.FIRST_CARD:
        return "announce the first of the trump king and queen while holding the other"
    return "announce a trump king or queen of a pair you were dealt, once"


def _shown_melds(deal: Deal) -> list[Event]:
    best = winning_claim((seat, claim) for seat, claim, _ in deal.claims)
    assert best is not None
    side = side_of(best)
    return [MeldsShown(seat, melds) for seat, _, melds in deal.claims if side_of(seat) == side]


def _deal_end(state: Match, events: list[Event]) -> list[Event]:
    """DealScored, and MatchEnded if a side reached the target, after ``events``."""
    after = state
    for e in events:
        after = evolve(after, e)
    deal = after.deal
    assert deal is not None
    rules = state.ruleset
    melds = [0, 0]
    table = rules.melds
    if table is not None:
        for seat, shown in deal.shown:
            if rules.melds_need_a_trick and deal.tricks_won[seat] == 0:
                continue
            melds[side_of(seat)] += meld_points(shown, table)
    tricks = [0, 0]
    for seat, won in enumerate(deal.tricks_won):
        tricks[side_of(seat)] += won
    tally = Tally(
        cards=(deal.points[0], deal.points[1]),
        tricks=(tricks[0], tricks[1]),
        melds=(melds[0], melds[1]),
        belote=belote_points(state, deal),
    )
    taker_side = None if deal.taker == NO_SEAT else side_of(deal.taker)
    score = score_deal(rules, deal.strain, taker_side, tally, state.hanging)
    scores = (state.scores[0] + score.awarded[0], state.scores[1] + score.awarded[1])
    out: list[Event] = [
        DealScored(
            deal.number,
            score.outcome,
            score.totals,
            score.awarded,
            scores,
            score.hanging,
            score.winner,
        )
    ]
    ended = _match_end(state, scores, taker_side, score.winner)
    if ended is not None:
        out.append(ended)
    return out


def _match_end(
    state: Match, scores: tuple[int, int], taker_side: int | None, deal_winner: int | None
) -> MatchEnded | None:
    target = state.target
    reached = [s for s in (0, 1) if scores[s] >= target]
    if not reached:
        return None
    if len(reached) == 1:
        return MatchEnded(reached[0], scores)
    if state.ruleset.both_reach is BothReach.LAST_DEFENDER_WINS:
        # 002: "the one who defended the last deal wins, 1001:1000". After a misère
        # nobody defended: its winner takes the place (our choice, docs/rules.md).
        side = 1 - taker_side if taker_side is not None else deal_winner
        if side is not None:
            final = (target, target - 1) if side == 0 else (target - 1, target)
            return MatchEnded(side, final)
    if scores[0] == scores[1]:
        return MatchEnded(None, scores)
    return MatchEnded(0 if scores[0] > scores[1] else 1, scores)


def _decide_melds(state: Match, cmd: DeclareMelds) -> list[Event]:
    deal = _seat_deal(state, cmd.seat, Phase.PLAYING, "a meld declaration")
    if not can_declare_melds(state, cmd.seat):
        raise MeldNotAllowed(
            "melds are declared once, before one's first card, in a contract with melds, "
            "by a seat that holds one"
        )
    table = state.ruleset.melds
    assert table is not None
    best = best_meld(find_melds(deal.hands[cmd.seat], table), deal.strain)
    assert best is not None
    return [MeldDeclared(cmd.seat, best.claim(deal.strain))]


def _decide_swap(state: Match, cmd: SwapTrumpSeven) -> list[Event]:
    deal = _seat_deal(state, cmd.seat, Phase.PLAYING, "a trump-seven swap")
    if not can_swap_seven(state, cmd.seat):
        raise SwapNotAllowed(
            "the trump seven is swapped for the turned card by its holder, before its first "
            "card, when trump is the turned card's suit"
        )
    return [TrumpSevenSwapped(cmd.seat, make_card(deal.strain, SEVEN), deal.turned)]


def _decide_redeal(state: Match, cmd: DemandRedeal) -> list[Event]:
    deal = _seat_deal(state, cmd.seat, Phase.PLAYING, "a redeal demand")
    if not can_demand_redeal(state, cmd.seat):
        raise RedealNotAllowed(
            "a redeal may be demanded only with four 7s or four 8s, before one's first card"
        )
    hand = deal.hands[cmd.seat]
    rank = SEVEN if hand & RANK_MASKS[SEVEN] == RANK_MASKS[SEVEN] else EIGHT
    return [RedealDemanded(cmd.seat, rank), DealAbandoned(deal.number, "redeal_demanded")]


_DECIDERS: Final[dict[type, Callable[[Match, Any], list[Event]]]] = {
    SupplyDeck: _decide_deck,
    Bid: _decide_bid,
    PlayCard: _decide_play,
    DeclareMelds: _decide_melds,
    SwapTrumpSeven: _decide_swap,
    DemandRedeal: _decide_redeal,
}
