"""Database roles for the integration tests: ``belot db setup``'s, under a prefix of
this test session's own (roles are cluster-wide, and other runs may share the server).

:class:`RoleKit` makes them, sets a schema layout up for them, gives each service's URL
and drops them at the end. The conftest installs one as :data:`CURRENT` (unless
``BELOT_TEST_PG_ROLES=0``), and the test platforms (table_support, gateway_support, ...)
connect each service as its own role (:func:`dsn_for`) instead of as the test's
superuser: the existing tests then show that each role may do what its service does.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, field
from typing import Any

from belot_platform.dbroles import drop_roles, role_dsn, role_name
from belot_platform.settings import DB_ROLES
from commands.db import Layout, role_names, setup_on


@dataclass
class RoleKit:
    admin_dsn: str
    prefix: str = field(default_factory=lambda: f"t{uuid.uuid4().hex[:10]}")
    passwords: dict[str, str] = field(
        default_factory=lambda: {r: f"p{secrets.token_hex(16)}" for r in DB_ROLES}
    )
    _made: bool = False

    def name(self, role: str) -> str:
        return role_name(self.prefix, role)

    def dsn(self, role: str) -> str:
        """The URL service ``role`` connects with (its own user and password)."""
        return role_dsn(self.admin_dsn, self.name(role), self.passwords[role])

    async def setup(self, conn: Any, layout: Layout) -> None:
        """``belot db setup`` for ``layout`` on the admin's ``conn`` (the passwords are set
        the first time only: they do not change)."""
        await setup_on(conn, layout, self.prefix, {} if self._made else self.passwords)
        self._made = True

    async def drop(self, conn: Any) -> None:
        """Drop this kit's roles (services first, the owner last)."""
        await drop_roles(conn, reversed(role_names(self.prefix).values()))


def shared_layout(schema: str) -> Layout:
    """The layout the existing tests use: most things in the test's schema, the
    tournament's and the rating's tables in schemas of their own beside it."""
    return Layout(
        eventlog=schema,
        randomness=schema,
        gateway=schema,
        tournament=f"{schema}_t",
        rating=f"{schema}_rating",
        verify=schema,
    )


#: The session's kit when the tests run the services as their roles, else None.
CURRENT: RoleKit | None = None


async def prepare(pool: Any, schema: str) -> None:
    """In role mode, set ``schema`` (a test's own, made outside the ``schema`` fixture)
    up for the roles, as that fixture does."""
    if CURRENT is not None:
        async with pool.acquire() as conn:
            await CURRENT.setup(conn, shared_layout(schema))


async def drop_schemas(pool: Any, schema: str) -> None:
    """Drop every schema :func:`shared_layout` names for ``schema``."""
    layout = shared_layout(schema)
    for s in sorted({layout.eventlog, layout.tournament, layout.rating}):
        await pool.execute(f'DROP SCHEMA IF EXISTS "{s}" CASCADE')


def dsn_for(role: str, default: str) -> str:
    """Service ``role``'s URL in role mode, else ``default`` (the test's superuser)."""
    return default if CURRENT is None else CURRENT.dsn(role)
