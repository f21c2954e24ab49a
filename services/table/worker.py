"""Table workers: leases, the tables a worker owns, and each table's driver.

Ownership. Each table has one owner at a time: a key in the KV bucket
``<prefix>_table_leases`` (key = table id, value = the worker's id) whose entries expire
``lease_ttl`` seconds after their last write. A worker claims a table with KV *create*
(only if the key is absent), renews it every third of the TTL with KV *update* naming the
revision it last wrote (compare-and-set: a worker whose lease expired and was taken
learns it there), and gives it up with a delete naming that revision. The bucket
``<prefix>_tables`` lists the open tables (the lobby's lines); every worker scans it and
claims the tables nobody holds a lease on. Graceful shutdown deletes the worker's
leases after its in-flight commands and says so on ``<prefix>.table.released``, so
another worker claims them at once instead of waiting for the TTL.

The lease is not what keeps a stream whole: every append names the stream version the
owner last saw, so an owner that lost its lease without noticing fails on its next
append (WrongExpectedVersion) and drops the table.

The driver. Each owned table runs one task that does whatever is due next: open the
fair deal once every human seat is taken, fetch each deal's deck from the randomness
service and hand it to the core, play the bots' turns, play a human's turn with a bot
of the table's fallback level when its timer runs out, and at the end append
``TableMatchFinished``, ask for the reveal and close the table. Players' commands come
by NATS request/reply on ``<prefix>.table.<id>.<verb>`` and are decided under the
table's lock, between the driver's steps. While the randomness service does not answer,
the driver asks again every ``RETRY_S``; it says so when the wait starts and then at
most every ``WAIT_LOG_S``, and the longest wait of this process's tables is
``belot_table_randomness_wait_seconds`` (read as it is scraped).

Supervision. The scan and the leases' heartbeat run under the worker's supervisor
(``table-scan``, ``table-heartbeat``: :mod:`belot_platform.supervise`): a failure (NATS
away) is logged, counted and the loop started again after a back-off. A table's driver
goes on after a failure by itself, counted as ``table-driver``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import logging
import os
import random
import socket
import time
import uuid
import weakref
from collections.abc import Awaitable, Iterator
from typing import Any, Final

import orjson
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError, NoKeysError
from nats.js.kv import KeyValue
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

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
from belot.cards import Card
from belot.events import DealScored, Event, MatchEnded
from belot_platform import fields, messaging
from belot_platform.messaging import BAD_REQUEST, ServiceError
from belot_platform.supervise import Supervised, Supervisor, cancel, retried
from eventlog import EventStore, NewEvent, WrongExpectedVersion
from services.table import domain
from services.table.domain import TableError
from services.table.handlers import command_callback, parse_move
from services.table.store import (
    ACTED_BY,
    Loaded,
    LostTable,
    core_events,
    load,
    match_stream,
    table_stream,
)
from table import state as table_state
from table.views import public_view, view_to_json

log = logging.getLogger(__name__)

#: The longest reason, or name of who asked, an abort may record.
MAX_ABORT_TEXT = 200
#: A seed's text longer than this is refused as it comes in (a seed is 32 hex digits).
MAX_SEED_TEXT: Final = 200

QUEUE: Final = "table"
#: How long a deck request waits for the fair-deal inputs (the randomness service's max).
DECK_WAIT_MS: Final = 15_000
#: Retry pause after the randomness service did not answer.
RETRY_S: Final = 0.5
#: A creation with a registry line but no stream yet is left alone this long.
CREATION_GRACE_MS: Final = 30_000
#: A hard bot's time budget per decision: it plays its best card so far when it is up
#: (a whole decision takes a median of about 24 ms: docs/bench/arena.md).
HARD_BOT_SECONDS: Final = 0.25

OWNED = Gauge("belot_tables_owned", "Tables this worker owns.")
#: The workers of this process, for the by-state gauge computed at scrape time.
_WORKERS: weakref.WeakSet[TableWorker] = weakref.WeakSet()


class _TablesByState(Collector):
    """``belot_tables_by_state{state}``: the tables this process owns, by status, read
    from the workers when Prometheus scrapes (nothing to keep in step)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "belot_tables_by_state", "Tables this worker owns, by state.", labels=["state"]
        )
        counts = collections.Counter(
            t.status for w in list(_WORKERS) for t in list(w.tables.values())
        )
        for state in (
            table_state.OPEN,
            table_state.DEALING,
            table_state.PLAYING,
            table_state.FINISHED,
            table_state.CLOSED,
        ):
            family.add_metric([state], counts.get(state, 0))
        yield family


