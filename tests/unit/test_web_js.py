"""The web client's JavaScript tests (Node's test runner): the in-tab deck code against
the published deck vectors, the tab's keeper and check against whole matches, and the
replay page's recomputation against those matches' records.

The matches are generated here (``tools.matchgen``: bots, real decks, a real drand
beacon or the fallback) and handed to Node as what each human seat's tab would have
received on its WebSocket (``tests.webfeed``): the events the gateway lets that seat see,
in log order, public and its own while the match runs, everything after the end, each
with the tab's time of arrival; the seed reply's receipt; and drand relays that serve the
recorded rounds as drand produced them (round 1002 of a fallback match 6 s late: drand
was late, as the match says). web/node/tabsim.mjs plays them against the tab's code.
Needs Node.js 20+. (The attack cases are tests/unit/test_tab_attacks.py's.)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from belot import RULESETS, evolve, new_match
from belot.codec import from_payload
from belot.events import EVENT_TYPES, DealScored, MatchStarted
from belot.legal import belote_points
from belot.melds import meld_points
from belot.seats import side_of
from fairdeal.leave import leave_message, verify_leave
from services.gateway.web import rulesets_json
from tests.webfeed import beacons, receipt_of, relay, timed_feed
from tools.matchgen import MatchSpec, offline_record, receipt_secret_of, seat_key_of

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

#: Matches whose score sheet has a bait (БТ) and hanging points (vs(xx)) resolved or lost
#: on a later deal, one a ruleset: found by searching matchgen labels with the game core
#: (the first label ``sheet-<ruleset>-<i>`` whose match has a failed and a level deal
#: before its last); test_the_sheet_matches_have_a_bait_and_hanging_points keeps them so.
SHEET_SPECS = (
    MatchSpec(match_id="sheet-classic-1", ruleset="classic", label="sheet-classic-92",
              drand="fallback", players=("ann", None, None, None), target=500),
    MatchSpec(match_id="sheet-club-1", ruleset="club", label="sheet-club-29",
              drand="fallback", players=("ann", None, None, None), target=500),
    MatchSpec(match_id="sheet-french-1", ruleset="french", label="sheet-french-170",
              drand="fallback", players=("ann", None, None, None), target=500),
    MatchSpec(match_id="sheet-gambler-1", ruleset="gambler", label="sheet-gambler-16",
              drand="fallback", players=("gil", None), target=500),
)  # fmt: skip


def core_split(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Each scored deal's card points, melds and belote per side, as the game core
    counts them when it scores the deal (belot.decide ``_deal_end``): what the score
    sheet's split (web/js/sheet.js) must give."""
    events = record["streams"]["match"]["events"]
    core = [from_payload(e["payload"]) for e in events if e["type"] in EVENT_TYPES]
    started = core[0]
    assert isinstance(started, MatchStarted), started
    rules = RULESETS[started.ruleset]
    state = new_match(
        rules, started.match_id, target=started.target, first_dealer=started.first_dealer
    )
    out = []
    for e in core[1:]:
        if isinstance(e, DealScored):
            deal = state.deal
            assert deal is not None
            melds = [0, 0]
            for seat, shown in deal.shown:
                if rules.melds is None or (rules.melds_need_a_trick and not deal.tricks_won[seat]):
                    continue
                melds[side_of(seat)] += meld_points(shown, rules.melds)
            out.append({
                "deal": e.deal_number,
                "cards": [deal.points[0], deal.points[1]],
                "melds": melds,
                "belote": list(belote_points(state, deal)),
            })  # fmt: skip
        state = evolve(state, e)
    return out


def sheet_fixtures() -> list[dict[str, Any]]:
    out = []
    for spec in SHEET_SPECS:
        record = offline_record(spec)
        out.append({"name": spec.label, "record": record, "split": core_split(record)})
    return out


def test_the_sheet_matches_have_a_bait_and_hanging_points() -> None:
    """The matches the sheet's tests (here and in the browser) rely on still hold what
    they were chosen for: a failed contract, and a level deal before the last."""
    for spec in SHEET_SPECS:
        outcomes = [d["score"]["outcome"] for d in offline_record(spec)["deals"] if d["score"]]
        assert "failed" in outcomes, (spec.label, outcomes)
        assert "level" in outcomes[:-1], (spec.label, outcomes)


def fixtures() -> dict[str, Any]:
    cases = []
    records = {}
    for name, spec in SPECS:
        record = offline_record(spec)
        records[name] = record
        late = {} if spec.drand == "beacon" else {1002: 6_000}
        for s in record["seats"]:
            if not s["human"]:
                continue
            feed = timed_feed(record, s["seat"])
            # The leaver's tab asked to leave (and signed it) half a second before the
            # forfeit reached it.
            left = [f["at"] - 500 for f in feed if f["msg"].get("event") == "MatchForfeited"]
            leaver = record["result"]["leaver"] == s["seat"]
            cases.append(
                {
                    "name": f"{name}-seat{s['seat']}",
                    "match_id": record["match_id"],
                    "player": s["player"],
                    "seat": s["seat"],
                    "my_seed": s["seed"],
                    "my_key": seat_key_of(spec, s["seat"]).hex(),
                    "receipt": receipt_of(record, s["seat"], receipt_secret_of(spec)),
                    "ruleset": record["ruleset"]["name"],
                    "feed": feed,
                    "relays": [
                        relay("https://relay.drand.test", "tab", late=late),
                        relay("https://relay.belot.test", "server", late=late),
                    ],
                    "end_at": feed[-1]["at"] + 1_000,
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
                    "leave_asked_at": left[0] if leaver and left else None,
                }
            )
    # A seat's signed leave made here (pyca cryptography, fairdeal.leave): the page's
    # signature (web/js/seatkey.js, @noble/curves) must be the same bytes (RFC 8032's
    # signatures are deterministic), and its check must accept it.
    secret = hashlib.sha256(b"test_web_js leave").digest()
    private = Ed25519PrivateKey.from_private_bytes(secret)
    leave = {
        "secret": secret.hex(),
        "key": private.public_key().public_bytes_raw().hex(),
        "match_id": "web-leave-1",
        "seat": 2,
        "signature": private.sign(leave_message("web-leave-1", 2)).hex(),
    }
    assert verify_leave(bytes.fromhex(leave["key"]), "web-leave-1", 2,
                        bytes.fromhex(leave["signature"]))  # fmt: skip
    return {
        "leave": leave,
        "rulesets": rulesets_json()["rulesets"],
        "beacons": beacons(),
        "cases": cases,
        "records": records,
        "sheets": sheet_fixtures()
        + [{"name": n, "record": r, "split": core_split(r)} for n, r in records.items()],
    }


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
    path.write_text(json.dumps(fixtures()), encoding="utf-8")
    # Every test file but the attack harness, which tests/unit/test_tab_attacks.py runs,
    # and the words scan, which tests/unit/test_web_words.py runs (it needs npm's acorn).
    own_runner = ("attacks.test.mjs", "scan.test.mjs")
    files = sorted(
        str(p) for p in (ROOT / "web" / "test").glob("*.test.mjs") if p.name not in own_runner
    )
    proc = subprocess.run(
        [NODE, "--test", *files],
        capture_output=True,
        encoding="utf-8",
        timeout=180,
        cwd=ROOT,
        env={**os.environ, "BELOT_WEB_FIXTURES": str(path)},
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
    assert "# skipped 0" in proc.stdout, "the match fixtures were not read"
