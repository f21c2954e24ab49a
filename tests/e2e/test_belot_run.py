"""`belot run` end to end, as an operator starts it: a subprocess on the embedded stack
(no server URLs in its environment), every service as its own process, the demo playing
bot tables of each ruleset. Then: every /healthz answers, each service connects to
PostgreSQL as its own role (set up by `belot run` itself, a password per run), the
metrics move, a finished match verifies through the verify API, every Grafana panel
queries a metric the services really export, /status shows it all, and SIGINT stops
everything, leaving no process behind."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from belot_platform.alerts import RULES
from commands.serve import REGISTRY
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "belot.json"
RULESETS = ("club", "classic", "french", "gambler")
SERVICES = tuple(REGISTRY)  # every service `belot run` starts


def get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError):
        return 0, b""  # not listening (yet)


def get_json(url: str) -> tuple[int, dict]:
    status, body = get(url)
    return status, json.loads(body) if body else {}


@dataclass
class Running:
    proc: subprocess.Popen[bytes]
    data_dir: Path
    ports: dict[str, int]
    log: Path

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"

    def children(self) -> list[int]:
        """Direct children of the supervisor (the services)."""
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(p) for p in path.read_text(encoding="utf-8").split()] if path.exists() else []


def exits_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (any process, not only a child) has exited, or exits within
    ``seconds``: its pidfd becomes readable when it does."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # gone already
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


def processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line or environment mentions ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            blob = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text(encoding="utf-8").split()[2]
        except OSError:
            continue
        if text.encode() in blob and state != "Z":
            found.append(int(entry.name))
    return found


def start(data_dir: Path, env_extra: dict[str, str], *args: str) -> Running:
    """`belot run` in a subprocess with a clean environment (no BELOT_ variable but
    ``env_extra``), every service on a free port, its output in the data directory."""
    ports = {s: free_port() for s in SERVICES}
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_")}
    env.update(
        {
            "BELOT_DATA_DIR": str(data_dir),
            # No internet here: the drand relays fail at once and matches fall back.
            "BELOT_DRAND_URLS": "http://127.0.0.1:9",
            **{f"BELOT_{s.upper()}_PORT": str(p) for s, p in ports.items()},
            **env_extra,
        }
    )
    log = data_dir / "belot-run.out"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "commands.cli", "run", *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Running(proc, data_dir, ports, log)


def kill_everything(r: Running) -> None:
    """After a test, whatever it left: `belot run` itself, and any process started
    under its data directory (services, embedded servers)."""
    if r.proc.poll() is None:
        r.proc.kill()
        r.proc.wait()
    for pid in processes_mentioning(str(r.data_dir)):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    # World-searchable, so the embedded PostgreSQL can run as its own user under root.
    data_dir = Path(tempfile.mkdtemp(prefix="belot-run-e2e-"))
    data_dir.chmod(0o755)
    embedded = {
        "BELOT_EMBEDDED_PG_PORT": "0",
        "BELOT_EMBEDDED_NATS_PORT": "0",
        "BELOT_SUBJECT_PREFIX": f"e2e{os.getpid()}",
    }
    # The bots at the pace the demo had before it played at a human's: the tests below
    # wait for a finished match of each ruleset.
    r = start(data_dir, embedded, "--demo-bot-delay-ms", "50")
    try:
        # Every test gets a platform that answers (none may rely on another having waited).
        wait_until(
            lambda: all(get(f"{r.url(s)}/healthz")[0] == 200 for s in SERVICES),
            120, "every /healthz", r,
        )  # fmt: skip
        yield r
    finally:
        kill_everything(r)
        shutil.rmtree(data_dir, ignore_errors=True)


def wait_until(predicate, timeout: float, what: str, running: Running) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running.proc.poll() is not None:
            raise AssertionError(
                f"belot run exited: {running.log.read_text(encoding='utf-8')[-3000:]}"
            )
        if predicate():
            return
        time.sleep(1)
    raise AssertionError(
        f"timed out waiting for {what}: {running.log.read_text(encoding='utf-8')[-3000:]}"
    )


def finished(running: Running, ruleset: str) -> list[dict]:
    status, body = get_json(f"{running.url('verify')}/v1/matches?ruleset={ruleset}&limit=5")
    return [m for m in body.get("matches", []) if m.get("revealed")] if status == 200 else []


def a_finished(running: Running, ruleset: str) -> dict:
    """A finished, revealed match of ``ruleset``, once the demo has played one (each test
    waits for its own: none relies on another having run first)."""
    wait_until(lambda: finished(running, ruleset), 420, f"a finished {ruleset} match", running)
    return finished(running, ruleset)[0]


def test_every_service_answers_healthz(running: Running) -> None:
    def all_up() -> bool:
        return all(get(f"{running.url(s)}/healthz")[0] == 200 for s in SERVICES)

    wait_until(all_up, 120, "every /healthz", running)
    for service in SERVICES:
        status, body = get_json(f"{running.url(service)}/healthz")
        assert status == 200 and body["status"] == "ok", service


def child_environments(running: Running) -> dict[str, dict[str, str]]:
    """The environment of each service the supervisor started, by the service's name."""
    out = {}
    for pid in running.children():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" not in argv:
            continue  # the embedded nats-server, also a child
        service = argv[argv.index(b"serve") + 1].decode()
        env = dict(e.decode().partition("=")[::2] for e in raw if b"=" in e)
        out[f"{service}-{pid}" if service in out else service] = env
    return out


