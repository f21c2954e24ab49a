"""The way to run the platform on a cluster works as written: the README's build command
builds what compose builds (the same Dockerfile and context), and docs/operating.md's
kustomization, put beside the repository, points every container that runs the
platform's image at the pushed one and leaves the others alone."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
BUILD = ("README.md", "## Scaling")
KUSTOMIZE = ("docs/operating.md", "## Build and push the image")


def blocks(language: str, where: tuple[str, str]) -> list[str]:
    page, heading = where
    text = (ROOT / page).read_text(encoding="utf-8")
    text = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def build_block() -> str:
    return next(b for b in blocks("sh", BUILD) if "docker build" in b)


def containers(docs: list[dict]) -> list[dict]:
    out = []
    for d in docs:
        spec = d.get("spec", {})
        pod = spec.get("jobTemplate", {}).get("spec", spec).get("template", {}).get("spec", {})
        out += pod.get("containers", []) + pod.get("initContainers", [])
    return out


def test_the_build_command_builds_what_compose_builds() -> None:
    build = next(
        shlex.split(line) for line in build_block().splitlines() if line.startswith("docker build")
    )
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    built = compose["x-service"]["build"]
    assert build[build.index("-f") + 1] == built["dockerfile"]
    assert build[-1] == built["context"]
    tag = build[build.index("-t") + 1]
    assert f"docker push {tag}" in build_block()


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl (kustomize) here")
def test_the_kustomization_points_the_manifests_at_the_pushed_image(tmp_path: Path) -> None:
    overlay = yaml.safe_load(blocks("yaml", KUSTOMIZE)[0])
    assert overlay["resources"] == ["../deploy/k8s"]
    # Beside the repository, as the page says: the base is reached the same way.
    mine = tmp_path / "my-cluster"
    mine.mkdir()
    overlay["resources"] = [os.path.relpath(K8S, mine)]
    (mine / "kustomization.yaml").write_text(yaml.safe_dump(overlay), encoding="utf-8")
    built = subprocess.run(
        ["kubectl", "kustomize", str(mine)], capture_output=True, encoding="utf-8", timeout=60
    )
    assert built.returncode == 0, built.stderr
    images = [c["image"] for c in containers([d for d in yaml.safe_load_all(built.stdout) if d])]
    image = overlay["images"][0]
    pushed = f"{image['newName']}:{image['newTag']}"
    base = [
        c["image"]
        for p in sorted(K8S.glob("*.yaml"))
        for c in containers([d for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d])
    ]
    ours = base.count("belot-platform:latest")
    assert ours >= 7  # every service, the table workers and the db-setup Job
    assert images.count(pushed) == ours
    assert "belot-platform:latest" not in images
    assert sorted(i for i in images if i != pushed) == sorted(
        i for i in base if i != "belot-platform:latest"
    )
