"""The demo ``belot run`` starts once every service answers: bot tables of each ruleset
(created through the gateway like any player would) and, when the tournament service is
there, a small Swiss tournament of bots. Tables are replaced as they finish, so the
platform keeps playing; the first finished match's verification link is printed.

A demo runs for days on a laptop, so it is bounded and slow on purpose: at most
:data:`MAX_TABLES` tables in play (one per ruleset, and the tournament's three), and its
bots play at a human pace, one bid or card every :data:`BOT_DELAY_MS` milliseconds
(``belot run --demo-bot-delay-ms`` changes it; the end-to-end test plays fast). What
that writes, measured: docs/operating.md ("The demo's footprint").
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
from typing import Any, Final

import aiohttp

from belot_platform.settings import Settings
from commands.serve import REGISTRY

RULESETS: Final = ("club", "classic", "french", "gambler")
DEMO_PLAYER: Final = "demo"
LEVELS: Final = ("hard", "medium", "easy")
#: A bot's pause before each bid or card: about what a person takes.
BOT_DELAY_MS: Final = 1_500


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


def table_request(n: int, bot_delay_ms: int) -> dict[str, Any]:
    """The create request of the demo's ``n``-th table: ruleset ``n`` (in turn), bots of
    every level, unrated."""
    ruleset = RULESETS[n % len(RULESETS)]
    players = 2 if ruleset == "gambler" else 4
    seats = [f"bot:{LEVELS[(n + s) % len(LEVELS)]}" for s in range(players)]
    return {"ruleset": ruleset, "seats": seats, "rated": False, "bot_delay_ms": bot_delay_ms}


async def _open_table(
    http: aiohttp.ClientSession, base: str, token: str, n: int, bot_delay_ms: int
) -> str:
    body = table_request(n, bot_delay_ms)
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


#: The demo's Swiss tournament: six bots, three rounds, short matches (the bots' pace
#: is the demo's).
TOURNAMENT: Final = {
    "format": "swiss",
    "ruleset": "gambler",
    "rounds": 3,
    "target": 301,
    "rated": False,
}
TOURNAMENT_BOTS: Final = ("easy", "easy", "medium", "medium", "hard", "hard")
#: The most tables the demo has in play at once: one per ruleset, and the tournament's
#: (two players a table in gambler, one round at a time).
MAX_TABLES: Final = len(RULESETS) + len(TOURNAMENT_BOTS) // 2


async def _open_tournament(
    http: aiohttp.ClientSession, base: str, token: str, n: int, bot_delay_ms: int
) -> str:
    """A Swiss tournament of bots, created, filled and started through the gateway."""
    headers = {"Authorization": f"Bearer {token}"}
    body = {**TOURNAMENT, "bot_delay_ms": bot_delay_ms, "name": f"demo Swiss #{n}"}
    async with http.post(f"{base}/v1/tournaments", json=body, headers=headers) as r:
        if r.status != 201:
            raise RuntimeError(f"demo tournament: HTTP {r.status} {await r.text()}")
        tid = str((await r.json())["tournament_id"])
    for level in TOURNAMENT_BOTS:
        url = f"{base}/v1/tournaments/{tid}/entrants"
        async with http.post(url, json={"bot": level}, headers=headers) as r:
            if r.status != 201:
                raise RuntimeError(f"demo tournament entrant: HTTP {r.status} {await r.text()}")
    async with http.post(f"{base}/v1/tournaments/{tid}/start", headers=headers) as r:
        if r.status != 200:
            raise RuntimeError(f"demo tournament start: HTTP {r.status} {await r.text()}")
    return tid


async def _tournament(http: aiohttp.ClientSession, base: str, tid: str) -> dict[str, Any]:
    async with http.get(f"{base}/v1/tournaments/{tid}") as r:
        result: dict[str, Any] = await r.json() if r.status == 200 else {}
        return result


async def run_demo(
    s: Settings, stopping: asyncio.Event, *, bot_delay_ms: int = BOT_DELAY_MS
) -> None:
    """Keep one bot table of each ruleset, and a Swiss tournament of six bots, in play
    until ``stopping`` is set (a finished tournament is followed by a new one). ``s``:
    the settings the platform runs with, its servers resolved; ``bot_delay_ms``: the
    bots' pause before each move. A failed request is reported and retried a little
    later: the demo never stops by itself."""
    if "gateway" not in REGISTRY:
        return
    base = f"http://{s.http_host}:{s.port('gateway')}"
    password_file = s.data_dir.absolute() / "demo-password"
    if not password_file.exists():
        password_file.write_text(secrets.token_urlsafe(18), encoding="utf-8")
        password_file.chmod(0o600)
    password = password_file.read_text(encoding="utf-8").strip()
    verify_port = s.port("verify") if "verify" in REGISTRY else 0
    demo = _Demo(base, password, s.http_host, verify_port, bot_delay_ms)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        while not stopping.is_set():
            try:
                await demo.step(http)
                pause = 2.0
            except (aiohttp.ClientError, RuntimeError, TimeoutError, KeyError) as exc:
                if stopping.is_set():
                    break
                _say(f"demo: {exc!r}; trying again in 5 s")
                demo.token = None  # log in again: the session may be what failed
                pause = 5.0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), pause)


class _Demo:
    """What the demo holds between two steps, so a failed step loses nothing."""

    def __init__(
        self, base: str, password: str, host: str, verify_port: int, bot_delay_ms: int
    ) -> None:
        self.base, self.password = base, password
        self.bot_delay_ms = bot_delay_ms
        self.verify_url = f"http://{host}:{verify_port}" if verify_port else None
        self.token: str | None = None
        self.tables: list[str | None] = [None] * len(RULESETS)
        self.tournament: str | None = None
        self.held = 0
        self.announced = False  # the first finished match's verification link
        self.playing = False  # the tables' announcement

    async def step(self, http: aiohttp.ClientSession) -> None:
        """Open what is missing, replace what finished."""
        if self.token is None:
            self.token = await _session(http, self.base, self.password)
        token = self.token
        for i, table_id in enumerate(self.tables):
            if table_id is not None:
                status = await _status(http, self.base, table_id)
                if status.get("status") not in ("closed", "finished"):
                    continue
                match_id = status.get("table", {}).get("match_id")
                if not self.announced and match_id and self.verify_url:
                    _say(f"a finished match: {self.verify_url}/v1/matches/{match_id}/verification")
                    self.announced = True
            self.tables[i] = await _open_table(http, self.base, token, i, self.bot_delay_ms)
        if not self.playing:
            self.playing = True
            _say(f"demo: {len(RULESETS)} bot tables ({', '.join(RULESETS)}) playing")
        if "tournament" not in REGISTRY:
            return
        if self.tournament is not None:
            t = await _tournament(http, self.base, self.tournament)
            if not t.get("finished"):
                return
            winner = (t["finished"].get("standings") or ["nobody"])[0]
            _say(f"demo: tournament {self.tournament} won by {winner}; a new one starts")
        self.held += 1
        self.tournament = await _open_tournament(
            http, self.base, token, self.held, self.bot_delay_ms
        )
        _say(
            f"demo: a Swiss tournament of 6 bots: {self.base}/v1/tournaments/{self.tournament}"
            "/standings"
        )
