"""Every word of the web client comes from its catalogues (web/js/lang/): the words scan
of web/test/scan.test.mjs (acorn, pinned in package.json and installed by ``make test``)
finds no word written in a module, no catalogue key that no code asks for, and no key
asked for that the catalogues lack. The languages the gateway keeps for an account are
the catalogues the client has."""

from __future__ import annotations

import json
import subprocess

import pytest

from commands.logcheck import LOG_CHECKS
from fairdeal.verifier import CHECKS
from fairdeal.verifier.wholelog import PLATFORM_CHECKS
from services.gateway.store import LANGUAGES
from tests.node import NODE, ROOT, node_output

ACORN = ROOT / "node_modules" / "acorn" / "package.json"


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the words scan needs it")
@pytest.mark.skipif(not ACORN.exists(), reason="acorn is not installed: run `make test` (npm ci)")
def test_no_word_outside_the_catalogues() -> None:
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "test" / "scan.test.mjs")],
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 5" in proc.stdout, proc.stdout[-2000:]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the catalogues need it")
def test_the_gateway_keeps_the_languages_the_client_has() -> None:
    script = (
        "const m = await import('./web/js/i18n.js');"
        "process.stdout.write(JSON.stringify(m.LANGUAGES));"
    )
    assert sorted(json.loads(node_output(script))) == sorted(LANGUAGES)


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the catalogues need it")
def test_every_check_the_verify_api_reports_is_named_in_every_language() -> None:
    """The replay page names each check of the verify API's report in the player's
    language (web/js/replay.js reportCheckName): the verifier's checks, the platform's
    and the transparency log's, each a key of every catalogue."""
    script = (
        "const m = await import('./web/js/i18n.js');"
        "process.stdout.write(JSON.stringify(Object.fromEntries(m.LANGUAGES.map("
        "l => [l, Object.keys(m.CATALOGUES[l]).filter(k => k.startsWith('replay.report_check.'))"
        ".map(k => k.slice(20))]))));"
    )
    named = json.loads(node_output(script))
    checks = {*CHECKS, *PLATFORM_CHECKS, *LOG_CHECKS}
    for language, names in named.items():
        missing = sorted(checks - set(names))
        assert not missing, f"{language} names no {', '.join(missing)}"
        assert set(names) <= checks, f"{language}: {sorted(set(names) - checks)} no check"