REGISTRY.register(_TablesByState())
COMMANDS = Histogram(
    "belot_table_command_seconds",
    "Time to decide and append one command (a player's, a bot's, the timer's, a deck).",
    ["by"],
    buckets=(
        *(0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05),
        *(0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0),
    ),
)
DEALS = Counter("belot_table_deals_total", "Deals scored at this worker's tables.")
CLAIMS = Counter("belot_table_claims_total", "Tables claimed, by how.", ["how"])
LOST = Counter("belot_table_leases_lost_total", "Tables dropped: lease lost or stale write.")
MATCHES = Counter("belot_table_matches_finished_total", "Matches ended, by how.", ["how"])
#: The worker's supervised loops (the ``task`` label of belot_task_up and restarts).
SCAN_TASK: Final = "table-scan"
HEARTBEAT_TASK: Final = "table-heartbeat"
#: A table's driver (one per table, retried by itself): its failures are counted so.
DRIVER_TASK: Final = "table-driver"
RANDOMNESS_WAIT = Gauge(
    "belot_table_randomness_wait_seconds",
    "The longest current wait of a table for the randomness service; 0 if none.",
)
#: While a table waits for the randomness service, it says so at most this often.
WAIT_LOG_S: Final = 30.0


def _longest_randomness_wait() -> float:
    """``belot_table_randomness_wait_seconds``, read from the tables as it is scraped."""
    now = time.monotonic()
    waits = [
        now - t.waiting_since
        for w in list(_WORKERS)
        for t in list(w.tables.values())
        if t.waiting_since is not None
    ]
    return max(waits, default=0.0)


RANDOMNESS_WAIT.set_function(_longest_randomness_wait)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def table_id_for(creator: str | None, command_id: str | None) -> str:
    """A new table's id: derived from the creation's command id, so a retried creation
    names the same table; random without one."""
    if command_id is None:
        return uuid.uuid4().hex[:20]
    return hashlib.sha256(f"{creator}\x00{command_id}".encode()).hexdigest()[:20]


def log_command_id(table_id: str, player: str | None, command_id: str | None) -> str | None:
    """The command id written to the log: a client's id counts within its table and
    player, so two players (or two tables) may use the same one."""
    if command_id is None:
        return None
    return f"{table_id}:{player or '-'}:{command_id}"


