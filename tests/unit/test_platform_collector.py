"""A service's collector (belot_platform.collector): what exists at start is frozen out
of full collections, the young generation is collected less often, and garbage made
before is collected, not frozen. Run in a child process: the test process's own
collector stays as Python sets it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import gc, json, weakref
from belot_platform import collector

class Node:
    pass

# A cycle that is garbage before tune(): collected, not frozen with the rest.
a, b = Node(), Node()
a.other, b.other = b, a
dead = weakref.ref(a)
del a, b
kept = [Node() for _ in range(1000)]
before = gc.get_freeze_count()
collector.tune()
print(json.dumps({
    "frozen_before": before,
    "frozen_after": gc.get_freeze_count(),
    "threshold": gc.get_threshold(),
    "cycle_collected": dead() is None,
    "kept_tracked": gc.is_tracked(kept[0]),
}))
"""


def test_tune_freezes_the_start_and_spaces_the_young_collections() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "libs")},
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["frozen_before"] == 0
    assert got["frozen_after"] > 1000  # the modules, classes and the objects kept
    assert got["threshold"][0] == 20_000
    assert got["cycle_collected"]
    assert got["kept_tracked"]
