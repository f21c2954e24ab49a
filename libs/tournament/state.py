"""A tournament's state: the fold of its events (``evolve``, ``replay``), and the queries
every format shares (who is still in, where a match stands).

``evolve`` trusts its events: the commands in commands.py checked them before they were
appended. So replaying a stream with one event corrected (an organiser's correction of a
result) re-derives everything after it: scores, tie-breaks, who went through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from tournament import elimination
from tournament.elimination import Meeting
from tournament.errors import UnknownEvent
from tournament.events import (
    DrawMade,
    DrawRoundNamed,
    Entered,
    LadderMatchReported,
    MatchReported,
    Pairing,
    ResultCorrected,
    RoundPaired,
    RoundTimedOut,
    SeatNoShow,
    SettingsChanged,
    Started,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    Withdrew,
)
from tournament.settings import Format, Outcome, Settings


class Status(StrEnum):
    ACTIVE = "active"
    WITHDRAWN = "withdrawn"  # keeps its score, not paired again
    OUT = "out"  # did not take its seat in time: out of the tournament


@dataclass(frozen=True, slots=True)
class Game:
    a: Outcome
    b: Outcome
    a_points: int
    b_points: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class Match:
    pairing: Pairing
    #: When its table opened (an elimination meeting's next game opens a new table).
    opened_at_ms: int
    games: tuple[Game, ...] = ()
    #: Entrants that lost it without playing it out: no-show, withdrawal, never seated.
    forfeited: tuple[str, ...] = ()
    #: The round's clock ran out with this match undecided: lost by both sides.
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    matches: tuple[Match, ...]
    paired_at_ms: int
    ends_at_ms: int
    timed_out: bool = False

    def match(self, number: int) -> Match | None:
        if 1 <= number <= len(self.matches):
            return self.matches[number - 1]
        return None


@dataclass(frozen=True, slots=True)
class Decided:
    """How a match ended for each side (a bye: ``a`` wins, ``b`` is nobody)."""

    a: Outcome
    b: Outcome


#: The settings of a tournament not created yet (never used for a decision).
_UNSET: Final = Settings(Format.ROUND_ROBIN)


@dataclass(frozen=True, slots=True)
class Tournament:
    id: str = ""
    settings: Settings = _UNSET
    created_at_ms: int = 0
    #: Registered players (entrants, except where teams form at the start), entry order.
    entered: tuple[str, ...] = ()
    started_at_ms: int | None = None
    #: The entrants in seed order; a ladder appends late entrants.
    order: tuple[str, ...] = ()
    teams: dict[str, tuple[str, ...]] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)
    schedule: tuple[tuple[Pairing, ...], ...] = ()
    status: dict[str, Status] = field(default_factory=dict)
    withdrawn_at_ms: dict[str, int] = field(default_factory=dict)
    rounds: tuple[Round, ...] = ()
    ladder_ends_at_ms: int | None = None
    ladder: tuple[LadderMatchReported, ...] = ()
    finished: TournamentFinished | None = None
    #: Random seeding: every naming of the draw's round in the stream (the commands
    #: append one; a stream with two is one the draw's check refuses), and the draw.
    draw_namings: tuple[DrawRoundNamed, ...] = ()
    draw: DrawMade | None = None

    # --- where it stands -----------------------------------------------------------

    @property
    def is_created(self) -> bool:
        return bool(self.id)

    @property
    def is_started(self) -> bool:
        return self.started_at_ms is not None

    @property
    def is_finished(self) -> bool:
        return self.finished is not None

    @property
    def naming(self) -> DrawRoundNamed | None:
        """The draw's round as named (random seeding), once entries closed."""
        return self.draw_namings[0] if self.draw_namings else None

    @property
    def is_draw_pending(self) -> bool:
        """Entries closed for a draw whose round's value has not come in yet."""
        return bool(self.draw_namings) and self.draw is None and not self.is_finished

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def is_active(self, entrant: str) -> bool:
        return self.status.get(entrant) is Status.ACTIVE

    @property
    def active(self) -> tuple[str, ...]:
        """Entrants still playing, in seed order."""
        return tuple(e for e in self.order if self.status.get(e) is Status.ACTIVE)

    def seed(self, entrant: str) -> int:
        """1 for the top seed; entrants not seeded (yet) come after everyone."""
        try:
            return self.order.index(entrant) + 1
        except ValueError:
            return len(self.order) + 1

    def entrant_of(self, who: str) -> str | None:
        """The entrant a player plays for (their team where teams play), or None."""
        if who in self.status or who in self.teams:
            return who
        if who in self.team_of:
            return self.team_of[who]
        return who if who in self.entered else None

    def players_of(self, entrant: str) -> tuple[str, ...]:
        return self.teams.get(entrant, (entrant,))

    @property
    def elimination_rounds(self) -> int:
        return elimination.rounds_for(len(self.order))

    # --- matches ---------------------------------------------------------------------

    def decision(self, round_no: int, match: Match) -> Decided | None:
        """How ``match`` of round ``round_no`` ended, or None while it is undecided."""
        pairing = match.pairing
        if pairing.is_bye:
            return Decided(Outcome.WIN, Outcome.LOSS)
        a_lost = any(e in match.forfeited for e in pairing.a)
        b_lost = any(e in match.forfeited for e in pairing.b)
        if a_lost or b_lost:
            return Decided(
                Outcome.LOSS if a_lost else Outcome.WIN, Outcome.LOSS if b_lost else Outcome.WIN
            )
        if match.timed_out:
            return Decided(Outcome.LOSS, Outcome.LOSS)
        if self.settings.format is not Format.ELIMINATION:
            if not match.games:
                return None
            return Decided(match.games[0].a, match.games[0].b)
        games = [(g.a, g.b) for g in match.games]
        state = elimination.meeting_state(games, self.settings.best_of)
        if state is Meeting.LEVEL and round_no == self.elimination_rounds:
            # docs/specification.md §5: a final that ends level goes to whoever was placed higher.
            a_higher = self.seed(pairing.a[0]) < self.seed(pairing.b[0])
            state = Meeting.A if a_higher else Meeting.B
        if state is Meeting.A:
            return Decided(Outcome.WIN, Outcome.LOSS)
        if state is Meeting.B:
            return Decided(Outcome.LOSS, Outcome.WIN)
        return None  # undecided, or level: replayed in the same round

    def undecided(self, round_: Round) -> list[Match]:
        return [m for m in round_.matches if self.decision(round_.number, m) is None]

    def is_round_complete(self, round_: Round) -> bool:
        return not self.undecided(round_)

    def match_of(self, entrant: str) -> tuple[Round, Match] | None:
        """The current round's undecided match ``entrant`` plays in, if any."""
        round_ = self.current
        if round_ is None:
            return None
        for m in self.undecided(round_):
            if entrant in m.pairing.entrants:
                return round_, m
        return None


