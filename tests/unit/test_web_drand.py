"""The tab pins the same drand chains and default relays as the server: web/js/drand.js's
CHAINS and DEFAULT_RELAYS, as Node evaluates them (through web/node/importmap.mjs, with
the vendored noble modules), equal libs/fairdeal/chains.py's. Needs Node.js 20+."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fairdeal.chains import CHAINS, DEFAULT_RELAYS

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

PRINT = """
import "./web/node/importmap.mjs";
const { CHAINS, DEFAULT_RELAYS } = await import("./web/js/drand.js");
console.log(JSON.stringify({ chains: CHAINS, relays: DEFAULT_RELAYS }));
"""


@pytest.fixture(scope="module")
def tab() -> dict[str, Any]:
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "--input-type=module", "-e", PRINT],
        capture_output=True,
        encoding="utf-8",
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


pytestmark = pytest.mark.skipif(
    NODE is None, reason="Node.js is not installed: the JavaScript tests need it"
)


def test_the_tab_pins_the_servers_chains(tab: dict[str, Any]) -> None:
    assert set(tab["chains"]) == set(CHAINS)
    for name, chain in CHAINS.items():
        assert tab["chains"][name] == {
            "name": chain.name,
            "hash": chain.hash,
            "publicKey": chain.public_key.hex(),
            "period": chain.period,
            "genesis": chain.genesis_time,
            "scheme": chain.scheme,
            "genesisSeed": chain.genesis_seed.hex(),
        }


def test_the_tabs_default_relays_are_the_servers(tab: dict[str, Any]) -> None:
    assert tab["relays"] == list(DEFAULT_RELAYS)
