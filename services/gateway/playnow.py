"""``POST /v1/play-now``: one click to a table (docs/gateway.md#play-now).

``{"ruleset": name, "players": 2 | 4 (optional)}`` -> 200 ``{"table_id", "seat",
"opened": false}`` (seated at a table of the ruleset that waits for humans) or 201 with
``"opened": true`` (a table opened: the caller in seat 0, bots in the others, open to
humans for ``BELOT_PLAY_NOW_WAIT`` seconds before the match starts). Errors: 400
``bad_request`` (no such ruleset, a player count the ruleset does not have), 401
``unauthorized``, 503 when no table worker answers. The table service decides, under a
lock per ruleset (services/table/playnow.py): two players asking at once end at one
table, in two seats.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from belot import RULESETS
from belot_platform import fields, messaging
from belot_platform.messaging import ServiceError
from services.gateway.handlers import Api, _command_id


class PlayNow:
    def __init__(self, api: Api, wait_s: float) -> None:
        self.api = api
        self.wait_ms = int(wait_s * 1000)

    def routes(self) -> list[web.RouteDef]:
        return [web.post("/v1/play-now", self.play_now)]

    async def play_now(self, request: web.Request) -> web.Response:
        who = self.api.identity(request)
        assert who is not None
        body = await self.api.body(request)
        name = fields.text("ruleset", body.get("ruleset"), fields.MAX_QUERY)
        if name not in RULESETS:
            raise ServiceError(
                "bad_request", f"ruleset must be one of {', '.join(sorted(RULESETS))}"
            )
        players = body.get("players")
        if players is not None and (type(players) is not int or players != RULESETS[name].players):
            raise ServiceError(
                "bad_request", f"players: {name} is played by {RULESETS[name].players}"
            )
        request_body: dict[str, Any] = {
            "play_now": True,
            "ruleset": name,
            "player": who.player,
            "name": who.name,  # said with the seat it takes (SeatTaken)
            "bots_open_ms": self.wait_ms,
            "command_id": _command_id(body),
            # The seat's own key (fairdeal.leave): its leave is signed with it.
            **({"key": body["key"]} if "key" in body else {}),
        }
        reply: dict[str, Any] = await messaging.request(
            self.api.nc,
            f"{self.api.prefix}.table.create",
            request_body,
            # Behind the lock, at most every other request of this ruleset now.
            timeout=self.api.timeout * 4,
        )
        out = {k: reply[k] for k in ("table_id", "match_id", "seat", "opened")}
        return web.json_response(out, status=201 if out["opened"] else 200)