def test_each_service_connects_as_its_own_database_role(running: Running) -> None:
    import asyncio
    from urllib.parse import urlsplit

    import asyncpg

    from belot_platform.embedded import running_postgres_dsn
    from belot_platform.settings import Settings

    wait_until(
        lambda: all(get(f"{running.url(s)}/healthz")[0] == 200 for s in SERVICES),
        120,
        "every /healthz",
        running,
    )
    envs = child_environments(running)
    assert {name.partition("-")[0] for name in envs} == set(SERVICES), sorted(envs)
    admin = running_postgres_dsn(Settings(data_dir=running.data_dir))
    assert admin is not None
    for name, env in envs.items():
        dsn = urlsplit(env["BELOT_PG_DSN"])
        service = name.partition("-")[0]
        assert dsn.username == f"belot_{service}" and dsn.password, name
        assert not any(k.endswith("_PASSWORD") and k.startswith("BELOT_PG_") for k in env)

    async def check() -> tuple[set[str], str | None]:
        conn = await asyncpg.connect(admin)
        try:
            users = {
                r[0]
                for r in await conn.fetch(
                    "SELECT DISTINCT usename FROM pg_stat_activity WHERE backend_type ="
                    " 'client backend' AND pid <> pg_backend_pid()"
                )
            }
        finally:
            await conn.close()
        # The embedded server wants each role's password (scram-sha-256 in its pg_hba).
        wrong = envs["gateway"]["BELOT_PG_DSN"].replace(
            urlsplit(envs["gateway"]["BELOT_PG_DSN"]).password or "", "wrong" * 4
        )
        try:
            await (await asyncpg.connect(wrong)).close()
        except asyncpg.InvalidPasswordError as exc:
            return users, type(exc).__name__
        return users, None

    users, refused = asyncio.run(check())
    assert {f"belot_{s}" for s in SERVICES} <= users, users
    assert refused == "InvalidPasswordError"


def test_the_demo_finishes_a_match_of_each_ruleset(running: Running) -> None:
    wait_until(
        lambda: all(finished(running, r) for r in RULESETS), 420, "a match of each ruleset", running
    )


def scrape(running: Running) -> dict[str, dict]:
    """metric family name -> {sample name: summed value}, over every service."""
    families: dict[str, dict] = {}
    for service in SERVICES:
        status, body = get(f"{running.url(service)}/metrics")
        assert status == 200, service
        for family in text_string_to_metric_families(body.decode()):
            seen = families.setdefault(family.name, {})
            for sample in family.samples:
                seen[sample.name] = seen.get(sample.name, 0.0) + sample.value
    return families


def metric(families: dict, family: str, sample: str) -> float:
    return float(families.get(family, {}).get(sample, 0.0))


def test_metrics_move(running: Running) -> None:
    moving = [
        ("belot_table_deals", "belot_table_deals_total"),
        ("belot_eventlog_events_appended", "belot_eventlog_events_appended_total"),
        ("belot_table_command_seconds", "belot_table_command_seconds_count"),
    ]
    before = scrape(running)

    def all_moved() -> bool:
        after = scrape(running)
        return all(metric(after, f, n) > metric(before, f, n) for f, n in moving)

    # Bot tables play a deal in seconds; a minute without one means the play stopped.
    wait_until(all_moved, 60, "the deal, event and command counters to move", running)
    after = scrape(running)
    assert (
        metric(after, "belot_randomness_matches_opened", "belot_randomness_matches_opened_total")
        >= 4
    )
    assert metric(after, "belot_drand_fallbacks", "belot_drand_fallbacks_total") >= 1


