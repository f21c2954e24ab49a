"""The fair-play detector (docs/fair-play.md) calibrated on honest bots and measured
against peekers, every figure with its 95% interval.

Populations, each a run of club matches (the ruleset's own target) at tables of four bots
of one level, the player studied in seat 0, played in the game core (``belot.match``, decks
from the fair-deal recipe with seeds of this run):

- honest: ``easy``, ``medium``, ``hard`` and ``hard-noise`` (the hard bot, but a random
  legal card in NOISE of its card decisions);
- ``peek``: the hard bot that plays a double-dummy best card (the true deal solved) in
  PEEK_SHARE of its card decisions, as a player who sees the hidden cards a quarter of
  the time would.

Each deal is analysed (``belot.analysis``) and seat 0's cards become decisions
(``belot.fairplay.decisions``, the known-best card the hard bot's on its fixed budget):
a deal gives the seat's discriminating decisions ``n`` and hits ``k``.

The detector, as an operator would run it on a player's last WINDOW deals: the hits ``k``
out of ``n`` discriminating decisions, and the binomial tail against the honest rate
``p0`` of the player's band (a player is flagged when the tail is below ``tau``). Each
honest population's deals are split by match: the even matches calibrate (``p0``, then
``tau``: the largest threshold that flags at most 1% of honest windows), the odd ones
test it (the false-positive rate). A window is WINDOW deals drawn with replacement from
the population's deals; the rates are over 2,000 windows, and their intervals (Wilson)
count only the independent windows the deals hold (deals / WINDOW), so that resampling
claims no precision the deals do not have. The peeker is judged against the hard band's
``p0`` (the bot it is): the power is the share of its windows flagged.

Targets (the issue's): a peeker at 25% flagged within 50 deals with at least 95% power;
at most 1% of honest players flagged. Exits 1 when a target is not met. Writes
docs/bench/fairplay.md with ``--write``.

    python bench/fairplay.py [--deals 300] [--window 50] [--workers 2] [--write]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT))

from belot.analysis import analyse, card_values
from belot.bots import choose
from belot.bots.solver import Solver, prepare
from belot.commands import PlayCard
from belot.events import Event
from belot.fairplay import binomial_tail, decisions, hard_bot_card
from belot.ruleset import RULESETS
from belot.view import SeatView
from bench.kit.matches import bot_match
from fairdeal.simulate import wilson

OUT = ROOT / "docs" / "bench" / "fairplay.md"
RULESET = "club"
#: The share of the hard-noise bot's card decisions played at random.
NOISE = 0.2
#: The share of the peeker's card decisions played double-dummy best.
PEEK_SHARE = 0.25
HONEST = ("easy", "medium", "hard", "hard-noise")
PEEKERS = ("peek",)
#: Each population's band (the honest rate it is judged against).
BAND = {"easy": "easy", "medium": "medium", "hard": "hard", "hard-noise": "hard-noise",
        "peek": "hard"}  # fmt: skip
LEVEL = {"easy": "easy", "medium": "medium", "hard": "hard", "hard-noise": "hard", "peek": "hard"}
WINDOWS = 2000
FPR_TARGET = 0.01
POWER_TARGET = 0.95


def seat0_card(population: str, state, seat_view: SeatView, command, rng: random.Random):  # type: ignore[no-untyped-def]
    """Seat 0's card: the bot's, unless the population plays another."""
    if not isinstance(command, PlayCard):
        return command
    cards = [m for m in seat_view.legal if isinstance(m, PlayCard)]
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
    """A match at a table of the population's bots, its seat 0 the studied player."""

    def chooser(state, seat_view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
        command = choose(seat_view, rng, LEVEL[population])
        if seat_view.seat != 0:
            return command
        return seat0_card(population, state, seat_view, command, rng)

    return bot_match(
        RULESETS[RULESET], f"fairplay-{population}-{seed}", seed % 4,
        random.Random(f"{population}:{seed}"), chooser,
    )  # fmt: skip


def known_best(seat_view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
    """The hard bot's card for seat 0, the studied seat; the others' are not asked."""
    if seat_view.seat != 0:
        return min(m.card for m in seat_view.legal if isinstance(m, PlayCard))
    return hard_bot_card(seat_view, rng)


def match_deals(task: tuple[str, int]) -> tuple[str, int, list[tuple[int, int]], float]:
    """One match of a population: seat 0's (n, k) for each deal, and the CPU it took."""
    population, seed = task
    started = time.process_time()
    ruleset = RULESETS[RULESET]
    log = play(population, seed)
    analysis = analyse(ruleset, log, contracts=False)
    made = [d for d in decisions(ruleset, log, analysis, known_best) if d.seat == 0]
    out = []
    for deal in analysis.deals:
        mine = [d for d in made if d.deal == deal.deal and d.discriminating]
        out.append((len(mine), sum(d.hit for d in mine)))
    return population, seed, out, time.process_time() - started


def windows(deals: list[tuple[int, int]], size: int, rng: random.Random) -> list[tuple[int, int]]:
    """WINDOWS players of ``size`` deals each, drawn with replacement: (n, k) each."""
    out = []
    for _ in range(WINDOWS):
        picked = [deals[rng.randrange(len(deals))] for _ in range(size)]
        out.append((sum(n for n, _ in picked), sum(k for _, k in picked)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300, help="deals a population, at least")
    parser.add_argument("--window", type=int, default=50, help="deals a player is judged on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--write", action="store_true", help="write docs/bench/fairplay.md")
    args = parser.parse_args(argv)
    prepare()
    started = time.monotonic()
    populations = (*HONEST, *PEEKERS)
    # Matches of each population until it has its deals (a club match is 5-9 deals).
    by_match: dict[str, dict[int, list[tuple[int, int]]]] = {p: {} for p in populations}
    cpu = 0.0
    seed = 0
    with ProcessPoolExecutor(args.workers) as pool:
        while True:
            short = [p for p in populations if sum(map(len, by_match[p].values())) < args.deals]
            if not short:
                break
            batch = [(p, seed + i) for p in short for i in range(args.workers * 2)]
            seed += args.workers * 2
            for population, s, deals, spent in pool.map(match_deals, batch):
                by_match[population][s] = deals
                cpu += spent
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line)
        lines.append(line)

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    total_deals = sum(len(d) for m in by_match.values() for d in m.values())
    say(f"Run {when}; Python {sys.version.split()[0]}; {os.cpu_count()} cores; ruleset "
        f"{RULESET}; {total_deals} deals in {time.monotonic() - started:.0f} s "
        f"({cpu / total_deals:.2f} s of CPU a deal); a player judged on {args.window} deals; "
        f"rates over {WINDOWS} windows, intervals over the independent ones")  # fmt: skip
    say()
    rng = random.Random(1)
    calibrate: dict[str, list[tuple[int, int]]] = {}
    test: dict[str, list[tuple[int, int]]] = {}
    for p in populations:
        calibrate[p] = [d for s, ds in by_match[p].items() if s % 2 == 0 for d in ds]
        test[p] = [d for s, ds in by_match[p].items() if s % 2 == 1 for d in ds]
    say("| population | deals | discriminating decisions a deal | hit rate (95%) |")
    say("| --- | ---: | ---: | ---: |")
    p0: dict[str, float] = {}
    for p in populations:
        deals = calibrate[p] + test[p]
        n = sum(x for x, _ in deals)
        k = sum(y for _, y in deals)
        low, high = wilson(k, n)
        if p in HONEST:
            cn = sum(x for x, _ in calibrate[p])
            p0[p] = sum(y for _, y in calibrate[p]) / max(1, cn)
        say(f"| {p} | {len(deals)} | {n / max(1, len(deals)):.2f} | {k / max(1, n):.3f} "
            f"({low:.3f}-{high:.3f}) |")  # fmt: skip
    # tau: the largest tail that flags at most 1% of the honest calibration windows.
    honest_tails = sorted(
        binomial_tail(k, n, p0[BAND[p]])
        for p in HONEST
        for n, k in windows(calibrate[p], args.window, rng)
    )
    cut = int(FPR_TARGET * len(honest_tails))
    tau = honest_tails[cut] if cut < len(honest_tails) else 0.0
    if cut and honest_tails[cut - 1] == tau:
        tau = honest_tails[cut - 1] * (1 - 1e-9)
    say()
    say("Honest rates p0 (calibration half): "
        + ", ".join(f"{p} {p0[p]:.3f}" for p in HONEST) + f"; threshold tau = {tau:.2e}")
    say()
    say("| population (band) | windows flagged (95%) | target |")
    say("| --- | ---: | --- |")
    verdicts = []
    for p in populations:
        deals = test[p] if p in HONEST else calibrate[p] + test[p]
        ws = windows(deals, args.window, rng)
        flagged = sum(binomial_tail(k, n, p0[BAND[p]]) < tau for n, k in ws) / len(ws)
        independent = max(1, len(deals) // args.window)
        low, high = wilson(flagged * independent, independent)
        if p in HONEST:
            ok = flagged <= FPR_TARGET
            target = f"at most {FPR_TARGET:.0%}: {'PASS' if ok else 'FAIL'}"
        else:
            ok = flagged >= POWER_TARGET
            target = f"at least {POWER_TARGET:.0%}: {'PASS' if ok else 'FAIL'}"
        verdicts.append(ok)
        say(f"| {p} ({BAND[p]}) | {flagged:.3f} ({low:.3f}-{high:.3f}, {independent} "
            f"independent windows) | {target} |")  # fmt: skip
    say()
    say("Not measured yet: a partnership that shares its hands; the ruleset's others.")
    if args.write:
        head = [
            "<!-- Generated by bench/fairplay.py; do not edit by hand: run the bench to "
            "rewrite it. -->",
            "",
            "# Fair play: the detector calibrated on honest bots, against peekers",
            "",
            "What it measures and how: the docstring of [bench/fairplay.py]"
            "(../../bench/fairplay.py); the method: [fair-play.md](../fair-play.md).",
            "",
        ]
        OUT.write_text("\n".join([*head, *lines]) + "\n", encoding="utf-8")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
