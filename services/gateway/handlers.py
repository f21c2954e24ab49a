"""The gateway's HTTP API: accounts, sessions, the lobby, tables, moves, the WebSocket.

Every error is JSON ``{"error": code, "message": text}``: 400 for bad input (malformed
JSON, a missing or wrong field, a string with a NUL or a lone surrogate anywhere in the
body, one longer than its field's bound: ``belot_platform.fields``), 401 without a valid
token, 403 for another's seat, 404 for an unknown table or route, 405 for a wrong
method, 409 when the game refuses the move (not your turn, illegal card, ...), 410 for
a closed table, 429 past the rate limit (with Retry-After), 503 with Retry-After when
what the request needs does not answer (PostgreSQL, NATS, the table's worker:
``belot_platform.outage``), 500 ``internal`` for anything else unexpected (logged with
its traceback). Each code's status is the platform's one table
(``belot_platform.errors.STATUS``); a service's refusal that comes back over NATS is
raised here as it came (a ``ServiceError``) and answered with its own code.

A request's body is forwarded to a service field by field, never whole: each route
reads (and so checks, or hands on to be checked) only the fields it names.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson
from aiohttp import WSMsgType, web
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from nats.aio.client import Client
from nats.js.kv import KeyValue

from belot import RULESETS, replay
from belot.codec import from_payload
from belot.events import EVENT_TYPES
from belot_platform import fields, messaging, outage
from belot_platform.app import error_response, outage_response
from belot_platform.messaging import ServiceError
from eventkit import streams
from eventlog import EventStore, Viewer
from services.gateway import metrics, names
from services.gateway.domain import (
    MATCH_ENDING,
    RANDOMNESS_OPENED_BY,
    Identity,
    RateLimiter,
    TokenError,
    Tokens,
    retry_after,
    same_secret,
)
from services.gateway.live import Hub
from services.gateway.store import LANGUAGES, AccountStore, NameTaken
from table import state as table_state
from table.views import table_reply

log = logging.getLogger(__name__)

TABLE_ID_RE: Final = re.compile(r"[A-Za-z0-9_\-]{1,64}")
#: A whole number in a path or query: ASCII digits only (``int`` also takes "+1", " 1",
#: "1_0" and other scripts' digits), few enough to bound before converting.
WHOLE_RE: Final = re.compile(r"[0-9]{1,9}")
#: The highest seat number of any ruleset.
MAX_SEAT: Final = max(r.players for r in RULESETS.values()) - 1
TABLE_OPTIONS: Final = (
    *("ruleset", "seats", "target", "turn_seconds", "fallback_level", "rated"),
    *("bot_delay_ms", "sit", "key", "autoplay_after"),
)
#: What each move forwards to the table's owner from the client's body (the gateway
#: adds the player and the command id).
MOVE_FIELDS: Final = {
    "seed": ("seed", "seat"),
    "bid": ("strain", "seat"),
    "play": ("card", "belote", "seat"),
    "announce": ("melds", "belote", "seat"),
    "swap": ("seat",),
    "redeal": ("seat",),
    "leave": ("signature",),
}
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
MAX_NAME: Final = 32
MAX_TABLE_ID: Final = 64
#: How long a command waits for a table that is changing owner before 503.
FAILOVER_WAIT_S: Final = 15.0


def refuse(
    code: str,
    message: str,
    *,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    details: Mapping[str, object] | None = None,
) -> web.Response:
    """The platform's :func:`~belot_platform.app.error_response`, counted by the code
    answered in ``belot_gateway_errors_total``."""
    metrics.ERRORS.labels(outage.client_code(code)).inc()
    return error_response(code, message, status=status, headers=headers, details=details)


@dataclass(frozen=True, slots=True)
class Deps:
    """What the handlers need that exists only once the app has started: the servers'
    connections, the stores, the token keys, the lobby's bucket, the live hub."""

    nc: Client
    store: EventStore
    accounts: AccountStore
    tokens: Tokens
    registry: KeyValue
    hub: Hub


#: The moves a player sends to a table: POST /v1/tables/{table_id}/<verb>.
MOVES: Final = ("seed", "bid", "play", "announce", "swap", "redeal", "leave")


