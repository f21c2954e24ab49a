"""The game engine's speed: random-legal deals per second per ruleset, and bot decision
times per level.

Deals: whole deals played through the public API exactly as a table would (decks from
the fair-deal recipe, ``SupplyDeck``, then ``legal_moves`` -> a random choice ->
``decide`` -> ``evolve`` for every event), on one core, best of several rounds. A deal
abandoned unplayed (a redeal) costs its time but does not count. Target: 2,000 deals/s.

Bots: the wall time of ``belot.bots.choose`` for every decision with more than one
legal move, over bot matches (each level against medium, medium against easy), per
level: median and 99th percentile, with no deadline (the hard bot spends its whole
budget). Target: the hard level's median under 30 ms. The hard bot's exact solver is
loaded first (``belot.bots.solver.prepare``: numba's cached machine code, or a compile
where there is none yet), its time printed apart: a process pays it once, not a decision.

    python bench/game.py [--deals N] [--rounds R] [--matches M]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

from belot import RULESETS, Ruleset, SupplyDeck, decide, due, evolve, legal_moves, new_match, view
from belot.bots import LEVELS, choose
from belot.events import DealScored
from belot.match import DueKind
from fairdeal import DeckInputs, Shuffler

DEALS_TARGET = 2_000
HARD_MEDIAN_TARGET_MS = 30.0


def random_deals(ruleset: Ruleset, deals: int, seed: int) -> float:
    """Scored random-legal deals per second."""
    rng = random.Random(seed)
    shuffler = Shuffler(
        DeckInputs(hashlib.sha256(b"bench/game").digest(), (b"",) * ruleset.players, None)
    )
    done = 0
    start = time.perf_counter()
    while done < deals:
        state = new_match(ruleset, target=10**9)
        while done < deals:
            d = due(state)
            if d.kind is DueKind.DECK:
                command = SupplyDeck(d.deal_number, shuffler.deck(d.deal_number))
            else:
                command = rng.choice(legal_moves(state))
            for e in decide(state, command):
                state = evolve(state, e)
                if type(e) is DealScored:
                    done += 1
    return deals / (time.perf_counter() - start)


def decision_times(matches: int) -> dict[tuple[str, str], list[float]]:
    """Milliseconds per non-trivial decision, by level and ruleset."""
    times: dict[tuple[str, str], list[float]] = {
        (level, name): [] for level in LEVELS for name in RULESETS
    }
    pairings = [("hard", "medium"), ("medium", "easy"), ("easy", "medium")]
    for ruleset in RULESETS.values():
        n = ruleset.players
        for a, b in pairings:
            for m in range(matches):
                levels = [a, b] * (n // 2)
                rng = random.Random(m)
                shuffler = Shuffler(
                    DeckInputs(hashlib.sha256(b"bench/bots%d" % m).digest(), (b"",) * n, None)
                )
                state = new_match(ruleset, first_dealer=m % n)
                while (d := due(state)).kind is not DueKind.NOTHING:
                    if d.kind is DueKind.DECK:
                        command = SupplyDeck(d.deal_number, shuffler.deck(d.deal_number))
                    else:
                        assert d.seat is not None
                        v = view(state, d.seat)
                        t0 = time.perf_counter()
                        command = choose(v, rng, levels[d.seat])
                        dt = (time.perf_counter() - t0) * 1000
                        if len(v.legal) > 1:
                            times[levels[d.seat], ruleset.name].append(dt)
                    for e in decide(state, command):
                        state = evolve(state, e)
    return times


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--matches", type=int, default=4, help="bot matches per pairing and ruleset"
    )
    args = parser.parse_args()

    head = f"{args.deals} deals x {args.rounds} rounds (best of)"
    print(f"python {sys.version.split()[0]}, one core; {head}")
    ok = True
    for name, ruleset in RULESETS.items():
        best = max(random_deals(ruleset, args.deals, r) for r in range(args.rounds))
        verdict = "PASS" if best >= DEALS_TARGET else "FAIL"
        ok &= best >= DEALS_TARGET
        print(f"random-legal deals/s  {name:<8} {best:>8,.0f}   target {DEALS_TARGET:,}: {verdict}")

    from belot.bots.solver import prepare

    started = time.perf_counter()
    prepare()
    print(f"the hard bot's solver loaded in {time.perf_counter() - started:.2f} s")
    times = decision_times(args.matches)
    per = f"{args.matches} matches per pairing and ruleset"
    print(f"bot decisions with more than one legal move, {per}")
    rows = [
        (level, "all", [t for (lv, _), ts in times.items() if lv == level for t in ts])
        for level in LEVELS
    ]
    rows += [("hard", name, times["hard", name]) for name in RULESETS]
    for level, name, xs in rows:
        print(
            f"decision ms  {level:<6} {name:<8} n={len(xs):>5}  median {statistics.median(xs):7.2f}"
            f"  p99 {percentile(xs, 0.99):7.2f}  max {max(xs):7.2f}"
        )
    hard = max(statistics.median(times["hard", name]) for name in RULESETS)
    verdict = "PASS" if hard < HARD_MEDIAN_TARGET_MS else "FAIL"
    ok &= hard < HARD_MEDIAN_TARGET_MS
    goal = f"hard median < {HARD_MEDIAN_TARGET_MS:.0f} ms in every ruleset"
    print(f"target: {goal}: {hard:.2f} ms {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