def test_a_finished_match_verifies_through_the_verify_api(running: Running) -> None:
    match = a_finished(running, "classic")
    status, report = get_json(
        f"{running.url('verify')}/v1/matches/{match['match_id']}/verification"
    )
    assert status == 200
    assert report["ok"] is True, [c for c in report["checks"] if c["status"] != "pass"]
    assert report["dealt_with_drand"] is False  # no internet here: the fallback


def test_belot_verify_by_default_checks_the_log_against_the_witness_belot_run_started(
    running: Running,
) -> None:
    # The check a third party runs by default, with no option: the log's key from the
    # API, the witnesses its operator configured (the one belot run started, in its own
    # process with its own key), and log_timing: the naming cosigned before the round
    # was due, by the witness's clock.
    match = a_finished(running, "classic")
    url = f"{running.url('verify')}/v1/matches/{match['match_id']}"
    witnesses = get_json(f"{running.url('verify')}/v1/log/witnesses")[1]["witnesses"]
    (ours,) = [w for w in witnesses if w["source"] == "configured"]
    assert ours["name"].startswith("belot-run-witness/")
    proc = subprocess.run(
        [sys.executable, "-m", "commands.cli", "verify", url],
        capture_output=True, encoding="utf-8", timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS  log_timing" in proc.stdout and ours["name"] in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("VERIFIED")


FUNCTIONS = {
    "sum", "rate", "increase", "histogram_quantile", "max", "min", "avg", "by", "le", "count",
    "without", "irate", "delta", "abs", "topk", "bottomk",
}  # fmt: skip


def dashboard_metrics() -> dict[str, set[str]]:
    """Each panel title -> the metric names its queries use."""
    out: dict[str, set[str]] = {}
    for panel in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]:
        for target in panel.get("targets", []):
            expr = re.sub(r"\{[^}]*\}", "", target["expr"])  # drop label matchers
            expr = re.sub(r"\[[^\]]*\]", "", expr)  # and ranges
            expr = re.sub(r"by \([^)]*\)", "", expr)  # and grouping labels
            names = {n for n in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr) if n not in FUNCTIONS}
            out.setdefault(panel["title"], set()).update(names)
    return out


def test_every_dashboard_panel_queries_an_exported_metric(running: Running) -> None:
    families = scrape(running)
    samples = {sample for seen in families.values() for sample in seen}

    def exported(name: str) -> bool:
        # A sample seen, or a family the services declare (a labelled metric with no
        # label values yet exposes its HELP and TYPE lines only).
        base = re.sub(r"_(total|bucket|count|sum|created)$", "", name)
        return name in samples or base in families

    assert not exported("belot_no_such_metric_total")  # the check can fail
    panels = dashboard_metrics()
    assert len(panels) >= 15
    missing = {t: [n for n in names if not exported(n)] for t, names in panels.items()}
    assert not {t: m for t, m in missing.items() if m}


def test_status_page_summarises_the_metrics(running: Running) -> None:
    url = f"{running.url('gateway')}/status?format=json"
    wait_until(lambda: get_json(url)[1].get("deals", 0) > 0, 120, "the demo's first deal", running)
    status, body = get_json(url)
    assert status == 200
    assert body["deals"] > 0 and body["events_appended"] > 0
    assert all(body["services"].values()), body["services"]
    # Every alert rule, judged by the gateway (belot run has no Prometheus): every
    # process answers its scrape and no match is stuck.
    states = {r["name"]: r["state"] for r in body["alerts"]["rules"]}
    assert set(states) == {r.name for r in RULES}
    assert body["alerts"]["from"] == "judged here from the services' /metrics"
    assert states["BelotServiceDown"] == states["BelotRandomnessDown"] == "ok", states
    assert states["BelotMatchStuck"] == "ok", states
    status, page = get(f"{running.url('gateway')}/status")
    assert status == 200 and b"belot status" in page and b"BelotMatchStuck" in page


def test_sigint_stops_everything(running: Running) -> None:
    children = running.children()
    assert len(children) >= len(SERVICES)  # two table workers, one of every other service
    running.proc.send_signal(signal.SIGINT)
    assert running.proc.wait(timeout=90) == 0

    # The supervisor waited for its services: none should be left. A straggler has a few
    # seconds to exit, waited for on its pidfd (readable once the process has exited).
    alive = [pid for pid in children if not exits_within(pid, 5.0)]
    assert not alive, alive
    # nothing started under the data directory either: no PostgreSQL, no nats-server
    assert not processes_mentioning(str(running.data_dir))


