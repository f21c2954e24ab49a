"""Every text file and pipe names its encoding: UTF-8.

Without one Python takes the locale's, and a machine whose locale is ASCII fails on the
first non-ASCII character: CI did, on the "—" of a witness's signed note
(``commands/witness_cmd.py`` read its kept checkpoint with ``read_text()``). ruff's
PLW1514 (in the lint) catches ``open`` and ``Path(...).read_text`` where it can see the
type; this scan catches the calls it cannot type: ``x.read_text()`` on any object,
``open(...)`` in text mode and ``subprocess.run(..., text=True)``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREES = ("libs", "services", "bench", "tests", "tools")
#: Methods that read or write text and take ``encoding=``.
TEXT_METHODS = {"read_text", "write_text"}
#: subprocess functions whose ``text=True`` decodes with the locale's encoding.
SUBPROCESS = {"run", "Popen", "check_output", "check_call", "call"}


def sources() -> Iterator[Path]:
    for tree in TREES:
        yield from sorted((ROOT / tree).rglob("*.py"))


def _keywords(call: ast.Call) -> dict[str, ast.expr]:
    return {k.arg: k.value for k in call.keywords if k.arg is not None}


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _binary_mode(call: ast.Call) -> bool:
    mode = call.args[1] if len(call.args) > 1 else _keywords(call).get("mode")
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" in mode.value


def unnamed(source: str, filename: str = "<source>") -> list[str]:
    """The calls in ``source`` that read or write text in the locale's encoding."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        keywords = _keywords(node)
        named = "encoding" in keywords
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if isinstance(func, ast.Attribute) and name in TEXT_METHODS:
            # read_text(encoding) or write_text(data, encoding) passed by position
            positional = len(node.args) > (1 if name == "write_text" else 0)
            if not (named or positional):
                found.append(f"{filename}:{node.lineno}: {name}() without encoding")
        elif isinstance(func, ast.Name) and name == "open" and node.args:
            if not (named or _binary_mode(node) or len(node.args) > 3):
                found.append(f"{filename}:{node.lineno}: open() in text mode without encoding")
        elif (
            name in SUBPROCESS
            and (_true(keywords.get("text")) or _true(keywords.get("universal_newlines")))
            and not named
        ):
            found.append(f"{filename}:{node.lineno}: {name}(text=True) without encoding")
    return found


@pytest.mark.parametrize(
    "snippet",
    [
        "p.read_text()",
        "Path('x').write_text(s)",
        "open(path)",
        "open(path, 'w')",
        "subprocess.run(['ls'], capture_output=True, text=True)",
        "subprocess.check_output(['ls'], universal_newlines=True)",
    ],
)
def test_the_scan_catches_text_without_an_encoding(snippet: str) -> None:
    assert unnamed(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "p.read_text(encoding='utf-8')",
        "p.write_text(s, encoding='utf-8')",
        "p.read_bytes()",
        "open(path, 'rb')",
        "open(path, mode='ab')",
        "open(path, 'w', encoding='utf-8')",
        "subprocess.run(['ls'], capture_output=True, encoding='utf-8')",
        "subprocess.run(['ls'], capture_output=True)",
    ],
)
def test_the_scan_leaves_named_and_binary_alone(snippet: str) -> None:
    assert unnamed(snippet) == []


def test_no_module_reads_or_writes_text_in_the_locales_encoding() -> None:
    found = [
        line
        for path in sources()
        for line in unnamed(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert found == [], "\n".join(found)


def test_a_witness_keeps_its_checkpoint_under_an_ascii_locale(tmp_path: Path) -> None:
    """The failure CI met, end to end: a witness's kept note (with its "—") read back in a
    process whose locale is ASCII."""
    script = (
        "import sys; from pathlib import Path\n"
        "from commands.witness_cmd import Witness\n"
        "import secrets\n"
        "from translog.keys import Ed25519Signer\n"
        "from translog.checkpoint import Checkpoint, sign_checkpoint\n"
        "log = Ed25519Signer('log.example/belot', secrets.token_bytes(32))\n"
        "w = Witness(log.verifier(), None, Path(sys.argv[1]))\n"
        "note = sign_checkpoint(Checkpoint('log.example/belot', 1, bytes(32)), log)\n"
        "w.keep(note)\n"
        "print(w.kept().size)\n"
    )
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    ran = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "kept")],
        capture_output=True,
        encoding="utf-8",
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "1"
