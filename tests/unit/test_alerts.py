"""The alert rules (libs/belot_platform/alerts.py) and the rule file made from them.

- deploy/prometheus/alerts.yml is what tools/make_alerts.py writes from the rules;
  Prometheus's own checker accepts it, and prometheus.yml and the compose file load it.
- promtool's unit tests (tests/prometheus/alerts_test.yml) drive every alert with series
  and see it fire and resolve; the status page's own evaluation, fed the same series
  scrape by scrape, fires and resolves at the same times with the same summaries.
- Each rule's expression names only metrics the services export (or ``up``, which
  Prometheus makes).
"""

from __future__ import annotations

import copy
import importlib
import math
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY

from belot_platform import alerts
from belot_platform.alerts import (
    MAX_GAP_S,
    RULES,
    Evaluator,
    Gauge,
    Increase,
    Rule,
    Selector,
    Threshold,
    job_of,
    rules_document,
)
from belot_platform.settings import SERVICES, Settings
from services.gateway.status import targets
from tests.prometheus_tools import expand, program, replay, seconds

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
PROMETHEUS_YML = ROOT / "deploy" / "prometheus" / "prometheus.yml"
UNIT_TESTS = ROOT / "tests" / "prometheus" / "alerts_test.yml"
BY_NAME = {r.name: r for r in RULES}


# ---------------------------------------------------------------------- the rule file


def test_the_rule_file_and_the_runbook_are_written_from_the_rules() -> None:
    checked = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_alerts.py"), "--check"],
        capture_output=True,
        encoding="utf-8",
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert yaml.safe_load(ALERTS.read_text(encoding="utf-8")) == rules_document()


def test_a_stale_file_is_caught(tmp_path: Path) -> None:
    """--check compares with the files in the repository: a copy of the tool there whose
    rule file was edited by hand fails it."""
    copy_root = tmp_path / "repo"
    for part in ("tools/make_alerts.py", "docs/alerts.md", "deploy/prometheus/alerts.yml"):
        (copy_root / part).parent.mkdir(parents=True, exist_ok=True)
        (copy_root / part).write_text((ROOT / part).read_text(encoding="utf-8"), encoding="utf-8")
    (copy_root / "libs").symlink_to(ROOT / "libs")
    edited = copy_root / "deploy/prometheus/alerts.yml"
    edited.write_text(edited.read_text(encoding="utf-8").replace("> 60", "> 90"), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, str(copy_root / "tools" / "make_alerts.py"), "--check"],
        capture_output=True,
        encoding="utf-8",
    )
    assert checked.returncode == 1 and "deploy/prometheus/alerts.yml" in checked.stdout


def test_promtool_checks_the_rules_and_the_configuration_that_loads_them() -> None:
    promtool = program("promtool")
    rules = subprocess.run(
        [promtool, "check", "rules", str(ALERTS)], capture_output=True, encoding="utf-8"
    )
    assert rules.returncode == 0, rules.stdout + rules.stderr
    assert f"SUCCESS: {len(RULES)} rules found" in rules.stdout
    config = subprocess.run(
        [promtool, "check", "config", str(PROMETHEUS_YML)], capture_output=True, encoding="utf-8"
    )
    assert config.returncode == 0, config.stdout + config.stderr
    assert "1 rule files found" in config.stdout


def test_promtool_refuses_a_broken_rule(tmp_path: Path) -> None:
    promtool = program("promtool")
    doc = rules_document()
    doc["groups"][0]["rules"][0]["expr"] = "max(belot_randomness_oldest_due_seconds > 60"  # type: ignore[index]
    broken = tmp_path / "alerts.yml"
    broken.write_text(yaml.safe_dump(doc), encoding="utf-8")
    checked = subprocess.run([promtool, "check", "rules", str(broken)], capture_output=True)
    assert checked.returncode != 0


