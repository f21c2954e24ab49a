"""Commands serialised per tournament: the one way anything changes a tournament.

Every change runs :meth:`Sequencer.run` under that tournament's lock: read the stream's
new events, decide with the core, append with the version read (``expected_version``; a
second writer, say another replica, makes it fail and the command is decided again on
the new state) and, where given, a command id that makes a repeat a no-op. Round
creation is such a command (``<id>:pair:<k>``), and the core appends nothing for a round
already paired: a restart never pairs a round twice.

The sequencer also keeps what the other parts read: the tournaments as last loaded (the
clocks read their deadlines from it), which of them are live, and the ratings the core
seeds and pairs by. After every change it calls ``on_change`` (the engine's: look at the
tournament's effects again) and sets :attr:`Sequencer.changed`, which wakes the clocks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from nats.aio.client import Client
from prometheus_client import Counter

from belot_platform import messaging
from belot_platform.messaging import ServiceError
from eventlog import NewEvent, WrongExpectedVersion
from services.tournament import domain
from services.tournament.domain import Loaded, Refused
from services.tournament.store import TournamentStore
from tournament import TournamentError
from tournament.events import TournamentEvent
from tournament.state import Tournament

log = logging.getLogger(__name__)

Clock = Callable[[], int]
Decide = Callable[[Loaded], Awaitable[list[NewEvent]]]

_ATTEMPTS: Final = 5

ROUNDS = Counter("belot_tournament_rounds_paired_total", "Rounds paired.")
RESULTS = Counter(
    "belot_tournament_results_recorded_total",
    "Results recorded, by how (table, no_show, timeout, correction, ladder, withdrawal).",
    ["how"],
)
RATING_LOOKUP_FAILURES = Counter(
    "belot_tournament_rating_lookup_failures_total",
    "Rating look-ups that got no ratings (the default 1500 was used), by reason: the "
    "messaging error code (timeout, unavailable, ...) or malformed.",
    ["reason"],
)


def wall_clock() -> int:
    return time.time_ns() // 1_000_000


def new_events(events: Sequence[TournamentEvent]) -> list[NewEvent]:
    return [NewEvent(t, p) for t, p in (domain.core_event(e) for e in events)]


def core(fn: Callable[[], list[TournamentEvent]]) -> list[NewEvent]:
    """Call a core command; its refusal becomes the service's."""
    try:
        return new_events(fn())
    except TournamentError as exc:
        raise Refused.of(exc) from None


class Sequencer:
    def __init__(
        self,
        store: TournamentStore,
        nc: Client,
        *,
        prefix: str,
        clock: Clock,
        timeout: float,
        on_change: Callable[[str], None],
    ) -> None:
        self.store = store
        self.log = store.log
        self.nc = nc
        self.prefix = prefix
        self.clock = clock
        self.timeout = timeout
        self.on_change = on_change
        #: Each tournament as last loaded or appended to.
        self.cache: dict[str, Loaded] = {}
        #: The tournaments not finished.
        self.live: set[str] = set()
        #: Set on every change (the clocks clear it before they look).
        self.changed = asyncio.Event()
        #: Set when the engine stops: the loops end, and nothing new is started.
        self.stopping = asyncio.Event()
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def get(self, tid: str) -> Loaded:
        """The tournament as its stream stands now; raises Refused (unknown)."""
        if domain.ID_RE.fullmatch(tid) is None:
            raise Refused("unknown_tournament", f"no tournament {tid!r}")
        loaded = await self.store.load(tid, self.cache.get(tid))
        if not loaded.state.is_created:
            raise Refused("unknown_tournament", f"no tournament {tid!r}")
        self._remember(loaded)
        return loaded

    def _remember(self, loaded: Loaded) -> None:
        self.cache[loaded.id] = loaded
        if loaded.state.is_finished:
            self.live.discard(loaded.id)
        else:
            self.live.add(loaded.id)
        self.changed.set()

    async def run(
        self,
        tid: str,
        decide: Decide,
        *,
        command_id: str | None = None,
        checkpoint: int | None = None,
        new: Loaded | None = None,
    ) -> Loaded:
        """Decide and append one command to ``tid``, serialised with every other
        command of it (module docstring). ``checkpoint``: the log position of the event
        that caused it, written in the same transaction. ``new``: the empty state of a
        tournament being created. Raises Refused."""
        async with self._locks[tid]:
            for attempt in range(1, _ATTEMPTS + 1):
                loaded = new if new is not None else await self.get(tid)
                if command_id is not None and command_id in loaded.command_ids:
                    if checkpoint is not None:
                        await self.store.advance_checkpoint(checkpoint)
                    return loaded
                events = await decide(loaded)
                if not events:
                    if checkpoint is not None:
                        await self.store.advance_checkpoint(checkpoint)
                    return loaded
                try:
                    result, after = await self.store.append(
                        loaded, events, command_id=command_id, checkpoint=checkpoint
                    )
                except WrongExpectedVersion:
                    if attempt == _ATTEMPTS or new is not None:
                        raise Refused(
                            "conflict", "the tournament changed meanwhile: retry"
                        ) from None
                    continue
                if result.duplicate:
                    after = await self.get(tid)
                self._remember(after)
                _count(events)
                self.on_change(tid)
                return after
        raise AssertionError("unreachable")

    async def ratings(self, pool: str, players: Sequence[str]) -> dict[str, float]:
        """Ratings from the rating service (``<prefix>.rating.lookup``); bots and anyone
        it does not answer for get the core's default (1500). A look-up that fails (no
        reply in time, nobody answering, an error or a reply without ratings) is logged
        as a warning and counted in ``belot_tournament_rating_lookup_failures_total``: seeding
        and bands on 1500 for everyone must not pass unnoticed."""
        humans = sorted({p for p in players if domain.bot_level(p) is None})
        if not humans:
            return {}
        subject = f"{self.prefix}.rating.lookup"
        try:
            reply = await messaging.request(
                self.nc,
                subject,
                {"pool": pool, "players": humans[:1000]},
                timeout=min(self.timeout, 1.0),
            )
        except ServiceError as exc:
            return _no_ratings(exc.code, exc.message)
        found = reply.get("ratings") if isinstance(reply, dict) else None
        if not isinstance(found, dict):
            return _no_ratings("malformed", f"the reply on {subject} holds no ratings")
        return {str(k): float(v) for k, v in found.items() if isinstance(v, int | float)}

    async def players_ratings(self, state: Tournament) -> dict[str, float]:
        """The ratings of everyone entered (every player of a team)."""
        players = [p for e in (state.order or state.entered) for p in state.players_of(e)]
        return await self.ratings(state.settings.ruleset, players)


def _no_ratings(reason: str, detail: str) -> dict[str, float]:
    RATING_LOOKUP_FAILURES.labels(reason).inc()
    log.warning("no ratings (%s: %s): the default 1500 is used", reason, detail)
    return {}


def _count(events: Sequence[NewEvent]) -> None:
    for e in events:
        if e.type == "RoundPaired":
            ROUNDS.inc()
        elif e.type == "SeatNoShow":
            RESULTS.labels("no_show").inc()
        elif e.type == "RoundTimedOut":
            RESULTS.labels("timeout").inc()
        elif e.type == "ResultCorrected":
            RESULTS.labels("correction").inc()
        elif e.type == "LadderMatchReported":
            RESULTS.labels("ladder").inc()
        elif e.type == "MatchReported":
            RESULTS.labels("no_show" if e.payload["no_show"] else "table").inc()
