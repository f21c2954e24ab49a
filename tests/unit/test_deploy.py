"""Deployment files: the k8s manifests pass Kubernetes' own schemas (kubernetes-validate
bundles them; no cluster runs here), the compose file is well-formed and, when a Compose
CLI is present (the docker plugin or `docker-compose`), its `config` accepts it with its
required variables set, refuses it without them, and refuses a broken copy; Prometheus
scrapes every service; both deployments run NATS with deploy/nats/auth.conf and give
each service its own NATS user (what the users may do is
tests/integration/test_nats_permissions.py) and its own database role, set up by `belot
db setup` as the superuser in a one-shot service or Job (what the roles may do is
tests/integration/test_db_roles.py); neither ships a secret a service would accept."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from belot_platform.embedded import nats_server_binary
from belot_platform.messaging import credentials
from belot_platform.settings import DB_ROLES, Settings, SettingsError
from commands.serve import REGISTRY
from translog import Cosigner, Ed25519Signer

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
K8S_VERSION = "1.30.0"


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_passes_the_kubernetes_schema(path: Path) -> None:
    docs = documents(path)
    assert docs
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
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
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
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


#: The variables the compose file requires (``${NAME:?...}``): every password and secret.
REQUIRED = sorted(set(re.findall(r"\$\{(\w+):\?", COMPOSE.read_text(encoding="utf-8"))))


def compose_config(
    path: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``config`` on ``path`` with only ``env`` (default: every required variable set)
    and no other BELOT_ variable of ours."""
    assert COMPOSE_CLI is not None
    given = {f: "p0123456789abcdef0123456789abcdef" for f in REQUIRED} if env is None else env
    base = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_")}
    return subprocess.run(
        [*COMPOSE_CLI, "-f", str(path), "config", "--quiet"],
        capture_output=True,
        encoding="utf-8",
        cwd=path.parent,
        env={**base, **given},
    )


@no_compose
def test_docker_compose_config_accepts_the_file() -> None:
    proc = compose_config(COMPOSE)
    assert proc.returncode == 0, proc.stderr


@no_compose
def test_docker_compose_config_refuses_the_file_without_its_secrets(tmp_path: Path) -> None:
    # A copy away from any .env beside the real file (compose would read it).
    copy = tmp_path / "docker-compose.yml"
    copy.write_text(COMPOSE.read_text(encoding="utf-8"), encoding="utf-8")
    assert compose_config(copy).returncode == 0
    for missing in (
        *("BELOT_TOKEN_SECRET", "BELOT_PG_ADMIN_PASSWORD", "BELOT_PG_TABLE_PASSWORD"),
        "BELOT_TRANSLOG_WITNESSES",
    ):
        env = {f: "p0123456789abcdef0123456789abcdef" for f in REQUIRED if f != missing}
        proc = compose_config(copy, env)
        assert proc.returncode != 0, missing
        assert f"set {missing}" in proc.stderr, proc.stderr


@no_compose
def test_docker_compose_config_refuses_a_broken_file(tmp_path: Path) -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    compose["services"]["table"]["depends_on"]["postgres"] = {"condition": "when_it_feels_like"}
    compose["services"]["table"]["healthcheck"] = {"interval": "five seconds"}
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(yaml.safe_dump(compose), encoding="utf-8")
    proc = compose_config(broken)
    assert proc.returncode != 0
    assert "condition" in proc.stderr or "interval" in proc.stderr, proc.stderr


def test_prometheus_scrapes_every_service() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text(encoding="utf-8"))
    jobs = {j["job_name"] for j in config["scrape_configs"]}
    assert set(REGISTRY) <= jobs


# ---------------------------------------------------------------------- NATS users

NATS = ROOT / "deploy" / "nats"
AUTH = (NATS / "auth.conf").read_text(encoding="utf-8")
#: The users of auth.conf and the environment variables their passwords come from.
NATS_USERS = dict(re.findall(r"\{ user: (\w+), password: \$(BELOT_NATS_\w+_PASSWORD),", AUTH))
#: Every service but verify, which does not use NATS, connects as its own user.
NATS_SERVICES = sorted(n for n in REGISTRY if n != "verify")


