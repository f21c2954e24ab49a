"""Every string field of every gateway route and of every table, tournament and
randomness NATS subject, tried with a NUL, a lone surrogate and an oversized value (and,
where the field holds a text or a number, a JSON object: the wrong type altogether), on
the real platform (PostgreSQL, NATS, the services): each is a 400 (or the field's
precise code) whose JSON message names the field, and nothing is appended to the log
nor written to the lobby's bucket.

The cases come from one list (ROUTES): for each route or subject, every field its
handlers read. The list cannot fall behind the code: while the cases run, every body a
service decodes records which of its fields are read (fields_support.RecordingDict),
and the test fails on a field read that the list does not name, on a field the list
names that nothing reads, on a gateway route or NATS subject the list does not have,
and on a query parameter the gateway's source reads that the list does not name.

Each route also gets one valid request first (where one can be made without starting
anything that keeps appending by itself): so the route works, and the 400 is the
field's. Fields that only a URL carries cannot hold a lone surrogate at all (a URL is
bytes, and invalid UTF-8 arrives as other characters): for them that case checks only
that nothing fails or is written.
"""

from __future__ import annotations

import ast
import asyncio
import itertools
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import Mock

import pytest

from belot_platform import fields
from services.gateway.tournaments import ACTIONS
from services.randomness.handlers import Handlers as RandomnessHandlers
from services.table.handlers import MOVES, REQUESTS
from services.tournament import domain as tournament_domain
from services.tournament.handlers import Handlers as TournamentHandlers
from tests.integration.fields_support import (
    NUL,
    OBJECT,
    OVERSIZED_BODY,
    OVERSIZED_URL,
    SURROGATE,
    Reads,
    Request,
    get,
    leaf,
    recording_decode,
    send,
)
from tests.integration.gateway_support import Player
from tests.integration.tournament_support import ADMIN, Harness, harness

pytestmark = pytest.mark.asyncio(loop_scope="session")

ROOT = Path(__file__).resolve().parents[2]
SEED = "ab" * 16


@dataclass
class Ctx:
    h: Harness
    ann: Player
    bob: Player
    table: str = ""  # open, ann at seat 0, waiting for three more
    tid: str = ""  # a Swiss tournament registering, two bots entered
    match_seed: str = ""  # a randomness match: seat 0 is p0's, seat 1 a bot's
    counter: Any = field(default_factory=itertools.count)

    @property
    def prefix(self) -> str:
        return self.h.platform.prefix

    def unique(self, tag: str) -> str:
        return f"{tag}-{next(self.counter)}-{uuid.uuid4().hex[:6]}"

    async def new_table(self) -> str:
        reply = await self.h.platform.create(ruleset="club", command_id=self.unique("t"))
        return str(reply["table_id"])

    async def new_tournament(self, bots: int = 0) -> str:
        tid = await self.h.create(format="swiss", rounds=3, command_id=self.unique("tr"))
        await self.h.bots(tid, bots)
        return tid


Build = Callable[[Ctx], Awaitable[Request]]
#: The valid request of a route is its base; ``SAME``: send the base as the valid one.
SAME = "same"


@dataclass
class Route:
    name: str  # "POST /v1/tables/{table_id}/seats/{seat}" or "table.join"
    fields: tuple[str, ...]
    base: Build
    valid: Build | str | None = SAME  # the valid request (None: none is sent)
    alt: dict[str, Build] = field(default_factory=dict)  # a field's own base request
    #: Codes a field's bad values may get besides bad_request, with their HTTP status.
    accept: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def nats(self) -> bool:
        return not self.name.startswith(("GET ", "POST ", "PUT ", "PATCH ", "DELETE "))


# --- the fields ------------------------------------------------------------------------

SEATS = ("seats", "seats[]", "seats[].kind", "seats[].level", "seats[].player")
TABLE_OPTIONS = (
    *("ruleset", *SEATS, "target", "turn_seconds", "fallback_level", "rated"),
    *("bot_delay_ms", "autoplay_after", "sit", "key", "command_id"),
)
#: A seat's key (fairdeal.leave): a value of the wrong shape is refused with its own code.
BAD_KEY = {"key": {"bad_key": 400}}
POINTS = ("points", "points.win", "points.draw", "points.loss", "points.*")
TOURNAMENT_SETTINGS = (
    *("name", "password", "ruleset", "table_size", "rounds", "best_of", *POINTS),
    *("round_seconds", "seat_window_seconds", "ladder_days", "rotate_partners", "seeding"),
    *("max_entrants", "min_rating", "max_rating", "target", "turn_seconds", "bot_delay_ms"),
    *("fallback_level", "rated", "auto_next", "command_id", "*"),
)
#: Who asks, as the gateway says it on NATS (a client of the gateway may not).
ACTOR = ("actor", "actor.player", "actor.admin")


