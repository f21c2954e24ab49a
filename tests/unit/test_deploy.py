"""Deployment files: the k8s manifests pass Kubernetes' own schemas (kubernetes-validate
bundles them; no cluster runs here), the compose file is well-formed and, when the
docker CLI is present, `docker compose config` accepts it; Prometheus scrapes every
service."""

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


def has_compose() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not has_compose(), reason="no docker CLI with the compose plugin here")
def test_docker_compose_config_accepts_the_file() -> None:
    proc = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr


def test_prometheus_scrapes_every_service() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {j["job_name"] for j in config["scrape_configs"]}
    assert set(REGISTRY) <= jobs
