"""``belot serve <service>``: run one service in this process.

The registry maps a service name to the ``module:function`` that runs it; ``belot run``
(the supervisor) starts each registered service as its own ``belot serve`` process.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import Final

from belot_platform.settings import SettingsError

#: name -> "module:function"; the function reads its settings from the environment.
REGISTRY: Final[dict[str, str]] = {
    "randomness": "services.randomness.app:main",
    "table": "services.table.app:main",
    "gateway": "services.gateway.app:main",
    "rating": "services.rating.app:main",
    "verify": "services.verify.app:main",
    "tournament": "services.tournament.app:main",
    "relay": "services.relay.app:main",
}


def load(name: str) -> Callable[[], None]:
    module, _, function = REGISTRY[name].partition(":")
    main: Callable[[], None] = getattr(importlib.import_module(module), function)
    return main


def cmd_serve(args: argparse.Namespace) -> int:
    import asyncpg

    from eventlog.migrations import MigrationError

    try:
        load(args.service)()
    except (SettingsError, MigrationError) as exc:
        # A bad environment variable, or a schema this role may not bring up to date
        # (run belot db setup): one line, exit 2.
        sys.stderr.write(f"belot serve {args.service}: error: {exc}\n")
        return 2
    except (
        asyncpg.InvalidAuthorizationSpecificationError,  # no such role, wrong password
        asyncpg.InsufficientPrivilegeError,  # a role without the grants it needs
    ) as exc:
        sys.stderr.write(
            f"belot serve {args.service}: error: PostgreSQL refused: {exc} (is BELOT_PG_DSN "
            "this service's role, and has belot db setup run? see docs/database-roles.md)\n"
        )
        return 2
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser(
        "serve",
        help="run one service (several table workers may run at once)",
        description="Run one service in the foreground until SIGTERM or Ctrl-C. Servers "
        "come from BELOT_PG_DSN / BELOT_NATS_URL, else the embedded ones under "
        "BELOT_DATA_DIR.",
    )
    serve.add_argument("service", choices=sorted(REGISTRY))
    serve.set_defaults(handler=cmd_serve)
