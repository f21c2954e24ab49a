"""The ``belot`` command: one entry point, a subcommand per tool.

Bad input is a one-line message on stderr and exit status 2; nothing is printed to
stdout then.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

import orjson

from belot.cards import to_codes
from belot_platform.errors import EXIT_USAGE, UsageError
from belot_platform.fields import FieldError, parse_hex, parse_int
from commands import (
    analyse_cmd,
    db,
    drand_cmd,
    draw_cmd,
    log_audit,
    rating_cmd,
    run,
    serve,
    verify_cmd,
    witness_cmd,
)
from eventlog.cli import add_log_commands
from fairdeal import (
    DRAND_VALUE_SIZE,
    MAX_DEAL,
    MAX_ROUND,
    MAX_SEATS,
    SEAT_SEED_SIZE,
    SERVER_SEED_SIZE,
    DeckInputs,
    Drand,
    RecipeError,
    Shuffler,
    commitment,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block; one line that names the problem and
        # where to read more is easier to act on.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _deck_inputs(args: argparse.Namespace) -> DeckInputs:
    server_seed = parse_hex("--server-seed", args.server_seed, (SERVER_SEED_SIZE,))
    seats = args.seat_seed or []
    if not seats:
        raise UsageError("give at least one --seat-seed ('' for a seat that sent no seed)")
    if len(seats) > MAX_SEATS:
        raise UsageError(f"{len(seats)} seats: the recipe takes at most {MAX_SEATS}")
    seat_seeds = tuple(
        parse_hex(f"--seat-seed #{n + 1}", s, (0, SEAT_SEED_SIZE)) for n, s in enumerate(seats)
    )
    if (args.drand_round is None) != (args.drand_value is None):
        raise UsageError("--drand-round and --drand-value go together: give both or neither")
    drand = None
    if args.drand_round is not None:
        drand = Drand(
            parse_int("--drand-round", args.drand_round, MAX_ROUND),
            parse_hex("--drand-value", args.drand_value, (DRAND_VALUE_SIZE,)),
        )
    return DeckInputs(server_seed, seat_seeds, drand)


def cmd_deck(args: argparse.Namespace) -> int:
    inputs = _deck_inputs(args)
    k = parse_int("--deal", args.deal, MAX_DEAL)
    cards = to_codes(Shuffler(inputs).deck(k, args.cards))
    if args.json:
        sys.stdout.write(orjson.dumps(cards).decode() + "\n")
    else:
        sys.stdout.write(" ".join(cards) + "\n")
    return 0


def cmd_commit(args: argparse.Namespace) -> int:
    seed = parse_hex("--server-seed", args.server_seed, (SERVER_SEED_SIZE,))
    sys.stdout.write(commitment(seed).hex() + "\n")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    # Imported here: the game library is only needed by this subcommand.
    from belot.bots import LEVELS
    from belot.ruleset import RULESETS
    from fairdeal.simulate import simulate

    ruleset = RULESETS.get(args.ruleset)
    if ruleset is None:
        raise UsageError(f"--ruleset {args.ruleset!r}: one of {', '.join(sorted(RULESETS))}")
    seats = [s.strip() for s in args.seats.split(",")]
    if len(seats) != ruleset.players or any(s not in LEVELS for s in seats):
        raise UsageError(
            f"--seats takes {ruleset.players} of {'/'.join(LEVELS)}, comma separated, "
            f"for {ruleset.name}; got {args.seats!r}"
        )
    matches = parse_int("--matches", args.matches, 10**7)
    if matches < 1:
        raise UsageError("--matches must be at least 1")
    budget = None if args.budget is None else parse_int("--budget", args.budget, 10**6)
    result = simulate(ruleset, seats, matches, args.seed, swap=args.swap, budget=budget)
    if args.json:
        sys.stdout.write(orjson.dumps(result.to_payload()).decode() + "\n")
        return 0
    mode = "seats swapped in mirrored pairs" if args.swap else "seats fixed"
    lines = [
        f"{ruleset.name}: {matches} matches, {result.deals} deals ({mode}), seed {args.seed!r}"
    ]
    for side in (0, 1):
        names = ",".join(seats[side::2]) if ruleset.players == 4 else seats[side]
        lo, hi = result.win_rate_ci[side]
        plo, phi = result.points_per_deal_ci[side]
        lines.append(
            f"side {side} ({names}): {result.wins[side]} wins, {100 * result.win_rate[side]:.1f}% "
            f"[{100 * lo:.1f}%, {100 * hi:.1f}%]; {result.points_per_deal[side]:.1f} points per "
            f"deal [{plo:.1f}, {phi:.1f}]"
        )
    lines.append(f"draws: {result.draws}   (95% confidence intervals in brackets)")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="belot", description="The belot platform's command-line tools.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    deck = sub.add_parser(
        "deck",
        help="print a deal's deck from the fair-deal inputs",
        description=(
            "Recompute deal K's deck with the recipe of docs/specification.md section 6 and "
            "print it, top card first. Cards are rank (7 8 9 T J Q K A) then suit (C D H S)."
        ),
    )
    deck.add_argument(
        "--server-seed", required=True, metavar="HEX", help="the revealed server seed, 32 bytes"
    )
    deck.add_argument(
        "--seat-seed",
        action="append",
        metavar="HEX",
        help="a seat's seed, 16 bytes, or '' for a seat that sent none; repeat in seat order",
    )
    deck.add_argument(
        "--deal", required=True, metavar="K", help="deal number from 0 (redeals count)"
    )
    deck.add_argument("--drand-round", metavar="N", help="drand round (with --drand-value)")
    deck.add_argument(
        "--drand-value", metavar="HEX", help="drand randomness, 32 bytes (with --drand-round)"
    )
    deck.add_argument("--cards", type=int, choices=(32, 24), default=32, help="deck size")
    deck.add_argument("--json", action="store_true", help="print a JSON array")
    deck.set_defaults(handler=cmd_deck)

    commit = sub.add_parser(
        "commit",
        help="print the commitment SHA-256(server seed)",
        description="Print the commitment to a server seed: SHA-256 of its 32 bytes, in hex.",
    )
    commit.add_argument("--server-seed", required=True, metavar="HEX", help="32 bytes")
    commit.set_defaults(handler=cmd_commit)

    sim = sub.add_parser(
        "simulate",
        help="play whole matches between bots and print the results",
        description=(
            "Play MATCHES matches with a bot level per seat, on decks from the fair-deal "
            "recipe with seeds derived from --seed (deterministic). Side 0 is seats 0 and "
            "2 (seat 0 at two players)."
        ),
    )
    sim.add_argument("--ruleset", required=True, help="club, classic, french or gambler")
    sim.add_argument(
        "--seats", required=True, help="a level per seat: easy, medium or hard, comma separated"
    )
    sim.add_argument("--matches", required=True, metavar="N")
    sim.add_argument("--seed", required=True, metavar="S", help="any text")
    sim.add_argument(
        "--swap",
        action="store_true",
        help="mirrored pairs: same decks, bot lists on the other side; wins[0] still counts "
        "the bots named for seats 0 and 2",
    )
    sim.add_argument("--budget", metavar="B", help="hard bots' play-outs per card decision")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(handler=cmd_simulate)

    drand_cmd.register(sub)
    db.register(sub)
    serve.register(sub)
    run.register(sub)
    verify_cmd.register(sub)
    analyse_cmd.register(sub)
    draw_cmd.register(sub)
    witness_cmd.register(sub)
    log_audit.register(add_log_commands(sub))
    rating_cmd.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (UsageError, FieldError, RecipeError) as exc:
        sub = getattr(args, "drand_command", None)
        name = f"{args.command} {sub}" if sub else args.command
        sys.stderr.write(f"belot {name}: error: {exc}\n")
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