def test_prometheus_loads_the_rules_in_compose() -> None:
    config = yaml.safe_load(PROMETHEUS_YML.read_text(encoding="utf-8"))
    assert config["rule_files"] == ["alerts.yml"]  # beside prometheus.yml
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    volumes = compose["services"]["prometheus"]["volumes"]
    assert "./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro" in volumes
    assert "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in volumes
    # ... and the gateway's /status page asks it.
    gateway = compose["services"]["gateway"]["environment"]
    assert (
        Settings.from_env({"BELOT_PROMETHEUS_URL": gateway["BELOT_PROMETHEUS_URL"]}).prometheus_url
        == "http://prometheus:9090"
    )
    assert set(targets(Settings(), gateway["BELOT_STATUS_TARGETS"])) == set(SERVICES)


def test_every_rule_has_its_runbook_section() -> None:
    docs = (ROOT / "docs" / "alerts.md").read_text(encoding="utf-8")
    headings = {h.strip().lower() for h in re.findall(r"^### (\w+)$", docs, re.M)}
    assert {r.anchor for r in RULES} <= headings
    assert len({r.name for r in RULES}) == len(RULES)


# ---------------------------------------------------------------------- promtool's tests


def unit_tests() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(UNIT_TESTS.read_text(encoding="utf-8"))
    return loaded


def completed(tests: dict[str, Any]) -> dict[str, Any]:
    """The unit tests with every expected alert's fixed annotations filled in from the
    rules (promtool compares them all) and the rule file's absolute path."""
    done = copy.deepcopy(tests)
    done["rule_files"] = [str(ALERTS)]
    fixed = {r["alert"]: r["annotations"] for r in rules_document()["groups"][0]["rules"]}  # type: ignore[index]
    for group in done["tests"]:
        for case in group["alert_rule_test"]:
            for alert in case.get("exp_alerts") or []:
                given = alert.get("exp_annotations", {})
                alert["exp_annotations"] = {**fixed[case["alertname"]], **given}
    return done


