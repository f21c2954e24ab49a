"""Swiss pairing time for 64, 256 and 1,024 entrants, through the command the service
calls (``pair_next_round``: standings, candidate edges, blossom matching, events).

Each field plays a whole Swiss of ceil(log2 n) + 2 rounds with seeded random results
(wins, draws, losses), and every round's pairing is timed. Above 128 entrants the
first attempt uses the restricted graph (see libs/tournament/swiss.py); the bench says
how often it had to widen to the full graph, and at one mid-tournament round it also
pairs the full graph, to report its time and whether the restricted pairing costs the
same (same bye, same score-group floats, same in-group placement).

    python bench/tournament.py [--sizes 64 256 1024] [--seed S] [--no-full]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow
# the tournament package: take the folder off and put the repository root on.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from tournament import commands as c
from tournament import swiss
from tournament.settings import Format, Outcome, Settings
from tournament.state import Tournament, evolve

T0 = 1_700_000_000_000  # unix milliseconds
RESULTS = [(Outcome.WIN, Outcome.LOSS), (Outcome.LOSS, Outcome.WIN), (Outcome.DRAW, Outcome.DRAW)]


def apply(state: Tournament, events: list) -> Tournament:
    for e in events:
        state = evolve(state, e)
    return state


def play(n: int, seed: int, full: bool) -> dict:
    rng = random.Random(seed)
    rounds = math.ceil(math.log2(n)) + 2
    ratings = {f"p{i:04d}": rng.gauss(1500, 200) for i in range(n)}
    settings = Settings(Format.SWISS, rounds=rounds)
    state = apply(Tournament(), c.create(Tournament(), "bench", settings, T0))
    for player in ratings:
        state = apply(state, c.enter(state, player, T0))
    # Fix the seeding first (Started alone), so that round 1 is timed like the others.
    state = apply(state, c.start(state, T0, ratings)[:1])
    times, matching, widened, compare = [], [], 0, None
    for r in range(1, rounds + 1):
        now_ms = T0 + r * 4_000_000
        given = c.swiss_inputs(state, r, ratings)
        args = (given.ranked, given.points, given.met, given.had_bye)
        start = time.perf_counter()
        restricted = swiss.pair(*args)
        matching.append(time.perf_counter() - start)
        widened += restricted.widened
        if full and r == rounds // 2 + 1:
            start = time.perf_counter()
            exact = swiss.pair(*args, window=None)
            compare = (r, time.perf_counter() - start, restricted.cost == exact.cost)
        start = time.perf_counter()
        events = c.pair_next_round(state, r, now_ms, ratings)
        times.append(time.perf_counter() - start)
        state = apply(state, events)
        assert not state.is_finished, state.finished
        for m in state.current.matches:
            if not m.pairing.is_bye:
                a, b = rng.choice(RESULTS)
                state = apply(state, c.record_result(state, r, m.pairing.match, a, b, now_ms))
    return {
        "rounds": rounds,
        "times": times,
        "matching": matching,
        "widened": widened,
        "compare": compare,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--no-full", action="store_true", help="skip the full-graph comparison")
    args = parser.parse_args()
    print(f"Swiss pairing, seeded results (seed {args.seed}); seconds per round")
    print(
        f"{'entrants':>8} {'rounds':>6} {'median':>7} {'max':>7} {'matching':>9} "
        f"{'widened':>7}  full graph, one mid round"
    )
    for n in args.sizes:
        out = play(n, args.seed, full=not args.no_full and n > swiss.FULL_GRAPH_UP_TO)
        t = out["times"]
        line = (
            f"{n:>8} {out['rounds']:>6} {statistics.median(t):>7.3f} {max(t):>7.3f} "
            f"{statistics.median(out['matching']):>9.3f} {out['widened']:>7}"
        )
        if out["compare"] is not None:
            r, full_s, same = out["compare"]
            line += f"  round {r}: {full_s:.2f} s, {'same cost' if same else 'restricted costlier'}"
        elif n <= swiss.FULL_GRAPH_UP_TO:
            line += "  (always the full graph at this size)"
        print(line, flush=True)
    print("median/max: pair_next_round (standings + matching + events); matching: swiss.pair")


if __name__ == "__main__":
    main()
