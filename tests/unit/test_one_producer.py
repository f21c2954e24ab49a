"""What a player sees about a table has one producer (issue 32): ``table.views`` makes
every reply a watcher is served (the seat's hand and legal moves, or a spectator's view),
the table's owner calls it (its answer to ``GET /v1/tables/{id}`` and its pushes after
each append), the gateway forwards what the owner pushed and asks it for nothing per
watcher; only for a table nobody owns does the gateway answer from the log, through the
same function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCER = "libs/table/views.py"
#: The functions that make a watcher's view or reply.
MAKERS = {"view_to_json", "public_view", "watcher_view", "table_reply"}


def calls() -> dict[str, set[str]]:
    """Each module of the platform (libs, services, commands) -> the makers it calls."""
    found: dict[str, set[str]] = {}
    for root in ("libs", "services", "commands"):
        for path in sorted((ROOT / root).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                    if name in MAKERS:
                        found.setdefault(rel, set()).add(name)
    return found


def test_one_module_makes_what_a_watcher_sees_and_the_owner_is_its_caller() -> None:
    found = calls()
    # fairdeal.record and the randomness service have public_view functions of their
    # own (a match record's, a fair deal's): not a table's reply.
    found = {m: names for m, names in found.items() if not m.startswith(
        ("libs/fairdeal/", "services/randomness/", "services/verify/"))}  # fmt: skip
    makers_of_views = {
        m for m, n in found.items() if n & {"view_to_json", "public_view", "watcher_view"}
    }
    assert makers_of_views == {PRODUCER}, found
    assert {m for m, n in found.items() if "table_reply" in n} == {
        "services/table/table.py",  # the owner: GET's answer and every push
        "services/gateway/handlers.py",  # a table nobody owns, from the log
    }