def table_options(ctx: Ctx, creator: str) -> dict[str, Any]:
    return {
        "ruleset": "club",
        "seats": [
            {"kind": "human", "player": creator},
            "human",
            {"kind": "bot", "level": "easy"},
            "bot:easy",
        ],
        "target": 100,
        "turn_seconds": 60,
        "fallback_level": "easy",
        "rated": False,
        "bot_delay_ms": 0,
        "autoplay_after": 3,
        "sit": 0,
        "command_id": ctx.unique("create"),
    }


def tournament_settings(ctx: Ctx) -> dict[str, Any]:
    return {
        "name": "bounds",
        "password": "entry-pass",
        "ruleset": "club",
        "table_size": 4,
        "rounds": 3,
        "best_of": 1,
        "points": {"win": 3, "draw": 1, "loss": 0},
        "round_seconds": 600,
        "seat_window_seconds": 60,
        "ladder_days": 30,
        "rotate_partners": False,
        "seeding": "rating",
        "max_entrants": 16,
        "min_rating": None,
        "max_rating": None,
        "target": 100,
        "turn_seconds": 60,
        "bot_delay_ms": 0,
        "fallback_level": "easy",
        "rated": False,
        "auto_next": True,
        "command_id": ctx.unique("tr"),
    }


def admin() -> dict[str, Any]:
    return {"player": None, "admin": True}


# --- gateway routes ----------------------------------------------------------------------


def gw(
    method: str,
    path: str,
    body: Any = None,
    *,
    auth: str = "",
    headers: dict[str, str] | None = None,
    **kw: Any,
) -> Request:
    sent = {**(headers or {}), **({"Authorization": f"Bearer {auth}"} if auth else {})}
    return Request(method, path, body=body, headers=sent, **kw)


def table_verb(verb: str, body: dict[str, Any]) -> Build:
    async def build(c: Ctx) -> Request:
        return gw(
            "POST",
            f"/v1/tables/{{table_id}}/{verb}",
            {**body, "command_id": c.unique(verb)},
            auth=c.ann.token,
            params={"table_id": c.table},
        )

    return build


def action(name: str, body: dict[str, Any], fresh: int | None = None) -> tuple[Build, Build | None]:
    """A tournament action's base (on the shared tournament) and valid request (on a
    fresh one with ``fresh`` bots; None: no valid request)."""

    def make(tid: str, c: Ctx) -> Request:
        return gw(
            "POST",
            "/v1/tournaments/{tournament_id}/{action}",
            {**body, "command_id": c.unique(name)},
            headers=ADMIN,
            params={"tournament_id": tid, "action": name},
        )

    async def base(c: Ctx) -> Request:
        return make(c.tid, c)

    async def valid(c: Ctx) -> Request:
        return make(await c.new_tournament(fresh or 0), c)

    return base, (valid if fresh is not None else None)


def tournament_route(
    name: str, fields_: tuple[str, ...], body: dict[str, Any], fresh: int | None = None
) -> Route:
    base, valid = action(name, body, fresh)
    not_an_action = {"/action": {"not_found": 404}}
    return Route(
        f"POST /v1/tournaments/{{tournament_id}}/{{action}}={name}",
        ("/tournament_id", "/action", *fields_, "command_id", "actor"),
        base,
        valid,
        accept=not_an_action,
    )


async def _accounts(c: Ctx) -> Request:
    return gw("POST", "/v1/accounts", {"name": c.unique("acct")[:32], "password": "correct horse"})


async def _sessions(c: Ctx) -> Request:
    return gw("POST", "/v1/sessions", {"name": c.ann.name, "password": "correct horse"})


async def _language(c: Ctx) -> Request:
    return gw("PUT", "/v1/account/language", {"language": "ru"}, auth=c.ann.token)


async def _lobby(c: Ctx) -> Request:
    return gw("GET", "/v1/lobby", query={"ruleset": "club", "status": "open"})


async def _create_table(c: Ctx) -> Request:
    return gw("POST", "/v1/tables", table_options(c, c.ann.player), auth=c.ann.token)


async def _table(c: Ctx) -> Request:
    return gw("GET", "/v1/tables/{table_id}", params={"table_id": c.table})


async def _events(c: Ctx) -> Request:
    return gw("GET", "/v1/tables/{table_id}/events", params={"table_id": c.table})


async def _join(c: Ctx) -> Request:
    return gw(
        "POST",
        "/v1/tables/{table_id}/seats/{seat}",
        {"command_id": c.unique("join")},
        auth=c.bob.token,
        params={"table_id": c.table, "seat": "2"},
    )


async def _leave(c: Ctx) -> Request:
    return gw(
        "POST",
        "/v1/tables/{table_id}/leave",
        {"command_id": c.unique("leave")},
        auth=c.bob.token,
        params={"table_id": c.table},
    )


async def _resume(c: Ctx) -> Request:
    return gw(
        "POST",
        "/v1/tables/{table_id}/seat/resume",
        {"command_id": c.unique("resume")},
        auth=c.ann.token,
        params={"table_id": c.table},
    )


async def _play_now(c: Ctx) -> Request:
    return gw(
        "POST",
        "/v1/play-now",
        {"ruleset": "club", "players": 4, "command_id": c.unique("now")},
        auth=c.ann.token,
    )


