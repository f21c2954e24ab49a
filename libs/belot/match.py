"""A match as an event-sourced aggregate: ``decide`` commands into events, ``evolve``
the state with each event, ``replay`` a log.

The state is a frozen :class:`Match`; the deal in progress is a frozen :class:`Deal`.
Nothing here does I/O, reads a clock or draws a random number: decks come in as
:class:`~belot.commands.SupplyDeck` commands, and :func:`due` says when one is needed
and for which deal number (redeals count, as the fair-deal recipe says).

A deal runs: deck supplied -> first distribution and turned card -> bidding ->
completion -> play (with melds, belote, gambler's seven swap and redeal demand before
a seat's first card) -> score -> next deck, until a side reaches the target.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from belot import bidding
from belot.cards import (
    EIGHT,
    KING,
    LAST_TRICK_POINTS,
    QUEEN,
    RANK_MASKS,
    SEVEN,
    SUIT_MASKS,
    Card,
    Mask,
    make_card,
    mask_of,
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
    BadEvent,
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
    Meld,
    MeldClaim,
    best_meld,
    find_melds,
    has_four_low,
    has_meld,
    meld_points,
    winning_claim,
)
from belot.play import Trick, playable, trick_points, why_illegal, winning_index
from belot.ruleset import AllPass, BeloteAnnounce, BothReach, NextDealer, Ruleset, Strain
from belot.scoring import Tally, score_deal
from belot.seats import BySeat, BySide, side_of

NO_STRAIN: Final = -1
NO_SEAT: Final = -1


class Phase(enum.Enum):
    DECK = "deck"  # waiting for deal ``deal_number``'s deck
    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


class Deal(NamedTuple):
    """The deal in progress. Hands are card masks by seat.

    A NamedTuple rather than a frozen dataclass: as immutable, and built ten times faster,
    which is most of what a deal costs (see bench/game.py)."""

    number: int
    dealer: int
    deck: tuple[Card, ...]
    #: The card face up: the turned card, or the trump seven after a swap.
    turned: Card
    hands: BySeat[Mask]
    #: Passes so far (the first take ends bidding).
    passes: int
    #: The contract's strain, or NO_STRAIN during bidding.
    strain: int
    #: The seat that took, or NO_SEAT (bidding, misère).
    taker: int
    #: The seat due to act (bid or card).
    turn: int
    trick: tuple[Card, ...]
    leader: int
    #: Finished tricks, in order.
    tricks: tuple[Trick, ...]
    #: Card points taken by each side, the last trick's 10 included.
    points: BySide[int]
    tricks_won: BySeat[int]
    #: Cards each seat has played this deal.
    played: BySeat[Mask]
    #: Valid belote announcements: (seat, card announced with).
    belote_calls: tuple[tuple[int, Card], ...]
    #: Meld declarations in order: (seat, claim, the melds the seat held).
    claims: tuple[tuple[int, MeldClaim, tuple[Meld, ...]], ...]
    #: Melds shown after the first trick: (seat, melds).
    shown: tuple[tuple[int, tuple[Meld, ...]], ...]
    bottom: Card | None
    #: The seat that swapped the trump seven, or NO_SEAT.
    swapped_by: int


@dataclass(frozen=True, slots=True)
class Result:
    """How the match ended: ``winner`` a side or None for a draw; ``scores`` as recorded."""

    winner: int | None
    scores: tuple[int, int]


class Match(NamedTuple):
    """A match's state: a fold of its events (immutable, see :class:`Deal` for why a
    NamedTuple)."""

    ruleset: Ruleset
    match_id: str
    target: int
    first_dealer: int
    phase: Phase
    scores: BySide[int]
    #: Points hanging from level deals, waiting for the next deal's winner.
    hanging: int
    #: The current deal's number, or the next deck's while ``phase`` is DECK.
    deal_number: int
    dealer: int
    deals_scored: int
    deal: Deal | None
    #: The side that defended the last scored deal (None: misère or none yet).
    last_defender: int | None
    #: The side that won the last scored deal (None: level or none yet).
    last_winner: int | None
    result: Result | None


class DueKind(enum.Enum):
    DECK = "deck"
    BID = "bid"
    CARD = "card"
    NOTHING = "nothing"


@dataclass(frozen=True, slots=True)
class Due:
    """What the match waits for: a deck (with its deal number), a seat's bid or card."""

    kind: DueKind
    seat: int | None
    deal_number: int


# --- Starting, replaying --------------------------------------------------------------


