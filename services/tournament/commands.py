"""The tournament service's commands: what an organiser or a player asks, checked and
decided with the core, each appended through the sequencer (``services.tournament.sequencer``)
with a command id made from the caller's, so that a retry changes nothing.

The organiser's: create, edit, seeding, forbid, cancel, terminate, pause and resume,
start, next_round, correct. The players': enter (with the registration password, checked
against its argon2 hash off the event loop) and withdraw. Who asks is the
:class:`Actor` the gateway vouches for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from prometheus_client import Histogram

from belot_platform import fields
from eventlog import NewEvent
from services.tournament import domain
from services.tournament.domain import Loaded, Refused
from services.tournament.sequencer import RESULTS, Sequencer, core
from tournament import Outcome, commands
from tournament.settings import Seeding

#: The longest reason an organiser may give for cancelling or terminating, and for a
#: correction (each is written into an event).
MAX_REASON: Final = 200
MAX_CORRECTION_REASON: Final = 500

PAIRING = Histogram(
    "belot_tournament_pairing_seconds",
    "Time to decide a round's pairing (standings, matching, events).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)


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
        self.player = fields.optional_text("actor.player", raw.get("player") or None, fields.MAX_ID)
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


def _configured(config: domain.Config, now: int) -> NewEvent:
    """The ``TournamentConfigured`` that states ``config`` (secret: the password's hash)."""
    return NewEvent(*domain.service_event(dataclasses.replace(config, at_ms=now)))


async def pair(seq: Sequencer, loaded: Loaded, round_no: int, now: int) -> list[NewEvent]:
    """The events that pair round ``round_no`` (none if the core pairs nothing)."""
    state = loaded.state
    ratings = await seq.players_ratings(state)
    started = time.perf_counter()
    # A random seeding is not drawn here: round 1 of one names the draw's round, and
    # the draws (services.tournament.draws) make it when the round's value is in.
    events = core(
        lambda: commands.pair_next_round(
            state,
            round_no,
            now,
            ratings,
            loaded.config.manual_order,
            loaded.config.forbidden_pairs,
        )
    )
    if events:
        PAIRING.observe(time.perf_counter() - started)
    return events


class Commands:
    def __init__(self, seq: Sequencer, hasher: PasswordHasher | None = None) -> None:
        self.seq = seq
        self.hasher = hasher or PasswordHasher()

    def _log_id(self, tid: str, actor: Actor, body: Mapping[str, Any], verb: str) -> str | None:
        cid = fields.command_id(body.get("command_id"))
        if cid is None:
            return None
        who = "admin" if actor.player is None else actor.player
        return f"{tid}:{who}:{verb}:{cid}"

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
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            if loaded.version:
                return []  # created by this very command before (a retry)
            events = core(lambda: commands.create(loaded.state, tid, settings, now))
            return [*events, _configured(config, now)]

        existing = await self.seq.store.load(tid)
        if existing.state.is_created:
            return existing
        return await self.seq.run(tid, decide, command_id=f"{tid}:create", new=Loaded())

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
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            config = domain.parse_config(changes, loaded.config, password_hash)
            events: list[NewEvent] = []
            if set(changes) & set(domain.SETTING_FIELDS):  # the numbers: before the start
                settings = domain.parse_settings(changes, loaded.state.settings)
                events = core(lambda: commands.edit(loaded.state, settings, now))
            if config != loaded.config:
                if loaded.state.is_finished:
                    raise Refused("already_finished", "the tournament has finished")
                events.append(_configured(config, now))
            return events

        return await self.seq.run(tid, decide, command_id=self._log_id(tid, actor, body, "edit"))

    async def seeding(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """``{mode: rating | manual | random, order?}``: how the start places everyone."""
        actor = Actor(body)
        mode = body.get("mode")
        if not isinstance(mode, str) or mode not in {s.value for s in Seeding}:
            raise domain.bad("mode is rating, manual or random")
        order = domain.parse_order(body["order"]) if body.get("order") is not None else None
        if mode == "manual" and order is None:
            raise domain.bad("a manual seeding gives the order: every entrant, seed 1 first")
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            settings = domain.parse_settings({"seeding": mode}, loaded.state.settings)
            if order is not None and sorted(order) != sorted(loaded.state.entered):
                raise Refused("bad_seeding", "the order lists every entrant exactly once")
            events = core(lambda: commands.edit(loaded.state, settings, now))
            config = dataclasses.replace(loaded.config, manual_order=order)
            if config != loaded.config:
                events.append(_configured(config, now))
            return events

        return await self.seq.run(tid, decide, command_id=self._log_id(tid, actor, body, "seeding"))

    async def forbid(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """``{pairs: [[a, b], ...]}``: entrants the Swiss pairing keeps apart (the whole
        list; later rounds use it)."""
        actor = Actor(body)
        pairs = domain.parse_pairs(body.get("pairs"))
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            actor.require_organiser(loaded)
            if loaded.state.is_finished:
                raise Refused("already_finished", "the tournament has finished")
            if loaded.state.is_draw_pending:
                # Round 1 is paired with the draw, from the pairs kept apart then: a
                # change now could steer it once the round's value is out.
                raise Refused("draw_named", "the draw's round is named: the pairs wait for it")
            known = set(loaded.state.entered) | set(loaded.state.order)
            strangers = sorted({x for p in pairs for x in p} - known)
            if strangers:
                raise Refused("not_entered", f"not entrants: {', '.join(strangers)}")
            config = dataclasses.replace(loaded.config, forbidden=pairs)
            if config == loaded.config:
                return []
            return [_configured(config, now)]

        return await self.seq.run(tid, decide, command_id=self._log_id(tid, actor, body, "forbid"))

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
            return await fn(loaded, self.seq.clock())

        return await self.seq.run(tid, decide, command_id=self._log_id(tid, actor, body, verb))

    async def cancel(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        detail = _reason(body)

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            return core(lambda: commands.cancel(loaded.state, now, detail))

        return await self._organiser_command(tid, body, "cancel", fn)

    async def terminate(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        detail = _reason(body)

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            ratings = await self.seq.players_ratings(loaded.state)
            return core(lambda: commands.terminate(loaded.state, now, ratings, detail))

        return await self._organiser_command(tid, body, "terminate", fn)

    async def pause(self, tid: str, body: Mapping[str, Any], paused: bool = True) -> Loaded:
        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.state.is_finished:
                raise Refused("already_finished", "the tournament has finished")
            if loaded.paused == paused:
                return []
            return [
                NewEvent(
                    *domain.service_event(domain.Paused(now) if paused else domain.Resumed(now))
                )
            ]

        return await self._organiser_command(tid, body, "pause" if paused else "resume", fn)

    async def start(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.state.settings.has_rounds:
                return await pair(self.seq, loaded, 1, now)
            return core(lambda: commands.start(loaded.state, now))

        return await self._organiser_command(tid, body, "start", fn)

    async def next_round(self, tid: str, body: Mapping[str, Any]) -> Loaded:
        """Pair the next round now (the organiser's button; rounds are also paired on
        their own unless ``auto_next`` is off)."""

        async def fn(loaded: Loaded, now: int) -> list[NewEvent]:
            if loaded.paused:
                raise Refused("paused", "the tournament is paused: resume it first")
            if not loaded.state.is_started:
                raise Refused("not_started", "start the tournament first")
            return await pair(self.seq, loaded, len(loaded.state.rounds) + 1, now)

        return await self._organiser_command(tid, body, "next_round", fn)

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
            return core(
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
        now = self.seq.clock()
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
            ratings = await self.seq.ratings(state.settings.ruleset, [who])
            return core(lambda: commands.enter(state, who, now, ratings))

        loaded = await self.seq.run(tid, decide, command_id=self._log_id(tid, actor, body, "enter"))
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
        now = self.seq.clock()

        async def decide(loaded: Loaded) -> list[NewEvent]:
            who = fields.optional_text(
                "entrant", body.get("entrant"), fields.MAX_ID,
                what=f"an entrant's id (1 to {fields.MAX_ID} characters)",
            )  # fmt: skip
            if who is None or who == actor.player:
                who = actor.require_player()
            else:
                actor.require_organiser(loaded)
            ratings = await self.seq.players_ratings(loaded.state)
            events = core(lambda: commands.withdraw(loaded.state, who, now, ratings))
            if any(e.type == "Withdrew" for e in events) and loaded.state.is_started:
                RESULTS.labels("withdrawal").inc()
            return events

        return await self.seq.run(
            tid, decide, command_id=self._log_id(tid, actor, body, "withdraw")
        )
