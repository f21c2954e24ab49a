"""Whole matches between bots, on decks from the real fair-deal recipe.

``simulate(ruleset, levels, matches, seed)`` plays ``matches`` matches and returns the
counts and means with 95% confidence intervals; ``belot simulate`` prints them.
Deterministic for a given seed: each match's server seed is
``SHA-256("belot-simulate/v1|<seed>|deal-source|<i>")`` (bots send no seat seed, and no
drand round is used), its first dealer and its bots' random generator come from the
same hash with other labels. Nothing here reads a clock.

With ``swap``, matches go in mirrored pairs: both matches of a pair are dealt the same
decks from the same first dealer, and the second puts each bot list on the other side.
``wins[0]`` always counts the bots named for seats 0 and 2 (seat 0 at two players),
wherever they sat, so seat position cannot bias a comparison.

Here in :mod:`fairdeal` rather than in :mod:`belot`: it needs both the game and the
recipe, and the game sits below the recipe (``fairdeal`` imports ``belot``, never the
reverse). Not exported from :mod:`fairdeal` itself: the bots are only needed here.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from belot.bots import Level, choose
from belot.cards import Card
from belot.commands import Command, SupplyDeck
from belot.events import DealScored
from belot.match import DueKind, decide, due, evolve, new_match
from belot.ruleset import Ruleset
from belot.view import view
from fairdeal.recipe import DeckInputs, Shuffler

#: 95% two-sided normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class MatchOutcome:
    #: The side (by bot list: 0 = the bots named for seats 0 and 2) that won, or None.
    winner: int | None
    #: Points awarded per deal, by bot list.
    deal_points: tuple[tuple[int, int], ...]
    scores: tuple[int, int]


@dataclass(frozen=True)
class SimulationResult:
    ruleset: str
    seats: tuple[str, ...]
    matches: int
    seed: str
    swap: bool
    #: By bot list: wins[0] counts the bots named for seats 0 and 2.
    wins: tuple[int, int]
    draws: int
    deals: int
    #: Share of matches won, with a Wilson 95% interval, by bot list.
    win_rate: tuple[float, float]
    win_rate_ci: tuple[tuple[float, float], tuple[float, float]]
    #: Mean points awarded per deal, with a normal 95% interval, by bot list.
    points_per_deal: tuple[float, float]
    points_per_deal_ci: tuple[tuple[float, float], tuple[float, float]]

    def to_payload(self) -> dict[str, object]:
        return {
            "ruleset": self.ruleset,
            "seats": list(self.seats),
            "matches": self.matches,
            "seed": self.seed,
            "swap": self.swap,
            "wins": list(self.wins),
            "draws": self.draws,
            "deals": self.deals,
            "win_rate": list(self.win_rate),
            "win_rate_ci": [list(ci) for ci in self.win_rate_ci],
            "points_per_deal": list(self.points_per_deal),
            "points_per_deal_ci": [list(ci) for ci in self.points_per_deal_ci],
        }


def _digest(seed: str, label: str, i: int) -> bytes:
    return hashlib.sha256(f"belot-simulate/v1|{seed}|{label}|{i}".encode()).digest()


def simulate(
    ruleset: Ruleset,
    seats: Sequence[str],
    matches: int,
    seed: str,
    *,
    swap: bool = False,
    budget: int | None = None,
) -> SimulationResult:
    """Play ``matches`` matches with bot ``seats[s]`` at seat ``s`` (levels easy, medium,
    hard); see the module docstring for seeds and ``swap``."""
    n = ruleset.players
    if len(seats) != n:
        raise ValueError(f"{ruleset.name} seats {n} players; got {len(seats)} bots")
    for level in seats:
        Level(level)
    wins = [0, 0]
    draws = 0
    points: list[tuple[int, int]] = []
    for m in range(matches):
        mirrored = swap and m % 2 == 1
        pair = m // 2 if swap else m
        deal_seed = _digest(seed, "deal-source", pair)
        shuffler = Shuffler(DeckInputs(deal_seed, (b"",) * n, None))
        first_dealer = _digest(seed, "first-dealer", pair)[0] % n
        rng = random.Random(_digest(seed, "bots", m))
        levels = [seats[(s + 1) % n] for s in range(n)] if mirrored else list(seats)
        outcome = play_match(ruleset, levels, shuffler, rng, first_dealer, budget)
        # Mirrored, table side 0 holds bot list 1.
        if outcome.winner is None:
            draws += 1
        else:
            wins[1 - outcome.winner if mirrored else outcome.winner] += 1
        for a, b in outcome.deal_points:
            points.append((b, a) if mirrored else (a, b))
    return SimulationResult(
        ruleset=ruleset.name,
        seats=tuple(seats),
        matches=matches,
        seed=seed,
        swap=swap,
        wins=(wins[0], wins[1]),
        draws=draws,
        deals=len(points),
        win_rate=(_share(wins[0], matches), _share(wins[1], matches)),
        win_rate_ci=(wilson(wins[0], matches), wilson(wins[1], matches)),
        points_per_deal=(_mean([p[0] for p in points]), _mean([p[1] for p in points])),
        points_per_deal_ci=(mean_ci([p[0] for p in points]), mean_ci([p[1] for p in points])),
    )


def play_match(
    ruleset: Ruleset,
    levels: Sequence[str],
    shuffler: Shuffler,
    rng: random.Random,
    first_dealer: int,
    budget: int | None = None,
) -> MatchOutcome:
    """One match with bot ``levels[s]`` at seat ``s``; deck ``k`` is ``shuffler.deck(k)``."""
    state = new_match(ruleset, first_dealer=first_dealer)
    deal_points: list[tuple[int, int]] = []
    while True:
        d = due(state)
        if d.kind is DueKind.NOTHING:
            break
        if d.kind is DueKind.DECK:
            deck: tuple[Card, ...] = shuffler.deck(d.deal_number, ruleset.deck_size)
            command: Command = SupplyDeck(d.deal_number, deck)
        else:
            assert d.seat is not None
            command = choose(view(state, d.seat), rng, levels[d.seat], budget)
        for e in decide(state, command):
            state = evolve(state, e)
            if isinstance(e, DealScored):
                deal_points.append(e.awarded)
    assert state.result is not None
    return MatchOutcome(state.result.winner, tuple(deal_points), state.result.scores)


def _share(k: int, n: int) -> float:
    return k / n if n else 0.0


def _mean(xs: Sequence[int]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``k / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(xs: Sequence[int], z: float = Z95) -> tuple[float, float]:
    """Normal-approximation interval for the mean of ``xs``."""
    n = len(xs)
    if n < 2:
        m = _mean(xs)
        return (m, m)
    m = _mean(xs)
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    half = z * math.sqrt(var / n)
    return (m - half, m + half)
