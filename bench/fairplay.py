"""The fair-play detector (docs/fair-play.md) against honest bots and cheats, every
figure with its 95% interval.

Populations, each a run of club matches (the ruleset's own target) at tables of four bots
of one level, played in the game core (``belot.match``, decks from the fair-deal recipe
with seeds of this run):

- honest, seat 0 studied: ``easy``, ``medium``, ``hard`` and ``hard-noise`` (the hard bot,
  but a random legal card in NOISE of its card decisions);
- ``peek``, seat 0 studied: the hard bot that plays a double-dummy best card (the true
  deal solved) in PEEK_SHARE of its card decisions, as a player who sees the hidden
  cards a quarter of the time would;
- ``share``, seats 0 and 2 studied as a partnership: two hard bots that see each other's
  hand (partners on the phone). Each draws its worlds with its partner's hand known
  (the bot's knowledge of the deal, given the partner's cards: the bench patches the
  hard bot's ``knowledge`` for their turns, the one thing a cheat changes).

Each deal is analysed (``belot.analysis``) and the studied seats' cards become decisions
(``belot.fairplay.decisions``: each with its chance, the share of the worlds consistent
with the seat's view in which the card played is a best card); a deal gives the
decisions :func:`belot.fairplay.evidence` counts.

The detector, as an operator runs it on a player's (or a partnership's) last WINDOW deals:
the score of the window's decisions (``belot.fairplay.score``: each decision's weighted
excess of best cards over the allowed rate, summed, over the root of their variances'
sum), flagged from FLAG_SCORE. A window is WINDOW deals drawn with replacement from the
population's deals; the rates are over WINDOWS windows, and their intervals (Wilson)
count only the independent windows the deals hold (deals / WINDOW), so that resampling
claims no precision the deals do not have. For a seat that cannot see and reads the
table no better than READ_SHARE allows, a term is at most 0 on average (the measure's
premise): the bench prints each population's read share (best cards found beyond the
chances over what the chances left), its terms a deal with their interval, and the
spread of a deal's terms against what the chances say (the measured variance over the
model's). It prints the honest levels' windows flagged over 100 and 200 deals too: a
level that reads more than the allowance would drift up there.

For each cheat it says how many deals the score's growth asks for: a window's score grows
as (terms a deal) / sqrt(variance a deal) * sqrt(deals), and 95% of windows reach the
flag near a mean of FLAG_SCORE + 1.645 times the measured spread. It compares the score
with the last method (the surprises' plain sum, no weights, no allowance), each flagged
at its own honest 1%, and prints the ceiling of any measure on found alone: the power
the likelihood-ratio test would have if the chances were exact (:func:`ceiling`).

Targets (the issue's): a peeker at 25% flagged within 50 deals with at least 95% power;
at most 1% of honest players flagged. The partnership is measured the same way. Exits 1
when a target is not met. Writes docs/bench/fairplay.md with ``--write``.

    python bench/fairplay.py [--deals 300] [--window 50] [--workers 2] [--write]
                             [--first-seed 0] [--keep FILE | --read FILE]

``--keep`` writes every population's decisions to FILE; ``--read`` scores them again
without playing (another window, another flag), as a run with ``--keep`` did.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT))

from belot.analysis import analyse, card_values
from belot.bots import choose
from belot.bots import hard as hard_bot
from belot.bots.knowledge import Knowledge
from belot.bots.solver import Solver, prepare
from belot.cards import FULL_MASK, Mask
from belot.commands import PlayCard
from belot.events import Event
from belot.fairplay import (
    FLAG_SCORE,
    METHOD,
    PEEK_SHARE,
    Decision,
    decisions,
    evidence,
    score,
    term,
    world_chances,
)
from belot.ruleset import RULESETS
from belot.view import SeatView
from bench.kit.matches import bot_match
from fairdeal.simulate import mean_ci, wilson

OUT = ROOT / "docs" / "bench" / "fairplay.md"
RULESET = "club"
#: The share of the hard-noise bot's card decisions played at random.
NOISE = 0.2
HONEST = ("easy", "medium", "hard", "hard-noise")
CHEATS = ("peek", "share")
LEVEL = {"easy": "easy", "medium": "medium", "hard": "hard", "hard-noise": "hard",
         "peek": "hard", "share": "hard"}  # fmt: skip
#: The seats studied together: one seat, or a partnership.
STUDIED = {"share": (0, 2)}
WINDOWS = 2000
FPR_TARGET = 0.01
POWER_TARGET = 0.95
#: Window sizes (deals) tried for the deals a cheat needs before it is flagged at 95%.
SIZES = (10, 20, 30, 50, 75, 100, 150, 200)
#: Longer windows (deals) over which the honest levels' flagged share is printed too.
LONGER = (100, 200)


def studied(population: str) -> tuple[int, ...]:
    return STUDIED.get(population, (0,))


def seeing(kn: Knowledge, partner: int, hand: Mask) -> Knowledge:
    """What a seat knows once it also sees its partner's hand."""
    known = list(kn.known)
    known[partner] = hand
    absent = [a | hand for a in kn.absent]
    absent[partner] = FULL_MASK & ~hand
    return replace(kn, known=tuple(known), absent=tuple(absent), unknown=kn.unknown & ~hand)


