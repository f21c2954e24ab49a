"""The rating aggregate: ``decide`` turns a finished match into events, ``evolve`` folds one
event into the state, ``replay`` folds many (docs/architecture.md: state is a fold).

Idempotent on the match id: ``decide`` answers nothing for a match id it has seen, and
``evolve`` ignores an event whose match id is already in the state, so a match delivered
twice, or an event stored twice, counts once.

Cost: ``evolve`` copies the touched pool's tables and the set of seen match ids (it
returns a new state and never changes the old one); ``replay`` copies them once for the
whole run, so rebuilding from the log is linear in the number of events. ``decide`` reads
only the seated players' records, the pool's side size and whether the match id was seen,
so a service may hand it a state holding just those (loaded from its projection) and
get the same events as from the whole table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from rating.eligibility import MatchSummary, RatedMatch, Reason, Unrated, eligibility
from rating.events import MatchNotRated, MatchRated, PlayerChange, RatingEvent
from rating.model import Skill, display, round_half_up, sigma_after_idle, update
from rating.settings import DEFAULT_SETTINGS, RatingSettings


class Result(StrEnum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's rating in one pool, as of ``last_at_ms`` (before any inactivity since)."""

    player: str
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    last_at_ms: int


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One rated match in a player's history."""

    match_id: str
    at_ms: int
    result: Result
    partners: tuple[str, ...]
    opponents: tuple[str, ...]
    left_by: str | None
    rating_before: int
    rating_after: int


@dataclass(frozen=True, slots=True)
class Pool:
    """One ruleset's ratings. Every match of a pool has sides of ``side_size`` players."""

    name: str
    side_size: int
    players: Mapping[str, PlayerRating]
    history: Mapping[str, tuple[HistoryEntry, ...]]


@dataclass(frozen=True, slots=True)
class RatingState:
    """All pools, and every match id already handled (rated or not). Never mutated: the
    mappings are not changed after construction."""

    settings: RatingSettings = DEFAULT_SETTINGS
    pools: Mapping[str, Pool] = field(default_factory=dict)
    seen: frozenset[str] = frozenset()


def empty(settings: RatingSettings = DEFAULT_SETTINGS) -> RatingState:
    return RatingState(settings)


# --- decide ----------------------------------------------------------------------------


def decide(state: RatingState, summary: MatchSummary) -> tuple[RatingEvent, ...]:
    """The events for a finished match: none if its id was seen already, else one
    ``MatchRated`` or one ``MatchNotRated`` (with the reason). Never raises for a bad
    summary: that is ``MatchNotRated(reason="malformed")``."""
    if summary.match_id in state.seen:
        return ()
    verdict = eligibility(summary)
    if isinstance(verdict, Unrated):
        return (_not_rated(summary, verdict),)
    pool = state.pools.get(verdict.pool)
    side_size = len(verdict.sides[0])
    if pool is not None and pool.side_size != side_size:
        detail = f"sides of {side_size} in a pool of sides of {pool.side_size}"
        return (_not_rated(summary, Unrated(Reason.SIDE_SIZE, detail)),)
    return (_rate(state.settings, pool, verdict),)


def _not_rated(summary: MatchSummary, verdict: Unrated) -> MatchNotRated:
    return MatchNotRated(
        summary.match_id,
        summary.ruleset,
        verdict.reason.value,
        verdict.detail,
        summary.finished_at_ms,
    )


def _rate(settings: RatingSettings, pool: Pool | None, match: RatedMatch) -> MatchRated:
    def before(player: str) -> Skill:
        known = pool.players.get(player) if pool is not None else None
        if known is None:
            return Skill(settings.mu, settings.sigma)
        idle = match.at_ms - known.last_at_ms
        return Skill(known.mu, sigma_after_idle(settings, known.sigma, idle))

    old = (
        tuple(before(p) for p in match.sides[0]),
        tuple(before(p) for p in match.sides[1]),
    )
    new = update(settings, old, match.winner)
    changes = []
    for side in (0, 1):
        for player, was, now in zip(match.sides[side], old[side], new[side], strict=True):
            changes.append(
                PlayerChange(
                    player,
                    side,
                    was.mu,
                    was.sigma,
                    now.mu,
                    now.sigma,
                    round_half_up(display(settings, was.mu)),
                    round_half_up(display(settings, now.mu)),
                )
            )
    return MatchRated(
        match.match_id,
        match.pool,
        settings.model,
        match.sides,
        match.winner,
        match.left_by,
        tuple(changes),
        match.at_ms,
    )


# --- evolve / replay -------------------------------------------------------------------


def evolve(state: RatingState, event: RatingEvent) -> RatingState:
    """The state after one event; an event whose match id was seen changes nothing."""
    builder = _Builder(state)
    builder.apply(event)
    return builder.freeze()


def replay(events: Iterable[RatingEvent], state: RatingState | None = None) -> RatingState:
    """Fold events from ``state`` (default: empty, default settings); the same result as
    evolving one event at a time, in linear time."""
    builder = _Builder(state if state is not None else empty())
    for event in events:
        builder.apply(event)
    return builder.freeze()


_Scratch = tuple[
    int, dict[str, PlayerRating], dict[str, tuple[HistoryEntry, ...] | list[HistoryEntry]]
]


class _Builder:
    """Mutable scratch copies of the pools an event touches, frozen into a new state."""

    def __init__(self, state: RatingState) -> None:
        self.state = state
        self.seen = set(state.seen)
        self.touched: dict[str, _Scratch] = {}

    def _pool(self, name: str, side_size: int) -> _Scratch:
        if name not in self.touched:
            old = self.state.pools.get(name)
            if old is None:
                self.touched[name] = (side_size, {}, {})
            else:
                # Shallow copies; a player's history becomes a list only when appended to.
                self.touched[name] = (old.side_size, dict(old.players), dict(old.history))
        return self.touched[name]

    def apply(self, event: RatingEvent) -> None:
        if event.match_id in self.seen:
            return
        self.seen.add(event.match_id)
        if isinstance(event, MatchNotRated):
            return
        _, players, history = self._pool(event.pool, len(event.sides[0]))
        for change in event.changes:
            result = (
                Result.DRAW
                if event.winner is None
                else (Result.WIN if event.winner == change.side else Result.LOSS)
            )
            old = players.get(change.player)
            games, wins, draws, losses = (
                (0, 0, 0, 0) if old is None else (old.games, old.wins, old.draws, old.losses)
            )
            players[change.player] = PlayerRating(
                change.player,
                change.mu_after,
                change.sigma_after,
                games + 1,
                wins + (result is Result.WIN),
                draws + (result is Result.DRAW),
                losses + (result is Result.LOSS),
                event.at_ms,
            )
            own = event.sides[change.side]
            entries = history.get(change.player, ())
            if not isinstance(entries, list):
                entries = history[change.player] = list(entries)
            entries.append(
                HistoryEntry(
                    event.match_id,
                    event.at_ms,
                    result,
                    tuple(p for p in own if p != change.player),
                    event.sides[1 - change.side],
                    event.left_by,
                    change.rating_before,
                    change.rating_after,
                )
            )

    def freeze(self) -> RatingState:
        pools = dict(self.state.pools)
        for name, (side_size, players, history) in self.touched.items():
            frozen = {p: tuple(h) for p, h in history.items()}
            pools[name] = Pool(name, side_size, players, frozen)
        return RatingState(self.state.settings, pools, frozenset(self.seen))
