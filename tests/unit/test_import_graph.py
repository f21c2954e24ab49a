"""The import graph: which module may import which, and no circles (docs/architecture.md,
"Dependencies flow one way").

Every module of the repository (libs, services, bench, tools, tests) is parsed with
:mod:`ast`; every import counts, wherever it is written: at the top, inside a function,
under ``if TYPE_CHECKING:``. A lazy import or a type-only one is still a dependency: it
breaks when the module it names moves, and a pair of modules that import each other
lazily is still a circle a reader has to hold in mind at once.

An import names a module of the repository when it resolves to one: ``from a import b``
is an edge to ``a.b`` when that is a module, else to ``a``; ``import a.b`` is an edge to
``a.b``. The packages above the target (``a`` for ``a.b``) run first but are not counted.

Two checks:

- the layers (:data:`LAYERS`): a module may import a module of a lower layer, or one of
  its own row; never one of a higher layer, nor a row beside it on the same layer. Every
  module must fall in a row: a new package is placed here on purpose.
- no cycle among modules at all (strongly connected components of the graph).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The layers, lowest first: (layer, row, what it holds). A row is a module prefix; a
#: module belongs to the longest row that prefixes it. ``services.*`` stands for one row
#: per service package (``services.gateway``, ``services.table``, ...): services sit
#: beside each other and never import one another. docs/architecture.md shows the same
#: table.
LAYERS: tuple[tuple[int, str, str], ...] = (
    (0, "eventkit", "events declared one way, and the one codec that stores them"),
    (0, "fairdeal.chains", "the pinned drand chains and their round/time arithmetic"),
    (1, "belot", "the game: rulesets, rules, scoring, the match, views, codec, bots"),
    (1, "fairdeal.draw", "a tournament's draw: the seed order from a drand value, the round"),
    (2, "fairdeal", "the recipe, commitments, fairness windows, the event chain"),
    (2, "table", "a table's events and the state they fold into, seat views as JSON"),
    (2, "rating", "ratings: OpenSkill, eligibility, leaderboards"),
    (2, "tournament", "the four formats, pairings, standings"),
    (2, "translog", "the transparency log's tree, tiles, checkpoints and notes"),
    (3, "fairdeal.record", "the match record: the events a verifier is handed"),
    (3, "fairdeal.simulate", "whole matches between bots on the recipe's decks"),
    (4, "fairdeal.verifier.report", "the verifier's report: checks, differences, verdicts"),
    (4, "fairdeal.logentries", "the transparency log's entries, read from the log's events"),
    (5, "fairdeal.verifier.context", "one verification: the record decoded once, for every check"),
    (5, "fairdeal.drawcheck", "a tournament's draw checked from its public events"),
    (6, "fairdeal.verifier.evidence", "checks: the hash chains, the events, the summary"),
    (6, "fairdeal.verifier.seeds", "checks: the commitment, the seats' seeds, the reveal"),
    (6, "fairdeal.verifier.beacon", "checks: drand's round, value or fallback, and signature"),
    (6, "fairdeal.verifier.deals", "checks: the decks, each seat's cards, the first dealer"),
    (6, "fairdeal.verifier.replay", "checks: the play, the score, the ending"),
    (6, "fairdeal.verifier.wholelog", "checks only the whole log answers, from its answers"),
    (7, "fairdeal.verifier", "the verifier: every check of a match record, in order"),
    (8, "belot_platform", "settings, embedded servers, NATS helpers, the app factory, logs"),
    (8, "fairdeal.analysis", "a match record analysed double-dummy, once it verifies"),
    (8, "drand", "drand beacons: BLS verification, the HTTP client, the local relay"),
    (9, "eventlog", "the event log on PostgreSQL and its outbox relay"),
    (10, "services.*", "one service: its app, handlers, domain, store, main loop"),
    (11, "commands.translog_client", "a client of the transparency log's public API"),
    (12, "commands.logcheck", "the transparency log's checks of a match record"),
    (13, "commands.serve", "`belot serve`: the registry of services"),
    (13, "commands.db", "`belot db`: every component's migrations and roles"),
    (13, "commands.drand_cmd", "`belot drand`"),
    (13, "commands.verify_cmd", "`belot verify`: the verifier on the command line"),
    (13, "commands.witness_cmd", "`belot witness`: a witness of the transparency log"),
    (13, "commands.log_audit", "`belot log audit`: the transparency log's monitor"),
    (13, "commands.rating_cmd", "`belot rating rebuild`: the rating projection folded again"),
    (14, "commands.demo", "the demo's bots"),
    (14, "commands.draw_cmd", "`belot verify-draw`: a tournament's draw checked"),
    (14, "commands.analyse_cmd", "`belot analyse`: a record analysed double-dummy"),
    (15, "commands.run", "`belot run`: the supervisor"),
    (16, "commands.cli", "the `belot` command"),
    (16, "services", "the package itself"),
    (16, "commands", "the package itself"),
    (17, "tools", "generators of checked-in files; the references tests and bench share"),
    (18, "bench", "benchmarks"),
    (19, "tests", "the tests: may import anything; nothing outside them imports them"),
)

#: Where modules live: the directory, and the package name its top directory takes.
SOURCES: tuple[tuple[Path, str], ...] = (
    (ROOT / "libs", ""),
    (ROOT / "services", "services"),
    (ROOT / "commands", "commands"),
    (ROOT / "bench", "bench"),
    (ROOT / "tools", "tools"),
    (ROOT / "tests", "tests"),
)


def module_files() -> Iterator[tuple[str, Path]]:
    for top, name in SOURCES:
        for path in sorted(top.rglob("*.py")):
            parts = list(path.relative_to(top).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join([name, *parts] if name else parts), path


@cache
def modules() -> dict[str, Path]:
    return dict(module_files())


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The repository's module ``name`` stands for, or None for the standard library and
    third-party packages."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path) -> set[str]:
    """The repository's modules ``module`` imports, anywhere in its text."""
    known = modules()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != module:
                out.add(resolved)
    return out


