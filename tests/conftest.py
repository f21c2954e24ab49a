"""Under CI (``CI=true``, which ``.ci/run`` sets) a skipped test fails.

A test skips here only when a program it needs is missing (Debian's chromium, promtool,
a Compose CLI). On a developer's machine that is a hint (the skip says what to install);
in CI it would be a test that never runs, so ``.ci/run`` installs those programs and a
skip that happens anyway fails the run, naming what was missing.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """The hard bot's solver compiled once, here, before any test process starts: on a
    fresh clone numba has no machine code cached (libs/belot/bots/__pycache__), and every
    xdist worker and every service process a test starts would otherwise compile it at
    once on its first solve, some 20 s of CPU each on a busy 2-core machine. A worker
    (``workerinput``) finds the cache its controller wrote."""
    if not hasattr(config, "workerinput"):
        from belot.bots.solver import prepare

        prepare()


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    if under_ci() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where every test must run: {reason}"
    return report