async def _announce_belote(c: Ctx) -> Request:
    return await table_verb("announce", {"belote": "KH", "seat": 0})(c)


async def _ws(c: Ctx) -> Request:
    return gw("GET", "/v1/ws", query={"token": c.ann.token})


async def _config(c: Ctx) -> Request:
    return gw("GET", "/v1/config")


async def _rulesets(c: Ctx) -> Request:
    return gw("GET", "/v1/rulesets")


async def _chat(c: Ctx) -> Request:
    return gw("GET", "/v1/tables/{table_id}/chat", auth=c.ann.token,
              params={"table_id": c.table})  # fmt: skip


async def _say(c: Ctx) -> Request:
    return gw("POST", "/v1/tables/{table_id}/chat", {"text": "hello"}, auth=c.ann.token,
              params={"table_id": c.table})  # fmt: skip


async def _rematch(c: Ctx) -> Request:
    return gw("POST", "/v1/tables/{table_id}/rematch", auth=c.ann.token,
              params={"table_id": c.table})  # fmt: skip


async def _leaderboard(c: Ctx) -> Request:
    return gw("GET", "/v1/leaderboards/{pool}", params={"pool": "club"},
              query={"all": "1", "limit": "10"})  # fmt: skip


async def _player(c: Ctx) -> Request:
    return gw("GET", "/v1/players/{player}", params={"player": c.ann.player})


async def _tournaments(c: Ctx) -> Request:
    return gw("GET", "/v1/tournaments", query={"status": "registering", "limit": "10"})


async def _create_tournament(c: Ctx) -> Request:
    return gw(
        "POST", "/v1/tournaments", {"format": "swiss", **tournament_settings(c)}, headers=ADMIN
    )


def _one_tournament(suffix: str, query: dict[str, str] | None = None) -> Build:
    async def build(c: Ctx) -> Request:
        return gw(
            "GET",
            f"/v1/tournaments/{{tournament_id}}{suffix}",
            params={"tournament_id": c.tid},
            query=query or {},
        )

    return build


async def _edit(c: Ctx) -> Request:
    return gw(
        "PATCH",
        "/v1/tournaments/{tournament_id}",
        tournament_settings(c),
        headers=ADMIN,
        params={"tournament_id": c.tid},
    )


def _enter(body: dict[str, Any]) -> Build:
    async def build(c: Ctx) -> Request:
        return gw(
            "POST",
            "/v1/tournaments/{tournament_id}/entrants",
            {**body, "command_id": c.unique("enter")},
            headers=ADMIN,
            params={"tournament_id": c.tid},
        )

    return build


async def _withdraw_entrant(c: Ctx) -> Request:
    return gw(
        "DELETE",
        "/v1/tournaments/{tournament_id}/entrants/{entrant}",
        {"command_id": c.unique("out")},
        headers=ADMIN,
        params={"tournament_id": c.tid, "entrant": "bot:easy:1"},
    )


async def _withdraw_entrant_valid(c: Ctx) -> Request:
    tid = await c.new_tournament(1)
    return gw(
        "DELETE",
        "/v1/tournaments/{tournament_id}/entrants/{entrant}",
        {"command_id": c.unique("out")},
        headers=ADMIN,
        params={"tournament_id": tid, "entrant": "bot:easy:1"},
    )


async def _seeding(c: Ctx) -> Request:
    return gw(
        "PUT",
        "/v1/tournaments/{tournament_id}/seeding",
        {"mode": "manual", "order": ["bot:easy:2", "bot:easy:1"], "command_id": c.unique("seed")},
        headers=ADMIN,
        params={"tournament_id": c.tid},
    )


async def _seeding_valid(c: Ctx) -> Request:
    req = await _seeding(c)
    req.params["tournament_id"] = await c.new_tournament(2)
    return req


async def _forbid(c: Ctx) -> Request:
    return gw(
        "PUT",
        "/v1/tournaments/{tournament_id}/forbidden-pairs",
        {"pairs": [["bot:easy:1", "bot:easy:2"]], "command_id": c.unique("forbid")},
        headers=ADMIN,
        params={"tournament_id": c.tid},
    )


CORRECTION = {
    "round": 1,
    "match": 1,
    "game": 1,
    "a": "win",
    "b": "loss",
    "a_points": 0,
    "b_points": 0,
    "reason": "a typo",
}
CORRECTION_FIELDS = tuple(CORRECTION)

