"""`belot deck` and `belot commit`: output, and a one-line error with exit 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from commands.cli import main

VECTORS = json.loads(
    (Path(__file__).resolve().parents[2] / "libs/fairdeal/vectors/deal-v1.json").read_text(
        encoding="utf-8"
    )
)["cases"]
SEED = "ab" * 32
HUMAN = "00112233445566778899aabbccddeeff"
DRAND_VALUE = "1466a6cd24e327188770752f6134001c64d6efcc590ccc26b721611ad96f165a"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's own errors
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def vector_argv(case: dict) -> list[str]:
    argv = ["deck", "--server-seed", case["server_seed"], "--deal", str(case["deal"])]
    for s in case["seat_seeds"]:
        argv += ["--seat-seed", s]
    if case["drand_round"] is not None:
        argv += ["--drand-round", str(case["drand_round"]), "--drand-value", case["drand_value"]]
    if case["cards"] == 24:
        argv += ["--cards", "24"]
    return argv


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_deck_prints_each_vector(capsys, case) -> None:
    code, out, err = run(capsys, *vector_argv(case))
    assert (code, err) == (0, "")
    assert out == " ".join(case["deck"]) + "\n"


def test_deck_json(capsys) -> None:
    case = VECTORS[3]
    code, out, _ = run(capsys, *vector_argv(case), "--json")
    assert code == 0
    assert json.loads(out) == case["deck"]


def test_commit(capsys) -> None:
    for case in VECTORS[:5]:
        code, out, _ = run(capsys, "commit", "--server-seed", case["server_seed"])
        assert (code, out) == (0, case["commitment"] + "\n")


BAD = {
    "seat seed of 15 bytes": (
        ["--seat-seed", "00" * 15, "--deal", "0"],
        "--seat-seed #1 is 15 bytes, it must be 0 or 16 bytes",
    ),
    "seat seed of 17 bytes": (["--seat-seed", "00" * 17, "--deal", "0"], "it must be 0 or 16"),
    "bad hex seat seed": (["--seat-seed", "zz" * 16, "--deal", "0"], "is not hexadecimal"),
    "odd-length hex": (["--seat-seed", "0" * 31, "--deal", "0"], "is not hexadecimal"),
    "deal below 0": (["--seat-seed", "", "--deal", "-1"], "--deal -1 is outside 0..4294967295"),
    "deal past 2^32-1": (["--seat-seed", "", "--deal", str(2**32)], "is outside 0..4294967295"),
    "deal not a number": (["--seat-seed", "", "--deal", "x"], "is not a whole number"),
    "deal with a space": (["--seat-seed", "", "--deal", " 5"], "is not a whole number"),
    "deal with a plus": (["--seat-seed", "", "--deal", "+5"], "is not a whole number"),
    "deal with an underscore": (["--seat-seed", "", "--deal", "1_0"], "is not a whole number"),
    "deal in Arabic digits": (["--seat-seed", "", "--deal", "\u0663"], "is not a whole number"),
    "round past 2^64-1": (
        [
            "--seat-seed",
            "",
            "--deal",
            "0",
            "--drand-round",
            str(2**64),
            "--drand-value",
            DRAND_VALUE,
        ],
        "--drand-round 18446744073709551616 is outside 0..18446744073709551615",
    ),
    "round below 0": (
        ["--seat-seed", "", "--deal", "0", "--drand-round", "-5", "--drand-value", DRAND_VALUE],
        "is outside 0..",
    ),
    "drand value of 31 bytes": (
        ["--seat-seed", "", "--deal", "0", "--drand-round", "1", "--drand-value", "00" * 31],
        "--drand-value is 31 bytes, it must be 32 bytes",
    ),
    "round without value": (
        ["--seat-seed", "", "--deal", "0", "--drand-round", "1"],
        "give both or neither",
    ),
    "value without round": (
        ["--seat-seed", "", "--deal", "0", "--drand-value", DRAND_VALUE],
        "give both or neither",
    ),
    "256 seats": (
        ["--deal", "0", *["--seat-seed", ""] * 256],
        "256 seats: the recipe takes at most 255",
    ),
    "no seats": (["--deal", "0"], "give at least one --seat-seed"),
    "missing deal": (["--seat-seed", ""], "--deal"),
    "deck of 20 cards": (["--seat-seed", "", "--deal", "0", "--cards", "20"], "invalid choice"),
}


@pytest.mark.parametrize("argv,message", BAD.values(), ids=BAD.keys())
def test_deck_bad_input(capsys, argv, message) -> None:
    code, out, err = run(capsys, "deck", "--server-seed", SEED, *argv)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1, "one line"


@pytest.mark.parametrize("seed", ["ab" * 31, "ab" * 33, "", "xy" * 32])
def test_server_seed_must_be_32_bytes_of_hex(capsys, seed) -> None:
    for cmd in (["deck", "--seat-seed", HUMAN, "--deal", "0"], ["commit"]):
        code, out, err = run(capsys, *cmd, "--server-seed", seed)
        assert (code, out) == (2, "")
        assert "--server-seed" in err and err.count("\n") == 1


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("belot")
    proc = subprocess.run(
        [str(exe), "deck", *vector_argv(VECTORS[0])[1:]], capture_output=True, encoding="utf-8"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == VECTORS[0]["deck"]
    bad = subprocess.run(
        [str(exe), "commit", "--server-seed", "00"], capture_output=True, encoding="utf-8"
    )
    assert bad.returncode == 2 and "32 bytes" in bad.stderr
