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
core. The platform's rate per core is bench/capacity.py's last run (its medium bots'
deals per second over the machine's cores, read from docs/bench/capacity.md, the file
that bench writes), scaled to this machine by the game core's cost per club deal of
medium bots, which both benches measure: this run's against that run's says how this
machine compares with that one. Exits 1 when the analysis does not keep up. Writes
docs/bench/analysis.md with ``--write``.

    python bench/analysis.py [--matches 6] [--rulesets club,classic,french,gambler] [--write]
"""

from __future__ import annotations

import argparse
import os
import random
import re
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

CAPACITY = ROOT / "docs" / "bench" / "capacity.md"
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


def capacity_rate() -> tuple[float, int, str, float] | None:
    """bench/capacity.py's last medium run: (deals per second, cores, when, the game
    core's ms per club deal of medium bots in that run)."""
    if not CAPACITY.exists():
        return None
    text = CAPACITY.read_text(encoding="utf-8")
    when = re.search(r"Run (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", text)
    cores = re.search(r"; (\d+) cores;", text)
    medium = re.search(r"### Bots: medium.*?\n\n(\d+) deals \(([\d.]+)/s\)", text, re.S)
    core = re.search(
        r"### Bots: medium.*?Game core alone, same bots: ([\d.]+) ms per deal", text, re.S
    )
    if not (when and cores and medium and core):
        return None
    return float(medium.group(2)), int(cores.group(1)), when.group(1), float(core.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6, help="matches a ruleset")
    parser.add_argument("--rulesets", default="club,classic,french,gambler")
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
    core_ms_by_ruleset: dict[str, float] = {}
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
        core_ms_by_ruleset[name] = core_ms
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
    measured = capacity_rate()
    if measured is None:
        say("bench/capacity.py has not written docs/bench/capacity.md: no platform rate")
        return 1
    rate, cores, ran, their_core_ms = measured
    platform = rate / cores
    # That run's machine against this one: the game core's CPU for the same deals (club,
    # medium bots) in both runs. The platform's rate, scaled by it, is what this machine
    # would carry; without club in this run, the rate as measured there.
    club_ms = core_ms_by_ruleset.get("club")
    speed = their_core_ms / club_ms if club_ms else 1.0
    here = platform * speed
    verdict = "PASS" if per_core >= here else "FAIL"
    say()
    say(
        f"The platform (bench/capacity.py, {ran}): {rate:.1f} deals/s on {cores} cores, "
        f"{platform:.1f} deals/s a core, its game core {their_core_ms:.2f} ms a club deal; "
        f"here {club_ms or 0:.2f} ms, so this machine runs at {speed:.2f} of that one and "
        f"would carry {here:.1f} deals/s a core. Analysis over platform, a core each: "
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