GATEWAY: list[Route] = [
    Route("POST /v1/accounts", ("name", "password"), _accounts, accept={"name": {"bad_name": 400}}),
    Route("POST /v1/sessions", ("name", "password"), _sessions),
    Route(
        "PUT /v1/account/language",
        ("language",),
        _language,
        accept={"language": {"bad_language": 400}},
    ),
    Route("GET /v1/lobby", ("?ruleset", "?status"), _lobby),
    Route("POST /v1/tables", TABLE_OPTIONS, _create_table, accept=BAD_KEY),
    Route("GET /v1/tables/{table_id}", ("/table_id",), _table),
    Route("GET /v1/tables/{table_id}/events", ("/table_id",), _events),
    Route(
        "POST /v1/tables/{table_id}/seats/{seat}",
        ("/table_id", "/seat", "key", "command_id"),
        _join,
        accept=BAD_KEY,
    ),
    # No bot plays ann's seat: not_autoplay (409).
    Route("POST /v1/tables/{table_id}/seat/resume", ("/table_id", "command_id"), _resume, None),
    # ann sits at the shared table (of the same ruleset): she is answered with her seat
    # there, and no table is opened (one would start playing by itself).
    Route(
        "POST /v1/play-now", ("ruleset", "players", "key", "command_id"), _play_now, accept=BAD_KEY
    ),
    Route(
        "POST /v1/tables/{table_id}/leave",
        ("/table_id", "signature", "command_id"),
        _leave,
        accept={"signature": {"bad_signature": 400}},
    ),
    Route(
        "POST /v1/tables/{table_id}/seed",
        ("/table_id", "seed", "seat", "command_id"),
        table_verb("seed", {"seed": SEED, "seat": 0}),
        None,  # the match has not started: not_started
    ),
    Route(
        "POST /v1/tables/{table_id}/bid",
        ("/table_id", "strain", "seat", "command_id"),
        table_verb("bid", {"strain": "hearts", "seat": 0}),
        None,
    ),
    Route(
        "POST /v1/tables/{table_id}/play",
        ("/table_id", "card", "belote", "seat", "command_id"),
        table_verb("play", {"card": "AS", "belote": False, "seat": 0}),
        None,
    ),
    Route(
        "POST /v1/tables/{table_id}/announce",
        ("/table_id", "melds", "belote", "seat", "command_id"),
        table_verb("announce", {"melds": True, "seat": 0}),
        None,
        alt={"belote": _announce_belote},
    ),
    Route(
        "POST /v1/tables/{table_id}/swap",
        ("/table_id", "seat", "command_id"),
        table_verb("swap", {"seat": 0}),
        None,
    ),
    Route(
        "POST /v1/tables/{table_id}/redeal",
        ("/table_id", "seat", "command_id"),
        table_verb("redeal", {"seat": 0}),
        None,
    ),
    Route("GET /v1/tables/{table_id}/chat", ("/table_id",), _chat),
    Route("POST /v1/tables/{table_id}/chat", ("/table_id", "text"), _say),
    # The match has not ended (nor opened): forbidden to anyone.
    Route("POST /v1/tables/{table_id}/rematch", ("/table_id",), _rematch, None),
    # No rating service here: a valid request would be 503.
    Route("GET /v1/leaderboards/{pool}", ("/pool", "?all", "?limit"), _leaderboard, None),
    Route("GET /v1/players/{player}", ("/player",), _player, None),
    # A token is a credential: one that holds anything else is no token (401).
    Route("GET /v1/ws", ("?token",), _ws, None, accept={"?token": {"unauthorized": 401}}),
    Route("GET /v1/config", (), _config),
    Route("GET /v1/rulesets", (), _rulesets),
    Route("GET /v1/tournaments", ("?status", "?limit"), _tournaments),
    Route("POST /v1/tournaments", ("format", *TOURNAMENT_SETTINGS, "actor"), _create_tournament),
    Route("GET /v1/tournaments/{tournament_id}", ("/tournament_id",), _one_tournament("")),
    Route(
        "PATCH /v1/tournaments/{tournament_id}",
        ("/tournament_id", *TOURNAMENT_SETTINGS, "actor"),
        _edit,
    ),
    Route(
        "POST /v1/tournaments/{tournament_id}/entrants",
        ("/tournament_id", "bot", "password", "player", "command_id", "actor"),
        _enter({"bot": "easy"}),
        alt={
            "password": _enter({"password": "entry-pass"}),
            "player": _enter({"player": "an-account"}),
        },
    ),
    Route(
        "DELETE /v1/tournaments/{tournament_id}/entrants/{entrant}",
        ("/tournament_id", "/entrant", "command_id", "actor"),
        _withdraw_entrant,
        _withdraw_entrant_valid,
    ),
    Route(
        "PUT /v1/tournaments/{tournament_id}/seeding",
        ("/tournament_id", "mode", "order", "order[]", "command_id", "actor"),
        _seeding,
        _seeding_valid,
    ),
    Route(
        "PUT /v1/tournaments/{tournament_id}/forbidden-pairs",
        ("/tournament_id", "pairs", "pairs[]", "pairs[][]", "command_id", "actor"),
        _forbid,
    ),
    Route(
        "GET /v1/tournaments/{tournament_id}/draw",
        ("/tournament_id",),
        _one_tournament("/draw"),
    ),
    Route(
        "GET /v1/tournaments/{tournament_id}/standings",
        ("/tournament_id",),
        _one_tournament("/standings"),
    ),
    Route(
        "GET /v1/tournaments/{tournament_id}/export",
        ("/tournament_id", "?format"),
        _one_tournament("/export", {"format": "csv"}),
    ),
    tournament_route("pause", (), {}, fresh=0),
    tournament_route("resume", (), {}, fresh=0),
    tournament_route("cancel", ("reason",), {"reason": "bounds"}, fresh=0),
    # Only a tournament in play can be terminated, and one in play keeps appending.
    tournament_route("terminate", ("reason",), {"reason": "bounds"}),
    tournament_route("withdraw", ("entrant",), {"entrant": "bot:easy:1"}, fresh=1),
    tournament_route("start", (), {}),  # starting would keep the platform appending
    tournament_route("rounds", (), {}),
    tournament_route("corrections", CORRECTION_FIELDS, CORRECTION),
]


