"""Issue 28, case 6: a seed the server acknowledged and then dropped or replaced fails a
third party's check, not only the seat's tab.

The attack, built as a careful operator would (``tools.matchgen`` writes the whole match
consistently, hash chains and summary included): the server takes a seat's seed, gives
its receipt, and records the window closing without it (or with a seed of its own in its
place). The record alone passes every check: nothing in it shows a seed was sent. The
receipt, signed with the match's receipt key that the commitment recorded before any
seed (fairdeal.receipts), is what a third party now holds the record to: the seat's tab
publishes it at the end (``POST /v1/matches/{id}/receipts``) and the verify API's report
and ``belot verify --api`` (or ``--receipt``) run ``seed_receipts`` on it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import drand
from fairdeal.receipts import Receipt, public_key, sign_receipt
from fairdeal.verifier import verify_record
from fairdeal.verifier.report import FAIL, PASS, SKIP
from fairdeal.verifier.wholelog import receipts_check
from tests.webfeed import receipt_of
from tools.matchgen import MatchSpec, offline_record, receipt_secret_of, seat_seed_of

HONEST = MatchSpec(match_id="rc-honest", ruleset="club", label="rc-honest")
DROPPED = MatchSpec(
    match_id="rc-dropped", ruleset="club", label="rc-dropped", dropped_seeds=(0,), window_ms=2_000
)
REPLACED = MatchSpec(
    match_id="rc-replaced",
    ruleset="club",
    label="rc-replaced",
    seat_seeds=((0, hashlib.sha256(b"the server's own").digest()[:16]),),
)


def record(spec: MatchSpec) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(offline_record(spec)))
    return doc


def victims_receipt(spec: MatchSpec, version: int, secret: bytes | None = None) -> dict[str, Any]:
    """The receipt the server signed for the seed seat 0's tab sent, at ``version``."""
    mine = seat_seed_of(spec, 0)
    receipt = Receipt(
        spec.match_id, 0, hashlib.sha256(mine).digest(), f"randomness-{spec.match_id}", version
    )
    return sign_receipt(receipt_secret_of(spec) if secret is None else secret, receipt).to_json()


def test_an_honest_match_honours_every_receipt_its_seats_publish() -> None:
    r = record(HONEST)
    receipts = [receipt_of(r, s, receipt_secret_of(HONEST)) for s in (0, 2)]
    check = receipts_check(r, receipts)
    assert check.status == PASS and "2 receipt(s)" in check.detail, check.detail
    commit = next(e for e in r["streams"]["randomness"]["events"]
                  if e["type"] == "ServerSeedCommitted")  # fmt: skip
    assert commit["payload"]["receipt_key"] == public_key(receipt_secret_of(HONEST)).hex()
    assert receipts_check(r, []).status == PASS


def test_a_dropped_seed_passes_the_record_alone_and_fails_on_its_receipt() -> None:
    r = record(DROPPED)
    # The attack succeeds against the record alone: every check of it passes.
    assert verify_record(r, bls=drand.verify).ok
    closed = next(e for e in r["streams"]["randomness"]["events"]
                  if e["type"] == "SeedWindowClosed")  # fmt: skip
    assert closed["payload"]["seat_seeds"][0] == "" and closed["payload"]["missing"] == [0]
    # The server had acknowledged it at version 2, right after the commitment.
    check = receipts_check(r, [victims_receipt(DROPPED, 2)])
    assert check.status == FAIL, check.detail
    assert "seat 0's seed, acknowledged at randomness-rc-dropped version 2" in check.detail


def test_a_replaced_seed_fails_on_its_receipt() -> None:
    r = record(REPLACED)
    assert verify_record(r, bls=drand.verify).ok
    got = next(e for e in r["streams"]["randomness"]["events"]
               if e["type"] == "SeatSeedReceived" and e["payload"]["seat"] == 0)  # fmt: skip
    check = receipts_check(r, [victims_receipt(REPLACED, got["version"])])
    assert check.status == FAIL, check.detail
    assert "the record holds no such event there" in check.detail


def test_a_receipt_not_signed_with_the_match_key_proves_nothing() -> None:
    """A player cannot make the server look guilty: a receipt signed with any other key
    (or for another match) is set aside."""
    r = record(HONEST)
    forged = victims_receipt(HONEST, 9, secret=hashlib.sha256(b"mine").digest())
    check = receipts_check(r, [forged])
    assert check.status == SKIP and "set aside" in check.detail
    elsewhere = victims_receipt(DROPPED, 2)  # DROPPED's key, DROPPED's match
    assert receipts_check(record(HONEST), [elsewhere]).status == SKIP
    honest = receipt_of(r, 0, receipt_secret_of(HONEST))
    check = receipts_check(r, [honest, forged, {"not": "a receipt"}])
    assert check.status == PASS and "2 not signed" in check.detail, check.detail


def test_a_match_from_before_receipt_keys_cannot_be_held_to_receipts() -> None:
    spec = MatchSpec(match_id="rc-old", ruleset="club", label="rc-old", signed_receipts=False)
    r = record(spec)
    check = receipts_check(r, [victims_receipt(spec, 2)])
    assert check.status == SKIP and "no receipt key" in check.detail
