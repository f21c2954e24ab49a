"""The web client is linted: ESLint's recommended rules (eslint.config.js; eslint pinned in
package.json and installed by ``make test``) report nothing on the client's modules, its
Node tools and its tests; and the same run does report a planted fault."""

from __future__ import annotations

import subprocess

import pytest

from tests.node import NODE, ROOT

ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="Node.js is not installed: eslint needs it"),
    pytest.mark.skipif(not ESLINT.exists(), reason="eslint is not installed: run `make test`"),
]


def eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run(
        [NODE, str(ESLINT), "--max-warnings", "0", *args],
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        timeout=180,
        cwd=ROOT,
    )


def test_eslint_reports_nothing_on_the_client() -> None:
    proc = eslint("web", "eslint.config.js")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


@pytest.mark.parametrize(
    ("name", "source", "rule"),
    [
        ("web/js/planted.js", "export function f() { const b = 1; }\n", "no-unused-vars"),
        ("web/js/planted.js", "export const x = undefinedName;\n", "no-undef"),
        ("web/test/planted.test.mjs", "export const y = document.body;\n", "no-undef"),
    ],
)
def test_the_same_run_reports_a_planted_fault(name: str, source: str, rule: str) -> None:
    # The client's modules see the browser's globals, the tests Node's: a test that
    # touches `document` without making one is a fault.
    proc = eslint("--stdin", "--stdin-filename", name, stdin=source)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert rule in proc.stdout