@cache
def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for module, path in modules().items():
        g.add_node(module)
        for target in imports_of(module, path):
            g.add_edge(module, target)
    return g


def row_of(module: str) -> str | None:
    """The row of :data:`LAYERS` that holds ``module`` (``services.<name>`` for a service
    package's modules), or None if none does."""
    parts = module.split(".")
    if parts[0] == "services" and len(parts) >= 2 and (ROOT / "services" / parts[1]).is_dir():
        return f"services.{parts[1]}"
    best = None
    for _, row, _ in LAYERS:
        if (module == row or module.startswith(row + ".")) and (
            best is None or len(row) > len(best)
        ):
            best = row
    return best


def layer_of(row: str) -> int:
    key = "services.*" if row.startswith("services.") and row not in _ROWS else row
    return _ROWS[key]


_ROWS = {row: layer for layer, row, _ in LAYERS}


def forbidden_edges() -> list[str]:
    out = []
    for a, b in sorted(graph().edges):
        ra, rb = row_of(a), row_of(b)
        assert ra is not None and rb is not None
        if ra == rb:
            continue
        la, lb = layer_of(ra), layer_of(rb)
        if lb > la:
            out.append(f"{a} -> {b}: layer {la} ({ra}) imports layer {lb} ({rb}) above it")
        elif lb == la:
            out.append(f"{a} -> {b}: {ra} imports {rb}, beside it on layer {la}")
    return out


def test_every_module_has_a_row_in_the_layer_table() -> None:
    missing = sorted(m for m in modules() if row_of(m) is None)
    assert not missing, f"place these in LAYERS: {missing}"


def test_the_architecture_page_shows_the_same_table() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            rows.append((int(cells[0]), cells[1].strip("`"), cells[2]))
    assert rows == list(LAYERS)


def test_the_graph_is_what_the_files_say() -> None:
    g = graph()
    assert g.has_edge("commands.cli", "commands.run")  # at the top
    assert g.has_edge("commands.cli", "fairdeal.simulate")  # inside cmd_simulate
    assert g.has_edge("fairdeal.verifier", "fairdeal.record")
    assert g.has_edge("fairdeal.verifier", "fairdeal.verifier.deals")  # the checks it runs
    assert g.has_edge("fairdeal.verifier.deals", "fairdeal.verifier.context")
    assert g.has_edge("fairdeal.record", "belot.codec")
    assert "tests.unit.test_import_graph" in g


def test_every_kind_of_import_is_an_edge(tmp_path: Path) -> None:
    """A type-only import, a relative one, a lazy one inside a function, ``from a import
    module`` and ``from a import name``: each is an edge (to the module, not to names)."""
    path = tmp_path / "handlers.py"
    path.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from services.table.worker import Table\n"
        "from . import store\n"
        "from belot_platform import fields\n"
        "from table.state import fold\n"
        "def f():\n"
        "    import commands.cli\n",
        encoding="utf-8",
    )
    assert imports_of("services.table.handlers", path) == {
        "services.table.worker",
        "services.table.store",
        "belot_platform.fields",
        "table.state",
        "commands.cli",
    }


def test_no_module_imports_a_layer_above_it_or_beside_it() -> None:
    bad = forbidden_edges()
    assert not bad, "forbidden imports:\n" + "\n".join(bad)


def test_nothing_outside_tests_imports_tests() -> None:
    bad = sorted(
        f"{a} -> {b}"
        for a, b in graph().edges
        if b.split(".")[0] == "tests" and a.split(".")[0] != "tests"
    )
    assert not bad, "only tests import tests:\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    g = graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    described = []
    for members in sorted(cycles):
        cycle = nx.find_cycle(g.subgraph(members))
        described.append(" -> ".join([*(a for a, _ in cycle), cycle[0][0]]))
    assert not described, "import cycles:\n" + "\n".join(described)


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("belot.cards", "fairdeal.recipe"),  # the game below the recipe
        ("fairdeal.recipe", "fairdeal.verifier"),  # the recipe below the verifier
        ("fairdeal.verifier.report", "fairdeal.verifier.context"),  # the report below
        ("fairdeal.verifier.deals", "fairdeal.verifier.replay"),  # checks side by side
        ("fairdeal.verifier.context", "fairdeal.verifier"),  # below what runs the checks
        ("rating.model", "tournament.state"),  # two pure cores side by side
        ("eventlog.store", "services.table.store"),  # a library below every service
        ("services.gateway.handlers", "services.table.domain"),  # services side by side
        ("services.table.worker", "commands.cli"),  # a service below the command line
    ],
)
def test_the_table_refuses_the_edges_it_names(importer: str, imported: str) -> None:
    ra, rb = row_of(importer), row_of(imported)
    assert ra is not None and rb is not None and ra != rb
    assert layer_of(rb) >= layer_of(ra)
