"""Which rating model predicts belot results best: simulated players of known strength.

Every model sees the same matches in the same run, so the figures compare like with like:

- the five OpenSkill (Weng-Lin) models, with the library's defaults;
- TrueSkill (the ``trueskill`` package, Microsoft's factor-graph algorithm), defaults;
- Glicko-2 (the ``glicko2`` package), one rating period per match, as lichess does;
- plain Elo, K = 32: the reference point, written here in a few lines;
- the oracle: the hidden strengths themselves, the ceiling no model can pass;
- this repository's rating core (libs/rating: eligibility, decide, evolve, events) running
  the chosen model: its predictions must equal that model's row; its speed is the
  service's, aggregate included.

A last section follows the rating core through a longer season (100 games a player) to
show how long the provisional mark lasts, and whether the RD it rests on is honest (the
median RD next to the actual error of the displayed ratings against the true strengths).

The players. 100 per run: 10 at each of the three bot levels (the easy, medium and hard
AI of docs/specification.md §4 at the strengths their measured results give on the Elo scale: 1022,
1500 and 1673, since medium beat easy in 94.0% of matches and hard beat medium in 73.0%;
their play is simulated, the game library is not used here) and 70 with strengths drawn
from N(1500, 250). Each match draws its players uniformly at random; in 2v2 the partners
change from match to match (the lobby and the ladder, not fixed tournament teams). A
side's strength is the mean of its players'.

The outcome of a match follows the strength difference D (side A minus side B) through
one of two links, because a simulation that follows one model's own formula would
flatter that model:

- ``logistic``: A wins with Elo's probability 1/(1+10^(-D/400)); a draw happens with
  probability ``draw_rate * 4p(1-p)`` first, so mostly between close sides;
- ``normal``: each side performs N(strength, 200) (Elo's original model, 200 points per
  class); the better performance wins; performances closer than a margin are a draw,
  the margin set so that ``draw_rate`` of even matches are drawn.

The measures. The first matches are the training part, rated in order; each model
predicts every match before it sees it, and the share it got right is reported for
each window of training (how fast it learns). The last ``--tail`` matches are held out:
the ratings are frozen at the end of training and every tail match is predicted from
them, never updated. "Predicted correctly": the side the model gives the higher win
probability won; drawn matches are left out of that share (every model misses them alike).
The Brier score of the win probability (a draw counts as half a win) is reported too:
it rewards calibrated probabilities, not only the right side. Updates per second: the
time spent in each model's update calls alone, over every rated match of the run.

    python bench/rating.py [--players 100] [--matches 2000] [--tail 500] [--seeds 20]
                           [--draw-rate 0.03] [--quick]

TrueSkill and Glicko-2 come from the ``bench`` extra (``pip install -e '.[bench]'``,
which ``make bench`` does); without them their rows are left out and the script says so.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

import rating

try:
    import trueskill
except ImportError:  # the bench extra is not installed
    trueskill = None
try:
    import glicko2
except ImportError:
    glicko2 = None

A_WINS, B_WINS, DRAW = 0, 1, 2
#: The bots' strengths on the Elo scale, from their measured results
#: (docs/benchmarks.md, "Bot strength"):
#: medium beat easy in 94.0% of whole matches (+478), hard beat medium in 73.0% (+173).
BOT_LEVELS = {"easy": 1500.0 - 478.0, "medium": 1500.0, "hard": 1500.0 + 173.0}
BOTS_PER_LEVEL = 10
HUMAN_MEAN, HUMAN_SD = 1500.0, 250.0
PERFORMANCE_SD = 200.0  # Elo's class interval: one player's performance spread


# --- the simulated world -------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    a: tuple[int, ...]
    b: tuple[int, ...]
    outcome: int


def population(rng: random.Random, players: int) -> list[float]:
    strengths = [level for level in BOT_LEVELS.values() for _ in range(BOTS_PER_LEVEL)]
    strengths += [rng.gauss(HUMAN_MEAN, HUMAN_SD) for _ in range(players - len(strengths))]
    return strengths


def elo_expectation(diff: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def simulate(
    rng: random.Random, strengths: Sequence[float], n: int, per_side: int, link: str, draws: float
) -> list[Match]:
    diff_sd = PERFORMANCE_SD * math.sqrt(2.0)
    # the margin under which two performances draw: P(|N(0, diff_sd)| < margin) = draws
    margin = diff_sd * statistics.NormalDist().inv_cdf((1.0 + draws) / 2.0)
    out = []
    for _ in range(n):
        seats = rng.sample(range(len(strengths)), 2 * per_side)
        a, b = tuple(seats[:per_side]), tuple(seats[per_side:])
        d = statistics.fmean(strengths[i] for i in a) - statistics.fmean(strengths[i] for i in b)
        if link == "logistic":
            p = elo_expectation(d)
            if rng.random() < draws * 4.0 * p * (1.0 - p):
                outcome = DRAW
            else:
                outcome = A_WINS if rng.random() < p else B_WINS
        else:
            perf = rng.gauss(d, diff_sd)
            outcome = DRAW if abs(perf) < margin else (A_WINS if perf > 0 else B_WINS)
        out.append(Match(a, b, outcome))
    return out


# --- the rating systems, behind one small interface -----------------------------------


class Rater(Protocol):
    def p_a_wins(self, m: Match) -> float: ...
    def update(self, m: Match) -> None: ...
    def estimate(self, i: int) -> float: ...


class Oracle:
    def __init__(self, strengths: Sequence[float], link: str) -> None:
        self.s, self.link = strengths, link

    def p_a_wins(self, m: Match) -> float:
        d = statistics.fmean(self.s[i] for i in m.a) - statistics.fmean(self.s[i] for i in m.b)
        if self.link == "logistic":
            return elo_expectation(d)
        return normal_cdf(d / (PERFORMANCE_SD * math.sqrt(2.0)))

    def update(self, m: Match) -> None:
        pass

    def estimate(self, i: int) -> float:
        return self.s[i]


class Elo:
    """Plain Elo, the baseline: a side is the mean of its players; K = 32 for each."""

    def __init__(self, k: float = 32.0) -> None:
        self.k = k
        self.r: dict[int, float] = {}

    def _side(self, side: tuple[int, ...]) -> float:
        return statistics.fmean(self.r.get(i, 1500.0) for i in side)

    def p_a_wins(self, m: Match) -> float:
        return elo_expectation(self._side(m.a) - self._side(m.b))

    def update(self, m: Match) -> None:
        score = (1.0, 0.0, 0.5)[m.outcome]
        delta = self.k * (score - self.p_a_wins(m))
        for i in m.a:
            self.r[i] = self.r.get(i, 1500.0) + delta
        for i in m.b:
            self.r[i] = self.r.get(i, 1500.0) - delta

    def estimate(self, i: int) -> float:
        return self.r.get(i, 1500.0)


class OpenSkill:
    def __init__(self, model_cls: Callable[[], Any]) -> None:
        self.model = model_cls()
        self.r: dict[int, Any] = {}

    def _get(self, i: int) -> Any:
        if i not in self.r:
            self.r[i] = self.model.rating()
        return self.r[i]

    def p_a_wins(self, m: Match) -> float:
        teams = [[self._get(i) for i in m.a], [self._get(i) for i in m.b]]
        return float(self.model.predict_win(teams)[0])

    def update(self, m: Match) -> None:
        ranks = ([1, 2], [2, 1], [1, 1])[m.outcome]
        teams = [[self._get(i) for i in m.a], [self._get(i) for i in m.b]]
        new = self.model.rate(teams, ranks=ranks)
        for side, team in zip((m.a, m.b), new, strict=True):
            for i, new_rating in zip(side, team, strict=True):
                self.r[i] = new_rating

    def estimate(self, i: int) -> float:
        return float(self._get(i).mu)


class TrueSkill:
    def __init__(self) -> None:
        assert trueskill is not None
        self.env = trueskill.TrueSkill()
        self.r: dict[int, Any] = {}

    def _get(self, i: int) -> Any:
        if i not in self.r:
            self.r[i] = self.env.create_rating()
        return self.r[i]

    def p_a_wins(self, m: Match) -> float:
        # The usual closed form (the package has none): P(perf A > perf B).
        a = [self._get(i) for i in m.a]
        b = [self._get(i) for i in m.b]
        mu = sum(r.mu for r in a) - sum(r.mu for r in b)
        var = sum(r.sigma**2 for r in a + b) + (len(a) + len(b)) * self.env.beta**2
        return normal_cdf(mu / math.sqrt(var))

    def update(self, m: Match) -> None:
        ranks = ([0, 1], [1, 0], [0, 0])[m.outcome]
        groups = [tuple(self._get(i) for i in m.a), tuple(self._get(i) for i in m.b)]
        new = self.env.rate(groups, ranks=ranks)
        for side, team in zip((m.a, m.b), new, strict=True):
            for i, new_rating in zip(side, team, strict=True):
                self.r[i] = new_rating

    def estimate(self, i: int) -> float:
        return float(self._get(i).mu)


class Glicko2:
    """Glicko-2 with one rating period per match (as lichess rates each game at once).

    The package is one-against-one; in 2v2 each player meets one composite opponent whose
    rating puts the player at the team difference (own rating minus the difference of the
    side means) and whose RD is the opponents' RDs pooled, a common way to team Glicko.
    """

    def __init__(self) -> None:
        assert glicko2 is not None
        self.r: dict[int, Any] = {}

    def _get(self, i: int) -> Any:
        if i not in self.r:
            self.r[i] = glicko2.Player()
        return self.r[i]

    def _mean(self, side: tuple[int, ...]) -> float:
        return statistics.fmean(self._get(i).rating for i in side)

    def p_a_wins(self, m: Match) -> float:
        return elo_expectation(self._mean(m.a) - self._mean(m.b))

    def update(self, m: Match) -> None:
        score = (1.0, 0.0, 0.5)[m.outcome]
        mean_a, mean_b = self._mean(m.a), self._mean(m.b)
        rd_a = math.sqrt(statistics.fmean(self._get(i).rd ** 2 for i in m.a))
        rd_b = math.sqrt(statistics.fmean(self._get(i).rd ** 2 for i in m.b))
        plans = []
        for side, opp_rd, own_score, gap in (
            (m.a, rd_b, score, mean_a - mean_b),
            (m.b, rd_a, 1.0 - score, mean_b - mean_a),
        ):
            for i in side:
                plans.append((i, self._get(i).rating - gap, opp_rd, own_score))
        for i, opp, opp_rd, own_score in plans:  # all from the ratings before the match
            self._get(i).update_player([opp], [opp_rd], [own_score])

    def estimate(self, i: int) -> float:
        return float(self._get(i).rating)


class Core:
    """This repository's rating core (libs/rating) on the same matches: eligibility,
    decide and evolve, events included, as the service will run it. Its predictions are
    the chosen model's, so its row must equal that model's; it adds the cost of the
    aggregate (evolve returns a new state per event)."""

    def __init__(self) -> None:
        self.state = rating.empty()
        self.n = 0

    def _skills(self, side: tuple[int, ...]) -> tuple[rating.Skill, ...]:
        pool = self.state.pools.get("bench")
        s = self.state.settings
        out = []
        for i in side:
            known = pool.players.get(str(i)) if pool is not None else None
            out.append(
                rating.Skill(known.mu, known.sigma) if known else rating.Skill(s.mu, s.sigma)
            )
        return tuple(out)

    def p_a_wins(self, m: Match) -> float:
        return rating.win_probability(self.state.settings, (self._skills(m.a), self._skills(m.b)))

    def update(self, m: Match) -> None:
        self.n += 1
        seats: list[rating.Seat] = []
        for k in range(len(m.a)):  # partners opposite: side A on even seats
            seats += [rating.Seat(2 * k, str(m.a[k])), rating.Seat(2 * k + 1, str(m.b[k]))]
        winner = (0, 1, None)[m.outcome]
        summary = rating.MatchSummary(f"m{self.n}", "bench", tuple(seats), winner, True, None, 0)
        for event in rating.decide(self.state, summary):
            self.state = rating.evolve(self.state, event)

    def estimate(self, i: int) -> float:
        return rating.rating_of(self.state, "bench", str(i))


def raters(strengths: Sequence[float], link: str) -> dict[str, Callable[[], Rater]]:
    out: dict[str, Callable[[], Rater]] = {
        "rating core (PlackettLuce)": Core,
        "OpenSkill PlackettLuce": lambda: OpenSkill(PlackettLuce),
        "OpenSkill BradleyTerryFull": lambda: OpenSkill(BradleyTerryFull),
        "OpenSkill BradleyTerryPart": lambda: OpenSkill(BradleyTerryPart),
        "OpenSkill ThurstoneMostellerFull": lambda: OpenSkill(ThurstoneMostellerFull),
        "OpenSkill ThurstoneMostellerPart": lambda: OpenSkill(ThurstoneMostellerPart),
    }
    if trueskill is not None:
        out["TrueSkill"] = TrueSkill
    if glicko2 is not None:
        out["Glicko-2"] = Glicko2
    out["Elo K=32 (baseline)"] = Elo
    out["oracle (true strengths)"] = lambda: Oracle(strengths, link)
    return out


# --- one run ---------------------------------------------------------------------------


@dataclass
class Score:
    right: int = 0
    decided: int = 0
    brier: float = 0.0
    count: int = 0

    def add(self, p: float, outcome: int) -> None:
        actual = (1.0, 0.0, 0.5)[outcome]
        self.brier += (p - actual) ** 2
        self.count += 1
        if outcome != DRAW:
            self.decided += 1
            self.right += (p > 0.5) == (outcome == A_WINS) and p != 0.5

    @property
    def accuracy(self) -> float:
        return self.right / self.decided if self.decided else float("nan")


@dataclass
class Result:
    windows: list[list[float]] = field(default_factory=list)  # per seed, per window
    tail: list[float] = field(default_factory=list)
    brier: list[float] = field(default_factory=list)
    spearman: list[float] = field(default_factory=list)
    seconds: float = 0.0
    updates: int = 0


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Rank correlation (strengths are continuous, so ties are left aside)."""

    def ranks(vs: Sequence[float]) -> list[float]:
        order = sorted(range(len(vs)), key=vs.__getitem__)
        out = [0.0] * len(vs)
        for rank, i in enumerate(order):
            out[i] = float(rank)
        return out

    return statistics.correlation(ranks(xs), ranks(ys))


