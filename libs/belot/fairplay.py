"""Fair play: what a seat's cards say about what it could see, from a finished match.

A seat plays on what it knows: its hand, the cards played, the bidding. A seat that sees
hidden cards (a partner on the phone, a second account watching, a leaked hand) plays,
more often than one that cannot, the card that is best with every hand known. The
measure here asks, card by card, whether the seat's choices gained double-dummy points
that what it could know did not point to:

- **The known-best card** of a decision: what a strong player who sees only its own seat
  plays there. It is the hard bot's card (:mod:`belot.bots.hard`: sampled worlds of the
  hidden cards, each solved exactly), with a fixed node budget and a random generator
  seeded by the match and the decision, so that anyone recomputes it.
- **The gain** of a decision: the double-dummy value (:mod:`belot.analysis`, every hand
  known) of the card played less that of the known-best card. A seat that cannot see
  gains nothing on average against it: the hard bot at the table and the known-best card
  are two draws of the same search on the same view (their gains are as often one sign as
  the other), and a weaker player loses points to it. A seat that sees plays the true
  deal's best card, whose gain is never negative.
- **The score** of a seat's decisions: their gains' sum over the root of their squares'
  sum (a self-normalised sum). When each gain is as likely positive as negative whatever
  its size, ``P(score >= t) <= exp(-t**2 / 2)`` for every number of decisions (Efron,
  1969: given the sizes, the signs are fair coins and Hoeffding bounds their sum), so the
  score needs no honest rate measured for the player's band, and a weaker honest player
  (whose gains lean negative) is flagged less, not more. :data:`FLAG_SCORE` is where a
  seat is shown to a person: its false positives and its power against peekers are
  measured by ``bench/fairplay.py`` (docs/fair-play.md).

Nothing here acts on anyone: it computes evidence, with the decisions it rests on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from belot.analysis import MatchAnalysis
from belot.cards import Card, to_code
from belot.commands import PlayCard
from belot.errors import BadEvent
from belot.events import CardPlayed, Event, MatchStarted
from belot.evolve import evolve
from belot.ruleset import Ruleset
from belot.state import new_match
from belot.view import SeatView, view

#: The hard bot's work for the known-best card: a table's default budget, and no clock,
#: so that the card depends on the view and the seed alone, never a machine's speed.
KNOWN_BUDGET: Final = 240

#: The name of how the known-best card is computed: the hard bot on KNOWN_BUDGET, in this
#: version of its search. Every stored decision is kept under it (the verify service's
#: fair-play job), and the evidence is read only from decisions of the current one: when
#: the hard bot comes to play another card on the same view (a stronger search, other
#: worlds), ``tests/data/fairplay-known-best.json`` no longer matches
#: (``tests/unit/test_fairplay_method.py`` fails); this name then changes, the vectors are
#: made again (``tools/make_fairplay_vectors.py``), and the job computes every analysed
#: match again under the new name. Gains against two bots are not one measure.
METHOD: Final = "hard-240/1"

#: The score from which a seat's (or a partnership's) evidence is shown to a person:
#: sqrt(2 ln 100), where exp(-FLAG_SCORE**2 / 2) bounds at 1% how often a seat that
#: cannot see reaches it; bench/fairplay.py measures the rate on honest bots and the
#: power on cheats.
FLAG_SCORE: Final = math.sqrt(2 * math.log(100))

#: What the seat could know gives a card: the known-best card of a seat's view.
KnownBest = Callable[[SeatView, random.Random], Card]


def hard_bot_card(seat_view: SeatView, rng: random.Random) -> Card:
    """The hard bot's card for the view, on its fixed budget (no clock: recomputable).
    Where the seat could also do something else first (declare its melds, swap the trump
    seven), the bot is asked for its card alone."""
    from belot.bots import Level, choose

    cards = tuple(m for m in seat_view.legal if isinstance(m, PlayCard))
    command = choose(replace(seat_view, legal=cards), rng, Level.HARD, KNOWN_BUDGET)
    if not isinstance(command, PlayCard):
        raise ValueError("the hard bot did not play a card where a card was due")
    return command.card


@dataclass(frozen=True, slots=True)
class Decision:
    """One card a seat played: its double-dummy value and the known-best card's, the
    double-dummy best cards, and who chose it."""

    deal: int
    trick: int
    index: int
    seat: int
    played: str
    dd_best: tuple[str, ...]
    known_best: str
    #: Double-dummy values (belot.analysis) of the card played and of the known-best card.
    played_value: int
    known_value: int
    #: The legal cards were not all worth the same double-dummy (there was a choice).
    choice: bool
    #: Who played the card (its event's ``acted_by``: "player", "bot", "timer",
    #: "autoplay"); None when the caller did not say (every card then counts).
    acted_by: str | None = None

    @property
    def by_player(self) -> bool:
        """The seat's player chose this card: not a bot, the turn clock or autoplay."""
        return self.acted_by in (None, "player")

    @property
    def gain(self) -> int:
        """The card played's double-dummy value less the known-best card's."""
        return self.played_value - self.known_value

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal, "trick": self.trick, "index": self.index, "seat": self.seat,
            "played": self.played, "known_best": self.known_best, "dd_best": list(self.dd_best),
            "played_value": self.played_value, "known_value": self.known_value,
            "gain": self.gain, "choice": self.choice, "acted_by": self.acted_by,
        }  # fmt: skip

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Decision:
        """The decision :meth:`to_json` wrote (its gain is recomputed, not read)."""
        return cls(
            doc["deal"], doc["trick"], doc["index"], doc["seat"], doc["played"],
            tuple(doc["dd_best"]), doc["known_best"], doc["played_value"], doc["known_value"],
            doc["choice"], doc["acted_by"],
        )  # fmt: skip


