"""``belot verify-draw``: a tournament's draw checked in a terminal; exit 0 only when
every check passes, 1 when one does not, 2 (one line, no traceback) for input that is not
a draw document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from commands.cli import main as belot
from commands.draw_cmd import document_url
from tests.unit.test_draw_check import document, drawn, payload


def write(tmp_path: Path, doc: Any) -> str:
    path = tmp_path / "draw.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def test_an_honest_draw_verifies_with_exit_0(tmp_path: Path, capsys: Any) -> None:
    assert belot(["verify-draw", write(tmp_path, document(drawn()))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tournament t1: drawn from drand round 1001\n")
    assert "  PASS  beacon_signature" in out and "VERIFIED:" in out


def test_a_reordered_draw_fails_with_exit_1_naming_the_check(tmp_path: Path, capsys) -> None:
    doc = document(drawn())
    order = payload(doc, "DrawMade")["order"]
    order[0], order[-1] = order[-1], order[0]
    assert belot(["verify-draw", write(tmp_path, doc)]) == 1
    out = capsys.readouterr().out
    assert "  FAIL  order" in out and "NOT VERIFIED: 1 of 8 checks did not pass: order" in out


def test_json_report(tmp_path: Path, capsys: Any) -> None:
    assert belot(["verify-draw", "--json", write(tmp_path, document(drawn()))]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["round"] == 1001 and report["bls_checked"]


@pytest.mark.parametrize(
    "args,says",
    [
        (["missing.json"], "missing.json"),
        (["{not json"], "not JSON"),
        (['{"format": "x"}'], "not a draw document"),
        (["[]"], "not a draw document"),
        (["t1", "--api", "ftp://x"], "--api"),
        (["../etc", "--api", "http://127.0.0.1:1"], "tournament id"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: Any, args, says) -> None:
    first = args[0]
    if first.startswith(("{", "[")):
        args = [write(tmp_path, first), *args[1:]]
    elif first == "missing.json":
        args = [str(tmp_path / first)]
    assert belot(["verify-draw", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("belot verify-draw: error:") and says in lines[0]


def test_where_the_document_is() -> None:
    api = "https://belot.example/"
    assert document_url("abc", api) == "https://belot.example/v1/tournaments/abc/draw"
    url = "https://belot.example/v1/tournaments/abc"
    assert document_url(url, None) == url + "/draw"
    assert document_url(url + "/draw", None) == url + "/draw"
    assert document_url("draw.json", None) == "draw.json"
