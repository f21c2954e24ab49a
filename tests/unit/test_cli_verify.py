"""``belot verify``: the verifier's report in a terminal; exit 0 only when every check
passes, 1 when one does not, 2 for input that is not a record. And ``belot serve``."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Iterator
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from commands import verify_cmd
from commands.cli import main as belot
from fairdeal.verifier import CHECKS
from tests.tamper import find, tampered
from tools.matchgen import MatchSpec, offline_record

SPECS = {
    "drand": MatchSpec(ruleset="classic", end="forfeit", label="cli"),
    "fallback": MatchSpec(ruleset="classic", end="forfeit", drand="fallback", label="cli-fb"),
}


@cache
def _record(kind: str) -> str:
    return json.dumps(offline_record(SPECS[kind]))


def write(tmp_path: Path, doc: Any, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def test_a_good_record_verifies_with_exit_0(tmp_path: Path, capsys: Any) -> None:
    assert belot(["verify", "--no-log", write(tmp_path, _record("drand"))]) == 0
    out = capsys.readouterr().out
    assert "PASS  drand_signature" in out
    assert "the match was dealt fairly with drand round 1001 (the record alone" in out
    assert out.count("PASS") == len(CHECKS)


def test_a_fallback_record_says_it_was_dealt_without_drand(tmp_path: Path, capsys: Any) -> None:
    assert belot(["verify", "--no-log", write(tmp_path, _record("fallback"))]) == 0
    out = capsys.readouterr().out
    assert "dealt without drand" in out
    assert "without drand (no verified drand value" in out.splitlines()[-1]


def test_a_forged_record_exits_1_naming_the_check(tmp_path: Path, capsys: Any) -> None:
    def edit(r: dict[str, Any]) -> None:
        find(r, "randomness", "ServerSeedRevealed")["payload"]["server_seed"] = "11" * 32

    forged = tampered(json.loads(_record("drand")), edit)
    assert belot(["verify", "--no-log", write(tmp_path, forged)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  commitment" in out and "FAIL  decks" in out
    assert "NOT VERIFIED" in out and "commitment" in out.splitlines()[-1]


def test_json_output(tmp_path: Path, capsys: Any) -> None:
    assert belot(["verify", "--no-log", "--json", write(tmp_path, _record("drand"))]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["bls_checked"] is True
    assert [c["name"] for c in report["checks"]][:2] == ["hash_chain", "events"]


def test_stdin(monkeypatch: Any, capsys: Any) -> None:
    import io
    import sys

    stdin = io.TextIOWrapper(io.BytesIO(_record("drand").encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert belot(["verify", "--no-log", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "No such file"),
        ("{not json", "not JSON"),
        ('{"format": "belot-match-record/1"}', "not a match record: match_id"),
        ("[]", "not a match record"),
    ],
)
def test_input_that_is_not_a_record_exits_2_with_one_line(
    tmp_path: Path, capsys: Any, content: str | None, says: str
) -> None:
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, content)
    assert belot(["verify", "--no-log", path]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and says in captured.err
    assert captured.err.startswith("belot verify: error: ")


def test_by_default_a_record_alone_is_not_verified(tmp_path: Path, capsys: Any) -> None:
    # The honest record passes every check of its own; but its times are the server's,
    # and a server that named the round once it knew the value would pass them too. So
    # the check that runs by default asks the log, and without an API to ask it says the
    # round's timing was not checked: NOT VERIFIED, exit 1.
    assert belot(["verify", write(tmp_path, _record("drand"))]) == 1
    out = capsys.readouterr().out
    assert f"SKIP  log_timing       {verify_cmd.NO_LOG_API}" in out
    assert out.count("PASS") == len(CHECKS)
    assert out.splitlines()[-1] == "NOT VERIFIED: 1 of 17 checks did not pass: log_timing"
    # --no-log asks for the record alone, and the verdict says what that leaves.
    assert belot(["verify", "--no-log", write(tmp_path, _record("drand"))]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("VERIFIED") and "rests on the server's clock" in last


def test_no_log_with_log_options_is_bad_input(tmp_path: Path, capsys: Any) -> None:
    path = write(tmp_path, _record("drand"))
    assert belot(["verify", "--no-log", "--witness", "x", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--no-log checks the record without the log" in err


# --- over HTTP ---------------------------------------------------------------------------------


#: What the fake verify API says of the record's commitment: the matches that used it.
COMMITMENT_USERS: list[str] = ["gen-1"]
#: The seed receipts the stand-in API lists as published for gen-1.
PUBLISHED: list[dict[str, Any]] = []


@pytest.fixture
def record_server() -> Iterator[str]:
    """A stand-in for the verify API: the record, what the log says of its commitment
    (:data:`COMMITMENT_USERS`) and of its round (every match followed it), and the seed
    receipts its seats published (:data:`PUBLISHED`)."""
    record = json.loads(_record("drand"))
    commitment = record["fair_deal"]["commitment"]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answers = {
                "/v1/matches/gen-1/record": record,
                f"/v1/commitments/{commitment}": {"matches": COMMITMENT_USERS},
                "/v1/rounds/quicknet/1001": {
                    "fact": "DrandRoundBeacon",
                    "matches": [{"match_id": "gen-1", "dealt_with_drand": True}],
                },
                "/v1/matches/gen-1/receipts": {"match_id": "gen-1", "receipts": PUBLISHED},
            }
            if self.path in answers:
                body = json.dumps(answers[self.path]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_response(404)
                self.end_headers()
                self.wfile.write(b'{"error": "unknown_match"}')

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_record_from_a_url_and_a_match_url(record_server: str, capsys: Any) -> None:
    assert belot(["verify", "--no-log", f"{record_server}/v1/matches/gen-1/record"]) == 0
    assert (
        belot(["verify", "--no-log", f"{record_server}/v1/matches/gen-1"]) == 0
    )  # .../record added
    out = capsys.readouterr().out
    assert "VERIFIED" in out
    assert "PASS  commitment_unique" in out and "PASS  round_consistency" in out
    assert "PASS  seed_receipts" in out
    assert belot(["verify", "--no-log", f"{record_server}/v1/matches/other"]) == 2
    assert "HTTP 404" in capsys.readouterr().err


def test_a_receipt_published_at_the_api_that_the_record_does_not_honour_fails(
    record_server: str, capsys: Any, monkeypatch: Any
) -> None:
    """Seat 0 published the receipt the server signed for its seed at version 2 (the
    match's receipt key), and the record holds another seed there: the server dealt from
    a seed of its own in place of the one it acknowledged (issue 28, case 6)."""
    from fairdeal.receipts import Receipt, sign_receipt
    from tools.matchgen import receipt_secret_of

    spec = SPECS["drand"]
    mine = hashlib.sha256(b"the seed seat 0's tab sent").digest()[:16]
    receipt = Receipt("gen-1", 0, hashlib.sha256(mine).digest(), "randomness-gen-1", 2)
    signed = sign_receipt(receipt_secret_of(spec), receipt).to_json()
    monkeypatch.setattr(sys.modules[__name__], "PUBLISHED", [signed])
    assert belot(["verify", "--no-log", f"{record_server}/v1/matches/gen-1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  seed_receipts" in out and "randomness-gen-1 version 2" in out


def test_an_api_that_serves_no_log_fails_the_default_check(record_server: str, capsys: Any) -> None:
    # The default check asks the API for the log's key and witnesses; an API that
    # serves neither (a made-up one) does not get a VERIFIED.
    assert belot(["verify", f"{record_server}/v1/matches/gen-1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  log_key          could not ask the log for its key" in out
    assert out.splitlines()[-1].startswith("NOT VERIFIED") and "log_key" in out.splitlines()[-1]


def test_a_commitment_another_match_used_is_refused(
    record_server: str, capsys: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    # The API names a second match with the same server seed: a seed used twice.
    monkeypatch.setattr(sys.modules[__name__], "COMMITMENT_USERS", ["gen-0", "gen-1"])
    assert belot(["verify", "--no-log", f"{record_server}/v1/matches/gen-1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  commitment_unique" in out and "gen-0" in out
    # A record from a file is checked against the API given with --api.
    path = write(tmp_path, _record("drand"))
    assert belot(["verify", "--no-log", path, "--api", record_server]) == 1
    assert "FAIL  commitment_unique" in capsys.readouterr().out
    assert belot(["verify", "--no-log", path, "--api", "ftp://x"]) == 2
    assert "--api 'ftp://x': give an http" in capsys.readouterr().err


def test_drand_url_checks_the_beacon_independently(
    tmp_path: Path, capsys: Any, drand_relay: str
) -> None:
    assert (
        belot(["verify", "--no-log", write(tmp_path, _record("drand")), "--drand-url", drand_relay])
        == 0
    )
    out = capsys.readouterr().out
    assert "PASS  drand_relay" in out and "independently serves round 1001" in out
    # The relay serves round 1002, which the record says was missed: a claim the relay
    # cannot confirm, so the fallback never passes this check (nor the whole report).
    assert (
        belot(
            ["verify", "--no-log", write(tmp_path, _record("fallback")), "--drand-url", drand_relay]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert "SKIP  drand_relay" in out and "cannot confirm the fallback" in out
    assert "serves round 1002" in out and out.rstrip().endswith("drand_relay")


def test_drand_url_fails_when_the_relay_disagrees_or_is_silent(
    tmp_path: Path, capsys: Any, drand_relay: str, monkeypatch: Any
) -> None:
    def edit(r: dict[str, Any]) -> None:
        # Another real beacon (round 1002's) recorded as round 1001's: BLS fails too.
        p = find(r, "randomness", "DrandBeaconVerified")["payload"]
        from tools.drand_vectors import QUICKNET_BEACONS

        p["signature"] = next(b["signature"] for b in QUICKNET_BEACONS if b["round"] == 1002)

    forged = tampered(json.loads(_record("drand")), edit)
    assert belot(["verify", "--no-log", write(tmp_path, forged), "--drand-url", drand_relay]) == 1
    out = capsys.readouterr().out
    assert "FAIL  drand_relay" in out and "another signature" in out
    monkeypatch.setattr(verify_cmd, "DRAND_WAIT", 0.5)
    assert (
        belot(
            [
                "verify",
                "--no-log",
                write(tmp_path, _record("drand")),
                "--drand-url",
                "http://127.0.0.1:9",
            ]
        )
        == 1
    )
    assert "SKIP  drand_relay      could not check" in capsys.readouterr().out


# --- belot serve -----------------------------------------------------------------------------


def test_serve_names_the_services(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_info:
        belot(["serve", "nothing"])
    assert exit_info.value.code == 2
    assert "verify" in capsys.readouterr().err


def test_serve_with_bad_settings_exits_2_with_one_line(monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("BELOT_LOG_LEVEL", "LOUD")
    assert belot(["serve", "verify"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("belot serve verify: error: BELOT_LOG_LEVEL") and err.count("\n") == 1


def test_a_receipt_given_by_hand_holds_the_record_to_it(tmp_path: Path, capsys: Any) -> None:
    """``--receipt``: the seat's own receipt (its tab kept it), signed with the match's
    receipt key. A record whose window closed without that seed passes alone and fails
    with it (issue 28, case 6); a file that is no receipt is a usage error."""
    from tests.unit.test_receipts_check import DROPPED, record, victims_receipt

    path = write(tmp_path, record(DROPPED))
    assert belot(["verify", "--no-log", path]) == 0
    capsys.readouterr()
    receipt = write(tmp_path, victims_receipt(DROPPED, 2), "receipt.json")
    assert belot(["verify", "--no-log", path, "--receipt", receipt]) == 1
    out = capsys.readouterr().out
    assert "seed_receipts" in out and "acknowledged at randomness-rc-dropped version 2" in out
    bad = write(tmp_path, {"seat": 0}, "bad.json")
    assert belot(["verify", "--no-log", path, "--receipt", bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("belot verify: error: --receipt ") and err.count("\n") == 1, err
