"""`belot simulate`: deterministic for a seed, JSON fields, --swap, bad input."""

from __future__ import annotations

import json

import pytest

from commands.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--ruleset", "classic", "--seats", "medium,easy,medium,easy"]
    argv += ["--matches", "6", "--seed", "s1", "--json"]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    first = json.loads(out)
    assert first["ruleset"] == "classic" and first["matches"] == 6
    assert sum(first["wins"]) + first["draws"] == 6
    assert len(first["wins"]) == 2
    assert run(capsys, *argv)[1] == out
    other = json.loads(run(capsys, *argv[:-2], "s2", "--json")[1])
    assert other != first


def test_swap_counts_wins_for_the_bots_named_for_seats_0_and_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The same bots everywhere but named differently: easy on 0/2 against medium on 1/3,
    # and the mirror; with --swap both orders see the same decks, so wins[0] for
    # "medium,easy,..." equals wins[1] for "easy,medium,...".
    base = ["simulate", "--ruleset", "gambler", "--matches", "8", "--seed", "w", "--swap", "--json"]
    a = json.loads(run(capsys, *base, "--seats", "medium,easy")[1])
    b = json.loads(run(capsys, *base, "--seats", "easy,medium")[1])
    assert a["wins"] == b["wins"][::-1]
    assert a["wins"][0] > a["wins"][1]


def test_simulate_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--ruleset",
        "gambler",
        "--seats",
        "hard,easy",
        "--matches",
        "2",
        "--seed",
        "t",
        "--budget",
        "8",
    )
    assert code == 0
    assert "side 0 (hard): " in out and "side 1 (easy): " in out and "draws: " in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--ruleset", "nope", "--seats", "easy,easy", "--matches", "1", "--seed", "x"],
        ["--ruleset", "gambler", "--seats", "easy,easy,easy", "--matches", "1", "--seed", "x"],
        ["--ruleset", "gambler", "--seats", "easy,genius", "--matches", "1", "--seed", "x"],
        ["--ruleset", "gambler", "--seats", "easy,easy", "--matches", "0", "--seed", "x"],
    ],
)
def test_simulate_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run(capsys, "simulate", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
