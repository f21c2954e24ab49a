"""The web client's JavaScript tests (Node's test runner): the in-tab deck code against
the published deck vectors, the tab's keeper and check against whole matches, and the
replay page's recomputation against those matches' records.

The matches are generated here (``tests.matchgen``: bots, real decks, a real drand
beacon or the fallback) and handed to Node as what each human seat's tab would have
received on its WebSocket: the events the gateway lets that seat see, in log order,
public and its own while the match runs, everything after the end. Needs Node.js 20+.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from services.gateway.domain import MATCH_ENDING, RANDOMNESS_OPENED_BY, may_see
from services.gateway.web import rulesets_json
from tests.matchgen import MatchSpec, offline_record

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

SPECS = (
    ("classic-drand", MatchSpec(match_id="web-classic-1", ruleset="classic", label="web-c",
                                target=300)),
    ("club-drand", MatchSpec(match_id="web-club-1", ruleset="club", label="web-club",
                             target=300)),
    ("french-fallback", MatchSpec(match_id="web-french-1", ruleset="french", label="web-f",
                                  drand="fallback", target=300)),
    ("gambler-fallback", MatchSpec(match_id="web-gambler-1", ruleset="gambler", label="web-g",
                                   drand="fallback", players=("gil", None), target=400)),
    ("classic-forfeit", MatchSpec(match_id="web-forfeit-1", ruleset="classic", label="web-x",
                                  end="forfeit", after_deals=1)),
)  # fmt: skip


def seat_feed(record: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """What a tab at ``seat`` receives: the WebSocket's event messages, in log order."""
    events = sorted(
        [*record["streams"]["match"]["events"], *record["streams"]["randomness"]["events"]],
        key=lambda e: e["position"],
    )
    opened: set[str] = set()
    feed = []
    for e in events:
        stream = e["stream"]
        if stream.startswith("match-") and e["type"] in MATCH_ENDING:
            opened.add(stream)
        if stream.startswith("randomness-") and e["type"] in RANDOMNESS_OPENED_BY:
            opened.add(stream)
        if may_see(e["visibility"], seat, stream in opened):
            feed.append(
                {
                    "type": "event",
                    "stream": stream,
                    "version": e["version"],
                    "event": e["type"],
                    "payload": e["payload"],
                    "visibility": e["visibility"],
                }
            )
    return feed


def fixtures() -> dict[str, Any]:
    cases = []
    records = {}
    for name, spec in SPECS:
        record = offline_record(spec)
        records[name] = record
        for s in record["seats"]:
            if not s["human"]:
                continue
            cases.append(
                {
                    "name": f"{name}-seat{s['seat']}",
                    "player": s["player"],
                    "seat": s["seat"],
                    "my_seed": s["seed"],
                    "ruleset": record["ruleset"]["name"],
                    "feed": seat_feed(record, s["seat"]),
                    # What the tab must have kept, from the record's own summary.
                    "expect": [
                        {
                            "deal": d["deal"],
                            "first": d["first_cards"][s["seat"]],
                            "completion": d["completion_cards"][s["seat"]]
                            if d["completion_cards"]
                            else None,
                        }
                        for d in record["deals"]
                    ],
                    "drand": record["fair_deal"]["drand"],
                }
            )
    return {"rulesets": rulesets_json()["rulesets"], "cases": cases, "records": records}


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the JavaScript tests need it")
def test_javascript_tests_pass(tmp_path: Path) -> None:
    """deck.test.mjs (every published deck vector), fairdeal.test.mjs (the keeper and
    the in-tab check on the generated matches, and tampered copies of them),
    replay.test.mjs (the replay's recomputation of their records, and tampered copies),
    errors.test.mjs (the words for the servers' error codes) and drand.test.mjs (drand's
    signatures checked in the tab with the vendored noble: recorded beacons, forgeries,
    lying relays)."""
    assert NODE is not None
    path = tmp_path / "matches.json"
    path.write_text(json.dumps(fixtures()))
    proc = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "test")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env={**os.environ, "BELOT_WEB_FIXTURES": str(path)},
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
    assert "# skipped 0" in proc.stdout, "the match fixtures were not read"
