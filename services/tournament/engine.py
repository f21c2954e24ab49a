"""The tournament service's engine: commands serialised per tournament, the tables it
opens and closes on the table service, the results it follows in the log, and the
clocks.

Commands. Every change to a tournament runs :meth:`Engine.run` under that tournament's
lock: read the stream's new events, decide with the core, append with the version read
(``expected_version``; a second writer, say another replica, makes it fail and the
command is decided again on the new state) and, where given, a command id that makes a
repeat a no-op. Round creation is such a command (``<id>:pair:<k>``), and the core
appends nothing for a round already paired: a restart never pairs a round twice.

Effects (:meth:`Engine.kick`): after every change, one task per tournament looks at it
and does what is due: pair the next round once the current one is complete (unless
paused, or the organiser pairs by hand), open a table for each undecided game of the
round that has none (``belot.table.create`` with a command id, so a retry names the same
table; then ``TableAssigned``), and abort the tables whose match the tournament decided
otherwise (a no-show, a withdrawal, the round's clock, the end).

Results. The consumer follows the event log from its checkpoint (as the rating service
does): a ``TableMatchFinished`` of a table the tournament opened becomes the core's
``record_result`` (the match's final score from its ``MatchEnded``), appended with the
command id ``<id>:result:<table id>`` in the same transaction as the checkpoint; a rated
one with no bot seat also scores for every running ladder of its ruleset.

Clocks. The core's ``deadlines(state)`` (seat windows, the round's end, a ladder's end)
come from the events alone; the clock loop wakes for the earliest, at most every
``tick`` seconds, so a restarted service sets them again from the log and a deadline
that passed while it was down fires at once. Time is the injected ``clock`` (unix ms).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import random
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from nats.aio.client import Client
from prometheus_client import Counter, Gauge, Histogram

from belot.seats import side_of
from belot_platform import fields, messaging
from belot_platform.messaging import ServiceError
from belot_platform.supervise import Supervised, Supervisor, cancel, retried
from eventlog import NewEvent, RecordedEvent, WrongExpectedVersion
from eventlog.envelope import SECRET
from services.tournament import domain
from services.tournament.domain import Assigned, Loaded, Refused
from services.tournament.store import TournamentStore
from tournament import Deadline, Outcome, Standing, TournamentError, commands, deadlines, standings
from tournament.events import TournamentEvent
from tournament.settings import Seeding
from tournament.state import Tournament

log = logging.getLogger(__name__)

Clock = Callable[[], int]
Decide = Callable[[Loaded], Awaitable[list[NewEvent]]]

_ATTEMPTS: Final = 5
#: The longest reason an organiser may give for cancelling or terminating, and for a
#: correction (each is written into an event).
MAX_REASON: Final = 200
MAX_CORRECTION_REASON: Final = 500
TABLE_STREAM: Final = "table-"
#: How often the effects of every live tournament are looked at again (a table the
#: table service could not open, an abort that found nobody).
SWEEP_S: Final = 5.0
#: The engine's supervised loops, and its per-tournament effects' failures (the
#: ``task`` label of belot_task_up and belot_task_restarts_total).
CLOCK_TASK: Final = "tournament-clock"
RESULTS_TASK: Final = "tournament-results"
SWEEP_TASK: Final = "tournament-sweep"
ADVANCE_TASK: Final = "tournament-advance"

TOURNAMENTS = Gauge("belot_tournament_tournaments", "Tournaments by status.", ["status"])
ROUNDS = Counter("belot_tournament_rounds_paired_total", "Rounds paired.")
PAIRING = Histogram(
    "belot_tournament_pairing_seconds",
    "Time to decide a round's pairing (standings, matching, events).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
RESULTS = Counter(
    "belot_tournament_results_recorded_total",
    "Results recorded, by how (table, no_show, timeout, correction, ladder, withdrawal).",
    ["how"],
)
TIMERS = Counter("belot_tournament_timers_fired_total", "Deadlines acted on, by kind.", ["kind"])
TABLES = Counter("belot_tournament_tables_total", "Tables opened and aborted.", ["what"])
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


def _core(fn: Callable[[], list[TournamentEvent]]) -> list[NewEvent]:
    """Call a core command; its refusal becomes the service's."""
    try:
        return new_events(fn())
    except TournamentError as exc:
        raise Refused(exc.code, exc.message) from None


