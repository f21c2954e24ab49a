"""The verify service's own schema (``BELOT_VERIFY_SCHEMA``): its tables, their
migrations (:data:`COMPONENT`) and its role's privileges (:data:`PRIVILEGES`), and every
query the service makes of them, one module per part:

- :mod:`.projection`: the finished matches, the projection's position, the seats'
  receipts;
- :mod:`.facts`: the platform's facts across matches;
- :mod:`.translog`: the transparency log's checkpoints, cosignatures and witnesses;
- :mod:`.analyses`: the finished matches analysed double-dummy;
- :mod:`.fairplay`: the analysed matches' fair-play decisions;
- :mod:`.reads`: where the API reads (the replicas, or the primary).

What the service computes from them, and when, is in the modules of the same names one
level up; nothing there holds SQL or a connection (tests/unit/test_service_layout.py).
"""

from __future__ import annotations

from typing import Final, TypeAlias

import asyncpg

from eventlog.migrations import Component, Migration, apply
from services.verify.store.analyses import ANALYSES_MIGRATION, ANALYSES_PRIVILEGES, AnalysisStore
from services.verify.store.facts import FACTS_MIGRATION, FACTS_PRIVILEGES, FactStore
from services.verify.store.fairplay import (
    FAIRPLAY_METHOD_MIGRATION,
    FAIRPLAY_MIGRATION,
    FAIRPLAY_PRIVILEGES,
    FairPlayStore,
)
from services.verify.store.projection import (
    MATCHES_MIGRATION,
    MATCHES_PRIVILEGES,
    RECEIPTS_MIGRATION,
    RECEIPTS_PRIVILEGES,
    ProjectionStore,
)
from services.verify.store.reads import DB_ERRORS, ReadPool
from services.verify.store.translog import (
    REGISTRATIONS_MIGRATION,
    TRANSLOG_MIGRATION,
    TRANSLOG_PRIVILEGES,
    WITNESSES_MIGRATION,
    LogStore,
    Registrations,
)

__all__ = [
    "COMPONENT",
    "DB_ERRORS",
    "PRIVILEGES",
    "SCHEMA",
    "AnalysisStore",
    "FactStore",
    "FairPlayStore",
    "LogStore",
    "Pool",
    "ProjectionStore",
    "ReadPool",
    "Registrations",
    "UndefinedTableError",
    "migrate",
]

SCHEMA: Final = "verify"

#: The primary's pool, as the service's modules hand it to the store.
Pool: TypeAlias = asyncpg.Pool
#: A query named a table the schema does not hold: the event log's, before anything was
#: appended anywhere (the projection's feed waits for it, the signer signs nothing).
UndefinedTableError: Final = asyncpg.UndefinedTableError

# IF NOT EXISTS: schemas made before the migrations were versioned hold these already.
COMPONENT: Final = Component(
    "verify",
    "verify_migrations",
    (
        Migration(1, "finished matches, position", MATCHES_MIGRATION),
        Migration(2, "the platform's facts across matches", FACTS_MIGRATION),
        Migration(3, "the transparency log's checkpoints and cosignatures", TRANSLOG_MIGRATION),
        Migration(4, "the transparency log's registered witnesses", WITNESSES_MIGRATION),
        Migration(
            5,
            "per-witness cosignature lookups; registrations that expire, by client address",
            REGISTRATIONS_MIGRATION,
        ),
        Migration(6, "the seats' published seed receipts", RECEIPTS_MIGRATION),
        # Each finished match analysed double-dummy (services/verify/analyses.py): derived
        # data anyone recomputes from the record, kept so as not to solve again.
        Migration(7, "finished matches analysed double-dummy", ANALYSES_MIGRATION),
        # Each analysed match's card decisions against what each seat could know
        # (services/verify/fairplay.py): derived data, recomputed from the record.
        Migration(8, "fair-play decisions of the analysed matches, by seat", FAIRPLAY_MIGRATION),
        Migration(
            9,
            "fair-play decisions kept by the method that computed them",
            FAIRPLAY_METHOD_MIGRATION,
        ),
    ),
)

#: What the verify service's role may do (``belot db setup`` grants it): upsert and list
#: the finished matches; read and advance its position; keep the cross-match facts, the
#: log's checkpoints, the receipts, the analyses and the fair-play decisions.
PRIVILEGES: Final = {
    **MATCHES_PRIVILEGES,
    **FACTS_PRIVILEGES,
    **TRANSLOG_PRIVILEGES,
    **RECEIPTS_PRIVILEGES,
    **ANALYSES_PRIVILEGES,
    **FAIRPLAY_PRIVILEGES,
}


async def migrate(pool: Pool, schema: str) -> None:
    """Bring ``schema``'s tables up to :data:`COMPONENT`'s newest version."""
    async with pool.acquire() as conn:
        await apply(conn, COMPONENT, schema)