# --- NATS subjects -----------------------------------------------------------------------


def subject(name: str, body: Callable[[Ctx], dict[str, Any]], **kw: Any) -> Build:
    """``name`` may hold ``{table}`` (the shared table's id)."""

    async def build(c: Ctx) -> Request:
        return Request(subject=name.format(table=c.table), body=body(c), **kw)

    return build


def direct_create(c: Ctx) -> dict[str, Any]:
    return {**table_options(c, "bounds-creator"), "creator": "bounds-creator"}


def direct_create_in(c: Ctx) -> dict[str, Any]:
    """A creation for a tournament's game (only its service sends ``tournament``)."""
    return {**direct_create(c), "tournament": {"id": "bounds-cup", "name": "Bounds cup"}}


def direct_play_now(c: Ctx) -> dict[str, Any]:
    """``table.create`` as the gateway sends it for play now. ann sits at the shared
    table, of this ruleset: the valid one answers her seat there and opens nothing."""
    return {
        "play_now": True,
        "ruleset": "club",
        "player": c.ann.player,
        "bots_open_ms": 0,
        "command_id": c.unique("now"),
    }


async def _abort_valid(c: Ctx) -> Request:
    table = await c.new_table()
    return Request(subject=f"table.{table}.abort", body={"reason": "bounds", "by": "tests"})


def move(verb: str, extra: dict[str, Any]) -> Build:
    return subject(
        f"table.{{table}}.{verb}",
        lambda c: {"player": c.ann.player, "seat": 0, "command_id": c.unique(verb), **extra},
    )


PLAYER = ("player", "seat", "command_id")


def tsubject(verb: str, body: Callable[[Ctx], dict[str, Any]]) -> Build:
    return subject(f"tournament.{verb}", lambda c: {"actor": admin(), **body(c)})


def on_tid(extra: dict[str, Any]) -> Callable[[Ctx], dict[str, Any]]:
    return lambda c: {"tournament_id": c.tid, "command_id": c.unique("t"), **extra}


def fresh_tournament(verb: str, bots: int, extra: dict[str, Any]) -> Build:
    async def build(c: Ctx) -> Request:
        tid = await c.new_tournament(bots)
        body = {"actor": admin(), "tournament_id": tid, "command_id": c.unique(verb), **extra}
        return Request(subject=f"tournament.{verb}", body=body)

    return build


T = ("tournament_id", "command_id", *ACTOR)