def _reason(body: Mapping[str, Any]) -> str:
    """An organiser's reason for ending a tournament: optional, bounded."""
    reason = fields.optional_text("reason", body.get("reason"), MAX_REASON, min_len=0)
    return reason or ""


def _outcome(value: Any, name: str) -> Outcome:
    if not isinstance(value, str) or value not in {o.value for o in Outcome}:
        raise domain.bad(f"{name} is win, draw or loss")
    return Outcome(value)


class Actor:
    """Who asks: an account (the gateway checked its token) and/or an admin."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        raw = body.get("actor") or {}
        if not isinstance(raw, dict):
            raise domain.bad("actor is {player, admin}")
        self.player = fields.optional_text(
            "actor.player", raw.get("player") or None, fields.MAX_ID
        )
        admin = raw.get("admin", False)
        if not isinstance(admin, bool):
            raise domain.bad("actor.admin must be true or false")
        self.admin = admin

    def require_player(self) -> str:
        if self.player is None:
            raise Refused("unauthorized", "sign in: this needs an account")
        return self.player

    def require_organiser(self, loaded: Loaded) -> None:
        if self.admin or (self.player is not None and self.player == loaded.config.creator):
            return
        if self.player is None:
            raise Refused("unauthorized", "sign in as the tournament's creator or an admin")
        raise Refused("forbidden", "only the tournament's creator or an admin may do this")


class Engine:
    def __init__(
        self,
        store: TournamentStore,
        nc: Client,
        *,
        prefix: str = "belot",
        clock: Clock = wall_clock,
        timeout: float = 2.0,
        tick: float = 1.0,
        hasher: PasswordHasher | None = None,
        supervisor: Supervisor | None = None,
    ) -> None:
        self.store = store
        self.log = store.log
        self.nc = nc
        self.prefix = prefix
        self.clock = clock
        self.timeout = timeout
        self.tick = tick
        self.hasher = hasher or PasswordHasher()
        self.cache: dict[str, Loaded] = {}
        self.live: set[str] = set()
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._advancing: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._fired: set[tuple[str, str, int, int, int]] = set()
        self._done_tables: set[str] = set()
        self._firing: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._tasks: list[Supervised] = []
        #: Runs the clock, results and sweep loops (the app's, for its /readyz).
        self.supervisor = supervisor or Supervisor()
        self._stop = asyncio.Event()
        self.position = 0
        self.consumer_error: str | None = "not started"
        self.consumer_failures = 0

    # ------------------------------------------------------------------ life cycle

    async def startup(self) -> None:
        for tid in await self.store.live_ids():
            with contextlib.suppress(Refused):
                await self.get(tid)
            self.kick(tid)
        self._tasks = [
            self.supervisor.spawn(CLOCK_TASK, lambda _: self._clock_loop()),
            self.supervisor.spawn(RESULTS_TASK, lambda _: self._consume_loop()),
            self.supervisor.spawn(SWEEP_TASK, lambda _: self._sweep_loop()),
        ]

    async def shutdown(self) -> None:
        for t in self._tasks:  # first: a loop that sees _stop ends as asked, not failed
            t.stopping.set()
        self._stop.set()
        self._wake.set()
        await asyncio.gather(*(t.stop() for t in self._tasks))
        await cancel(*self._advancing.values(), *self._firing)
        self._tasks.clear()

    # ------------------------------------------------------------------ commands

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
        self._wake.set()

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
        command of it (module docstring). ``new``: the empty state of a tournament being
        created. Raises Refused."""
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
                self._count(events)
                self.kick(tid)
                return after
        raise AssertionError("unreachable")

    def _count(self, events: Sequence[NewEvent]) -> None:
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

    def _log_id(self, tid: str, actor: Actor, body: Mapping[str, Any], verb: str) -> str | None:
        cid = fields.command_id(body.get("command_id"))
        if cid is None:
            return None
        who = "admin" if actor.player is None else actor.player
        return f"{tid}:{who}:{verb}:{cid}"

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
            return self._no_ratings(exc.code, exc.message)
        found = reply.get("ratings") if isinstance(reply, dict) else None
        if not isinstance(found, dict):
            return self._no_ratings("malformed", f"the reply on {subject} holds no ratings")
        return {str(k): float(v) for k, v in found.items() if isinstance(v, int | float)}

    @staticmethod
    def _no_ratings(reason: str, detail: str) -> dict[str, float]:
        RATING_LOOKUP_FAILURES.labels(reason).inc()
        log.warning("no ratings (%s: %s): the default 1500 is used", reason, detail)
        return {}

    async def _players_ratings(self, state: Tournament) -> dict[str, float]:
        players = [p for e in (state.order or state.entered) for p in state.players_of(e)]
        return await self.ratings(state.settings.ruleset, players)

    async def _hash(self, body: Mapping[str, Any]) -> str | None:
        # Checked before hashing: a password of no bounded length is not hashed first.
        password = fields.optional_text(
            "password", body.get("password"), domain.MAX_PASSWORD, min_len=0
        )
        if not password:
            return None
        return await asyncio.to_thread(self.hasher.hash, password)

    # --- the organiser's commands ---

    async def create(self, body: Mapping[str, Any]) -> Loaded:
        actor = Actor(body)
        if actor.player is None and not actor.admin:
            raise Refused("unauthorized", "sign in to create a tournament")
        unknown = set(body) - domain.EDITABLE - {"format", "command_id", "actor"}
        if unknown:
            raise domain.bad(f"unknown field(s): {', '.join(map(fields.quote, sorted(unknown)))}")
        settings = domain.parse_format(body)
        if "name" not in body:
            raise domain.bad("a tournament has a name")
        config = domain.parse_config(
            body, domain.Config(creator=actor.player), await self._hash(body)
        )
        cid = fields.command_id(body.get("command_id"))
        tid = (
            uuid.uuid4().hex[:16]
            if cid is None
            else hashlib.sha256(f"{actor.player}\x00{cid}".encode()).hexdigest()[:16]
        )
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            if loaded.version:
                return []  # created by this very command before (a retry)
            events = _core(lambda: commands.create(loaded.state, tid, settings, now))
            return [*events, NewEvent(domain.CONFIGURED, config.to_payload(now), SECRET)]

        existing = await self.store.load(tid)
        if existing.state.is_created:
            return existing
        return await self.run(tid, decide, command_id=f"{tid}:create", new=Loaded())

    async def edit(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        actor = Actor(body)
        changes = {
            k: v for k, v in body.items() if k not in ("actor", "command_id", "tournament_id")
        }
        unknown = set(changes) - domain.EDITABLE
        if unknown:
            names = ", ".join(map(fields.quote, sorted(unknown)))
            raise domain.bad(f"cannot edit these fields: {names}")
        password_hash = await self._hash(body)
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            config = domain.parse_config(changes, loaded.config, password_hash)
            events: list[NewEvent] = []
            if set(changes) & set(domain.SETTING_FIELDS):  # the numbers: before the start
                settings = domain.parse_settings(changes, loaded.state.settings)
                events = _core(lambda: commands.edit(loaded.state, settings, now))
            if config != loaded.config:
                if loaded.state.is_finished:
                    raise Refused("already_finished", "the tournament has finished")
                events.append(NewEvent(domain.CONFIGURED, config.to_payload(now), SECRET))
            return events

        return await self.run(tid, decide, command_id=self._log_id(tid, actor, body, "edit"))

    async def seeding(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """``{mode: rating | manual | random, order?}``: how the start places everyone."""
        actor = Actor(body)
        mode = body.get("mode")
        if not isinstance(mode, str) or mode not in {s.value for s in Seeding}:
            raise domain.bad("mode is rating, manual or random")
        order = domain.parse_order(body["order"]) if body.get("order") is not None else None
        if mode == "manual" and order is None:
            raise domain.bad("a manual seeding gives the order: every entrant, seed 1 first")
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            settings = domain.parse_settings({"seeding": mode}, loaded.state.settings)
            if order is not None and sorted(order) != sorted(loaded.state.entered):
                raise Refused("bad_seeding", "the order lists every entrant exactly once")
            events = _core(lambda: commands.edit(loaded.state, settings, now))
            config = dataclasses.replace(loaded.config, manual_order=order)
            if config != loaded.config:
                events.append(NewEvent(domain.CONFIGURED, config.to_payload(now), SECRET))
            return events

        return await self.run(tid, decide, command_id=self._log_id(tid, actor, body, "seeding"))

    async def forbid(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """``{pairs: [[a, b], ...]}``: entrants the Swiss pairing keeps apart (the whole
        list; later rounds use it)."""
        actor = Actor(body)
        pairs = domain.parse_pairs(body.get("pairs"))
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            if loaded.state.is_finished:
                raise Refused("already_finished", "the tournament has finished")
            known = set(loaded.state.entered) | set(loaded.state.order)
            strangers = sorted({x for p in pairs for x in p} - known)
            if strangers:
                raise Refused("not_entered", f"not entrants: {', '.join(strangers)}")
            config = dataclasses.replace(loaded.config, forbidden=pairs)
            if config == loaded.config:
                return []
            return [NewEvent(domain.CONFIGURED, config.to_payload(now), SECRET)]

        return await self.run(tid, decide, command_id=self._log_id(tid, actor, body, "forbid"))

    async def _organiser_command(
        self,
        tid: str,
        body: Mapping[str, Any],
        verb: str,
        fn: Callable[[Loaded, int], Awaitable[list[NewEvent]]],
    ) -> Loaded:
        actor = Actor(body)

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            return await fn(loaded, self.clock())

        return await self.run(tid, decide, command_id=self._log_id(tid, actor, body, verb))

    async def cancel(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        detail = _reason(body)

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            return _core(lambda: commands.cancel(loaded.state, now, detail))

        return await self._organiser_command(tid, body, "cancel", fn)

    async def terminate(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        detail = _reason(body)

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            ratings = await self._players_ratings(loaded.state)
            return _core(lambda: commands.terminate(loaded.state, now, ratings, detail))

        return await self._organiser_command(tid, body, "terminate", fn)

    async def pause(self, tid: str, body: Mapping[str, Any], paused: bool = True) -> Loaded:
        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.state.is_finished:
                raise Refused("already_finished", "the tournament has finished")
            if loaded.paused == paused:
                return []
            return [NewEvent(domain.PAUSED if paused else domain.RESUMED, {"at_ms": now})]

        return await self._organiser_command(tid, body, "pause" if paused else "resume", fn)

    async def start(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.state.settings.has_rounds:
                return await self._pair(loaded, 1, now)
            return _core(lambda: commands.start(loaded.state, now))

        return await self._organiser_command(tid, body, "start", fn)

    async def next_round(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """Pair the next round now (the organiser's button; rounds are also paired on
        their own unless ``auto_next`` is off)."""

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.paused:
                raise Refused("paused", "the tournament is paused: resume it first")
            if not loaded.state.is_started:
                raise Refused("not_started", "start the tournament first")
            return await self._pair(loaded, len(loaded.state.rounds) + 1, now)

        return await self._organiser_command(tid, body, "next_round", fn)

    async def _pair(self, loaded: Loaded, round_no: int, now: int) -> list[NewEvent]:
        state = loaded.state
        ratings = await self._players_ratings(state)
        rng = random.Random(f"{state.id}:{now}")  # the order it gives is in Started
        started = time.perf_counter()
        events = _core(
            lambda: commands.pair_next_round(
                state,
                round_no,
                now,
                ratings,
                rng,
                loaded.config.manual_order,
                loaded.config.forbidden_pairs,
            )
        )
        if events:
            PAIRING.observe(time.perf_counter() - started)
        return events

    async def correct(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """An organiser's correction of a recorded game: standings re-derive from it."""
        for name in ("round", "match"):
            if type(body.get(name)) is not int:
                raise domain.bad(f"{name} is a whole number")
        game = body.get("game", 1)
        if type(game) is not int:
            raise domain.bad("game is a whole number")
        a, b = _outcome(body.get("a"), "a"), _outcome(body.get("b"), "b")
        pa, pb = body.get("a_points", 0), body.get("b_points", 0)
        if type(pa) is not int or type(pb) is not int:
            raise domain.bad("a_points and b_points are whole numbers")
        reason = fields.text(
            "reason", body.get("reason"), MAX_CORRECTION_REASON,
            what=f"why the result is corrected (1 to {MAX_CORRECTION_REASON} characters)",
        )  # fmt: skip
        if not reason.strip():
            raise domain.bad("reason: a correction says why")

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            return _core(
                lambda: commands.correct_result(
                    loaded.state, body["round"], body["match"], game, a, b, now, pa, pb,
                    reason.strip(),
                )
            )  # fmt: skip

        return await self._organiser_command(tid, body, "correct", fn)

    # --- players' commands ---

    async def enter(self, tid: str, body: Mapping[str, Any]) -> tuple[Loaded, str]:
        """A player enters (with the password, if any); the organiser may also enter a
        bot (``{bot: level}``) or an account (``{player: id}``)."""
        actor = Actor(body)
        password = fields.optional_text(
            "password", body.get("password"), domain.MAX_PASSWORD, min_len=0
        )
        now = self.clock()
        chosen: list[str] = []

        async def decide(loaded: Loaded) -> list[NewEvent]:
            state = loaded.state
            if "bot" in body or "player" in body:
                actor.require_organiser(loaded)
                if "bot" in body:
                    who = domain.parse_bot(body["bot"], (*state.entered, *state.order))
                else:
                    who = body["player"]
                    if not isinstance(who, str) or domain.ID_RE.fullmatch(who) is None:
                        raise domain.bad("player is an account id")
            else:
                who = actor.require_player()
                if loaded.config.password_hash is not None and not await self._password_ok(
                    loaded.config.password_hash, password
                ):
                    raise Refused("wrong_password", "this tournament needs its password")
            chosen[:] = [who]
            ratings = await self.ratings(state.settings.ruleset, [who])
            return _core(lambda: commands.enter(state, who, now, ratings))

        loaded = await self.run(tid, decide, command_id=self._log_id(tid, actor, body, "enter"))
        return loaded, chosen[0] if chosen else ""

    async def _password_ok(self, password_hash: str, password: str | None) -> bool:
        if not password:
            return False
        try:
            return await asyncio.to_thread(self.hasher.verify, password_hash, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    async def withdraw(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """The caller withdraws (``entrant`` may name someone else for the organiser)."""
        actor = Actor(body)
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            who = fields.optional_text(
                "entrant", body.get("entrant"), fields.MAX_ID,
                what=f"an entrant's id (1 to {fields.MAX_ID} characters)",
            )  # fmt: skip
            if who is None or who == actor.player:
                who = actor.require_player()
            else:
                actor.require_organiser(loaded)
            ratings = await self._players_ratings(loaded.state)
            events = _core(lambda: commands.withdraw(loaded.state, who, now, ratings))
            if any(e.type == "Withdrew" for e in events) and loaded.state.is_started:
                RESULTS.labels("withdrawal").inc()
            return events

        return await self.run(tid, decide, command_id=self._log_id(tid, actor, body, "withdraw"))

    # ------------------------------------------------------------------ effects

    def kick(self, tid: str) -> None:
        """Look at ``tid`` again soon (one task per tournament; a kick while it runs
        makes it look once more)."""
        if self._stop.is_set():
            return
        task = self._advancing.get(tid)
        if task is not None and not task.done():
            self._again.add(tid)
            return
        self._advancing[tid] = asyncio.create_task(self._advance_loop(tid))

    async def _advance_loop(self, tid: str) -> None:
        while True:
            self._again.discard(tid)
            try:
                await self.advance(tid)
            except asyncio.CancelledError:
                raise
            except Refused as exc:
                log.info("tournament %s: %s", tid, exc)
            except Exception:
                # The sweep kicks every live tournament again within SWEEP_S.
                retried(log, ADVANCE_TASK, "tournament effects failed", tournament_id=tid)
            if tid not in self._again:
                return

    async def advance(self, tid: str) -> None:
        loaded = await self.get(tid)
        state = loaded.state
        if state.is_started and not state.is_finished and not loaded.paused:
            current = state.current
            if (
                state.settings.has_rounds
                and current is not None
                and state.is_round_complete(current)
                and loaded.config.auto_next
            ):
                k = current.number + 1

                async def pair(fresh: Loaded) -> list[NewEvent]:
                    return await self._pair(fresh, k, self.clock())

                loaded = await self.run(tid, pair, command_id=f"{tid}:pair:{k}")
            if not loaded.state.is_finished:
                await self._open_tables(loaded)
                loaded = self.cache[tid]
        await self._release_tables(loaded)

    async def _open_tables(self, loaded: Loaded) -> None:
        state = loaded.state
        r = state.current
        if r is None:
            return
        for m in state.undecided(r):
            if m.pairing.is_bye or loaded.table_for(r.number, m) is not None:
                continue
            game = len(m.games) + 1
            seats = domain.seats_for(state, m.pairing)
            request = domain.table_request(
                loaded, m.pairing, seats, f"r{r.number}m{m.pairing.match}g{game}"
            )
            try:
                reply = await messaging.request(
                    self.nc, f"{self.prefix}.table.create", request, timeout=self.timeout * 2
                )
            except ServiceError as exc:
                log.warning(
                    "no table for %s r%s m%s: %s", loaded.id, r.number, m.pairing.match, exc
                )
                return  # the sweep tries again
            assigned = Assigned(
                r.number, m.pairing.match, game, reply["table_id"], reply["match_id"], seats,
                self.clock(),
            )  # fmt: skip

            async def record(fresh: Loaded, a: Assigned = assigned) -> list[NewEvent]:
                if a.key in fresh.tables:
                    return []
                return [NewEvent(domain.TABLE_ASSIGNED, a.to_payload())]

            loaded = await self.run(
                loaded.id,
                record,
                command_id=f"{loaded.id}:table:{r.number}:{m.pairing.match}:{game}",
            )
            TABLES.labels("opened").inc()

    async def _release_tables(self, loaded: Loaded) -> None:
        """Abort the tables whose game the tournament no longer waits for."""
        state = loaded.state
        for a in list(loaded.tables.values()):
            if a.table_id in self._done_tables:
                continue
            r = state.rounds[a.round - 1]
            m = r.matches[a.match - 1]
            waited_for = a.game == len(m.games) + 1 and state.decision(r.number, m) is None
            if waited_for and not state.is_finished:
                continue  # still played
            # Decided otherwise (or its game recorded without it: both sides no-shows),
            # unless the table reported it itself.
            events = await self.log.read_stream(f"{TABLE_STREAM}{a.table_id}")
            if any(e.type in ("TableMatchFinished", "TableClosed") for e in events):
                self._done_tables.add(a.table_id)
                continue
            reason = "tournament finished" if state.is_finished else "decided by the tournament"
            try:
                await messaging.request(
                    self.nc,
                    f"{self.prefix}.table.{a.table_id}.abort",
                    {"reason": reason, "by": f"tournament:{loaded.id}"},
                    timeout=self.timeout,
                )
            except ServiceError as exc:
                if exc.code != "match_over":
                    log.info("table %s not aborted yet: %s", a.table_id, exc)
                    continue
            self._done_tables.add(a.table_id)
            TABLES.labels("aborted").inc()

    async def _sweep_loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), SWEEP_S)
            for tid in list(self.live):
                self.kick(tid)
            counts = await self.store.pool.fetch(
                f"SELECT status, count(*) AS n FROM {self.store.s}.tournaments GROUP BY status"
            )
            for status in ("registering", "running", "paused", "finished", "cancelled"):
                TOURNAMENTS.labels(status).set(0)
            for row in counts:
                TOURNAMENTS.labels(row["status"]).set(row["n"])

    # ------------------------------------------------------------------ clocks

    async def _clock_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            now = self.clock()
            sleep_ms = self.tick * 1000
            for tid in list(self.live):
                loaded = self.cache.get(tid)
                if loaded is None:
                    continue
                for d in deadlines(loaded.state):
                    if d.at_ms > now:
                        sleep_ms = min(sleep_ms, d.at_ms - now)
                        continue
                    key = (tid, d.kind, d.round, d.match, d.at_ms)
                    if key in self._fired:
                        continue
                    self._fired.add(key)
                    task = asyncio.create_task(self._fire(tid, d))
                    self._firing.add(task)
                    task.add_done_callback(self._firing.discard)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.01, sleep_ms / 1000))

    async def _fire(self, tid: str, d: Deadline) -> None:
        try:
            if d.kind == "seat":
                await self._seat_deadline(tid, d)
            elif d.kind == "round":
                await self._round_deadline(tid, d)
            elif d.kind == "ladder":
                await self._ladder_deadline(tid)
            TIMERS.labels(d.kind).inc()
        except Refused as exc:
            log.info("deadline %s of %s: %s", d.kind, tid, exc)
        except Exception:
            # The clock loop fires it again at its next tick.
            retried(log, CLOCK_TASK, "deadline failed", tournament_id=tid, kind=d.kind)
            self._fired.discard((tid, d.kind, d.round, d.match, d.at_ms))
            self._wake.set()

    async def _seated(self, a: Assigned) -> list[str]:
        """The entrants of a table whose human players are not seated."""
        events = await self.log.read_stream(f"{TABLE_STREAM}{a.table_id}")
        seated, began = domain.seated_players((e.type, e.payload) for e in events)
        return [] if began else domain.missing_entrants(a, seated)

    async def _seat_deadline(self, tid: str, d: Deadline) -> None:
        loaded = await self.get(tid)
        state = loaded.state
        r = state.current
        if r is None or r.number != d.round:
            return
        m = r.matches[d.match - 1]
        a = loaded.table_for(r.number, m)
        if state.decision(r.number, m) is not None or a is None:
            return
        missing = await self._seated(a)
        if not missing:
            return
        now = self.clock()

        async def decide(fresh: Loaded) -> list[NewEvent]:
            st = fresh.state
            fm = st.rounds[d.round - 1].matches[d.match - 1]
            if st.decision(d.round, fm) is not None or len(fm.games) + 1 != a.game:
                return []
            p = fm.pairing
            a_out = any(e in missing for e in p.a)
            b_out = any(e in missing for e in p.b)
            if len(missing) == 1:
                # docs/specification.md §5: not seated within the window: out, and the match lost.
                return _core(lambda: commands.no_show(st, missing[0], now))
            outcome = {True: Outcome.LOSS, False: Outcome.WIN}
            return _core(
                lambda: commands.record_result(
                    st, d.round, d.match, outcome[a_out], outcome[b_out], now,
                    game=a.game, no_show=missing,
                )
            )  # fmt: skip

        await self.run(tid, decide, command_id=f"{tid}:seat:{d.round}:{d.match}:{a.game}")

    async def _round_deadline(self, tid: str, d: Deadline) -> None:
        loaded = await self.get(tid)
        state = loaded.state
        r = state.current
        if r is None or r.number != d.round:
            return
        never: list[str] = []
        for m in state.undecided(r):
            a = loaded.table_for(r.number, m)
            if a is not None:
                never += await self._seated(a)
        now = self.clock()

        async def decide(fresh: Loaded) -> list[NewEvent]:
            return _core(lambda: commands.round_timeout(fresh.state, now, never))

        await self.run(tid, decide, command_id=f"{tid}:timeout:{d.round}")

    async def _ladder_deadline(self, tid: str) -> None:
        async def decide(fresh: Loaded) -> list[NewEvent]:
            ratings = await self._players_ratings(fresh.state)
            return _core(lambda: commands.finish_if_due(fresh.state, self.clock(), ratings))

        await self.run(tid, decide, command_id=f"{tid}:ladder_end")

    # ------------------------------------------------------------------ results

    async def _consume_loop(self) -> None:
        """Follow the log for results; a failure (the database away) is said in
        ``consumer_error`` (the app's readiness check) and raised: the supervisor starts
        again, from the checkpoint (nothing is lost: an uncommitted result is simply
        handled again)."""
        try:
            await self._consume()
        except Exception as exc:
            self.consumer_error = f"{type(exc).__name__}: {exc}"
            self.consumer_failures += 1
            raise

    async def _consume(self) -> None:
        at = await self.store.checkpoint()
        if at is None:
            # The first start: no tournament existed before, so nothing earlier in the log
            # is ours. Start at the head, and say so at once (a restart resumes there).
            at = await self.log.head_position()
            await self.store.advance_checkpoint(at)
        self.position = flushed = at
        self.consumer_error = None
        async with self.log.subscribe(self.position, poll_interval=0.5) as sub:
            events = aiter(sub)
            # One pending read, kept across idle timeouts: cancelling a read would close
            # the subscription's generator.
            nxt: asyncio.Future[RecordedEvent] | None = None
            try:
                while True:
                    if nxt is None:
                        nxt = asyncio.ensure_future(anext(events))
                    done, _ = await asyncio.wait({nxt}, timeout=1.0)
                    if not done:  # idle: write down how far we got
                        if self.position > flushed:
                            await self.store.advance_checkpoint(self.position)
                            flushed = self.position
                        continue
                    event, nxt = nxt.result(), None
                    if event.type == "TableMatchFinished" and event.stream_id.startswith(
                        TABLE_STREAM
                    ):
                        await self.on_match_finished(event)
                        flushed = event.position
                    self.position = event.position
            finally:
                if nxt is not None:
                    nxt.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                        await nxt

    async def on_match_finished(self, event: RecordedEvent) -> None:
        table_id = event.stream_id[len(TABLE_STREAM) :]
        payload = event.payload if isinstance(event.payload, dict) else {}
        tid = await self.store.table_owner(table_id)
        if tid is not None:
            await self._table_result(tid, table_id, payload, event.position)
        # A ladder scores the rated matches of the lobby: not a tournament's own tables,
        # nor a table with a bot seat (never rated).
        humans = all(s.get("player") for s in payload.get("seats", []))
        if tid is None and payload.get("rated") and humans:
            for lid in await self.store.running_ladders():
                await self._ladder_result(lid, payload, event.position)
        await self.store.advance_checkpoint(event.position)

    async def _final_score(self, match_id: str) -> tuple[int, int] | None:
        stream = f"match-{match_id}"
        version = await self.log.stream_version(stream)
        for e in await self.log.read_stream(stream, max(1, version - 2)):
            if e.type == "MatchEnded":
                s = e.payload.get("scores")
                if isinstance(s, list) and len(s) == 2:
                    return int(s[0]), int(s[1])
        return None

    async def _table_result(
        self, tid: str, table_id: str, payload: Mapping[str, Any], position: int
    ) -> None:
        scores = None
        if payload.get("finished"):
            scores = await self._final_score(str(payload.get("match_id")))
        result = domain.result_of(payload, scores)
        self._done_tables.add(table_id)
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            a = next((x for x in loaded.tables.values() if x.table_id == table_id), None)
            st = loaded.state
            if result is None or a is None or st.is_finished:
                return []
            m = st.rounds[a.round - 1].matches[a.match - 1]
            if st.decision(a.round, m) is not None or len(m.games) + 1 != a.game:
                return []  # decided otherwise meanwhile (a no-show, a withdrawal, the clock)
            try:
                return new_events(
                    commands.record_result(
                        st, a.round, a.match, Outcome(result.a), Outcome(result.b), now,
                        result.a_points, result.b_points, game=a.game,
                    )
                )  # fmt: skip
            except TournamentError as exc:
                log.warning("result of table %s refused: %s", table_id, exc)
                return []

        await self.run(tid, decide, command_id=f"{tid}:result:{table_id}", checkpoint=position)

    async def _ladder_result(self, lid: str, payload: Mapping[str, Any], position: int) -> None:
        winner, leaver = payload.get("winner"), payload.get("leaver")
        outcomes: dict[str, Outcome] = {}
        left: list[str] = []
        for s in payload.get("seats", []):
            player, seat = s.get("player"), s.get("seat")
            if not isinstance(player, str) or type(seat) is not int:
                return
            side = side_of(seat)
            outcomes[player] = (
                Outcome.DRAW if winner is None else Outcome.WIN if winner == side else Outcome.LOSS
            )
            if leaver is not None and type(leaver) is int and side_of(leaver) == side:
                left.append(player)
        played = payload.get("finished_at_ms")
        match_id = payload.get("match_id")
        if type(played) is not int or not isinstance(match_id, str):
            return
        now = self.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            try:
                return new_events(
                    commands.record_ladder_match(
                        loaded.state, match_id, outcomes, played, now, left,
                        str(payload.get("ruleset")),
                    )
                )  # fmt: skip
            except TournamentError:
                return []

        await self.run(lid, decide, command_id=f"{lid}:ladder:{match_id}", checkpoint=position)

    # ------------------------------------------------------------------ queries

    async def standings(self, tid: str) -> tuple[Loaded, list[Standing], dict[str, float]]:
        loaded = await self.get(tid)
        ratings = await self._players_ratings(loaded.state)
        return loaded, standings(loaded.state, ratings), ratings