def promtool_test(tests: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "alerts_test.yml"
    path.write_text(yaml.safe_dump(completed(tests), sort_keys=False), encoding="utf-8")
    return subprocess.run(
        [program("promtool"), "test", "rules", str(path)], capture_output=True, encoding="utf-8"
    )


def test_promtool_sees_each_alert_fire_and_resolve(tmp_path: Path) -> None:
    result = promtool_test(unit_tests(), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_a_wrong_expectation_fails_promtool(tmp_path: Path) -> None:
    """The check can fail: the stuck match's expected summary says 76 s, not 75."""
    tests = unit_tests()
    case = tests["tests"][0]["alert_rule_test"][1]
    alert = case["exp_alerts"][0]
    alert["exp_annotations"]["summary"] = alert["exp_annotations"]["summary"].replace("75", "76")
    result = promtool_test(tests, tmp_path)
    assert result.returncode != 0 and "FAILED" in result.stdout + result.stderr


def test_the_unit_tests_fire_and_resolve_every_rule() -> None:
    """Each rule is seen firing, and seen not firing after it fired."""
    fired: dict[str, int] = {}
    resolved: set[str] = set()
    for group in unit_tests()["tests"]:
        cases = sorted(group["alert_rule_test"], key=lambda c: seconds(c["eval_time"]))
        for case in cases:
            name, at = case["alertname"], seconds(case["eval_time"])
            if case.get("exp_alerts"):
                fired.setdefault(name, at)
            elif name in fired and at > fired[name]:
                resolved.add(name)
    assert set(fired) == set(BY_NAME), set(BY_NAME) - set(fired)
    assert resolved == set(BY_NAME), set(BY_NAME) - resolved


def expected(case: dict[str, Any]) -> set[tuple[tuple[tuple[str, str], ...], str]]:
    out = set()
    for alert in case.get("exp_alerts") or []:
        labels = {k: v for k, v in alert["exp_labels"].items() if k != "severity"}
        out.add((tuple(sorted(labels.items())), alert["exp_annotations"]["summary"]))
    return out


@pytest.mark.parametrize("group", unit_tests()["tests"], ids=lambda g: g["name"])
def test_the_status_page_judges_the_same_series_as_prometheus(group: dict[str, Any]) -> None:
    """promtool's series, scraped at each interval, judged by the page's own evaluation:
    the same alerts fire at the same times, with the same summaries."""
    evaluator = Evaluator()
    by_time = {}
    for at, scrapes in replay(group):
        by_time[at] = {s.rule.name: s for s in evaluator.observe(float(at), scrapes)}
    for case in group["alert_rule_test"]:
        at = seconds(case["eval_time"])
        assert at in by_time, f"{case['eval_time']} is not a scrape of the group"
        status = by_time[at][case["alertname"]]
        firing = {
            (a.labels, status.rule.render_summary(a.labels, a.value))
            for a in status.alerts
            if a.state == "firing"
        }
        assert firing == expected(case), (case["alertname"], case["eval_time"], status)


def test_the_expanding_notation_is_read_as_promtool_reads_it() -> None:
    assert expand("0+100x3 5 _ 3x2 -2-4x1") == [0, 100, 200, 300, 5, None, 3, 3, 3, -2, -6]


# ---------------------------------------------------------------------- exported metrics


def exported_metrics() -> set[str]:
    """The metric names in prometheus_client's registry once every module of the services
    and of the platform libraries they run on is imported (a counter by its ``_total``)."""
    import belot_platform
    import commands
    import drand
    import eventlog
    import services

    for package in (services, commands, belot_platform, eventlog, drand):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    names = set()
    for family in REGISTRY.collect():
        names.add(family.name)
        if family.type == "counter":
            names.add(f"{family.name}_total")
        names.update(sample.name for sample in family.samples)
    return names


def names_in(expr: str) -> set[str]:
    """The metric names in a PromQL expression: ours (``belot_...``) and ``up``."""
    return set(re.findall(r"\b(belot_[a-z_]+|up)\b", expr))


def test_each_rule_names_only_metrics_the_services_export() -> None:
    exported = exported_metrics() | {"up"}  # up: Prometheus makes it for every target
    assert "belot_no_such_metric_total" not in exported  # the check can fail
    for rule in RULES:
        named = names_in(rule.expr)
        assert named == alerts.metric_names(rule), rule.name  # the tokenizer sees them all
        assert named <= exported, (rule.name, named - exported)


def test_the_tokenizer_finds_names_in_expressions() -> None:
    expr = 'sum(increase(belot_a_total[5m])) / max(up{job!="x"}) > 0 and belot_b == 0'
    assert names_in(expr) == {"belot_a_total", "up", "belot_b"}


# ---------------------------------------------------------------------- local evaluation


STUCK = BY_NAME["BelotMatchStuck"]


def randomness(oldest_due: float) -> dict[str, Any]:
    return {"belot_randomness_oldest_due_seconds": {(): oldest_due}}


def test_no_data_is_unknown_not_ok() -> None:
    evaluator = Evaluator((STUCK,))
    [status] = evaluator.observe(0.0, {"randomness": None})  # its scrape failed
    assert status.state == "unknown" and "belot_randomness_oldest_due_seconds" in status.note
    [status] = evaluator.observe(1.0, {"randomness": randomness(3)})
    assert (status.state, status.value) == ("ok", 3)


def test_an_increase_needs_two_scrapes_and_reads_a_reset_as_growth() -> None:
    churn = BY_NAME["BelotLeaseChurn"]
    evaluator = Evaluator((churn,))

    def lost(n: float) -> dict[str, Any]:
        return {"table-1": {"belot_table_leases_lost_total": {(): n}}}

    [status] = evaluator.observe(0.0, lost(4))
    assert status.state == "unknown" and "two scrapes" in status.note
    [status] = evaluator.observe(5.0, lost(5))
    assert (status.state, status.value) == ("ok", 1)
    [status] = evaluator.observe(10.0, lost(2))  # the worker restarted: 2 since
    assert (status.state, status.value) == ("ok", 3)
    [status] = evaluator.observe(15.0, lost(6))
    assert (status.state, status.value) == ("firing", 7)
    [status] = evaluator.observe(15.0 + 600, lost(6))  # the window moved past them
    assert (status.state, status.value) == ("ok", 0)


def test_for_counts_from_the_first_evaluation_that_saw_it_and_restarts_after_a_gap() -> None:
    held = Rule(
        "Held", (Threshold(Gauge(Selector("g"), "max"), ">", 1),), 20, "warning", "count",
        "{value}", "", "", "",
    )  # fmt: skip
    evaluator = Evaluator((held,))
    high = {"t": {"g": {(): 5.0}}}
    assert evaluator.observe(0.0, high)[0].state == "pending"
    assert evaluator.observe(10.0, high)[0].state == "pending"
    assert evaluator.observe(20.0, high)[0].state == "firing"
    assert evaluator.observe(25.0, {"t": {"g": {(): 0.0}}})[0].state == "ok"
    assert evaluator.observe(30.0, high)[0].state == "pending"  # a new episode
    later = 30.0 + MAX_GAP_S + 1  # nobody looked in between: the clock starts again
    assert evaluator.observe(later, high)[0].state == "pending"


def test_a_rule_per_series_keeps_each_targets_labels() -> None:
    down = BY_NAME["BelotTaskDown"]
    evaluator = Evaluator((down,))
    scrapes = {
        "table-1": {"belot_task_up": {(("task", "relay"),): 0.0, (("task", "scan"),): 1.0}},
        "table-2": {"belot_task_up": {(("task", "relay"),): 1.0}},
    }
    [status] = evaluator.observe(0.0, scrapes)
    assert status.state == "pending"
    assert [a.labels for a in status.alerts] == [
        (("instance", "table-1"), ("job", "table"), ("task", "relay"))
    ]
    for at in range(15, down.for_s + 1, 15):  # seen at every evaluation for a minute
        [status] = evaluator.observe(float(at), scrapes)
    assert status.state == "firing"
    assert status.to_json()["summary"] == "Task relay is down on table-1"


def test_job_of_a_target() -> None:
    assert [job_of(t) for t in ("table-2", "table", "gateway", "table-x")] == [
        "table", "table", "gateway", "table-x"
    ]  # fmt: skip


def test_summaries_fill_in_as_prometheus_templates_do() -> None:
    restarting = BY_NAME["BelotTaskRestarting"]
    assert restarting.summary_template() == (
        "Task {{ $labels.task }} on {{ $labels.instance }} restarted "
        '{{ $value | printf "%.0f" }} times in 15 minutes'
    )
    labels = (("instance", "randomness"), ("task", "timers"))
    assert restarting.render_summary(labels, 4.2) == (
        "Task timers on randomness restarted 4 times in 15 minutes"
    )
    fallbacks = BY_NAME["BelotDrandFallbacks"]
    assert fallbacks.render_summary((), 1 / 3).startswith("33.33% of the matches")
    assert alerts.format_value(math.nan, "count") == "-"


def test_increase_and_share_render_to_promql() -> None:
    assert Increase(Selector("c_total", (("a", "b"),)), 90).promql() == (
        'sum(increase(c_total{a="b"}[90s]))'
    )
    assert BY_NAME["BelotServiceDown"].expr == 'up{job!="randomness"} == 0'
    assert BY_NAME["BelotDrandFallbacks"].expr.startswith(
        "sum(increase(belot_drand_fallbacks_total[30m])) / "
    )


def test_a_missing_promtool_fails_under_ci_and_skips_elsewhere() -> None:
    with pytest.raises(pytest.fail.Exception, match="under CI it must be"):
        program("no-such-promtool", {"CI": "true"})
    with pytest.raises(pytest.skip.Exception, match="apt-get install prometheus"):
        program("no-such-promtool", {})
