"""``belot verify-draw SOURCE [--api URL] [--json]``: check a tournament's draw.

``SOURCE`` is a draw document (``belot-tournament-draw/1``): a file, ``-`` for stdin, an
http(s) URL (``…/v1/tournaments/ID/draw``, or ``…/v1/tournaments/ID``, whose ``/draw``
is read), or, with ``--api URL``, a tournament id (``URL/v1/tournaments/ID/draw``). The
checks are :func:`fairdeal.drawcheck.verify_draw`'s, with drand's BLS check. Exit status:
0 when every check passes, 1 when one fails (or is skipped: a draw not made yet), 2 for
bad input (unreadable, not JSON, not a draw document) with one line on stderr.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Final
from urllib.parse import urlsplit

from belot_platform.errors import EXIT_USAGE, UsageError
from commands.verify_cmd import print_report, read_source, render_checks
from drand import verify as bls_verify
from fairdeal.drawcheck import DrawDocumentError, DrawReport, verify_draw

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
#: A tournament id as the service makes and accepts them.
TOURNAMENT_ID: Final = re.compile(r"[A-Za-z0-9_\-]{1,64}")


def _is_url(text: str) -> bool:
    return urlsplit(text).scheme in ("http", "https")


def document_url(source: str, api: str | None) -> str:
    """Where the draw document is: ``source`` itself, or the ``/draw`` of the tournament
    it (or ``api`` and the id ``source``) names. Raises UsageError."""
    if api is not None:
        if not _is_url(api):
            raise UsageError(f"--api {api!r}: give an http:// or https:// URL")
        if TOURNAMENT_ID.fullmatch(source) is None:
            raise UsageError(f"{source!r}: with --api, give a tournament id")
        return f"{api.rstrip('/')}/v1/tournaments/{source}/draw"
    if _is_url(source):
        path = urlsplit(source).path.rstrip("/").split("/")
        if len(path) >= 3 and path[-3:-1] == ["v1", "tournaments"]:
            return source.rstrip("/") + "/draw"
    return source


def render(report: DrawReport) -> str:
    where = "" if report.round is None else f": drawn from drand round {report.round}"
    return render_checks(
        f"tournament {report.tournament_id}{where}",
        report,
        f"VERIFIED: the seed order is the recipe's from drand round {report.round}'s "
        "value, named before it existed (by the service's clock: docs/tournaments.md).",
    )


def cmd_verify_draw(args: argparse.Namespace) -> int:
    try:
        doc = read_source(document_url(args.source, args.api))
        try:
            report = verify_draw(doc, bls=bls_verify)
        except DrawDocumentError as exc:
            raise UsageError(f"{args.source}: not a draw document: {exc}") from None
    except UsageError as exc:
        sys.stderr.write(f"belot verify-draw: error: {exc}\n")
        return EXIT_USAGE
    return print_report(report, render(report), as_json=args.json)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cmd = sub.add_parser(
        "verify-draw",
        help="check a tournament's random draw: the named drand round, its value, the order",
        description=(
            "Recompute a tournament's random seeding from its public events: the drand round "
            "named when entries closed is the rule's, the beacon is drand's (BLS), and the "
            "seed order is the draw recipe's from it (docs/tournaments.md, 'The draw "
            "(random seeding)'). "
            "SOURCE: a draw document file, '-', a URL (an API's /v1/tournaments/ID or "
            "/v1/tournaments/ID/draw), or a tournament id with --api. Exit 0 only when every "
            "check passes, 1 when one does not, 2 for input that is not a draw document."
        ),
    )
    cmd.add_argument("source", metavar="FILE|URL|ID")
    cmd.add_argument(
        "--api", metavar="URL", help="the platform's API (the gateway): SOURCE is then an id"
    )
    cmd.add_argument("--json", action="store_true", help="print the report as JSON")
    cmd.set_defaults(handler=cmd_verify_draw)
