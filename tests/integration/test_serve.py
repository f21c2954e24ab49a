"""``belot serve <service>`` runs each service until SIGTERM, answering /healthz and
/readyz meanwhile, and exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from commands.serve import REGISTRY
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "service",
    sorted(n for n in REGISTRY if n in ("randomness", "table", "gateway", "tournament")),
)
def test_belot_serve_runs_and_stops_on_sigterm(servers, schema, tmp_path, service) -> None:
    port = free_port()
    env = {
        **os.environ,
        "BELOT_PG_DSN": servers.pg_dsn,
        "BELOT_NATS_URL": servers.nats_url,
        "BELOT_PG_SCHEMA": schema,
        "BELOT_GATEWAY_SCHEMA": schema,
        "BELOT_TOURNAMENT_SCHEMA": schema,
        "BELOT_SUBJECT_PREFIX": f"serve{os.getpid()}",
        "BELOT_EVENTS_STREAM": f"SERVE_{os.getpid()}",
        "BELOT_EVENTS_SUBJECT": f"serve{os.getpid()}.events",
        f"BELOT_{service.upper()}_PORT": str(port),
        "BELOT_DATA_DIR": str(tmp_path),
        "BELOT_DRAND_URLS": "http://127.0.0.1:9",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "commands.cli", "serve", service],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        ready = None
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as r:
                    ready = r.status
                    break
            except OSError:
                time.sleep(0.1)
        assert ready == 200, proc.stderr.read().decode()[-2000:] if proc.poll() else "no answer"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if service == "gateway":
        secret = tmp_path / "gateway-token-secret"
        assert (
            secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_text(encoding="utf-8")) == 64
        )


def test_an_unknown_service_is_refused(capsys) -> None:
    from commands.cli import main as belot

    with pytest.raises(SystemExit) as exit_:
        belot(["serve", "nothing"])
    assert exit_.value.code == 2