#: A subject whose requests take two ways has a route for each, ``subject=way``: each
#: lists the fields its way reads (the subject reads the fields of all its routes).
NATS: list[Route] = [
    Route(
        "table.create",
        (*TABLE_OPTIONS, "creator", "play_now", "bots_open_ms", "name"),
        subject("table.create", direct_create),
        accept=BAD_KEY,
    ),
    Route(
        "table.create=tournament",
        ("tournament", "tournament.id", "tournament.name"),
        subject("table.create", direct_create_in),
        None,  # a table of no tournament's, open for good
    ),
    Route(
        "table.create=play_now",
        ("play_now", "ruleset", "player", "bots_open_ms", "key", "command_id", "name"),
        subject("table.create", direct_play_now),
        accept=BAD_KEY,
    ),
    Route(
        "table.view",
        ("player",),
        subject("table.{table}.view", lambda c: {"player": c.ann.player}),
    ),
    Route(
        "table.join",
        (*PLAYER, "key", "any", "name"),
        subject(
            "table.{table}.join",
            lambda c: {"player": "p-direct", "seat": 1, "command_id": c.unique("join")},
        ),
        accept=BAD_KEY,
    ),
    Route(
        "table.leave",
        ("player", "signature", "command_id"),
        subject(
            "table.{table}.leave", lambda c: {"player": "p-direct", "command_id": c.unique("leave")}
        ),
        accept={"signature": {"bad_signature": 400}},
    ),
    Route("table.seed", (*PLAYER, "seed"), move("seed", {"seed": SEED}), None),
    Route(
        "table.resume",
        ("player", "command_id"),
        subject(
            "table.{table}.resume",
            lambda c: {"player": c.ann.player, "command_id": c.unique("resume")},
        ),
        None,  # no bot plays ann's seat: not_autoplay
    ),
    Route(
        "table.presence",
        ("gateway", "players", "players[]", "ttl_ms", "watchers", "joined"),
        subject(
            "table.{table}.presence",
            lambda c: {
                "gateway": "bounds-gateway",
                "players": [c.ann.player],
                "ttl_ms": 5_000,
                "watchers": 1,
            },
        ),
    ),
    Route(
        "table.abort",
        ("reason", "by"),
        subject("table.{table}.abort", lambda c: {"reason": "bounds", "by": "tests"}),
        _abort_valid,
    ),
    Route("table.bid", (*PLAYER, "strain"), move("bid", {"strain": "hearts"}), None),
    Route(
        "table.play",
        (*PLAYER, "card", "belote"),
        move("play", {"card": "AS", "belote": False}),
        None,
    ),
    Route(
        "table.announce",
        (*PLAYER, "melds", "belote"),
        move("announce", {"melds": True}),
        None,
        alt={"belote": move("announce", {"belote": "KH"})},
    ),
    Route("table.swap", PLAYER, move("swap", {}), None),
    Route("table.redeal", PLAYER, move("redeal", {}), None),
    Route(
        "tournament.create",
        ("format", *TOURNAMENT_SETTINGS, *ACTOR),
        tsubject("create", lambda c: {"format": "swiss", **tournament_settings(c)}),
    ),
    Route(
        "tournament.list",
        ("status", "limit"),
        subject("tournament.list", lambda c: {"status": "registering", "limit": 5}),
    ),
    Route(
        "tournament.get",
        ("tournament_id",),
        subject("tournament.get", lambda c: {"tournament_id": c.tid}),
    ),
    Route(
        "tournament.edit",
        ("tournament_id", *TOURNAMENT_SETTINGS, *ACTOR),
        tsubject("edit", lambda c: {"tournament_id": c.tid, **tournament_settings(c)}),
    ),
    Route(
        "tournament.cancel",
        (*T, "reason"),
        tsubject("cancel", on_tid({"reason": "x"})),
        fresh_tournament("cancel", 0, {"reason": "x"}),
    ),
    Route(
        "tournament.terminate",
        (*T, "reason"),
        tsubject("terminate", on_tid({"reason": "x"})),
        None,
    ),
    Route(
        "tournament.enter",
        (*T, "bot", "password", "player"),
        tsubject("enter", on_tid({"bot": "easy"})),
        alt={
            "password": tsubject("enter", on_tid({"password": "entry-pass"})),
            "player": tsubject("enter", on_tid({"player": "an-account"})),
        },
    ),
    Route(
        "tournament.withdraw",
        (*T, "entrant"),
        tsubject("withdraw", on_tid({"entrant": "bot:easy:1"})),
        fresh_tournament("withdraw", 1, {"entrant": "bot:easy:1"}),
    ),
    Route(
        "tournament.seeding",
        (*T, "mode", "order", "order[]"),
        tsubject("seeding", on_tid({"mode": "manual", "order": ["bot:easy:1", "bot:easy:2"]})),
        fresh_tournament("seeding", 2, {"mode": "manual", "order": ["bot:easy:1", "bot:easy:2"]}),
    ),
    Route(
        "tournament.forbid",
        (*T, "pairs", "pairs[]", "pairs[][]"),
        tsubject("forbid", on_tid({"pairs": [["bot:easy:1", "bot:easy:2"]]})),
    ),
    Route("tournament.start", T, tsubject("start", on_tid({})), None),
    Route("tournament.next_round", T, tsubject("next_round", on_tid({})), None),
    Route("tournament.pause", T, tsubject("pause", on_tid({}))),
    Route("tournament.resume", T, tsubject("resume", on_tid({}))),
    Route(
        "tournament.correct",
        (*T, *CORRECTION_FIELDS),
        tsubject("correct", on_tid(CORRECTION)),
        None,
    ),
    Route(
        "tournament.draw",
        ("tournament_id",),
        subject("tournament.draw", lambda c: {"tournament_id": c.tid}),
    ),
    Route(
        "tournament.standings",
        ("tournament_id",),
        subject("tournament.standings", lambda c: {"tournament_id": c.tid}),
    ),
    Route(
        "tournament.export",
        ("tournament_id", "format"),
        subject("tournament.export", lambda c: {"tournament_id": c.tid, "format": "json"}),
    ),
    Route(
        "randomness.open",
        (
            *("match_id", "seats", "seats[]", "seats[].seat", "seats[].player"),
            *("seats[].key", "window_ms"),
        ),
        subject(
            "randomness.open",
            lambda c: {
                "match_id": c.unique("m"),
                "window_ms": 1,
                "seats": [{"seat": 0, "player": "p0"}, {"seat": 1, "player": None}],
            },
        ),
        accept={"seats[].key": {"bad_key": 400}},
    ),
    Route(
        "randomness.seed",
        ("match_id", "seat", "player", "seed", "command_id"),
        subject(
            "randomness.seed",
            lambda c: {
                "match_id": c.match_seed,
                "seat": 0,
                "player": "p0",
                "seed": SEED,
                "command_id": c.unique("s"),
            },
        ),
    ),
    Route(
        "randomness.deck",
        ("match_id", "deal", "cards", "wait_ms"),
        subject(
            "randomness.deck",
            lambda c: {"match_id": c.match_seed, "deal": 0, "cards": 32, "wait_ms": 15_000},
        ),
    ),
    Route(
        "randomness.reveal",
        ("match_id",),
        subject("randomness.reveal", lambda c: {"match_id": c.match_seed}),
        None,
    ),
    Route(
        "randomness.status",
        ("match_id",),
        subject("randomness.status", lambda c: {"match_id": c.match_seed}),
    ),
]