def test_every_service_that_uses_nats_has_a_user() -> None:
    assert sorted(NATS_USERS) == NATS_SERVICES
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
            encoding="utf-8",
            timeout=30,
        )

    ok = check(env)
    assert ok.returncode == 0, ok.stderr
    del env[NATS_USERS["table"]]
    missing = check(env)
    assert missing.returncode != 0
    assert NATS_USERS["table"] in missing.stdout + missing.stderr


def test_compose_gives_each_service_its_nats_user() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    for node in ("nats1", "nats2", "nats3"):
        assert set(NATS_USERS.values()) <= set(services[node]["environment"]), node
        assert "./deploy/nats/auth.conf:/etc/nats/auth.conf:ro" in services[node]["volumes"]
    for name in NATS_SERVICES:
        url = services[name]["environment"]["BELOT_NATS_URL"]
        found = credentials(url)
        assert found is not None and found[0] == name, url
        assert f"${{{NATS_USERS[name]}}}@" in url, url  # the nodes' variable, no default
        assert NATS_USERS[name] in REQUIRED, name
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
    assert not any("NATS" in e["name"] for e in verify.get("env", []))


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl (kustomize) here")
def test_kustomize_builds_the_nats_configuration_from_deploy_nats() -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(K8S)], capture_output=True, encoding="utf-8", timeout=60
    )
    assert built.returncode == 0, built.stderr
    docs = [d for d in yaml.safe_load_all(built.stdout) if d]
    config = next(d for d in docs if d["metadata"]["name"].startswith("nats-config"))
    assert config["data"]["auth.conf"] == AUTH
    assert config["data"]["nats.conf"] == (NATS / "k8s.conf").read_text(encoding="utf-8")
    nats = next(d for d in docs if d["kind"] == "StatefulSet" and d["metadata"]["name"] == "nats")
    volumes = nats["spec"]["template"]["spec"]["volumes"]
    assert {"name": "config", "configMap": {"name": config["metadata"]["name"]}} in volumes


# ---------------------------------------------------------------------- database roles

PG_USER = re.compile(r"^postgresql://(\w+):([^@]+)@postgres:5432/belot$")


def test_compose_gives_each_service_its_database_role() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    for name in REGISTRY:
        env = services[name]["environment"]
        user, password = PG_USER.match(env["BELOT_PG_DSN"]).groups()  # type: ignore[union-attr]
        assert user == f"belot_{name}", name
        assert password == f"${{BELOT_PG_{name.upper()}_PASSWORD}}", password
        assert services[name]["depends_on"]["db-setup"] == {
            "condition": "service_completed_successfully"
        }
        assert ("BELOT_TOKEN_SECRET" in env) == (name == "gateway"), name
    setup = services["db-setup"]
    assert setup["entrypoint"] == ["belot", "db", "setup"] and setup["restart"] == "no"
    assert setup["depends_on"]["postgres"] == {"condition": "service_healthy"}
    user, password = PG_USER.match(setup["environment"]["BELOT_PG_DSN"]).groups()  # type: ignore[union-attr]
    assert user == services["postgres"]["environment"]["POSTGRES_USER"]  # the superuser
    assert password == "${BELOT_PG_ADMIN_PASSWORD}"
    for role in DB_ROLES:
        assert f"BELOT_PG_{role.upper()}_PASSWORD" in setup["environment"], role
    # Only db-setup and PostgreSQL itself know the superuser's password.
    knows = {n for n, s in services.items() if "BELOT_PG_ADMIN_PASSWORD" in str(s)}
    assert knows == {"db-setup", "postgres"}


