"""A worker's scan claims the open tables nobody holds a lease on, and never a table that
closes while it reads the two buckets (a claim of one loads its whole finished match)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from services.table.worker import TableWorker
from tests.fakenats import FakeNats


class Bucket:
    """A KV bucket's keys; ``after_read`` runs once, right after the first read."""

    def __init__(self, keys: set[str]) -> None:
        self.keys_now = set(keys)
        self.after_read: Callable[[], None] | None = None

    async def keys(self) -> list[str]:
        out = sorted(self.keys_now)
        hook, self.after_read = self.after_read, None
        if hook is not None:
            hook()
        return out


def worker_over(registry: Bucket, leases: Bucket) -> tuple[TableWorker, list[str]]:
    worker = TableWorker(FakeNats(), store=None)  # type: ignore[arg-type]
    worker.registry, worker.leases = registry, leases  # type: ignore[assignment]
    claimed: list[str] = []

    async def claim(table_id: str, how: str = "scan") -> bool:
        claimed.append(table_id)
        return True

    worker.claim = claim  # type: ignore[method-assign]
    return worker, claimed


@pytest.mark.parametrize("first_read", ["registry", "leases"])
def test_a_table_closing_during_the_scan_is_not_claimed(first_read: str) -> None:
    """However the reads fall around the close (the lobby's line goes, then the lease:
    services.table.worker.drop), the closing table is not claimed; the orphan is."""
    registry = Bucket({"open", "closing", "orphan"})
    leases = Bucket({"open", "closing"})

    def close() -> None:
        registry.keys_now.discard("closing")
        leases.keys_now.discard("closing")

    # The close lands right after the scan's first read of either bucket.
    (registry if first_read == "registry" else leases).after_read = close
    worker, claimed = worker_over(registry, leases)
    count = asyncio.run(worker.scan())
    assert claimed == ["orphan"] and count == 1
