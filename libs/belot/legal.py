"""What the seat due to act may do: the single source of legality for the aggregate.

:func:`legal_moves` lists exactly the commands :func:`belot.decide.decide` accepts; the
``can_*`` predicates are shared by both, and the rules of the trick itself are
:func:`belot.play.playable`.
"""

from __future__ import annotations

from typing import Final

from belot import bidding
from belot.cards import (
    KING,
    QUEEN,
    RANK_MASKS,
    SEVEN,
    SUIT_MASKS,
    Card,
    Mask,
    make_card,
)
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SwapTrumpSeven,
)
from belot.melds import (
    has_four_low,
    has_meld,
)
from belot.play import playable
from belot.ruleset import BeloteAnnounce, Strain
from belot.seats import side_of
from belot.state import Deal, Match, Phase

# --- Rules shared by decide and legal_moves ------------------------------------------


def _first_card_pending(deal: Deal, seat: int) -> bool:
    return deal.played[seat] == 0


def can_swap_seven(state: Match, seat: int) -> bool:
    """Gambler: the seat holds the trump seven, trump is the turned suit, and it has not
    played yet (002: "любой игрок до своего первого хода"), whether or not it has declared
    its melds: a declaration is then judged on the hand after the swap (see evolve)."""
    deal = state.deal
    if not state.ruleset.seven_swap or deal is None or state.phase is not Phase.PLAYING:
        return False
    strain = deal.strain
    return (
        0 <= strain <= 3
        and deal.turned >> 3 == strain
        and bool(deal.hands[seat] >> make_card(strain, SEVEN) & 1)
        and _first_card_pending(deal, seat)
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
