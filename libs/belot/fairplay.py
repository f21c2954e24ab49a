"""Fair play: what a seat's cards say about what it could see, from a finished match.

A seat plays on what it knows: its hand, the cards played, the bidding. A seat that sees
hidden cards (a partner on the phone, a second account watching, a leaked hand) plays,
more often than one that cannot, the card that is best with every hand known. The
measure here separates the two on the positions where it can:

- **The known-best card** of a decision: what a strong player who sees only its own seat
  plays there. It is the hard bot's card (:mod:`belot.bots.hard`: sampled worlds of the
  hidden cards, each solved exactly), with a fixed node budget and a random generator
  seeded by the match and the decision, so that anyone recomputes it.
- **The double-dummy best cards** (:mod:`belot.analysis`): the best with every hand known.
- A decision **discriminates** when the known-best card is not double-dummy best: there,
  what the seat could know points away from the true deal's best card. A **hit** is a
  discriminating decision where the seat played a double-dummy best card anyway.

A seat that cannot see hits at some rate ``p0`` (luck, and play better than the bot's);
one that sees hits more. :func:`evidence` counts a seat's hits ``k`` out of ``n``
discriminating decisions and gives the binomial tail ``P(X >= k | n, p0)``: how rarely a
seat that cannot see does as well. What ``p0`` is for players of a rating, and which tail
is rare enough to show a person (never to act on alone), are to be measured on honest
and peeking populations (docs/fair-play.md). Nothing here flags anyone: it
computes evidence, with the decisions it rests on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

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
    """One card a seat played: the double-dummy best cards, the known-best card, and
    whether the decision discriminates and hit."""

    deal: int
    trick: int
    index: int
    seat: int
    played: str
    dd_best: tuple[str, ...]
    known_best: str
    #: Who played the card (its event's ``acted_by``: "player", "bot", "timer",
    #: "autoplay"); None when the caller did not say (every card then counts).
    acted_by: str | None = None

    @property
    def by_player(self) -> bool:
        """The seat's player chose this card: not a bot, the turn clock or autoplay."""
        return self.acted_by in (None, "player")

    @property
    def discriminating(self) -> bool:
        return self.known_best not in self.dd_best

    @property
    def hit(self) -> bool:
        return self.discriminating and self.played in self.dd_best


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
            out.append(
                Decision(*place, event.seat, analysed.card, analysed.best, to_code(known), who)
            )
        state = evolve(state, event)
    if acted_by is not None and len(acted_by) != len(out):
        raise ValueError(f"acted_by names {len(acted_by)} cards, the match played {len(out)}")
    return out


@dataclass(frozen=True, slots=True)
class Evidence:
    """A seat's hits ``k`` out of ``n`` discriminating decisions, and how rarely a seat that
    cannot see (hitting at ``p0``) does as well (``tail``)."""

    n: int
    k: int
    p0: float
    tail: float
    decisions: tuple[Decision, ...]

    @property
    def rate(self) -> float | None:
        return None if not self.n else self.k / self.n


def binomial_tail(k: int, n: int, p: float) -> float:
    """``P(X >= k)`` for ``X`` binomial(``n``, ``p``), summed exactly."""
    if not 0 <= p <= 1 or k < 0 or n < 0:
        raise ValueError("binomial_tail takes 0 <= k, 0 <= n and 0 <= p <= 1")
    if k == 0:
        return 1.0
    if k > n:
        return 0.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def evidence(made: Sequence[Decision], p0: float) -> Evidence:
    """The evidence of one seat's (or partnership's) decisions against the rate ``p0``:
    its player's own discriminating decisions (a card the turn clock, autoplay or a bot
    played for the seat says nothing of what the player saw)."""
    counted = tuple(d for d in made if d.discriminating and d.by_player)
    k = sum(d.hit for d in counted)
    return Evidence(len(counted), k, p0, binomial_tail(k, len(counted), p0), counted)