def decisions(
    ruleset: Ruleset,
    events: Iterable[Event],
    analysis: MatchAnalysis,
    known_best: KnownBest = hard_bot_card,
    acted_by: Sequence[str | None] | None = None,
) -> list[Decision]:
    """Every card played in the match, with what the seat could know gave there. The rng
    of each decision is seeded by the match id and the decision's place. ``acted_by``:
    for each ``CardPlayed`` in order, who played it (the event's metadata, as a record
    holds it), so that the evidence leaves out the cards the seat's player did not
    choose; a length other than the cards' is refused (ValueError)."""
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
            rng = random.Random(f"{first.match_id}:{place[0]}:{place[1]}:{place[2]}")
            known = known_best(view(state, event.seat), rng)
            if acted_by is not None and len(out) >= len(acted_by):
                raise ValueError(f"acted_by names {len(acted_by)} cards, the match played more")
            who = None if acted_by is None else acted_by[len(out)]
            code = to_code(known)
            if code not in analysed.values:
                raise ValueError(f"the known-best card {code} is not legal at {place}")
            out.append(
                Decision(
                    *place, event.seat, analysed.card, analysed.best, code,
                    analysed.values[analysed.card], analysed.values[code],
                    len(set(analysed.values.values())) > 1, who,
                )
            )  # fmt: skip
        state = evolve(state, event)
    if acted_by is not None and len(acted_by) != len(out):
        raise ValueError(f"acted_by names {len(acted_by)} cards, the match played {len(out)}")
    return out


@dataclass(frozen=True, slots=True)
class Evidence:
    """A seat's (or a partnership's) counted decisions, their gains' sum, the score and
    whether it reaches :data:`FLAG_SCORE`."""

    decisions: tuple[Decision, ...]
    gain: int
    score: float

    @property
    def n(self) -> int:
        return len(self.decisions)

    @property
    def bound(self) -> float:
        """``exp(-score**2 / 2)``: at most how often a seat that cannot see scores as high
        (Efron's bound; 1 for a score of 0 or less)."""
        return 1.0 if self.score <= 0 else math.exp(-self.score * self.score / 2)

    @property
    def flagged(self) -> bool:
        return self.score >= FLAG_SCORE

    def to_json(self) -> dict[str, object]:
        return {
            "decisions": self.n, "gain": self.gain, "score": round(self.score, 3),
            "bound": self.bound, "flagged": self.flagged,
        }  # fmt: skip


def weigh(gain: int) -> float:
    """What one decision's gain weighs in the score: its sign. Any odd function keeps
    Efron's bound (a fair coin's sign stays a fair coin). Measured on the bench's
    populations (docs/fair-play.md): the sign, the gain clipped at 10 or 20 points, its
    root and its logarithm separate cheats from honest seats alike (within the noise);
    the raw gain does worse (a 25% peeker flagged in 3% of 50-deal windows against 11%
    for the sign), since the points a card gains double-dummy are as large when two
    honest searches disagree as when a seat sees. The sign is the simplest of those."""
    return float((gain > 0) - (gain < 0))


def score(gains: Iterable[int], weighed: Callable[[int], float] = weigh) -> float:
    """The self-normalised sum of the weighed ``gains``: their sum over the root of their
    squares' sum (0 when every gain is 0). ``weighed``: another odd function of the gain
    (the bench compares them)."""
    total, squares = 0.0, 0.0
    for g in gains:
        w = weighed(g)
        total += w
        squares += w * w
    return 0.0 if not squares else total / math.sqrt(squares)


def evidence(made: Iterable[Decision]) -> Evidence:
    """The evidence of one seat's decisions, or a partnership's: its players' own cards
    where there was a choice (a card the turn clock, autoplay or a bot played for the seat
    says nothing of what the player saw; a forced card says nothing at all)."""
    counted = tuple(d for d in made if d.choice and d.by_player)
    return Evidence(counted, sum(d.gain for d in counted), score(d.gain for d in counted))
