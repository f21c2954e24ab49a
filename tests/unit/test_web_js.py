"""The web client's JavaScript tests (Node's test runner): the in-tab deck code against
the published deck vectors. Needs Node.js 20+, which the web client's tests need anyway."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the JavaScript tests need it")
def test_javascript_deck_code_passes_every_vector() -> None:
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "test")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
