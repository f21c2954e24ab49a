"""``belot analyse RECORD.json | URL | - [--json]``: a finished match analysed double-dummy.

The record is read as ``belot verify`` reads it (a file, ``-`` for stdin, or a verify
API's ``/v1/matches/ID`` address), verified (drand's signature checked too), and
analysed by :func:`fairdeal.analysis.analyse_record`, the function the verify API's
analysis job runs, so both give the same analysis. ``--json`` prints it in the API's
format (belot-analysis/1); otherwise a summary: each seat's accuracy and points given
away, each deal's contract and its dearest cards. Exit 0; 1 for a record that does not
verify (its cards are not analysed); 2 for input that is not a record, one line on
stderr.
"""

from __future__ import annotations

import argparse
import sys

import orjson

from belot.analysis import MatchAnalysis
from belot_platform.errors import EXIT_USAGE, UsageError
from commands.verify_cmd import EXIT_FAILED, EXIT_OK, read_source
from drand import verify as bls_verify
from fairdeal.analysis import AnalysisError, analyse_record


def render(analysis: MatchAnalysis) -> str:
    lines = [f"match {analysis.match_id} ({analysis.ruleset}): {len(analysis.deals)} deals played"]
    for s in analysis.seats:
        share = "no real choice" if s.accuracy is None else f"{100 * s.accuracy:.0f}% best"
        lines.append(
            f"  seat {s.seat}: {s.cards} cards, {s.best} best; of {s.choices} real choices "
            f"{s.best_of_choices} best ({share}); {s.lost} points given away"
        )
    for d in analysis.deals:
        worst = sorted((c for c in d.cards if c.loss), key=lambda c: -c.loss)[:3]
        taker = "no taker" if d.taker is None else f"seat {d.taker} took"
        dear = ", ".join(
            f"seat {c.seat} {c.card} in trick {c.trick + 1} (-{c.loss}; best {' '.join(c.best)})"
            for c in worst
        )
        lines.append(f"deal {d.deal}: {d.strain}, {taker}; {dear or 'every card a best card'}")
        if d.contracts:
            table = "  ".join(f"{c.strain} {c.points[0]}:{c.points[1]}" for c in d.contracts)
            lines.append(f"  double-dummy card points by strain (side 0:side 1): {table}")
    return "\n".join(lines) + "\n"


def cmd_analyse(args: argparse.Namespace) -> int:
    try:
        doc = read_source(args.record)
    except UsageError as exc:
        sys.stderr.write(f"belot analyse: error: {exc}\n")
        return EXIT_USAGE
    try:
        analysis = analyse_record(doc, bls=bls_verify)
    except AnalysisError as exc:
        sys.stderr.write(f"belot analyse: {exc.code}: {exc.message}\n")
        return EXIT_USAGE if exc.code == "not_a_record" else EXIT_FAILED
    if args.json:
        sys.stdout.write(orjson.dumps(analysis.to_json()).decode() + "\n")
    else:
        sys.stdout.write(render(analysis))
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    analyse = sub.add_parser(
        "analyse",
        help="a finished match analysed double-dummy: each card's value, best cards, losses",
        description=(
            "Analyse a match record (format belot-match-record/1) from a file, '-' for stdin, "
            "or a URL (an API's /v1/matches/ID): verified first, then every card played is "
            "valued with every hand known. Exit 0; 1 when the record does not verify or the "
            "match has not ended; 2 for input that is not a record."
        ),
    )
    analyse.add_argument("record", metavar="RECORD.json|URL")
    analyse.add_argument("--json", action="store_true", help="print the analysis as JSON")
    analyse.set_defaults(handler=cmd_analyse)
