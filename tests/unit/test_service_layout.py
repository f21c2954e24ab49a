"""Every service has the same shape (docs/architecture.md, "Layers"): a newcomer who
knows one knows where everything is in the others.

- ``app.py``: the composition root, ``create_app(settings, ...)`` (the aiohttp app the
  tests build too) and ``main`` (``belot serve <name>``); no second name for the factory.
- ``handlers.py``: requests in, answers out. Where the service answers requests, they
  are declared there: its HTTP routes (aiohttp's route definitions) or its NATS
  subjects (``<prefix>.<service>...``, which no other module of the service writes:
  a client of its own, like the table's play-now matcher, asks handlers.py for one).
  It reaches no database.
- ``domain.py``: the service's pure glue: no coroutine, and neither it nor anything of
  the repository it imports brings in asyncio, asyncpg, nats or aiohttp.
- ``store.py``, or a package ``store/`` where one file would be too long: the service's
  own tables, and the one place that speaks to PostgreSQL. No other module of the
  service holds SQL (:data:`SQL` in a string) or calls ``fetch``, ``fetchrow``,
  ``fetchval``, ``execute``, ``executemany``, ``transaction`` or ``acquire`` on
  anything (a pool, a connection, a read pool), nor imports asyncpg, but ``app.py``,
  which builds the pools: what a service computes, and when, stays in its own modules
  and calls the store's methods, and a reader finds every query of a schema beside its
  migrations and privileges.
- its main loop, where it has one, in a module named for what it runs
  (:data:`MAIN_LOOPS`), never in ``domain.py``.

A service that answers no request and keeps nothing of its own has only ``app.py``, and
says so in :data:`APP_ONLY`: the relay, whose whole work is a library's loop.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

from tests.unit.test_import_graph import graph, modules

SERVICES_DIR = Path(__file__).resolve().parents[2] / "services"
SERVICES = sorted(p.parent.name for p in SERVICES_DIR.glob("*/__init__.py"))
FILES = ("app.py", "handlers.py", "domain.py", "store.py")
IO = ("asyncio", "asyncpg", "nats", "aiohttp")
#: SQL in a string: the statements a store runs and its migrations make.
SQL = re.compile(r"\b(SELECT|INSERT INTO|UPDATE [a-z{]|DELETE FROM|CREATE TABLE)\b")
#: The calls that run SQL or hold a connection (asyncpg's pool and connection, the
#: verify service's read pool).
DB_CALLS = frozenset(
    {"fetch", "fetchrow", "fetchval", "execute", "executemany", "transaction", "acquire"}
)
#: aiohttp's route definitions (``web.get(path, handler)``) and router registrations
#: (``app.router.add_get(path, handler)``).
ROUTE_DEFS = frozenset({"get", "post", "put", "patch", "delete", "head", "route", "view"})
ROUTE_ADDS = frozenset({f"add_{m}" for m in ROUTE_DEFS - {"view"}})

#: The module that runs each service's long-lived work, or why it has none of its own.
MAIN_LOOPS: dict[str, str | None] = {
    "table": "worker.py",  # leases, claims, each owned table's driver
    "tournament": "engine.py",  # commands in sequence, clocks, results
    "rating": "consumer.py",  # follows the log, rates finished matches
    "randomness": "service.py",  # each match's timers, the drand rounds
    # serves requests; live.py fans the log out to WebSockets per request
    "gateway": None,
    # serves requests; its projection is fed by projection.Projection.feed (a follower)
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


def _service_modules(service: str) -> list[Path]:
    return sorted((SERVICES_DIR / service).rglob("*.py"))


def _in_store(service: str, path: Path) -> bool:
    store = SERVICES_DIR / service / "store"
    return path == SERVICES_DIR / service / "store.py" or store in path.parents


def _strings(tree: ast.Module) -> list[ast.Constant]:
    """The string constants of ``tree`` that are not docstrings (the text an f-string
    holds between its fields included)."""
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _database_use(tree: ast.Module, *, pools: bool) -> list[str]:
    """Where ``tree`` speaks to PostgreSQL: SQL in a string, a call that runs it or holds
    a connection, an import of asyncpg (unless it builds ``pools``)."""
    found = [
        f"{n.lineno}: SQL {n.value.strip()[:50]!r}" for n in _strings(tree) if SQL.search(n.value)
    ]
    for n in ast.walk(tree):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in DB_CALLS
        ):
            found.append(f"{n.lineno}: {ast.unparse(n.func)}()")
    if not pools and "asyncpg" in _imported(tree):
        found.append("imports asyncpg")
    return found


def _subjects(service: str, tree: ast.Module) -> list[str]:
    """The service's own NATS subjects written in ``tree``: an f-string
    ``<prefix>.<service>...``, or a string ``belot.<service>...`` that names one."""
    own = re.compile(rf"\.{service}(\.|$)")
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.JoinedStr) and isinstance(n.values[0], ast.FormattedValue):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in n.values)
            if own.match(text.removeprefix("{}")):
                out.append(f"{n.lineno}: f{text!r}")
    return out


def _routes(tree: ast.Module) -> list[str]:
    """The HTTP routes declared in ``tree``: ``web.get(...)``, ``router.add_get(...)``."""
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args):
            continue
        f = n.func
        if (f.attr in ROUTE_DEFS and isinstance(f.value, ast.Name) and f.value.id == "web") or (
            f.attr in ROUTE_ADDS
        ):
            out.append(f"{n.lineno}: {ast.unparse(f)}")
    return out


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
    here = SERVICES_DIR / service
    package = (here / "store" / "__init__.py").is_file()
    missing = [f for f in wanted if not ((here / f).is_file() or (f == "store.py" and package))]
    assert not missing, f"services/{service}/ lacks {missing}"
    assert not ((here / "store.py").is_file() and package), "store.py or store/, not both"
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


@pytest.mark.parametrize("service", [s for s in SERVICES if s not in APP_ONLY])
def test_only_the_store_speaks_to_postgresql(service: str) -> None:
    """Outside ``store.py`` (or ``store/``): no SQL, no query or connection call, and no
    asyncpg but in ``app.py`` (the pools)."""
    found = {
        str(path.relative_to(SERVICES_DIR)): use
        for path in _service_modules(service)
        if not _in_store(service, path)
        for use in [_database_use(_tree(path), pools=path.name == "app.py")]
        if use
    }
    assert not found, f"services/{service}: the store's work outside it: {found}"


@pytest.mark.parametrize("service", [s for s in SERVICES if s not in APP_ONLY])
def test_handlers_py_declares_what_the_service_answers(service: str) -> None:
    """``handlers.py`` declares the requests: an HTTP route or a NATS subject of the
    service's own is written there, no subject of its own is written in another of its
    modules, and it reaches no database."""
    tree = _tree(SERVICES_DIR / service / "handlers.py")
    own = re.compile(rf"^belot\.{service}(\.|$)")
    declared = _routes(tree) + _subjects(service, tree)
    declared += [f"{n.lineno}: {n.value!r}" for n in _strings(tree) if own.match(n.value)]
    assert declared, f"services/{service}/handlers.py declares no route and no subject"
    elsewhere = {
        path.name: subjects
        for path in _service_modules(service)
        if path.name != "handlers.py"
        for subjects in [_subjects(service, _tree(path))]
        if subjects
    }
    assert not elsewhere, f"services/{service}: subjects written outside handlers.py: {elsewhere}"
    use = _database_use(tree, pools=False)
    assert not use, f"services/{service}/handlers.py reaches the database: {use}"
