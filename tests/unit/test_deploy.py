"""Deployment files: the k8s manifests pass Kubernetes' own schemas (kubernetes-validate
bundles them; no cluster runs here), the compose file is well-formed and, when a Compose
CLI is present (the docker plugin or `docker-compose`), its `config` accepts it and
refuses a broken copy; Prometheus scrapes every service."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from services.serve import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
K8S_VERSION = "1.30.0"


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_passes_the_kubernetes_schema(path: Path) -> None:
    docs = documents(path)
    assert docs
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == [p.name for p in MANIFESTS]


def test_a_broken_manifest_is_caught() -> None:
    doc = documents(K8S / "table.yaml")[0]
    doc["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def kinds() -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for p in MANIFESTS for d in documents(p)}


def test_every_service_is_deployed_with_probes() -> None:
    k = kinds()
    for name in REGISTRY:
        deploy = k[("Deployment", name)]
        container = deploy["spec"]["template"]["spec"]["containers"][0]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz", name
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", name
        assert ("PodDisruptionBudget", name) in k, name
    assert ("HorizontalPodAutoscaler", "table") in k


COMPOSE = ROOT / "docker-compose.yml"


def test_compose_runs_every_service_and_a_three_node_nats_cluster() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    for name in REGISTRY:
        assert name in services, name
    assert {"nats1", "nats2", "nats3", "postgres", "prometheus", "grafana"} <= set(services)
    # scalable: no fixed container name, no host port on the table workers
    assert "container_name" not in services["table"] and "ports" not in services["table"]


def compose_cli() -> list[str] | None:
    """The Compose command here: the docker CLI's plugin, else the standalone
    ``docker-compose`` (Debian's package); None when neither is installed."""
    if shutil.which("docker") is not None:
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    standalone = shutil.which("docker-compose")
    return [standalone] if standalone is not None else None


COMPOSE_CLI = compose_cli()
no_compose = pytest.mark.skipif(
    COMPOSE_CLI is None,
    reason="neither `docker compose` nor `docker-compose` here (apt-get install docker-compose)",
)


def compose_config(path: Path) -> subprocess.CompletedProcess[str]:
    assert COMPOSE_CLI is not None
    return subprocess.run(
        [*COMPOSE_CLI, "-f", str(path), "config", "--quiet"],
        capture_output=True,
        text=True,
        cwd=path.parent,
    )


@no_compose
def test_docker_compose_config_accepts_the_file() -> None:
    proc = compose_config(COMPOSE)
    assert proc.returncode == 0, proc.stderr


@no_compose
def test_docker_compose_config_refuses_a_broken_file(tmp_path: Path) -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    compose["services"]["table"]["depends_on"]["postgres"] = {"condition": "when_it_feels_like"}
    compose["services"]["table"]["healthcheck"] = {"interval": "five seconds"}
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(yaml.safe_dump(compose))
    proc = compose_config(broken)
    assert proc.returncode != 0
    assert "condition" in proc.stderr or "interval" in proc.stderr, proc.stderr


def test_prometheus_scrapes_every_service() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {j["job_name"] for j in config["scrape_configs"]}
    assert set(REGISTRY) <= jobs
