"""Players of the chaos run: accounts over the gateway's HTTP API, and WebSockets that
watch tables, record every message, and (for seated players) send their seed and play
a legal card whenever the gateway says it is their turn.

They are written to outlast the faults, as a patient client would: a request answered
503 (or not answered) is sent again with the same command id until the table moves
on; a WebSocket the server closes is opened again. What the platform did to them is
recorded, not hidden: each connection's :class:`Feed` keeps every event it was sent,
and how the connection ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any, Final

import aiohttp
import orjson
from aiohttp import WSMsgType

from belot.bots import choose
from table.views import seat_to_move, view_from_json
from tests.chaos.records import Feed, Got
from tests.integration.gateway_support import move_request

PASSWORD: Final = "correct horse battery"
#: How long a request is retried while the platform does not answer (an outage lasts
#: at most 30 s, and a takeover a few more).
PATIENCE_S: Final = 60.0
RETRY_S: Final = 0.5
HTTP_TIMEOUT: Final = aiohttp.ClientTimeout(total=10)
WS_TIMEOUT: Final = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=10)
#: Statuses that mean "not now": the request is sent again.
NOT_NOW: Final = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    headers: dict[str, str]

    def __str__(self) -> str:
        return f"HTTP {self.status} {self.body!r}"[:400]


class Api:
    """The gateway (or the verify API) at ``base``, over one aiohttp session."""

    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http = http
        self.base = base
        #: Answers no outage excuses: a 5xx other than 503, a 503 without Retry-After.
        self.odd: list[str] = []

    async def call(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> Reply:
        """One request; a connection failure or timeout is ``Reply(0, reason, {})``."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            async with self.http.request(
                method, self.base + path, json=body, headers=headers, timeout=HTTP_TIMEOUT
            ) as r:
                raw = await r.read()
                try:
                    parsed: Any = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    parsed = raw.decode(errors="replace")
                reply = Reply(r.status, parsed, dict(r.headers))
        except (aiohttp.ClientError, TimeoutError) as exc:
            return Reply(0, f"{type(exc).__name__}: {exc}", {})
        if reply.status >= 500 and (reply.status != 503 or "Retry-After" not in reply.headers):
            self.odd.append(f"{method} {path.split('?')[0][:80]}: {reply}")
        return reply

    async def patiently(
        self, method: str, path: str, body: Any = None, *, token: str | None = None
    ) -> Reply:
        """:meth:`call`, again while the answer is "not now", for up to :data:`PATIENCE_S`."""
        deadline = time.monotonic() + PATIENCE_S
        while True:
            reply = await self.call(method, path, body, token=token)
            if (reply.status and reply.status not in NOT_NOW) or time.monotonic() > deadline:
                return reply
            await asyncio.sleep(retry_after(reply))


def _is_stale_card(reply: Reply) -> bool:
    """A card the seat no longer holds: the turn timer played for it while the move was
    on its way (or being sent again through an outage), so the view it came from is
    old. The table says so as bad input (400), the only way it can: it does not know
    which view a move was chosen from."""
    return (
        reply.status == 400
        and isinstance(reply.body, dict)
        and reply.body.get("error") == "card_not_in_hand"
    )


def retry_after(reply: Reply) -> float:
    """How long to wait before asking again: the reply's Retry-After, within bounds."""
    try:
        return min(5.0, max(RETRY_S, float(reply.headers.get("Retry-After", RETRY_S))))
    except ValueError:
        return RETRY_S


@dataclass(frozen=True)
class Account:
    name: str
    player: str
    token: str


async def sign_up(api: Api, name: str) -> Account:
    """A new account and a session for it; raises AssertionError if the gateway refuses."""
    creds = {"name": name, "password": PASSWORD}
    made = await api.patiently("POST", "/v1/accounts", creds)
    assert made.status in (201, 409), f"sign-up of {name}: {made}"
    session = await api.patiently("POST", "/v1/sessions", creds)
    assert session.status == 201, f"log-in of {name}: {session}"
    return Account(name, session.body["player"], session.body["token"])


# ---------------------------------------------------------------------- WebSockets


