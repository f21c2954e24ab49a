"""The published draw vectors: the code reproduces every case, the file is what the plain
reference transcription builds, and the two implementations agree beyond the file. The
naming rule is the matches' rule."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairdeal.chains import QUICKNET
from fairdeal.draw import (
    DRAW_ROUND_LEAD_MS,
    DrawError,
    block,
    draw_order,
    draw_round_for,
    message,
    randomness_of,
)
from fairdeal.fairness import ROUND_LEAD_MS, round_named_for
from tools.reference_draw import draw as reference_draw
from tools.reference_draw import message as reference_message

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "libs" / "fairdeal" / "vectors" / "draw-v1.json"
CASES = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vector(case: dict) -> None:
    randomness = bytes.fromhex(case["randomness"])
    assert randomness_of(bytes.fromhex(case["signature"])) == randomness
    order = draw_order(randomness, case["tournament_id"], case["entrants"])
    assert list(order) == case["order"]
    assert sorted(order) == sorted(case["entrants"])


def test_vectors_cover_what_third_parties_need() -> None:
    counts = {len(c["entrants"]) for c in CASES}
    assert {1, 2, 8, 256, 257, 1024} <= counts
    assert any(c["stream"]["rejected"] for c in CASES), "rejection sampling exercised"
    assert any(not c["stream"]["rejected"] for c in CASES)
    assert any(c["stream"]["blocks_used"] > 1 for c in CASES), "a second block read"
    assert any(not c["tournament_id"].isascii() for c in CASES), "a UTF-8 id"
    assert len({c["round"] for c in CASES}) >= 3


def test_vector_file_is_what_the_reference_builds() -> None:
    built = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_draw_vectors.py")],
        check=True,
        capture_output=True,
        encoding="utf-8",
    ).stdout
    assert built == VECTORS.read_text(encoding="utf-8")


def test_the_message_bytes() -> None:
    """The bytes the docs spell out, for one case a reader can check by hand."""
    assert message("cup", 1) == b"belot.club/draw/v1" + b"\x00\x03" + b"cup" + b"\x00\x00\x00\x01"
    assert message("турнир", 0) == reference_message("турнир", 0)
    key = bytes(range(32))
    assert block(key, "cup", 2) == hmac.new(key, message("cup", 2), hashlib.sha256).digest()


@given(
    st.binary(min_size=32, max_size=32),
    st.text(min_size=1, max_size=20),
    st.integers(min_value=0, max_value=300),
)
def test_the_code_is_the_reference(randomness: bytes, tid: str, n: int) -> None:
    entrants = [f"e{i}" for i in range(n)]
    assert (
        list(draw_order(randomness, tid, entrants))
        == reference_draw(randomness, tid, entrants)["order"]
    )


def test_bad_inputs_are_refused() -> None:
    for args, code in (
        ((bytes(31), "t", ["a", "b"]), "bad_randomness"),
        ((bytes(32), "t", ["a", "a"]), "bad_entrants"),
        ((bytes(32), "t", ["a", ""]), "bad_entrants"),
        ((bytes(32), "", ["a", "b"]), "bad_tournament_id"),
    ):
        with pytest.raises(DrawError) as err:
            draw_order(*args)
        assert err.value.code == code


def test_the_naming_rule_is_the_matches_rule() -> None:
    assert DRAW_ROUND_LEAD_MS == ROUND_LEAD_MS
    start = QUICKNET.time_of_round(1000) * 1000
    for t in range(start - 7_000, start + 7_000, 250):
        assert draw_round_for("quicknet", t, DRAW_ROUND_LEAD_MS) == round_named_for(
            "quicknet", t, ROUND_LEAD_MS
        )
    # Strictly after the lead: a round due exactly at now + lead is not the one named.
    due = QUICKNET.time_of_round(1001) * 1000
    assert draw_round_for("quicknet", due - DRAW_ROUND_LEAD_MS, DRAW_ROUND_LEAD_MS) == 1002
