"""The tables' chat and the rematch: HTTP routes of the gateway.

Who reads and writes what. The players of a table talk: a player "at the table" holds
one of its seats now (``SeatTaken`` and no ``SeatLeft`` since, a forfeit's included)
or sat in its match (``FairDealOpened``'s seats), before, during and after the match.
Only they may write, and only they read what players wrote, over HTTP and on the
WebSocket (:mod:`services.gateway.live`). A spectator, and every other player, gets
the table's own lines and nothing else: those are derived from the table's public
fair-deal events (:func:`services.gateway.domain.table_line`), which anyone who may
watch the table sees anyway. So nothing of one table's talk reaches anyone who is not
at that table.

Why the table's lines are derived and not stored: the events are in the log already,
and a second copy written by the gateway could disagree with them (or be missing after a
crash between the two writes); derived at read time, the chat says exactly what the log
says.

Limits: a message is 1 to :data:`MAX_TEXT` characters (after trimming spaces), checked
like every field (``belot_platform.fields``: no NUL, no lone surrogate); a player may
write :data:`MOST` messages in any :data:`WINDOW_S` seconds, at all tables together,
counted in the database (:meth:`ChatStore.post`) so that the limit holds across the
gateway's replicas. Errors: 400 ``bad_request``, 401 ``unauthorized``, 403
``forbidden`` (not at the table), 404 ``unknown_table``, 409 ``match_not_ended`` (a
rematch before the end), 429 ``rate_limited`` with ``Retry-After``.
"""

from __future__ import annotations

import math
import uuid
from typing import Any, Final

import orjson
from aiohttp import web

from belot_platform import fields, outage
from belot_platform.errors import ServiceError
from eventkit import streams
from eventlog import EventStore
from services.gateway.domain import table_line
from services.gateway.handlers import Api
from services.gateway.store import ChatStore, TooMany
from table import events as table_events
from table import state as table_state

#: The longest message, in characters.
MAX_TEXT: Final = 300
#: At most this many messages by one player ...
MOST: Final = 5
#: ... in any window of this many seconds.
WINDOW_S: Final = 10.0
#: The most messages of players one history gives (the latest).
HISTORY: Final = 200
#: The rematch's table: made by this creator with this command id, so that every player
#: of the match who asks for it gets the same table (the table service derives the
#: table's id from the two).
REMATCH_CREATOR: Final = "rematch:{table_id}"
REMATCH_COMMAND: Final = "rematch"


def at_the_table(state: table_state.TableState, player: str) -> bool:
    """Does ``player`` hold a seat at this table now, or sit in its match?"""
    return state.seat_of(player) is not None or any(p == player for _, p in state.match_seats)


def chat_subject(prefix: str, table_id: str) -> str:
    """Where a stored message is published for every gateway's hub."""
    return f"{prefix}.chat.{table_id}"


async def table_lines(store: EventStore, state: table_state.TableState) -> list[dict[str, Any]]:
    """The table's own lines, from its fair deal's public events in the log."""
    lines = []
    for e in await store.read_stream(streams.randomness_stream(state.match_id)):
        line = table_line(e.stream_id, e.version, e.type, e.payload, e.visibility)
        if line is not None:
            lines.append(line)
    return lines