ROUTES = [*GATEWAY, *NATS]


# --- what the platform holds -------------------------------------------------------------


async def lobby(c: Ctx) -> dict[str, bytes | None]:
    """The lobby bucket's lines, read from its stream: the subjects it holds and the last
    message of each (a KV watcher, keys() included, can come back short on nats-server
    2.9 right after writes)."""
    js = c.h.platform.nc.jetstream()
    stream = f"KV_{c.prefix}_tables"
    info = await js.stream_info(stream, subjects_filter=">")
    lines: dict[str, bytes | None] = {}
    for subject in sorted(info.state.subjects or {}):
        msg = await js.get_last_msg(stream, subject)
        deleted = (msg.headers or {}).get("KV-Operation") in ("DEL", "PURGE")
        if not deleted:
            lines[subject.split(".", 2)[2]] = msg.data
    return lines


async def held(c: Ctx) -> tuple[int, dict[str, bytes | None]]:
    """The log's head position and the lobby's lines."""
    return await c.h.platform.store.head_position(), await lobby(c)


async def quiet(c: Ctx, still: float = 1.5, timeout: float = 60) -> None:
    """Wait until nothing is appended or listed for ``still`` seconds (the valid
    requests' after-effects: a seed window closing, a drand round fixed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last, since = await held(c), loop.time()
    while loop.time() - since < still:
        assert loop.time() < deadline, "the platform kept writing"
        await asyncio.sleep(0.25)
        now = await held(c)
        if now != last:
            last, since = now, loop.time()


async def changes(
    c: Ctx, before: tuple[int, dict[str, Any]], after: tuple[int, dict[str, Any]]
) -> str:
    """What was written between two looks (for the failure's message)."""
    events = await c.h.platform.store.read_all(before[0], 10)
    lines = sorted(k for k in {*before[1], *after[1]} if before[1].get(k) != after[1].get(k))
    return f"appended {[(e.stream_id, e.type) for e in events]}, lines changed {lines}"


# --- the test ------------------------------------------------------------------------------


def covered(path: str, reads: set[str]) -> bool:
    """Was ``path`` read, or every key beside it listed (``*``)?"""
    return path in reads or any(r.endswith("*") and path.startswith(r[:-1]) for r in reads)


async def setup(h: Harness) -> Ctx:
    ann = await Player(h.http, "bounds-ann").register()
    bob = await Player(h.http, "bounds-bob").register()
    c = Ctx(h, ann, bob)
    status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
    assert status == 201, created
    c.table = created["table_id"]
    c.tid = await c.new_tournament(2)
    c.match_seed = c.unique("m")
    opened = await h.platform.request(
        "randomness.open",
        {
            "match_id": c.match_seed,
            "window_ms": 600_000,
            "seats": [{"seat": 0, "player": "p0"}, {"seat": 1, "player": None}],
        },
    )
    assert "commitment" in opened, opened
    return c


async def test_no_field_takes_a_nul_a_lone_surrogate_or_an_oversized_value(
    servers, store, pg_pool, nc, js_names, monkeypatch
) -> None:
    async with harness(servers, store, pg_pool, nc, js_names) as h:
        c = await setup(h)
        reads = Reads()
        monkeypatch.setattr(fields, "decode", recording_decode(reads, c.prefix))

        async def ask(route: Route, req: Request) -> Any:
            # Reads are the route's only while its request is in flight: building one
            # (a fresh tournament, say) makes requests of its own.
            reads.route = route.name
            try:
                return await send(h.http, nc, c.prefix, req)
            finally:
                reads.route = "building"

        # Each route's valid request: it works (so a 400 below is the field's).
        for route in ROUTES:
            if route.valid is None:
                continue
            valid = route.base if route.valid == SAME else route.valid
            assert callable(valid)
            answer = await ask(route, await valid(c))
            assert answer.status < 300 and answer.code is None, (route.name, answer.body)
        await quiet(c)

        failures: list[str] = []
        cases = 0
        for route in ROUTES:
            for name in route.fields:
                base = await route.alt.get(name, route.base)(c)
                url = name.startswith(("/", "?"))
                values: list[Any] = [NUL, SURROGATE, OVERSIZED_URL if url else OVERSIZED_BODY]
                if not url and not isinstance(get(base.body, name), (dict, list)):
                    values.append(OBJECT)  # and not a key ("*"), nor a field that is one
                if name.endswith("*"):
                    values = values[:3]
                for value in values:
                    cases += 1
                    before = await held(c)
                    answer = await ask(route, base.with_field(name, value))
                    after = await held(c)
                    what = (
                        f"{route.name} {name}={fields.quote(value)}: {answer.status} {answer.body}"
                    )
                    if not answer.json:
                        failures.append(f"{what}: not JSON")
                    elif url and value is SURROGATE:
                        # It arrived as other characters: only nothing may fail.
                        if answer.status >= 500:
                            failures.append(f"{what}: a server error")
                    else:
                        accepted = {"bad_request": 400, **route.accept.get(name, {})}
                        named = leaf(name)
                        if answer.code not in accepted or (
                            not route.nats and answer.status != accepted[answer.code]
                        ):
                            failures.append(f"{what}: not refused as bad input")
                        elif named is None and not (
                            "field" in answer.message or "key" in answer.message
                        ):
                            failures.append(f"{what}: the message names no field")
                        elif named is not None and named not in answer.message:
                            failures.append(f"{what}: the message does not name {named!r}")
                    if after != before:
                        failures.append(f"{what}: {await changes(c, before, after)}")
        assert not failures, "\n".join(failures)
        assert cases >= 3 * sum(len(r.fields) for r in ROUTES)
        print(
            f"\n{cases} cases: {len(ROUTES)} routes and subjects, "
            f"{sum(len(r.fields) for r in ROUTES)} fields"
        )

        # The list names every field the handlers read, and reads every field it names.
        problems: list[str] = []
        for route in GATEWAY:
            body_fields = {f for f in route.fields if not f.startswith(("/", "?"))}
            own = reads.by_route[route.name]
            problems += [f"{route.name} reads {r!r}, not in the list" for r in own - body_fields]
            seen = own | reads.downstream[route.name]
            problems += [
                f"{route.name}: nothing reads {f!r}" for f in body_fields if not covered(f, seen)
            ]
        subjects: dict[str, set[str]] = defaultdict(set)
        for route in NATS:
            subjects[route.name.split("=")[0]] |= set(route.fields)
        for name, listed in subjects.items():
            own = reads.by_subject[name]
            problems += [f"{name} reads {r!r}, not in the list" for r in own - listed]
            problems += [f"{name}: nothing reads {f!r}" for f in listed if not covered(f, own)]
        unlisted = set(reads.by_subject) - set(subjects)
        problems += [f"subject {s} is not in the list" for s in sorted(unlisted)]
        assert not problems, "\n".join(problems)


async def test_the_list_has_every_route_and_subject() -> None:
    """Every gateway route (its path parameters the list's), every action, every table,
    tournament and randomness subject is in ROUTES; the query parameters the gateway's
    source reads are the ones the list names."""
    from belot_platform.settings import Settings
    from services.gateway.app import create_app

    app = create_app(Settings(pg_dsn="postgresql://unused", nats_url="nats://unused"))
    listed = {r.name.split("=")[0]: r for r in GATEWAY}
    routes = {
        f"{route.method} {route.resource.canonical}"
        for route in app.router.routes()
        if route.resource is not None
        and route.resource.canonical.startswith("/v1/")
        and route.method != "HEAD"
    }
    assert routes == set(listed), routes ^ set(listed)
    for name, route in listed.items():
        params = {p[1:-1] for p in name.split()[1].split("/") if p.startswith("{")}
        assert params == {f[1:] for f in route.fields if f.startswith("/")}, name
    actions = {r.name.split("=")[1] for r in GATEWAY if "=" in r.name}
    assert actions == set(ACTIONS)
    assert all({"/tournament_id", "/action"} <= set(r.fields) for r in GATEWAY if "=" in r.name)

    subjects = {r.name.split("=")[0] for r in NATS}
    tables = {"table.create", *(f"table.{v}" for v in (*MOVES, *REQUESTS))}
    tournaments = {s.removeprefix("p.") for s in TournamentHandlers(Mock(), "p").routes()}
    randomness = {
        s.removeprefix("p.")
        for s in RandomnessHandlers(Mock(), "quicknet", "p.randomness").routes()
    }
    assert subjects == tables | tournaments | randomness, subjects ^ (
        tables | tournaments | randomness
    )

    # The tournament service refuses fields it does not know: the list has exactly its own.
    create = next(r for r in NATS if r.name == "tournament.create")
    top = {f.split(".")[0].split("[")[0] for f in create.fields} - {"*"}
    assert top == set(tournament_domain.EDITABLE) | {"format", "command_id", "actor"}

    query: set[str] = set()
    for path in (ROOT / "services/gateway").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr == "get" and ast.unparse(node.func.value).endswith(".query"):
                    target = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith(".query"):
                target = node.slice
            elif isinstance(node, ast.Compare) and ast.unparse(node.comparators[0]).endswith(
                ".query"
            ):
                target = node.left
            if isinstance(target, ast.Constant) and isinstance(target.value, str):
                query.add(target.value)
    named = {f[1:] for r in GATEWAY for f in r.fields if f.startswith("?")}
    assert query == named, query ^ named
