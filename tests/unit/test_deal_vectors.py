"""The published deck vectors: the code reproduces every case, and the file is what the
plain reference transcription of the recipe builds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from belot.cards import to_codes
from fairdeal import DeckInputs, Drand, Shuffler, commitment, deck
from tools.reference_recipe import shuffle

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "libs" / "fairdeal" / "vectors" / "deal-v1.json"
CASES = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]


def inputs_of(case: dict) -> DeckInputs:
    drand = None
    if case["drand_round"] is not None:
        drand = Drand(case["drand_round"], bytes.fromhex(case["drand_value"]))
    seats = tuple(bytes.fromhex(s) for s in case["seat_seeds"])
    return DeckInputs(bytes.fromhex(case["server_seed"]), seats, drand)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vector(case: dict) -> None:
    inputs = inputs_of(case)
    assert to_codes(Shuffler(inputs).deck(case["deal"], case["cards"])) == case["deck"]
    assert commitment(inputs.server_seed).hex() == case["commitment"]
    # the one-shot function agrees with the match-scoped Shuffler
    got = deck(inputs.server_seed, inputs.seat_seeds, case["deal"], inputs.drand, case["cards"])
    assert to_codes(got) == case["deck"]


def test_vectors_cover_what_third_parties_need() -> None:
    assert len(CASES) >= 24
    seat_counts = {len(c["seat_seeds"]) for c in CASES}
    assert {1, 2, 4, 255} <= seat_counts
    assert any("" in c["seat_seeds"] for c in CASES), "a bot seat"
    assert any(c["drand_round"] is not None for c in CASES)
    assert any(c["drand_round"] is None for c in CASES)
    assert any(c["cards"] == 24 for c in CASES)
    assert any(c["deal"] > 0 for c in CASES)
    assert any(c["stream"]["rejected"] for c in CASES), "rejection sampling exercised"
    assert any(not c["stream"]["rejected"] for c in CASES)
    assert any(c["stream"]["blocks_used"] > 1 for c in CASES), "a second block read"


def test_vector_file_is_what_the_reference_builds() -> None:
    built = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_deal_vectors.py")],
        check=True,
        capture_output=True,
        encoding="utf-8",
    ).stdout
    assert built == VECTORS.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_stream_facts(case: dict) -> None:
    """The stream notes in the file follow the recipe: 31 accepted bytes plus rejections."""
    drand = (
        (case["drand_round"], bytes.fromhex(case["drand_value"]))
        if case["drand_round"] is not None
        else (0, bytes(32))
    )
    out = shuffle(
        bytes.fromhex(case["server_seed"]),
        [bytes.fromhex(s) for s in case["seat_seeds"]],
        case["deal"],
        *drand,
        case["cards"],
    )
    assert out["bytes_read"] == 31 + len(out["rejected"])
    assert out["blocks_used"] == (out["bytes_read"] - 1) // 32 + 1
    for r in out["rejected"]:
        n = r["position"] + 1
        assert r["byte"] >= 256 - 256 % n