def new_match(
    ruleset: Ruleset, match_id: str = "", *, target: int | None = None, first_dealer: int = 0
) -> Match:
    """A match waiting for deal 0's deck. ``target`` defaults to the ruleset's; the first
    dealer comes from outside (gambler draws it at random: the table does that)."""
    if not 0 <= first_dealer < ruleset.players:
        raise UnknownSeat(f"first dealer {first_dealer}: seats are 0..{ruleset.players - 1}")
    goal = ruleset.target if target is None else target
    if goal <= 0:
        raise ValueError(f"target {goal}: it must be positive")
    return Match(
        ruleset=ruleset,
        match_id=match_id,
        target=goal,
        first_dealer=first_dealer,
        phase=Phase.DECK,
        scores=BySide((0, 0)),
        hanging=0,
        deal_number=0,
        dealer=first_dealer,
        deals_scored=0,
        deal=None,
        last_defender=None,
        last_winner=None,
        result=None,
    )


def started_event(state: Match) -> MatchStarted:
    """The event that opens the match's log (replay starts from it)."""
    return MatchStarted(state.match_id, state.ruleset.name, state.target, state.first_dealer)


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


# --- What is due -----------------------------------------------------------------------


def due(state: Match) -> Due:
    if state.phase is Phase.OVER:
        return Due(DueKind.NOTHING, None, state.deal_number)
    if state.phase is Phase.DECK:
        return Due(DueKind.DECK, None, state.deal_number)
    deal = state.deal
    assert deal is not None
    kind = DueKind.BID if state.phase is Phase.BIDDING else DueKind.CARD
    return Due(kind, deal.turn, state.deal_number)


def whose_turn(state: Match) -> int | None:
    """The seat due to bid or play, or None (a deck is due, or the match is over)."""
    if state.phase is Phase.BIDDING or state.phase is Phase.PLAYING:
        assert state.deal is not None
        return state.deal.turn
    return None


# --- Rules shared by decide and legal_moves ------------------------------------------


def _first_card_pending(deal: Deal, seat: int) -> bool:
    return deal.played[seat] == 0


def can_swap_seven(state: Match, seat: int) -> bool:
    """Gambler: the seat holds the trump seven, trump is the turned suit, it has not
    played yet nor declared (a declaration is made on the hand it will keep)."""
    deal = state.deal
    if not state.ruleset.seven_swap or deal is None or state.phase is not Phase.PLAYING:
        return False
    strain = deal.strain
    return (
        0 <= strain <= 3
        and deal.turned >> 3 == strain
        and bool(deal.hands[seat] >> make_card(strain, SEVEN) & 1)
        and _first_card_pending(deal, seat)
        and all(s != seat for s, _, _ in deal.claims)
    )


def can_demand_redeal(state: Match, seat: int) -> bool:
    deal = state.deal
    if not state.ruleset.redeal_on_four_low or deal is None or state.phase is not Phase.PLAYING:
        return False
    return _first_card_pending(deal, seat) and has_four_low(deal.hands[seat])


def can_declare_melds(state: Match, seat: int) -> bool:
    deal = state.deal
    table = state.ruleset.melds
    if table is None or deal is None or state.phase is not Phase.PLAYING:
        return False
    return (
        deal.strain != Strain.MISERE
        and _first_card_pending(deal, seat)
        and all(s != seat for s, _, _ in deal.claims)
        and has_meld(deal.hands[seat], table)
    )


def can_announce_belote(state: Match, seat: int, card: Card) -> bool:
    """May ``seat`` announce belote (or rebelote) with ``card`` now?"""
    deal = state.deal
    assert deal is not None
    suit, rank = card >> 3, card & 7
    if rank != KING and rank != QUEEN:
        return False
    if not (deal.strain == suit or deal.strain == Strain.ALL_TRUMPS):
        return False
    other = make_card(suit, QUEEN if rank == KING else KING)
    holds_other = bool(deal.hands[seat] >> other & 1)
    called = [c for s, c in deal.belote_calls if s == seat and c >> 3 == suit]
    rule = state.ruleset.belote_announce
    if rule is BeloteAnnounce.FIRST_CARD:
        return holds_other
    if rule is BeloteAnnounce.KING_FIRST:
        # "belote" on the king while holding the queen, then "rebelote" on the queen.
        return (rank == KING and holds_other) or (rank == QUEEN and other in called)
    # EITHER_CARD: on either card of a pair the seat was dealt, once.
    return not called and (holds_other or bool(deal.played[seat] >> other & 1))


