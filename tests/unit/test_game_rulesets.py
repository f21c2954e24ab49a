"""docs/specification.md §2, the ruleset table, one test per row, each run for every column.

Tests are named after the row (``test_row_<row>[<ruleset>]``) and play the rule
through the match aggregate (decide/evolve) wherever it shows in play. Decks are
stacked with card codes, or the recipe's unshuffled order where any deck will do, so
that each card's value is its deck index.
"""

from __future__ import annotations

import random

import pytest

from belot.cards import FULL_DECK, Card, cards_in, parse_card
from belot.commands import Bid, DeclareMelds, DemandRedeal, PlayCard, SwapTrumpSeven
from belot.errors import BidNotAllowed, IllegalCard, MeldNotAllowed, RulesError, SwapNotAllowed
from belot.events import (
    BottomCardShown,
    DealAbandoned,
    DealScored,
    DealStarted,
    MatchEnded,
    MeldsShown,
    MisereStarted,
)
from belot.match import DueKind, Phase, belote_points, due, legal_moves
from belot.melds import find_melds
from belot.ruleset import (
    RULESETS,
    BeloteAnnounce,
    BothReach,
    NextDealer,
    PartnerException,
    Strain,
)
from belot.seats import BySide, side_of
from tests.unit.game_support import Table, cards, stack

NAMES = ["club", "classic", "french", "gambler"]
C, D, H, S = Strain.CLUBS, Strain.DIAMONDS, Strain.HEARTS, Strain.SPADES


def dealt(name: str, dealer: int = 0, deck: tuple[Card, ...] = FULL_DECK) -> Table:
    table = Table(RULESETS[name], first_dealer=dealer)
    table.deck(deck)
    return table


def hand_of(table: Table, seat: int) -> list[int]:
    return [int(c) for c in cards_in(table.hand(seat))]


# --- players -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "players"), [("club", 4), ("classic", 4), ("french", 4), ("gambler", 2)]
)
def test_row_players(name: str, players: int) -> None:
    assert RULESETS[name].players == players
    if players == 4:  # partners opposite
        assert side_of(0) == side_of(2) != side_of(1) == side_of(3)
    else:
        assert (side_of(0), side_of(1)) == (0, 1)


# --- first deal --------------------------------------------------------------------------

# With the unshuffled deck each card is its index. Dealer 0: dealing starts at its left.
FIRST = {
    "club": {
        1: [0, 1, 2, 12, 13],
        2: [3, 4, 5, 14, 15],
        3: [6, 7, 8, 16, 17],
        0: [9, 10, 11, 18, 19],
    },
    "classic": {
        1: [0, 1, 2, 12, 13],
        2: [3, 4, 5, 14, 15],
        3: [6, 7, 8, 16, 17],
        0: [9, 10, 11, 18, 19],
    },
    "french": {
        1: [0, 1, 2, 12, 13],
        2: [3, 4, 5, 14, 15],
        3: [6, 7, 8, 16, 17],
        0: [9, 10, 11, 18, 19],
    },
    "gambler": {1: [0, 1, 2, 6, 7, 8], 0: [3, 4, 5, 9, 10, 11]},
}
TURNED = {"club": 20, "classic": 20, "french": 20, "gambler": 12}


@pytest.mark.parametrize("name", NAMES)
def test_row_first_deal(name: str) -> None:
    table = dealt(name)
    for seat, expected in FIRST[name].items():
        assert hand_of(table, seat) == expected
    started = next(e for e in table.log if isinstance(e, DealStarted))
    assert started.turned == TURNED[name]
    assert table.state.phase is Phase.BIDDING


# --- bidding round 1 ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_row_bidding_round_1(name: str) -> None:
    """Round one from the dealer's left (the non-dealer at two), ending with the dealer:
    take the turned suit or pass."""
    dealer = 1
    table = dealt(name, dealer=dealer)
    turned = Strain(table.state.deal.turned >> 3)  # type: ignore[union-attr]
    n = table.ruleset.players
    for i in range(n):
        seat = (dealer + 1 + i) % n
        assert due(table.state).seat == seat
        assert legal_moves(table.state) == (Bid(seat, turned), Bid(seat, None))
        table.bid(seat)
    assert table.state.deal.turn == (dealer + 1) % n  # type: ignore[union-attr]


