"""`belot run` with a configuration it cannot run with says so in one line and exits 2:
no traceback, nothing left running. As a newcomer meets it: the embedded stack (no
server URLs in the environment) and a data directory that will not do."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def belot_run(data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_")}
    env["BELOT_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "commands.cli", "run", "--no-demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )


@pytest.fixture
def closed_dir() -> Iterator[Path]:
    """A directory the PostgreSQL server's user cannot enter, in one everybody may: as
    root (the server then runs as an unprivileged user of its own), one only its owner
    may enter; as anyone else (the server runs as this user), one nobody may enter."""
    base = Path(tempfile.mkdtemp(prefix="belot-run-errors-"))
    base.chmod(0o755)
    closed = base / "closed"
    closed.mkdir()
    closed.chmod(stat.S_IRWXU if os.geteuid() == 0 else 0)
    yield closed
    closed.chmod(stat.S_IRWXU)
    shutil.rmtree(base)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_a_data_directory_the_server_user_cannot_enter(closed_dir: Path) -> None:
    done = belot_run(closed_dir / "data")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    last = error_lines(done.stderr)[-1]
    assert last.startswith("belot run: error: ")
    assert str(closed_dir) in last
    assert not (closed_dir / "data" / "pg" / "postmaster.pid").exists()


def test_a_data_directory_under_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    done = belot_run(blocker / "data")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = error_lines(done.stderr)
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("belot run: error: cannot use the data directory")
    assert str(blocker) in lines[0]
