"""Session state is marked where it is taken (belot_platform.pgpool): the services' pools
skip asyncpg's reset for a connection that took none, so a session-level statement that
is not marked would reach the connection's next borrower (a lock it never asked for, a
setting it did not make). Every SQL string in the code that takes session state must sit
in a function that calls ``took_session_state``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("libs", "services", "commands")

#: SQL that outlives its statement and transaction: a session advisory lock, LISTEN, a
#: session-level SET or set_config, a cursor WITH HOLD, a temporary table.
SESSION_SQL = re.compile(
    r"\bpg_(try_)?advisory_lock(_shared)?\s*\("
    r"|\A\s*LISTEN\s"
    r"|\A\s*SET\s+(?!LOCAL\b|CONSTRAINTS\b|TRANSACTION\b)"
    r"|\bset_config\s*\([^)]*\bfalse\s*\)"
    r"|\bWITH\s+HOLD\b"
    r"|\bCREATE\s+(TEMP|TEMPORARY)\s",
    re.IGNORECASE,
)


def _sql_strings(node: ast.AST) -> list[tuple[int, str]]:
    """String constants under ``node`` (f-strings' literal parts too), docstrings not."""
    docstrings = set()
    for n in ast.walk(node):
        body = getattr(n, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docstrings.add(id(first.value))
    return [
        (n.lineno, n.value)
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]


def session_sql(source: str) -> list[tuple[int, str, bool]]:
    """(line, SQL, marked) for each session-level SQL string in ``source``: marked when
    its innermost function calls ``took_session_state``."""
    tree = ast.parse(source)
    found = []
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for line, text in _sql_strings(tree):
        if not SESSION_SQL.search(text):
            continue
        around = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
        inner = max(around, key=lambda f: f.lineno, default=None)
        marked = inner is not None and any(
            isinstance(c, ast.Call)
            and (getattr(c.func, "attr", None) or getattr(c.func, "id", None))
            == "took_session_state"
            for c in ast.walk(inner)
        )
        found.append((line, text.strip().splitlines()[0], marked))
    return found


def test_every_session_level_statement_is_marked() -> None:
    unmarked, seen = [], 0
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*.py")):
            for line, text, marked in session_sql(path.read_text(encoding="utf-8")):
                seen += 1
                if not marked:
                    unmarked.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert not unmarked, "session state not marked (belot_platform.pgpool):\n" + "\n".join(
        unmarked
    )
    assert seen >= 1  # the relay's lock: the scan sees the code it is meant to


def test_the_scan_tells_marked_from_unmarked_and_transaction_scoped() -> None:
    source = '''
async def lock(conn):
    took_session_state(conn)
    await conn.fetchval("SELECT pg_try_advisory_lock($1)", 1)

async def forgot(conn):
    await conn.execute("SET statement_timeout = 0")

async def scoped(conn):
    await conn.execute("SELECT pg_advisory_xact_lock($1)", 1)
    await conn.execute(f"SET LOCAL search_path = {name}")
    await conn.execute("SET CONSTRAINTS ALL DEFERRED")

async def updates(conn):
    await conn.execute("""
UPDATE t
SET n = 1""")

async def listens(conn):
    """LISTEN is mentioned here, in a docstring only."""
    await conn.execute("LISTEN channel")
'''
    assert [(line, marked) for line, _, marked in session_sql(source)] == [
        (4, True),
        (7, False),
        (21, False),
    ]