# --- bidding round 2 ---------------------------------------------------------------------

ROUND_2 = {
    "club": [S, D, C],
    "classic": [S, D, C],
    "french": [S, D, C],
    "gambler": [S, D, C, Strain.ALL_TRUMPS, Strain.NO_TRUMPS],
}


@pytest.mark.parametrize("name", NAMES)
def test_row_bidding_round_2(name: str) -> None:
    """Round two names another suit (gambler: also all-trumps or no-trumps); never the
    turned suit; the club dealer, last, may not pass."""
    table = dealt(name, deck=stack(RULESETS[name], 0, [""] * 4, "JH"))
    n = table.ruleset.players
    table.passes(*[(1 + i) % n for i in range(n)])
    for i in range(n):
        seat = (1 + i) % n
        calls = [m.strain for m in legal_moves(table.state) if isinstance(m, Bid)]
        forced = name == "club" and seat == 0
        assert sorted(c for c in calls if c is not None) == sorted(ROUND_2[name])
        assert (None in calls) != forced
        with pytest.raises(BidNotAllowed):
            table.bid(seat, H)
        if not forced:
            table.bid(seat)


# --- nobody takes ------------------------------------------------------------------------


def test_row_nobody_takes_club_dealer_is_forced() -> None:
    table = dealt("club")
    table.passes(1, 2, 3, 0, 1, 2, 3)
    with pytest.raises(BidNotAllowed) as refused:
        table.bid(0)
    assert refused.value.code == "bid_not_allowed"
    table.bid(0, S)
    assert table.state.phase is Phase.PLAYING


@pytest.mark.parametrize("name", ["classic", "french"])
def test_row_nobody_takes_redeal_by_the_next_dealer(name: str) -> None:
    table = dealt(name, dealer=3)
    table.passes(*[(3 + 1 + i) % 4 for i in range(8)])
    assert isinstance(table.log[-1], DealAbandoned)
    d = due(table.state)
    assert (d.kind, d.deal_number, table.state.dealer) == (DueKind.DECK, 1, 0)
    assert table.state.deals_scored == 0


def test_row_nobody_takes_gambler_plays_misere() -> None:
    table = dealt("gambler")
    table.passes(1, 0, 1, 0)
    assert any(isinstance(e, MisereStarted) for e in table.log)
    deal = table.state.deal
    assert deal is not None and deal.strain == Strain.MISERE and deal.taker == -1
    assert [h.bit_count() for h in deal.hands] == [9, 9]
    assert due(table.state).seat == 1  # the non-dealer leads
    table.play_out(random.Random(1), decks=False)
    scored = next(e for e in table.log if isinstance(e, DealScored))
    assert scored.outcome.value in ("misere", "misere_level")
    if scored.winner is not None:  # fewer card points wins the deal's points
        assert scored.totals[scored.winner] < scored.totals[1 - scored.winner]
        assert scored.awarded[scored.winner] == sum(scored.totals)


# --- rest of the deal --------------------------------------------------------------------

# Unshuffled deck, dealer 0, seat 2 takes: the completion starts at 21 (the turned card is
# 20) and goes round from the dealer's left, or from the taker in french.
REST = {
    "club": {1: [21, 22, 23], 2: [20, 24, 25], 3: [26, 27, 28], 0: [29, 30, 31]},
    "classic": {1: [21, 22, 23], 2: [20, 24, 25], 3: [26, 27, 28], 0: [29, 30, 31]},
    "french": {2: [20, 21, 22], 3: [23, 24, 25], 0: [26, 27, 28], 1: [29, 30, 31]},
}


