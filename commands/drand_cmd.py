"""``belot drand check`` and ``belot drand relay``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aiohttp import web

from belot_platform.errors import UsageError
from drand import CHAINS, BeaconError, verify
from drand.clock import ScaledClock
from drand.relay import BeaconFileError, Mode, create_relay_app, load_beacons

EXIT_FAILED = 1


def _hex(flag: str, text: str) -> bytes:
    digits = text[2:] if text[:2].lower() == "0x" else text
    try:
        return bytes.fromhex(digits)
    except ValueError:
        raise UsageError(f"{flag} is not hexadecimal") from None


def cmd_check(args: argparse.Namespace) -> int:
    chain = CHAINS[args.chain]
    try:
        round_ = int(args.round, 10)
    except ValueError:
        raise UsageError(f"--round {args.round!r} is not a whole number") from None
    signature = _hex("--signature", args.signature)
    previous = None
    if args.previous_signature is not None:
        if not chain.is_chained:
            raise UsageError(f"the {chain.name} chain is unchained: drop --previous-signature")
        previous = _hex("--previous-signature", args.previous_signature)
    elif chain.is_chained:
        raise UsageError(f"the {chain.name} chain is chained: give --previous-signature")
    try:
        beacon = verify(chain, round_, signature, previous)
    except BeaconError as exc:
        sys.stderr.write(f"belot drand check: does not verify: {exc}\n")
        return EXIT_FAILED
    sys.stdout.write(beacon.randomness.hex() + "\n")
    return 0


def cmd_relay(args: argparse.Namespace) -> int:
    try:
        mode = Mode.parse(args.mode)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    chain = CHAINS[args.chain]
    try:
        beacons = load_beacons(Path(args.beacons), chain)
    except BeaconFileError as exc:
        raise UsageError(str(exc)) from None
    at_round = args.at_round if args.at_round is not None else min(beacons)
    clock = ScaledClock(chain.time_of_round(at_round), speed=args.speed)
    app = create_relay_app({chain.name: beacons}, clock, mode)
    sys.stderr.write(
        f"drand relay: {chain.name} ({chain.hash}), {len(beacons)} recorded rounds "
        f"{sorted(beacons)[:6]}..., clock at round {at_round}, mode {args.mode}, "
        f"http://{args.host}:{args.port}\n"
    )
    web.run_app(app, host=args.host, port=args.port, print=None)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    drand = sub.add_parser("drand", help="drand beacons: verify one, or run a local relay")
    dsub = drand.add_subparsers(dest="drand_command", required=True, parser_class=type(drand))

    check = dsub.add_parser(
        "check",
        help="verify a beacon's BLS signature and print its randomness",
        description=(
            "Verify a drand beacon against the chain's pinned public key. Prints the "
            "randomness (SHA-256 of the signature) and exits 0 when it verifies; says why "
            "and exits 1 when it does not."
        ),
    )
    check.add_argument("--round", required=True, metavar="N")
    check.add_argument("--signature", required=True, metavar="HEX")
    check.add_argument("--chain", choices=sorted(CHAINS), default="quicknet")
    check.add_argument(
        "--previous-signature", metavar="HEX", help="the previous round's signature (default chain)"
    )
    check.set_defaults(handler=cmd_check)

    relay = dsub.add_parser(
        "relay",
        help="serve recorded real beacons over drand's HTTP API (tests, offline work)",
        description=(
            "A local drand relay serving recorded beacons mapped onto a clock that starts "
            "at --at-round (default: the first recorded round) and runs at --speed."
        ),
    )
    relay.add_argument("--beacons", required=True, metavar="FILE")
    relay.add_argument("--port", type=int, default=8089)
    relay.add_argument("--host", default="127.0.0.1")
    relay.add_argument("--mode", default="ok", help="ok | slow:SECONDS | down | lying")
    relay.add_argument("--chain", choices=sorted(CHAINS), default="quicknet")
    relay.add_argument("--at-round", type=int, metavar="R")
    relay.add_argument("--speed", type=float, default=1.0, help="clock speed (1 = real time)")
    relay.set_defaults(handler=cmd_relay)
