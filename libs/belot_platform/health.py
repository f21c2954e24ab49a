"""The metrics that say whether a process's long-running work is alive.

Every long-running task (relay, log followers, timers, clocks, lease keepers, scans) runs
under the supervisor, which sets these: ``belot_task_up{task}`` is 1 while the task runs
and 0 while it is down (between a failure and its restart), and
``belot_task_restarts_total{task}`` counts its restarts after a failure. The alert rules
shipped in ``deploy/prometheus/alerts.yml`` and the status page read them.
"""

from __future__ import annotations

from typing import Final

from prometheus_client import Counter, Gauge

TASK_UP: Final = Gauge(
    "belot_task_up", "1 while a supervised task runs, 0 while it is down.", ["task"]
)
TASK_RESTARTS: Final = Counter(
    "belot_task_restarts_total", "Restarts of a supervised task after a failure.", ["task"]
)
