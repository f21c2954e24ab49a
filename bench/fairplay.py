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
(``belot.fairplay.decisions``: the known-best card is the hard bot's on its fixed budget);
a deal gives the gains of the decisions :func:`belot.fairplay.evidence` counts.

The detector, as an operator runs it on a player's (or a partnership's) last WINDOW deals:
the score of the window's gains (``belot.fairplay.score``), flagged from FLAG_SCORE. A
window is WINDOW deals drawn with replacement from the population's deals; the rates are
over WINDOWS windows, and their intervals (Wilson) count only the independent windows the
deals hold (deals / WINDOW), so that resampling claims no precision the deals do not
have. The honest rate has a bound that needs no sample: Efron's, exp(-FLAG_SCORE**2/2),
which holds for a seat whose gains are as often positive as negative (the hard bot
against itself); the bench prints each honest population's mean weighed gain a deal with
its interval (at most 0 is what the bound asks) beside the rate it measures.

Beside the sign (``belot.fairplay.weigh``), the bench scores the same windows with other
odd functions of the gain (WEIGHINGS), which keep the same bound, and says how often each
flags; and, for each cheat, how many deals the score's growth asks for: a window's score
grows as (net positive signs a deal) / sqrt(signs a deal) * sqrt(deals), and 95% of
windows reach the flag near a mean of FLAG_SCORE + 1.645.