def test_compose_ships_no_usable_secret() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    defaults = dict(re.findall(r"\$\{(\w+):-([^}]*)\}", text))
    # Optional ones only, and empty: the previous token secret.
    assert defaults == {"BELOT_TOKEN_SECRET_PREVIOUS": ""}
    assert {"BELOT_TOKEN_SECRET", "BELOT_PG_ADMIN_PASSWORD"} <= set(REQUIRED)
    assert {f"BELOT_PG_{s.upper()}_PASSWORD" for s in REGISTRY} <= set(REQUIRED)
    assert set(NATS_USERS.values()) <= set(REQUIRED)
    for old in ("change-me-in-production", "compose-gateway", "belot:belot@"):
        assert old not in text, old
    # A ${VAR} without :? (in a URL) is one that is required elsewhere in the file.
    plain = set(re.findall(r"\$\{(\w+)\}", text))
    assert plain and plain <= set(REQUIRED), plain - set(REQUIRED)


def k8s_env(container: dict, k: dict) -> dict[str, str]:
    """A container's environment as Kubernetes would make it from the shipped files:
    the ConfigMaps and Secrets it reads, then ``env`` in order with $(VAR) expanded."""
    out: dict[str, str] = {}

    def secret(name: str, key: str) -> str | None:
        return k[("Secret", name)]["stringData"].get(key)

    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            out.update(k[("ConfigMap", source["configMapRef"]["name"])]["data"])
        if "secretRef" in source:
            out.update(k[("Secret", source["secretRef"]["name"])]["stringData"])
    for e in container.get("env", []):
        if "value" in e:
            out[e["name"]] = re.sub(r"\$\((\w+)\)", lambda m: out.get(m[1], m[0]), e["value"])
        else:
            ref = e["valueFrom"]["secretKeyRef"]
            value = secret(ref["name"], ref["key"])
            assert value is not None or ref.get("optional"), ref
            if value is not None:
                out[e["name"]] = value
    return out