class Table:
    """A table this worker owns: its state, its lock, its driver and subscription."""

    def __init__(self, worker: TableWorker, loaded: Loaded, revision: int) -> None:
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

    # ------------------------------------------------------------------ appending

    @property
    def status(self) -> str:
        """The table's status: its stream's, and "playing" from the first deck on (the
        match stream says that, so the table stream's status stays "dealing")."""
        if self.state.status == table_state.DEALING and self.match is not None:
            return table_state.PLAYING
        return self.state.status

    async def _append_table(self, events: list[NewEvent], command_id: str | None = None) -> None:
        try:
            result = await self.worker.store.append(
                table_stream(self.id), self.table_version, events, command_id=command_id
            )
        except WrongExpectedVersion as exc:
            raise LostTable(str(exc)) from None
        if result.duplicate:
            raise LostTable(f"table-{self.id}: an append was already made by another owner")
        self.table_version = result.last_version
        for e in events:
            self.state = table_state.evolve(self.state, e.type, e.payload)
        if command_id:
            self.command_ids.add(command_id)
        await self.worker.publish_state(self)

    async def _append_match(
        self,
        events: list[Event],
        metadata: dict[str, Any] | None = None,
        command_id: str | None = None,
        extra: list[NewEvent] | None = None,
    ) -> None:
        new = core_events(events, metadata) + (extra or [])
        try:
            result = await self.worker.store.append(
                match_stream(self.state.match_id), self.match_version, new, command_id=command_id
            )
        except WrongExpectedVersion as exc:
            raise LostTable(str(exc)) from None
        if result.duplicate:
            raise LostTable(f"match-{self.state.match_id}: already written by another owner")
        self.match_version = result.last_version
        self.last_match_ms = now_ms()
        assert self.match is not None or (events and events[0].TYPE == "MatchStarted")
        for e in events:
            if e.TYPE == "MatchStarted":
                continue
            assert self.match is not None
            self.match = evolve(self.match, e)
            if isinstance(e, DealScored):
                DEALS.inc()
            if isinstance(e, MatchEnded):
                self.ending = (table_state.MATCH_ENDED, {"winner": e.winner})
        for x in extra or []:
            if x.type in (table_state.MATCH_FORFEITED, table_state.MATCH_ABORTED):
                self.ending = (x.type, dict(x.payload))
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
        if seat is None:
            raise TableError(BAD_REQUEST, "seat must be a whole number")
        cid = self._command_id(player, body)
        async with self.lock:
            if cid is not None and cid in self.command_ids:
                return {"table_id": self.id, "seat": seat, "accepted": True}
            payload = domain.take_seat(self.state, seat, player, now_ms())
            await self._append_table([NewEvent(table_state.SEAT_TAKEN, payload)], cid)
        await self.worker.publish_summary(self)
        self.wake.set()
        return {"table_id": self.id, "seat": seat, "accepted": True}

    async def leave(self, body: dict[str, Any]) -> dict[str, Any]:
        player = self._check_player(body.get("player"))
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
                events = [NewEvent(table_state.SEAT_LEFT, {"seat": seat, "player": player,
                                                     "forfeit": False, "at_ms": now})]  # fmt: skip
                if st.humans_seated == 1:
                    closed = {"reason": "empty", "at_ms": now}
                    events.append(NewEvent(table_state.TABLE_CLOSED, closed))
                await self._append_table(events, cid)
                await self.worker.publish_summary(self)
                self.wake.set()
                return {"table_id": self.id, "left": True, "forfeit": False}
            if self.ending is not None or st.status in (table_state.FINISHED, table_state.CLOSED):
                raise TableError("match_over", "the match has ended")
            # docs/specification.md §5: leaving a match is a loss. Before the first deck, the match
            # stream opens (first dealer 0: no card was dealt) and ends at once.
            forfeit = NewEvent(table_state.MATCH_FORFEITED, domain.forfeited(st.ruleset, seat))
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
                raise TableError(exc.code, exc.message) from None
            await self._append_match(events, {ACTED_BY: "player"}, cid)
            version = self.match_version
        COMMANDS.labels("player").observe(time.perf_counter() - started)
        self.wake.set()
        return {"accepted": True, "match_version": version}

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
        player = fields.optional_text("player", body.get("player"), fields.MAX_ID)
        fair_deal = body.get("fair_deal", False)
        if not isinstance(fair_deal, bool):
            raise TableError(BAD_REQUEST, "fair_deal must be true or false")
        seat = self.state.seat_of(player) if player is not None else None
        out: dict[str, Any] = {
            "table": {**table_state.summary(self.state), "status": self.status},
            "seat": seat,
            "match_version": self.match_version,
            "table_version": self.table_version,
            "status": self.status,
            "ending": None if self.ending is None else {"type": self.ending[0], **self.ending[1]},
            "deadline_ms": self.deadline_ms(),
            "view": None,
            "server_seed": self.state.server_seed,
        }
        match = self.match
        if match is not None:
            n = match.ruleset.players
            if seat is not None:
                out["view"] = view_to_json(view(match, seat))
            else:
                out["view"] = public_view(view(match, 0 % n))
        if fair_deal and self.state.status != table_state.OPEN:
            with contextlib.suppress(ServiceError):
                out["fair_deal"] = await self.worker.randomness(
                    "status", {"match_id": self.state.match_id}
                )
        return out

    async def abort(self, body: dict[str, Any]) -> dict[str, Any]:
        """End the match with no winner. Who asked and why are recorded with it: an abort
        after a deck went out could be a server throwing away cards it saw, so the record,
        the verifier and the verify API's abort rate all show it."""
        reason = fields.text("reason", body.get("reason"), MAX_ABORT_TEXT)
        by = fields.text(
            "by", body.get("by"), MAX_ABORT_TEXT,
            what=f"who asks for the abort (1 to {MAX_ABORT_TEXT} characters)",
        )  # fmt: skip
        aborted = NewEvent(table_state.MATCH_ABORTED, {"reason": reason, "by": by})
        async with self.lock:
            if self.ending is not None:
                raise TableError("match_over", "the match has ended")
            if self.match is None:
                if self.state.status == table_state.OPEN:
                    await self._append_table(
                        [NewEvent(table_state.TABLE_CLOSED, {"reason": reason, "at_ms": now_ms()})]
                    )
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
        if d.seat is None or self.state.seats[d.seat].is_bot:
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
            if st.all_seated:
                await self._open_fair_deal()
                return None
            return float("inf")
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
        left = self.last_match_ms + st.options.turn_ms - now_ms()
        if left > 0:
            return left / 1000
        return await self._bot_move(d.seat, st.options.fallback_level, "timer")

    async def _open_fair_deal(self) -> None:
        st = self.state
        seats = [{"seat": s.number, "player": None if s.is_bot else s.player} for s in st.seats]
        reply = await self.worker.randomness("open", {"match_id": st.match_id, "seats": seats})
        async with self.lock:
            if self.state.status != table_state.OPEN or not self.state.all_seated:
                return
            payload = {
                "match_id": st.match_id,
                "commitment": reply["commitment"],
                "window_closes_at_ms": reply["window_closes_at_ms"],
                "last_round": reply.get("last_round"),
                "chain": reply.get("chain"),
                "seats": seats,
                "at_ms": now_ms(),
            }
            await self._append_table([NewEvent(table_state.FAIR_DEAL_OPENED, payload)])
        await self.worker.publish_summary(self)

    async def _deck(self, deal: int, wait_ms: int) -> tuple[Card, ...]:
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
        return tuple(parse_card(c) for c in reply["cards"])

    async def _first_deck(self) -> float | None:
        try:
            cards = await self._deck(0, DECK_WAIT_MS)
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
            first = first_dealer(st.ruleset, cards)
            start = new_match(st.ruleset, st.match_id, target=st.options.target,
                              first_dealer=first)  # fmt: skip
            events = [started_event(start), *decide(start, SupplyDeck(0, cards))]
            self.match = start
            try:
                await self._append_match(events)
            except BaseException:
                self.match = None
                raise
        COMMANDS.labels("deck").observe(time.perf_counter() - started)
        await self.worker.publish_summary(self)
        return None

    async def _next_deck(self, deal: int) -> float | None:
        cards = await self._deck(deal, DECK_WAIT_MS)
        started = time.perf_counter()
        async with self.lock:
            if self.match is None or self.ending is not None:
                return None
            if not _same_deck_due(self.match, deal):
                return None
            await self._append_match(decide(self.match, SupplyDeck(deal, cards)))
        COMMANDS.labels("deck").observe(time.perf_counter() - started)
        return None

    async def _bot_move(self, seat: int, level: str, by: str) -> float | None:
        match = self.match
        assert match is not None
        version = self.match_version
        # Seeded by the match and its version: a new owner makes the same choice.
        rng = random.Random(f"{self.state.match_id}:{version}")
        seat_view = view(match, seat)
        if level == "hard":
            # Reproducible play-outs, cut short when the decision's time is up.
            until = time.monotonic() + HARD_BOT_SECONDS
            command = await asyncio.to_thread(
                choose, seat_view, rng, level, None, lambda: time.monotonic() >= until
            )
        else:
            command = choose(seat_view, rng, level)
        started = time.perf_counter()
        async with self.lock:
            if self.match_version != version or self.ending is not None:
                return None  # a player acted meanwhile: look again
            await self._append_match(decide(match, command), {ACTED_BY: by, "bot_level": level})
        COMMANDS.labels(by).observe(time.perf_counter() - started)
        return None

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
                await self._append_table([NewEvent(table_state.TABLE_MATCH_FINISHED, summary)])
            MATCHES.labels(
                {"MatchEnded": "ended", "MatchForfeited": "forfeit"}.get(kind, "aborted")
            ).inc()
            await self.worker.publish_summary(self)
            return None
        if self.state.server_seed is None:
            reply = await self.worker.randomness("reveal", {"match_id": self.state.match_id})
            async with self.lock:
                await self._append_table(
                    [
                        NewEvent(
                            table_state.FAIR_DEAL_REVEALED,
                            {
                                "match_id": self.state.match_id,
                                "server_seed": reply["server_seed"],
                                "at_ms": now_ms(),
                            },
                        )
                    ]
                )
            return None
        async with self.lock:
            await self._append_table(
                [
                    NewEvent(
                        table_state.TABLE_CLOSED, {"reason": "match_finished", "at_ms": now_ms()}
                    )
                ]
            )
        return None


