"""Node.js for the tests that read the web client's modules as the browser runs them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")


def node_output(script: str) -> str:
    """What ``script`` (an ES module, run from the repository's root) writes."""
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        encoding="utf-8",
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
