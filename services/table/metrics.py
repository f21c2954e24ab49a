"""The table service's metrics, in one place: what the workers and their tables count.

Two gauges are read from the workers as Prometheus scrapes (nothing to keep in step):
``belot_tables_by_state`` and ``belot_table_randomness_wait_seconds``. A worker makes
itself known with :func:`watch`.
"""

from __future__ import annotations

import collections
import time
import weakref
from collections.abc import Iterator, Mapping
from typing import Protocol

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from table import state as table_state


class Owned(Protocol):
    """What the gauges read of a table."""

    @property
    def status(self) -> str: ...

    @property
    def waiting_since(self) -> float | None: ...


class Owner(Protocol):
    """What the gauges read of a worker: the tables it owns."""

    @property
    def tables(self) -> Mapping[str, Owned]: ...


#: The workers of this process.
_OWNERS: weakref.WeakSet[Owner] = weakref.WeakSet()


def watch(owner: Owner) -> None:
    """Count ``owner``'s tables in the gauges read at scrape time (until it is gone)."""
    _OWNERS.add(owner)


def _tables() -> list[Owned]:
    return [t for w in list(_OWNERS) for t in list(w.tables.values())]


class _TablesByState(Collector):
    """``belot_tables_by_state{state}``: the tables this process owns, by status."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "belot_tables_by_state", "Tables this worker owns, by state.", labels=["state"]
        )
        counts = collections.Counter(t.status for t in _tables())
        for state in (
            table_state.OPEN,
            table_state.DEALING,
            table_state.PLAYING,
            table_state.FINISHED,
            table_state.CLOSED,
        ):
            family.add_metric([state], counts.get(state, 0))
        yield family


REGISTRY.register(_TablesByState())

OWNED = Gauge("belot_tables_owned", "Tables this worker owns.")
COMMANDS = Histogram(
    "belot_table_command_seconds",
    "Time to decide and append one command (a player's, a bot's, the timer's, a deck).",
    ["by"],
    buckets=(
        *(0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05),
        *(0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0),
    ),
)
DEALS = Counter("belot_table_deals_total", "Deals scored at this worker's tables.")
CLAIMS = Counter("belot_table_claims_total", "Tables claimed, by how.", ["how"])
LOST = Counter("belot_table_leases_lost_total", "Tables dropped: lease lost or stale write.")
MATCHES = Counter("belot_table_matches_finished_total", "Matches ended, by how.", ["how"])
RANDOMNESS_WAIT = Gauge(
    "belot_table_randomness_wait_seconds",
    "The longest current wait of a table for the randomness service; 0 if none.",
)


def _longest_randomness_wait() -> float:
    """``belot_table_randomness_wait_seconds``, read from the tables as it is scraped."""
    now = time.monotonic()
    waits = [now - t.waiting_since for t in _tables() if t.waiting_since is not None]
    return max(waits, default=0.0)


RANDOMNESS_WAIT.set_function(_longest_randomness_wait)