class Chat:
    """The chat's routes. Made with the app (its routes are known before the router
    freezes); :meth:`attach` hands it its store once the app has started."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self._chats: ChatStore | None = None

    def attach(self, chats: ChatStore) -> None:
        self._chats = chats

    @property
    def chats(self) -> ChatStore:
        if self._chats is None:
            raise ServiceError(outage.UNAVAILABLE, "the gateway is starting up")
        return self._chats

    def routes(self) -> list[web.RouteDef]:
        one = "/v1/tables/{table_id}"
        return [
            web.get(one + "/chat", self.get_chat),
            web.post(one + "/chat", self.post_chat),
            web.post(one + "/rematch", self.rematch),
        ]

    async def history(self, table_id: str) -> list[dict[str, Any]]:
        """What players wrote at the table (the hub's history for seated watchers)."""
        return [r.to_json() for r in await self.chats.history(table_id, HISTORY)]

    async def _table(self, table_id: str) -> table_state.TableState:
        events = await self.api.store.read_stream(streams.table_stream(table_id))
        if not events or events[0].type != table_state.TABLE_OPENED:
            raise ServiceError("unknown_table", f"no table {table_id!r}")
        return table_state.fold([(e.type, e.payload) for e in events])

    async def _publish(self, table_id: str, message: dict[str, Any]) -> None:
        # Stored first: a message that NATS loses is still in the history, which the
        # hub sends again when it reconnects.
        await self.api.nc.publish(
            chat_subject(self.api.prefix, table_id),
            orjson.dumps({"table": table_id, "message": message}),
        )

    async def _post(
        self, table_id: str, player: str, text: str, *, limited: bool = True, **kw: Any
    ) -> dict[str, Any]:
        most = MOST if limited else None
        stored = await self.chats.post(table_id, player, text, most=most, window_s=WINDOW_S, **kw)
        if isinstance(stored, TooMany):
            wait = max(1, math.ceil(stored.wait_s))
            raise ServiceError(
                "rate_limited",
                f"at most {MOST} chat messages in {WINDOW_S:g} s: wait {wait} s",
                headers={"Retry-After": str(wait)},
            )
        message = stored.to_json()
        await self._publish(table_id, message)
        return message

    # ------------------------------------------------------------------ routes

    async def get_chat(self, request: web.Request) -> web.Response:
        """``GET /v1/tables/{id}/chat``: the table's lines and, for a player at the
        table, what players wrote; oldest first."""
        table_id = self.api.table_id(request)
        who = self.api.identity(request, required=False)
        state = await self._table(table_id)
        seated = who is not None and at_the_table(state, who.player)
        lines = await table_lines(self.api.store, state)
        if seated:
            lines += await self.history(table_id)
        lines.sort(key=lambda m: (m["at_ms"] or 0, m["id"]))
        return web.json_response(
            {"table_id": table_id, "at_the_table": seated, "limits": LIMITS, "messages": lines}
        )

    async def post_chat(self, request: web.Request) -> web.Response:
        """``POST /v1/tables/{id}/chat`` ``{"text"}``: a message from a player at the
        table; 201 ``{"message"}``."""
        who = self.api.identity(request)
        assert who is not None
        table_id = self.api.table_id(request)
        body = await self.api.body(request)
        text = fields.text("text", body.get("text"), MAX_TEXT,
                           what=f"the message, 1 to {MAX_TEXT} characters").strip()  # fmt: skip
        if not text:
            raise ServiceError("bad_request", "text is only spaces: write something")
        state = await self._table(table_id)
        if not at_the_table(state, who.player):
            raise ServiceError("forbidden", "only the players at this table may write in its chat")
        return web.json_response({"message": await self._post(table_id, who.player, text)},
                                 status=201)  # fmt: skip

    async def rematch(self, request: web.Request) -> web.Response:
        """``POST /v1/tables/{id}/rematch``: once the match has ended, a player of it
        opens (or, if another player did, finds) a new table with the same options and
        seats: the bots at their levels, each human seat kept for the player who sat
        there, the caller seated at its own; the old table's chat says so. 201
        ``{"table_id", "match_id", "seat", "table"}``."""
        who = self.api.identity(request)
        assert who is not None
        table_id = self.api.table_id(request)
        # The key the caller's page made for its new seat (fairdeal.leave), if any.
        key = (await self.api.body(request)).get("key")
        state = await self._table(table_id)
        players = dict(state.match_seats)
        mine = next((s for s, p in players.items() if p == who.player), None)
        if mine is None:
            raise ServiceError("forbidden", "only the players of this match may ask for a rematch")
        if not state.finished:
            raise ServiceError("match_not_ended", "a rematch is offered once the match has ended")
        assert state.options is not None
        o = state.options
        seats: list[Any] = [
            f"bot:{c.level or 'medium'}" if c.kind == table_events.BOT
            else {"kind": table_events.HUMAN, "player": players.get(n)}
            for n, c in enumerate(o.seats)
        ]  # fmt: skip
        created = await self.api.create_table_as(
            REMATCH_CREATOR.format(table_id=table_id),
            {
                "ruleset": o.ruleset,
                "seats": seats,
                "target": o.target,
                "turn_seconds": max(1, o.turn_ms // 1000),
                "fallback_level": o.fallback_level,
                "rated": o.rated,
                "bot_delay_ms": o.bot_delay_ms,
                "autoplay_after": o.autoplay_after,
                "command_id": REMATCH_COMMAND,
            },
        )
        new_id = created["table_id"]
        if created["table"]["seats"][mine].get("player") == who.player:
            # Asked again: the same table, already said in the chat.
            return web.json_response({**created, "seat": mine}, status=201)
        try:
            await self.api.ask_table(new_id, "join", {"player": who.player, "seat": mine,
                                                      "key": key,
                                                      "command_id": uuid.uuid4().hex})  # fmt: skip
        except ServiceError as exc:
            if exc.code != "already_seated":
                raise
            # Asked again: the same table, already said in the chat.
            return web.json_response({**created, "seat": mine}, status=201)
        # Said in the old table's chat, where the other players are; written by the
        # gateway on the player's behalf, so not counted against the player's limit.
        name = who.name or "a player"
        await self._post(table_id, who.player, f"{name} takes the rematch at table {new_id}.",
                         kind="rematch", rematch=new_id, limited=False)  # fmt: skip
        return web.json_response({**created, "seat": mine}, status=201)


#: The limits, as the history tells a client.
LIMITS: Final = {"max_text": MAX_TEXT, "most": MOST, "window_s": WINDOW_S}
