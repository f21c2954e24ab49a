"""Deployment files: the k8s manifests pass Kubernetes' own schemas (kubernetes-validate
bundles them; no cluster runs here), the compose file is well-formed and, when a Compose
CLI is present (the docker plugin or `docker-compose`), its `config` accepts it and
refuses a broken copy; Prometheus scrapes every service; both deployments run NATS with
deploy/nats/auth.conf and give each service its own NATS user (what the users may do is
tests/integration/test_nats_permissions.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from belot_platform.embedded import nats_server_binary
from belot_platform.messaging import credentials
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
    resources = kustomization["resources"]
    assert sorted(r for r in resources if r != "../nats") == [p.name for p in MANIFESTS]
    assert "../nats" in resources  # the ConfigMap nats-config, from deploy/nats


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


# ---------------------------------------------------------------------- NATS users

NATS = ROOT / "deploy" / "nats"
AUTH = (NATS / "auth.conf").read_text()
#: The users of auth.conf and the environment variables their passwords come from.
NATS_USERS = dict(re.findall(r"\{ user: (\w+), password: \$(BELOT_NATS_\w+_PASSWORD),", AUTH))
#: Every service but verify, which does not use NATS, connects as its own user.
NATS_SERVICES = sorted(n for n in REGISTRY if n != "verify")


def test_every_service_that_uses_nats_has_a_user() -> None:
    assert sorted(NATS_USERS) == sorted([*NATS_SERVICES, "relay"])
    assert all(v == f"BELOT_NATS_{u.upper()}_PASSWORD" for u, v in NATS_USERS.items())


@pytest.mark.parametrize("config", ["nats.conf", "k8s.conf"])
def test_each_nats_configuration_loads_the_users(config: str) -> None:
    """Valid with every password set; refused, naming the variable, with one missing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_NATS_")}
    env |= {v: f"pw{u}" for u, v in NATS_USERS.items()} | {"POD_NAME": "nats-0"}

    def check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(nats_server_binary()), "-t", "-c", str(NATS / config)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    ok = check(env)
    assert ok.returncode == 0, ok.stderr
    del env[NATS_USERS["table"]]
    missing = check(env)
    assert missing.returncode != 0
    assert NATS_USERS["table"] in missing.stdout + missing.stderr


def test_compose_gives_each_service_its_nats_user() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    for node in ("nats1", "nats2", "nats3"):
        assert set(NATS_USERS.values()) <= set(services[node]["environment"]), node
        assert "./deploy/nats/auth.conf:/etc/nats/auth.conf:ro" in services[node]["volumes"]
    for name in NATS_SERVICES:
        url = services[name]["environment"]["BELOT_NATS_URL"]
        found = credentials(url)
        assert found is not None and found[0] == name, url
        assert f"${{{NATS_USERS[name]}:-" in url, url  # the nodes' variable
    assert credentials(services["verify"]["environment"]["BELOT_NATS_URL"]) is None


def test_k8s_gives_each_service_its_nats_user() -> None:
    k = kinds()
    secret = k[("Secret", "belot-nats")]["stringData"]
    assert set(secret) == set(NATS_USERS)
    nats = k[("StatefulSet", "nats")]["spec"]["template"]["spec"]["containers"][0]
    given = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in nats["env"]}
    for user, variable in NATS_USERS.items():
        assert given[variable] == {"name": "belot-nats", "key": user}, variable
    for name in NATS_SERVICES:
        container = k[("Deployment", name)]["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e for e in container["env"]}
        assert env["NATS_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
            "name": "belot-nats",
            "key": name,
        }
        url = env["BELOT_NATS_URL"]["value"]
        assert credentials(url) == (name, "$(NATS_PASSWORD)"), url
        # Kubernetes expands $(VAR) only for variables defined before.
        assert list(env).index("NATS_PASSWORD") < list(env).index("BELOT_NATS_URL")
    verify = k[("Deployment", "verify")]["spec"]["template"]["spec"]["containers"][0]
    assert "env" not in verify


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl (kustomize) here")
def test_kustomize_builds_the_nats_configuration_from_deploy_nats() -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(K8S)], capture_output=True, text=True, timeout=60
    )
    assert built.returncode == 0, built.stderr
    docs = [d for d in yaml.safe_load_all(built.stdout) if d]
    config = next(d for d in docs if d["metadata"]["name"].startswith("nats-config"))
    assert config["data"]["auth.conf"] == AUTH
    assert config["data"]["nats.conf"] == (NATS / "k8s.conf").read_text()
    nats = next(d for d in docs if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "nats")
    volumes = nats["spec"]["template"]["spec"]["volumes"]
    assert {"name": "config", "configMap": {"name": config["metadata"]["name"]}} in volumes