def _same_deck_due(match: Match, deal: int) -> bool:
    d = due(match)
    return d.kind is DueKind.DECK and d.deal_number == deal


class TableWorker:
    """Owns tables: creates them, claims orphans, renews leases, hands over on stop."""

    def __init__(
        self,
        nc: Client,
        store: EventStore,
        *,
        prefix: str = "belot",
        lease_ttl: float = 10.0,
        turn_ms: int = 30_000,
        timeout: float = 2.0,
        worker_id: str | None = None,
        supervisor: Supervisor | None = None,
    ) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.store = store
        self.prefix = prefix
        self.lease_ttl = lease_ttl
        self.turn_ms = turn_ms
        self.timeout = timeout
        # Host and pid in the id: operators (and the failover test) see who owns what.
        self.id = worker_id or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.tables: dict[str, Table] = {}
        self.leases: KeyValue | None = None
        self.registry: KeyValue | None = None
        self._subs: list[Subscription] = []
        self._tasks: set[asyncio.Task[None]] = set()  # hand-over claims in flight
        self._loops: list[Supervised] = []
        self._claiming: set[str] = set()
        self._spawned: set[asyncio.Future[Any]] = set()
        self._accepting = False
        #: Runs the scan and the leases' heartbeat (the app's, for its /readyz).
        self.supervisor = supervisor or Supervisor()
        _WORKERS.add(self)

    # ------------------------------------------------------------------ names

    @property
    def create_subject(self) -> str:
        return f"{self.prefix}.table.create"

    def table_subject(self, table_id: str) -> str:
        return f"{self.prefix}.table.{table_id}"

    @property
    def released_subject(self) -> str:
        return f"{self.prefix}.table.released"

    def state_subject(self, table_id: str) -> str:
        return f"{self.prefix}.tables.{table_id}"

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        # The buckets are the table service's: made, or made to match, as configured
        # (BELOT_LEASE_TTL changed since the bucket was made applies, or start fails).
        self.leases = await messaging.kv_bucket(
            self.js, f"{self.prefix}_table_leases", ttl=self.lease_ttl, reconcile=True
        )
        self.registry = await messaging.kv_bucket(
            self.js, f"{self.prefix}_tables", reconcile=True
        )
        self._accepting = True
        self._subs.append(
            await messaging.serve(self.nc, self.create_subject, self.create, queue=QUEUE)
        )
        self._subs.append(await self.nc.subscribe(self.released_subject, cb=self._on_released))
        self._loops = [
            self.supervisor.spawn(SCAN_TASK, lambda _: self._scan_loop()),
            self.supervisor.spawn(HEARTBEAT_TASK, lambda _: self._heartbeat_loop()),
        ]
        log.info("table worker started", extra={"worker": self.id})

    async def stop(self, *, handover: bool = True) -> None:
        """Stop taking tables, finish in-flight commands, and give the leases up (with
        ``handover``) so that other workers claim them at once."""
        self._accepting = False
        for sub in self._subs:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        self._subs.clear()
        await asyncio.gather(*(loop.stop() for loop in self._loops))
        self._loops.clear()
        await cancel(*self._tasks)
        self._tasks.clear()
        released = []
        for table in list(self.tables.values()):
            await self._stop_table(table)
            if handover and await self._release_lease(table):
                released.append(table.id)
        self.tables.clear()
        OWNED.set(0)
        if released:
            with contextlib.suppress(Exception):
                await self.nc.publish(self.released_subject, orjson.dumps(released))
                await self.nc.flush(timeout=2)
        log.info("table worker stopped", extra={"worker": self.id, "handed_over": len(released)})

    async def _stop_table(self, table: Table) -> None:
        table.stopping = True
        table.wake.set()
        if table.sub is not None:
            with contextlib.suppress(Exception):
                await table.sub.unsubscribe()
        if table.task is not None and table.task is not asyncio.current_task():
            await cancel(table.task)
        if table.inflight:  # the players' commands already taken: let them finish
            await asyncio.wait(table.inflight, timeout=self.timeout)
        async with table.lock:
            pass

    async def _release_lease(self, table: Table) -> bool:
        assert self.leases is not None
        try:
            await self.leases.delete(table.id, last=table.revision)
            return True
        except Exception as exc:  # lost meanwhile: nothing to hand over
            log.info("lease not released: %s", exc, extra={"table_id": table.id})
            return False

    # ------------------------------------------------------------------ owning

    async def drop(self, table: Table, *, release: bool, closed: bool = False) -> None:
        """Stop driving ``table``; with ``closed`` it is finished: off the lobby too."""
        if self.tables.get(table.id) is not table:
            return
        del self.tables[table.id]
        OWNED.set(len(self.tables))
        await self._stop_table(table)
        if closed and self.registry is not None:
            with contextlib.suppress(Exception):
                await self.registry.delete(table.id)
        if release:
            await self._release_lease(table)

    async def _adopt(self, loaded: Loaded, revision: int) -> Table:
        table = Table(self, loaded, revision)
        self.tables[table.id] = table
        OWNED.set(len(self.tables))
        table.sub = await self.nc.subscribe(
            f"{self.table_subject(table.id)}.*",
            cb=command_callback(table, lambda: self.spawn(self.drop(table, release=False))),
        )
        table.task = asyncio.create_task(table.run(), name=f"table-{table.id}")
        return table

    async def claim(self, table_id: str, how: str = "scan") -> bool:
        """Try to become ``table_id``'s owner; True if this worker now drives it."""
        if table_id in self.tables or table_id in self._claiming or not self._accepting:
            return False
        assert self.leases is not None and self.registry is not None
        self._claiming.add(table_id)
        try:
            try:
                revision = await self.leases.create(table_id, self.id.encode())
            except KeyWrongLastSequenceError:
                return False  # someone holds it
            started = time.perf_counter()
            loaded = await load(self.store, table_id)
            if not loaded.table.exists:
                await self._forget_creation(table_id, revision)
                return False
            if loaded.table.status == table_state.CLOSED:
                with contextlib.suppress(Exception):
                    await self.registry.delete(table_id)
                with contextlib.suppress(Exception):
                    await self.leases.delete(table_id, last=revision)
                return False
            await self._adopt(loaded, revision)
            CLAIMS.labels(how).inc()
            log.info(
                "table claimed",
                extra={
                    "table_id": table_id,
                    "worker": self.id,
                    "how": how,
                    "replay_ms": int((time.perf_counter() - started) * 1000),
                    "match_version": loaded.match_version,
                },
            )
            return True
        finally:
            self._claiming.discard(table_id)

    async def _forget_creation(self, table_id: str, revision: int) -> None:
        """A registry line without a stream: a creation that died before its first
        append. Left alone while young; removed when old."""
        assert self.leases is not None and self.registry is not None
        with contextlib.suppress(Exception):
            entry = await self.registry.get(table_id)
            born = orjson.loads(entry.value or b"{}").get("opened_at_ms", 0)
            if now_ms() - born > CREATION_GRACE_MS:
                await self.registry.delete(table_id)
        with contextlib.suppress(Exception):
            await self.leases.delete(table_id, last=revision)

    async def _scan_loop(self) -> None:
        """Scan every quarter of the TTL (spread). A failure (NATS away) ends the loop:
        its supervisor logs it and scans again after its back-off."""
        interval = max(0.2, self.lease_ttl / 4)
        while True:
            await asyncio.sleep(interval * (0.75 + random.random() / 2))
            await self.scan()

    async def scan(self) -> int:
        """Claim the open tables nobody holds a lease on; returns how many."""
        assert self.leases is not None and self.registry is not None
        try:
            open_tables = set(await self.registry.keys())
        except NoKeysError:
            return 0
        try:
            held = set(await self.leases.keys())
        except NoKeysError:
            held = set()
        orphans = list(open_tables - held - set(self.tables))
        random.shuffle(orphans)
        claimed = 0
        for table_id in orphans:
            if await self.claim(table_id, "scan"):
                claimed += 1
        return claimed

    async def _on_released(self, msg: Msg) -> None:
        try:
            ids = orjson.loads(msg.data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(ids, list):
            return
        ids = [i for i in ids if isinstance(i, str)]
        random.shuffle(ids)

        async def take() -> None:
            await asyncio.sleep(random.random() * 0.05)  # spread the claims among workers
            for table_id in ids:
                try:
                    await self.claim(table_id, "handover")
                except Exception as exc:  # the next scan claims it: go on with the others
                    log.warning("hand-over claim failed: %r", exc, extra={"table_id": table_id})

        task = asyncio.create_task(take())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _heartbeat_loop(self) -> None:
        interval = self.lease_ttl / 3
        while True:
            await asyncio.sleep(interval)
            tables = list(self.tables.values())
            results = await asyncio.gather(
                *(self._renew(t) for t in tables), return_exceptions=True
            )
            now = time.monotonic()
            for table, ok in zip(tables, results, strict=True):
                if ok is True:
                    table.renewed = now
                    continue
                # False: another worker holds the lease. An error (NATS unreachable for
                # a moment): keep the table while the last renewal can still be alive;
                # the fence on appends covers the rest.
                if ok is False or now - table.renewed >= self.lease_ttl:
                    log.warning("lease lost", extra={"table_id": table.id, "why": str(ok)})
                    LOST.inc()
                    await self.drop(table, release=False)

    async def _renew(self, table: Table) -> bool:
        assert self.leases is not None
        try:
            table.revision = await self.leases.update(
                table.id, self.id.encode(), last=table.revision
            )
        except (KeyWrongLastSequenceError, KeyNotFoundError):
            return False
        return True

    # ------------------------------------------------------------------ messages

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    async def randomness(
        self, verb: str, body: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        reply: dict[str, Any] = await messaging.request(
            self.nc, f"{self.prefix}.randomness.{verb}", body, timeout=timeout or self.timeout
        )
        return reply

    async def publish_state(self, table: Table) -> None:
        """Tell watchers (the gateway) what the table waits for now: public facts only."""
        match = table.match
        d = due(match) if match is not None else None
        body = {
            "table_id": table.id,
            "match_id": table.state.match_id,
            "status": table.status,
            "table_version": table.table_version,
            "match_version": table.match_version,
            "due": None if d is None else d.kind.value,
            "turn": None if d is None else d.seat,
            "deal_number": None if d is None else d.deal_number,
            "deadline_ms": table.deadline_ms(),
            "ended": table.ending is not None,
        }
        with contextlib.suppress(Exception):
            await self.nc.publish(self.state_subject(table.id), orjson.dumps(body))

    async def publish_summary(self, table: Table) -> None:
        """The table's lobby line in ``<prefix>_tables``."""
        if self.registry is None or table.state.status == table_state.CLOSED:
            return
        with contextlib.suppress(Exception):
            line = {**table_state.summary(table.state), "status": table.status}
            await self.registry.put(table.id, orjson.dumps(line))

    # ------------------------------------------------------------------ creating

    async def create(self, body: Any) -> dict[str, Any]:
        """``<prefix>.table.create``: open a table (and seat its creator with ``sit``).

        Order matters: every field is checked before anything is written; then the
        lease (a scanning worker never claims a table being created), the append, and
        only once the table is in the log its lobby line. A creation that fails leaves
        no line behind (and gives its lease up, so that a retry goes on at once)."""
        if not isinstance(body, dict):
            raise ServiceError(BAD_REQUEST, "the request must be a JSON object")
        if not self._accepting:
            raise ServiceError("unavailable", "this worker is stopping")
        creator = fields.optional_text("creator", body.get("creator"), fields.MAX_ID)
        command_id = fields.command_id(body.get("command_id"))
        try:
            options = domain.parse_options(body, self.turn_ms)
        except TableError as exc:
            raise ServiceError(exc.code, exc.message) from None
        sit = body.get("sit")
        if sit is not None and (type(sit) is not int or creator is None):
            raise ServiceError(BAD_REQUEST, "sit must be a seat number, for a creator")
        table_id = table_id_for(creator, command_id)
        match_id = f"{table_id}-1"
        now = now_ms()
        opened = domain.opened(table_id, match_id, options, creator, now)
        events = [NewEvent(table_state.TABLE_OPENED, opened)]
        state = table_state.evolve(table_state.TableState(), table_state.TABLE_OPENED, opened)
        if sit is not None:
            assert creator is not None
            try:
                taken = domain.take_seat(state, sit, creator, now)
            except TableError as exc:
                raise ServiceError(exc.code, exc.message) from None
            events.append(NewEvent(table_state.SEAT_TAKEN, taken))
            state = table_state.evolve(state, table_state.SEAT_TAKEN, taken)
        assert self.leases is not None and self.registry is not None
        try:
            revision = await self.leases.create(table_id, self.id.encode())
        except KeyWrongLastSequenceError:
            return await self._created_elsewhere(table_id)
        try:
            await self.store.append(
                table_stream(table_id),
                0,
                events,
                command_id=log_command_id(table_id, creator, command_id),
            )
        except WrongExpectedVersion:
            with contextlib.suppress(Exception):
                await self.leases.delete(table_id, last=revision)
            return await self._created_elsewhere(table_id)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.leases.delete(table_id, last=revision)
            raise
        await self.registry.put(table_id, orjson.dumps(table_state.summary(state)))
        table = await self._adopt(await load(self.store, table_id), revision)
        await self.publish_state(table)
        CLAIMS.labels("created").inc()
        summary = table_state.summary(table.state)
        return {"table_id": table_id, "match_id": match_id, "table": summary}

    async def _created_elsewhere(self, table_id: str) -> dict[str, Any]:
        """A creation already made (a retry of it): its table. A creation whose worker
        died between its append and its lobby line gets its line here, only if there is
        none (KV create), so that a scanning worker claims it."""
        assert self.registry is not None
        loaded = await load(self.store, table_id)
        if not loaded.table.exists:
            raise ServiceError("busy", "this table is being created: retry")
        if loaded.table.status != table_state.CLOSED:
            line = {**table_state.summary(loaded.table), "status": loaded.table.status}
            with contextlib.suppress(KeyWrongLastSequenceError):
                await self.registry.create(table_id, orjson.dumps(line))
        return {
            "table_id": table_id,
            "match_id": loaded.table.match_id,
            "table": table_state.summary(loaded.table),
        }