@pytest.mark.parametrize("name", ["club", "classic", "french"])
def test_row_rest_of_the_deal_taker_gets_the_turned_card(name: str) -> None:
    table = dealt(name)
    table.passes(1)
    table.bid(2, H)  # the turned card, 20, is the jack of hearts
    for seat, rest in REST[name].items():
        assert hand_of(table, seat) == sorted(FIRST[name][seat] + rest)


def test_row_rest_of_the_deal_gambler_three_each_and_the_bottom_card() -> None:
    table = dealt("gambler")
    table.bid(1, D)  # the turned card, 12, is the jack of diamonds
    assert hand_of(table, 1) == sorted(FIRST["gambler"][1] + [13, 14, 15])
    assert hand_of(table, 0) == sorted(FIRST["gambler"][0] + [16, 17, 18])
    shown = [e for e in table.log if isinstance(e, BottomCardShown)]
    assert [e.card for e in shown] == [31]
    assert table.state.deal.turned == 12  # type: ignore[union-attr] - stays on the table


# --- lead --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_row_lead(name: str) -> None:
    """The seat left of the dealer leads (the non-dealer at two), whoever took."""
    table = dealt(name, dealer=1)
    n = table.ruleset.players
    table.passes(*[(2 + i) % n for i in range(n - 1)])
    table.bid(1, Strain(table.state.deal.turned >> 3))  # type: ignore[union-attr] - dealer takes
    d = due(table.state)
    assert (d.kind, d.seat) == (DueKind.CARD, (1 + 1) % n)


# --- void in led suit / trump led ---------------------------------------------------------

DUTIES = {
    "club": (PartnerException.NONE, True),
    "classic": (PartnerException.PARTNER_WINNING, True),
    "french": (PartnerException.PARTNER_LED, True),
    "gambler": (PartnerException.NONE, False),
}


VOID_DEALS = {
    # seat: (first distribution, completion); dealer 0, seat 1 takes hearts (JH turned).
    4: (
        ["7D AD 8H 9H TH", "7S 8C 9C TC JC", "7H AH 8D 9D TD", "8S 9S TS JS QS"],
        ["QH KH 7C", "QC KC", "JD QD KD", "KS AS AC"],
    ),
    2: (["7H AH 8D 9D TD JD", "7S 8C 9C TC JC QC"], ["QD KD AD", "KC AC 7D"]),
}


@pytest.mark.parametrize("name", NAMES)
def test_row_void_in_led_suit(name: str) -> None:
    """The parameters; the cases are the table of test_game_tricks.py. Here, played
    through the match: an opponent leads a spade, the next seat has none but holds
    trumps, so it must trump, and a discard is refused with the rule in words."""
    ruleset = RULESETS[name]
    assert (ruleset.partner_exception, ruleset.overtrump_a_ruff) == DUTIES[name]
    first, rest = VOID_DEALS[ruleset.players]
    table = dealt(name, deck=stack(ruleset, 0, first, "JH", rest, taker=1))
    table.bid(1, H)
    table.play(1, "7S")
    seat = due(table.state).seat
    legal = {m.card for m in legal_moves(table.state) if isinstance(m, PlayCard)}
    assert legal == set(cards("7H AH"))
    with pytest.raises(IllegalCard, match="must trump") as refused:
        table.play(seat, "8D")  # type: ignore[arg-type]
    assert refused.value.code == "illegal_card"
    # The facts a client says in its player's language: the rule, the suit led (spades,
    # which the seat lacks) and the cards allowed, the same as the English message's.
    assert refused.value.details == {
        "card": "8D", "rule": "trump", "suit": "S", "allowed": ["7H", "AH"],
    }  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_row_trump_led(name: str) -> None:
    assert RULESETS[name].raise_when_trump_led


