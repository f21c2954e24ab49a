"""``belot analyse``: a record verified, then analysed double-dummy; the JSON is the
analysis of the record's events (belot.analysis); a record that does not verify is not
analysed (exit 1), input that is not a record exits 2 with one line."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from belot.analysis import analyse
from belot.codec import from_payload
from belot.ruleset import RULESETS
from commands.cli import main as belot
from tests.tamper import find, tampered
from tools.matchgen import MatchSpec, offline_record


@cache
def record(ruleset: str, end: str = "natural") -> str:
    spec = MatchSpec(match_id=f"an-{ruleset}-{end}", ruleset=ruleset, label=f"an-{ruleset}",
                     end=end, target=150 if ruleset != "gambler" else 200)  # fmt: skip
    return json.dumps(offline_record(spec))


def write(tmp_path: Path, doc: Any) -> str:
    path = tmp_path / "record.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def events_of(doc: dict[str, Any]) -> list[Any]:
    return [
        from_payload(e["payload"])
        for e in doc["streams"]["match"]["events"]
        if e["type"] not in ("MatchForfeited", "MatchAborted")
    ]


@pytest.mark.parametrize("ruleset", ["club", "gambler"])
def test_the_json_is_the_analysis_of_the_records_events(
    tmp_path: Path, capsys: Any, ruleset: str
) -> None:
    doc = json.loads(record(ruleset))
    assert belot(["analyse", "--json", write(tmp_path, doc)]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = analyse(RULESETS[ruleset], events_of(doc)).to_json()
    assert printed == json.loads(json.dumps(expected))
    assert printed["format"] == "belot-analysis/1" and printed["match_id"] == doc["match_id"]
    assert sum(s["cards"] for s in printed["seats"]) == sum(
        1 for e in doc["streams"]["match"]["events"] if e["type"] == "CardPlayed"
    )


def test_the_summary_names_each_seat_and_deal(tmp_path: Path, capsys: Any) -> None:
    assert belot(["analyse", write(tmp_path, record("club"))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("match an-club-natural (club): ")
    for seat in range(4):
        assert f"  seat {seat}: " in out
    assert "deal 0: " in out and "double-dummy card points by strain" in out


def test_a_forfeited_match_is_analysed_up_to_its_end(tmp_path: Path, capsys: Any) -> None:
    doc = json.loads(record("classic", "forfeit"))
    assert belot(["analyse", "--json", write(tmp_path, doc)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["deals"], printed


def test_a_record_that_does_not_verify_is_not_analysed(tmp_path: Path, capsys: Any) -> None:
    def edit(r: dict[str, Any]) -> None:  # another server seed: no deck is the recipe's
        find(r, "randomness", "ServerSeedRevealed")["payload"]["server_seed"] = "11" * 32

    forged = tampered(json.loads(record("club")), edit)
    assert belot(["analyse", "--json", write(tmp_path, forged)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("belot analyse: not_verified: the record does not verify")
    assert "decks" in captured.err and captured.err.count("\n") == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [("{not json", "not JSON"), ("[]", "not a match record"), (None, "No such file")],
)
def test_input_that_is_not_a_record_exits_2_with_one_line(
    tmp_path: Path, capsys: Any, content: str | None, says: str
) -> None:
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, content)
    assert belot(["analyse", path]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and says in captured.err