# --- the fold ----------------------------------------------------------------------


def evolve(state: Tournament, event: TournamentEvent) -> Tournament:
    match event:
        case TournamentCreated():
            return replace(
                state, id=event.tournament_id, settings=event.settings, created_at_ms=event.at_ms
            )
        case SettingsChanged():
            return replace(state, settings=event.settings)
        case Entered():
            if not state.is_started:
                return replace(state, entered=(*state.entered, event.entrant))
            return replace(  # a ladder takes entrants while it runs
                state,
                entered=(*state.entered, event.entrant),
                order=(*state.order, event.entrant),
                status={**state.status, event.entrant: Status.ACTIVE},
            )
        case Withdrew():
            if not state.is_started:
                entered = tuple(e for e in state.entered if e != event.entrant)
                if state.draw_namings:  # kept: applied once the draw is made (Started)
                    at = {**state.withdrawn_at_ms, event.entrant: event.at_ms}
                    return replace(state, entered=entered, withdrawn_at_ms=at)
                return replace(state, entered=entered)
            state = _forfeit(state, event.entrant, event.at_ms)
            return replace(
                state,
                status={**state.status, event.entrant: Status.WITHDRAWN},
                withdrawn_at_ms={**state.withdrawn_at_ms, event.entrant: event.at_ms},
            )
        case DrawRoundNamed():
            return replace(state, draw_namings=(*state.draw_namings, event))
        case DrawMade():
            return replace(state, draw=event)
        case Started():
            team_of = {p: t.id for t in event.teams for p in t.players}
            status = dict.fromkeys(event.order, Status.ACTIVE)
            withdrawn_at: dict[str, int] = {}
            if state.draw is not None:
                # The draw ordered the field as named; whoever withdrew while its round
                # was awaited is withdrawn now (their team, where teams play), which
                # leaves the draw as it came out.
                for player, since in state.withdrawn_at_ms.items():
                    entrant = team_of.get(player, player)
                    if entrant in status:
                        status[entrant] = Status.WITHDRAWN
                        withdrawn_at.setdefault(entrant, since)
            return replace(
                state,
                started_at_ms=event.at_ms,
                order=event.order,
                teams={t.id: t.players for t in event.teams},
                team_of=team_of,
                schedule=event.schedule,
                status=status,
                withdrawn_at_ms=withdrawn_at,
                ladder_ends_at_ms=event.ends_at_ms,
            )
        case RoundPaired():
            matches = tuple(Match(p, event.at_ms) for p in event.pairings)
            return replace(
                state,
                rounds=(*state.rounds, Round(event.round, matches, event.at_ms, event.ends_at_ms)),
            )
        case MatchReported():
            game = Game(event.a, event.b, event.a_points, event.b_points, event.at_ms)

            def add_game(m: Match) -> Match:
                return replace(
                    m,
                    games=(*m.games, game),
                    forfeited=(*m.forfeited, *event.no_show),
                    timed_out=m.timed_out or event.timed_out,
                    opened_at_ms=event.at_ms,  # the next game, if any, opens a new table now
                )

            state = _update_match(state, event.round, event.match, add_game)
            return _put_out(state, event.no_show)
        case ResultCorrected():
            fixed = Game(event.a, event.b, event.a_points, event.b_points, event.at_ms)

            def correct(m: Match) -> Match:
                games = list(m.games)
                games[event.game - 1] = fixed
                return replace(m, games=tuple(games))

            return _update_match(state, event.round, event.match, correct)
        case SeatNoShow():
            state = _update_match(
                state,
                event.round,
                event.match,
                lambda m: replace(m, forfeited=(*m.forfeited, event.entrant)),
            )
            return _put_out(state, (event.entrant,))
        case RoundTimedOut():
            return _time_out(state, event)
        case LadderMatchReported():
            return replace(state, ladder=(*state.ladder, event))
        case TournamentFinished():
            return replace(state, finished=event)
    raise UnknownEvent(f"cannot apply {type(event).__name__}")