class Api:
    """The handlers, with what they need (no globals). Made with the app, so that its
    routes are known before the router freezes; :meth:`attach` hands it the rest once
    the app has started, and until then every request is a 503 (starting up)."""

    def __init__(
        self,
        *,
        hasher: PasswordHasher,
        limiter: RateLimiter,
        prefix: str,
        timeout: float,
        admin_token: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.hasher = hasher
        self.limiter = limiter
        #: Seconds, for the rate limiter (a test moves it instead of waiting).
        self.clock = clock
        self.prefix = prefix
        self.timeout = timeout
        self.admin_token = admin_token
        self._deps: Deps | None = None

    def attach(self, deps: Deps) -> None:
        self._deps = deps

    @property
    def deps(self) -> Deps:
        if self._deps is None:
            raise ServiceError(outage.UNAVAILABLE, "the gateway is starting up")
        return self._deps

    @property
    def nc(self) -> Client:
        return self.deps.nc

    @property
    def store(self) -> EventStore:
        return self.deps.store

    @property
    def accounts(self) -> AccountStore:
        return self.deps.accounts

    @property
    def tokens(self) -> Tokens:
        return self.deps.tokens

    @property
    def registry(self) -> KeyValue:
        return self.deps.registry

    @property
    def hub(self) -> Hub:
        return self.deps.hub

    def routes(self) -> list[web.RouteDef]:
        """The API's routes (the web client's files and the tournaments' are added
        beside them by the app)."""
        return [
            web.post("/v1/accounts", self.create_account),
            web.post("/v1/sessions", self.create_session),
            web.put("/v1/account/language", self.set_language),
            web.get("/v1/lobby", self.lobby),
            web.post("/v1/tables", self.create_table),
            web.get("/v1/tables/{table_id}", self.get_table),
            web.get("/v1/tables/{table_id}/events", self.table_events),
            web.post("/v1/tables/{table_id}/seats/{seat}", self.join),
            web.post("/v1/tables/{table_id}/seat/resume", self.resume),
            web.get("/v1/ws", self.websocket),
            *(web.post(f"/v1/tables/{{table_id}}/{verb}", self.command(verb)) for verb in MOVES),
        ]

    # ------------------------------------------------------------------ plumbing

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if self._deps is None:
            return outage_response("the gateway is starting up")
        started = time.perf_counter()
        response = await self._answer(request, handler)
        resource = request.match_info.route.resource
        route = resource.canonical if resource is not None else "unmatched"
        metrics.REQUESTS.labels(request.method, route, str(response.status)).inc()
        metrics.REQUEST_SECONDS.labels(route).observe(time.perf_counter() - started)
        return response

    async def _answer(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        try:
            if request.path.startswith("/v1/"):
                key = self._rate_key(request)
                wait = self.limiter.take(key, self.clock())
                if wait > 0:
                    return refuse(
                        "rate_limited",
                        "too many requests: slow down",
                        headers={"Retry-After": retry_after(wait)},
                    )
            return await handler(request)
        except ServiceError as exc:
            return refuse(
                exc.code, exc.message, status=exc.status, headers=exc.headers, details=exc.details
            )
        except fields.FieldError as exc:
            return refuse(exc.code, exc.message)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            code = {404: "not_found", 405: "method_not_allowed"}.get(
                exc.status, re.sub(r"\W+", "_", exc.reason.lower()).strip("_")
            )
            headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
            message = exc.text if exc.text and not exc.text.startswith(str(exc.status)) else ""
            return refuse(code, message or exc.reason, status=exc.status, headers=headers)
        except Exception as exc:
            if outage.is_outage(exc):
                # PostgreSQL or NATS does not answer: the request may succeed in a moment.
                log.warning("%s %s: %s (%s)", request.method, request.path,
                            outage.what_failed(exc), exc)  # fmt: skip
                return refuse(
                    outage.UNAVAILABLE, f"{outage.what_failed(exc)}: retry in a few seconds"
                )
            # A bug, not the client's input: still JSON, never aiohttp's text/plain 500.
            log.exception("%s %s failed", request.method, request.path)
            return refuse("internal", "the gateway failed to answer this request (logged)")

    def _rate_key(self, request: web.Request) -> str:
        """The rate-limit bucket: the player's when the token verifies, else the client
        address's, so that forged tokens (each one different) share one bucket."""
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else ""
        token = token or request.query.get("token", "")
        if token:
            if self.admin_token and same_secret(token, self.admin_token):
                return "admin"  # the operator's own bucket, wherever it calls from
            try:
                return f"player:{self.tokens.check(token).player}"
            except TokenError:
                pass
        return f"addr:{request.remote}"

    def identity(self, request: web.Request, *, required: bool = True) -> Identity | None:
        header = request.headers.get("Authorization", "")
        token = ""
        if header.lower().startswith("bearer "):
            token = header[7:].strip()
        elif request.path == "/v1/ws":
            token = request.query.get("token", "")
        if not token:
            if required:
                raise ServiceError("unauthorized", "send Authorization: Bearer <token>")
            return None
        try:
            return self.tokens.check(token)
        except TokenError as exc:
            raise ServiceError("unauthorized", str(exc)) from None

    async def body(self, request: web.Request) -> dict[str, Any]:
        """The request's JSON object; any string in it with a NUL or a lone surrogate
        is refused here (400, naming where it is), before any handler sees it."""
        raw = await request.read()
        if not raw:
            return {}
        # Looked up at call time (fields.decode), so that a test may record reads.
        data = fields.decode(raw, "the body")
        if not isinstance(data, dict):
            raise ServiceError("bad_request", "the body must be a JSON object")
        return data

    def table_id(self, request: web.Request) -> str:
        # Bad input (400) if it cannot be an id at all; unknown (404) if it could be one.
        table_id = fields.text("table_id", request.match_info["table_id"], MAX_TABLE_ID)
        if TABLE_ID_RE.fullmatch(table_id) is None:
            raise ServiceError("unknown_table", f"no table {table_id!r}")
        return table_id

    async def ask_table(self, table_id: str, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        """Request ``verb`` of the table's owner. While the table changes owner (nobody
        answers, or the old owner lost it) retry with the same command id for a while."""
        subject = f"{self.prefix}.table.{table_id}.{verb}"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FAILOVER_WAIT_S
        while True:
            try:
                reply: dict[str, Any] = await messaging.request(
                    self.nc, subject, body, timeout=self.timeout
                )
                return reply
            except ServiceError as exc:
                if exc.code not in ("unavailable", "table_moved", "timeout"):
                    raise  # the table's refusal, answered as it came
                if exc.code == "unavailable":
                    await self._check_exists(table_id)
                if loop.time() > deadline:
                    raise ServiceError(
                        "table_unavailable", "no table worker answers for this table: retry"
                    ) from None
                await asyncio.sleep(0.2)

    async def _check_exists(self, table_id: str) -> None:
        """Raise unknown_table / table_closed when nobody owns the table for good."""
        try:
            await self.registry.get(table_id)
            return  # open: a worker will claim it
        except Exception:
            pass
        events = await self.store.read_stream(streams.table_stream(table_id))
        if not events:
            raise ServiceError("unknown_table", f"no table {table_id!r}")
        if any(e.type == table_state.TABLE_CLOSED for e in events):
            raise ServiceError("table_closed", "this table is closed")

    # ------------------------------------------------------------------ accounts

    async def create_account(self, request: web.Request) -> web.Response:
        body = await self.body(request)
        password = body.get("password")
        try:
            name = names.account_name(body.get("name"))
        except names.NameError_ as exc:
            raise ServiceError(exc.code, f"name: {exc}", details=exc.details) from None
        if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise ServiceError(
                "bad_request", f"password: {MIN_PASSWORD} to {MAX_PASSWORD} characters"
            )
        password_hash = await asyncio.to_thread(self.hasher.hash, password)
        try:
            account = await self.accounts.create(name, password_hash)
        except NameTaken:
            raise ServiceError(
                "name_taken", f"the name {name.display!r}, or one that looks like it, is taken"
            ) from None
        return web.json_response({"player": account.id, "name": account.name}, status=201)

    async def create_session(self, request: web.Request) -> web.Response:
        body = await self.body(request)
        # Bounded as at sign-up: anything longer names no account and is not hashed.
        name = fields.text("name", body.get("name"), MAX_NAME, min_len=0)
        password = fields.text("password", body.get("password"), MAX_PASSWORD, min_len=0)
        account = await self.accounts.by_name(name)
        bad = ServiceError("bad_credentials", "wrong name or password")
        if account is None:
            raise bad
        try:
            await asyncio.to_thread(self.hasher.verify, account.password_hash, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            raise bad from None
        if self.hasher.check_needs_rehash(account.password_hash):
            new_hash = await asyncio.to_thread(self.hasher.hash, password)
            await self.accounts.set_hash(account.id, new_hash)
        token = self.tokens.issue(Identity(account.id, account.name))
        return web.json_response(
            {
                "token": token,
                "player": account.id,
                "name": account.name,
                "language": account.language,
                "expires_at_ms": time.time_ns() // 1_000_000 + self.tokens.ttl_s * 1000,
            },
            status=201,
        )

    async def set_language(self, request: web.Request) -> web.Response:
        """The player's language for the web client, kept with the account: the page
        speaks it at the next log-in, on any browser."""
        who = self.identity(request)
        assert who is not None
        body = await self.body(request)
        language = fields.text("language", body.get("language"), 8)
        if language not in LANGUAGES:
            raise ServiceError(
                "bad_language", f"language {language!r}: one of {', '.join(LANGUAGES)}"
            )
        await self.accounts.set_language(who.player, language)
        return web.json_response({"language": language})

    # ------------------------------------------------------------------ lobby, tables

    async def lobby(self, request: web.Request) -> web.Response:
        # The filters first: a bad one is refused before the bucket is read.
        ruleset = fields.optional_text("ruleset", request.query.get("ruleset"), fields.MAX_QUERY)
        status = fields.optional_text("status", request.query.get("status"), fields.MAX_QUERY)
        lines = await messaging.kv_values(self.registry, "lobby")
        tables = [
            t
            for t in map(orjson.loads, lines.values())
            if (ruleset is None or t.get("ruleset") == ruleset)
            and (status is None or t.get("status") == status)
        ]
        tables.sort(key=lambda t: t.get("opened_at_ms", 0), reverse=True)
        await self._name_seats(tables)
        return web.json_response({"tables": tables})

    async def create_table(self, request: web.Request) -> web.Response:
        who = self.identity(request)
        assert who is not None
        body = await self.body(request)
        request_body: dict[str, Any] = {k: body[k] for k in TABLE_OPTIONS if k in body}
        request_body["command_id"] = _command_id(body)
        request_body["name"] = who.name  # the creator's seat's name, if it sits at once
        reply = await self.create_table_as(who.player, request_body)
        return web.json_response(reply, status=201)

    async def create_table_as(self, creator: str, options: dict[str, Any]) -> dict[str, Any]:
        """Ask the table service for a table made by ``creator`` (an account, or the
        rematch of a table: :mod:`services.gateway.chat`). Its refusal is raised as it
        came (a :class:`ServiceError`)."""
        reply: dict[str, Any] = await messaging.request(
            self.nc,
            f"{self.prefix}.table.create",
            {**options, "creator": creator},
            timeout=self.timeout * 2,
        )
        return reply

    async def get_table(self, request: web.Request) -> web.Response:
        table_id = self.table_id(request)
        who = self.identity(request, required=False)
        body = {"player": who.player if who else None}
        try:
            reply = await messaging.request(
                self.nc, f"{self.prefix}.table.{table_id}.view", body, timeout=self.timeout
            )
        except ServiceError as exc:
            if exc.code not in outage.OUTAGE_CODES:
                raise
            reply = await self._table_from_log(table_id, who)
            # The log answers for a table whose match has ended; for one in play it
            # knows no seat view or deadline, so when its worker did not answer in time
            # (or NATS is down) the honest answer is "not now".
            ended = reply["status"] in (table_state.FINISHED, table_state.CLOSED)
            if not ended and (exc.code == "timeout" or not self.nc.is_connected):
                raise ServiceError(
                    "unavailable", "the table's worker does not answer: retry in a few seconds"
                ) from None
        await self._name_seats([reply["table"]])
        return web.json_response(reply)

    async def _name_seats(self, tables: list[dict[str, Any]]) -> None:
        """Name the seats whose line has no name (``seats[].name``): a seat taken says its
        player's name (SeatTaken, from the gateway's token); a table's first seats, from
        before that, are looked up in the accounts, the only ones read."""
        unnamed = [s for t in tables for s in t["seats"] if s.get("player") and not s.get("name")]
        if not unnamed:
            return
        names = await self.accounts.names(sorted({s["player"] for s in unnamed}))
        for s in unnamed:
            s["name"] = names.get(s["player"])

    async def _table_from_log(self, table_id: str, who: Identity | None) -> dict[str, Any]:
        """A table nobody owns now (closed, or changing owner): its public line, the
        caller's seat and, once the match has ended, its final view (the game core's
        replay of the match stream: everything in it is public then)."""
        events = await self.store.read_stream(streams.table_stream(table_id))
        if not events:
            raise ServiceError("unknown_table", f"no table {table_id!r}")
        state = table_state.fold([(e.type, e.payload) for e in events])
        seat = state.seat_of(who.player) if who else None
        match = (
            await self.store.read_stream(streams.match_stream(state.match_id))
            if state.finished
            else []
        )
        final, ending, match_version = None, None, 0
        if match and match[-1].type in MATCH_ENDING:
            core = [from_payload(e.payload) for e in match if e.type in EVENT_TYPES]
            final = replay(RULESETS[state.ruleset.name], core)
            ending, match_version = {"type": match[-1].type, **match[-1].payload}, match[-1].version
        return table_reply(
            table_state.summary(state),
            final,
            seat,
            status=state.status,
            table_version=events[-1].version,
            match_version=match_version,
            ending=ending,
            deadline_ms=None,
            server_seed=state.server_seed,
            presence=None,
        )

    async def table_events(self, request: web.Request) -> web.Response:
        """The table's events the caller may see now: the table's, the match's (its own
        seat's private ones too; all of them once the match has ended) and the fair
        deal's."""
        table_id = self.table_id(request)
        who = self.identity(request, required=False)
        events = await self.store.read_stream(streams.table_stream(table_id))
        if not events:
            raise ServiceError("unknown_table", f"no table {table_id!r}")
        state = table_state.fold([(e.type, e.payload) for e in events])
        seat = state.seat_of(who.player) if who else None
        viewer = Viewer.public() if seat is None else Viewer.at_seat(seat)
        match = await self.store.read_stream_as(
            streams.match_stream(state.match_id), viewer, ended_by=MATCH_ENDING
        )
        fair = await self.store.read_stream_as(
            streams.randomness_stream(state.match_id), viewer, ended_by=RANDOMNESS_OPENED_BY
        )
        return web.json_response(
            {
                "table_id": table_id,
                "match_id": state.match_id,
                "seat": seat,
                "streams": {
                    e_stream: [e.to_json_dict() for e in rows]
                    for e_stream, rows in (
                        (streams.table_stream(table_id), events),
                        (streams.match_stream(state.match_id), match),
                        (streams.randomness_stream(state.match_id), fair),
                    )
                },
            }
        )

    async def join(self, request: web.Request) -> web.Response:
        who = self.identity(request)
        assert who is not None
        table_id = self.table_id(request)
        seat = parse_whole(request.match_info["seat"], "the seat", 0, MAX_SEAT)
        body = await self.body(request)
        reply = await self.ask_table(
            table_id,
            "join",
            {
                "player": who.player,
                "name": who.name,
                "seat": seat,
                "command_id": _command_id(body),
                # The seat's own key (fairdeal.leave): its leave is signed with it.
                **({"key": body["key"]} if "key" in body else {}),
            },
        )
        return web.json_response(reply)

    async def resume(self, request: web.Request) -> web.Response:
        """The caller takes its seat back from the bot playing it (autoplay): 403
        ``not_your_seat`` for anyone without a seat, 409 ``not_autoplay`` for a seat no
        bot plays."""
        who = self.identity(request)
        assert who is not None
        table_id = self.table_id(request)
        body = await self.body(request)
        reply = await self.ask_table(
            table_id, "resume", {"player": who.player, "command_id": _command_id(body)}
        )
        return web.json_response(reply)

    def command(self, verb: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        """seed, bid, play, announce, swap, redeal, leave: the body goes to the table's
        owner with the caller's account id and a command id."""

        async def handler(request: web.Request) -> web.Response:
            who = self.identity(request)
            assert who is not None
            table_id = self.table_id(request)
            body = await self.body(request)
            # The move's fields are parsed once, by the table (services.table.handlers
            # parse_move, and its seed check): its refusals come back as they are.
            request_body = {k: body[k] for k in MOVE_FIELDS[verb] if k in body}
            request_body.update(player=who.player, command_id=_command_id(body))
            reply = await self.ask_table(table_id, verb, request_body)
            return web.json_response(reply)

        return handler

    # ------------------------------------------------------------------ WebSocket

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        who = self.identity(request)
        assert who is not None
        # No permessage-deflate: a compressor per socket held ~200 KiB and cost CPU
        # on every message, for messages of a few hundred bytes (docs/gateway.md).
        ws = web.WebSocketResponse(heartbeat=20, compress=False)
        await ws.prepare(request)
        conn = await self.hub.connect(ws, who.player)
        if conn is None:
            return ws  # refused: the gateway is full (services.gateway.live)
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT and msg.type is not WSMsgType.BINARY:
                    continue
                if self.limiter.take(f"ws:{who.player}", self.clock()) > 0:
                    conn.send({"type": "error", "error": "rate_limited", "message": "slow down"})
                    continue
                try:
                    data = orjson.loads(msg.data)
                    op = data.get("op") if isinstance(data, dict) else None
                except orjson.JSONDecodeError:
                    op, data = None, None
                if op == "ping":
                    conn.send({"type": "pong"})
                elif op in ("watch", "unwatch") and isinstance(data.get("table"), str):
                    try:
                        await self._ws_watch(conn, who, op, data["table"])
                    except Exception:
                        # The socket is open: no HTTP error can be sent any more.
                        log.exception("WebSocket %s of %s failed", op, data["table"])
                        conn.send({"type": "error", "error": "internal", "message": f"{op} failed"})
                else:
                    conn.send(
                        {
                            "type": "error",
                            "error": "bad_request",
                            "message": 'send {"op": "watch" | "unwatch", "table": id} or ping',
                        }
                    )
        finally:
            self.hub.disconnect(conn)
            await conn.close()
        return ws

    async def _ws_watch(self, conn: Any, who: Identity, op: str, table_id: str) -> None:
        if op == "unwatch":
            self.hub.unwatch(conn, table_id)
            return
        if TABLE_ID_RE.fullmatch(table_id) is None:
            conn.send({"type": "error", "error": "unknown_table", "message": "no such table"})
            return
        events = await self.store.read_stream(streams.table_stream(table_id), 1, 1)
        if not events or events[0].type != table_state.TABLE_OPENED:
            conn.send({"type": "error", "error": "unknown_table", "message": "no such table"})
            return
        match_id = events[0].payload["match_id"]
        # The seat comes from the table's own events (catch-up sets it).
        await self.hub.watch(conn, table_id, match_id, None)


def parse_whole(text: str, what: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` written in a path or query; raises
    :class:`ServiceError` (bad_request)."""
    if WHOLE_RE.fullmatch(text) is None or not low <= int(text) <= high:
        raise ServiceError("bad_request", f"{what} is a whole number from {low} to {high}")
    return int(text)


def _command_id(body: dict[str, Any]) -> str:
    """The client's command id (a retry sends the same), or a fresh one."""
    return fields.command_id(body.get("command_id")) or uuid.uuid4().hex