Targets (the issue's): a peeker at 25% flagged within 50 deals with at least 95% power;
at most 1% of honest players flagged. The partnership is measured the same way. Exits 1
when a target is not met. Writes docs/bench/fairplay.md with ``--write``.

    python bench/fairplay.py [--deals 300] [--window 50] [--workers 2] [--write]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
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
from belot.fairplay import FLAG_SCORE, decisions, evidence, hard_bot_card, score, weigh
from belot.ruleset import RULESETS
from belot.view import SeatView
from bench.kit.matches import bot_match
from fairdeal.simulate import mean_ci, wilson

OUT = ROOT / "docs" / "bench" / "fairplay.md"
RULESET = "club"
#: The share of the hard-noise bot's card decisions played at random.
NOISE = 0.2
#: The share of the peeker's card decisions played double-dummy best.
PEEK_SHARE = 0.25
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
#: Other odd functions of the gain, compared with the sign (each keeps Efron's bound).
WEIGHINGS = {
    "sign": weigh,
    "clipped at 10": lambda g: max(-10.0, min(10.0, float(g))),
    "clipped at 20": lambda g: max(-20.0, min(20.0, float(g))),
    "root": lambda g: math.copysign(math.sqrt(abs(g)), g),
    "log": lambda g: math.copysign(math.log1p(abs(g)), g),
    "points": float,
}


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


def match_deals(task: tuple[str, int]) -> tuple[str, int, list[list[int]], float]:
    """One match of a population: the studied seats' counted gains, deal by deal, and
    the CPU it took."""
    population, seed = task
    started = time.process_time()
    ruleset = RULESETS[RULESET]
    log = play(population, seed)
    analysis = analyse(ruleset, log, contracts=False)
    seats = studied(population)

    def known_best(seat_view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
        if seat_view.seat not in seats:  # not studied: not asked (cheap, any legal card)
            return min(m.card for m in seat_view.legal if isinstance(m, PlayCard))
        return hard_bot_card(seat_view, rng)

    made = [d for d in decisions(ruleset, log, analysis, known_best) if d.seat in seats]
    out = []
    for deal in analysis.deals:
        counted = evidence(d for d in made if d.deal == deal.deal).decisions
        out.append([d.gain for d in counted])
    return population, seed, out, time.process_time() - started


def windows(
    deals: list[list[int]], size: int, rng: random.Random, weighed=weigh  # type: ignore[no-untyped-def]
) -> list[float]:
    """WINDOWS players' scores over ``size`` deals each, drawn with replacement."""
    return [
        score((g for _ in range(size) for g in deals[rng.randrange(len(deals))]), weighed)
        for _ in range(WINDOWS)
    ]


def flagged(scores: list[float]) -> float:
    return sum(s >= FLAG_SCORE for s in scores) / len(scores)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300, help="deals a population, at least")
    parser.add_argument("--window", type=int, default=50, help="deals a player is judged on")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--write", action="store_true", help="write docs/bench/fairplay.md")
    args = parser.parse_args(argv)
    prepare()
    started = time.monotonic()
    populations = (*HONEST, *CHEATS)
    # Matches of each population until it has its deals (a club match is 5-9 deals).
    by_match: dict[str, dict[int, list[list[int]]]] = {p: {} for p in populations}
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

    deals = {p: [d for ds in by_match[p].values() for d in ds] for p in populations}
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    total = sum(map(len, deals.values()))
    say(f"Run {when}; Python {sys.version.split()[0]}; {os.cpu_count()} cores; ruleset "
        f"{RULESET}; {total} deals in {time.monotonic() - started:.0f} s "
        f"({cpu / total:.2f} s of CPU a deal); a player judged on {args.window} deals; "
        f"flagged from a score of {FLAG_SCORE} (Efron's bound "
        f"{math.exp(-FLAG_SCORE ** 2 / 2):.4f}); rates over {WINDOWS} windows, intervals "
        f"over the independent ones")  # fmt: skip
    say()
    say("| population (seats) | deals | counted decisions a deal | gains not 0 a deal | "
        "of which positive (95%) | weighed gain a deal (95%) |")  # fmt: skip
    say("| --- | ---: | ---: | ---: | ---: | ---: |")
    for p in populations:
        gains = [g for d in deals[p] for g in d]
        moved = [g for g in gains if g]
        up = sum(g > 0 for g in moved)
        low, high = wilson(up, len(moved))
        per_deal = [sum(weigh(g) for g in d) for d in deals[p]]
        mlow, mhigh = mean_ci(per_deal)
        n = max(1, len(deals[p]))
        say(f"| {p} ({', '.join(map(str, studied(p)))}) | {len(deals[p])} | "
            f"{len(gains) / n:.2f} | {len(moved) / n:.2f} | "
            f"{up / max(1, len(moved)):.2f} ({low:.2f}-{high:.2f}) | "
            f"{statistics.fmean(per_deal):+.2f} ({mlow:+.2f} to {mhigh:+.2f}) |")  # fmt: skip
    rng = random.Random(1)
    say()
    say(f"| population | windows of {args.window} deals flagged (95%) | mean score | target |")
    say("| --- | ---: | ---: | --- |")
    verdicts = []
    for p in populations:
        scores = windows(deals[p], args.window, rng)
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
    grown = []
    for p in CHEATS:
        signs = [weigh(g) for d in deals[p] for g in d if g]
        net = sum(signs) / max(1, len(deals[p]))
        rate = len(signs) / max(1, len(deals[p]))
        slope = net / math.sqrt(rate) if rate else 0.0
        wanted = ((FLAG_SCORE + 1.645) / slope) ** 2 if slope > 0 else math.inf
        grown.append(f"{p}: {net:+.2f} net positive signs over {rate:.2f} a deal, a score "
                     f"of {slope:.3f}·√deals, {wanted:.0f} deals")  # fmt: skip
    say("From the score's growth: " + "; ".join(grown) + ".")
    say()
    say(f"Other weighings of the gain, the same windows of {args.window} deals flagged:")
    say()
    say("| weighing | " + " | ".join(populations) + " |")
    say("| --- |" + " ---: |" * len(populations))
    for name, weighed in WEIGHINGS.items():
        rates = [flagged(windows(deals[p], args.window, rng, weighed)) for p in populations]
        say(f"| {name} | " + " | ".join(f"{r:.3f}" for r in rates) + " |")
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