# --- melds -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "has"), [("club", True), ("classic", False), ("french", False), ("gambler", True)]
)
def test_row_melds(name: str, has: bool) -> None:
    """A seat holding a tierce may declare it before its first card where the ruleset
    has melds; elsewhere the declaration is refused."""
    ruleset = RULESETS[name]
    n = ruleset.players
    first = [
        "9H TH JH 7C 8C" + (" 7D" if n == 2 else ""),
        "AS KS QS 7S 8S" + (" 8D" if n == 2 else ""),
    ]
    first += ["", ""][: n - 2]
    table = dealt(name, deck=stack(ruleset, 1, first, "AH"), dealer=n - 1)
    leader = 0
    table.bid(leader, H)
    assert (DeclareMelds(leader) in legal_moves(table.state)) == has
    if not has:
        with pytest.raises(MeldNotAllowed):
            table.do(DeclareMelds(leader))
        return
    table.do(DeclareMelds(leader))
    with pytest.raises(MeldNotAllowed):  # once only
        table.do(DeclareMelds(leader))
    assert DeclareMelds(leader) not in legal_moves(table.state)


def test_melds_are_shown_after_the_first_trick_and_score_club() -> None:
    ruleset = RULESETS["club"]
    # Dealer 3: seat 0 leads with a four of jacks; seat 1 holds a tierce.
    first = ["JC JD JH JS 7C", "7S 8S 9S AD KD", "", ""]
    table = dealt("club", dealer=3, deck=stack(ruleset, 3, first, "AH"))
    table.bid(0, H)
    table.do(DeclareMelds(0))
    table.do(PlayCard(0, parse_card("7C")))
    table.do(DeclareMelds(1))
    shown_before = table.state.deal.shown  # type: ignore[union-attr]
    assert shown_before == ()
    rng = random.Random(3)
    while table.state.deal is not None and len(table.state.deal.tricks) == 0:
        table.do(next(m for m in legal_moves(table.state) if isinstance(m, PlayCard)))
    shown = table.state.deal.shown  # type: ignore[union-attr]
    assert [seat for seat, _ in shown] == [0]  # four jacks beat a tierce; seat 2 declared nothing
    table.play_out(rng, decks=False)
    scored = next(e for e in table.log if isinstance(e, DealScored))
    assert scored.totals[0] + scored.totals[1] >= 162 + 200


# --- belote --------------------------------------------------------------------------------


def _belote_table(name: str) -> Table:
    """Seat 1 (left of dealer 0) holds trump king and queen of hearts and takes hearts."""
    ruleset = RULESETS[name]
    n = ruleset.players
    first = [
        "7C 8C 9C TC JC" + (" AC" if n == 2 else ""),
        "KH QH 7S 8S 9S" + (" TS" if n == 2 else ""),
    ]
    first += ["", ""][: n - 2]
    table = dealt(name, deck=stack(ruleset, 0, first, "7H"))
    table.bid(1, H)
    return table


def _to_seat(table: Table, seat: int) -> None:
    """Play first legal cards (no announcements) until ``seat`` is due."""
    while due(table.state).seat != seat:
        table.do(next(m for m in legal_moves(table.state) if isinstance(m, PlayCard)))


@pytest.mark.parametrize("name", NAMES)
def test_row_belote(name: str) -> None:
    """Queen first: club, classic and gambler accept the announcement; french wants the
    king first. 20 points to the side, whatever the contract does."""
    ruleset = RULESETS[name]
    table = _belote_table(name)
    assert ruleset.belote_points == 20
    if ruleset.belote_announce is BeloteAnnounce.KING_FIRST:
        with pytest.raises(RulesError) as refused:
            table.play(1, "QH", belote=True)
        assert refused.value.code == "belote_not_allowed"
        table.play(1, "KH", belote=True)
        _to_seat(table, 1)
        table.play(1, "QH", belote=True)
    else:
        table.play(1, "QH", belote=True)
        _to_seat(table, 1)
        if ruleset.belote_announce is BeloteAnnounce.FIRST_CARD:
            with pytest.raises(RulesError):  # announced once, on the first card
                table.play(1, "KH", belote=True)
        table.play(1, "KH")
    deal = table.state.deal
    assert deal is not None
    assert belote_points(table.state, deal) == (0, 20)


