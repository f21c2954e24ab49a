"""The recorded real drand beacons in tests/data/drand-quicknet.json (sources inside)."""

from __future__ import annotations

import json
from pathlib import Path

BEACONS_FILE = Path(__file__).resolve().parents[1] / "tests" / "data" / "drand-quicknet.json"
_DATA = json.loads(BEACONS_FILE.read_text(encoding="utf-8"))

QUICKNET_BEACONS = [*_DATA["quicknet"]["beacons"], *_DATA["quicknet"]["signature_only_beacons"]]
DEFAULT_BEACONS = [
    *_DATA["mainnet_default"]["beacons"],
    *_DATA["mainnet_default"]["signature_only_beacons"],
]
