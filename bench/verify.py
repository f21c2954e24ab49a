"""How fast a match record verifies: full verifications per second of a 10-deal record,
with and without drand's BLS check, the single BLS verification's time, and where the
time goes (each check on its own).

The record is a whole club match between medium bots, made by ``tools/matchgen.py``
(the first of its deterministic seeds whose match runs exactly 10 deals), dealt from a
real quicknet beacon; "full" means from the parsed JSON document to the report, every
check run (hash chains, summary, commitment, seeds, drand, decks, deals, replay, score,
reveal). One core, best of several rounds.

    python bench/verify.py [--rounds R] [--seconds S]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT))

from drand import QUICKNET
from drand import verify as bls_verify
from fairdeal.record import parse_record
from fairdeal.verifier import CHECK_FUNCTIONS, CHECKS, verify_record
from fairdeal.verifier.context import Context
from tools.drand_vectors import QUICKNET_BEACONS
from tools.matchgen import BEACON_ROUND, MatchSpec, offline_record, spec_with_deals

DEALS = 10


def rate_once(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``fn`` over about ``seconds``."""
    n = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        n += 1
    return n / elapsed


def rates(
    variants: dict[str, Callable[[], object]], seconds: float, rounds: int
) -> dict[str, float]:
    """The best rate of each variant over ``rounds`` interleaved rounds (a machine shared
    with other work slows some rounds; interleaving spreads that over every variant)."""
    best = dict.fromkeys(variants, 0.0)
    for _ in range(rounds):
        for name, fn in variants.items():
            best[name] = max(best[name], rate_once(fn, seconds))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args(argv)

    spec = spec_with_deals(DEALS, MatchSpec(match_id="bench-1", ruleset="club", label="bench"))
    record = offline_record(spec)
    text = json.dumps(record)
    assert len(record["deals"]) == DEALS
    events = sum(len(s["events"]) for s in record["streams"].values())
    report = verify_record(record, bls=bls_verify)
    assert report.ok, report.failed
    print(
        f"record: {spec.ruleset}, {DEALS} deals, {events} events, {len(text):,} bytes of JSON "
        f"(seed label {spec.label!r}); Python {sys.version.split()[0]}"
    )

    signature = next(
        bytes.fromhex(b["signature"]) for b in QUICKNET_BEACONS if b["round"] == BEACON_ROUND
    )
    best = rates(
        {
            "bls": lambda: bls_verify(QUICKNET, BEACON_ROUND, signature),
            "with": lambda: verify_record(record, bls=bls_verify),
            "without": lambda: verify_record(record),
            "parse": lambda: verify_record(json.loads(text), bls=bls_verify),
        },
        args.seconds,
        args.rounds,
    )
    bls_per_s, with_bls = best["bls"], best["with"]
    without_bls, with_parse = best["without"], best["parse"]

    print()
    print("| | figure |")
    print("| --- | ---: |")
    print(
        f"| full verifications/s, with the BLS check | {with_bls:,.0f} ({1000 / with_bls:.1f} ms) |"
    )
    print(
        f"| full verifications/s, without the BLS check | {without_bls:,.0f} "
        f"({1000 / without_bls:.1f} ms) |"
    )
    print(
        f"| with BLS, JSON text parsed first (json.loads) | {with_parse:,.0f} "
        f"({1000 / with_parse:.1f} ms) |"
    )
    print(
        f"| single BLS verification (quicknet, py-arkworks) | {1000 / bls_per_s:.2f} ms "
        f"({bls_per_s:,.0f}/s) |"
    )
    print(f"| BLS share of a full verification | {100 * (1 / bls_per_s) * with_bls:.0f}% |")

    # Where the time goes: each check alone, on a record decoded once per call (the
    # decoding, shared by every check, is timed as "decode").
    parsed = parse_record(record)
    part_seconds, part_rounds = args.seconds / 3, min(3, args.rounds)
    parse_s = 1 / rates({"p": lambda: parse_record(record)}, part_seconds, part_rounds)["p"]
    decode_s = 1 / rates({"d": lambda: Context(parsed, bls_verify)}, part_seconds, part_rounds)["d"]
    costs: dict[str, float] = {
        "parse the record's structure": parse_s,
        "decode both streams' events": decode_s,
    }
    for name in CHECKS:

        def one(name: str = name) -> None:
            ctx = Context(parsed, bls_verify)
            # Later checks use what earlier ones computed (decks before deals, play
            # before score): run those first, outside the timing.
            if name == "deals":
                CHECK_FUNCTIONS["decks"](ctx)
            if name == "score":
                CHECK_FUNCTIONS["play"](ctx)
            CHECK_FUNCTIONS[name](ctx)

        def setup_only(name: str = name) -> None:
            ctx = Context(parsed, bls_verify)
            if name == "deals":
                CHECK_FUNCTIONS["decks"](ctx)
            if name == "score":
                CHECK_FUNCTIONS["play"](ctx)

        both = rates({"one": one, "setup": setup_only}, part_seconds, part_rounds)
        costs[name] = max(0.0, 1 / both["one"] - 1 / both["setup"])
    whole = sum(costs.values())
    print()
    print("| part (each alone) | ms | share |")
    print("| --- | ---: | ---: |")
    for name, seconds in sorted(costs.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {1000 * seconds:.2f} | {100 * seconds / whole:.0f}% |")
    print(f"| sum | {1000 * whole:.2f} | |")
    print()
    print(
        f"median of the parts: {1000 * statistics.median(costs.values()):.2f} ms; "
        "the sum differs from a full verification by timing noise and shared work"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