def run(
    make: Callable[[], Rater],
    matches: list[Match],
    strengths: Sequence[float],
    tail: int,
    window: int,
    res: Result,
) -> None:
    rater = make()
    train = matches[: len(matches) - tail]
    scores = [Score() for _ in range(math.ceil(len(train) / window))]
    clock = time.perf_counter
    spent = 0.0
    for n, m in enumerate(train):
        scores[n // window].add(rater.p_a_wins(m), m.outcome)
        start = clock()
        rater.update(m)
        spent += clock() - start
    held = Score()
    for m in matches[len(matches) - tail :]:
        held.add(rater.p_a_wins(m), m.outcome)
    res.windows.append([s.accuracy for s in scores])
    res.tail.append(held.accuracy)
    res.brier.append(held.brier / held.count)
    # Non-bot players only: the 30 bots sit on three strengths, whose order is moot.
    humans = range(3 * BOTS_PER_LEVEL, len(strengths))
    res.spearman.append(
        spearman([strengths[i] for i in humans], [rater.estimate(i) for i in humans])
    )
    res.seconds += spent
    res.updates += len(train)


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    if len(xs) < 2:
        return statistics.fmean(xs), 0.0
    return statistics.fmean(xs), statistics.stdev(xs) / math.sqrt(len(xs))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--tail", type=int, default=500)
    parser.add_argument("--window", type=int, default=500)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--draw-rate", type=float, default=0.03)
    parser.add_argument("--quick", action="store_true", help="2 seeds, for a smoke run")
    args = parser.parse_args()
    seeds = 2 if args.quick else args.seeds
    missing = [n for n, mod in (("trueskill", trueskill), ("glicko2", glicko2)) if mod is None]
    print(
        f"python {sys.version.split()[0]}; {args.players} players (3 bot levels x "
        f"{BOTS_PER_LEVEL} + {args.players - 3 * BOTS_PER_LEVEL} random), "
        f"{args.matches} matches per run, held-out tail {args.tail}, {seeds} seeds, "
        f"draw rate {args.draw_rate:.0%} of even matches"
    )
    if missing:
        print(f"not installed, rows left out: {', '.join(missing)} (pip install -e '.[bench]')")

    summary: dict[str, dict[str, Result]] = {}
    for per_side, label in ((1, "1v1"), (2, "2v2")):
        for link in ("normal", "logistic"):
            case = f"{label} {link}"
            results: dict[str, Result] = {}
            draws_seen = []
            for seed in range(seeds):
                rng = random.Random(f"belot-rating-bench/{case}/{seed}")
                strengths = population(rng, args.players)
                matches = simulate(rng, strengths, args.matches, per_side, link, args.draw_rate)
                draws_seen.append(sum(m.outcome == DRAW for m in matches) / len(matches))
                for name, make in raters(strengths, link).items():
                    result = results.setdefault(name, Result())
                    run(make, matches, strengths, args.tail, args.window, result)
            summary[case] = results
            print_case(case, results, statistics.fmean(draws_seen), args)
    print_summary(summary)
    provisional_period(max(2, seeds // 4), args.players, args.draw_rate)
    return 0


def print_case(
    case: str, results: dict[str, Result], draws: float, args: argparse.Namespace
) -> None:
    train = args.matches - args.tail
    starts = list(range(0, train, args.window))
    heads = [f"{s + 1}-{min(s + args.window, train)}" for s in starts]
    print(f"\n== {case}: draws {draws:.1%} of matches")
    print(
        f"{'model':<34}"
        + "".join(f"{h:>11}" for h in heads)
        + f"{'held-out':>15}{'Brier':>8}{'rank r':>8}{'updates/s':>11}"
    )
    for name, r in results.items():
        cols = [statistics.fmean(w[i] for w in r.windows) for i in range(len(heads))]
        acc, se = mean_se(r.tail)
        rate = r.updates / r.seconds if r.seconds > 0 else float("inf")
        rate_txt = "-" if name.startswith("oracle") else f"{rate:,.0f}"
        print(
            f"{name:<34}"
            + "".join(f"{c:>11.1%}" for c in cols)
            + f"{acc:>9.1%} ±{se:4.1%}{statistics.fmean(r.brier):>8.4f}"
            + f"{statistics.fmean(r.spearman):>8.3f}{rate_txt:>11}"
        )


def print_summary(summary: dict[str, dict[str, Result]]) -> None:
    cases = list(summary)
    names = list(next(iter(summary.values())))
    print(
        "\n== held-out accuracy by case and their mean; mean Brier; mean rank correlation;"
        " updates/s 1v1, 2v2"
    )
    print(
        f"{'model':<34}"
        + "".join(f"{c:>14}" for c in cases)
        + f"{'mean':>8}{'Brier':>8}{'rank r':>8}{'upd/s 1v1':>11}{'upd/s 2v2':>11}"
    )
    for name in names:
        accs = [statistics.fmean(summary[c][name].tail) for c in cases]
        brier = statistics.fmean(statistics.fmean(summary[c][name].brier) for c in cases)
        rank_r = statistics.fmean(statistics.fmean(summary[c][name].spearman) for c in cases)
        rates = []
        for label in ("1v1", "2v2"):
            rs = [summary[c][name] for c in cases if c.startswith(label)]
            secs = sum(r.seconds for r in rs)
            oracle = name.startswith("oracle")
            rates.append("-" if oracle else f"{sum(r.updates for r in rs) / secs:,.0f}")
        print(
            f"{name:<34}"
            + "".join(f"{a:>14.1%}" for a in accs)
            + f"{statistics.fmean(accs):>8.1%}{brier:>8.4f}{rank_r:>8.3f}"
            + f"{rates[0]:>11}{rates[1]:>11}"
        )

    # Paired: the same matches for every model, so the per-run difference from Elo has a
    # far smaller spread than either accuracy alone.
    base = "Elo K=32 (baseline)"
    print(f"\n== held-out accuracy minus {base}'s on the same matches, mean ± standard error")
    for name in names:
        if name == base:
            continue
        diffs = [
            a - b
            for c in cases
            for a, b in zip(summary[c][name].tail, summary[c][base].tail, strict=True)
        ]
        mean, se = mean_se(diffs)
        print(f"{name:<34}{mean * 100:>+7.2f} ± {se * 100:.2f} points over {len(diffs)} runs")


def provisional_period(seeds: int, players: int, draws: float) -> None:
    """How long the provisional mark lasts, and whether RD tells the truth: a longer season
    (100 games a player) through the rating core, logistic link, everyone new at the start.
    At each checkpoint: the share of players no longer provisional, the median RD, and the
    actual error of the displayed ratings (root mean square of display minus true strength,
    after removing their mean difference: the scale is anchored at 1500 only on average)."""
    checkpoints = (10, 20, 30, 40, 60, 80, 100)
    print(
        "\n== the provisional mark (RD >= 110) in a new pool, rating core, logistic link, "
        f"{seeds} seeds: share established / median RD / actual RMS error, by games a player"
    )
    print(f"{'':<6}" + "".join(f"{g:>18}" for g in checkpoints))
    s = rating.DEFAULT_SETTINGS
    for per_side, label in ((1, "1v1"), (2, "2v2")):
        cells: dict[int, list[tuple[float, float, float]]] = {g: [] for g in checkpoints}
        for seed in range(seeds):
            rng = random.Random(f"belot-rating-bench/provisional/{label}/{seed}")
            strengths = population(rng, players)
            per_match = 2 * per_side
            n = max(checkpoints) * players // per_match
            core = Core()
            for k, m in enumerate(simulate(rng, strengths, n, per_side, "logistic", draws)):
                core.update(m)
                done = (k + 1) * per_match
                if done % players == 0 and done // players in cells:
                    pool = core.state.pools["bench"]
                    ps = [pool.players[str(i)] for i in range(players)]
                    rds = [rating.rating_deviation(s, p.sigma) for p in ps]
                    errs = [rating.display(s, p.mu) - strengths[int(p.player)] for p in ps]
                    off = statistics.fmean(errs)
                    rms = math.sqrt(statistics.fmean((e - off) ** 2 for e in errs))
                    est = sum(not rating.is_provisional(s, rd) for rd in rds) / players
                    cells[done // players].append((est, statistics.median(rds), rms))
        row = []
        for g in checkpoints:
            est, rd, rms = (statistics.fmean(c[j] for c in cells[g]) for j in range(3))
            row.append(f"{est:>6.0%} {rd:>5.0f} {rms:>5.0f}")
        print(f"{label:<6}" + "".join(f"{r:>18}" for r in row))


if __name__ == "__main__":
    raise SystemExit(main())
