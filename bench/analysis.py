"""What the double-dummy analysis of a finished match costs, against what the platform's
deals cost, measured in the same run.

Matches between medium bots (the bots a table seats by default) of each ruleset are
played in the game core (``belot.match``: ``due``, the seat's ``view``,
``belot.bots.choose``, ``decide``, ``evolve``; decks from the fair-deal recipe with seeds
of this run), and the CPU of playing them is counted (``time.process_time``): the game
core's own cost per deal, which bench/capacity.py measures the whole platform's deal
against (docs/bench/capacity.md). Then each match is analysed as the verify service's job
does it (:func:`belot.analysis.analyse`: every card's values, the contract table), its
CPU counted per deal and per match (median and p99).

The target: the analysis keeps up with the platform on the same machine, that is one
core of analysis takes the deals at least as fast as the whole platform makes them per
core. The platform is measured in the same run, on the same machine: bench/capacity.py's
case for medium bots (its real services in their own processes, tables of four bots
opened as others close, on the servers BELOT_PG_DSN and BELOT_NATS_URL name or embedded
ones), over ``--platform-window`` seconds after its warm-up; its deals per second over the
machine's cores is the platform's rate per core, printed with its CPU per deal (every
process, the servers included). Exits 1 when the analysis does not keep up. Writes
docs/bench/analysis.md with ``--write``.

    python bench/analysis.py [--matches 6] [--rulesets club,classic,french,gambler]
                             [--platform-window 20] [--write]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT))

from belot.analysis import analyse
from belot.bots import choose
from belot.bots.solver import prepare
from belot.events import Event
from belot.ruleset import RULESETS
from bench.kit.matches import bot_match

OUT = ROOT / "docs" / "bench" / "analysis.md"


def play(name: str, seed: int) -> tuple[list[Event], float]:
    """A whole match between medium bots: its events and the CPU seconds it took."""
    ruleset = RULESETS[name]
    started = time.process_time()
    log = bot_match(
        ruleset, f"bench-{name}-{seed}", seed % ruleset.players, random.Random(seed),
        lambda _state, seat_view, rng: choose(seat_view, rng, "medium"),
    )  # fmt: skip
    return log, time.process_time() - started


def p99(xs: list[float]) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def platform_rate(window: float) -> tuple[float, float, int]:
    """bench/capacity.py's medium case, run now on this machine: (deals per second, the
    platform's CPU seconds per deal over all its processes, deals counted)."""
    import asyncio

    from bench import capacity

    with capacity.platform_servers() as (pg, nats_url, servers):
        case = asyncio.run(
            capacity.run_case(
                pg, nats_url, servers, capacity.JUDGED_LEVEL, capacity.DEFAULTS["tables"], 1,
                window, capacity.DEFAULTS["warmup"], None,
            )
        )  # fmt: skip
    return case.deals_per_s, sum(case.cpu.values()) / max(1, case.deals), case.deals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="matches a ruleset")
    parser.add_argument("--rulesets", default="club,classic,french,gambler")
    parser.add_argument("--platform-window", type=float, default=20.0,
                        help="seconds the platform is measured, after its warm-up")  # fmt: skip
    parser.add_argument("--write", action="store_true", help="write docs/bench/analysis.md")
    args = parser.parse_args(argv)
    prepare()  # the solver compiled (or loaded) before anything is timed
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line)
        lines.append(line)

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    say(f"Run {when}; Python {sys.version.split()[0]}; {os.cpu_count()} cores; "
        f"{args.matches} matches a ruleset, medium bots")  # fmt: skip
    say()
    say("| ruleset | deals | core ms/deal | analysis ms/deal (median, p99) | "
        "analysis s/match (median, p99) | analysis / core |")  # fmt: skip
    say("| --- | ---: | ---: | ---: | ---: | ---: |")
    all_deal_costs: list[float] = []
    core_total = analysis_total = 0.0
    deals_total = 0
    for name in args.rulesets.split(","):
        ruleset = RULESETS[name]
        per_deal: list[float] = []
        per_match: list[float] = []
        core = 0.0
        deals = 0
        for seed in range(args.matches):
            log, cpu = play(name, seed)
            core += cpu
            started = time.process_time()
            result = analyse(ruleset, log)
            spent = time.process_time() - started
            per_match.append(spent)
            played = max(1, len(result.deals))
            per_deal.extend([spent / played] * played)
            deals += played
        core_ms = 1000 * core / max(1, deals)
        analysis_ms = 1000 * sum(per_match) / max(1, deals)
        say(
            f"| {name} | {deals} | {core_ms:.1f} | {1000 * statistics.median(per_deal):.0f}, "
            f"{1000 * p99(per_deal):.0f} | {statistics.median(per_match):.2f}, "
            f"{p99(per_match):.2f} | {analysis_ms / core_ms:.0f}x |"
        )
        all_deal_costs.extend(per_deal)
        core_total += core
        analysis_total += sum(per_match)
        deals_total += deals

    per_core = deals_total / analysis_total
    say()
    say(f"One core of analysis: {per_core:.1f} deals/s "
          f"({1000 * analysis_total / deals_total:.0f} ms a deal on average; "
          f"the game core plays a deal in {1000 * core_total / deals_total:.1f} ms)")  # fmt: skip
    rate, platform_cpu, platform_deals = platform_rate(args.platform_window)
    cores = os.cpu_count() or 1
    here = rate / cores
    verdict = "PASS" if per_core >= here else "FAIL"
    say()
    say(
        f"The platform, measured in this run (bench/capacity.py's medium case, "
        f"{args.platform_window:.0f} s, {platform_deals} deals): {rate:.1f} deals/s on "
        f"{cores} cores, {here:.1f} deals/s a core, {1000 * platform_cpu:.1f} ms of CPU a "
        f"deal over all its processes. Analysis over platform, a core each: "
        f"**{per_core / here:.2f}** (target at least 1: {verdict})"
    )
    if args.write:
        head = [
            "<!-- Generated by bench/analysis.py; do not edit by hand: run the bench to "
            "rewrite it. -->",
            "",
            "# Analysis: what a finished match's double-dummy analysis costs",
            "",
            "What it measures and how: the docstring of [bench/analysis.py]"
            "(../../bench/analysis.py); what the analysis is: [analysis.md](../analysis.md).",
            "",
        ]
        OUT.write_text("\n".join([*head, *lines]) + "\n", encoding="utf-8")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
