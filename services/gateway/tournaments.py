"""The gateway's tournament routes: HTTP in, the tournament service's NATS API out
(``<prefix>.tournament.<verb>``), with the caller as ``actor``.

Who may do what. Reading (list, a tournament, its draw, standings, exports) needs no
token.
Entering and withdrawing oneself need an account's token. The organiser's actions
(edit, cancel, seeding, forbidden pairs, start, next round, pause, resume, terminate,
corrections, entering a bot or another account, withdrawing someone else) need the
token of the account that created the tournament, or the operators' token
``BELOT_ADMIN_TOKEN`` sent as ``Authorization: Bearer <token>`` (an admin may run any
tournament; one it creates has no creator account).

Errors are the gateway's JSON ``{"error", "message"}``: 400 bad input (``bad_request``,
``bad_settings``, ``bad_result``, ``bad_seeding``; an ``actor`` field: the gateway says
who asks), 401 ``unauthorized``, 403 ``forbidden`` / ``wrong_password``, 404
``unknown_tournament`` / ``unknown_match``, 409 what the rules refuse now
(``registration_closed``, ``tournament_full``, ``rating_out_of_band``,
``already_started``, ``round_in_progress``, ``paused``, …), 500 ``internal`` when the
service failed, 503 ``unavailable`` (with Retry-After) when the tournament service, or
what it needs, does not answer.
"""

from __future__ import annotations

from typing import Any, Final

from aiohttp import web

from belot_platform import messaging
from belot_platform.messaging import ServiceError
from services.gateway.domain import same_secret
from services.gateway.handlers import Api, parse_whole

#: The most tournaments one list gives (the tournament service's bound).
MAX_LIST: Final = 1000
#: POST /v1/tournaments/{id}/<action> -> the service's verb.
ACTIONS: Final = {
    "cancel": "cancel",
    "terminate": "terminate",
    "start": "start",
    "rounds": "next_round",
    "pause": "pause",
    "resume": "resume",
    "withdraw": "withdraw",
    "corrections": "correct",
}


class Tournaments:
    def __init__(self, api: Api, admin_token: str | None) -> None:
        self.api = api
        self.admin_token = admin_token

    def actor(self, request: web.Request, *, required: bool) -> dict[str, Any]:
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else ""
        if token and self.admin_token and same_secret(token, self.admin_token):
            return {"player": None, "admin": True}
        who = self.api.identity(request, required=required)
        return {"player": None if who is None else who.player, "admin": False}

    async def ask(self, verb: str, body: dict[str, Any]) -> Any:
        """The tournament service's reply; its refusal is raised as it came (a
        :class:`ServiceError`, answered with the platform's status of its code)."""
        return await messaging.request(
            self.api.nc,
            f"{self.api.prefix}.tournament.{verb}",
            body,
            timeout=self.api.timeout * 3,
        )

    async def _command(
        self, request: web.Request, verb: str, extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        body = await self.api.body(request)
        if "actor" in body:  # who asks is the gateway's to say, from the token
            raise ServiceError("bad_request", "actor: the gateway names who asks; do not send it")
        body.update(extra or {})
        body["actor"] = self.actor(request, required=True)
        if "tournament_id" in request.match_info:
            body["tournament_id"] = request.match_info["tournament_id"]
        reply: dict[str, Any] = await self.ask(verb, body)
        return reply

    # ------------------------------------------------------------------ routes

    def routes(self) -> list[web.RouteDef]:
        base = "/v1/tournaments"
        one = base + "/{tournament_id}"
        return [
            web.get(base, self.list_all),
            web.post(base, self.create),
            web.get(one, self.get),
            web.patch(one, self.edit),
            web.post(one + "/entrants", self.enter),
            web.delete(one + "/entrants/{entrant}", self.withdraw_entrant),
            web.put(one + "/seeding", self.seeding),
            web.put(one + "/forbidden-pairs", self.forbidden),
            web.get(one + "/draw", self.draw),
            web.get(one + "/standings", self.standings),
            web.get(one + "/export", self.export),
            web.post(one + "/{action}", self.action),
        ]

    async def list_all(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = {}
        if "status" in request.query:
            body["status"] = request.query["status"]
        if "limit" in request.query:
            body["limit"] = parse_whole(request.query["limit"], "limit", 1, MAX_LIST)
        reply = await self.ask("list", body)
        winners = [t["winner"] for t in reply["tournaments"] if t.get("winner")]
        names = await self.names([p for w in winners for p in w["players"]])
        for w in winners:
            w["names"] = [names[p] for p in w["players"]]
        return web.json_response(reply)

    async def create(self, request: web.Request) -> web.Response:
        return web.json_response(await self._command(request, "create"), status=201)

    async def names(self, players: list[str]) -> dict[str, str]:
        """Account names of the players (bots and unknown ids keep their id)."""
        found = await self.api.accounts.names(sorted(set(players)))
        return {p: found.get(p) or p for p in players}

    async def get(self, request: web.Request) -> web.Response:
        tid = request.match_info["tournament_id"]
        reply = await self.ask("get", {"tournament_id": tid})
        players = [
            *reply.get("entrants", []),
            *(p for ps in reply.get("teams", {}).values() for p in ps),
        ]
        reply["names"] = await self.names(players)
        winner = reply.get("winner")
        if winner:  # its players' names too (a team's two)
            winner["names"] = [reply["names"].get(p, p) for p in winner["players"]]
        return web.json_response(reply)

    async def edit(self, request: web.Request) -> web.Response:
        return web.json_response(await self._command(request, "edit"))

    async def action(self, request: web.Request) -> web.Response:
        verb = ACTIONS.get(request.match_info["action"])
        if verb is None:
            raise ServiceError("not_found", f"no action {request.match_info['action']!r}")
        return web.json_response(await self._command(request, verb))

    async def enter(self, request: web.Request) -> web.Response:
        return web.json_response(await self._command(request, "enter"), status=201)

    async def withdraw_entrant(self, request: web.Request) -> web.Response:
        entrant = request.match_info["entrant"]
        return web.json_response(await self._command(request, "withdraw", {"entrant": entrant}))

    async def seeding(self, request: web.Request) -> web.Response:
        return web.json_response(await self._command(request, "seeding"))

    async def forbidden(self, request: web.Request) -> web.Response:
        return web.json_response(await self._command(request, "forbid"))

    async def draw(self, request: web.Request) -> web.Response:
        """The draw document: the tournament's public core events, from which
        ``belot verify-draw`` recomputes a random seeding (docs/tournaments.md)."""
        tid = request.match_info["tournament_id"]
        return web.json_response(await self.ask("draw", {"tournament_id": tid}))

    async def standings(self, request: web.Request) -> web.Response:
        tid = request.match_info["tournament_id"]
        reply = await self.ask("standings", {"tournament_id": tid})
        names = await self.names([p for row in reply["rows"] for p in row["players"]])
        for row in reply["rows"]:
            row["names"] = [names[p] for p in row["players"]]
        return web.json_response(reply)

    async def export(self, request: web.Request) -> web.Response:
        tid = request.match_info["tournament_id"]
        fmt = request.query.get("format", "json")
        reply = await self.ask("export", {"tournament_id": tid, "format": fmt})
        return web.Response(
            text=reply["body"],
            content_type=reply["content_type"].split(";")[0],
            charset="utf-8",
            headers={"Content-Disposition": f'attachment; filename="{reply["filename"]}"'},
        )