class Watcher:
    """One account's WebSocket on the gateway, watching ``tables``; seated at
    ``seats`` (table -> seat) it sends its seed and plays its turns."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        api: Api,
        account: Account,
        tables: list[str],
        seats: dict[str, int] | None = None,
    ) -> None:
        self.http = http
        self.api = api
        self.account = account
        self.tables = list(tables)
        self.seats = dict(seats or {})
        self.feeds: list[Feed] = []
        self.moves = 0
        self.stale_moves = 0
        #: Moves answered neither 200 nor stale (409, 410, a card no longer held).
        self.refused_moves: list[str] = []
        self.seeds: dict[str, Reply] = {}
        self.watching: set[str] = set()  # tables the gateway said it watches, this connection
        self._turns: dict[str, dict[str, Any]] = {}
        self._turn = asyncio.Event()
        self._tasks: set[asyncio.Future[None]] = set()  # seeds being sent
        self._rng = random.Random(account.name)
        self._ws_url = api.base.replace("http://", "ws://", 1) + "/v1/ws"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.account.token}"}

    async def run(self, stop: asyncio.Event) -> None:
        """Keep a connection open (reopening it if the server ends it) until ``stop``."""
        mover = asyncio.create_task(self._mover(stop), name=f"mover-{self.account.name}")
        try:
            while not stop.is_set():
                try:
                    ws = await self.http.ws_connect(
                        self._ws_url, headers=self.headers, heartbeat=15, timeout=WS_TIMEOUT
                    )
                except (aiohttp.ClientError, TimeoutError):
                    await asyncio.sleep(RETRY_S)
                    continue
                feed = Feed(self.account.name, len(self.feeds) + 1, tuple(self.tables),
                            time.monotonic())  # fmt: skip
                self.feeds.append(feed)
                try:
                    await self._follow(ws, feed, stop)
                except Exception as exc:
                    # Said in the feed: a reader that failed would otherwise look like a
                    # gateway that stopped sending.
                    feed.lost = f"the suite's reader failed: {exc!r}"
                    raise
                finally:
                    await ws.close()
        finally:
            mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await mover

    async def _follow(
        self, ws: aiohttp.ClientWebSocketResponse, feed: Feed, stop: asyncio.Event
    ) -> None:
        self.watching = set()
        for table in feed.tables:
            await ws.send_str(orjson.dumps({"op": "watch", "table": table}).decode())
        while not stop.is_set():
            try:
                msg = await ws.receive(timeout=0.5)
            except TimeoutError:
                continue
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                feed.lost = f"closed by the server: {msg.type.name} {msg.data!r} {msg.extra!r}"
                return
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                continue
            m = orjson.loads(msg.data)
            kind = m.get("type")
            if kind == "event":
                got = Got(time.monotonic(), m["table"], m["stream"], m["version"], m["event"],
                          m["visibility"], bool(m.get("replay")))  # fmt: skip
                feed.events.append(got)
                if got.type == "FairDealOpened" and got.table in self.seats:
                    self._send_seed(got.table)
            elif kind == "view" and seat_to_move(m.get("view")):
                # A pushed view is the GET's reply: its "table" is the table's line.
                table = m["table"]["table_id"]
                if table in self.seats:
                    self._turns[table] = m  # the seat's own view, pushed: its turn
                    self._turn.set()
            elif kind == "watching":
                self.watching.add(m["table"])
            elif kind == "error":
                feed.errors.append(m)

    # ------------------------------------------------------------------ playing

    def _send_seed(self, table: str) -> None:
        if table in self.seeds:
            return
        self.seeds[table] = Reply(0, "sending", {})

        async def send() -> None:
            body = {"seed": os.urandom(16).hex(), "command_id": f"seed-{uuid.uuid4().hex}"}
            self.seeds[table] = await self.api.patiently(
                "POST", f"/v1/tables/{table}/seed", body, token=self.account.token
            )

        task = asyncio.ensure_future(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _mover(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self._turn.wait()
            self._turn.clear()
            for table in list(self._turns):
                turn = self._turns.pop(table, None)
                if turn is not None:
                    await self._act(table, turn, stop)

    async def _act(self, table: str, turn: dict[str, Any], stop: asyncio.Event) -> None:
        """Play the move a bot would choose from the view, sending it again (same
        command id) while the platform answers "not now" and no newer turn came."""
        view = view_from_json(turn["view"])
        verb, body = move_request(choose(view, self._rng, "easy"))
        body = {**body, "command_id": f"move-{uuid.uuid4().hex}"}
        deadline = time.monotonic() + PATIENCE_S
        while not stop.is_set() and table not in self._turns:
            reply = await self.api.call(
                "POST", f"/v1/tables/{table}/{verb}", body, token=self.account.token
            )
            if reply.status == 200:
                self.moves += 1
                return
            if reply.status in (409, 410) or _is_stale_card(reply):
                self.stale_moves += 1  # the timer played first, or the table moved on
                return
            if (reply.status and reply.status not in NOT_NOW) or time.monotonic() > deadline:
                self.refused_moves.append(f"{verb} {body} at {table}: {reply}")
                return
            await asyncio.sleep(retry_after(reply))
