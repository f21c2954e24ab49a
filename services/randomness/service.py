"""The randomness service's main loop: load a match's fair-deal state from the log,
decide with :mod:`fairdeal.fairness`, append, and run each match's timers (the pure
parts, stream names and the public view, are :mod:`services.randomness.domain`).

Streams: ``randomness-<match_id>`` per match, and ``drand-<chain>-<round>`` per drand
round a match named. A match's timers (the seed window, then the drand round, its
5-second fallback, and the wait for a late value) run as one task per match; their
deadlines are in the events. The ticker (:meth:`RandomnessService.tick`, supervised as
``randomness-timers``) reads every second which matches are still pending (the seed
store marks them until their timers are done) and starts the timers of each that has
none running: after a restart, and just as well after any failure (an append refused
while PostgreSQL is away at a match's due + 5 s), the match is driven again on the next
tick, from the log, instead of waiting for ever. Each failure is logged (with its stack,
then once a minute while the same match keeps failing) and counted in
``belot_task_restarts_total{task="randomness-match"}``. The ticker also sets
``belot_randomness_oldest_due_seconds``: how long the oldest due work of a pending match
(a window to close, a fallback or a beacon to record: what its decks wait for) is late.

Whether a round's value came in time is decided once per round, not per match: one task
per round asks the relays and appends the round's one fact (``DrandRoundBeacon`` or
``DrandRoundMissed``) as the first event of the round's stream, with expected version 0,
so two tasks (or a restarted service) that race can only agree: the loser reads the
winner's fact. Every match that named the round then follows that fact.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Final

from prometheus_client import Counter, Gauge

from belot.cards import to_codes
from belot_platform.health import TASK_RESTARTS
from belot_platform.supervise import Supervised, Supervisor, cancel, retried
from drand.bls import Beacon
from drand.client import DrandClient
from drand.clock import Clock, sleep_until
from eventlog import EventStore, NewEvent, WrongExpectedVersion
from fairdeal import Shuffler, receipts
from fairdeal.chains import CHAINS
from fairdeal.fairness import (
    DRAND_GRACE_MS,
    MATCH_ENDING_EVENTS,
    PUBLIC,
    ROUND_LEAD_MS,
    DrandRoundMissed,
    Fairness,
    FairnessError,
    FairnessEvent,
    RoundFact,
    SeatSpec,
    close_window_if_due,
    decide_round,
    evolve,
    from_payload,
    issue_deck,
    late_beacon,
    open_match,
    reveal,
    round_fact_from_payload,
    round_resolved,
    round_stream,
    submit_seed,
    to_payload,
    visibility,
)
from services.randomness.domain import match_stream_of, stream_of
from services.randomness.store import SeedStore

log = logging.getLogger(__name__)

#: How long after the fallback a late drand value is still fetched, to be recorded.
LATE_WINDOW_MS: Final = 60_000

OPENED = Counter("belot_randomness_matches_opened_total", "Matches given a server seed.")
SEEDS = Counter("belot_randomness_seat_seeds_total", "Seat seeds by outcome.", ["outcome"])
DECKS = Counter("belot_randomness_decks_issued_total", "Decks handed to tables.")
FALLBACKS = Counter(
    "belot_drand_fallbacks_total", "Matches dealt without drand (no value by due + 5 s)."
)
ROUNDS = Counter(
    "belot_drand_rounds_decided_total",
    "drand rounds whose one public fact this service recorded, by outcome.",
    ["outcome"],
)
DRAND_USED = Counter("belot_drand_rounds_used_total", "Matches dealt with a verified drand value.")
REVEALS = Counter("belot_randomness_reveals_total", "Server seeds revealed at match end.")
OLDEST_DUE = Gauge(
    "belot_randomness_oldest_due_seconds",
    "How long the oldest work now due (a fallback, a deck, a reveal) has waited; 0 if none.",
)

Notify = Callable[[str, dict[str, Any]], Awaitable[None]]

#: The ticker's supervised task, and the per-match timers' failures (the ``task`` label).
TIMERS_TASK: Final = "randomness-timers"
MATCH_TASK: Final = "randomness-match"
#: Seconds between two looks at the pending matches.
TICK_S: Final = 1.0
#: A match that keeps failing is logged with its stack at most this often (seconds).
FAILURE_LOG_S: Final = 60.0


class RandomnessService:
    def __init__(
        self,
        store: EventStore,
        seeds: SeedStore,
        drand: DrandClient,
        clock: Clock,
        *,
        window_ms: int = 20_000,
        late_ms: int = LATE_WINDOW_MS,
        notify: Notify | None = None,
        supervisor: Supervisor | None = None,
        tick_s: float = TICK_S,
        round_lead_ms: int = ROUND_LEAD_MS,
    ) -> None:
        """``round_lead_ms``: the lead of the round each new match names, recorded in its
        commitment (fairness.ROUND_LEAD_MS; the app always takes that one, tests may give
        a shorter one to start matches sooner on a clock they cannot skip)."""
        self.store = store
        self.seeds = seeds
        self.drand = drand
        self.clock = clock
        self.window_ms = window_ms
        self.late_ms = late_ms
        self.round_lead_ms = round_lead_ms
        self._notify = notify
        self._states: dict[str, tuple[int, Fairness]] = {}
        self._commands: dict[str, set[str]] = {}  # command ids already in each stream
        self._locks: dict[str, asyncio.Lock] = {}
        self._seeds_in: dict[str, asyncio.Event] = {}
        self._fixed: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._server_seeds: dict[str, bytes] = {}  # memory of the private store, per match
        self._rounds: dict[tuple[str, int], asyncio.Task[RoundFact]] = {}
        #: After a round's fallback, the one task asking the relays for its late value,
        #: which every match that fell back on that round awaits (not one poller each:
        #: during an outage, hundreds of matches a round would each ask every relay every
        #: half second for a minute).
        self._late: dict[int, asyncio.Task[Beacon | None]] = {}
        #: The matches the ticker last found pending (kept while the store is away).
        self._pending: set[str] = set()
        #: When a match's failure was last logged with its stack (monotonic seconds).
        self._failed_at: dict[str, float] = {}
        self.supervisor = supervisor or Supervisor()
        self.tick_s = tick_s
        self._ticker: Supervised | None = None

    def now_ms(self) -> int:
        return int(self.clock.now() * 1000)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Start the ticker: it resumes the timers of every match whose window or drand
        round is still open at once, then keeps them going (module docstring)."""
        self._ticker = self.supervisor.spawn(
            TIMERS_TASK, self._tick_loop, stall_after=30 * self.tick_s + 10
        )

    async def stop(self) -> None:
        if self._ticker is not None:
            await self._ticker.stop()
        await cancel(*self._tasks.values(), *self._rounds.values(), *self._late.values())

    async def _tick_loop(self, t: Supervised) -> None:
        while not t.stopping.is_set():
            await self.tick()
            t.beat()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(t.stopping.wait(), self.tick_s)

    async def tick(self) -> None:
        """Set the oldest due work's age (from what is known, before asking the store),
        then start the timers of every pending match that has none running. Raises what
        the seed store raises (PostgreSQL away): the supervisor ticks again later."""
        OLDEST_DUE.set(self.oldest_due_s())
        pending = await self.seeds.pending()
        self._pending = set(pending)
        for match_id in pending:
            self._drive(match_id)
        OLDEST_DUE.set(self.oldest_due_s())

    def oldest_due_s(self) -> float:
        """Seconds the oldest work now due of a pending match has waited (0: none):
        a seed window past its close, a drand round past its due + 5 s without its fact
        recorded (the fallback due). States as last read (no I/O)."""
        now = self.now_ms()
        oldest = 0
        for match_id in list(self._pending):
            cached = self._states.get(match_id)
            if cached is None:
                continue
            state = cached[1]
            if not state.is_open:
                continue
            if not state.is_window_closed:
                due_ms: int | None = state.window_closes_at_ms
            elif not state.is_drand_resolved and state.drand_due_at_ms is not None:
                due_ms = state.drand_due_at_ms + DRAND_GRACE_MS
            else:
                due_ms = None
            if due_ms is not None and now > due_ms:
                oldest = max(oldest, now - due_ms)
        return oldest / 1000

    # ------------------------------------------------------------------ state

    async def _current(self, match_id: str) -> tuple[int, Fairness]:
        cached = self._states.get(match_id)
        if cached is not None:
            return cached
        state, version, commands = Fairness(), 0, set()
        for recorded in await self.store.read_stream(stream_of(match_id)):
            state = evolve(state, from_payload(recorded.type, recorded.payload))
            version = recorded.version
            if recorded.command_id is not None:
                commands.add(recorded.command_id)
        if version:
            self._states[match_id] = (version, state)
            self._commands[match_id] = commands
        return version, state

    async def state(self, match_id: str) -> Fairness:
        return (await self._current(match_id))[1]

    async def _apply(
        self,
        match_id: str,
        decide: Callable[[Fairness], list[FairnessEvent]],
        command_id: str | None = None,
    ) -> list[FairnessEvent]:
        """Decide against the current state and append; re-decide after a conflict.
        Raises FairnessError (nothing appended)."""
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            for _ in range(5):
                version, state = await self._current(match_id)
                if command_id is not None and command_id in self._commands.get(match_id, ()):
                    return []  # a retried command: it took effect the first time
                events = decide(state)
                if not events:
                    return []
                new = [NewEvent(e.TYPE, to_payload(e), visibility(e)) for e in events]
                try:
                    result = await self.store.append(
                        stream_of(match_id), version, new, command_id=command_id
                    )
                except WrongExpectedVersion:
                    self._states.pop(match_id, None)  # someone else appended: reload
                    continue
                if result.duplicate:  # a retried command: its events are already there
                    self._states.pop(match_id, None)
                    return []
                for e in events:
                    state = evolve(state, e)
                self._states[match_id] = (result.last_version, state)
                if command_id is not None:
                    self._commands.setdefault(match_id, set()).add(command_id)
                return events
        raise FairnessError("busy", "the match's fair-deal stream keeps changing; retry")

    # ------------------------------------------------------------------ commands

    async def open(
        self, match_id: str, seats: tuple[SeatSpec, ...], chain: str, window_ms: int | None
    ) -> Fairness:
        """Draw and keep a server seed, commit to it. A retried open returns the first."""
        _, state = await self._current(match_id)
        if state.is_open:
            return state
        # The seed is drawn with the OS's CSPRNG and stored before the commitment is
        # published; a retried open finds the stored one (put keeps the first).
        seed, receipt_secret = await self.seeds.put(
            match_id, secrets.token_bytes(32), secrets.token_bytes(receipts.SECRET_SIZE)
        )
        commitment = hashlib.sha256(seed).digest()
        # The match's receipt key (fairdeal.receipts): its public half in the commitment.
        receipt_key = receipts.public_key(receipt_secret) if receipt_secret else b""
        window = window_ms if window_ms is not None else self.window_ms
        now, lead = self.now_ms(), self.round_lead_ms
        await self._apply(
            match_id,
            lambda s: (
                []
                if s.is_open
                else open_match(
                    s,
                    match_id,
                    commitment,
                    seats,
                    chain,
                    window,
                    now,
                    lead,
                    receipt_key=receipt_key,
                )
            ),
        )
        state = await self.state(match_id)
        OPENED.inc()
        self._drive(match_id)
        return state

    async def submit_seed(
        self, match_id: str, seat: int, player: str, seed: bytes, command_id: str | None
    ) -> Fairness:
        _, state = await self._current(match_id)
        if not state.is_open:
            raise FairnessError("unknown_match", f"no match {match_id!r}")
        now = self.now_ms()
        try:
            await self._apply(
                match_id, lambda s: submit_seed(s, seat, player, seed, now), command_id
            )
        except FairnessError as exc:
            SEEDS.labels(exc.code).inc()
            raise
        SEEDS.labels("accepted").inc()
        state = await self.state(match_id)
        if state.is_window_closed:
            self._seeds_in.setdefault(match_id, asyncio.Event()).set()
        return state

    async def receipt(self, match_id: str, seat: int) -> dict[str, Any]:
        """What the seat is given for its seed: the event that recorded it (stream and
        version), the seed's SHA-256 and the match. The record must honour it: the seat's
        tab fails its check, at once, if the window closes without that seed, and at the
        end if the record's event at that version is not this one."""
        for e in await self.store.read_stream(stream_of(match_id)):
            if e.type == "SeatSeedReceived" and e.payload.get("seat") == seat:
                seed = bytes.fromhex(e.payload["seed"])
                receipt = receipts.Receipt(
                    match_id, seat, hashlib.sha256(seed).digest(), stream_of(match_id), e.version
                )
                # Signed with the match's receipt key (none for a match opened before).
                secret = await self.seeds.receipt_key(match_id)
                if secret is not None:
                    receipt = receipts.sign_receipt(secret, receipt)
                return {**receipt.to_json(), "at_ms": e.payload["at_ms"]}
        raise FairnessError("seed_lost", f"no seed of seat {seat} is recorded")

    async def deck(self, match_id: str, deal: int, cards: int, wait_s: float) -> dict[str, Any]:
        """Deal ``deal``'s deck, once the inputs are fixed (waiting up to ``wait_s``)."""
        _, state = await self._current(match_id)
        if not state.is_open:
            raise FairnessError("unknown_match", f"no match {match_id!r}")
        if not (state.is_window_closed and state.is_drand_resolved) and wait_s > 0:
            fixed = self._fixed.setdefault(match_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fixed.wait(), wait_s)
        now = self.now_ms()
        await self._apply(match_id, lambda s: issue_deck(s, deal, cards, now))
        state = await self.state(match_id)
        seed = await self._server_seed(match_id)
        deck = Shuffler(state.deck_inputs(seed)).deck(deal, cards)
        DECKS.inc()
        return {
            "match_id": match_id,
            "deal": deal,
            "cards": to_codes(list(deck)),
            # The salts of the deal's hidden events, the table's to put in them (none for
            # a match that did not promise them: belot.salts).
            "salts": [s.hex() for s in state.salts(seed, deal)],
            "drand_round": state.drand.round if state.drand else None,
            "fallback": state.fallback,
        }

    async def reveal(self, match_id: str) -> Fairness:
        """Append ServerSeedRevealed once the match's own stream says it has ended."""
        _, state = await self._current(match_id)
        if not state.is_open:
            raise FairnessError("unknown_match", f"no match {match_id!r}")
        if state.is_revealed:
            return state
        # An ending is its stream's last event (eventkit.streams: nothing follows it), so
        # the last event says it; were anything appended after one, the seed would stay
        # hidden rather than come out early.
        stream = match_stream_of(match_id)
        last = await self.store.read_stream(stream, await self.store.stream_version(stream))
        ended = bool(last) and last[-1].type in MATCH_ENDING_EVENTS
        seed = await self._server_seed(match_id)
        now = self.now_ms()
        await self._apply(match_id, lambda s: reveal(s, seed, ended, now))
        self._server_seeds.pop(match_id, None)
        REVEALS.inc()
        return await self.state(match_id)

    async def _server_seed(self, match_id: str) -> bytes:
        seed = self._server_seeds.get(match_id)
        if seed is None:
            seed = await self.seeds.get(match_id)
            if seed is None:  # the log says open, but the private store lost the seed
                raise FairnessError("seed_lost", "the server seed of this match is missing")
            self._server_seeds[match_id] = seed
        return seed

    # ------------------------------------------------------------------ timers

    def _drive(self, match_id: str) -> None:
        task = self._tasks.get(match_id)
        if task is None or task.done():
            self._pending.add(match_id)
            self._tasks[match_id] = asyncio.create_task(
                self._run_timers(match_id), name=f"randomness-{match_id}"
            )

    async def _run_timers(self, match_id: str) -> None:
        try:
            if not (await self.state(match_id)).is_open:  # a seed kept, no commitment logged
                if match_id not in self._failed_at:
                    log.warning("pending match has no commitment", extra={"match_id": match_id})
                    self._failed_at[match_id] = asyncio.get_running_loop().time()
                return
            await self._window(match_id)
            await self._drand(match_id)
            await self.seeds.settle(match_id)
            self._pending.discard(match_id)
            self._failed_at.pop(match_id, None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Driven again at the next tick (module docstring): log it, count it. (Its
            # cached state stays: an append that failed changed nothing, and one whose
            # outcome is unknown is found out by the next append's expected version.)
            now = asyncio.get_running_loop().time()
            last = self._failed_at.get(match_id)
            if last is None or now - last >= FAILURE_LOG_S:
                self._failed_at[match_id] = now
                retried(log, MATCH_TASK, "randomness timers failed", match_id=match_id)
            else:
                TASK_RESTARTS.labels(MATCH_TASK).inc()
                log.debug("randomness timers of %s failed again: %r", match_id, exc)
        finally:
            self._tasks.pop(match_id, None)

    async def _window(self, match_id: str) -> None:
        state = await self.state(match_id)
        if state.is_window_closed:
            return
        seeds_in = self._seeds_in.setdefault(match_id, asyncio.Event())
        waits = [
            asyncio.ensure_future(seeds_in.wait()),
            asyncio.ensure_future(sleep_until(self.clock, state.window_closes_at_ms / 1000)),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        now = self.now_ms()
        await self._apply(match_id, lambda s: close_window_if_due(s, now))

    async def _drand(self, match_id: str) -> None:
        state = await self.state(match_id)
        assert state.drand_round is not None and state.drand_due_at_ms is not None
        round_, due_ms = state.drand_round, state.drand_due_at_ms
        if not state.is_drand_resolved:
            fact = await self.round_fact(state.chain, round_)
            now = self.now_ms()
            await self._apply(match_id, lambda s: round_resolved(s, fact, now))
            state = await self.state(match_id)
            if state.fallback:
                FALLBACKS.inc()
            else:
                DRAND_USED.inc()
        self._fixed.setdefault(match_id, asyncio.Event()).set()
        if self._notify is not None:
            await self._notify(
                match_id, {"match_id": match_id, "drand_round": round_, "fallback": state.fallback}
            )
        if state.fallback:
            await self._late_value(match_id, round_, due_ms)

    async def round_fact(self, chain: str, round_: int) -> RoundFact:
        """The one public fact about ``round_``: read from its stream, or decided by the one
        task of this service that asks the relays for it."""
        key = (chain, round_)
        task = self._rounds.get(key)
        if task is None:
            task = asyncio.create_task(self._decide_round(chain, round_), name=f"drand-{round_}")
            self._rounds[key] = task
            # Once decided the fact is in the log: later askers read it there.
            task.add_done_callback(lambda _: self._rounds.pop(key, None))
        return await asyncio.shield(task)

    async def _recorded_fact(self, stream: str) -> RoundFact | None:
        recorded = await self.store.read_stream(stream)
        if not recorded:
            return None
        return round_fact_from_payload(recorded[0].type, recorded[0].payload)

    async def _decide_round(self, chain: str, round_: int) -> RoundFact:
        stream = round_stream(chain, round_)
        known = await self._recorded_fact(stream)
        if known is not None:
            return known
        due_s = CHAINS[chain].time_of_round(round_)
        deadline_s = due_s + DRAND_GRACE_MS / 1000
        beacon = await self.drand.beacon_by(round_, deadline_s)
        if beacon is None:
            # A relay's "no" can come before the deadline: a round is missed only then.
            await sleep_until(self.clock, deadline_s)
        now = self.now_ms()
        fact = decide_round(
            chain,
            round_,
            None if beacon is None else (
                beacon.signature, beacon.randomness, beacon.previous_signature
            ),
            now,
        )  # fmt: skip
        event = NewEvent(fact.TYPE, to_payload(fact), PUBLIC)
        try:
            await self.store.append(stream, 0, [event])
        except WrongExpectedVersion:
            # Another process recorded the round's fact first: that one stands.
            known = await self._recorded_fact(stream)
            assert known is not None
            return known
        ROUNDS.labels("missed" if isinstance(fact, DrandRoundMissed) else "beacon").inc()
        return fact

    async def _late_value(self, match_id: str, round_: int, due_ms: int) -> None:
        """After a fallback, keep asking for a while: a value that comes is recorded (not
        used), so the replay can show it."""
        if (await self.state(match_id)).late_recorded:
            return
        task = self._late.get(round_)
        if task is None:
            deadline_s = (due_ms + self.late_ms) / 1000
            task = asyncio.create_task(self.drand.beacon_by(round_, deadline_s, patient=True))
            self._late[round_] = task
            task.add_done_callback(
                lambda done: (
                    self._late.pop(round_, None) if self._late.get(round_) is done else None
                )
            )
        beacon = await asyncio.shield(task)
        if beacon is None:
            return
        now = self.now_ms()
        await self._apply(
            match_id, lambda s: late_beacon(s, round_, beacon.signature, beacon.randomness, now)
        )