def test_k8s_gives_each_service_its_database_role() -> None:
    k = kinds()
    for name in REGISTRY:
        container = k[("Deployment", name)]["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e for e in container["env"]}
        assert env["PG_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "belot-db", "key": name}
        assert env["BELOT_PG_DSN"]["value"] == (
            f"postgresql://belot_{name}:$(PG_PASSWORD)@postgres:5432/belot"
        )
        assert list(env).index("PG_PASSWORD") < list(env).index("BELOT_PG_DSN")
        # No Secret wholesale: each pod sees its own values only.
        assert all("secretRef" not in s for s in container.get("envFrom", [])), name
        refs = {e["valueFrom"]["secretKeyRef"]["name"] for e in env.values() if "valueFrom" in e}
        assert "belot-postgres" not in refs, name
        assert ("belot-secrets" in refs) == (name == "gateway"), name
    assert set(k[("Secret", "belot-db")]["stringData"]) == set(DB_ROLES)
    postgres = k[("StatefulSet", "postgres")]["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "belot-postgres", "key": "POSTGRES_PASSWORD"} in [
        e.get("valueFrom", {}).get("secretKeyRef") for e in postgres["env"]
    ]


def test_k8s_runs_belot_db_setup_as_the_superuser_in_a_job() -> None:
    k = kinds()
    job = k[("Job", "belot-db-setup")]["spec"]["template"]["spec"]
    container = job["containers"][0]
    assert container["command"] == ["belot", "db", "setup"]
    assert job["restartPolicy"] == "OnFailure"
    env = k8s_env(container, k)
    postgres = k[("StatefulSet", "postgres")]["spec"]["template"]["spec"]["containers"][0]
    superuser = next(e["value"] for e in postgres["env"] if e["name"] == "POSTGRES_USER")
    password = k[("Secret", "belot-postgres")]["stringData"]["POSTGRES_PASSWORD"]
    assert env["BELOT_PG_DSN"] == f"postgresql://{superuser}:{password}@postgres:5432/belot"
    db = k[("Secret", "belot-db")]["stringData"]
    for role in DB_ROLES:
        assert env[f"BELOT_PG_{role.upper()}_PASSWORD"] == db[role], role


def k8s_files(pod: dict, container: dict, k: dict, root: Path) -> dict[str, Path]:
    """The Secrets a container mounts, written under ``root`` as Kubernetes would
    project them: each mount path, and where its files are here."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    out = {}
    for mount in container.get("volumeMounts", []):
        secret = volumes[mount["name"]].get("secret")
        if secret is None:
            continue
        here = root / mount["name"]
        here.mkdir(parents=True, exist_ok=True)
        for key, value in k[("Secret", secret["secretName"])]["stringData"].items():
            (here / key).write_text(value, encoding="utf-8")
        out[mount["mountPath"]] = here
    return out


def in_files(env: dict[str, str], files: dict[str, Path]) -> dict[str, str]:
    """``env`` with each path into a mounted Secret pointed at its copy here."""
    out = dict(env)
    for name, value in env.items():
        for mount, here in files.items():
            if value.startswith(mount + "/"):
                out[name] = str(here / value.removeprefix(mount + "/"))
    return out


def test_every_k8s_secret_ships_as_a_placeholder_refused_at_start(tmp_path: Path) -> None:
    """As shipped, no pod of ours starts: each refuses its placeholder in one line."""
    k = kinds()
    pods = {name: k[("Deployment", name)] for name in REGISTRY}
    pods["belot-db-setup"] = k[("Job", "belot-db-setup")]
    for name, doc in pods.items():
        pod = doc["spec"]["template"]["spec"]
        files = k8s_files(pod, pod["containers"][0], k, tmp_path / name)
        env = in_files(k8s_env(pod["containers"][0], k), files)
        with pytest.raises(SettingsError) as refused:
            Settings.from_env(env)
        assert "placeholder" in str(refused.value) and "\n" not in str(refused.value), name
        # ... and with its secrets replaced by real ones, it would.
        real = {
            key: re.sub(r"change-me[\w-]*", "p0123456789abcdef0123456789abcdef", value)
            for key, value in env.items()
        }
        if "BELOT_TRANSLOG_WITNESSES" in env:  # the verify pod: a witness's vkey
            real["BELOT_TRANSLOG_WITNESSES"] = Cosigner("w.example/w1", bytes(32)).vkey
        for here in files.values():
            for path in here.iterdir():
                path.write_text(real_secret(path.name, env), encoding="utf-8")
        Settings.from_env(real)


def real_secret(name: str, env: dict[str, str]) -> str:
    """What an operator puts in a mounted Secret's file in place of its placeholder."""
    if name == "translog-key":
        origin = env.get("BELOT_TRANSLOG_ORIGIN", "belot.localhost/log")
        return Ed25519Signer(origin, bytes(range(32))).skey + "\n"
    return "p0123456789abcdef0123456789abcdef"


# ---------------------------------------------------------------------- the log's key


def test_k8s_gives_every_verify_replica_the_same_log_key_from_a_secret(tmp_path: Path) -> None:
    k = kinds()
    deploy = k[("Deployment", "verify")]
    pod = deploy["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    # From a file of a Secret (not made in the pod: it would be gone with it, and each
    # replica would sign with a key of its own), never in the environment.
    assert "BELOT_TRANSLOG_KEY" not in env
    path = env["BELOT_TRANSLOG_KEY_FILE"]["value"]
    (mount,) = container["volumeMounts"]
    assert mount["readOnly"] and path.startswith(mount["mountPath"] + "/")
    volume = {v["name"]: v for v in pod["volumes"]}[mount["name"]]
    assert volume["secret"]["secretName"] == "belot-translog"
    assert deploy["spec"]["replicas"] > 1  # which is why the key is shared, not made
    # Readable by the pod's user through its group, by nobody else; written by nobody.
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"]
    assert volume["secret"]["defaultMode"] == 0o440
    file = path.removeprefix(mount["mountPath"] + "/")
    assert set(k[("Secret", "belot-translog")]["stringData"]) == {file}
    # Settings read it from the file: the shipped placeholder is refused, a key is used.
    local = k8s_files(pod, container, k, tmp_path)[mount["mountPath"]] / file
    origin = env["BELOT_TRANSLOG_ORIGIN"]["value"]
    given = {"BELOT_TRANSLOG_ORIGIN": origin, "BELOT_TRANSLOG_KEY_FILE": str(local)}
    with pytest.raises(SettingsError, match="placeholder"):
        Settings.from_env(given)
    key = Ed25519Signer(origin, bytes(range(32)))
    local.write_text(key.skey + "\n", encoding="utf-8")
    assert Settings.from_env(given).translog_key == key.skey


def test_the_deployments_do_not_run_a_log_nobody_watches(tmp_path: Path) -> None:
    """Issue 28, case 7: the log's witnesses are not optional in a deployment. Compose
    requires BELOT_TRANSLOG_WITNESSES (no default); k8s ships a placeholder the verify
    service refuses at start; a witness's vkey is taken (and a log key is not one)."""
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    given = compose["services"]["verify"]["environment"]["BELOT_TRANSLOG_WITNESSES"]
    assert given.startswith("${BELOT_TRANSLOG_WITNESSES:?set BELOT_TRANSLOG_WITNESSES"), given
    assert "BELOT_TRANSLOG_WITNESSES" in REQUIRED
    env = {e["name"]: e for e in kinds()[("Deployment", "verify")]["spec"]["template"]["spec"]
           ["containers"][0]["env"]}  # fmt: skip
    shipped = env["BELOT_TRANSLOG_WITNESSES"]["value"]
    with pytest.raises(SettingsError, match=r"BELOT_TRANSLOG_WITNESSES: .* placeholder"):
        Settings.from_env({"BELOT_TRANSLOG_WITNESSES": shipped})
    witness = Cosigner("witness.example/w1", bytes(range(32)))
    taken = Settings.from_env({"BELOT_TRANSLOG_WITNESSES": witness.vkey})
    assert taken.translog_witnesses == (witness.vkey,)
    log_key = Ed25519Signer("belot.example/log", bytes(range(32))).vkey
    with pytest.raises(SettingsError, match="not a witness"):
        Settings.from_env({"BELOT_TRANSLOG_WITNESSES": log_key})


def test_compose_keeps_the_log_key_on_a_volume() -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    verify = compose["services"]["verify"]
    data_dir = verify["environment"]["BELOT_DATA_DIR"]
    # The key is made at the first start in the data directory: a named volume keeps it
    # when the container is recreated (docker compose down / up, a new image).
    assert f"verify-data:{data_dir}" in verify["volumes"]
    assert "verify-data" in compose["volumes"]
    assert "BELOT_TRANSLOG_KEY" not in verify["environment"]
    # The image makes that directory its user's, which a new named volume inherits.
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(rf"mkdir -p {re.escape(data_dir)}\b", dockerfile)
    assert re.search(rf"chown belot [^\n]*{re.escape(data_dir)}\b", dockerfile)
    assert "\nUSER belot\n" in dockerfile


# ---------------------------------------------------------------------- CloudNativePG

CNPG = ROOT / "deploy" / "k8s-cnpg"
#: Kinds of CloudNativePG's CRDs: Kubernetes' own schemas do not know them, so the tests
#: below check their structure instead (every other document is validated as above).
CNPG_KINDS = {("postgresql.cnpg.io/v1", "Cluster")}


def cnpg_documents() -> list[dict]:
    return [d for p in sorted(CNPG.glob("*.yaml")) if p.name != "kustomization.yaml"
            for d in documents(p)]  # fmt: skip


def test_the_cnpg_overlay_lists_its_manifests_and_validates_all_but_the_crd() -> None:
    kustomization = yaml.safe_load((CNPG / "kustomization.yaml").read_text(encoding="utf-8"))
    own = sorted(p.name for p in CNPG.glob("*.yaml") if p.name != "kustomization.yaml")
    assert kustomization["resources"] == ["../k8s", *own]
    crds = 0
    for doc in cnpg_documents():
        if (doc["apiVersion"], doc["kind"]) in CNPG_KINDS:
            crds += 1
            continue
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    assert crds == 1


def test_the_cnpg_cluster_has_a_synchronous_replica_and_its_secrets() -> None:
    docs = {(d["kind"], d["metadata"]["name"]): d for d in cnpg_documents()}
    cluster = docs[("Cluster", "belot-pg")]
    spec = cluster["spec"]
    assert cluster["metadata"]["namespace"] == "belot"
    assert spec["instances"] >= 3
    assert 1 <= spec["minSyncReplicas"] <= spec["maxSyncReplicas"] < spec["instances"]
    assert spec["bootstrap"]["initdb"]["database"] == "belot"
    assert spec["storage"]["size"] and spec["walStorage"]["size"]
    # The secrets it names are shipped, as basic-auth placeholders.
    for name in (spec["superuserSecret"]["name"], spec["bootstrap"]["initdb"]["secret"]["name"]):
        secret = docs[("Secret", name)]
        assert secret["type"] == "kubernetes.io/basic-auth"
        assert secret["stringData"]["password"].startswith("change-me"), name
    assert docs[("Secret", spec["superuserSecret"]["name"])]["stringData"]["username"] == (
        "postgres"
    )


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl (kustomize) here")
def test_kustomize_builds_the_cnpg_overlay_with_postgres_as_primary_and_verify_reading_ro() -> None:
    built = subprocess.run(
        ["kubectl", "kustomize", str(CNPG)], capture_output=True, encoding="utf-8", timeout=60
    )
    assert built.returncode == 0, built.stderr
    docs = [d for d in yaml.safe_load_all(built.stdout) if d]
    by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    assert ("StatefulSet", "postgres") not in by
    assert ("Cluster", "belot-pg") in by
    service = by[("Service", "postgres")]["spec"]
    assert service["type"] == "ExternalName"
    assert service["externalName"] == "belot-pg-rw.belot.svc.cluster.local"
    for doc in docs:
        if (doc["apiVersion"], doc["kind"]) not in CNPG_KINDS:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    # Every service still writes through `postgres` (the primary); the setup Job runs as
    # the Cluster's superuser.
    for name in REGISTRY:
        container = by[("Deployment", name)]["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e for e in container["env"]}
        assert "@postgres:5432/belot" in env["BELOT_PG_DSN"]["value"], name
        # Only verify reads from the replicas, as its own role with its own password.
        assert ("BELOT_VERIFY_READ_DSN" in env) == (name == "verify"), name
    verify = by[("Deployment", "verify")]["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in verify["env"]}
    write, read = (
        urlsplit(env["BELOT_PG_DSN"]["value"]),
        urlsplit(env["BELOT_VERIFY_READ_DSN"]["value"]),
    )
    assert write.hostname == "postgres" and read.hostname == "belot-pg-ro"
    assert service["externalName"].startswith("belot-pg-rw.")  # postgres is the primary
    assert (read.username, read.password, read.path) == (write.username, write.password, write.path)
    assert read.username == "belot_verify" and read.password == "$(PG_PASSWORD)"
    assert env["PG_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "belot-db", "key": "verify"}
    # Declared after the password it names (Kubernetes expands $(VAR) from earlier ones).
    names = [e["name"] for e in verify["env"]]
    assert names.index("PG_PASSWORD") < names.index("BELOT_VERIFY_READ_DSN")
    job = by[("Job", "belot-db-setup")]["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in job["env"]}
    assert env["PG_ADMIN_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "belot-pg-superuser", "key": "password"
    }  # fmt: skip
    assert env["BELOT_PG_DSN"]["value"] == (
        "postgresql://postgres:$(PG_ADMIN_PASSWORD)@belot-pg-rw:5432/belot"
    )


def test_the_image_compiles_the_solver_where_its_user_may_write() -> None:
    """Numba keeps the hard bot's machine code in NUMBA_CACHE_DIR (site-packages is
    root's); the image compiles it at build, as the service's user, after setting it."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    user = dockerfile.index("\nUSER belot\n")
    cache = re.search(r"NUMBA_CACHE_DIR=(/app/\S+)", dockerfile)
    assert cache is not None and cache.start() > user  # under /app, the user's home
    assert re.search(r"useradd [^\n]*--home /app\b", dockerfile)
    warm = dockerfile.index("from belot.bots.solver import prepare; prepare()")
    assert warm > cache.start()
