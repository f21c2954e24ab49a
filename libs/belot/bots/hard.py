"""Hard (docs/specification.md §4): remembers the cards, infers voids, reads the bidding,
and weighs each legal card over worlds (deals of the hidden cards) drawn to agree with it.

The worlds (:mod:`belot.bots.worlds`) satisfy every fact the seat has seen (cards
played, voids and trump ceilings, cards known to be in a hand, hand sizes) and are
weighted by how well they explain the bidding. On each world every legal card gets a
value, and the card with the best total is played:

- **Exact, from the third trick.** With at most ``EXACT_CARDS`` cards in hand, each
  world is solved exactly for every legal card (:mod:`belot.bots.solver`: alpha-beta on
  card points, transposition table, equivalent cards, compiled to machine code). The
  points found are added to those already taken and scored as the match would score
  the deal (contract, capot, belote, melds): the solver's card points decide whether
  the contract is made.
- **Play-outs, in the first two tricks.** With seven or eight cards an exact solve
  costs too much for enough worlds (a whole deal, every card of the leader, some
  900,000 positions: 50 ms of machine code for one world), so each world is finished
  with the fast greedy policy of :mod:`belot.bots.sim` for every seat instead, and
  scored the same way.

Cards no unseen card separates in the order, worth the same (low pointless cards),
are one candidate (:mod:`belot.bots.equivalent`). The worlds are spent as a race: every
``RACE_EVERY`` worlds a candidate whose deficit to the leader, paired over the same
worlds, exceeds ``RACE_Z`` standard errors is dropped, and the worlds still to come go
to the cards still in question. A card's value is the deal's score plus
``POINTS_WEIGHT`` times its card points: a tie-break where the score cannot tell cards
apart (without it the bot threw points away once the contract was settled), and a
smoother signal than the contract's all-or-nothing where play-outs are noisy.

The first two tricks, where the least is known and the most is still open, get more of
the budget (``EARLY_BUDGET``).

**Measured.** Against colver's IS-DD (``bench/arena.py``, 600 classic deals in
duplicate, the 50 ms deadline) this version makes +4.96 card points a deal
[+3.40, +6.51]; the one before it, which solved only the last four tricks, in Python,
+2.74 [+1.16, +4.31] (docs/bench/arena.md has the current run). The choices were made
on the double-dummy loss of each decision (``bench/arena.py --loss-deals``: what the
chosen card costs on the true deal against the best card, card points of one side
minus the other's), over the same 3,174 positions for every variant (150 deals of
self-play by the bot before, no deadline unless said):

- exact solves from six cards, 48 worlds, instead of four cards and 28: 4.24 to 3.88
  a decision (paired -0.35, standard error 0.14), the third and fourth tricks 6.4 and
  5.1 to 5.5 and 3.8;
- 64 worlds and ``NODES_PER_UNIT`` 3,000 instead of 48 and 2,000: 3.72 (paired -0.16,
  s.e. 0.08), the third trick 4.6; with the 50 ms deadline 3.81, median decision 19 ms;
- exact solves at seven cards too: with the same budget (about ten worlds) the second
  trick's loss rose from 5.6 to 6.5; with 64 worlds it fell to 5.1, at five times the
  time the targets allow. Measured again with the solver 2.5 times faster a position
  (``--loss-deals 100 --loss-players medium``: 2,074 decisions of medium's play, the
  same for every variant, the 50 ms deadline), the loss a decision by trick 1..7:
  these constants 3.67 (7.70 5.89 4.28 2.52 2.74 1.88 0.68); exact from seven cards
  3.41, with ``NODES_PER_UNIT`` 7,500 3.34; from eight (every four-player decision),
  7,500, 3.03 (5.07 4.54 3.74 ...), as with 20,000; colver's IS-DD 3.20 (5.83 3.99
  4.32 3.37 2.66 1.50 0.67). Without the deadline (418 decisions of 20 deals), from
  eight at 7,500: 2.13 against 4.41, median 13.2 ms against 15.3, p99 159 ms against
  100. Dropped: in the arena, side by side on its 600 deals (``--dump`` of each), it
  made +4.30 a deal against IS-DD where these constants made +5.01, paired -0.72
  [-2.61, +1.17], and its p99 decision was 110 ms against 51 (a world solved from
  eight cards can outlast the 50 ms deadline, which is asked only between worlds): a
  lower loss on medium's positions did not make a better margin;
- greedy play-outs finished exactly from four or five cards on (the play-out stopped
  at that trick's start, the rest solved): the first trick's loss 9.5 to 11.1 at five,
  the second 5.6 to 6.0 at four: dropped, as it was when the solver was Python's;
- four times the play-outs in the first two tricks: no better (9.5 to 10.2);
- a pruning threshold ``RACE_Z`` of 3.5 instead of 2.5: worse in the first two tricks
  (9.5 and 5.6 to 10.1 and 6.4).

The loss is noisy from one set of deals to another (a capot missed costs some 100):
on 150 other deals (``--loss-deals 150 --seed dev``, the positions of this version's
own play) this version lost 4.66 a decision, the constants before it 4.82 on the same
positions (paired -0.15, s.e. 0.19), colver's IS-DD 4.34: colver's exact solves of
eight uniform worlds lose less in the first two tricks (7.5 and 6.4 against 9.6 and
8.4), this bot's solves of 64 worlds drawn to fit the bidding less in the four after
(5.0 4.1 3.0 2.1 against 5.8 4.6 3.1 2.7). The first two tricks are where it can still
gain most.

Bidding is medium's hand evaluation: sampled play-outs of whole deals for each
contract were tried and bid worse against medium than the evaluation does (docs/bots.md).
Where melds count toward the contract, the melds the seat holds lower its threshold
(:func:`take_at`). Before the first trick is taken, each world also says which side's
melds will score (:func:`_melds`): the seats still to play their first card will
declare what the world gives them.

The work per decision is bounded by ``budget`` (units of one play-out; an exact solve
spends ``NODES_PER_UNIT`` positions per unit), so a seeded ``random.Random`` makes every
decision reproducible. A caller with a time budget (the table service, the arena) also
passes ``out_of_time``, asked after each world once ``MIN_SAMPLES`` are done: when it
answers True the bot plays the best card so far. The bot itself reads no clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from belot.bots import medium, worlds
from belot.bots.equivalent import reduce_equivalent
from belot.bots.knowledge import Knowledge, knowledge
from belot.bots.sim import Position, belote_bonus, finish, outcome, play
from belot.cards import FULL_MASK, LAST_TRICK_POINTS, Mask, cards_in, mask_of
from belot.commands import Bid, Command, PlayCard
from belot.melds import MeldClaim, MeldKind, best_meld, find_melds, meld_points, winning_claim
from belot.play import CARD_POINTS, MISERE
from belot.ruleset import MeldTable, Strain
from belot.seats import side_of
from belot.view import SeatView

#: Work per card decision, in play-outs (shared among the legal cards).
DEFAULT_BUDGET: Final = 240
#: Positions an exact solve may search per unit of budget (a play-out costs about this).
NODES_PER_UNIT: Final = 3000
#: The first tricks' decisions, where the least is known and most is at stake, get
#: this many quarters of the budget (trick 1, trick 2); the rest get the budget.
EARLY_BUDGET: Final = (12, 8)
#: Exact solves when the hand holds at most this many cards (see module docstring).
EXACT_CARDS: Final = 6
MIN_SAMPLES: Final = 4
#: Weight of the card points themselves beside the deal's score (see module docstring).
POINTS_WEIGHT: Final = 1 / 4
#: At most this many worlds are solved exactly, or played out, for one decision.
MAX_WORLDS: Final = 64
#: Play-out worlds at most, per unit of budget.
PLAYOUT_WORLDS_PER_UNIT: Final = 0.28
#: Every this many worlds, a card whose deficit to the leader over the same worlds is
#: more than RACE_Z standard errors leaves the race.
RACE_EVERY: Final = 8
RACE_Z: Final = 2.5
#: Worlds are drawn this many at a time (each batch weighted by the bidding on its own).
BATCH: Final = 8
#: Bidding threshold on medium's evaluation, by table size (tuned against medium).
TAKE_AT: Final = dict(medium.TAKE_AT)
#: Where melds count toward the contract (club, gambler), this share of the points of
#: the melds among the cards the seat would hold lowers its threshold (see take_at).
MELD_CREDIT: Final = 1 / 2


def take_at(view: SeatView) -> int:
    """The bidding threshold for ``view``'s seat on medium's evaluation.

    Medium's evaluation weighs trumps and side aces and nothing else; where melds count
    toward the contract, a sequence or a four the seat already holds (its cards and,
    at four players, the turned card it would take) is points the takers start with,
    whatever the trump, so half of them lower the threshold. Half: the defenders'
    melds, unknown at bidding, may beat them, and then they score nothing. Measured in
    club against medium, 400 decks in duplicate (15 bid differently): +0.85 points a
    deal, standard error 0.71; a fifth of the points changed almost nothing, lowering
    the threshold for every hand (48) cost 1.3."""
    ruleset = view.ruleset
    threshold = TAKE_AT[ruleset.players]
    table = ruleset.melds
    if table is None:
        return threshold
    cards = mask_of(list(view.hand))
    if ruleset.taker_gets_turned and view.turned is not None:
        cards |= 1 << view.turned
    return threshold - int(MELD_CREDIT * meld_points(find_melds(cards, table), table))


def choose(
    view: SeatView,
    rng: random.Random,
    budget: int = DEFAULT_BUDGET,
    out_of_time: Callable[[], bool] | None = None,
) -> Command:
    bids = [m for m in view.legal if isinstance(m, Bid)]
    if bids:
        return medium.bid(view, bids, take_at(view))
    extra = medium.optional(view)
    if extra is not None:
        return extra
    cards = sorted({m.card for m in view.legal if isinstance(m, PlayCard)})
    card = cards[0] if len(cards) == 1 else _best_card(view, cards, rng, budget, out_of_time)
    for m in view.legal:
        if isinstance(m, PlayCard) and m.card == card and m.belote:
            return m
    return PlayCard(view.seat, card)  # type: ignore[arg-type]


def _announced_belote(view: SeatView) -> list[int]:
    bonus = [0, 0]
    pairs = {(seat, card >> 3) for seat, card in view.belote_calls}
    for seat, _ in pairs:
        bonus[side_of(seat)] += view.ruleset.belote_points
    return bonus


def _position(view: SeatView, hands: list[Mask]) -> Position:
    ruleset = view.ruleset
    points = [0, 0]
    tricks = [0, 0]
    for t in view.tricks:
        points[side_of(t.winner)] += t.points
        tricks[side_of(t.winner)] += 1
    bonus = _announced_belote(view)
    strain = int(view.strain) if view.strain is not None else -1
    extra = belote_bonus(ruleset, strain, hands)
    melds = _melds(view, hands)
    leader = view.trick[0][0] if view.trick else view.seat
    return Position(
        ruleset=ruleset,
        strain=strain,
        taker=-1 if view.taker is None else view.taker,
        hands=hands,
        trick=[c for _, c in view.trick],
        leader=leader,
        points=points,
        tricks=tricks,
        tricks_left=ruleset.tricks - len(view.tricks),
        bonus=[bonus[0] + extra[0], bonus[1] + extra[1]],
        melds=melds,
    )


def _melds(view: SeatView, hands: list[Mask]) -> list[int]:
    """The melds each side scores in world ``hands``. Once the first trick is taken they
    are those shown. Before, the comparison is still open: the seats yet to play their
    first card declare theirs (every bot does, and a player forgoing melds is rare), and
    the world says what they hold, so the side with the best claim, declared or to come,
    scores all the melds of its declaring seats. A declared seat's melds are read from
    the world when they match its claim, else counted as the claim alone."""
    table = view.ruleset.melds
    melds = [0, 0]
    if table is None:
        return melds
    if view.tricks:
        for seat, shown in view.melds_shown:
            melds[side_of(seat)] += meld_points(shown, table)
        return melds
    strain = -1 if view.strain is None else int(view.strain)
    n = view.ruleset.players
    held = list(hands)
    for seat, card in view.trick:
        held[seat] |= 1 << card
    claims: list[tuple[int, MeldClaim]] = []
    points: dict[int, int] = {}
    for seat, claim in view.meld_claims:
        found = find_melds(held[seat], table)
        best = best_meld(found, strain)
        claims.append((seat, claim))
        points[seat] = (
            meld_points(found, table) if best is not None and best.claim(strain) == claim
            else _claim_value(claim, table)
        )  # fmt: skip
    leader = view.trick[0][0] if view.trick else view.seat
    for i in range(len(view.trick) + 1, n):
        seat = (leader + i) % n
        found = find_melds(held[seat], table)
        best = best_meld(found, strain)
        if best is not None and seat not in points:
            claims.append((seat, best.claim(strain)))
            points[seat] = meld_points(found, table)
    winner = winning_claim(claims)
    if winner is not None:
        side = side_of(winner)
        melds[side] = sum(p for s, p in points.items() if side_of(s) == side)
    return melds


def _claim_value(claim: MeldClaim, table: MeldTable) -> int:
    if claim.kind is MeldKind.FOUR:
        return table.four_value(claim.rank)
    return table.sequence_value(claim.length)


def _best_card(
    view: SeatView,
    cards: Sequence[int],
    rng: random.Random,
    budget: int,
    out_of_time: Callable[[], bool] | None = None,
) -> int:
    kn = knowledge(view)
    strain = -1 if view.strain is None else int(view.strain)
    # Cards equivalent whatever the hidden hands (no unseen card between them) are one.
    unseen = FULL_MASK & ~kn.played & ~mask_of(list(view.hand))
    table = mask_of([c for _, c in view.trick])
    kept = reduce_equivalent(sum(1 << c for c in cards), unseen | table, strain)
    candidates = [c for c in cards if kept >> c & 1]
    if len(candidates) == 1:
        return candidates[0]
    race = _Race(candidates)
    played = len(view.tricks)
    budget = budget * EARLY_BUDGET[played] // 4 if played < len(EARLY_BUDGET) else budget
    if len(view.hand) <= EXACT_CARDS:
        _exact(view, kn, rng, budget * NODES_PER_UNIT, race, out_of_time)
    if race.worlds == 0:
        _playouts(view, kn, rng, budget, race, out_of_time)
    return race.best()


class _Race:
    """Each candidate's value in each world so far; a candidate clearly worse than the
    leader (paired over the same worlds) is dropped, so the worlds still to come are
    spent on the cards still in question."""

    def __init__(self, cards: Sequence[int]) -> None:
        self.active = list(cards)
        self.values: dict[int, list[float]] = {c: [] for c in cards}
        self.worlds = 0

    def add(self, values: dict[int, float]) -> None:
        for c in self.active:
            self.values[c].append(values[c])
        self.worlds += 1
        if self.worlds % RACE_EVERY == 0 and len(self.active) > 1:
            self._prune()

    def _prune(self) -> None:
        lead = self.best()
        lv = self.values[lead]
        keep = []
        for c in self.active:
            diffs = [a - b for a, b in zip(lv, self.values[c], strict=True)]
            k = len(diffs)
            mean = sum(diffs) / k
            var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
            if c == lead or mean * mean * k <= RACE_Z * RACE_Z * var or mean <= 0:
                keep.append(c)
        self.active = keep

    def best(self) -> int:
        return max(self.active, key=lambda c: (sum(self.values[c]), -c))


def _worlds(view: SeatView, kn: Knowledge, rng: random.Random) -> Iterator[list[Mask]]:
    """Worlds without end, drawn :data:`BATCH` at a time."""
    drawer = worlds.Drawer(view, kn)
    while True:
        yield from drawer.draw(rng, BATCH)


def _playouts(
    view: SeatView,
    kn: Knowledge,
    rng: random.Random,
    budget: int,
    race: _Race,
    out_of_time: Callable[[], bool] | None,
) -> None:
    """Finish each world with the greedy policy after each card still in the race, until
    ``budget`` play-outs are spent."""
    side = side_of(view.seat)
    misere = view.strain == Strain.MISERE
    spent = 0
    for hands in _worlds(view, kn, rng):
        done = race.worlds
        if done >= MIN_SAMPLES and (spent >= budget or done >= budget * PLAYOUT_WORLDS_PER_UNIT):
            break
        if done >= MIN_SAMPLES and out_of_time is not None and out_of_time():
            break
        base = _position(view, hands)
        values = {}
        for card in race.active:
            pos = base.copy()
            play(pos, card)
            finish(pos)
            points = pos.points[side] - pos.points[1 - side]
            values[card] = outcome(pos, side) + POINTS_WEIGHT * (-points if misere else points)
            spent += 1
        race.add(values)


def _exact(
    view: SeatView,
    kn: Knowledge,
    rng: random.Random,
    nodes: int,
    race: _Race,
    out_of_time: Callable[[], bool] | None,
) -> None:
    """Solve worlds exactly for each card still in the race until ``nodes`` positions
    are spent (a world cut short by the limit is dropped)."""
    # Imported here: numba and the compiled solver are loaded by a hard bot's first
    # solve, not by every program that imports the bots.
    from belot.bots.solver import Solver

    ruleset = view.ruleset
    side = side_of(view.seat)
    strain = -1 if view.strain is None else int(view.strain)
    table = sum(1 << c for _, c in view.trick)
    trick = [c for _, c in view.trick]
    leader = view.trick[0][0] if view.trick else view.seat
    won = 0
    for t in view.tricks:
        won |= 1 << side_of(t.winner)
    if strain == MISERE:
        won = 3  # no capot in misère: one table entry whatever was taken
    solver = Solver(ruleset, strain)
    left = ruleset.tricks - len(view.tricks)
    for hands in _worlds(view, kn, rng):
        done = race.worlds
        if done >= MIN_SAMPLES and out_of_time is not None and out_of_time():
            break
        if nodes <= 0 or done >= MAX_WORLDS:
            break
        cards = race.active
        others = table
        for seat, hand in enumerate(hands):
            if seat != view.seat:
                others |= hand
        kept = reduce_equivalent(sum(1 << c for c in cards), others, strain)
        before = solver.nodes
        solved = solver.values(
            hands, trick, leader, left, won, [c for c in cards if kept >> c & 1], nodes
        )
        if solved is None:
            break
        nodes -= solver.nodes - before
        base = _position(view, hands)
        rest = _rest(base)
        values = {}
        for card in cards:
            value = solved.get(card)
            if value is None:  # an equivalent lower card: the value of the one kept
                value = solved[min(c for c in solved if c > card and c >> 3 == card >> 3)]
            values[card] = _scored(base, value, side, rest) + POINTS_WEIGHT * value
        race.add(values)


def _rest(base: Position) -> int:
    """The points still to be taken from ``base`` on: its cards' and the last trick's."""
    pts = CARD_POINTS[base.strain]
    cards = 0
    for c in base.trick:
        cards |= 1 << c
    for hand in base.hands:
        cards |= hand
    return sum(pts[c] for c in cards_in(cards)) + LAST_TRICK_POINTS


def _scored(base: Position, value: int, side: int, rest: int) -> int:
    """The deal's result for ``side`` (ours minus theirs, as :func:`sim.outcome`) when
    the side to play, ``side``, makes ``value`` of the ``rest`` points from ``base`` on
    (see the solver)."""
    strain = base.strain
    pos = base.copy()
    pos.tricks_left = 0
    other = 1 - side
    all_tricks = base.ruleset.tricks
    if strain == MISERE:
        ours = (rest - value) // 2
        pos.points[side] += ours
        pos.points[other] += rest - ours
        return outcome(pos, side)
    if abs(value) > rest:  # capot: the winner took every trick of the deal
        winner = side if value > 0 else other
        pos.points[winner] += rest
        pos.tricks[winner], pos.tricks[1 - winner] = all_tricks, 0
        return outcome(pos, side)
    ours = (rest + value) // 2
    pos.points[side] += ours
    pos.points[other] += rest - ours
    # Tricks only matter for capot (none here) and melds that need a trick.
    for s, p in ((side, ours), (other, rest - ours)):
        if p > 0 and pos.tricks[s] == 0:
            pos.tricks[s] = 1
    for s in (0, 1):
        pos.tricks[s] = min(pos.tricks[s], all_tricks - 1)
    return outcome(pos, side)