def replay(events: Iterable[TournamentEvent]) -> Tournament:
    state = Tournament()
    for event in events:
        state = evolve(state, event)
    return state


def _update_match(
    state: Tournament, round_no: int, match_no: int, change: Callable[[Match], Match]
) -> Tournament:
    rounds = list(state.rounds)
    r = rounds[round_no - 1]
    matches = list(r.matches)
    matches[match_no - 1] = change(matches[match_no - 1])
    rounds[round_no - 1] = replace(r, matches=tuple(matches))
    return replace(state, rounds=tuple(rounds))


def _put_out(state: Tournament, entrants: Iterable[str]) -> Tournament:
    out = dict.fromkeys(entrants, Status.OUT)
    return replace(state, status={**state.status, **out}) if out else state


def _forfeit(state: Tournament, entrant: str, at_ms: int) -> Tournament:
    """Someone who withdraws mid-match loses that match (if it was undecided)."""
    found = state.match_of(entrant)
    if found is None:
        return state
    round_, m = found
    return _update_match(
        state,
        round_.number,
        m.pairing.match,
        lambda x: replace(x, forfeited=(*x.forfeited, entrant)),
    )


def _time_out(state: Tournament, event: RoundTimedOut) -> Tournament:
    r = state.rounds[event.round - 1]
    absent = set(event.never_seated)
    matches = []
    for m in r.matches:
        if state.decision(r.number, m) is None:
            missing = [e for e in m.pairing.entrants if e in absent]
            m = replace(m, forfeited=(*m.forfeited, *missing)) if missing else m
            m = m if missing else replace(m, timed_out=True)
        matches.append(m)
    rounds = list(state.rounds)
    rounds[event.round - 1] = replace(r, matches=tuple(matches), timed_out=True)
    state = replace(state, rounds=tuple(rounds))
    return _put_out(state, event.never_seated)
