"""A table a worker owns: its state, its lock, its players' commands and its driver.

The driver. Each owned table runs one task that does whatever is due next: open the
fair deal once every human seat is taken, fetch each deal's deck from the randomness
service and hand it to the core, play the bots' turns, play a human's turn with a bot
of the table's fallback level when its timer runs out, and at the end append
``TableMatchFinished``, ask for the reveal and close the table. Players' commands come
by NATS request/reply on ``<prefix>.table.<id>.<verb>`` and are decided under the
table's lock, between the driver's steps. While the randomness service does not answer,
the driver asks again every ``RETRY_S``; it says so when the wait starts and then at
most every ``WAIT_LOG_S``, and the longest wait of this process's tables is
``belot_table_randomness_wait_seconds`` (read as it is scraped). A driver goes on after
a failure by itself, counted as ``table-driver``.

Every append names the stream version the table last saw, so a table whose worker lost
its lease without noticing fails on its next append (WrongExpectedVersion) and is
dropped (:class:`~services.table.store.LostTable`). What the table needs of its worker
(the store, the randomness service, telling watchers, being dropped) is :class:`Host`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import dataclass
from typing import Any, Final, Protocol, cast

from nats.aio.subscription import Subscription

from belot import (
    DueKind,
    Match,
    RulesError,
    SupplyDeck,
    decide,
    due,
    evolve,
    first_dealer,
    new_match,
    parse_card,
    started_event,
    view,
)
from belot.bots import choose
from belot.events import DealScored, Event, MatchEnded
from belot_platform import fields
from belot_platform.messaging import BAD_REQUEST, ServiceError
from belot_platform.supervise import cancel, retried
from eventkit.streams import match_stream, table_stream
from eventlog import EventStore, NewEvent, WrongExpectedVersion
from services.table import domain
from services.table.domain import TableError
from services.table.handlers import parse_move
from services.table.metrics import COMMANDS, DEALS, LOST, MATCHES
from services.table.presence import (
    MAX_PLAYERS,
    MAX_TTL_MS,
    MAX_WATCHERS,
    MIN_TTL_MS,
    Presence,
    seat_line,
)
from services.table.store import (
    ACTED_BY,
    AUTOPLAY,
    PLAYER,
    TIMER,
    Loaded,
    LostTable,
    core_events,
    table_events,
)
from table import events as table_events_codec
from table import state as table_state
from table.events import (
    FairDealOpened,
    FairDealRevealed,
    MatchAborted,
    MatchForfeited,
    MatchSeat,
    SeatAutoplayEnded,
    SeatAutoplayStarted,
    SeatLeft,
    TableClosed,
    TableEvent,
)
from table.views import table_reply

log = logging.getLogger(__name__)

#: The longest reason, or name of who asked, an abort may record.
MAX_ABORT_TEXT: Final = 200
#: A seed's text longer than this is refused as it comes in (a seed is 32 hex digits).
MAX_SEED_TEXT: Final = 200
#: How long a deck request waits for the fair-deal inputs (the randomness service's max).
DECK_WAIT_MS: Final = 15_000
#: Retry pause after the randomness service did not answer.
RETRY_S: Final = 0.5
#: A hard bot's time budget per decision: it plays its best card so far when it is up
#: (a whole decision takes a median of about 24 ms: docs/bench/arena.md).
HARD_BOT_SECONDS: Final = 0.25
#: The most events a run of bots' moves decided ahead makes (a deal's bidding and play
#: is about 57): one append for the run, one round trip to the log.
MAX_BOT_RUN: Final = 64
#: A table's driver (one per table, retried by itself): its failures are counted so.
DRIVER_TASK: Final = "table-driver"
#: While a table waits for the randomness service, it says so at most this often.
WAIT_LOG_S: Final = 30.0
#: The least pause before a bot plays a seat on autoplay, however fast the table's bots
#: are: long enough for its player, back, to make the move first (which takes the seat
#: back) once its page shows the turn; never longer than the table's turn timer (a bot
#: on autoplay plays no slower than the timer would).
AUTOPLAY_PACE_MS: Final = 1_000
#: How a seat is taken back (SeatAutoplayEnded.by).
RESUMED: Final = "resume"
MOVED: Final = "move"


class Host(Protocol):
    """What a table needs of the worker that owns it."""

    store: EventStore
    timeout: float
    #: How long a new owner counts every human as connected, not knowing yet.
    presence_grace: float

    async def drop(self, table: Table, *, release: bool, closed: bool = False) -> None: ...

    async def publish_state(self, table: Table) -> None: ...

    async def publish_summary(self, table: Table) -> None: ...

    async def randomness(
        self, verb: str, body: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]: ...


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def log_command_id(table_id: str, player: str | None, command_id: str | None) -> str | None:
    """The command id written to the log: a client's id counts within its table and
    player, so two players (or two tables) may use the same one."""
    if command_id is None:
        return None
    return f"{table_id}:{player or '-'}:{command_id}"


class Table:
    """A table its worker owns: its state, its lock, its driver and subscription (the
    worker's to set and to cancel), and the lease revision the worker last wrote."""

    def __init__(self, worker: Host, loaded: Loaded, revision: int) -> None:
        self.worker = worker
        self.id = loaded.table.table_id
        self.state = loaded.table
        self.table_version = loaded.table_version
        self.match = loaded.match
        self.match_version = loaded.match_version
        self.ending = loaded.ending
        self.last_match_ms = loaded.last_match_ms or now_ms()
        self.command_ids = loaded.command_ids
        self.revision = revision
        self.renewed = time.monotonic()  # when the lease was last written
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.stopping = False
        self.task: asyncio.Task[None] | None = None
        self.sub: Subscription | None = None
        self.inflight: set[asyncio.Task[None]] = set()
        #: Since when the randomness service has not answered this table (monotonic),
        #: and when the wait was last logged.
        self.waiting_since: float | None = None
        self._wait_logged = 0.0
        #: Each human seat's turns in a row the timer played (0 when absent).
        self.missed: dict[int, int] = dict(loaded.missed)
        #: Who has a live socket on the table (the gateways' announcements), and the
        #: presence lines watchers were last told (:meth:`presence_lines`).
        self.sockets = Presence(time.monotonic(), worker.presence_grace)
        self.presence_said: list[dict[str, Any]] | None = None
        #: The version of the last state this owner published (``since`` of the next).
        self.pushed = 0

    def start(self, sub: Subscription) -> None:
        """Drive the table; ``sub`` brings its players' commands."""
        self.sub = sub
        self.task = asyncio.create_task(self.run(), name=f"table-{self.id}")

    async def stop(self, timeout: float) -> None:
        """Stop the driver and the commands; the commands already taken finish (for up
        to ``timeout`` seconds), and so does the one holding the lock."""
        self.stopping = True
        self.wake.set()
        if self.sub is not None:
            with contextlib.suppress(Exception):
                await self.sub.unsubscribe()
        if self.task is not None and self.task is not asyncio.current_task():
            await cancel(self.task)
        if self.inflight:
            await asyncio.wait(self.inflight, timeout=timeout)
        async with self.lock:
            pass

    # ------------------------------------------------------------------ appending

    @property
    def status(self) -> str:
        """The table's status: its stream's, and "playing" from the first deck on (the
        match stream says that, so the table stream's status stays "dealing")."""
        if self.state.status == table_state.DEALING and self.match is not None:
            return table_state.PLAYING
        return self.state.status

    async def _append_table(self, events: list[TableEvent], command_id: str | None = None) -> None:
        try:
            result = await self.worker.store.append(
                table_stream(self.id),
                self.table_version,
                table_events(events),
                command_id=command_id,
            )
        except WrongExpectedVersion as exc:
            raise LostTable(str(exc)) from None
        if result.duplicate:
            raise LostTable(f"{table_stream(self.id)}: an append was already made by another owner")
        self.table_version = result.last_version
        for e in events:
            self.state = table_state.apply(self.state, e)
        if command_id:
            self.command_ids.add(command_id)
        await self.worker.publish_state(self)

    async def _append_match(
        self,
        events: list[Event],
        metadata: dict[str, Any] | None = None,
        command_id: str | None = None,
        extra: list[MatchForfeited | MatchAborted] | None = None,
        *,
        run: BotRun | None = None,
    ) -> None:
        """Append ``events`` to the match stream and apply them; ``run``: moves decided
        ahead, already encoded and folded (:class:`BotRun`)."""
        if run is not None:
            new = run.encoded
        else:
            new = core_events(events, metadata) + table_events(extra or [])
        try:
            result = await self.worker.store.append(
                match_stream(self.state.match_id), self.match_version, new, command_id=command_id
            )
        except WrongExpectedVersion as exc:
            raise LostTable(str(exc)) from None
        if result.duplicate:
            raise LostTable(
                f"{match_stream(self.state.match_id)}: already written by another owner"
            )
        self.last_match_ms = now_ms()
        self.match_version = result.last_version
        if run is not None:
            self.match = run.match
        assert self.match is not None or (events and events[0].TYPE == "MatchStarted")
        for e in events:
            if run is None and e.TYPE != "MatchStarted":
                assert self.match is not None
                self.match = evolve(self.match, e)
            if isinstance(e, DealScored):
                DEALS.inc()
            if isinstance(e, MatchEnded):
                self.ending = (table_state.MATCH_ENDED, {"winner": e.winner})
        for x in extra or []:
            self.ending = (x.TYPE, table_events_codec.to_payload(x))
        if command_id:
            self.command_ids.add(command_id)
        await self.worker.publish_state(self)

    # ------------------------------------------------------------------ commands

    def _check_player(self, player: Any) -> str:
        return fields.identifier("player", player)

    def _check_seat(self, body: dict[str, Any]) -> int | None:
        """The seat a command names (None: the player's own); raises :class:`TableError`
        (bad_request) for anything but a whole number ("1", 1.0, true, [0] included)."""
        seat = body.get("seat")
        if seat is not None and type(seat) is not int:
            raise TableError(BAD_REQUEST, "seat must be a whole number")
        return seat

    def _command_id(self, player: str, body: dict[str, Any]) -> str | None:
        """The command id for the log (see :func:`log_command_id`); raises
        :class:`TableError` (bad_request) unless it is absent or a non-empty string."""
        return log_command_id(self.id, player, fields.command_id(body.get("command_id")))

    async def join(self, body: dict[str, Any]) -> dict[str, Any]:
        player = self._check_player(body.get("player"))
        seat = self._check_seat(body)
        # "play now": any free seat, chosen under the lock (domain.first_free_seat).
        any_seat = body.get("any", False)
        if not isinstance(any_seat, bool):
            raise TableError(BAD_REQUEST, "any must be true or false")
        if seat is None and not any_seat:
            raise TableError(BAD_REQUEST, "seat must be a whole number")
        cid = self._command_id(player, body)
        async with self.lock:
            if cid is not None and cid in self.command_ids:
                seat = self.state.seat_of(player) if seat is None else seat
                return {"table_id": self.id, "seat": seat, "accepted": True}
            if seat is None:
                seat = domain.first_free_seat(self.state, player, now_ms())
            taken = domain.take_seat(
                self.state, seat, player, now_ms(), domain.seat_key(body.get("key")),
                domain.seat_name(body.get("name")),
            )  # fmt: skip
            await self._append_table([taken], cid)
        await self.worker.publish_summary(self)
        self.wake.set()
        return {"table_id": self.id, "seat": seat, "accepted": True}

    async def leave(self, body: dict[str, Any]) -> dict[str, Any]:
        player = self._check_player(body.get("player"))
        signature = domain.signature_field(body.get("signature"))
        cid = self._command_id(player, body)
        async with self.lock:
            if cid is not None and cid in self.command_ids:
                return {"table_id": self.id, "left": True}
            seat = domain.seat_for(self.state, player, None)
            st = self.state
            now = now_ms()
            if st.status == table_state.OPEN:
                # Before the commitment: the seat is free again; the last human to go
                # closes the table.
                events: list[TableEvent] = [SeatLeft(seat, player, False, now)]
                if st.humans_seated == 1:
                    events.append(TableClosed("empty", now))
                await self._append_table(events, cid)
                await self.worker.publish_summary(self)
                self.wake.set()
                return {"table_id": self.id, "left": True, "forfeit": False}
            if self.ending is not None or st.status in (table_state.FINISHED, table_state.CLOSED):
                raise TableError("match_over", "the match has ended")
            # docs/specification.md §5: leaving a match is a loss. Before the first deck, the match
            # stream opens (first dealer 0: no card was dealt) and ends at once. The seat
            # asks with its signature (fairdeal.leave), which the forfeit records.
            signed = domain.leave_signature(st, seat, signature)
            forfeit = domain.forfeited(st.ruleset, seat, signed)
            if self.match is None:
                assert st.options is not None
                start = new_match(st.ruleset, st.match_id, target=st.options.target)
                await self._append_match([started_event(start)], command_id=cid, extra=[forfeit])
                self.match = start
            else:
                await self._append_match([], command_id=cid, extra=[forfeit])
        MATCHES.labels("forfeit").inc()
        self.wake.set()
        return {"table_id": self.id, "left": True, "forfeit": True}

    async def move(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        player = self._check_player(body.get("player"))
        seat_req = self._check_seat(body)
        cid = self._command_id(player, body)
        command_for = parse_move(verb, body)  # the fields first, whatever the state
        started = time.perf_counter()
        async with self.lock:
            if cid is not None and cid in self.command_ids:
                return {"accepted": True, "duplicate": True}
            seat = domain.seat_for(self.state, player, seat_req)
            over = (table_state.FINISHED, table_state.CLOSED)
            if self.ending is not None or self.state.status in over:
                raise TableError("match_over", "the match has ended")
            if self.match is None:
                raise TableError("not_started", "the match has not started: no cards yet")
            try:
                events = decide(self.match, command_for(seat))
            except RulesError as exc:
                raise TableError.of(exc) from None
            await self._append_match(events, {ACTED_BY: PLAYER, "seat": seat}, cid)
            version = self.match_version
            await self._take_back(seat, MOVED)
        COMMANDS.labels("player").observe(time.perf_counter() - started)
        self.wake.set()
        return {"accepted": True, "match_version": version}

    async def _take_back(self, seat: int, by: str) -> None:
        """``seat``'s player is back (under the lock): its missed turns are forgotten and,
        if a bot was playing it, ``SeatAutoplayEnded``."""
        self.missed.pop(seat, None)
        if seat in self.state.autoplay:
            await self._append_table([SeatAutoplayEnded(seat, by, now_ms())])
        await self.say_presence()

    async def resume(self, body: dict[str, Any]) -> dict[str, Any]:
        """The seat's player takes it back from the bot playing it (autoplay); its turn
        clock, if it is due, starts again now. Raises :class:`TableError`
        (``not_your_seat``, ``not_autoplay``)."""
        player = self._check_player(body.get("player"))
        cid = self._command_id(player, body)
        async with self.lock:
            if cid is not None and cid in self.command_ids:
                return {"resumed": True, "duplicate": True}
            seat = domain.seat_for(self.state, player, None)
            if seat not in self.state.autoplay:
                raise TableError("not_autoplay", f"seat {seat} is not played by a bot: it is yours")
            self.missed.pop(seat, None)
            await self._append_table([SeatAutoplayEnded(seat, RESUMED, now_ms())], cid)
            self.last_match_ms = max(self.last_match_ms, now_ms())
            await self.say_presence()
        self.wake.set()
        return {"resumed": True, "seat": seat}

    async def presence(self, body: dict[str, Any]) -> dict[str, Any]:
        """A gateway's announcement (:mod:`services.table.presence`): the players it holds
        a socket of on this table now; watchers are told if a seat's line changed."""
        gateway = fields.identifier("gateway", body.get("gateway"))
        players = body.get("players")
        if not isinstance(players, list) or len(players) > MAX_PLAYERS:
            raise TableError(BAD_REQUEST, f"players must be a list of at most {MAX_PLAYERS} ids")
        ids = [fields.identifier("players[]", p) for p in players]
        ttl_ms = body.get("ttl_ms")
        if type(ttl_ms) is not int or not MIN_TTL_MS <= ttl_ms <= MAX_TTL_MS:
            raise TableError(
                BAD_REQUEST, f"ttl_ms must be a whole number from {MIN_TTL_MS} to {MAX_TTL_MS}"
            )
        watchers = body.get("watchers", len(ids))
        if type(watchers) is not int or not 0 <= watchers <= MAX_WATCHERS:
            raise TableError(BAD_REQUEST, f"watchers must be a whole number up to {MAX_WATCHERS}")
        joined = body.get("joined", False)
        if not isinstance(joined, bool):
            raise TableError(BAD_REQUEST, "joined must be true or false")
        grew = self.sockets.announce(gateway, ids, ttl_ms / 1000, time.monotonic(), watchers)
        if grew or joined:
            await self.worker.publish_state(self)  # a new socket's first view
        else:
            await self.say_presence()
        return {"accepted": True}

    def watched(self) -> bool:
        """Does a socket watch this table now (services.table.presence)?"""
        return self.sockets.is_watched(time.monotonic())

    def connected_seats(self) -> list[int]:
        """The humans' seats whose player has a socket on the table now."""
        now = time.monotonic()
        return [
            s.number
            for s in self.state.seats
            if s.player is not None and self.sockets.is_connected(s.player, now)
        ]

    def presence_lines(self) -> list[dict[str, Any]]:
        """``presence``: one line a seat (:func:`services.table.presence.seat_line`)."""
        now = time.monotonic()
        return [
            seat_line(
                s.number,
                human=not s.is_bot,
                connected=s.player is not None and self.sockets.is_connected(s.player, now),
                missed=self.missed.get(s.number, 0),
                autoplay=s.number in self.state.autoplay,
            )
            for s in self.state.seats
        ]

    async def say_presence(self) -> None:
        """Tell watchers the table's state if a seat's presence line changed since they
        were last told (a socket came or went, an announcement expired, a turn missed, a
        bot took a seat or gave it back)."""
        if self.presence_lines() != self.presence_said:
            await self.worker.publish_state(self)

    async def seed(self, body: dict[str, Any]) -> dict[str, Any]:
        player = self._check_player(body.get("player"))
        seat_req = self._check_seat(body)
        # Longer than any seed can be: the randomness service says what is wrong with
        # a shorter one (seed_wrong_length, seed_not_hex).
        text = fields.text(
            "seed", body.get("seed"), MAX_SEED_TEXT, min_len=0, what="32 hex digits (16 bytes)"
        )
        cid = self._command_id(player, body)
        # Under the lock: a seed sent on seeing FairDealOpened may arrive between that
        # event's append and this table applying it (both happen under the lock).
        async with self.lock:
            seat = domain.seat_for(self.state, player, seat_req)
            if self.state.status == table_state.OPEN:
                raise TableError("not_started", "seeds are sent once the commitment is shown")
            match_id = self.state.match_id
        request = {"match_id": match_id, "seat": seat, "player": player, "seed": text}
        if cid is not None:
            request["command_id"] = cid
        reply = await self.worker.randomness("seed", request)
        return {
            "accepted": True,
            "window_closed": reply.get("window_closed"),
            "receipt": reply.get("receipt"),
        }

    async def view(self, body: dict[str, Any]) -> dict[str, Any]:
        """``GET /v1/tables/{id}``'s answer for ``player`` (a page's first load, and after
        a gap in the versions it was pushed). The fair deal's status is not in it: its
        events come to the page as they are appended."""
        player = fields.optional_text("player", body.get("player"), fields.MAX_ID)
        return self.reply(self.state.seat_of(player) if player is not None else None)

    def reply(self, seat: int | None) -> dict[str, Any]:
        """What a watcher at ``seat`` (None: not seated) is served now (table.views)."""
        return table_reply(
            {**table_state.summary(self.state), "status": self.status},
            self.match,
            seat,
            status=self.status,
            table_version=self.table_version,
            match_version=self.match_version,
            ending=None if self.ending is None else {"type": self.ending[0], **self.ending[1]},
            deadline_ms=self.deadline_ms(),
            server_seed=self.state.server_seed,
            presence=self.presence_lines(),
        )

    async def abort(self, body: dict[str, Any]) -> dict[str, Any]:
        """End the match with no winner. Who asked and why are recorded with it: an abort
        after a deck went out could be a server throwing away cards it saw, so the record,
        the verifier and the verify API's abort rate all show it."""
        reason = fields.text("reason", body.get("reason"), MAX_ABORT_TEXT)
        by = fields.text(
            "by", body.get("by"), MAX_ABORT_TEXT,
            what=f"who asks for the abort (1 to {MAX_ABORT_TEXT} characters)",
        )  # fmt: skip
        aborted = MatchAborted(reason, by)
        async with self.lock:
            if self.ending is not None:
                raise TableError("match_over", "the match has ended")
            if self.match is None:
                if self.state.status == table_state.OPEN:
                    await self._append_table([TableClosed(reason, now_ms())])
                    self.wake.set()
                    return {"aborted": True}
                st = self.state
                assert st.options is not None
                start = new_match(st.ruleset, st.match_id, target=st.options.target)
                self.match = None
                await self._append_match([started_event(start)], extra=[aborted])
                self.match = start
            else:
                await self._append_match([], extra=[aborted])
        MATCHES.labels("aborted").inc()
        self.wake.set()
        return {"aborted": True}

    # ------------------------------------------------------------------ the driver

    def deadline_ms(self) -> int | None:
        """When the human seat due to act loses its turn to the timer (None: no timer)."""
        if self.match is None or self.ending is not None or self.state.options is None:
            return None
        d = due(self.match)
        if d.seat is None or self.state.seats[d.seat].is_bot or d.seat in self.state.autoplay:
            return None
        return self.last_match_ms + self.state.options.turn_ms

    async def run(self) -> None:
        while not self.stopping:
            self.wake.clear()
            try:
                delay = await self.step()
            except LostTable as exc:
                log.warning("table lost", extra={"table_id": self.id, "why": str(exc)})
                LOST.inc()
                await self.worker.drop(self, release=False)
                return
            except ServiceError as exc:
                self._waiting(exc)
                delay = RETRY_S
            except asyncio.CancelledError:
                raise
            except Exception:
                # Looked at again in a second: a failure does not end the table's driver.
                retried(log, DRIVER_TASK, "table driver failed", table_id=self.id)
                delay = 1.0
            else:
                self._answered()
            if delay is None:
                continue
            if delay == float("inf") and self.state.status == table_state.CLOSED:
                await self.worker.drop(self, release=True, closed=True)
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), None if delay == float("inf") else delay)

    def _waiting(self, exc: ServiceError) -> None:
        """The randomness service did not give what the table needs (it asks again in
        RETRY_S): said when the wait starts, then at most every WAIT_LOG_S seconds."""
        now = time.monotonic()
        extra = {"table_id": self.id, "code": exc.code}
        if self.waiting_since is None:
            self.waiting_since = self._wait_logged = now
            log.warning("waiting for the randomness service: %s", exc, extra=extra)
        elif now - self._wait_logged >= WAIT_LOG_S:
            self._wait_logged = now
            waited = int(now - self.waiting_since)
            log.warning(
                "still waiting for the randomness service (%ds): %s", waited, exc, extra=extra
            )

    def _answered(self) -> None:
        if self.waiting_since is not None:
            waited = time.monotonic() - self.waiting_since
            self.waiting_since = None
            log.info(
                "the randomness service answers again after %.1fs", waited,
                extra={"table_id": self.id},
            )  # fmt: skip

    async def step(self) -> float | None:
        """Do what is due; None when something happened (look again at once), else how
        long to wait for (inf: until woken)."""
        st = self.state
        if st.status == table_state.CLOSED:
            return float("inf")
        if st.status == table_state.OPEN:
            if not st.all_seated:
                return float("inf")
            # "play now": the bots' seats stay open to humans for a while (a seat taken
            # or left wakes the driver, which looks again).
            wait_ms = st.wait_for_humans_ms(now_ms())
            if wait_ms > 0:
                return wait_ms / 1000
            await self._open_fair_deal()
            return None
        if self.ending is not None:
            return await self._finish()
        if self.match is None:
            return await self._first_deck()
        d = due(self.match)
        if d.kind is DueKind.DECK:
            return await self._next_deck(d.deal_number)
        assert d.seat is not None
        seat = st.seats[d.seat]
        assert st.options is not None
        if seat.is_bot:
            wait_ms = self.last_match_ms + st.options.bot_delay_ms - now_ms()
            if wait_ms > 0:
                return wait_ms / 1000
            return await self._bot_move(d.seat, seat.config.level or "medium", "bot")
        if d.seat in st.autoplay:
            pace = min(max(st.options.bot_delay_ms, AUTOPLAY_PACE_MS), st.options.turn_ms)
            wait_ms = self.last_match_ms + pace - now_ms()
            if wait_ms > 0:
                return wait_ms / 1000
            meta = {"seat": d.seat}
            return await self._bot_move(d.seat, st.options.fallback_level, AUTOPLAY, meta)
        if self._autoplay_due(d.seat):  # the timer's last move was appended, not this
            async with self.lock:
                await self._start_autoplay(d.seat)
            return None
        left = self.last_match_ms + st.options.turn_ms - now_ms()
        if left > 0:
            return left / 1000
        meta = {"seat": d.seat, "missed": self.missed.get(d.seat, 0) + 1}
        return await self._bot_move(d.seat, st.options.fallback_level, TIMER, meta)

    def _autoplay_due(self, seat: int) -> bool:
        """Has the timer played ``seat``'s turns as often in a row as the table lets it,
        with the match going on and no bot playing the seat yet?"""
        after = self.state.options.autoplay_after if self.state.options else 0
        return (
            after > 0
            and self.missed.get(seat, 0) >= after
            and seat not in self.state.autoplay
            and self.ending is None
        )

    async def _start_autoplay(self, seat: int) -> None:
        """A bot plays ``seat`` from now on (under the lock): ``SeatAutoplayStarted``."""
        if self._autoplay_due(seat):
            started = SeatAutoplayStarted(seat, self.missed.get(seat, 0), now_ms())
            await self._append_table([started])
            await self.say_presence()

    async def _open_fair_deal(self) -> None:
        st = self.state
        seats = [
            {"seat": s.number, "player": None if s.is_bot else s.player, "key": s.key or None}
            for s in st.seats
        ]
        reply = await self.worker.randomness("open", {"match_id": st.match_id, "seats": seats})
        async with self.lock:
            if self.state.status != table_state.OPEN or not self.state.all_seated:
                return
            opened = FairDealOpened(
                st.match_id,
                reply["commitment"],
                reply["window_closes_at_ms"],
                last_round=reply.get("last_round"),
                chain=reply.get("chain"),
                seats=tuple(MatchSeat(s.number, None if s.is_bot else s.player) for s in st.seats),
                at_ms=now_ms(),
            )
            await self._append_table([opened])
        await self.worker.publish_summary(self)

    async def _deck(self, deal: int, wait_ms: int) -> SupplyDeck:
        assert self.state.options is not None
        reply = await self.worker.randomness(
            "deck",
            {
                "match_id": self.state.match_id,
                "deal": deal,
                "cards": self.state.ruleset.deck_size,
                "wait_ms": wait_ms,
            },
            timeout=wait_ms / 1000 + self.worker.timeout,
        )
        cards = tuple(parse_card(c) for c in reply["cards"])
        # A reply without salts is a randomness service from before them (belot.salts).
        return SupplyDeck(deal, cards, tuple(bytes.fromhex(x) for x in reply.get("salts", ())))

    async def _first_deck(self) -> float | None:
        try:
            supply = await self._deck(0, DECK_WAIT_MS)
        except ServiceError as exc:
            if exc.code == "inputs_not_fixed":
                return 0.0  # still waiting for seeds or drand: ask again
            raise
        started = time.perf_counter()
        async with self.lock:
            if self.match is not None or self.ending is not None:
                return None
            st = self.state
            assert st.options is not None
            first = first_dealer(st.ruleset, supply.cards)
            start = new_match(st.ruleset, st.match_id, target=st.options.target,
                              first_dealer=first)  # fmt: skip
            events = [started_event(start), *decide(start, supply)]
            run = self._deck_run(start, self.match_version, events)
            self.match = start
            try:
                await self._append_match(run.events, run=run)
            except BaseException:
                self.match = None
                raise
        COMMANDS.labels("deck").observe(time.perf_counter() - started)
        await self.worker.publish_summary(self)
        return None

    async def _next_deck(self, deal: int) -> float | None:
        supply = await self._deck(deal, DECK_WAIT_MS)
        started = time.perf_counter()
        async with self.lock:
            if self.match is None or self.ending is not None:
                return None
            if not _same_deck_due(self.match, deal):
                return None
            events = decide(self.match, supply)
            run = self._deck_run(self.match, self.match_version, events)
            await self._append_match(run.events, run=run)
        COMMANDS.labels("deck").observe(time.perf_counter() - started)
        return None

    async def _bot_move(
        self, seat: int, level: str, by: str, extra: dict[str, Any] | None = None
    ) -> float | None:
        """A bot's move for ``seat`` (``by``: "bot", or "timer" / "autoplay" for a human's
        seat, whose metadata adds ``extra``: the seat, and the timer's missed count)."""
        match = self.match
        assert match is not None
        version = self.match_version
        if level == "hard":
            # Seeded by the match, its version and the deal's secret: a new owner makes
            # the same choice (bot_seed).
            rng = random.Random(bot_seed(match, self.state.match_id, version))
            # Reproducible play-outs, cut short when the decision's time is up.
            until = time.monotonic() + HARD_BOT_SECONDS
            command = await asyncio.to_thread(
                choose, view(match, seat), rng, level, None, lambda: time.monotonic() >= until
            )
            events = decide(match, command)
            for e in events:
                match = evolve(match, e)
            meta = {ACTED_BY: by, "bot_level": level, **(extra or {})}
            run = BotRun(core_events(events, meta), events, match)
        else:
            run = self._bot_run(match, version, seat, level, by, extra=extra)
        started = time.perf_counter()
        async with self.lock:
            if self.match_version != version or self.ending is not None:
                return None  # a player acted meanwhile: look again
            await self._append_match(run.events, run=run)
            if by == TIMER and extra is not None:
                self.missed[seat] = extra["missed"]
                await self._start_autoplay(seat)
                await self.say_presence()
        COMMANDS.labels(by).observe(time.perf_counter() - started)
        return None

    def _deck_run(self, match: Match, version: int, events: list[Event]) -> BotRun:
        """A deck's events (the match's start before the first deck's) as the first move
        of a run, and the bots' turns due after it that would follow at once (a bot of
        the easy or medium level due, ``bot_delay_ms`` 0): the deck and the bidding and
        play after it in one append, as :meth:`_bot_run` says."""
        for e in events:
            if e.TYPE != "MatchStarted":
                match = evolve(match, e)
        run = BotRun(core_events(events), list(events), match)
        assert self.state.options is not None
        if self.state.options.bot_delay_ms or match.result is not None:
            return run
        d = due(match)
        if d.kind is DueKind.DECK or d.seat is None:
            return run
        seat = self.state.seats[d.seat]
        level = seat.config.level or "medium"
        if not seat.is_bot or level == "hard":
            return run
        return self._bot_run(match, version + len(events), d.seat, level, "bot", run)

    def _bot_run(
        self,
        match: Match,
        version: int,
        seat: int,
        level: str,
        by: str,
        run: BotRun | None = None,
        *,
        extra: dict[str, Any] | None = None,
    ) -> BotRun:
        """The bots' turns from ``seat`` on, decided ahead: one move, and while no pause
        is asked for (``bot_delay_ms`` 0, not the timer's move) the moves of the bots due
        after it, up to a human's turn, a deck, a hard bot or the match's end, at most
        ``MAX_BOT_RUN`` events. Each move is the one a single move would be (its random
        generator is seeded by the match, the version it is decided at and the deal's
        secret, :func:`bot_seed`, so a new owner makes the same choice); they are
        appended together, one round trip to the
        log for the run. Nothing is awaited here, so no command comes in between.
        ``run``: moves already decided that these follow (a deck's: :meth:`_deck_run`);
        ``extra``: what the first move's metadata adds (a timer's or autoplay's seat)."""
        st = self.state
        assert st.options is not None
        more = by == "bot" and st.options.bot_delay_ms == 0
        if run is None:
            run = BotRun([], [], match)
        metadata: dict[str, dict[str, Any]] = {}  # one object per level: encoded once
        while True:
            rng = cast(random.Random, SeededOnUse(bot_seed(match, st.match_id, version)))
            events = decide(match, choose(view(match, seat), rng, level))
            if extra is not None:  # a human seat's one move (not a run: more is False)
                meta = {ACTED_BY: by, "bot_level": level, **extra}
            else:
                meta = metadata.setdefault(level, {ACTED_BY: by, "bot_level": level})
            run.encoded += core_events(events, meta)
            run.events += events
            for e in events:
                match = evolve(match, e)
            run.match = match
            version += len(events)
            if not more or len(run.events) >= MAX_BOT_RUN or match.result is not None:
                return run
            d = due(match)
            if d.kind is DueKind.DECK or d.seat is None:
                return run
            next_seat = st.seats[d.seat]
            level = next_seat.config.level or "medium"
            if not next_seat.is_bot or level == "hard":
                return run
            seat = d.seat

    async def _finish(self) -> float | None:
        assert self.ending is not None
        kind, payload = self.ending
        if not self.state.finished:
            if kind == table_state.MATCH_ENDED:
                winner, finished, leaver = payload.get("winner"), True, None
            elif kind == table_state.MATCH_FORFEITED:
                winner, finished, leaver = payload["winner_side"], False, payload["leaver"]
            else:
                winner, finished, leaver = None, False, None
            async with self.lock:
                summary = domain.match_finished(
                    self.state, winner=winner, finished=finished, leaver=leaver, now_ms=now_ms()
                )
                await self._append_table([summary])
            MATCHES.labels(
                {"MatchEnded": "ended", "MatchForfeited": "forfeit"}.get(kind, "aborted")
            ).inc()
            await self.worker.publish_summary(self)
            return None
        if self.state.server_seed is None:
            reply = await self.worker.randomness("reveal", {"match_id": self.state.match_id})
            async with self.lock:
                now = now_ms()
                # The seed revealed and the table closed in one append: nothing is due
                # between them.
                revealed = FairDealRevealed(self.state.match_id, reply["server_seed"], now)
                await self._append_table([revealed, TableClosed("match_finished", now)])
            return None
        async with self.lock:  # revealed by an owner before (a takeover): close it
            await self._append_table([TableClosed("match_finished", now_ms())])
        return None


