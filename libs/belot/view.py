"""What one seat may see: its own hand, the open cards and public history, and its legal
moves when it is due to act. The only thing a client or a bot is given.

:class:`SeatView` holds no reference to the match state and no other seat's cards, so
code handed a view cannot reach hidden cards by construction (a test checks that two
states that differ only in other seats' hidden cards give equal views).
"""

from __future__ import annotations

from dataclasses import dataclass

from belot.cards import Card, cards_in
from belot.commands import Command
from belot.deal import deal_pattern
from belot.match import NO_SEAT, NO_STRAIN, Match, Phase, legal_moves
from belot.melds import Meld, MeldClaim
from belot.play import Trick
from belot.ruleset import Ruleset, Strain


@dataclass(frozen=True)
class SeatView:
    ruleset: Ruleset
    seat: int
    target: int
    #: Match scores by side, and points hanging from level deals.
    scores: tuple[int, int]
    hanging: int
    #: "deck", "bidding", "playing" or "over".
    phase: str
    deal_number: int
    dealer: int
    #: The seat's cards, ascending.
    hand: tuple[Card, ...]
    #: The face-up card (the trump seven after a swap), None between deals.
    turned: Card | None
    #: Calls so far in order: (seat, strain taken or None for a pass).
    calls: tuple[tuple[int, Strain | None], ...]
    #: The contract once bidding is over (MISERE with no taker after four passes).
    strain: Strain | None
    taker: int | None
    #: The trick on the table: (seat, card) in play order.
    trick: tuple[tuple[int, Card], ...]
    #: Finished tricks of this deal.
    tricks: tuple[Trick, ...]
    #: Cards left in each seat's hand.
    hand_sizes: tuple[int, ...]
    #: Belote announcements: (seat, card).
    belote_calls: tuple[tuple[int, Card], ...]
    #: Meld declarations in order: (seat, claim).
    meld_claims: tuple[tuple[int, MeldClaim], ...]
    #: Melds shown after the first trick: (seat, melds).
    melds_shown: tuple[tuple[int, tuple[Meld, ...]], ...]
    #: Gambler's seven swap: (seat, seven, card taken), if it happened.
    swap: tuple[int, Card, Card] | None
    #: Gambler's bottom card, once shown.
    bottom: Card | None
    #: The seat due to bid or play, or None.
    turn: int | None
    #: The commands this seat may send now (empty unless it is due to act).
    legal: tuple[Command, ...]

    @property
    def is_my_turn(self) -> bool:
        return self.turn == self.seat


def view(state: Match, seat: int) -> SeatView:
    """What ``seat`` may see of ``state``."""
    deal = state.deal
    n = state.ruleset.players
    if deal is None or state.phase is Phase.DECK:
        return SeatView(
            ruleset=state.ruleset,
            seat=seat,
            target=state.target,
            scores=(state.scores[0], state.scores[1]),
            hanging=state.hanging,
            phase=state.phase.value,
            deal_number=state.deal_number,
            dealer=state.dealer,
            hand=(),
            turned=None,
            calls=(),
            strain=None,
            taker=None,
            trick=(),
            tricks=(),
            hand_sizes=(0,) * n,
            belote_calls=(),
            meld_claims=(),
            melds_shown=(),
            swap=None,
            bottom=None,
            turn=None,
            legal=(),
        )
    first = (deal.dealer + 1) % n
    calls: list[tuple[int, Strain | None]] = [((first + i) % n, None) for i in range(deal.passes)]
    strain = None if deal.strain == NO_STRAIN else Strain(deal.strain)
    taker = None if deal.taker == NO_SEAT else deal.taker
    if taker is not None and strain is not None:
        calls.append((taker, strain))
    swap = None
    if deal.swapped_by != NO_SEAT:
        swap = (deal.swapped_by, deal.turned, deal.deck[deal_pattern(state.ruleset).turned])
    turn = deal.turn
    return SeatView(
        ruleset=state.ruleset,
        seat=seat,
        target=state.target,
        scores=(state.scores[0], state.scores[1]),
        hanging=state.hanging,
        phase=state.phase.value,
        deal_number=deal.number,
        dealer=deal.dealer,
        hand=cards_in(deal.hands[seat]),
        turned=deal.turned,
        calls=tuple(calls),
        strain=strain,
        taker=taker,
        trick=tuple(((deal.leader + i) % n, c) for i, c in enumerate(deal.trick)),
        tricks=deal.tricks,
        hand_sizes=tuple(h.bit_count() for h in deal.hands),
        belote_calls=deal.belote_calls,
        meld_claims=tuple((s, claim) for s, claim, _ in deal.claims),
        melds_shown=deal.shown,
        swap=swap,
        bottom=deal.bottom,
        turn=turn,
        legal=legal_moves(state) if turn == seat else (),
    )
