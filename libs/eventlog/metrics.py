"""Prometheus metrics of the event log (default registry, created once at import)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

APPEND_SECONDS = Histogram(
    "belot_eventlog_append_seconds",
    "Time from an append call to its result (queueing, batch write, commit).",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
BATCH_EVENTS = Histogram(
    "belot_eventlog_batch_events",
    "Events written per group-commit transaction.",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
)
EVENTS_APPENDED = Counter("belot_eventlog_events_appended_total", "Events appended.")
TRANSLOG_ENTRIES = Counter(
    "belot_eventlog_translog_entries_total",
    "Transparency-log entries appended with their events.",
)
APPEND_CONFLICTS = Counter(
    "belot_eventlog_append_conflicts_total", "Appends refused for a wrong expected version."
)
APPEND_DUPLICATES = Counter(
    "belot_eventlog_append_duplicates_total", "Appends answered from an earlier identical command."
)
RELAY_PUBLISHED = Counter(
    "belot_eventlog_relay_published_total", "Events the outbox relay published to JetStream."
)
RELAY_POSITION = Gauge(
    "belot_eventlog_relay_position", "Last global position JetStream acknowledged to the relay."
)
RELAY_LAG = Gauge(
    "belot_eventlog_relay_lag_events", "Events appended but not yet published by the relay."
)