def belote_points(state: Match, deal: Deal) -> tuple[int, int]:
    """Belote points per side earned so far in ``deal`` (valid announcements only)."""
    out = [0, 0]
    pairs = {(seat, card >> 3) for seat, card in deal.belote_calls}
    for seat, suit in pairs:
        if state.ruleset.belote_announce is BeloteAnnounce.KING_FIRST:
            calls = {c & 7 for s, c in deal.belote_calls if s == seat and c >> 3 == suit}
            if calls != {KING, QUEEN}:
                continue
        out[side_of(seat)] += state.ruleset.belote_points
    return out[0], out[1]


# --- Legal moves ------------------------------------------------------------------------

#: ``[seat][suit][byte]``: the PlayCard commands for the cards of ``suit`` whose rank
#: bits are ``byte``, ascending. Commands are values, so sharing them is safe, and
#: listing legal cards a byte at a time is most of what makes a deal fast.
_PLAYS_BY_SUIT_BYTE: Final = tuple(
    tuple(
        tuple(
            tuple(PlayCard(seat, Card(suit * 8 + r)) for r in range(8) if byte >> r & 1)
            for byte in range(256)
        )
        for suit in range(4)
    )
    for seat in range(4)
)


#: Kings and queens that may carry a belote announcement, by strain.
_BELOTE_CARDS: Final = (
    *(RANK_MASKS[KING] & SUIT_MASKS[s] | RANK_MASKS[QUEEN] & SUIT_MASKS[s] for s in range(4)),
    RANK_MASKS[KING] | RANK_MASKS[QUEEN],
    0,
    0,
)


def legal_cards(state: Match) -> Mask:
    """The cards the seat due to play may play (0 when no card is due)."""
    deal = state.deal
    if state.phase is not Phase.PLAYING or deal is None:
        return 0
    return playable(deal.hands[deal.turn], deal.trick, deal.strain, state.ruleset)


def legal_moves(state: Match) -> tuple[Command, ...]:
    """Every command :func:`decide` accepts from the seat due to act, in a fixed order
    (optional actions before cards). Empty while a deck is due or after the match."""
    deal = state.deal
    if deal is None:
        return ()
    seat = deal.turn
    if state.phase is Phase.BIDDING:
        calls = bidding.allowed_calls(state.ruleset, deal.turned >> 3, deal.passes)
        return tuple(Bid(seat, call) for call in calls)
    moves: list[Command] = []
    if deal.played[seat] == 0:
        if can_swap_seven(state, seat):
            moves.append(SwapTrumpSeven(seat))
        if can_demand_redeal(state, seat):
            moves.append(DemandRedeal(seat))
        if can_declare_melds(state, seat):
            moves.append(DeclareMelds(seat))
    mask = playable(deal.hands[seat], deal.trick, deal.strain, state.ruleset)
    by_byte = _PLAYS_BY_SUIT_BYTE[seat]
    for suit in range(4):
        byte = (mask >> (8 * suit)) & 0xFF
        if byte:
            moves.extend(by_byte[suit][byte])
    kings_queens = mask & _BELOTE_CARDS[deal.strain] if deal.strain >= 0 else 0
    while kings_queens:
        low = kings_queens & -kings_queens
        kings_queens ^= low
        card = Card(low.bit_length() - 1)
        if can_announce_belote(state, seat, card):
            moves.append(PlayCard(seat, card, True))
    return tuple(moves)


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
    cards = tuple(Card(c) for c in cmd.cards)
    hands = first_hands(rules, cards, state.dealer)
    turned = cards[deal_pattern(rules).turned]
    events: list[Event] = [
        DeckSupplied(state.deal_number, cards),
        DealStarted(state.deal_number, state.dealer, turned),
    ]
    events.extend(CardsDealt(seat, hands[seat]) for seat in _dealing_order(state))
    return events


def _dealing_order(state: Match) -> list[int]:
    n = state.ruleset.players
    return [(state.dealer + 1 + i) % n for i in range(n)]


def _completion(state: Match, deal: Deal, taker: int | None) -> list[Event]:
    rules = state.ruleset
    hands = completion_hands(rules, deal.deck, deal.dealer, taker)
    events: list[Event] = [CardsDealt(seat, hands[seat]) for seat in _dealing_order(state)]
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
        raise IllegalCard(why_illegal(hand, deal.trick, deal.strain, rules, card))
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
        # nobody defended: its winner takes the place (our choice, see README).
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
            "card and any declaration, when trump is the turned card's suit"
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
