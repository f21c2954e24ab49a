"""The web client is linted: ESLint's recommended rules (eslint.config.js; eslint pinned in
package.json and installed by ``make test``) report nothing on the client's modules, its
Node tools and its tests; TypeScript's compiler finds no type error in the modules that
hold the fair-deal checks (web/tsconfig.json: their JSDoc types, ``tsc --checkJs``); and
each run does report a planted fault."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.node import NODE, ROOT

ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
TSC = ROOT / "node_modules" / "typescript" / "bin" / "tsc"
TSCONFIG = ROOT / "web" / "tsconfig.json"

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="Node.js is not installed: eslint needs it"),
    pytest.mark.skipif(not ESLINT.exists(), reason="eslint is not installed: run `make test`"),
    pytest.mark.skipif(not TSC.exists(), reason="typescript is not installed: run `make test`"),
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


def tsc(config: Path) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    return subprocess.run(
        [NODE, str(TSC), "-p", str(config)],
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        cwd=ROOT,
    )


def test_the_fair_deal_modules_types_check() -> None:
    proc = tsc(TSCONFIG)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    checked = json.loads(
        "\n".join(line for line in TSCONFIG.read_text(encoding="utf-8").splitlines()
                  if not line.lstrip().startswith("//"))
    )["files"]  # fmt: skip
    assert {"js/fairdeal.js", "js/drand.js", "js/receipts.js", "js/logcheck.js"} <= set(checked)


def test_the_type_check_reports_a_planted_fault(tmp_path: Path) -> None:
    # The same options on a module that hands a number where a string goes.
    planted = tmp_path / "planted.js"
    drand = (ROOT / "web" / "js" / "drand.js").as_posix()
    planted.write_text(
        f'import {{ verifyBeacon }} from "{drand}";\n'
        "/** @param {number} round */\n"
        'export function f(round) { return verifyBeacon("quicknet", { round }); }\n'
        'f("1");\n',
        encoding="utf-8",
    )
    config = tmp_path / "tsconfig.json"
    config.write_text(
        json.dumps(
            {"extends": TSCONFIG.as_posix(), "files": [(ROOT / "web/types/noble.d.ts").as_posix(),
             planted.as_posix()]}
        ),
        encoding="utf-8",
    )  # fmt: skip
    proc = tsc(config)
    assert proc.returncode != 0
    assert "planted.js" in proc.stdout and "error TS2345" in proc.stdout, proc.stdout
    assert "'string' is not assignable to parameter of type 'number'" in proc.stdout


#: Client modules still over MAX_LINES, and why. A module that comes under the limit must
#: leave this list. (None since issue 32 split the table page into a store and its views.)
OVER: dict[str, str] = {}
MAX_LINES = 400


def test_no_client_module_is_over_400_lines() -> None:
    # The code's modules; the catalogues (web/js/lang/) are data, a key a line.
    sizes = {
        p.name: len(p.read_text(encoding="utf-8").splitlines())
        for p in sorted((ROOT / "web" / "js").glob("*.js"))
    }
    over = {name for name, n in sizes.items() if n > MAX_LINES}
    assert over <= set(OVER), {name: sizes[name] for name in over - set(OVER)}
    assert set(OVER) <= over, f"under {MAX_LINES} lines now, take it off OVER: {set(OVER) - over}"
