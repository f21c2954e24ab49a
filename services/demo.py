"""The demo ``belot run`` starts once every service answers: bot tables of each ruleset
(created through the gateway like any player would) and, when the tournament service is
there, a small Swiss tournament of bots. Tables are replaced as they finish, so the
platform keeps playing; the first finished match's verification link is printed."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
from typing import TYPE_CHECKING, Any, Final

import aiohttp

from services.serve import REGISTRY

if TYPE_CHECKING:
    from services.run import Supervisor

RULESETS: Final = ("club", "classic", "french", "gambler")
DEMO_PLAYER: Final = "demo"
LEVELS: Final = ("hard", "medium", "easy")


def _say(text: str) -> None:
    sys.stderr.write(f"\n{text}\n")
    sys.stderr.flush()


async def _session(http: aiohttp.ClientSession, base: str, password: str) -> str:
    account = {"name": DEMO_PLAYER, "password": password}
    async with http.post(f"{base}/v1/accounts", json=account) as r:
        if r.status not in (201, 409):
            raise RuntimeError(f"demo account: HTTP {r.status} {await r.text()}")
    async with http.post(f"{base}/v1/sessions", json=account) as r:
        if r.status != 201:
            raise RuntimeError(f"demo session: HTTP {r.status} {await r.text()}")
        token: str = (await r.json())["token"]
        return token


async def _open_table(http: aiohttp.ClientSession, base: str, token: str, n: int) -> str:
    ruleset = RULESETS[n % len(RULESETS)]
    players = 2 if ruleset == "gambler" else 4
    seats = [f"bot:{LEVELS[(n + s) % len(LEVELS)]}" for s in range(players)]
    body = {"ruleset": ruleset, "seats": seats, "rated": False, "bot_delay_ms": 50}
    headers = {"Authorization": f"Bearer {token}"}
    async with http.post(f"{base}/v1/tables", json=body, headers=headers) as r:
        if r.status != 201:
            raise RuntimeError(f"demo table: HTTP {r.status} {await r.text()}")
        reply: dict[str, Any] = await r.json()
        return str(reply["table_id"])


async def _status(http: aiohttp.ClientSession, base: str, table_id: str) -> dict[str, Any]:
    async with http.get(f"{base}/v1/tables/{table_id}") as r:
        result: dict[str, Any] = await r.json() if r.status == 200 else {}
        return result


async def run_demo(supervisor: Supervisor) -> None:
    """Keep one bot table of each ruleset in play until the supervisor stops."""
    if "gateway" not in REGISTRY:
        return
    s = supervisor.resolved
    base = f"http://{s.http_host}:{s.port('gateway')}"
    password_file = s.data_dir.absolute() / "demo-password"
    if not password_file.exists():
        password_file.write_text(secrets.token_urlsafe(18))
        password_file.chmod(0o600)
    password = password_file.read_text().strip()
    announced = False
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        try:
            token = await _session(http, base, password)
            tables = [await _open_table(http, base, token, n) for n in range(len(RULESETS))]
            _say(f"demo: {len(tables)} bot tables ({', '.join(RULESETS)}) playing")
            opened = len(tables)
            while not supervisor.stopping.is_set():
                for i, table_id in enumerate(tables):
                    status = await _status(http, base, table_id)
                    if status.get("status") not in ("closed", "finished"):
                        continue
                    match_id = status.get("table", {}).get("match_id")
                    if not announced and match_id and "verify" in REGISTRY:
                        url = f"http://{s.http_host}:{s.port('verify')}"
                        _say(f"a finished match: {url}/v1/matches/{match_id}/verification")
                        announced = True
                    tables[i] = await _open_table(http, base, token, i)
                    opened += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(supervisor.stopping.wait(), 2.0)
        except (aiohttp.ClientError, RuntimeError, TimeoutError) as exc:
            if not supervisor.stopping.is_set():
                _say(f"demo stopped: {exc}")