@dataclass(slots=True)
class BotRun:
    """Moves decided ahead (:meth:`Table._bot_run`, :meth:`Table._deck_run`): their
    events as the log stores them and as the core made them, and the match after them.

    Watchers are told the table's state once, after the run's append: the run's events
    reach them one by one from the log (the outbox relay), and the states between them
    (a bot's seat due, no deadline) said nothing the events do not."""

    encoded: list[NewEvent]
    events: list[Event]
    match: Match


class SeededOnUse:
    """A move's random generator, seeded (``random.Random(seed)``) when the bot first
    draws from it: the easy and medium bots never do, and seeding one per move (a SHA-512
    of the seed's text and the Mersenne Twister's set-up) was about a tenth of what the
    worker added to the game core's CPU per deal. A bot that draws gets exactly the
    numbers the seeded generator gives."""

    __slots__ = ("_rng", "_seed")

    def __init__(self, seed: str) -> None:
        self._seed = seed
        self._rng: random.Random | None = None

    def __getattr__(self, name: str) -> Any:
        rng = self._rng
        if rng is None:
            rng = self._rng = random.Random(self._seed)
        return getattr(rng, name)


def bot_seed(match: Match, match_id: str, version: int) -> str:
    """What a bot's move at ``version`` seeds its random generator with: the match, the
    version, and the deal's own salt (belot.salts), which is in the log (a new owner
    replays it and makes the same move) but hidden until the match ends. Without it a
    player could replay the hard bot's draws for each hand it might hold and keep the
    hands whose move is the one made (docs/threat-model.md); a deal without salts (a
    match from before them) seeds as before."""
    deal = match.deal
    if deal is None or not deal.salts:
        return f"{match_id}:{version}"
    return f"{match_id}:{version}:{deal.salts[0].hex()}"


def _same_deck_due(match: Match, deal: int) -> bool:
    d = due(match)
    return d.kind is DueKind.DECK and d.deal_number == deal
