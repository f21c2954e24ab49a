"""Prometheus's own programs for the alert tests, and promtool's test files read back.

``promtool`` and ``prometheus`` are Debian's (the ``prometheus`` package; ``.ci/run``
installs it when promtool is missing). Away from CI a test that needs one skips, saying
how to install it; under CI (``CI=true``) it fails instead: the checks of the shipped
rules must not vanish quietly with a missing package.

:func:`replay` turns one of promtool's test groups (series in its expanding notation,
one sample per interval) into scrapes, target by target, as the status page would have
made them: the instance label is the target, ``up`` 0 is a failed scrape.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from belot_platform.alerts import Labels, Samples, job_of


def program(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """The path of Debian's ``name`` (promtool, prometheus); skips or, under CI, fails
    when it is not installed."""
    for candidate in (shutil.which(name), f"/usr/bin/{name}"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    how = f"{name} is not installed: apt-get install prometheus (Debian's package)"
    if environ.get("CI", "").lower() == "true":
        pytest.fail(f"{how}; under CI it must be (.ci/run installs it)")
    pytest.skip(how)


_SERIES = re.compile(r"(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>[^}]*)\})?")
_LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"([^"]*)"\s*,?')
_TOKEN = re.compile(r"(?P<start>_|[-+]?\d+(?:\.\d+)?)(?:(?P<step>[-+]\d+(?:\.\d+)?)?x(?P<n>\d+))?")


def parse_series(text: str) -> tuple[str, Labels]:
    """``name{a="b",...}`` -> name, sorted labels."""
    m = _SERIES.fullmatch(text.strip())
    assert m is not None, text
    labels = dict(_LABEL.findall(m["labels"] or ""))
    return m["name"], tuple(sorted(labels.items()))


def expand(values: str) -> list[float | None]:
    """promtool's expanding notation: ``a+bxn`` is a, a+b, ..., a+n*b (n+1 values),
    ``axn`` is a n+1 times, ``_`` a missing sample."""
    out: list[float | None] = []
    for token in values.split():
        m = _TOKEN.fullmatch(token)
        assert m is not None, f"notation not read here: {token!r}"
        count = int(m["n"]) + 1 if m["n"] is not None else 1
        if m["start"] == "_":
            out += [None] * count
            continue
        start, step = float(m["start"]), float(m["step"] or 0)
        out += [start + i * step for i in range(count)]
    return out


def seconds(duration: str) -> int:
    """A Prometheus duration (``90s``, ``2m``, ``1h``) in seconds."""
    m = re.fullmatch(r"(\d+)([smh])", duration)
    assert m is not None, duration
    return int(m[1]) * {"s": 1, "m": 60, "h": 3600}[m[2]]


def replay(group: Mapping[str, Any]) -> Iterator[tuple[int, dict[str, Samples | None]]]:
    """(time in seconds, scrape of every target) for each interval of a test group."""
    interval = seconds(group.get("interval", "1m"))
    series = []
    for s in group["input_series"]:
        name, labels = parse_series(s["series"])
        series.append((name, labels, expand(s["values"])))
    steps = max(len(values) for _, _, values in series)
    for step in range(steps):
        up: dict[str, bool] = {}
        samples: dict[str, dict[str, dict[Labels, float]]] = {}
        for name, labels, values in series:
            value = values[step] if step < len(values) else None
            if value is None:
                continue
            given = dict(labels)
            target = given.pop("instance")
            # The page names a target's job after it (table-2: table): so must the test.
            assert given.pop("job", job_of(target)) == job_of(target), labels
            if name == "up":
                up[target] = value == 1
                continue
            key = tuple(sorted(given.items()))
            samples.setdefault(target, {}).setdefault(name, {})[key] = value
            up.setdefault(target, True)
        yield step * interval, {t: samples.get(t, {}) if ok else None for t, ok in up.items()}
