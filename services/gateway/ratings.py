"""The gateway's rating routes: the rating service's reads over NATS
(``<prefix>.rating.leaderboard``, ``<prefix>.rating.player``), with the players' names
added from the accounts (the rating service knows ids only). They need no token: ratings
are public, as on the rating service's own HTTP API (docs/ratings.md).

Errors: 400 ``bad_request`` (a query value, or a player id that cannot be one), 404
``bad_ruleset`` (a pool that is no ruleset), 503 ``unavailable`` when the rating
service does not answer.
"""

from __future__ import annotations

import re
from typing import Any, Final

from aiohttp import web

from belot import RULESETS
from belot_platform import fields, messaging
from belot_platform.messaging import ServiceError
from services.gateway.handlers import Api, parse_whole

#: The most rows one leaderboard gives (the rating service's bound).
MAX_ROWS: Final = 1000
DEFAULT_ROWS: Final = 100
FLAGS: Final = {"0": False, "false": False, "1": True, "true": True}
#: A player id in a path: the gateway's account ids are 32 hex digits; this leaves room
#: for other ASCII ids and refuses anything a rated player cannot be called.
PLAYER_RE: Final = re.compile(r"[A-Za-z0-9_.:\-]{1,200}")


class Ratings:
    def __init__(self, api: Api) -> None:
        self.api = api

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/v1/leaderboards/{pool}", self.leaderboard),
            web.get("/v1/players/{player}", self.player),
        ]

    async def ask(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        """The rating service's reply; its refusal is raised as it came."""
        reply: dict[str, Any] = await messaging.request(
            self.api.nc, f"{self.api.prefix}.rating.{verb}", body, timeout=self.api.timeout
        )
        return reply

    async def leaderboard(self, request: web.Request) -> web.Response:
        """``GET /v1/leaderboards/{pool}[?all=1][&limit=n]``: the rating service's
        leaderboard of a ruleset, each row with the player's ``name``."""
        pool = fields.text("pool", request.match_info["pool"], fields.MAX_QUERY)
        if pool not in RULESETS:
            # A path that names no ruleset names no leaderboard: 404, where bad_ruleset in
            # a query string (the verify API's ?ruleset=) is bad input, the table's 400.
            raise ServiceError(
                "bad_ruleset", f"no ruleset {pool!r}: one of {', '.join(RULESETS)}", status=404
            )
        everyone = FLAGS.get(request.query.get("all", "0"))
        if everyone is None:
            raise ServiceError("bad_request", "all is 0 or 1")
        limit = DEFAULT_ROWS
        if "limit" in request.query:
            limit = parse_whole(request.query["limit"], "limit", 1, MAX_ROWS)
        reply = await self.ask("leaderboard", {"pool": pool, "all": everyone, "limit": limit})
        names = await self.api.accounts.names([r["player"] for r in reply["rows"]])
        for row in reply["rows"]:
            row["name"] = names.get(row["player"])
        return web.json_response(reply)

    async def player(self, request: web.Request) -> web.Response:
        """``GET /v1/players/{player}``: the account's name, and its rating and rated
        matches in every ruleset (``pools``), with ``names`` for everyone they name."""
        player = fields.identifier("player", request.match_info["player"])
        if PLAYER_RE.fullmatch(player) is None:
            raise ServiceError("bad_request", f"player {fields.quote(player)} is not a player id")
        reply = await self.ask("player", {"player": player})
        met = {player}
        for pool in reply["pools"].values():
            for h in pool["history"]:
                met.update(h["partners"], h["opponents"])
        names = await self.api.accounts.names(sorted(met))
        reply["name"] = names.get(player)
        reply["names"] = names
        return web.json_response(reply)
