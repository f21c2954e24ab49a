"""Fair play: what a seat's cards say about what it could see, from a finished match.

A seat plays on what it knows: its hand, the cards played, the bidding. A seat that sees
hidden cards (a partner on the phone, a second account watching, a leaked hand) plays,
more often than one that cannot, a card that is best with every hand known. The measure
here asks, card by card, how often the seat's card was a double-dummy best card, against
how often it would be for a seat that sees only itself:

- **The chance** of a decision: in how many of the worlds consistent with what the seat
  saw (:data:`WORLDS` deals of the hidden cards, drawn as the hard bot draws them:
  :mod:`belot.bots.worlds`, every fact seen and the bidding's weights) the card played is
  a best card, each world solved exactly for every legal card (:mod:`belot.bots.solver`).
  Its random generator is seeded by the match and the decision's place, so anyone
  recomputes it. Only the worlds where the legal cards are not all worth the same count,
  since a decision counts only where the true deal gave a choice: the chance is
  conditioned on the event the decision was selected by, in the worlds as in the deal.
- **The surprise** of a decision: 1 if the card played is a best card of the true deal
  (:mod:`belot.analysis`), else 0, less its chance. For a seat that cannot see, whatever
  its strength and however it chooses, the card is chosen on what the seat saw alone,
  so the true deal is, for it, one more world: a surprise is 0 on average, decision
  after decision (a martingale), with variance ``chance * (1 - chance)``. A seat that
  sees plays best cards more often than their chances say.
- **The score** of a seat's decisions asks whether it finds best cards beyond what
  reading the table explains. The worlds miss what the others' play says (a seat that
  kept its ace, a partner who did not ruff), and honest seats read some of it: bots of
  every level found, of the best cards the worlds gave no chance, up to a tenth
  (:data:`READ_SHARE`; ``bench/fairplay.py`` prints each level's share). So a seat is
  allowed a best card at ``c + READ_SHARE * (1 - c)`` (:func:`allowed`), ``c`` its
  chance counted with half a world more each way (``(hits + 1/2) / (worlds + 1)``:
  24 worlds call no card certain or impossible, and the weight below divides by it), and
  each decision adds ``weight * (found - allowed)``, over the root of the sum of
  ``weight ** 2 * allowed * (1 - allowed)``: for a seat that reads no more than that,
  a sum with a mean of at most 0 decision after decision, whatever the weights (each is
  known before the card is played), so its score stays near or under a standard normal
  over any number of deals. The weight (:func:`weight`) is the log-likelihood ratio's
  slope against a seat that plays a best card it saw in :data:`PEEK_SHARE` of its
  decisions: a best card found at a chance of 10% says far more than one found at 90%.
  ``bench/fairplay.py`` prints this score against the last method (the surprises' plain
  sum, every one weighing the same, no allowance), each flagged where every honest
  level is flagged at most 1% of the time, and the honest levels' windows flagged over
  100 and 200 deals, where a level the worlds do not fit would drift up.
  :data:`FLAG_SCORE` is where a seat is shown to a person; its false positives and its
  power against peekers are measured by ``bench/fairplay.py`` (docs/fair-play.md).

The worlds are the hard bot's model of what a seat knows: what the other seats' play says
beyond the facts (a strong player's reading of it) is not in them, so the chance is an
approximation, and the bench measures how far honest bots of every level stay from it.

Nothing here acts on anyone: it computes evidence, with the decisions it rests on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from belot.analysis import MatchAnalysis
from belot.bots.equivalent import reduce_equivalent
from belot.bots.knowledge import knowledge
from belot.bots.worlds import Drawer
from belot.cards import FULL_MASK, Mask, mask_of, to_code
from belot.commands import PlayCard
from belot.errors import BadEvent
from belot.events import CardPlayed, Event, MatchStarted
from belot.evolve import evolve
from belot.play import MISERE
from belot.ruleset import Ruleset
from belot.seats import side_of
from belot.state import new_match
from belot.view import SeatView, view

#: Worlds drawn for a decision's chances. What they cost a club deal for one seat is in
#: bench/fairplay.py's first line (docs/bench/fairplay.md), most of it the first trick's
#: eight-card solves.
WORLDS: Final = 24

#: The name of how the chances are computed: WORLDS worlds of the hard bot's drawer,
#: each solved exactly. Every stored decision is kept under it (the verify service's
#: fair-play job), and the evidence is read only from decisions of the current one: when
#: the drawer or the solver changes what a decision's worlds say,
#: ``tests/data/fairplay-chances.json`` no longer matches
#: (``tests/unit/test_fairplay_method.py`` fails); this name then changes, the vectors are
#: made again (``tools/make_fairplay_vectors.py``), and the job computes every analysed
#: match again under the new name. Chances of two models are not one measure.
METHOD: Final = "worlds-24/1"

#: The share of its decisions in which the cheat the score is shaped against plays a
#: best card it saw (:func:`weight`): the issue's quarter-time peeker.
PEEK_SHARE: Final = 0.25

#: The share of the best cards the worlds miss (``1 - chance``) that the score allows a
#: seat that cannot see to find by reading the table (:func:`allowed`): a tenth covers
#: the honest level that reads most, the hard bot, in bench/fairplay.py's read-share
#: column (each level's best cards found beyond its chances over what they left).
READ_SHARE: Final = 0.10

#: The score from which a seat's (or a partnership's) evidence is shown to a person: the
#: lowest score of bench/fairplay.py's grid at which every honest level's 50-deal
#: windows were flagged at most 1% of the time, chosen on one run and checked on a run
#: of other matches (``--first-seed``; docs/bench/fairplay.md). Near the normal's 1%
#: point (2.33): the allowance (READ_SHARE) takes up what the worlds miss, so the score
#: no longer needs the room the surprises' plain sum did (3.25), and an honest seat's
#: score does not drift up over more deals.
FLAG_SCORE: Final = 2.5


@dataclass(frozen=True, slots=True)
class Chances:
    """A decision's worlds: how many gave the legal cards different values (``worlds``),
    and in how many of those each legal card (by code) was a best card."""

    worlds: int
    best: Mapping[str, int]


#: What the seat could know gives a decision: its worlds' chances (None: not measured).
Chance = Callable[[SeatView, random.Random], Chances | None]


def world_chances(seat_view: SeatView, rng: random.Random) -> Chances:
    """:data:`WORLDS` worlds of the hidden cards consistent with the seat's view, drawn
    as the hard bot draws them, each solved exactly for every legal card."""
    # Imported here: numba and the compiled solver load at the first solve.
    from belot.bots.solver import Solver

    kn = knowledge(seat_view)
    cards = sorted({m.card for m in seat_view.legal if isinstance(m, PlayCard)})
    strain = -1 if seat_view.strain is None else int(seat_view.strain)
    trick = [c for _, c in seat_view.trick]
    table = mask_of(trick)
    leader = seat_view.trick[0][0] if seat_view.trick else seat_view.seat
    won = 0
    for t in seat_view.tricks:
        won |= 1 << side_of(t.winner)
    if strain == MISERE:
        won = 3  # no capot in misère (as the analysis solves it)
    left = seat_view.ruleset.tricks - len(seat_view.tricks)
    solver = Solver(seat_view.ruleset, strain)
    drawer = Drawer(seat_view, kn)
    best = dict.fromkeys(cards, 0)
    worlds = 0
    drawn: list[list[Mask]] = []
    while len(drawn) < WORLDS:
        drawn.extend(drawer.draw(rng, WORLDS - len(drawn)))
    for hands in drawn:
        solver.new_world()
        others = table
        for seat, hand in enumerate(hands):
            if seat != seat_view.seat:
                others |= hand
        kept = reduce_equivalent(mask_of(cards), others & FULL_MASK, strain)
        moves = [c for c in cards if kept >> c & 1]
        values = solver.values(hands, trick, leader, left, won, moves)
        if values is None:  # never without a node limit
            raise RuntimeError("the solver stopped short of a world's values")
        for c in cards:
            if c not in values:  # an equivalent lower card: the value of the one kept
                values[c] = values[min(m for m in moves if m > c and m >> 3 == c >> 3)]
        top = max(values.values())
        if min(values.values()) == top:
            continue  # no choice in this world: it says nothing of the decision
        worlds += 1
        for c in cards:
            best[c] += values[c] == top
    return Chances(worlds, {to_code(c): n for c, n in best.items()})


@dataclass(frozen=True, slots=True)
class Decision:
    """One card a seat played: its double-dummy value and the best cards, its chance of
    being one on what the seat could know, and who chose it."""

    deal: int
    trick: int
    index: int
    seat: int
    played: str
    dd_best: tuple[str, ...]
    #: The double-dummy value (belot.analysis) of the card played.
    played_value: int
    #: The legal cards were not all worth the same double-dummy (there was a choice).
    choice: bool
    #: The decision's worlds with a choice (0: not measured, or none had a choice).
    worlds: int
    #: In how many of them the card played was a best card.
    hits: int
    #: The card that was a best card in the most worlds (the lowest of equals); "" when
    #: not measured.
    likeliest: str
    #: Who played the card (its event's ``acted_by``: "player", "bot", "timer",
    #: "autoplay"); None when the caller did not say (every card then counts).
    acted_by: str | None = None

    @property
    def by_player(self) -> bool:
        """The seat's player chose this card: not a bot, the turn clock or autoplay."""
        return self.acted_by in (None, "player")

    @property
    def counted(self) -> bool:
        """The evidence counts it: a choice in the true deal and in some world, the
        player's own card."""
        return self.choice and self.worlds > 0 and self.by_player

    @property
    def found(self) -> bool:
        """The card played is a best card of the true deal."""
        return self.played in self.dd_best

    @property
    def chance(self) -> float:
        """The share of the worlds in which the card played was a best card."""
        return self.hits / self.worlds if self.worlds else 0.0

    @property
    def estimate(self) -> float:
        """The chance with half a world more each way, ``(hits + 1/2) / (worlds + 1)``:
        what the score takes it as (24 worlds call no card certain or impossible)."""
        return (self.hits + 0.5) / (self.worlds + 1)

    @property
    def surprise(self) -> float:
        """:attr:`found` (1 or 0) less :attr:`chance`."""
        return float(self.found) - self.chance

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal, "trick": self.trick, "index": self.index, "seat": self.seat,
            "played": self.played, "dd_best": list(self.dd_best),
            "played_value": self.played_value, "choice": self.choice,
            "worlds": self.worlds, "hits": self.hits, "likeliest": self.likeliest,
            "found": self.found, "chance": round(self.chance, 4),
            "surprise": round(self.surprise, 4), "acted_by": self.acted_by,
        }  # fmt: skip

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Decision:
        """The decision :meth:`to_json` wrote (found, chance and surprise are recomputed,
        not read)."""
        return cls(
            doc["deal"], doc["trick"], doc["index"], doc["seat"], doc["played"],
            tuple(doc["dd_best"]), doc["played_value"], doc["choice"], doc["worlds"],
            doc["hits"], doc["likeliest"], doc["acted_by"],
        )  # fmt: skip


