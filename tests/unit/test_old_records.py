"""Records made before a change of rule keep verifying under the rule they were made with
(tests/data/records/README.md says which code wrote each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import drand
from fairdeal.verifier import verify_record
from tests.tamper import find, tampered

RECORDS = Path(__file__).resolve().parents[1] / "data" / "records"


@pytest.mark.parametrize("name", ["before-salts-club", "before-salts-gambler"])
def test_a_record_made_before_salts_still_verifies(name: str) -> None:
    record = json.loads((RECORDS / f"{name}.json").read_text(encoding="utf-8"))
    events = record["streams"]["match"]["events"]
    assert not any("salt" in e["payload"] or "salts" in e["payload"] for e in events)
    assert "salted" not in record["streams"]["randomness"]["events"][0]["payload"]
    report = verify_record(record, bls=drand.verify)
    assert report.ok, [(c.name, c.detail) for c in report.checks if not c.passed]
    decks = next(c for c in report.checks if c.name == "decks")
    assert "made before salts" in decks.detail
    # Salts written into such a record afterwards (re-chained) are not its rule's.
    forged = tampered(record, lambda r: find(r, "match", "DeckSupplied")["payload"].update(
        salts=["00" * 16] * 9 if "club" in name else ["00" * 16] * 5
    ))  # fmt: skip
    failed = [c.name for c in verify_record(forged, bls=drand.verify).checks if not c.passed]
    assert "decks" in failed
