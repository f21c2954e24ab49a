"""Match records: built from both streams, valid against the published JSON Schema, and
verified by the one verifier (fairdeal.verifier) with drand's BLS check injected."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import drand
from eventkit import envelope
from eventlog.envelope import parse_time
from fairdeal.record import (
    FORMAT,
    RecordError,
    build_record,
    parse_record,
    public_view,
    record_digest,
)
from fairdeal.verifier import CHECKS, verify_record
from fairdeal.verifier.report import FAIL, PASS, SKIP
from tools.matchgen import BEACON_ROUND, FALLBACK_REASON, MatchSpec, offline_record

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "libs/fairdeal/schema/match-record-v1.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

SPECS = {
    "club-drand": MatchSpec(ruleset="club"),
    "classic-drand": MatchSpec(ruleset="classic", label="classic"),
    "french-drand": MatchSpec(ruleset="french", label="french"),
    "gambler-drand": MatchSpec(ruleset="gambler", label="gambler"),
    "club-fallback": MatchSpec(ruleset="club", drand="fallback", label="fb"),
    "gambler-fallback-late": MatchSpec(ruleset="gambler", drand="fallback_late", label="late"),
    "french-forfeit": MatchSpec(ruleset="french", end="forfeit", label="ff", leaver=2),
    "classic-abort": MatchSpec(ruleset="classic", end="abort", label="ab"),
    "classic-abort-early": MatchSpec(ruleset="classic", end="abort_early", label="abe"),
    "club-bots-only": MatchSpec(ruleset="club", players=(None, None, None, None), label="bots"),
}


@cache
def _record(name: str) -> str:
    return json.dumps(offline_record(SPECS[name]))


def record(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(_record(name))
    return result


#: An abort after a deck went out cannot verify: whoever saw the cards could have thrown
#: the match away (every other check still passes).
NOT_VERIFIED = {"classic-abort": ("ending",)}


@pytest.mark.parametrize("name", list(SPECS))
def test_a_recorded_match_verifies(name: str) -> None:
    report = verify_record(record(name), bls=drand.verify)
    assert [c.name for c in report.checks] == list(CHECKS)
    failing = [(c.name, c.detail) for c in report.checks if not c.passed]
    assert report.failed == NOT_VERIFIED.get(name, ()), failing
    assert report.ok is (name not in NOT_VERIFIED)
    assert report.bls_checked


@pytest.mark.parametrize("name", list(SPECS))
def test_every_record_is_valid_against_the_published_schema(name: str) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(record(name))]
    assert errors == []


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["format"]["const"] == FORMAT


def test_a_drand_match_says_its_round_and_beacon() -> None:
    r = record("club-drand")
    report = verify_record(r, bls=drand.verify)
    assert report.dealt_with_drand is True
    assert report.drand_round == BEACON_ROUND and report.fallback_reason is None
    assert r["fair_deal"]["deck_inputs"]["drand_round"] == BEACON_ROUND
    assert "dealt with drand quicknet round 1001" in report.check("drand_beacon").detail


def test_a_fallback_match_verifies_and_says_it_was_dealt_without_drand() -> None:
    r = record("club-fallback")
    report = verify_record(r, bls=drand.verify)
    assert report.ok
    assert report.dealt_with_drand is False
    assert report.fallback_reason == FALLBACK_REASON
    assert report.check("drand_beacon").detail.startswith("dealt without drand")
    assert report.check("drand_signature").detail.startswith("dealt without drand")
    assert r["fair_deal"]["drand"] is None
    assert r["fair_deal"]["deck_inputs"] == {"drand_round": 0, "drand_value": "00" * 32}
    assert report.to_json()["dealt_with_drand"] is False


def test_a_late_value_after_a_fallback_is_shown_and_its_signature_checked() -> None:
    report = verify_record(record("gambler-fallback-late"), bls=drand.verify)
    assert report.ok and report.dealt_with_drand is False
    assert "came later" in report.check("drand_beacon").detail
    assert "late (unused) value" in report.check("drand_signature").detail


def test_without_a_bls_function_the_signature_check_is_skipped_and_the_report_not_ok() -> None:
    report = verify_record(record("club-drand"))
    assert report.check("drand_signature").status == SKIP
    assert not report.ok and report.failed == () and report.skipped == ("drand_signature",)
    assert not report.bls_checked


def test_a_forfeit_goes_to_the_leavers_opponents() -> None:
    r = record("french-forfeit")
    assert r["status"] == "forfeited"
    assert r["result"]["ended_by"] == "MatchForfeited"
    assert r["result"]["leaver"] == 2 and r["result"]["winner"] == 1
    assert "seat 2 left" in verify_record(r, bls=drand.verify).check("score").detail


def test_the_report_is_plain_json() -> None:
    doc = verify_record(record("club-drand"), bls=drand.verify).to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert doc["ok"] is True and doc["format"] == "belot-match-verification/1"
    assert {c["status"] for c in doc["checks"]} == {PASS}


def test_the_generator_is_deterministic() -> None:
    assert offline_record(SPECS["club-drand"]) == record("club-drand")
    other = offline_record(MatchSpec(ruleset="club", label="another"))
    assert other["fair_deal"]["commitment"] != record("club-drand")["fair_deal"]["commitment"]


def test_timer_moves_carry_metadata_outside_the_game() -> None:
    r = record("club-drand")
    timed = [e for e in r["streams"]["match"]["events"] if e["metadata"].get("acted_by")]
    assert timed and all(e["metadata"]["acted_by"] == "timer" for e in timed)


def test_the_public_record_of_a_match_in_progress_hides_private_fields() -> None:
    r = record("club-drand")
    public = [e for e in r["streams"]["match"]["events"][:120] if e["visibility"] == "public"]
    fair = [e for e in r["streams"]["randomness"]["events"][:6] if e["visibility"] == "public"]
    partial = build_record(r["match_id"], public, fair)
    assert partial["complete"] is False and partial["status"] == "in_progress"
    assert partial["deals"][0]["deck"] is None and partial["deals"][0]["first_cards"] is None
    assert partial["deals"][0]["bids"] == r["deals"][0]["bids"]
    assert partial["fair_deal"]["server_seed"] is None
    assert VALIDATOR.is_valid(partial)
    report = verify_record(partial, bls=drand.verify)
    assert not report.ok
    assert "events" in report.failed and "commitment" in report.failed


def test_public_view_and_digest() -> None:
    r = record("club-drand")
    view = public_view(r)
    assert "streams" not in view and view["fair_deal"] == r["fair_deal"]
    assert record_digest(r) == record_digest(copy.deepcopy(r))
    assert record_digest(r) != record_digest(record("club-fallback"))


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ([], "JSON object"),
        ({"format": "belot-match-record/2"}, "format"),
        ({"format": FORMAT, "match_id": 7}, "match_id"),
        ({"format": FORMAT, "match_id": "m"}, "streams"),
        ({"format": FORMAT, "match_id": "m", "streams": {"match": {}}}, "streams.match.id"),
        (
            {
                "format": FORMAT,
                "match_id": "m",
                "streams": {
                    "match": {"id": "match-m", "head": None, "events": [{}]},
                    "randomness": {"id": "randomness-m", "head": None, "events": []},
                },
            },
            "lacks position",
        ),
    ],
)
def test_a_document_that_is_not_a_record_is_refused(doc: Any, says: str) -> None:
    with pytest.raises(RecordError, match=says):
        parse_record(doc)


def test_a_record_with_an_envelope_of_the_wrong_type_is_refused() -> None:
    r = record("classic-abort")
    r["streams"]["match"]["events"][3]["version"] = "4"
    with pytest.raises(RecordError, match="version is not a whole number"):
        verify_record(r)


# --- the hash chain rule: one module (eventkit.envelope) for the log and the verifier ---


def test_the_generators_hashes_made_with_eventlog_check_with_fairdeal() -> None:
    r = record("club-drand")
    prev = envelope.GENESIS_HASH
    for e in r["streams"]["match"]["events"]:
        parse_time(e["recorded_at"])
        h = envelope.chain_hash(
            prev,
            envelope.canonical_bytes(
                e["stream"],
                e["version"],
                e["type"],
                e["payload"],
                e["metadata"],
                e["visibility"],
                e["recorded_at"],
            ),
        )
        assert h.hex() == e["hash"]
        prev = h


def test_every_check_can_fail() -> None:
    # The report names checks from a fixed list; a failing one says what differs.
    report = verify_record(
        {
            "format": FORMAT,
            "match_id": "m",
            "streams": {
                "match": {"id": "match-m", "head": None, "events": []},
                "randomness": {"id": "randomness-m", "head": None, "events": []},
            },
        }
    )
    assert "hash_chain" in report.failed and "events" in report.failed
    assert all(c.status in (PASS, FAIL, SKIP) for c in report.checks)


@pytest.mark.parametrize(
    ("spec", "kinds"),
    [
        (
            MatchSpec(ruleset="gambler", label="cov-gambler-4"),
            {
                "MisereStarted",
                "RedealDemanded",
                "TrumpSevenSwapped",
                "BottomCardShown",
                "MeldsShown",
                "BeloteAnnounced",
            },
        ),
        (MatchSpec(ruleset="classic", label="cov-classic-4"), {"DealAbandoned"}),
        (MatchSpec(ruleset="french", label="cov-french-1"), {"DealAbandoned", "BeloteAnnounced"}),
    ],
    ids=["gambler-misere-redeal-swap", "classic-redeals", "french-redeals"],
)
def test_every_kind_of_deal_verifies(spec: MatchSpec, kinds: set[str]) -> None:
    # Misère (the completion without a taker), gambler's redeal demand and seven swap,
    # redeals after four passes (the recipe's k goes on counting).
    r = offline_record(spec)
    types = {e["type"] for e in r["streams"]["match"]["events"]}
    assert kinds <= types
    report = verify_record(r, bls=drand.verify)
    assert report.ok, [(c.name, c.detail) for c in report.checks if not c.passed]
    assert [d["deal"] for d in r["deals"]] == list(range(len(r["deals"])))
    if "DealAbandoned" in kinds:
        assert any(
            d["abandoned"] == "all_passed" and d["completion_cards"] is None for d in r["deals"]
        )
    if "MisereStarted" in kinds:
        misere = next(d for d in r["deals"] if d["contract"] == {"taker": None, "strain": "misere"})
        assert misere["completion_cards"] and misere["bottom"]
