"""The receipt for a seat's seed, signed with the match's receipt key (fairdeal.receipts):
what it signs, that any edit breaks it, and what a malformed one is told."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from fairdeal.receipts import (
    Receipt,
    public_key,
    receipt_from_json,
    receipt_message,
    sign_receipt,
    verify_receipt,
)

SECRET = hashlib.sha256(b"test_seed_receipts").digest()
KEY = public_key(SECRET)
RECEIPT = Receipt("m-1", 2, hashlib.sha256(b"seed").digest(), "randomness-m-1", 3)


def test_a_signed_receipt_verifies_with_the_match_key_and_round_trips_as_json() -> None:
    signed = sign_receipt(SECRET, RECEIPT)
    assert verify_receipt(KEY, signed)
    assert receipt_from_json(signed.to_json()) == signed
    assert receipt_message("m-1", 2, bytes(32), "randomness-m-1", 3) == (
        b"belot-seed-receipt/1\nm-1\n2\n" + b"00" * 32 + b"\nrandomness-m-1\n3\n"
    )


@pytest.mark.parametrize(
    "edit",
    [
        {"match_id": "m-2"},
        {"seat": 1},
        {"seed_sha256": hashlib.sha256(b"another").digest()},
        {"stream": "randomness-m-2"},
        {"version": 4},
    ],
)
def test_a_receipt_edited_in_any_field_does_not_verify(edit: dict[str, object]) -> None:
    signed = sign_receipt(SECRET, RECEIPT)
    assert not verify_receipt(KEY, dataclasses.replace(signed, **edit))  # type: ignore[arg-type]


def test_another_key_an_unsigned_or_a_malformed_receipt_does_not_verify() -> None:
    signed = sign_receipt(SECRET, RECEIPT)
    assert not verify_receipt(public_key(bytes(32)), signed)
    assert not verify_receipt(KEY, RECEIPT)  # no signature
    assert not verify_receipt(KEY[:-1], signed)
    assert not verify_receipt(b"\xff" * 32, signed)


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        ([], "JSON object"),
        ({"match_id": 1, "stream": "s"}, "match_id and stream"),
        ({"match_id": "m", "stream": "s", "seat": -1, "version": 1}, "whole numbers"),
        ({"match_id": "m", "stream": "s", "seat": 0, "version": 1, "seed_sha256": "zz"}, "hex"),
        (
            {
                "match_id": "m",
                "stream": "s",
                "seat": 0,
                "version": 1,
                "seed_sha256": "00",
                "signature": "00",
            },
            "32 bytes",
        ),
    ],
)
def test_a_malformed_receipt_is_refused_saying_what(doc: object, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        receipt_from_json(doc)
