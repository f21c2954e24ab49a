"""The fair-play job and its operator API: each analysed match's card decisions against
what each seat could know, kept by seat, and listed for a person to review.

Why here. The measure (:mod:`belot.fairplay`, docs/fair-play.md) needs a match's record
and its double-dummy analysis, which this service already has: the analysis job
(:mod:`services.verify.analyses`) stores one for every finished match that verifies.
Computing a decision's chance solves its worlds (:data:`belot.fairplay.WORLDS` deals of
the hidden cards consistent with what the seat saw, each for every legal card: about half
a second of CPU a club deal for one seat), so it is done once, off the hot path, like the
analysis: this job follows the analysed matches, oldest first, and for each one computes
:func:`belot.fairplay.decisions` in a thread (the solver releases the GIL), from the
record's events, its stored analysis and each ``CardPlayed``'s ``acted_by`` (the
event's metadata in the record: the turn clock's, autoplay's and a bot's cards are not
the player's). Only the accounts' seats are measured: a bot's worlds are not solved. It
keeps one row per (match, seat) of an account, with every card the seat played as JSON,
and one row per match saying it was done (a match of bots keeps no seat row, and is not
taken again). Derived data, like the analysis: anyone recomputes it from the record, so
the rows are kept once, never changed (the verify role may only SELECT and INSERT them).
Each row names the method of its chances (:data:`belot.fairplay.METHOD`): when the
drawer or the solver changes what a decision's worlds say, the method's name changes,
the job computes every analysed match again under the new one, beside the old rows, and
the evidence reads only the current method's (chances of two models are not one
measure).

Not every match is rated, but neither the record nor this service's projection says
which is (the table's ``TableMatchFinished`` does): every analysed match is taken, a
casual one and one with bots included. The evidence is about what a seat saw, which a
casual match shows as well as a rated one.

The operator API lists the evidence, never acts on it: ``GET /v1/fairplay/players``
(every account with counted decisions over its last ``window`` deals, its own evidence
and each partnership's, flagged ones first) and ``GET /v1/fairplay/players/{player}``
(the decisions the evidence rests on, each with its match, deal and trick, to open in
the replay). Both need the operators' token (``BELOT_ADMIN_TOKEN``, as a Bearer token):
401 without one, 403 with another, and 403 for everyone where no operator token is set.
The answers are ``no-store``: evidence about a person is not for caches. A flag is for a
person to review (docs/fair-play.md): nothing here changes anything for the player.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Final

import orjson
from aiohttp import web
from prometheus_client import Counter, Gauge, Histogram

from belot.fairplay import FLAG_SCORE, METHOD
from belot_platform.errors import ServiceError
from eventlog import EventStore
from services.verify.domain import (
    FairPlayError,
    SeatDecisions,
    SeatRow,
    listed,
    match_decisions,
    player_evidence,
)
from services.verify.http import CORS_HEADERS, json_response
from services.verify.matches import load_match
from services.verify.store import FairPlayStore, Pool

log = logging.getLogger(__name__)

#: The job's supervised task (belot_task_up, restarts).
FAIRPLAY_TASK: Final = "verify-fairplay"
#: Matches taken per look: one, so that the analyses waiting come first between two.
BATCH: Final = 1
#: The deals a player's evidence is counted over by default, and at most.
DEFAULT_WINDOW: Final = 50
MAX_WINDOW: Final = 1000
#: A player id in a path: at most this long (the gateway's ids are 32 hex digits).
MAX_PLAYER: Final = 200

FAIRPLAY = Counter(
    "belot_verify_fairplay_total",
    "Analysed matches the fair-play job took, by outcome (computed, failed).",
    ["outcome"],
)
FAIRPLAY_BACKLOG = Gauge(
    "belot_verify_fairplay_backlog",
    "Analysed matches waiting for the fair-play job.",
)
FAIRPLAY_SECONDS = Histogram(
    "belot_verify_fairplay_seconds",
    "Time to compute one match's fair-play decisions (every choice's worlds solved).",
    buckets=(0.5, 1, 2, 5, 10, 20, 60, 120, 300),
)


class FairPlay:
    """The stored decisions: the job that makes them, and the operator API's reads."""

    def __init__(
        self,
        pool: Pool,
        schema: str,
        store: EventStore,
        *,
        poll_interval: float = 1.0,
        method: str = METHOD,
    ) -> None:
        self._rows = FairPlayStore(pool, schema)
        self._store = store
        self._poll = poll_interval
        #: The rows this job writes and the evidence reads (``belot.fairplay.METHOD``;
        #: another only in tests, standing for a model of the worlds that changed).
        self.method = method

    async def pending(self, limit: int = BATCH) -> list[str]:
        """Analysed matches whose decisions are not computed yet by this method (a new
        method's backlog is every analysed match), oldest first."""
        return await self._rows.pending(self.method, limit)

    async def backlog(self) -> int:
        return await self._rows.backlog(self.method)

    async def compute(self, match_id: str) -> str | None:
        """Compute one analysed match's decisions and keep them; the outcome, or None
        when the match or its analysis is not there after all (nothing kept)."""
        loaded = await load_match(self._store, match_id)
        analysis = await self._rows.analysis(match_id)
        if loaded is None or not loaded.finished or analysis is None:
            return None
        started = time.perf_counter()
        seats: list[SeatDecisions] = []
        reason = None
        stop = threading.Event()
        try:
            seats = await asyncio.to_thread(
                match_decisions, loaded.record, orjson.loads(analysis), stop
            )
            outcome = "computed"
        except asyncio.CancelledError:
            stop.set()
            raise
        except FairPlayError as exc:
            outcome, reason = "failed", str(exc)
            log.warning("fair play: match %s not computed: %s", match_id, reason)
        seconds = time.perf_counter() - started
        await self._rows.keep(match_id, seats, outcome, reason, seconds, self.method)
        FAIRPLAY.labels(outcome).inc()
        FAIRPLAY_SECONDS.observe(seconds)
        return outcome

    async def analyses_waiting(self) -> bool:
        """Does a finished match wait for its analysis? The analysis is what the players'
        replays show; this job, for the operators, gives way to it."""
        return await self._rows.analyses_waiting()

    async def run(self) -> None:
        """Forever (cancel to stop): compute what is pending, one match at a time, once
        no finished match waits for its analysis, then look again after
        ``poll_interval``; the backlog is a gauge. A failure is raised: run it under a
        supervisor, which logs it and starts it again (what is not stored is computed
        again)."""
        while True:
            FAIRPLAY_BACKLOG.set(await self.backlog())
            done = 0
            for match_id in await self.pending():
                if await self.analyses_waiting():
                    break
                done += await self.compute(match_id) is not None
            if not done:
                await asyncio.sleep(self._poll)

    async def rows(self, window: int, player: str | None = None) -> list[SeatRow]:
        """The rows of every match among each player's (or ``player``'s) last ``window``
        matches (a match has a deal at least), every seat of them (the partners')."""
        return await self._rows.rows(window, player, self.method)


