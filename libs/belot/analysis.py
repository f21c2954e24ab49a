"""A finished match analysed double-dummy: for every card played, what each card the seat
could play was worth with every hand known, the best of them, and the points the card
played gave away; for every deal, what each contract would have taken from the first
lead on; for every seat, its accuracy over the match.

A fold of the match's events, like :func:`belot.evolve.replay`, with the exact solver of
the hard bot (:class:`belot.bots.solver.Solver`) asked at each card. Everything here is
derived from the record alone (the events hold every deck), so anyone recomputes it; the
platform stores it only so as not to solve again (``services/verify``: the analysis job).

**What a value is.** The solver's value of a card: the card points (the last trick's 10
and the capot bonus included) the seat's side takes from this card to the end of the
deal, less those the other side takes, both sides playing perfectly with every hand
known. Melds and belote are not in it: they are fixed by the time the cards are played,
so they change no card's value relative to another's. In misère (gambler's all-pass) the
side wants fewer points: a value is then what the other side takes less what it takes, so
that in every strain a larger value is better and ``loss`` is never negative.

**What the loss is.** ``best - value(card played)``: the points the card gave away against
perfect play from there. A card whose loss is 0 is a best card; equivalent cards (the 8 and
the 7 of a suit with nothing between them that matters) have equal values, so either is
best. The loss is measured against the true deal, which the player did not see: a card
can be the right play on what a seat knows and still lose points double-dummy. This is
what the accuracy figures say and no more: comparing a seat's choices with what it could
know (its information set) is another measure, which this module does not make.

**The contract table.** For each strain the ruleset lets a player choose and each side
as the taker, the card points the taker's side takes double-dummy from the deal's first
lead (the seat after the dealer) with the hands as dealt for play (eight cards each, or
the gambler's twelve after the bottom card), in card points only, as above.

**What it costs.** A deal is solved with one table (see TABLE_BITS): the first lead, each
of the leader's cards' exact value from the whole deal (MTD(f), each from the card
before's value); each later card, the values below the best, which is known without a
search: perfect play from a position is perfect play after the card before, so the
margin that card left is the one the best card leaves (:func:`_best_after`; not across
gambler's trump-seven swap, which changes a hand). Equivalent cards (the 8 and 7 of a
suit with nothing between them) have one value, so one of each run is solved, and a
seat with one card to choose is not searched. The contract table's other strains are a
whole-deal value each, in the same table as a new world. Positions searched a club deal (4
matches of medium bots, the solver of belot.bots.solver as it is now): first lead 774,000,
later cards 282,000, contract table 789,000, some 40 ms a deal on an idle core (the
solver's docstring has what it cost before; docs/bench/analysis.md has the last run).
Tried and dropped, on club deals of these matches: the position's value first, then each
first-lead card below it (26% more positions than the chain); each later card from the
value of the card before it rather than the best (2.5% more)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from belot.bots.equivalent import reduce_equivalent
from belot.cards import LAST_TRICK_POINTS, to_code
from belot.errors import BadEvent
from belot.events import CardPlayed, Event, MatchStarted
from belot.evolve import evolve
from belot.play import CARD_POINTS, MISERE, playable
from belot.ruleset import SUIT_STRAINS, Ruleset, Strain
from belot.seats import side_of
from belot.state import Deal, Match, new_match

#: Positions the solver may search for one position's values before the analysis says it
#: could not tell (None): far above any deal's (a whole deal is about a million).
NODE_LIMIT = 200_000_000
#: The analysis's solver table: 2**17 entries (2 MB), one for the match, a deal's (or a
#: contract table row's) at a time. Every solve of a deal is of the same world (the true
#: hands), so the table is shared by all of them (Solver one_world): the first lead's
#: searches fill it, and each later card's finds most of its trick starts there; the
#: next deal, or strain, is a new world (Solver.new_world: a new generation, not a new
#: array). Measured (bench/analysis.py's matches, club and classic): with a table a
#: position, 2**16 entries, a deal cost 470-580 ms; shared, 2**16 entries of the old
#: five words were too few (the later cards cost 1.8x as much as with 2**18), and 2**20
#: cost no fewer searches than 2**18 but more to allocate. With entries of two words
#: (see belot.bots.solver), 2**17 searches 0.2% more positions than 2**18 and takes 15%
#: less time (a table in the cache's reach: 2 MB, not 4).
TABLE_BITS = 17


@dataclass(frozen=True, slots=True)
class CardAnalysis:
    """One card played: by ``seat`` in deal ``deal``, trick ``trick`` (0-based), as the
    ``index``-th card of it; each legal card's value (``values``, by card code), the best
    cards, the points the card played gave away, and the deal's card-point margin (side 0's
    card points less side 1's at the deal's end, the capot bonus included) if both sides
    play perfectly after this card (what the replay's chart draws, card by card)."""

    deal: int
    trick: int
    index: int
    seat: int
    card: str
    values: dict[str, int]
    best: tuple[str, ...]
    loss: int
    margin: int

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal, "trick": self.trick, "index": self.index, "seat": self.seat,
            "card": self.card, "values": dict(self.values), "best": list(self.best),
            "loss": self.loss, "margin": self.margin,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class ContractValue:
    """What a contract in ``strain`` would have taken: each side's card points,
    double-dummy, from the deal's first lead (the taker makes it on cards alone when its
    side's are the more)."""

    strain: str
    points: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {"strain": self.strain, "points": list(self.points)}


@dataclass(frozen=True, slots=True)
class DealAnalysis:
    """A deal played out: its contract (strain, taker) and every card analysed, with the
    contract table of the hands as they were at the first lead."""

    deal: int
    strain: str
    taker: int | None
    cards: tuple[CardAnalysis, ...]
    contracts: tuple[ContractValue, ...]
    #: The margin (see :class:`CardAnalysis`) with perfect play from the first lead.
    start: int

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal, "strain": self.strain, "taker": self.taker, "start": self.start,
            "cards": [c.to_json() for c in self.cards],
            "contracts": [c.to_json() for c in self.contracts],
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class SeatAccuracy:
    """A seat over the match: cards played, how many a best card, how many where the
    choice mattered (the legal cards' values differed) and of those how many best, and
    the points given away in all."""

    seat: int
    cards: int
    best: int
    choices: int
    best_of_choices: int
    lost: int

    @property
    def accuracy(self) -> float | None:
        """The share of real choices (more than one value on offer) met with a best card."""
        return None if not self.choices else self.best_of_choices / self.choices

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "cards": self.cards, "best": self.best, "choices": self.choices,
            "best_of_choices": self.best_of_choices, "lost": self.lost,
            "accuracy": self.accuracy,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    """Every deal played out, and each seat's accuracy."""

    match_id: str
    ruleset: str
    deals: tuple[DealAnalysis, ...]
    seats: tuple[SeatAccuracy, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "match_id": self.match_id, "ruleset": self.ruleset,
            "deals": [d.to_json() for d in self.deals],
            "seats": [s.to_json() for s in self.seats],
        }  # fmt: skip


#: The analysis's JSON format (what the verify API serves and ``belot analyse`` prints).
FORMAT = "belot-analysis/1"


def strain_name(strain: int) -> str:
    return Strain(strain).name.lower()


def _won(deal: Deal) -> int:
    """Bit ``s`` set if side ``s`` has taken a trick this deal (the solver's capot state)."""
    won = 0
    for t in deal.tricks:
        won |= 1 << side_of(t.winner)
    return won


def card_values(
    solver: Any, ruleset: Ruleset, deal: Deal, best: int | None = None
) -> dict[int, int]:
    """Each legal card's value for the seat due to play in ``deal`` (see the module).
    ``best``: the best card's value when it is known (:func:`_best_after`)."""
    strain = deal.strain
    left = ruleset.tricks - len(deal.tricks)
    won = 3 if strain == MISERE else _won(deal)
    hands, trick = list(deal.hands), list(deal.trick)
    seat = (deal.leader + len(trick)) % ruleset.players
    legal = playable(hands[seat], deal.trick, strain, ruleset)
    # Equivalent cards have one value: one of each run is solved.
    out = 0
    for card in trick:
        out |= 1 << card
    for s, hand in enumerate(hands):
        if s != seat:
            out |= hand
    solved = reduce_equivalent(legal, out, strain)
    moves = [c for c in range(32) if solved >> c & 1]
    if best is None:
        values = solver.values(hands, trick, deal.leader, left, won, moves, NODE_LIMIT)
    elif len(moves) == 1:
        values = {moves[0]: best}  # one card to choose (or one run): the best, no search
    else:
        values = solver.values_below(hands, trick, deal.leader, left, won, best, moves, NODE_LIMIT)
    if values is None:
        raise RuntimeError("the solver went past its node limit")  # never on a real deal
    if best is not None and max(values.values()) != best:
        raise RuntimeError("the best value carried over was not the position's")
    for c in range(32):
        if legal >> c & 1 and c not in values:
            # The run's top card: the first solved card of its suit above it.
            values[c] = values[min(m for m in moves if m > c and m >> 3 == c >> 3)]
    return dict(values)


def contract_table(
    ruleset: Ruleset, first: Deal, played: int | None = None, solver: Any = None
) -> tuple[ContractValue, ...]:
    """Each strain a player may choose, played from ``first`` (the deal at its first lead).
    ``played``: the value of the first lead in the deal's own strain when the analysis
    already has it (the best of the first card's values), not solved again. ``solver``:
    the analysis's (:func:`_solver`), its table taken over a strain at a time."""
    if solver is None:
        solver = _solver(ruleset, first.strain)

    strains = sorted({int(s) for s in (*SUIT_STRAINS, *ruleset.second_round)} - {MISERE})
    hands = list(first.hands)
    lead_side = side_of(first.leader)
    out = []
    for strain in strains:
        total = LAST_TRICK_POINTS + sum(
            CARD_POINTS[strain][c] for h in hands for c in range(32) if h >> c & 1
        )
        if played is not None and strain == first.strain:
            value: int | None = played
        else:
            solver.new_world(strain)
            value = solver.value(hands, [], first.leader, ruleset.tricks, 0, NODE_LIMIT)
        if value is None:
            raise RuntimeError("the solver went past its node limit")
        lead, other = _split(total, value, ruleset.capot_bonus)
        points = (lead, other) if lead_side == 0 else (other, lead)
        out.append(ContractValue(strain_name(strain), points))
    return tuple(out)


def _solver(ruleset: Ruleset, strain: int) -> Any:
    """The analysis's solver: a table of TABLE_BITS, one world at a time (one_world; a new
    deal or strain is a new world, :meth:`~belot.bots.solver.Solver.new_world`)."""
    from belot.bots.solver import Solver  # numba: loaded by the first analysis only

    return Solver(ruleset, strain, table_bits=TABLE_BITS, one_world=True)


def _split(total: int, value: int, capot: int) -> tuple[int, int]:
    """The leading side's and the other's points from the value (their difference): a
    capot adds its bonus to the difference, so a difference beyond the total is one."""
    if value > total:
        return (total + capot, 0)
    if value < -total:
        return (0, total + capot)
    return ((total + value) // 2, (total - value) // 2)


def analyse(ruleset: Ruleset, events: Iterable[Event], *, contracts: bool = True) -> MatchAnalysis:
    """The analysis of a match's events (its whole log: MatchStarted first). Raises
    :class:`~belot.errors.BadEvent` for a log that does not fit the rules."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, MatchStarted):
        raise BadEvent("a match's log starts with MatchStarted")
    state: Match = new_match(
        ruleset, first.match_id, target=first.target, first_dealer=first.first_dealer
    )
    # By deal number: the deal at its first lead, and its cards analysed.
    played: dict[int, tuple[Deal, list[CardAnalysis]]] = {}
    solver: Any = None  # the match's: one table, a world (generation) a deal
    hands: tuple[int, ...] = ()  # the hands after the card before, to carry its value over
    for event in it:
        if isinstance(event, CardPlayed):
            deal = state.deal
            if deal is None:
                raise BadEvent("a card played outside a deal")
            if solver is None:
                solver = _solver(ruleset, deal.strain)
            best = None
            if deal.number not in played:
                played[deal.number] = (deal, [])
                solver.new_world(deal.strain)
            elif tuple(deal.hands) == hands:
                best = _best_after(deal, played[deal.number][1][-1])
            values = card_values(solver, ruleset, deal, best)
            played[deal.number][1].append(_card(deal, event, values))
            hands = tuple(h & ~(1 << event.card) for h in deal.hands)
        state = evolve(state, event)
    deals = tuple(
        DealAnalysis(
            number,
            strain_name(at_lead.strain),
            None if at_lead.taker < 0 else at_lead.taker,
            tuple(cards),
            contract_table(ruleset, at_lead, _first_lead(at_lead, cards), solver)
            if contracts
            else (),
            _margin(at_lead, cards[0].seat, max(cards[0].values.values())),
        )
        for number, (at_lead, cards) in played.items()
    )
    return MatchAnalysis(first.match_id, ruleset.name, deals, _accuracy(ruleset, deals))


def _first_lead(deal: Deal, cards: Sequence[CardAnalysis]) -> int | None:
    """The first lead's value in the deal's strain for the leading side, as the contract
    table counts it (no trick taken yet), from the first card's values; None in misère,
    whose values the table does not count."""
    if deal.strain == MISERE or not cards or cards[0].trick or cards[0].index:
        return None
    return max(cards[0].values.values())


def _best_after(deal: Deal, before: CardAnalysis) -> int:
    """The best card's value for the seat to play in ``deal``, from the card played before
    it in the deal: perfect play from here is perfect play after that card, so the
    margin (:func:`_margin`) it left is the one the best card leaves. Only where the hands
    are that card's less the card: in gambler a seat may swap the trump seven for the
    turned card before its first card (TrumpSevenSwapped), which makes another deal."""
    side = side_of((deal.leader + len(deal.trick)) % len(deal.hands))
    taken = deal.points[side] - deal.points[1 - side]
    mine = before.margin if side == 0 else -before.margin
    return taken - mine if deal.strain == MISERE else mine - taken


def _margin(deal: Deal, seat: int, value: int) -> int:
    """Side 0's final card points less side 1's, from the points taken before this card
    and the value (for ``seat``'s side) of what is played now and after."""
    side = side_of(seat)
    taken = deal.points[side] - deal.points[1 - side]
    mine = taken - value if deal.strain == MISERE else taken + value
    return mine if side == 0 else -mine


def _card(deal: Deal, event: CardPlayed, values: dict[int, int]) -> CardAnalysis:
    best_value = max(values.values())
    played = values.get(event.card)
    if played is None:
        raise BadEvent(f"{to_code(event.card)} was not a legal card")
    return CardAnalysis(
        deal=deal.number,
        trick=len(deal.tricks),
        index=len(deal.trick),
        seat=event.seat,
        card=to_code(event.card),
        values={to_code(c): v for c, v in sorted(values.items())},
        best=tuple(to_code(c) for c, v in sorted(values.items()) if v == best_value),
        loss=best_value - played,
        margin=_margin(deal, event.seat, played),
    )


def _accuracy(ruleset: Ruleset, deals: Sequence[DealAnalysis]) -> tuple[SeatAccuracy, ...]:
    out = []
    for seat in range(ruleset.players):
        mine = [c for d in deals for c in d.cards if c.seat == seat]
        choices = [c for c in mine if len(set(c.values.values())) > 1]
        out.append(
            SeatAccuracy(
                seat=seat,
                cards=len(mine),
                best=sum(c.loss == 0 for c in mine),
                choices=len(choices),
                best_of_choices=sum(c.loss == 0 for c in choices),
                lost=sum(c.loss for c in mine),
            )
        )
    return tuple(out)