def test_french_belote_needs_both_announcements() -> None:
    table = _belote_table("french")
    table.play(1, "KH", belote=True)
    _to_seat(table, 1)
    table.play(1, "QH")  # rebelote forgotten
    assert belote_points(table.state, table.state.deal) == (0, 0)  # type: ignore[arg-type]


def test_gambler_bela_may_be_announced_with_the_second_card() -> None:
    table = _belote_table("gambler")
    table.play(1, "KH")
    _to_seat(table, 1)
    table.play(1, "QH", belote=True)
    assert belote_points(table.state, table.state.deal) == (0, 20)  # type: ignore[arg-type]


def test_classic_belote_not_announced_on_the_first_card_is_lost() -> None:
    table = _belote_table("classic")
    table.play(1, "QH")
    _to_seat(table, 1)
    assert PlayCard(1, parse_card("KH"), True) not in legal_moves(table.state)


# --- capot, contract failed, tie ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "bonus"), [("club", 90), ("classic", 90), ("french", 90), ("gambler", 90)]
)
def test_row_capot(name: str, bonus: int) -> None:
    """252 = 162 + 90 (gambler: +90 too, our choice); the cases are in test_game_scoring.py."""
    assert RULESETS[name].capot_bonus == bonus


@pytest.mark.parametrize("name", NAMES)
def test_row_contract_failed(name: str) -> None:
    """Whatever the takers do not make goes to the defenders, belote excepted; played out
    on random deals: a failed contract awards the takers exactly their belote."""
    rng = random.Random(7)
    seen = 0
    for _ in range(40):
        table = Table(RULESETS[name])
        table.play_out(rng)
        scored = next((e for e in table.log if isinstance(e, DealScored)), None)
        if scored is None or scored.outcome.value != "failed":
            continue
        seen += 1
        deal_taker = next(e for e in table.log if type(e).__name__ == "ContractTaken")
        t = side_of(deal_taker.seat)  # type: ignore[attr-defined]
        # Belote is outside the totals where the contract is judged without it (001, 004):
        # then what is awarded beyond the totals is the deal's belote, both sides'.
        extra = scored.awarded[1 - t] + scored.awarded[t] - sum(scored.totals)
        if RULESETS[name].belote_in_contract:
            assert extra == 0
        else:
            assert extra in (0, 20) and extra >= scored.awarded[t]
        assert scored.awarded[t] in (0, 20, 40, 60, 80)
    assert seen > 3


@pytest.mark.parametrize("name", NAMES)
def test_row_tie_hanging_points_go_to_the_next_winner(name: str) -> None:
    """Points left hanging by a level deal are added to the next deal's winner."""
    rng = random.Random(11)
    for _ in range(20):
        table = Table(RULESETS[name])
        table.state = table.state._replace(hanging=81)
        table.log = []
        table.play_out(rng)
        scored = next((e for e in table.log if isinstance(e, DealScored)), None)
        if scored is None or scored.winner is None:
            continue
        w = scored.winner
        expected_winner = scored.totals[w] if scored.outcome.value == "made" else None
        if expected_winner is not None:
            assert scored.awarded[w] == expected_winner + 81
        assert scored.hanging == 0
        return
    raise AssertionError("no deal was won")


# --- target ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "target"), [("club", 1000), ("classic", 1000), ("french", 1000), ("gambler", 1001)]
)
def test_row_target(name: str, target: int) -> None:
    assert RULESETS[name].target == target
    table = Table(RULESETS[name], target=150)  # a table's own threshold
    rng = random.Random(5)
    while table.state.phase is not Phase.OVER:
        table.play_out(rng)
    ended = table.log[-1]
    assert isinstance(ended, MatchEnded)
    assert max(ended.scores) >= 150
    table.check_replay()


# --- special -----------------------------------------------------------------------------


