"""``belot run``'s children each get only their own database URLs: their role's
``BELOT_PG_DSN``, and verify alone its read URL (``BELOT_VERIFY_READ_DSN``); no child
sees the role passwords ``belot db setup`` read. And the log is watched by default: a
witness of its own, with its own key and none of the platform's settings, configured
as the log's witness."""

from __future__ import annotations

from pathlib import Path

import pytest

from belot_platform.settings import Settings
from commands.run import WITNESS_DIR, Supervisor
from translog import CosignatureVerifier, Cosigner, parse_skey, parse_vkey


def test_only_verify_gets_the_read_url_and_each_child_its_own_role(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    read = "postgresql://belot_verify:p0123456789abcdef@replica:5432/belot"
    monkeypatch.setenv("BELOT_VERIFY_READ_DSN", read)
    monkeypatch.setenv("BELOT_PG_TABLE_PASSWORD", "p0123456789abcdef-table")
    settings = Settings(
        pg_dsn="postgresql://admin@primary/belot", nats_url="nats://n:4222", data_dir=tmp_path
    )
    supervisor = Supervisor(settings, table_workers=1)
    supervisor.role_dsns = {
        "verify": "postgresql://belot_verify:p0123456789abcdef@primary/belot",
        "table": "postgresql://belot_table:p0123456789abcdef-table@primary/belot",
    }
    children = {c.name: c.env for c in supervisor.plan()}
    assert children["verify"]["BELOT_VERIFY_READ_DSN"] == read
    assert children["verify"]["BELOT_PG_DSN"] == supervisor.role_dsns["verify"]
    assert children["table-1"]["BELOT_PG_DSN"] == supervisor.role_dsns["table"]
    others = {name: env for name, env in children.items() if name != "verify"}
    assert others and all("BELOT_VERIFY_READ_DSN" not in env for env in others.values())
    assert all("BELOT_PG_TABLE_PASSWORD" not in env for env in children.values())


def test_without_a_read_url_verify_gets_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("BELOT_VERIFY_READ_DSN", raising=False)
    settings = Settings(
        pg_dsn="postgresql://admin@primary/belot", nats_url="nats://n:4222", data_dir=tmp_path
    )
    children = {c.name: c.env for c in Supervisor(settings, table_workers=1).plan()}
    assert "verify" in children
    assert all("BELOT_VERIFY_READ_DSN" not in env for env in children.values())


def test_the_log_is_watched_by_a_witness_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    operators = Cosigner("witness.example.org/w1", bytes(range(32)))  # the operator's own
    monkeypatch.setenv("BELOT_PG_TABLE_PASSWORD", "p0123456789abcdef-table")
    settings = Settings(
        pg_dsn="postgresql://admin@primary/belot",
        nats_url="nats://n:4222",
        data_dir=tmp_path,
        translog_witnesses=(operators.vkey,),
    )
    children = {c.name: c for c in Supervisor(settings, table_workers=1).plan()}
    witness = children["witness"]
    # Its own key, kept by it alone, made once: a second plan finds the same.
    key_file = tmp_path / WITNESS_DIR / "key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    ours = parse_skey(key_file.read_text(encoding="utf-8").strip())
    assert isinstance(ours.verifier(), CosignatureVerifier)
    again = {c.name: c for c in Supervisor(settings, table_workers=1).plan()}
    assert again["witness"].argv == witness.argv
    # The log counts it, after the operator's own.
    configured = children["verify"].env["BELOT_TRANSLOG_WITNESSES"].split(",")
    assert configured == [operators.vkey, ours.vkey]
    assert all(isinstance(parse_vkey(v), CosignatureVerifier) for v in configured)
    # None of the platform's settings: no database, no NATS, no log secret; it reads the
    # log's public API with the log's public key.
    assert not [k for k in witness.env if k.startswith("BELOT_")]
    assert witness.port is None
    argv = witness.argv
    assert argv[argv.index("--api") + 1] == f"http://127.0.0.1:{settings.port('verify')}"
    log_key = (tmp_path / "translog-key").read_text(encoding="utf-8").strip()
    assert log_key not in " ".join(argv)
    assert argv[argv.index("--log-key") + 1] == parse_skey(log_key).vkey
    assert argv[argv.index("--key") + 1] == str(key_file)