def decisions(
    ruleset: Ruleset,
    events: Iterable[Event],
    analysis: MatchAnalysis,
    chances: Chance = world_chances,
    acted_by: Sequence[str | None] | None = None,
) -> list[Decision]:
    """Every card played in the match, with its chances on what the seat could know,
    measured where the true deal gave a choice (elsewhere a card says nothing). The rng
    of each decision is seeded by the match id and the decision's place. ``chances``
    answers None for a seat not measured (a bot's). ``acted_by``: for each ``CardPlayed``
    in order, who played it (the event's metadata, as a record holds it), so that the
    evidence leaves out the cards the seat's player did not choose; a length other than
    the cards' is refused (ValueError)."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, MatchStarted):
        raise BadEvent("a match's log starts with MatchStarted")
    state = new_match(ruleset, first.match_id, target=first.target, first_dealer=first.first_dealer)
    by_place = {(c.deal, c.trick, c.index): c for d in analysis.deals for c in d.cards}
    out: list[Decision] = []
    for event in it:
        if isinstance(event, CardPlayed):
            deal = state.deal
            if deal is None:
                raise BadEvent("a card played outside a deal")
            place = (deal.number, len(deal.tricks), len(deal.trick))
            analysed = by_place.get(place)
            if analysed is None or analysed.card != to_code(event.card):
                raise ValueError(f"the analysis does not hold the card played at {place}")
            if acted_by is not None and len(out) >= len(acted_by):
                raise ValueError(f"acted_by names {len(acted_by)} cards, the match played more")
            who = None if acted_by is None else acted_by[len(out)]
            choice = len(set(analysed.values.values())) > 1
            measured = None
            if choice:
                rng = random.Random(f"{first.match_id}:{place[0]}:{place[1]}:{place[2]}")
                measured = chances(view(state, event.seat), rng)
            worlds, hits, likeliest = 0, 0, ""
            if measured is not None and measured.worlds:
                if set(measured.best) != set(analysed.values):
                    raise ValueError(f"the chances are not of the legal cards at {place}")
                worlds, hits = measured.worlds, measured.best[analysed.card]
                likeliest = min(measured.best, key=lambda c: (-measured.best[c], c))
            out.append(
                Decision(
                    *place, event.seat, analysed.card, analysed.best,
                    analysed.values[analysed.card], choice, worlds, hits, likeliest, who,
                )
            )  # fmt: skip
        state = evolve(state, event)
    if acted_by is not None and len(acted_by) != len(out):
        raise ValueError(f"acted_by names {len(acted_by)} cards, the match played {len(out)}")
    return out


@dataclass(frozen=True, slots=True)
class Evidence:
    """A seat's (or a partnership's) counted decisions: how many found a best card, how
    many the chances expected, the score and whether it reaches :data:`FLAG_SCORE`."""

    decisions: tuple[Decision, ...]
    found: int
    expected: float
    score: float

    @property
    def n(self) -> int:
        return len(self.decisions)

    @property
    def flagged(self) -> bool:
        return self.score >= FLAG_SCORE

    def to_json(self) -> dict[str, object]:
        return {
            "decisions": self.n, "found": self.found, "expected": round(self.expected, 2),
            "score": round(self.score, 3), "flagged": self.flagged,
        }  # fmt: skip


def allowed(chance: float, read_share: float = READ_SHARE) -> float:
    """The rate of best cards the score allows a seat at ``chance``: what the worlds give
    and ``read_share`` (:data:`READ_SHARE`) of what they miss."""
    return chance + read_share * (1 - chance)


def weight(chance: float, read_share: float = READ_SHARE) -> float:
    """How much a best card found at ``chance`` weighs in the score: the slope of the
    log-likelihood ratio between a seat that plays a best card it saw in
    :data:`PEEK_SHARE` of its decisions (a best card at ``chance + PEEK_SHARE * (1 -
    chance)``) and one allowed :func:`allowed`: its log-ratio if it finds one less its
    log-ratio if it does not. Near a chance of 1, ``log((1 - READ_SHARE) / (1 -
    PEEK_SHARE))`` (0.18); at 0.5, 0.31; at 0.1, 0.72; at 0.02 (no hit in 24 worlds), 0.99."""
    peek = chance + PEEK_SHARE * (1 - chance)
    return math.log(peek / allowed(chance, read_share)) - math.log(
        (1 - PEEK_SHARE) / (1 - read_share)
    )


def term(d: Decision, read_share: float = READ_SHARE) -> tuple[float, float]:
    """A decision's part of the score: ``weight * (found - allowed)`` and its variance for
    a seat found at the allowed rate, both at :attr:`Decision.estimate`; (0, 0) for a
    decision without worlds. ``read_share`` 0: no allowance (the likelihood-ratio test
    for chances that were exact, bench/fairplay.py's ceiling)."""
    if not d.worlds:
        return 0.0, 0.0
    c = d.estimate
    a = allowed(c, read_share)
    w = weight(c, read_share)
    return w * (float(d.found) - a), w * w * a * (1 - a)


def score(made: Iterable[Decision], read_share: float = READ_SHARE) -> float:
    """The terms' sum over the root of their variances' sum (:func:`term`; 0 without a
    decision)."""
    total, variance = 0.0, 0.0
    for d in made:
        t, v = term(d, read_share)
        total += t
        variance += v
    return 0.0 if variance <= 0 else total / math.sqrt(variance)


def evidence(made: Iterable[Decision]) -> Evidence:
    """The evidence of one seat's decisions, or a partnership's: its players' own cards
    where the true deal and some world gave a choice (a card the turn clock, autoplay or
    a bot played for the seat says nothing of what the player saw; a forced card says
    nothing at all)."""
    counted = tuple(d for d in made if d.counted)
    return Evidence(
        counted, sum(d.found for d in counted), sum(d.chance for d in counted), score(counted)
    )