def test_row_special_classic_has_no_all_trumps_no_trumps_or_contre() -> None:
    table = dealt("classic")
    table.passes(1, 2, 3, 0)
    for strain in (Strain.ALL_TRUMPS, Strain.NO_TRUMPS):
        with pytest.raises(BidNotAllowed):
            table.bid(1, strain)
    assert not any(isinstance(m, Bid) and m.strain in (4, 5) for m in legal_moves(table.state))


def test_row_special_french_a_redeal_counts_as_a_deal() -> None:
    table = dealt("french")
    table.passes(1, 2, 3, 0, 1, 2, 3, 0)
    assert due(table.state).deal_number == 1
    table.deck(FULL_DECK)
    assert table.state.deal.number == 1  # type: ignore[union-attr]


def test_row_special_club_has_nothing_special() -> None:
    club = RULESETS["club"]
    assert not (club.seven_swap or club.redeal_on_four_low or club.no_trumps_multiplier != 1)


def _gambler(first: list[str], turned: str, dealer: int = 0) -> Table:
    return dealt("gambler", dealer=dealer, deck=stack(RULESETS["gambler"], dealer, first, turned))


def test_row_special_gambler_swap_the_trump_seven() -> None:
    table = _gambler(["AS KS QS 7C 8C 9C", "7H 8H TS JS 9S 7S"], "JH")
    table.bid(1, H)
    assert SwapTrumpSeven(1) in legal_moves(table.state)
    table.do(SwapTrumpSeven(1))
    assert table.hand(1) >> parse_card("JH") & 1 and not table.hand(1) >> parse_card("7H") & 1
    assert table.state.deal.turned == parse_card("7H")  # type: ignore[union-attr]
    table.play(1, "7S")
    with pytest.raises(SwapNotAllowed):
        table.do(SwapTrumpSeven(0))


# 002: "В случае, когда козырем является масть вскрышки, любой игрок до своего первого
# хода может при желании поменять козырную семерку на карту-вскрышку": until its first
# card, a declaration of melds notwithstanding; the melds are the hand's after the swap.
def test_row_special_gambler_swap_after_declaring_melds_judges_the_new_hand() -> None:
    table = _gambler(["AS KS QS 7C 8C 9C", "7H 8H 9H TH AD KD"], "JH")
    table.bid(1, H)
    table.do(DeclareMelds(1))  # 7H 8H 9H TH: a quarte to the ten
    assert SwapTrumpSeven(1) in legal_moves(table.state)
    table.do(SwapTrumpSeven(1))  # 8H 9H TH JH: a quarte to the jack
    ((seat, claim, melds),) = table.state.deal.claims  # type: ignore[union-attr]
    jack = parse_card("JH") & 7
    assert seat == 1 and [(m.length, m.rank) for m in melds if m.suit == H] == [(4, jack)]
    assert (claim.length, claim.rank, claim.trump) == (4, jack, True)
    table.play(1, "AD")
    table.do(next(m for m in legal_moves(table.state) if isinstance(m, PlayCard)))
    shown = [e for e in table.log if isinstance(e, MeldsShown)]
    assert [e.seat for e in shown] == [1]
    assert [(m.length, m.rank) for m in shown[0].melds if m.suit == H] == [(4, jack)]


def test_row_special_gambler_a_swap_that_breaks_the_declared_sequence_withdraws_it() -> None:
    # Seat 1 holds no other meld (its completion, the lowest cards left, is 9C TC QC).
    table = _gambler(["AS KS QS 7C 8C JC", "7H 8H 9H AD KD 9S"], "JH")
    table.bid(1, H)
    table.do(DeclareMelds(1))  # 7H 8H 9H: a tierce
    table.do(SwapTrumpSeven(1))  # 8H 9H JH: no sequence left
    hand = table.hand(1)
    assert find_melds(hand, RULESETS["gambler"].melds) == ()  # type: ignore[arg-type]
    assert table.state.deal.claims == ()  # type: ignore[union-attr]