@contextlib.contextmanager
def partner_seen(partner: int, hand: Mask) -> Iterator[None]:
    """The hard bot's knowledge, for one decision, with the partner's hand in it."""
    plain = hard_bot.knowledge
    hard_bot.knowledge = lambda v: seeing(plain(v), partner, hand)  # type: ignore[assignment]
    try:
        yield
    finally:
        hard_bot.knowledge = plain  # type: ignore[assignment]


def card_of(population: str, state, seat_view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
    """The seat's command: its level's bot's, unless the population plays otherwise."""
    level = LEVEL[population]
    cards = [m for m in seat_view.legal if isinstance(m, PlayCard)]
    if seat_view.seat not in studied(population) or not cards:
        return choose(seat_view, rng, level)
    if population == "share":
        partner = (seat_view.seat + 2) % 4
        with partner_seen(partner, state.deal.hands[partner]):
            return choose(seat_view, rng, level)
    command = choose(seat_view, rng, level)
    if population == "hard-noise" and rng.random() < NOISE:
        return rng.choice(cards)
    if population == "peek" and rng.random() < PEEK_SHARE:
        deal = state.deal
        ruleset = RULESETS[RULESET]
        values = card_values(Solver(ruleset, deal.strain), ruleset, deal)
        best = max(values.values())
        return next(m for m in cards if values.get(m.card) == best)
    return command


def play(population: str, seed: int) -> list[Event]:
    """A match at a table of the population's bots."""
    return bot_match(
        RULESETS[RULESET], f"fairplay-{population}-{seed}", seed % 4,
        random.Random(f"{population}:{seed}"),
        lambda state, seat_view, rng: card_of(population, state, seat_view, rng),
    )  # fmt: skip


def match_deals(task: tuple[str, int]) -> tuple[str, int, list[list[Decision]], float]:
    """One match of a population: the studied seats' counted decisions, deal by deal,
    and the CPU it took."""
    population, seed = task
    started = time.process_time()
    ruleset = RULESETS[RULESET]
    log = play(population, seed)
    analysis = analyse(ruleset, log, contracts=False)
    seats = studied(population)

    def chances(seat_view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
        return world_chances(seat_view, rng) if seat_view.seat in seats else None

    made = [d for d in decisions(ruleset, log, analysis, chances) if d.seat in seats]
    out = [list(evidence(d for d in made if d.deal == deal.deal).decisions)
           for deal in analysis.deals]  # fmt: skip
    return population, seed, out, time.process_time() - started


Scoring = Callable[[Iterable[Decision]], float]


def windows(
    deals: list[list[Decision]], size: int, rng: random.Random, scoring: Scoring = score
) -> list[float]:
    """WINDOWS players' scores over ``size`` deals each, drawn with replacement."""
    return [
        scoring(d for _ in range(size) for d in deals[rng.randrange(len(deals))])
        for _ in range(WINDOWS)
    ]


def unweighted(made: Iterable[Decision]) -> float:
    """The last method's score, to compare (belot.fairplay's docstring): the surprises'
    sum over the root of their variances' sum, every one weighing the same and no
    allowance for reading the table."""
    total, var = 0.0, 0.0
    for d in made:
        total += d.surprise
        var += d.chance * (1 - d.chance)
    return total / math.sqrt(var) if var > 0 else 0.0


#: Scores from which the bench also counts the windows flagged (the detector's trade-off).
THRESHOLDS = (2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 4.0)


def flagged(scores: list[float]) -> float:
    return sum(s >= FLAG_SCORE for s in scores) / len(scores)


def calibrated(made: Iterable[Decision]) -> float:
    """The likelihood-ratio score for chances that were exact: the detector's weights with
    no allowance (a seat found at its chances against one that sees in PEEK_SHARE of its
    decisions), for :func:`ceiling`."""
    return score(made, read_share=0.0)


def ceiling(deals: list[list[Decision]], size: int, rng: random.Random) -> float:
    """The share of the cheat's ``size``-deal windows the best test on found alone would
    flag if the chances were exact: its flag where 1% of windows of the same decisions,
    each found with its chance (an honest seat the worlds fit perfectly), pass it (the
    Neyman-Pearson test of a seat found at its chances against a PEEK_SHARE peeker)."""
    honest = [
        [replace(d, dd_best=(d.played,) if rng.random() < d.estimate else ()) for d in ds]
        for ds in deals
    ]
    null = sorted(windows(honest, size, rng, calibrated))
    at = null[int((1 - FPR_TARGET) * len(null))]
    return sum(x >= at for x in windows(deals, size, rng, calibrated)) / WINDOWS


def surprise(deal: list[Decision]) -> float:
    """A deal's part of the score's numerator (:func:`belot.fairplay.term`)."""
    return sum(term(d)[0] for d in deal)


def variance(deal: list[Decision]) -> float:
    """Its variance for a seat found at the allowed rate (the denominator, squared)."""
    return sum(term(d)[1] for d in deal)


def read_share(deals: list[list[Decision]]) -> float:
    """The share of the best cards the chances missed that the seat found: found less
    chance over one less chance, summed over its decisions (READ_SHARE allows a tenth)."""
    missed = sum(1 - d.chance for ds in deals for d in ds)
    return sum(d.surprise for ds in deals for d in ds) / missed if missed else 0.0


def lowest_flag(scored: dict[str, list[float]]) -> float | None:
    """The lowest score of THRESHOLDS at which every honest level's windows are flagged at
    most FPR_TARGET of the time (None: none of them)."""
    return next(
        (
            at
            for at in THRESHOLDS
            if all(sum(x >= at for x in scored[p]) / len(scored[p]) <= FPR_TARGET for p in HONEST)
        ),
        None,
    )


Played = dict[str, dict[int, list[list[Decision]]]]


def measure(
    populations: tuple[str, ...], deals: int, workers: int, first_seed: int = 0
) -> tuple[Played, float, float]:
    """Matches of each population until it has ``deals`` deals (a club match is 5-9), from
    match seed ``first_seed`` on: its studied seats' counted decisions by match and deal,
    the CPU and the time it took."""
    prepare()
    started = time.monotonic()
    by_match: Played = {p: {} for p in populations}
    cpu = 0.0
    seed = first_seed
    with ProcessPoolExecutor(workers) as pool:
        while True:
            short = [p for p in populations if sum(map(len, by_match[p].values())) < deals]
            if not short:
                break
            batch = [(p, seed + i) for p in short for i in range(workers * 2)]
            seed += workers * 2
            for population, s, played, spent in pool.map(match_deals, batch):
                by_match[population][s] = played
                cpu += spent
    return by_match, cpu, time.monotonic() - started


def keep(path: Path, by_match: Played, cpu: float, elapsed: float, first_seed: int) -> None:
    doc = {
        "method": METHOD, "cpu": cpu, "elapsed": elapsed, "first_seed": first_seed,
        "populations": {
            p: {str(s): [[d.to_json() for d in deal] for deal in deals]
                for s, deals in matches.items()}
            for p, matches in by_match.items()
        },
    }  # fmt: skip
    path.write_text(json.dumps(doc), encoding="utf-8")


def read(path: Path) -> tuple[Played, float, float, int]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    if doc["method"] != METHOD:
        raise SystemExit(f"{path} holds decisions of {doc['method']}, not {METHOD}")
    by_match = {
        p: {int(s): [[Decision.from_json(d) for d in deal] for deal in deals]
            for s, deals in matches.items()}
        for p, matches in doc["populations"].items()
    }  # fmt: skip
    return by_match, doc["cpu"], doc["elapsed"], doc.get("first_seed", 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300, help="deals a population, at least")
    parser.add_argument("--window", type=int, default=50, help="deals a player is judged on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--first-seed", type=int, default=0,
        help="the first match seed (another gives other matches: a held-out set)",
    )  # fmt: skip
    parser.add_argument("--write", action="store_true", help="write docs/bench/fairplay.md")
    parser.add_argument("--keep", type=Path, help="write every population's decisions here")
    parser.add_argument("--read", type=Path, help="score the decisions --keep wrote instead")
    args = parser.parse_args(argv)
    populations = (*HONEST, *CHEATS)
    if args.read:
        by_match, cpu, elapsed, first_seed = read(args.read)
    else:
        first_seed = args.first_seed
        by_match, cpu, elapsed = measure(populations, args.deals, args.workers, first_seed)
    if args.keep:
        keep(args.keep, by_match, cpu, elapsed, first_seed)
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line)
        lines.append(line)

    deals = {p: [d for ds in by_match[p].values() for d in ds] for p in populations}
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    total = sum(map(len, deals.values()))
    say(f"Run {when}; Python {sys.version.split()[0]}; {os.cpu_count()} cores; ruleset "
        f"{RULESET}; {total} deals (matches from seed {first_seed}) in {elapsed:.0f} s "
        f"({cpu / total:.2f} s of CPU a deal); a player judged on {args.window} deals; "
        f"flagged from a score of {FLAG_SCORE} (a standard normal passes it "
        f"{0.5 * math.erfc(FLAG_SCORE / math.sqrt(2)):.4f} of the time); rates over "
        f"{WINDOWS} windows, intervals "
        f"over the independent ones")  # fmt: skip
    say()
    say(
        "| population (seats) | deals | counted decisions a deal | best card found a deal | "
        "expected by the chances | read share | the score's terms a deal (95%) | measured "
        "variance / model's |"
    )
    say("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    spread = {}
    for p in populations:
        n = max(1, len(deals[p]))
        per_deal = [surprise(d) for d in deals[p]]
        model = statistics.fmean(variance(d) for d in deals[p])
        spread[p] = statistics.pvariance(per_deal) / model if model else 1.0
        low, high = mean_ci(per_deal)
        say(f"| {p} ({', '.join(map(str, studied(p)))}) | {len(deals[p])} | "
            f"{sum(map(len, deals[p])) / n:.2f} | "
            f"{sum(d.found for ds in deals[p] for d in ds) / n:.2f} | "
            f"{sum(d.chance for ds in deals[p] for d in ds) / n:.2f} | "
            f"{read_share(deals[p]):+.3f} | "
            f"{statistics.fmean(per_deal):+.3f} ({low:+.3f} to {high:+.3f}) | "
            f"{spread[p]:.2f} |")  # fmt: skip
    rng = random.Random(1)
    say()
    say(f"| population | windows of {args.window} deals flagged (95%) | mean score | target |")
    say("| --- | ---: | ---: | --- |")
    verdicts = []
    scored = {p: windows(deals[p], args.window, rng) for p in populations}
    for p in populations:
        scores = scored[p]
        rate = flagged(scores)
        independent = max(1, len(deals[p]) // args.window)
        low, high = wilson(round(rate * independent), independent)
        if p in HONEST:
            ok = rate <= FPR_TARGET
            target = f"at most {FPR_TARGET:.0%}: {'PASS' if ok else 'FAIL'}"
        else:
            ok = rate >= POWER_TARGET
            target = f"at least {POWER_TARGET:.0%}: {'PASS' if ok else 'FAIL'}"
        verdicts.append(ok)
        say(f"| {p} | {rate:.3f} ({low:.3f}-{high:.3f}, {independent} independent) | "
            f"{statistics.fmean(scores):+.2f} | {target} |")  # fmt: skip
    say()
    needed = []
    for p in CHEATS:
        size = next((w for w in SIZES if flagged(windows(deals[p], w, rng)) >= POWER_TARGET), None)
        needed.append(f"{p} {'more than ' + str(SIZES[-1]) if size is None else size}")
    say("Deals a cheat needs before it is flagged in 95% of windows (resampled): "
        + ", ".join(needed) + ".")  # fmt: skip
    longer = [
        f"{p} " + ", ".join(
            f"{flagged(windows(deals[p], w, rng)):.3f} of {w}" for w in LONGER
        )
        for p in HONEST
    ]  # fmt: skip
    say("Honest windows flagged over more deals (a level the worlds do not quite fit drifts "
        "up as the root of the deals): " + "; ".join(longer) + ".")  # fmt: skip
    grown = []
    for p in CHEATS:
        n = max(1, len(deals[p]))
        mean = sum(surprise(d) for d in deals[p]) / n
        model = sum(variance(d) for d in deals[p]) / n
        slope = mean / math.sqrt(model) if model else 0.0
        wanted = (
            ((FLAG_SCORE + 1.645 * math.sqrt(spread[p])) / slope) ** 2 if slope > 0 else math.inf
        )
        grown.append(f"{p}: terms of {mean:+.3f} a deal over a variance of "
                     f"{model:.3f}, a score of {slope:.3f}·√deals, {wanted:.0f} deals")  # fmt: skip
    say("From the score's growth: " + "; ".join(grown) + ".")
    ceilings = ", ".join(
        f"{flagged_share:.3f} of {w}"
        for w in (args.window, *LONGER)
        for flagged_share in [ceiling(deals["peek"], w, rng)]
    )
    say("The ceiling of a measure on found alone: with chances that were exact, the "
        "likelihood-ratio test (at 1% of windows of a seat found at its chances) would "
        f"flag the peeker's windows of {args.window}, {LONGER[0]} and {LONGER[1]} deals in: "
        f"{ceilings}.")  # fmt: skip
    say()
    say(f"The same windows of {args.window} deals flagged from other scores (FLAG_SCORE is "
        f"{FLAG_SCORE}):")  # fmt: skip
    say()
    say("| flagged from | " + " | ".join(populations) + " |")
    say("| ---: |" + " ---: |" * len(populations))
    for at in THRESHOLDS:
        rates = [sum(x >= at for x in scored[p]) / len(scored[p]) for p in populations]
        say(f"| {at} | " + " | ".join(f"{r:.3f}" for r in rates) + " |")
    say()
    say(
        "The detector against the last method (the surprises' plain sum, no weights, no "
        "allowance), each flagged from the lowest score of the grid at which every honest "
        f"level's windows are flagged at most {FPR_TARGET:.0%} of the time, chosen on these "
        "windows (in-sample: FLAG_SCORE was chosen on another run's, and stands above):"
    )
    say()
    say("| score | flagged from | " + " | ".join(CHEATS) + " |")
    say("| --- | ---: |" + " ---: |" * len(CHEATS))
    rng = random.Random(2)
    for name, scoring in (("the detector", score), ("the last method", unweighted)):
        by = {p: windows(deals[p], args.window, rng, scoring) for p in populations}
        at = lowest_flag(by)
        rates = [
            "-" if at is None else f"{sum(x >= at for x in by[p]) / len(by[p]):.3f}" for p in CHEATS
        ]
        say(f"| {name} | {'none' if at is None else at} | " + " | ".join(rates) + " |")
    if args.write:
        head = [
            "<!-- Generated by bench/fairplay.py; do not edit by hand: run the bench to "
            "rewrite it. -->",
            "",
            "# Fair play: the detector against honest bots and cheats",
            "",
            "What it measures and how: the docstring of [bench/fairplay.py]"
            "(../../bench/fairplay.py); the method: [fair-play.md](../fair-play.md).",
            "",
        ]
        OUT.write_text("\n".join([*head, *lines]) + "\n", encoding="utf-8")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
