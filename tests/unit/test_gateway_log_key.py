"""The transparency log's public key the gateway tells the web client (``/v1/config``
``translog``, services/gateway/web.py log_vkey): BELOT_TRANSLOG_VKEY, else the public
half of BELOT_TRANSLOG_KEY, else the file the verify service writes beside the key it
keeps in the data directory, else none. Offline: the verify side is its log_signer."""

from __future__ import annotations

from pathlib import Path

from belot_platform.settings import TRANSLOG_VKEY_FILE, Settings
from services.gateway.web import log_vkey
from services.verify.translog import KEY_FILE, log_signer
from translog import Ed25519Signer

ORIGIN = "log.test/belot"
KEY = Ed25519Signer(ORIGIN, bytes(range(32)))


def test_the_setting_then_the_key_given() -> None:
    other = Ed25519Signer(ORIGIN, bytes(32))
    assert log_vkey(Settings(translog_origin=ORIGIN, translog_vkey=other.vkey)) == other.vkey
    assert log_vkey(Settings(translog_origin=ORIGIN, translog_key=KEY.skey)) == KEY.vkey


def test_the_key_verify_keeps_in_the_data_directory(tmp_path: Path) -> None:
    settings = Settings(translog_origin=ORIGIN, data_dir=tmp_path)
    assert log_vkey(settings) is None  # verify has not started: nothing to tell
    signer = log_signer(settings)  # verify makes its key, and writes its public half
    assert (tmp_path / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert (tmp_path / TRANSLOG_VKEY_FILE).read_text(encoding="utf-8") == signer.vkey + "\n"
    assert log_vkey(settings) == signer.vkey
    # A second start keeps the same key and file.
    assert log_signer(settings).vkey == signer.vkey
    assert log_vkey(settings) == signer.vkey
    # Another origin's key, or not a key: none is told.
    assert log_vkey(Settings(translog_origin="other.test/log", data_dir=tmp_path)) is None
    (tmp_path / TRANSLOG_VKEY_FILE).write_text("not a key\n", encoding="utf-8")
    assert log_vkey(settings) is None


def test_a_key_given_to_verify_writes_no_file(tmp_path: Path) -> None:
    settings = Settings(translog_origin=ORIGIN, translog_key=KEY.skey, data_dir=tmp_path)
    assert log_signer(settings).vkey == KEY.vkey
    assert not (tmp_path / TRANSLOG_VKEY_FILE).exists()
