"""`make up` and `make down` work with either Compose: Docker's plugin (`docker compose`)
when it answers, else the standalone `docker-compose` (Debian's package). Checked with
`make -n` (print, do not run) and a stand-in `docker` on the PATH that answers
`compose version` or not."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def dry_run(target: str, bin_dir: Path) -> list[str]:
    """The commands ``make -n target`` prints with nothing but ``bin_dir`` on the PATH
    (make itself found first, on the test's own PATH)."""
    make = shutil.which("make")
    assert make is not None, "make is needed to run the project at all"
    env = {**os.environ, "PATH": str(bin_dir)}
    done = subprocess.run(
        [make, "-n", "-s", target],
        cwd=ROOT,
        env=env,
        capture_output=True,
        encoding="utf-8",
        check=True,
    )
    return done.stdout.strip().splitlines()


def stand_in_docker(bin_dir: Path, *, has_plugin: bool) -> None:
    """A ``docker`` whose ``compose version`` succeeds only with the plugin."""
    script = bin_dir / "docker"
    status = 0 if has_plugin else 1
    script.write_text(f'#!/bin/sh\n[ "$1" = compose ] && exit {status}\nexit 0\n', encoding="utf-8")
    script.chmod(0o755)


@pytest.mark.parametrize(
    ("has_plugin", "compose"), [(True, "docker compose"), (False, "docker-compose")]
)
def test_make_up_and_down_use_the_compose_that_answers(
    tmp_path: Path, has_plugin: bool, compose: str
) -> None:
    stand_in_docker(tmp_path, has_plugin=has_plugin)
    assert dry_run("up", tmp_path) == [f"{compose} up -d --build"]
    assert dry_run("down", tmp_path) == [f"{compose} down"]


def test_without_docker_at_all_it_names_docker_compose(tmp_path: Path) -> None:
    assert dry_run("up", tmp_path) == ["docker-compose up -d --build"]