# 002: "Очки «висячего байта» обязательно разыгрываются в следующей раздаче": a redeal
# demanded before the first card is not a deal played; they wait for the next one.
def test_row_special_gambler_a_redeal_keeps_the_hanging_points_for_the_next_deal() -> None:
    table = _gambler(["7C 7D 7H 7S AS KS", "8H TS JS 9S 8S 8C"], "JH")
    table.state = table.state._replace(hanging=60)
    table.bid(1, H)
    table.play(1, "TS")
    table.do(DemandRedeal(0))
    assert isinstance(table.log[-1], DealAbandoned) and table.state.hanging == 60


def test_row_special_gambler_no_swap_outside_the_turned_suit() -> None:
    table = _gambler(["AS KS QS 7C 8C 9C", "7H 8H TS JS 9S 7D"], "JH")
    table.passes(1, 0)
    table.bid(1, D)
    with pytest.raises(SwapNotAllowed):
        table.do(SwapTrumpSeven(1))


def test_row_special_gambler_four_sevens_demand_a_redeal_same_dealer() -> None:
    table = _gambler(["7C 7D 7H 7S AS KS", "8H TS JS 9S 8S 8C"], "JH")
    table.bid(1, H)
    assert DemandRedeal(1) not in legal_moves(table.state)
    table.play(1, "TS")
    assert DemandRedeal(0) in legal_moves(table.state)
    table.do(DemandRedeal(0))
    assert isinstance(table.log[-1], DealAbandoned)
    d = due(table.state)
    assert (d.kind, d.deal_number, table.state.dealer) == (DueKind.DECK, 1, 0)


def test_row_special_gambler_no_trumps_doubles_every_point() -> None:
    table = _gambler(["AS KS QS 7C 8C 9C", "8H TS JS 9S 8S 7D"], "JH")
    table.passes(1, 0)
    table.bid(1, Strain.NO_TRUMPS)
    table.play_out(random.Random(2), decks=False)
    scored = next(e for e in table.log if isinstance(e, DealScored))
    assert sum(scored.totals) % 2 == 0 and sum(scored.totals) >= 2 * 10


def test_row_special_gambler_dealer_is_the_last_deals_winner() -> None:
    rng = random.Random(4)
    table = Table(RULESETS["gambler"], first_dealer=1)
    for _ in range(10):
        table.play_out(rng)
        scored = [e for e in table.log if isinstance(e, DealScored)][-1]
        if table.state.phase is Phase.OVER:
            break
        if scored.winner is not None:
            assert table.state.dealer == scored.winner


def test_row_special_gambler_both_reach_1001_last_defender_wins_1001_1000() -> None:
    assert RULESETS["gambler"].both_reach is BothReach.LAST_DEFENDER_WINS
    assert RULESETS["gambler"].next_dealer is NextDealer.DEAL_WINNER
    rng = random.Random(9)
    for _ in range(50):
        table = Table(RULESETS["gambler"])
        table.state = table.state._replace(scores=BySide((1000, 1000)))
        table.log = []
        table.play_out(rng)
        scored = next((e for e in table.log if isinstance(e, DealScored)), None)
        if scored is None or min(scored.scores) < 1001:
            continue
        taken = next((e for e in table.log if type(e).__name__ == "ContractTaken"), None)
        if taken is None:
            continue
        defender = 1 - taken.seat  # type: ignore[attr-defined]
        ended = table.log[-1]
        assert isinstance(ended, MatchEnded)
        assert ended.winner == defender
        assert ended.scores[defender] == 1001 and ended.scores[1 - defender] == 1000
        return
    raise AssertionError("no deal took both sides over 1001")


def test_a_refused_command_appends_nothing() -> None:
    table = dealt("classic")
    before = table.state
    with pytest.raises(RulesError) as refused:
        table.bid(2)
    assert refused.value.code == "not_your_turn"
    assert table.state is before


def test_cards_helper_reads_codes() -> None:
    assert cards("7C AS") == (0, 31)
