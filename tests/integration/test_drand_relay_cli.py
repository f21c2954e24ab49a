"""`belot drand relay` as a process: serves the recorded beacons over HTTP."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import orjson

from drand import QUICKNET
from tests.ports import free_port
from tools.drand_vectors import BEACONS_FILE, QUICKNET_BEACONS

BELOT = str(Path(sys.executable).with_name("belot"))


def test_relay_process_serves_recorded_beacons() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            BELOT,
            "drand",
            "relay",
            "--beacons",
            str(BEACONS_FILE),
            "--port",
            str(port),
            "--at-round",
            "1002",
        ],
        stderr=subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}/{QUICKNET.hash}/public/1000"
        for _ in range(100):
            try:
                body = urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("relay did not start")
        beacon = orjson.loads(body)
        want = next(b for b in QUICKNET_BEACONS if b["round"] == 1000)
        assert beacon["signature"] == want["signature"]
        assert beacon["randomness"] == hashlib.sha256(bytes.fromhex(want["signature"])).hexdigest()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_relay_bad_arguments_exit_2(tmp_path: Path) -> None:
    bad_mode = subprocess.run(
        [BELOT, "drand", "relay", "--beacons", str(BEACONS_FILE), "--mode", "sleepy"],
        capture_output=True,
        encoding="utf-8",
    )
    assert bad_mode.returncode == 2 and "mode 'sleepy'" in bad_mode.stderr
    junk = tmp_path / "junk.json"
    junk.write_text('[{"round": 5, "signature": "00"}]', encoding="utf-8")
    bad_file = subprocess.run(
        [BELOT, "drand", "relay", "--beacons", str(junk)], capture_output=True, encoding="utf-8"
    )
    assert bad_file.returncode == 2 and "beacon #0" in bad_file.stderr