@pytest.fixture(scope="module")
def given_servers() -> Iterator[tuple[str, str]]:
    """Servers `belot run` is told to use: the environment's, else ones started here
    (as an operator's would be: not under the data directory `belot run` gets)."""
    pg, nats = os.environ.get("BELOT_PG_DSN"), os.environ.get("BELOT_NATS_URL")
    if pg and nats:
        yield pg, nats
        return
    from belot_platform.embedded import EmbeddedStack
    from belot_platform.settings import Settings

    base = Path(tempfile.mkdtemp(prefix="belot-given-"))
    base.chmod(0o755)
    stack = EmbeddedStack(Settings(embedded_pg_port=0, embedded_nats_port=0), base)
    try:
        yield stack.start_postgres(), stack.start_nats()
    finally:
        stack.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_with_server_urls_it_uses_those_servers(given_servers: tuple[str, str]) -> None:
    pg_dsn, nats_url = given_servers
    data_dir = Path(tempfile.mkdtemp(prefix="belot-run-urls-"))
    tag = f"urls{os.getpid()}"
    given = {
        "BELOT_PG_DSN": pg_dsn,
        "BELOT_NATS_URL": nats_url,
        "BELOT_PG_SCHEMA": f"{tag}_log",
        "BELOT_GATEWAY_SCHEMA": f"{tag}_gateway",
        "BELOT_RATING_SCHEMA": f"{tag}_rating",
        "BELOT_TOURNAMENT_SCHEMA": f"{tag}_tournament",
        "BELOT_RANDOMNESS_SCHEMA": f"{tag}_randomness",
        "BELOT_VERIFY_SCHEMA": f"{tag}_verify",
        # Roles are cluster-wide: this run's own (dropped below), not another's `belot_*`.
        "BELOT_PG_ROLE_PREFIX": tag,
        "BELOT_SUBJECT_PREFIX": tag,
        "BELOT_EVENTS_STREAM": f"{tag.upper()}_EVENTS",
        "BELOT_EVENTS_SUBJECT": f"{tag}.events",
    }
    r = start(data_dir, given, "--table-workers", "1")
    proc, log = r.proc, r.log
    try:
        wait_until(
            lambda: all(get(f"{r.url(s)}/healthz")[0] == 200 for s in SERVICES),
            120,
            "every /healthz",
            r,
        )

        def events_in_the_given_log() -> bool:
            status, body = get_json(f"{r.url('gateway')}/status?format=json")
            return status == 200 and body.get("events_appended", 0) > 0

        wait_until(events_in_the_given_log, 60, "the demo's first events", r)
        count = subprocess.run(
            [sys.executable, "-c", COUNT_EVENTS, pg_dsn, f"{tag}_log"],
            capture_output=True,
            encoding="utf-8",
            check=True,
        )
        assert int(count.stdout) > 0  # written to the given PostgreSQL, in its schema
        # Each service as its own role: belot run used the given URL as the admin's.
        envs = child_environments(r)
        assert {e["BELOT_PG_DSN"].split("//")[1].split(":")[0] for e in envs.values()} == {
            f"{tag}_{s}" for s in SERVICES
        }
        # Nothing embedded was started: no server data under the data directory.
        assert not (data_dir / "pg").exists() and not (data_dir / "nats").exists()
        assert "starting the embedded" not in log.read_text(encoding="utf-8")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=90) == 0
    finally:
        kill_everything(r)
        subprocess.run(
            [sys.executable, "-c", DROP_SCHEMAS, pg_dsn, tag], capture_output=True, check=False
        )
        shutil.rmtree(data_dir, ignore_errors=True)


COUNT_EVENTS = """
import asyncio, sys, asyncpg
async def main():
    conn = await asyncpg.connect(sys.argv[1])
    print(await conn.fetchval(f'SELECT count(*) FROM "{sys.argv[2]}".events'))
    await conn.close()
asyncio.run(main())
"""

DROP_SCHEMAS = """
import asyncio, sys, asyncpg
async def main():
    conn = await asyncpg.connect(sys.argv[1])
    for kind in ("log", "gateway", "rating", "tournament", "randomness", "verify"):
        await conn.execute(f'DROP SCHEMA IF EXISTS "{sys.argv[2]}_{kind}" CASCADE')
    from belot_platform.dbroles import drop_roles
    from commands.db import role_names
    await drop_roles(conn, reversed(role_names(sys.argv[2]).values()))
    await conn.close()
asyncio.run(main())
"""
