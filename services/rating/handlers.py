"""The rating service's read side: HTTP (leaderboards, a player's history and rating),
the NATS look-up the tournament service asks for tie-breaks and seeding, and the same
reads on NATS for the gateway (``<prefix>.rating.leaderboard``, ``<prefix>.rating.player``:
the web client's leaderboard and player pages, with the players' names the gateway adds).

Every answer comes from the projection through the pure core's views (``leaderboard``,
``standings``, ``rating_of``), as of the service's clock or of ``?at=`` (unix
milliseconds, for reproducible reads). Errors are JSON ``{"error": code, "message":
text}``: 400 for a bad query value, 404 for an unknown pool.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from aiohttp import web

from belot_platform import outage
from belot_platform.app import error_response, outage_response, refusal_response
from belot_platform.messaging import BAD_REQUEST, ServiceError
from rating import (
    HistoryEntry,
    Row,
    display,
    is_provisional,
    leaderboard,
    rating_deviation,
    rating_of,
    rd_at,
    standings,
)
from rating.model import round_half_up
from services.rating.domain import MAX_ID_LENGTH, POOL_SIDE_SIZES, POOLS, is_id
from services.rating.store import Projection

log = logging.getLogger(__name__)

PROJECTION: Final = web.AppKey("rating_projection", Projection)

#: The NATS subject of the look-up: {"pool": str, "players": [str]} ->
#: {"ratings": {player: float}} (the core's ``rating_of``: 1500 for a newcomer). Its
#: first token is ``BELOT_SUBJECT_PREFIX`` (``app.lookup_subject_of``).
LOOKUP_SUBJECT: Final = "belot.rating.lookup"
#: The gateway's reads: ``{"pool", "all"?, "limit"?}`` -> what GET /v1/leaderboards gives;
#: ``{"player"}`` -> the player's rating and history in every pool.
LEADERBOARD_SUBJECT: Final = "belot.rating.leaderboard"
PLAYER_SUBJECT: Final = "belot.rating.player"
UNKNOWN_POOL: Final = "unknown_pool"
MAX_LOOKUP_PLAYERS: Final = 1000
DEFAULT_LIMIT: Final = 100
MAX_LIMIT: Final = 1000


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def parse_pool(text: str | None, *, status: int | None = None) -> str:
    """The pool ``text`` names; an unknown one is ``unknown_pool``, 404 (the table's)
    unless ``status`` says otherwise (400 for a pool named in a query string: bad
    input to a resource that exists)."""
    if text is None or text == "":
        raise ServiceError(BAD_REQUEST, "give the pool (?pool=club, classic, french, gambler)")
    if text not in POOL_SIDE_SIZES:
        raise ServiceError(
            UNKNOWN_POOL,
            f"no rating pool {text[:50]!r}: one of {', '.join(POOLS)}",
            status=status,
        )
    return text


def parse_player(text: str) -> str:
    if not is_id(text):
        raise ServiceError(BAD_REQUEST, f"a player id is 1 to {MAX_ID_LENGTH} characters")
    return text


def parse_int(query: Any, name: str, default: int, low: int, high: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    try:
        value = int(text, 10)
    except ValueError:
        raise ServiceError(BAD_REQUEST, f"?{name}= must be a whole number") from None
    if not low <= value <= high:
        raise ServiceError(BAD_REQUEST, f"?{name}= must be in {low}..{high}")
    return value


def parse_flag(query: Any, name: str) -> bool:
    text = query.get(name, "0")
    if text not in ("0", "1", "true", "false"):
        raise ServiceError(BAD_REQUEST, f"?{name}= must be 0 or 1")
    return text in ("1", "true")


def parse_at(query: Any) -> int:
    return parse_int(query, "at", now_ms(), 0, 2**62)


@web.middleware
async def errors_as_json(request: web.Request, handler: Any) -> web.StreamResponse:
    """Refused input, aiohttp's own 404/405, an outage (503 with Retry-After) and a
    fault of ours (500, logged) as ``{"error", "message"}``."""
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except ServiceError as exc:
        return refusal_response(exc)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = "not_found" if exc.status == 404 else f"http_{exc.status}"
        return error_response(code, exc.reason, status=exc.status)  # aiohttp's status
    except Exception as exc:
        if outage.is_outage(exc):  # the database does not answer: not a bug, not for ever
            log.warning("rating API: %s (%s)", outage.what_failed(exc), exc)
            return outage_response(outage.what_failed(exc))
        log.exception("rating API: unexpected error", extra={"path": request.path})
        return error_response("internal", "an unexpected error; it has been logged")


def _row(r: Row) -> dict[str, Any]:
    return {
        "rank": r.rank,
        "player": r.player,
        "rating": r.rating,
        "rd": r.rd,
        "games": r.games,
        "provisional": r.provisional,
    }


def _entry(h: HistoryEntry) -> dict[str, Any]:
    return {
        "match_id": h.match_id,
        "at_ms": h.at_ms,
        "result": h.result.value,
        "partners": list(h.partners),
        "opponents": list(h.opponents),
        "left_by": h.left_by,
        "rating_before": h.rating_before,
        "rating_after": h.rating_after,
    }


async def leaderboard_of(
    projection: Projection, pool: str, everyone: bool, at: int, limit: int
) -> dict[str, Any]:
    state = await projection.pool_state(pool)
    rows = (standings if everyone else leaderboard)(state, pool, at)
    return {
        "pool": pool,
        "at_ms": at,
        "all": everyone,
        "players": len(rows),
        "rows": [_row(r) for r in rows[:limit]],
    }


async def rating_in(projection: Projection, pool: str, player: str, at: int) -> dict[str, Any]:
    """The player's rating in the pool as of ``at``: a newcomer's without a rated match."""
    settings = projection.settings
    known = await projection.player(pool, player)
    if known is None:
        rd, games, mu = rating_deviation(settings, settings.sigma), 0, settings.mu
    else:
        state = projection.state_of(pool, {player: known})
        rd, games, mu = rd_at(state, known, at), known.games, known.mu
    return {
        "pool": pool,
        "player": player,
        "at_ms": at,
        "rating": round_half_up(display(settings, mu)),
        "rd": round_half_up(rd),
        "games": games,
        "provisional": is_provisional(settings, rd),
    }


async def get_leaderboard(request: web.Request) -> web.Response:
    """``GET /v1/leaderboards/{pool}[?all=1][&at=ms][&limit=n]``: established players
    active in the last 30 days; ``all=1``: every rated player, with the provisional mark."""
    pool = parse_pool(request.match_info["pool"])
    everyone = parse_flag(request.query, "all")
    at = parse_at(request.query)
    limit = parse_int(request.query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    return web.json_response(
        await leaderboard_of(request.app[PROJECTION], pool, everyone, at, limit)
    )


async def get_history(request: web.Request) -> web.Response:
    """``GET /v1/players/{player}/history?pool=club``: the player's rated matches in the
    pool, oldest first (empty for a player without one)."""
    player = parse_player(request.match_info["player"])
    pool = parse_pool(request.query.get("pool"), status=400)
    projection = request.app[PROJECTION]
    entries = await projection.history(pool, player)
    return web.json_response(
        {"pool": pool, "player": player, "matches": [_entry(h) for h in entries]}
    )


async def get_rating(request: web.Request) -> web.Response:
    """``GET /v1/ratings/{pool}/{player}[?at=ms]``: the player's rating, RD, games and
    provisional mark; a player without a rated match in the pool is a newcomer (1500)."""
    pool = parse_pool(request.match_info["pool"])
    player = parse_player(request.match_info["player"])
    at = parse_at(request.query)
    return web.json_response(await rating_in(request.app[PROJECTION], pool, player, at))


def lookup_handler(projection: Projection) -> Any:
    """The ``<prefix>.rating.lookup`` handler: ``{"pool", "players"}`` ->
    ``{"ratings": {player: float}}``, the display rating unrounded (``rating_of``)."""

    async def lookup(body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(BAD_REQUEST, 'send {"pool": str, "players": [str, ...]}')
        pool = body.get("pool")
        if not isinstance(pool, str) or pool not in POOL_SIDE_SIZES:
            raise ServiceError(UNKNOWN_POOL, f"no rating pool {pool!r}: one of {', '.join(POOLS)}")
        players = body.get("players")
        if (
            not isinstance(players, list)
            or len(players) > MAX_LOOKUP_PLAYERS
            or not all(is_id(p) for p in players)
        ):
            raise ServiceError(
                BAD_REQUEST,
                f"players must be a list of at most {MAX_LOOKUP_PLAYERS} ids "
                f"of 1 to {MAX_ID_LENGTH} characters",
            )
        known = await projection.ratings(pool, players)
        state = projection.state_of(pool, known)
        return {"ratings": {p: rating_of(state, pool, p) for p in players}}

    return lookup


def reads_handlers(projection: Projection, prefix: str) -> dict[str, Any]:
    """The gateway's reads on NATS (subject -> handler; ``prefix`` is
    ``BELOT_SUBJECT_PREFIX``), as of the service's clock; errors ``unknown_pool`` and
    ``bad_request``, as on HTTP."""

    async def leaderboard_read(body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ServiceError(BAD_REQUEST, 'send {"pool": str, "all"?: bool, "limit"?: int}')
        pool = body.get("pool")
        if not isinstance(pool, str) or pool not in POOL_SIDE_SIZES:
            raise ServiceError(UNKNOWN_POOL, f"no rating pool {pool!r}: one of {', '.join(POOLS)}")
        everyone, limit = body.get("all", False), body.get("limit", DEFAULT_LIMIT)
        if not isinstance(everyone, bool):
            raise ServiceError(BAD_REQUEST, "all must be true or false")
        if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
            raise ServiceError(BAD_REQUEST, f"limit must be a whole number in 1..{MAX_LIMIT}")
        return await leaderboard_of(projection, pool, everyone, now_ms(), limit)

    async def player_read(body: Any) -> dict[str, Any]:
        player = body.get("player") if isinstance(body, dict) else None
        if not is_id(player):
            raise ServiceError(BAD_REQUEST, f"player: an id of 1 to {MAX_ID_LENGTH} characters")
        at = now_ms()
        pools = {}
        for pool in POOLS:
            rating = await rating_in(projection, pool, player, at)
            history = await projection.history(pool, player)
            pools[pool] = {
                **{k: rating[k] for k in ("rating", "rd", "games", "provisional")},
                "history": [_entry(h) for h in history],
            }
        return {"player": player, "at_ms": at, "pools": pools}

    reads = {"leaderboard": leaderboard_read, "player": player_read}
    return {f"{prefix}.rating.{verb}": handler for verb, handler in reads.items()}


def add_routes(app: web.Application) -> None:
    app.middlewares.append(errors_as_json)
    app.router.add_get("/v1/leaderboards/{pool}", get_leaderboard)
    app.router.add_get("/v1/players/{player}/history", get_history)
    app.router.add_get("/v1/ratings/{pool}/{player}", get_rating)