# --- the operator API --------------------------------------------------------------------

_PREFIX: Final = "/v1/fairplay/"


def _window(request: web.Request) -> int:
    text = request.query.get("window")
    if text is None:
        return DEFAULT_WINDOW
    if not (text.isascii() and text.isdigit() and len(text) <= 4) or not (
        1 <= int(text) <= MAX_WINDOW
    ):
        raise ServiceError("bad_window", f"window must be a whole number 1..{MAX_WINDOW}")
    return int(text)


def _player(request: web.Request) -> str:
    player = request.match_info["player"]
    if not 1 <= len(player) <= MAX_PLAYER or not player.isprintable():
        raise ServiceError("bad_player", f"a player id is 1-{MAX_PLAYER} printable characters")
    return player


#: The answers' headers: evidence about a person is kept by no cache, and differs by token.
_PRIVATE: Final = {"Cache-Control": "no-store", "Vary": "Authorization"}


class FairPlayApi:
    """``GET /v1/fairplay/players`` and ``GET /v1/fairplay/players/{player}``, for the
    operators only."""

    def __init__(self, admin_token: str | None) -> None:
        self._token = admin_token
        self._fairplay: FairPlay | None = None

    def attach(self, fairplay: FairPlay) -> None:
        self._fairplay = fairplay

    @property
    def fairplay(self) -> FairPlay:
        if self._fairplay is None:
            raise ServiceError("starting", "the service is starting", headers={"Retry-After": "1"})
        return self._fairplay

    def check(self, request: web.Request) -> None:
        """The operators' token, or a refusal: 403 where none is set (the routes are
        closed), 401 without a Bearer token, 403 with another one."""
        if not self._token:
            raise ServiceError(
                "forbidden", "fair play is for operators, and no operator token is set here"
            )
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header[:7].lower() == "bearer " else ""
        if not token:
            raise ServiceError(
                "unauthorized",
                "fair play is for operators: send Authorization: Bearer <operator token>",
                headers={"WWW-Authenticate": "Bearer"},
            )
        given = token.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._token.encode("utf-8", "surrogatepass")):
            raise ServiceError("forbidden", "this token is not the operators'")

    async def list_players(self, request: web.Request) -> web.Response:
        self.check(request)
        window = _window(request)
        found = player_evidence(await self.fairplay.rows(window), window)
        backlog = await self.fairplay.backlog()
        return self._answer(window, backlog=backlog, players=[p.to_json() for p in listed(found)])

    async def get_player(self, request: web.Request) -> web.Response:
        self.check(request)
        player, window = _player(request), _window(request)
        mine = await self.fairplay.rows(window, player)
        found = player_evidence(mine, window).get(player)
        if found is None:
            raise ServiceError(
                "unknown_player", f"no decisions of player {player!r} are kept", status=404
            )
        return self._answer(window, **found.to_json(with_decisions=True))

    def _answer(self, window: int, **body: object) -> web.Response:
        """An answer: the window, the flag and the method its evidence is of, then ``body``."""
        head = {"window": window, "flag_score": FLAG_SCORE, "method": self.fairplay.method}
        return json_response({**head, **body}, headers=_PRIVATE)

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/v1/fairplay/players", self.list_players, allow_head=False),
            web.get("/v1/fairplay/players/{player}", self.get_player, allow_head=False),
        ]


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def preflight_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The operator's page (another origin) sends its token in ``Authorization``, which a
    browser asks leave for first: this preflight allows it, on the fair-play routes only
    (the rest of the API takes no credentials). Placed before the API's CORS middleware."""
    if request.method == "OPTIONS" and request.path.startswith(_PREFIX):
        return web.Response(
            status=204,
            headers={
                **CORS_HEADERS,
                "Access-Control-Allow-Methods": "GET, OPTIONS",
                "Access-Control-Allow-Headers": "Authorization",
                "Access-Control-Max-Age": "600",
            },
        )
    return await handler(request)
