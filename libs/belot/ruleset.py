"""Rulesets: one frozen record of parameters per variant, and the four presets.

docs/specification.md §2 is a table with a column per ruleset and a row per parameter; a
:class:`Ruleset` is one column of that table. The engine reads the parameters and has
no ``if name == "gambler"`` anywhere, so a new variant is a new record.

Where the source documents are silent, the choice is made here once, named, and listed
in docs/rules.md ("Choices where the seeds are silent").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

from belot.cards import ACE, EIGHT, JACK, KING, NINE, QUEEN, SEVEN, TEN


class Strain(enum.IntEnum):
    """What a contract is played in: a trump suit (0-3, the suit numbers of
    :mod:`belot.cards`), all suits trump, no trump, or misère (no trump, fewest points
    wins; gambler's four passes)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3
    ALL_TRUMPS = 4
    NO_TRUMPS = 5
    MISERE = 6

    @property
    def is_suit(self) -> bool:
        return self <= Strain.SPADES


SUIT_STRAINS: Final = (Strain.CLUBS, Strain.DIAMONDS, Strain.HEARTS, Strain.SPADES)


class AllPass(enum.Enum):
    """What happens when every seat passes twice."""

    #: Club: the dealer speaks last in round two and may not pass if all others did.
    DEALER_MUST_CHOOSE = "dealer_must_choose"
    #: Classic, french: the deal is abandoned and the next deal (k + 1) is dealt.
    REDEAL = "redeal"
    #: Gambler: "raspasy", played without trump, fewer points wins the deal.
    MISERE = "misere"


class CompletionStart(enum.Enum):
    """Who receives the first packet of the completion deal after bidding."""

    LEFT_OF_DEALER = "left_of_dealer"
    #: French (004): "the deal resumes starting with the taker".
    TAKER = "taker"


class PartnerException(enum.Enum):
    """When a seat void in the led suit is excused from trumping because of its partner."""

    #: Club: never; trump and overtrump even when the partner holds the trick.
    NONE = "none"
    #: Classic (001): "when the partner is winning, any card may be discarded". Also the
    #: common custom of French belote, for a table that wants it.
    PARTNER_WINNING = "partner_winning"
    #: French (004) as its seed words it: "not obliged when the partner led the trick"
    #: ("если партнёр начал взятку"); but if someone, the partner too, has trumped, a
    #: higher trump is due when the seat has one ("кто-то уже бил до него").
    PARTNER_LED = "partner_led"


class BeloteAnnounce(enum.Enum):
    """When trump king and queen must be announced for the bonus to count."""

    #: Classic, club: on the first of the two cards played (either order).
    FIRST_CARD = "first_card"
    #: French (004): "belote" on the king, then the queen; queen first loses the bonus.
    KING_FIRST = "king_first"
    #: Gambler (002): "at any moment the player plays a card of the bela".
    EITHER_CARD = "either_card"


class TieRule(enum.Enum):
    """Takers and defenders level (81-81): who scores what now, what hangs."""

    #: Defenders score theirs; the takers' points hang for the next deal's winner
    #: (french, club, gambler's "hanging bait").
    TAKERS_HANG = "takers_hang"
    #: Classic (001): "the deal's points" hang, both sides' (belote excepted).
    ALL_HANG = "all_hang"


class FailedContract(enum.Enum):
    """What the defenders get when the takers do not score more than them."""

    #: Every ruleset: the defenders take every point of the deal (cards, last trick,
    #: capot, melds); belote stays with the side that announced it.
    DEFENDERS_TAKE_ALL = "defenders_take_all"


class BothReach(enum.Enum):
    """Both sides at or over the target after the same deal."""

    #: The higher total wins; equal totals are a draw.
    HIGHER_WINS = "higher_wins"
    #: Gambler: the last deal's defender wins, recorded 1001:1000 (target:target - 1).
    LAST_DEFENDER_WINS = "last_defender_wins"


class NextDealer(enum.Enum):
    """Who deals the next deal."""

    #: The seat to the dealer's left, after a redeal too (4-player rulesets).
    ROTATE = "rotate"
    #: Gambler: the last deal's winner; unchanged after a redeal or a level deal.
    DEAL_WINNER = "deal_winner"


@dataclass(frozen=True)
class MeldTable:
    """Meld values (docs/specification.md §3). Four of a kind by rank, sequences by length."""

    #: Indexed by rank 7 8 9 T J Q K A; 0 means "not a meld".
    four_of_a_kind: tuple[int, ...]
    #: Sequences of 3, 4, and 5 or more.
    sequence_3: int = 20
    sequence_4: int = 50
    sequence_5: int = 100

    def four_value(self, rank: int) -> int:
        return self.four_of_a_kind[rank]

    def sequence_value(self, length: int) -> int:
        if length >= 5:
            return self.sequence_5
        return self.sequence_4 if length == 4 else self.sequence_3


def _fours(**by_rank: int) -> tuple[int, ...]:
    ranks = {"J": JACK, "N": NINE, "A": ACE, "T": TEN, "K": KING, "Q": QUEEN}
    values = [0] * 8
    for name, value in by_rank.items():
        values[ranks[name]] = value
    assert values[SEVEN] == values[EIGHT] == 0
    return tuple(values)


#: Standard French values (club; its seed lost the table).
FRENCH_MELDS: Final = MeldTable(_fours(J=200, N=150, A=100, T=100, K=100, Q=100))
#: Gambler (002).
GAMBLER_MELDS: Final = MeldTable(_fours(J=200, N=140, A=110, T=100, K=100, Q=100))


@dataclass(frozen=True)
class Ruleset:
    """The parameters of one variant of belot. See the module docstring."""

    name: str
    #: 4 (partners opposite: seats 0 and 2 against 1 and 3) or 2.
    players: int
    #: Cards dealt in the first distribution, packet by packet, each packet going round
    #: the table from the seat left of the dealer (the non-dealer at two).
    first_packets: tuple[int, ...]
    #: Cards each seat receives after bidding (the taker one fewer when it takes the
    #: turned card).
    completion_packet: int
    #: The taker adds the turned card to its hand (4-player); otherwise it stays on the
    #: table, face up, and only the trump seven can be swapped for it (gambler).
    taker_gets_turned: bool
    completion_start: CompletionStart
    #: Gambler: the deck's bottom card is shown to all once the hands are complete.
    shows_bottom_card: bool
    #: Contracts one may name in bidding round two (round one is always the turned suit).
    second_round: frozenset[Strain]
    all_pass: AllPass
    partner_exception: PartnerException
    #: Void in the led suit and a trump already in the trick: must beat it if able.
    overtrump_a_ruff: bool
    #: Trump led: must play a higher trump if able (every seed says so).
    raise_when_trump_led: bool
    melds: MeldTable | None
    #: Gambler: a seat's melds count only if it takes a trick (belote always counts).
    melds_need_a_trick: bool
    belote_points: int
    belote_announce: BeloteAnnounce
    #: Is belote part of the totals the contract is judged on? Classic (001) and french
    #: (004) judge it on the deal's 162 points "всего без белота-ребелота" and add belote
    #: to its side "независимо от исполнения или провала контракта"; gambler (002) counts
    #: bela among the melds the taker must outscore ("во взятках и конструкциях"); club's
    #: seed says nothing, and it keeps belote in, as most clubs do (docs/rules.md).
    belote_in_contract: bool
    #: Added to the side that takes every trick (162 + 90 = 252).
    capot_bonus: int
    failed_contract: FailedContract
    tie: TieRule
    #: Gambler: hanging points "never accumulate": a second level deal drops the first's.
    hanging_accumulates: bool
    #: Default target; a table may set its own (``new_match(..., target=...)``).
    target: int
    both_reach: BothReach
    next_dealer: NextDealer
    #: Every point of a no-trumps deal is multiplied by this (gambler: doubled).
    no_trumps_multiplier: int
    #: Gambler: before its first card a seat holding the trump seven may swap it for the
    #: turned card, when trump is the turned card's suit.
    seven_swap: bool
    #: Gambler: four 7s or four 8s entitle their holder to demand a redeal before its
    #: first card; the dealer stays the same.
    redeal_on_four_low: bool
    deck_size: int = 32
    #: Free text for the lobby.
    description: str = field(default="", compare=False)
    #: Cards in each hand once dealing is complete (8 at four, 9 at two): derived.
    hand_size: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # Derived once: the engine asks for it on every trick.
        object.__setattr__(self, "hand_size", sum(self.first_packets) + self.completion_packet)

    @property
    def tricks(self) -> int:
        return self.hand_size

    @property
    def allows_melds(self) -> bool:
        return self.melds is not None


_SUITS_ONLY: Final = frozenset(SUIT_STRAINS)

CLUB: Final = Ruleset(
    name="club",
    players=4,
    first_packets=(3, 2),
    completion_packet=3,
    taker_gets_turned=True,
    completion_start=CompletionStart.LEFT_OF_DEALER,
    shows_bottom_card=False,
    second_round=_SUITS_ONLY,
    all_pass=AllPass.DEALER_MUST_CHOOSE,
    partner_exception=PartnerException.NONE,
    overtrump_a_ruff=True,
    raise_when_trump_led=True,
    melds=FRENCH_MELDS,
    melds_need_a_trick=False,
    belote_points=20,
    belote_announce=BeloteAnnounce.FIRST_CARD,
    belote_in_contract=True,
    capot_bonus=90,
    failed_contract=FailedContract.DEFENDERS_TAKE_ALL,
    tie=TieRule.TAKERS_HANG,
    hanging_accumulates=True,
    target=1000,
    both_reach=BothReach.HIGHER_WINS,
    next_dealer=NextDealer.ROTATE,
    no_trumps_multiplier=1,
    seven_swap=False,
    redeal_on_four_low=False,
    description="The site's own table rules (seeds 000/003): forced dealer, melds.",
)

CLASSIC: Final = Ruleset(
    name="classic",
    players=4,
    first_packets=(3, 2),
    completion_packet=3,
    taker_gets_turned=True,
    completion_start=CompletionStart.LEFT_OF_DEALER,
    shows_bottom_card=False,
    second_round=_SUITS_ONLY,
    all_pass=AllPass.REDEAL,
    partner_exception=PartnerException.PARTNER_WINNING,
    overtrump_a_ruff=True,
    raise_when_trump_led=True,
    melds=None,
    melds_need_a_trick=False,
    belote_points=20,
    belote_announce=BeloteAnnounce.FIRST_CARD,
    belote_in_contract=False,
    capot_bonus=90,
    failed_contract=FailedContract.DEFENDERS_TAKE_ALL,
    tie=TieRule.ALL_HANG,
    hanging_accumulates=True,
    target=1000,
    both_reach=BothReach.HIGHER_WINS,
    next_dealer=NextDealer.ROTATE,
    no_trumps_multiplier=1,
    seven_swap=False,
    redeal_on_four_low=False,
    description="Classic team belote 1.0.0 (seed 001): no melds, no contre.",
)

FRENCH: Final = Ruleset(
    name="french",
    players=4,
    first_packets=(3, 2),
    completion_packet=3,
    taker_gets_turned=True,
    completion_start=CompletionStart.TAKER,
    shows_bottom_card=False,
    second_round=_SUITS_ONLY,
    all_pass=AllPass.REDEAL,
    partner_exception=PartnerException.PARTNER_LED,
    overtrump_a_ruff=True,
    raise_when_trump_led=True,
    melds=None,
    melds_need_a_trick=False,
    belote_points=20,
    belote_announce=BeloteAnnounce.KING_FIRST,
    belote_in_contract=False,
    capot_bonus=90,
    failed_contract=FailedContract.DEFENDERS_TAKE_ALL,
    tie=TieRule.TAKERS_HANG,
    hanging_accumulates=True,
    target=1000,
    both_reach=BothReach.HIGHER_WINS,
    next_dealer=NextDealer.ROTATE,
    no_trumps_multiplier=1,
    seven_swap=False,
    redeal_on_four_low=False,
    description="Classic French belote (seed 004): redeal when nobody takes.",
)

GAMBLER: Final = Ruleset(
    name="gambler",
    players=2,
    first_packets=(3, 3),
    completion_packet=3,
    taker_gets_turned=False,
    completion_start=CompletionStart.LEFT_OF_DEALER,
    shows_bottom_card=True,
    second_round=frozenset((*SUIT_STRAINS, Strain.ALL_TRUMPS, Strain.NO_TRUMPS)),
    all_pass=AllPass.MISERE,
    partner_exception=PartnerException.NONE,
    overtrump_a_ruff=False,
    raise_when_trump_led=True,
    melds=GAMBLER_MELDS,
    melds_need_a_trick=True,
    belote_points=20,
    belote_announce=BeloteAnnounce.EITHER_CARD,
    belote_in_contract=True,
    capot_bonus=90,
    failed_contract=FailedContract.DEFENDERS_TAKE_ALL,
    tie=TieRule.TAKERS_HANG,
    hanging_accumulates=False,
    target=1001,
    both_reach=BothReach.LAST_DEFENDER_WINS,
    next_dealer=NextDealer.DEAL_WINNER,
    no_trumps_multiplier=2,
    seven_swap=True,
    redeal_on_four_low=True,
    description="Two-player belot to 1001 (seed 002): all-trumps, no-trumps, misère.",
)

#: The presets by name. The lobby names one of these for every table.
RULESETS: Final[dict[str, Ruleset]] = {r.name: r for r in (CLUB, CLASSIC, FRENCH, GAMBLER)}
