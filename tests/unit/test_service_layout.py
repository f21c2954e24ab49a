"""Every service has the same shape (docs/architecture.md, "Layers"): a newcomer who
knows one knows where everything is in the others.

- ``app.py``: the composition root, ``create_app(settings, ...)`` (the aiohttp app the
  tests build too) and ``main`` (``belot serve <name>``); no second name for the factory.
- ``handlers.py``: requests in, answers out.
- ``domain.py``: the service's pure glue: no coroutine, and neither it nor anything of
  the repository it imports brings in asyncio, asyncpg, nats or aiohttp.
- ``store.py``: the service's own tables.
- its main loop, where it has one, in a module named for what it runs
  (:data:`MAIN_LOOPS`), never in ``domain.py``.

A service that answers no request and keeps nothing of its own has only ``app.py``, and
says so in :data:`APP_ONLY`: the relay, whose whole work is a library's loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from tests.unit.test_import_graph import graph, modules

SERVICES_DIR = Path(__file__).resolve().parents[2] / "services"
SERVICES = sorted(p.parent.name for p in SERVICES_DIR.glob("*/__init__.py"))
FILES = ("app.py", "handlers.py", "domain.py", "store.py")
IO = ("asyncio", "asyncpg", "nats", "aiohttp")

#: The module that runs each service's long-lived work, or why it has none of its own.
MAIN_LOOPS: dict[str, str | None] = {
    "table": "worker.py",  # leases, claims, each owned table's driver
    "tournament": "engine.py",  # commands in sequence, clocks, results
    "rating": "consumer.py",  # follows the log, rates finished matches
    "randomness": "service.py",  # each match's timers, the drand rounds
    # serves requests; live.py fans the log out to WebSockets per request
    "gateway": None,
    # serves requests; its projection is fed by store.Projection.feed (a follower)
    "verify": None,
    # eventlog.relay.OutboxRelay: the loop is the event log's own
    "relay": None,
}
#: Services with nothing but their composition root, and why.
APP_ONLY: dict[str, str] = {
    "relay": "no requests (no handlers), no decisions (no domain), no tables (no store): "
    "it runs eventlog.relay.OutboxRelay with the platform's health, readiness and metrics",
}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_service_is_listed() -> None:
    assert sorted(MAIN_LOOPS) == SERVICES


def test_services_holds_services_alone() -> None:
    # The command line (belot run, serve, db, verify, ...) lives in commands/, above them.
    modules = sorted(p.name for p in SERVICES_DIR.glob("*.py"))
    assert modules == ["__init__.py"], modules
    packages = sorted(p.name for p in SERVICES_DIR.iterdir() if p.is_dir() and p.name[0] != "_")
    assert packages == SERVICES
    assert not [p for p in SERVICES_DIR.glob("*/cli.py")], "a command goes in commands/"


@pytest.mark.parametrize("service", SERVICES)
def test_the_service_has_the_four_files(service: str) -> None:
    wanted = ("app.py",) if service in APP_ONLY else FILES
    missing = [f for f in wanted if not (SERVICES_DIR / service / f).is_file()]
    assert not missing, f"services/{service}/ lacks {missing}"
    if service in APP_ONLY:  # and nothing pretends to be one of the others
        present = sorted(p.name for p in (SERVICES_DIR / service).glob("*.py"))
        assert present == ["__init__.py", "app.py"], present


@pytest.mark.parametrize("service", SERVICES)
def test_app_py_has_create_app_of_settings_and_main(service: str) -> None:
    tree = _tree(SERVICES_DIR / service / "app.py")
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "create_app" in functions, f"services/{service}/app.py: no create_app"
    args = functions["create_app"].args
    assert [a.arg for a in args.posonlyargs + args.args][:1] == ["settings"]
    assert "main" in functions
    aliases = [
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and isinstance(n.value, ast.Name) and n.value.id == "create_app"
    ]
    assert "build_app" not in functions and not aliases, "one name for the factory"


@pytest.mark.parametrize("service", [s for s in SERVICES if s not in APP_ONLY])
def test_domain_py_is_pure(service: str) -> None:
    path = SERVICES_DIR / service / "domain.py"
    tree = _tree(path)
    coroutines = [n.name for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef)]
    assert not coroutines, f"services/{service}/domain.py runs coroutines: {coroutines}"
    module = f"services.{service}.domain"
    reached = {module} | nx.descendants(graph(), module)
    known = modules()
    impure = {
        m: sorted(_imported(_tree(known[m])) & set(IO))
        for m in sorted(reached)
        if _imported(_tree(known[m])) & set(IO)
    }
    assert not impure, f"{module} brings in I/O through {impure}"


@pytest.mark.parametrize("service", [s for s, loop in MAIN_LOOPS.items() if loop])
def test_the_main_loop_has_its_own_module(service: str) -> None:
    loop = MAIN_LOOPS[service]
    assert loop is not None and loop != "domain.py"
    tree = _tree(SERVICES_DIR / service / loop)
    assert any(isinstance(n, ast.AsyncFunctionDef) for n in ast.walk(tree))
