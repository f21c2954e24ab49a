"""``belot rating rebuild``: empty the rating projection and fold the log again.

Registered in the ``belot`` command; the service's modules are imported only when the
command runs. Exit status 0, or 2 with one line on stderr (bad settings, no database).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from belot_platform.errors import EXIT_USAGE


def cmd_rebuild(args: argparse.Namespace) -> int:
    import asyncpg

    from belot_platform.embedded import running_postgres_dsn
    from belot_platform.settings import Settings, SettingsError
    from services.rating.app import NoEventLog, print_report, rebuild

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        sys.stderr.write(f"belot rating rebuild: error: {exc}\n")
        return EXIT_USAGE
    dsn = args.dsn or settings.pg_dsn or running_postgres_dsn(settings)
    if dsn is None:
        sys.stderr.write(
            "belot rating rebuild: error: no database: give --dsn or set BELOT_PG_DSN, "
            "or start the embedded stack\n"
        )
        return EXIT_USAGE
    settings = settings.with_servers(dsn, settings.nats_url or "")
    try:
        report = asyncio.run(rebuild(settings))
    except NoEventLog as exc:
        sys.stderr.write(f"belot rating rebuild: error: {exc}\n")
        return EXIT_USAGE
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        sys.stderr.write(f"belot rating rebuild: error: {type(exc).__name__}: {exc}\n")
        return EXIT_USAGE
    print_report(report)
    return 0


def register(sub: Any) -> None:
    """Add ``rating rebuild`` to the ``belot`` subparsers."""
    rating = sub.add_parser("rating", help="the rating service's tools")
    rsub = rating.add_subparsers(dest="rating_command", required=True, parser_class=type(rating))
    rebuild = rsub.add_parser(
        "rebuild",
        help="empty the rating projection and fold the log's rating streams again",
        description=(
            "Empty the rating service's tables (BELOT_RATING_SCHEMA) and rebuild them by "
            "folding every rating-* stream of the event log (BELOT_PG_SCHEMA) with the "
            "rating core. Safe while the service runs: its consumer waits, then carries on."
        ),
    )
    rebuild.add_argument("--dsn", help="PostgreSQL URL (default: BELOT_PG_DSN, else embedded)")
    rebuild.set_defaults(handler=cmd_rebuild)
