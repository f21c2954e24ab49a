"""The functional core imports nothing that does I/O: standard library modules from an
allow-list and its own packages only (docs/architecture.md, "Dependencies flow one way")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIBS = Path(__file__).resolve().parents[2] / "libs"
PURE = ("eventkit", "belot", "fairdeal", "rating", "tournament", "translog", "table")
ALLOWED = {
    "__future__",
    "abc",
    "bisect",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "hmac",
    "itertools",
    "math",
    "operator",
    "typing",
    "types",
    "statistics",
    "heapq",
    "json",
    "random",
    # the event envelope's recorded times (eventkit.envelope): formatting and parsing a
    # time it is handed; reading the clock is refused below
    "datetime",
    # rating's model library (issue 9): pure arithmetic over the ratings it is handed.
    "openskill",
    # the one third-party package of a pure core: tournament pairs Swiss rounds with
    # its blossom maximum-weight matching (no I/O)
    "networkx",
    # the hard bot's exact solver, compiled (belot/bots/solver.py): numba and the NumPy
    # arrays it works on; pure computation (numba's cache of machine code is its own)
    "numba",
    "numpy",
    # the transparency log's signed notes: base64 text, and Ed25519 from pyca cryptography
    # (OpenSSL's signatures; no curve code of our own, no I/O)
    "base64",
    "binascii",
    "cryptography",
    *PURE,
}
# random is allowed only as random.Random instances the caller seeds, datetime only for
# times the caller gives; the check below refuses the global generator and the clock.
FORBIDDEN_CALLS = {
    ("random", "random"),
    ("random", "randint"),
    ("random", "choice"),
    ("random", "shuffle"),
    ("time", "time"),
    ("time", "sleep"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
}


def modules():
    for pkg in PURE:
        yield from sorted((LIBS / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", list(modules()), ids=lambda p: str(p.relative_to(LIBS)))
def test_pure_package_imports_only_the_allow_list(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert name.split(".")[0] in ALLOWED, f"{path}: imports {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name):
                assert (owner.id, node.func.attr) not in FORBIDDEN_CALLS, (
                    f"{path}: {owner.id}.{node.func.attr}()"
                )
