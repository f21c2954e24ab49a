"""Decisions: each command checks the rules against the state and returns the events to
append (``decide``); the state follows by ``state.evolve``. This is the API the
tournament service calls, one function per command:

    create, edit, enter, withdraw, start, name_draw_round, make_draw, pair_next_round,
    record_result, no_show, round_timeout, record_ladder_match, finish_if_due, cancel,
    terminate (and the query deadlines)

Nothing here reads a clock or draws randomness: ``now_ms`` is the service's time (whole
unix milliseconds), ratings come through a port (a mapping; 1500 for the unknown), and a
random seeding is drawn from a drand round named when entries close: ``start`` names
the round (``DrawRoundNamed``), and ``make_draw`` takes the round's beacon, which the
caller fetched and checked, and orders the field with ``fairdeal.draw``. Repeating a
command that already took effect appends nothing where the repeat is harmless (pairing a
round already paired, a result already recorded, a no-show already recorded, a
withdrawal already made, the same draw); otherwise the command raises a TournamentError
subclass with a stable code.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from fairdeal.draw import (
    DRAW_CHAIN,
    DRAW_ROUND_LEAD_MS,
    DrawError,
    draw_order,
    draw_round_for,
    due_at_ms,
    randomness_of,
)
from tournament import elimination, ladder, roundrobin, swiss
from tournament.errors import (
    AlreadyEntered,
    AlreadyFinished,
    AlreadyStarted,
    BadResult,
    BadSeeding,
    BadSettings,
    CorrectionTooLate,
    DrawNamed,
    DrawNotNamed,
    DrawPending,
    MatchDecided,
    NotEnoughEntrants,
    NotEntered,
    NotInPlay,
    NotStarted,
    NoValidPairing,
    RatingOutOfBand,
    RegistrationClosed,
    ResultConflict,
    RoundInProgress,
    SeatWindowOpen,
    TournamentExists,
    TournamentFull,
    UnknownMatch,
    UnknownTournament,
    WrongDrawRound,
    WrongFormat,
    WrongRound,
)
from tournament.events import (
    ALL_ROUNDS_PLAYED,
    ALL_WITHDREW,
    CANCELLED,
    FINAL_DECIDED,
    LADDER_ENDED,
    NO_ONE_LEFT,
    NO_VALID_PAIRING,
    TERMINATED,
    TOO_FEW_TO_PAIR,
    DrawMade,
    DrawRoundNamed,
    Entered,
    LadderMatchReported,
    LadderScore,
    MatchReported,
    Pairing,
    ResultCorrected,
    RoundPaired,
    RoundTimedOut,
    SeatNoShow,
    SettingsChanged,
    Started,
    Team,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    Withdrew,
)
from tournament.seeding import Ratings, form_teams, rating, seed_order
from tournament.settings import Format, Outcome, Seeding, Settings
from tournament.standings import standings
from tournament.state import Status, Tournament, evolve

TEAM_PREFIX = "team-"
_VALID_OUTCOMES = {
    (Outcome.WIN, Outcome.LOSS),
    (Outcome.LOSS, Outcome.WIN),
    (Outcome.DRAW, Outcome.DRAW),
}


def create(
    state: Tournament, tournament_id: str, settings: Settings, now_ms: int
) -> list[TournamentEvent]:
    """Open a tournament. Raises TournamentExists, BadSettings."""
    if state.is_created:
        raise TournamentExists(f"tournament {state.id} already exists")
    if not tournament_id:
        raise UnknownTournament("a tournament needs an id")
    return [TournamentCreated(tournament_id, settings.validated(), now_ms)]


def edit(state: Tournament, settings: Settings, now_ms: int) -> list[TournamentEvent]:
    """The organiser changes the tournament's numbers before it starts (the same
    settings again append nothing). Entrants already in stay in, so a cap below their
    number is refused; a changed rating band applies to later entries only.
    Raises AlreadyStarted, BadSettings, AlreadyFinished."""
    _require_open(state)
    if state.is_started:
        raise AlreadyStarted("the tournament has started: its numbers are fixed")
    if state.naming is not None:  # a change now would be a second draw to choose from
        raise DrawNamed("the draw's round is named: the tournament's numbers are fixed")
    settings = settings.validated()
    if settings.format is not state.settings.format:
        raise BadSettings("the format is chosen at creation; create another tournament")
    if settings.max_entrants is not None and settings.max_entrants < len(state.entered):
        raise BadSettings(f"{len(state.entered)} have entered: the cap cannot go below that")
    if settings == state.settings:
        return []
    return [SettingsChanged(settings, now_ms)]


def cancel(state: Tournament, now_ms: int, detail: str = "") -> list[TournamentEvent]:
    """Call the tournament off before it starts: it finishes with nobody placed. A
    random draw's tournament can be called off until its round is due, not after.
    Raises AlreadyStarted (terminate a running one), DrawNamed, AlreadyFinished."""
    _require_open(state)
    if state.is_started:
        raise AlreadyStarted("the tournament has started: terminate it instead")
    named = state.naming
    if named is not None and now_ms >= named.due_at_ms:
        # Its value may be out: calling it off now, and starting another, would be a
        # second draw for whoever did not like the first.
        raise DrawNamed(
            f"drand round {named.round} is out: the draw stands; terminate the tournament "
            "once it is made"
        )
    return [TournamentFinished(CANCELLED, detail or "cancelled by the organiser", (), now_ms)]


def terminate(
    state: Tournament, now_ms: int, ratings: Ratings | None = None, detail: str = ""
) -> list[TournamentEvent]:
    """Stop a running tournament now: the standings as they stand are the final order,
    undecided matches stay undecided. Raises NotStarted (cancel one that has not
    started), AlreadyFinished."""
    _require_open(state)
    if not state.is_started:
        raise NotStarted("the tournament has not started: cancel it instead")
    return [_finish(state, TERMINATED, detail or "terminated by the organiser", now_ms, ratings)]


def enter(
    state: Tournament, player: str, now_ms: int, ratings: Ratings | None = None
) -> list[TournamentEvent]:
    """Register a player. Formats with rounds take entries until they start; a ladder
    until it ends. Raises RegistrationClosed, AlreadyEntered, TournamentFull,
    RatingOutOfBand, NotEntered (an id that cannot be an entrant)."""
    _require_open(state)
    s = state.settings
    if state.is_started and (s.has_rounds or _ladder_over(state, now_ms)):
        raise RegistrationClosed("registration closed when the tournament started")
    if state.naming is not None:
        raise RegistrationClosed("registration closed when the draw's round was named")
    if not player or (s.table_size == 4 and player.startswith(TEAM_PREFIX)):
        raise NotEntered(f"{player!r} cannot be an entrant's id")
    if player in state.entered or player in state.status:
        raise AlreadyEntered(f"{player} has already entered")
    if s.max_entrants is not None and len(state.entered) >= s.max_entrants:
        raise TournamentFull(f"the tournament is full ({s.max_entrants} entrants)")
    r = rating(ratings or {}, player)
    if (s.min_rating is not None and r < s.min_rating) or (
        s.max_rating is not None and r > s.max_rating
    ):
        raise RatingOutOfBand(
            f"a rating of {r:g} is outside the tournament's band "
            f"({_band(s.min_rating)} to {_band(s.max_rating)})"
        )
    return [Entered(player, now_ms)]


def withdraw(
    state: Tournament, who: str, now_ms: int, ratings: Ratings | None = None
) -> list[TournamentEvent]:
    """Withdraw a player (their team, where teams play). They keep their score, are not
    paired again, and lose the match they are in if it is undecided. When nobody is left
    in a started tournament, it finishes. Raises NotEntered, NotInPlay, AlreadyFinished
    (withdrawing again appends nothing, even after the end)."""
    _require_created(state)
    if state.is_finished and state.status.get(state.entrant_of(who) or who) is Status.WITHDRAWN:
        return []
    _require_open(state)
    if not state.is_started:
        if who not in state.entered:
            raise NotEntered(f"{who} has not entered")
        return [Withdrew(who, now_ms)]
    entrant = state.entrant_of(who)
    if entrant is None or entrant not in state.status:
        raise NotEntered(f"{who} is not in this tournament")
    if state.status[entrant] is Status.WITHDRAWN:
        return []
    if state.status[entrant] is Status.OUT:
        raise NotInPlay(f"{entrant} is already out of the tournament")
    events: list[TournamentEvent] = [Withdrew(entrant, now_ms)]
    after = evolve(state, events[0])
    if not after.active:
        events.append(_finish(after, ALL_WITHDREW, "every entrant has withdrawn", now_ms, ratings))
    return events


def start(
    state: Tournament,
    now_ms: int,
    ratings: Ratings | None = None,
    manual: Sequence[str] | None = None,
    forbidden: Collection[frozenset[str]] = (),
) -> list[TournamentEvent]:
    """Fix the seeding (and teams, and a round-robin's schedule); for formats with rounds
    also pair round 1 (the same as ``pair_next_round(state, 1, …)``). A random seeding
    is not drawn now: entries close and the draw's round is named (:func:`name_draw_round`);
    :func:`make_draw` starts the tournament once the round's value is in.

    Raises AlreadyStarted, NotEnoughEntrants, OddPlayersForTeams, BadSeeding,
    DrawPending (the named round's value is awaited).
    """
    _require_open(state)
    if state.is_started:
        raise AlreadyStarted("the tournament has already started")
    s = state.settings
    if s.format is Format.LADDER:  # no seeding: the order of entry breaks the last ties
        ends_ms = ladder.window_end(now_ms, s.ladder_days)
        return [Started(state.entered, (), (), ends_ms, now_ms)]
    named = state.naming
    if named is not None:
        raise DrawPending(
            f"the draw waits for {named.chain} round {named.round}, due at {named.due_at_ms} ms"
        )
    if s.seeding is Seeding.RANDOM:
        return name_draw_round(state, now_ms)
    players = seed_order(state.entered, s.seeding, ratings or {}, manual)
    return _start_with(state, players, now_ms, ratings, forbidden)


def _check_field(state: Tournament, players: Sequence[str]) -> None:
    """Can these players start the tournament? Raises NotEnoughEntrants,
    OddPlayersForTeams."""
    s = state.settings
    needed = 4 if s.table_size == 4 else 2
    if len(players) < needed:
        raise NotEnoughEntrants(f"{len(players)} entered; this format needs at least {needed}")
    if s.rotate_partners and len(players) != 4:
        raise NotEnoughEntrants("rotating partners is for exactly one table of four")
    if s.is_teams:
        form_teams(players)


def _start_with(
    state: Tournament,
    players: Sequence[str],
    now_ms: int,
    ratings: Ratings | None,
    forbidden: Collection[frozenset[str]],
) -> list[TournamentEvent]:
    """``Started`` from the players in seed order, and round 1's pairing."""
    _check_field(state, players)
    s = state.settings
    teams: tuple[Team, ...] = form_teams(players) if s.is_teams else ()
    order = tuple(t.id for t in teams) if teams else tuple(players)
    schedule: tuple[tuple[Pairing, ...], ...] = ()
    if s.format is Format.ROUND_ROBIN:
        schedule = (
            roundrobin.rotating_partners(order) if s.rotate_partners else roundrobin.schedule(order)
        )
    started = Started(order, teams, schedule, None, now_ms)
    return [
        started,
        *pair_next_round(evolve(state, started), 1, now_ms, ratings, forbidden=forbidden),
    ]


def name_draw_round(state: Tournament, now_ms: int) -> list[TournamentEvent]:
    """Close entries for a random draw: the entrants as they stand (entry order) are the
    field, and the round named is the first of ``DRAW_CHAIN`` due more than
    ``DRAW_ROUND_LEAD_MS`` after ``now_ms``, so that nobody knows its value now.
    Entries close; a withdrawal until the draw is kept and applied after it.

    Raises DrawNamed (there is one naming per tournament), BadSeeding (not a random
    seeding), WrongFormat (a ladder), NotEnoughEntrants, OddPlayersForTeams,
    AlreadyStarted, AlreadyFinished."""
    _require_open(state)
    if state.is_started:
        raise AlreadyStarted("the tournament has already started")
    if state.naming is not None:
        raise DrawNamed(f"the draw's round was named already: round {state.naming.round}")
    s = state.settings
    if s.format is Format.LADDER:
        raise WrongFormat("a ladder is not seeded")
    if s.seeding is not Seeding.RANDOM:
        raise BadSeeding(f"the seeding is {s.seeding.value}: nothing is drawn")
    _check_field(state, state.entered)
    round_ = draw_round_for(DRAW_CHAIN, now_ms, DRAW_ROUND_LEAD_MS)
    due = due_at_ms(DRAW_CHAIN, round_)
    return [DrawRoundNamed(state.entered, DRAW_CHAIN, round_, due, DRAW_ROUND_LEAD_MS, now_ms)]


def make_draw(
    state: Tournament,
    round_: int,
    signature: bytes,
    now_ms: int,
    ratings: Ratings | None = None,
    forbidden: Collection[frozenset[str]] = (),
) -> list[TournamentEvent]:
    """The draw, from the named round's beacon: its value is SHA-256 of ``signature``
    (the caller checked the signature against the chain's pinned key: BLS is not the
    core's), the seed order is the recipe's (``fairdeal.draw.draw_order``) over the
    named entrants, then ``Started`` and round 1 as :func:`start` makes them. Whoever
    withdrew since the naming is withdrawn then. The same beacon again appends nothing.

    Raises DrawNotNamed, WrongDrawRound, DrawPending (before the round is due),
    AlreadyStarted (a draw made with another beacon), AlreadyFinished."""
    _require_open(state)
    named = state.naming
    if named is None:
        raise DrawNotNamed("no draw has been named")
    if state.draw is not None:
        if (state.draw.round, state.draw.signature) == (round_, signature):
            return []
        raise AlreadyStarted("the draw is made")
    if round_ != named.round:
        raise WrongDrawRound(f"the draw named round {named.round}, not round {round_}")
    if now_ms < named.due_at_ms:
        raise DrawPending(f"round {round_} is not due until {named.due_at_ms} ms")
    randomness = randomness_of(signature)
    try:
        order = draw_order(randomness, state.id, named.entrants)
    except DrawError as exc:
        raise BadSeeding(exc.message) from None
    made = DrawMade(named.chain, round_, signature, randomness, order, now_ms)
    return [made, *_start_with(evolve(state, made), order, now_ms, ratings, forbidden)]


def pair_next_round(
    state: Tournament,
    round_no: int,
    now_ms: int,
    ratings: Ratings | None = None,
    manual: Sequence[str] | None = None,
    forbidden: Collection[frozenset[str]] = (),
) -> list[TournamentEvent]:
    """Pair round ``round_no`` once the previous round is complete, or finish the
        tournament when there is no next round (rounds done, final decided, nobody left to
        pair, no valid Swiss pairing: TournamentFinished says which).

        Pairing a round that is already paired appends nothing. Round 1 of a tournament not
        yet started starts it (``manual``: the organiser's order; a random seeding names its
    draw's round instead, :func:`start`). ``forbidden``:
        Swiss pairs the organiser keeps apart. Raises WrongFormat, WrongRound,
        RoundInProgress, and start's errors for round 1.
    """
    if not state.is_created:
        raise UnknownTournament("no such tournament")
    s = state.settings
    if s.format is Format.LADDER:
        raise WrongFormat("a ladder has no rounds")
    if round_no <= len(state.rounds) or (state.is_finished and round_no == len(state.rounds) + 1):
        return []  # already paired (or already found to be the end): nothing to append
    if state.is_finished:
        raise AlreadyFinished("the tournament has finished")
    if round_no != len(state.rounds) + 1:
        raise WrongRound(f"the next round is round {len(state.rounds) + 1}")
    if not state.is_started:
        return start(state, now_ms, ratings, manual, forbidden)
    current = state.current
    if current is not None and not state.is_round_complete(current):
        raise RoundInProgress(f"round {current.number} is still being played")
    if s.format is Format.ROUND_ROBIN:
        pairings, end = _round_robin(state, round_no)
    elif s.format is Format.SWISS:
        pairings, end = _swiss(state, round_no, ratings or {}, forbidden)
    else:
        pairings, end = _elimination(state, round_no)
    if end is not None:
        return [_finish(state, end[0], end[1], now_ms, ratings)]
    return [RoundPaired(round_no, tuple(pairings), now_ms + s.round_ms, now_ms)]


_End = tuple[str, str] | None


def _round_robin(state: Tournament, round_no: int) -> tuple[list[Pairing], _End]:
    if round_no > len(state.schedule):
        return [], (ALL_ROUNDS_PLAYED, f"all {len(state.schedule)} rounds have been played")
    needed = 4 if state.settings.rotate_partners else 2
    if len(state.active) < needed:
        return [], (TOO_FEW_TO_PAIR, "too few entrants are left to play on")
    # The schedule never changes; a side with someone withdrawn or out cannot play, and
    # the side it was to meet sits the round out instead (a win, like an odd count's).
    pairings = []
    for p in state.schedule[round_no - 1]:
        a_in = all(state.is_active(e) for e in p.a)
        b_in = bool(p.b) and all(state.is_active(e) for e in p.b)
        if a_in and b_in:
            pairings.append(p)
        elif a_in or b_in:
            pairings.append(Pairing(0, p.a if a_in else p.b, ()))
    games = [p for p in pairings if not p.is_bye]
    byes = [p for p in pairings if p.is_bye]
    return [Pairing(k, p.a, p.b) for k, p in enumerate(games + byes, 1)], None


@dataclass(frozen=True, slots=True)
class SwissInputs:
    """What a Swiss round is paired from: the entrants still playing, best placed first,
    their points, whom each has met, and who has sat out."""

    ranked: list[str]
    points: dict[str, int]
    met: dict[str, set[str]]
    had_bye: set[str]


def swiss_inputs(state: Tournament, round_no: int, ratings: Ratings) -> SwissInputs:
    table = standings(state, ratings)
    ranked = [row.entrant for row in table if state.is_active(row.entrant)]
    if round_no == 1:
        ranked = list(state.active)  # nobody has points yet: the seeds decide
    points = {row.entrant: row.points for row in table}
    met: dict[str, set[str]] = {e: set() for e in state.order}
    had_bye: set[str] = set()
    for r in state.rounds:
        for m in r.matches:
            p = m.pairing
            if p.is_bye:
                had_bye.update(p.a)
            else:
                for x in p.a:
                    met[x].update(p.b)
                for y in p.b:
                    met[y].update(p.a)
    return SwissInputs(ranked, points, met, had_bye)


def _swiss(
    state: Tournament, round_no: int, ratings: Ratings, forbidden: Collection[frozenset[str]]
) -> tuple[list[Pairing], _End]:
    rounds = state.settings.rounds
    if round_no > rounds:
        return [], (ALL_ROUNDS_PLAYED, f"all {rounds} rounds have been played")
    given = swiss_inputs(state, round_no, ratings)
    try:
        found = swiss.pair(given.ranked, given.points, given.met, given.had_bye, forbidden)
    except NoValidPairing as exc:
        reason = TOO_FEW_TO_PAIR if len(given.ranked) < 2 else NO_VALID_PAIRING
        return [], (reason, f"round {round_no} cannot be paired: {exc.message}")
    pairings = [Pairing(k, (x,), (y,)) for k, (x, y) in enumerate(found.pairs, 1)]
    if found.bye is not None:
        pairings.append(Pairing(len(pairings) + 1, (found.bye,), ()))
    return pairings, None


def _elimination(state: Tournament, round_no: int) -> tuple[list[Pairing], _End]:
    if round_no == 1:
        meetings = elimination.first_round(state.order)
    else:
        previous = state.rounds[round_no - 2]
        winners: list[str | None] = []
        for m in previous.matches:
            decided = state.decision(previous.number, m)
            assert decided is not None  # the round is complete
            side = m.pairing.a if decided.a is Outcome.WIN else m.pairing.b
            side = side if decided.a is Outcome.WIN or decided.b is Outcome.WIN else ()
            winners.append(side[0] if side else None)
        if len(winners) == 1:  # that was the final: its winner keeps it, withdrawn or not
            if winners[0] is None:
                return [], (NO_ONE_LEFT, "nobody won the final: no winner")
            return [], (FINAL_DECIDED, f"{winners[0]} won the final")
        # Who withdrew (or is out) since winning goes no further.
        winners = [w if w is not None and state.is_active(w) else None for w in winners]
        alive = [w for w in winners if w is not None]
        if len(alive) <= 1:
            if not alive:
                return [], (NO_ONE_LEFT, "nobody is left in the bracket: no winner")
            return [], (FINAL_DECIDED, f"{alive[0]} is the last one left in the bracket")
        meetings = elimination.next_round(winners)
    pairings = []
    for k, (x, y) in enumerate(meetings, 1):
        x = x if x is not None and state.is_active(x) else None
        y = y if y is not None and state.is_active(y) else None
        if x is not None and y is not None:
            pairings.append(Pairing(k, (x,), (y,)))
        else:  # goes through without playing (a bye), or an empty place: nobody
            pairings.append(Pairing(k, (x,) if x else (y,) if y else (), ()))
    return pairings, None


def record_result(
    state: Tournament,
    round_no: int,
    match: int,
    a: Outcome,
    b: Outcome,
    now_ms: int,
    a_points: int = 0,
    b_points: int = 0,
    game: int = 1,
    no_show: Collection[str] = (),
    timed_out: bool = False,
) -> list[TournamentEvent]:
    """A game's result from the table. ``no_show``: entrants (or their players) that
    never turned up; ``timed_out``: the round's clock stopped the game (both lose,
    unless one side never turned up). A repeat of a recorded result appends nothing.

    Raises NotStarted, UnknownMatch, BadResult, ResultConflict, MatchDecided,
    AlreadyFinished (a repeat after the end still appends nothing).
    """
    _require_created(state)
    if not state.is_started or not state.rounds:
        raise NotStarted("no round has been paired")
    if not 1 <= round_no <= len(state.rounds):
        raise UnknownMatch(f"there is no round {round_no}")
    round_ = state.rounds[round_no - 1]
    m = round_.match(match)
    if m is None or m.pairing.is_bye or not m.pairing.a:
        raise UnknownMatch(f"round {round_no} has no match {match} to play")
    absent = tuple(dict.fromkeys(state.entrant_of(w) or w for w in no_show))
    event = MatchReported(
        round_no, match, game, a, b, a_points, b_points, absent, timed_out, now_ms
    )
    if game <= len(m.games):
        earlier = m.games[game - 1]
        if (earlier.a, earlier.b, earlier.a_points, earlier.b_points) == (
            a,
            b,
            a_points,
            b_points,
        ):
            return []
        raise ResultConflict(f"round {round_no} match {match} game {game} has another result")
    _require_open(state)
    if state.decision(round_no, m) is not None:
        raise MatchDecided(f"round {round_no} match {match} is already decided")
    if game != len(m.games) + 1:
        raise BadResult(f"the next game of this match is game {len(m.games) + 1}")
    if a_points < 0 or b_points < 0:
        raise BadResult("belot points are not negative")
    p = m.pairing
    if any(e not in p.entrants for e in absent):
        raise BadResult("only the match's own entrants can be reported as not turning up")
    a_absent = any(e in absent for e in p.a)
    b_absent = any(e in absent for e in p.b)
    if (a_absent and a is not Outcome.LOSS) or (b_absent and b is not Outcome.LOSS):
        raise BadResult("a side that never turned up loses")
    _check_outcomes(a, b, timed_out or (a_absent and b_absent))
    if timed_out and (a, b) == (Outcome.DRAW, Outcome.DRAW):
        raise BadResult("a game stopped on time is lost by both sides, not drawn")
    return [event]


def _check_outcomes(a: Outcome, b: Outcome, both_may_lose: bool) -> None:
    both_lose = (a, b) == (Outcome.LOSS, Outcome.LOSS)
    if both_lose and not both_may_lose:
        raise BadResult("both sides lose only on time, or when neither turned up")
    if not both_lose and (a, b) not in _VALID_OUTCOMES:
        raise BadResult(f"{a} against {b} is not a result")


def correct_result(
    state: Tournament,
    round_no: int,
    match: int,
    game: int,
    a: Outcome,
    b: Outcome,
    now_ms: int,
    a_points: int = 0,
    b_points: int = 0,
    reason: str = "",
) -> list[TournamentEvent]:
    """An organiser replaces a recorded game's result. Points and tie-breaks re-derive
    from it; pairings already made stand. In elimination, a correction that would change
    who went through is refused once the next round is paired. The same result again
    appends nothing. Raises UnknownMatch, BadResult, CorrectionTooLate, AlreadyFinished
    (after the end the final order is fixed: a correction would contradict it).
    """
    _require_open(state)
    if not 1 <= round_no <= len(state.rounds):
        raise UnknownMatch(f"there is no round {round_no}")
    m = state.rounds[round_no - 1].match(match)
    if m is None or not 1 <= game <= len(m.games):
        raise UnknownMatch(f"round {round_no} match {match} has no recorded game {game}")
    if a_points < 0 or b_points < 0:
        raise BadResult("belot points are not negative")
    _check_outcomes(a, b, both_may_lose=m.timed_out)
    old = m.games[game - 1]
    if (old.a, old.b, old.a_points, old.b_points) == (a, b, a_points, b_points):
        return []
    event = ResultCorrected(round_no, match, game, a, b, a_points, b_points, reason, now_ms)
    if state.settings.format is Format.ELIMINATION and round_no < len(state.rounds):
        after = evolve(state, event)
        fixed = after.rounds[round_no - 1].matches[match - 1]
        if after.decision(round_no, fixed) != state.decision(round_no, m):
            raise CorrectionTooLate(
                f"round {round_no + 1} is paired already: the correction would change who"
                " went through"
            )
    return [event]


def no_show(state: Tournament, who: str, now_ms: int) -> list[TournamentEvent]:
    """``who`` (a player, or their team) did not take the seat within the seat window of
    its table opening: out of the tournament, the match lost. Once is enough: a repeat
    appends nothing. Raises NotEntered, NotInPlay, SeatWindowOpen, AlreadyFinished."""
    _require_created(state)
    entrant = state.entrant_of(who)
    if entrant is None or entrant not in state.status:
        raise NotEntered(f"{who} is not in this tournament")
    if state.status[entrant] is Status.OUT:
        return []
    _require_open(state)
    found = state.match_of(entrant)
    if found is None:
        raise NotInPlay(f"{entrant} has no match waiting for them")
    round_, m = found
    due = m.opened_at_ms + state.settings.seat_window_ms
    if now_ms < due:
        raise SeatWindowOpen(f"the seat window is open for {(due - now_ms) / 1000:g} more seconds")
    return [SeatNoShow(round_.number, m.pairing.match, entrant, now_ms)]


def round_timeout(
    state: Tournament, now_ms: int, never_seated: Collection[str] = ()
) -> list[TournamentEvent]:
    """Once the current round's time is up, every undecided match is lost by both sides,
    except that a side that never turned up (``never_seated``, players or entrants)
    alone loses. Before the time, with nothing undecided, or once the tournament has
    finished, appends nothing (a timer that fires late is harmless)."""
    _require_created(state)
    round_ = state.current if not state.is_finished else None
    if round_ is None or round_.timed_out or now_ms < round_.ends_at_ms:
        return []
    undecided = state.undecided(round_)
    if not undecided:
        return []
    in_play = {e for m in undecided for e in m.pairing.entrants}
    absent = {state.entrant_of(w) or w for w in never_seated} & in_play
    return [RoundTimedOut(round_.number, tuple(e for e in state.order if e in absent), now_ms)]


def record_ladder_match(
    state: Tournament,
    match_id: str,
    outcomes: Mapping[str, Outcome],
    played_at_ms: int,
    now_ms: int,
    left: Collection[str] = (),
    ruleset: str | None = None,
) -> list[TournamentEvent]:
    """A rated match from the lobby, finished at ``played_at_ms``: each entrant in it scores
    its outcome (leaving it is a loss). Matches outside the window, of another ruleset,
    with no entrant in them, or already recorded append nothing; a withdrawn entrant's
    matches after the withdrawal do not count; nor does anything once the ladder has
    finished. Raises WrongFormat, NotStarted."""
    _require_created(state)
    if state.settings.format is not Format.LADDER:
        raise WrongFormat("only a ladder scores matches from the lobby")
    if state.is_finished:
        return []
    if not state.is_started or state.started_at_ms is None or state.ladder_ends_at_ms is None:
        raise NotStarted("the ladder has not started")
    if ruleset is not None and ruleset != state.settings.ruleset:
        return []
    if not ladder.in_window(played_at_ms, state.started_at_ms, state.ladder_ends_at_ms):
        return []
    if any(r.match_id == match_id for r in state.ladder):
        return []
    scores = []
    for player, outcome in outcomes.items():
        if player not in state.status:
            continue
        if not ladder.counts_for(played_at_ms, state.withdrawn_at_ms.get(player)):
            continue
        scores.append(LadderScore(player, outcome, player in left))
    if not scores:
        return []
    return [LadderMatchReported(match_id, tuple(scores), played_at_ms, now_ms)]


def finish_if_due(
    state: Tournament, now_ms: int, ratings: Ratings | None = None
) -> list[TournamentEvent]:
    """A ladder finishes when its days are over; other formats finish by pairing."""
    if not state.is_created or state.is_finished or not _ladder_over(state, now_ms):
        return []
    days = state.settings.ladder_days
    return [_finish(state, LADDER_ENDED, f"the ladder's {days} days are over", now_ms, ratings)]


@dataclass(frozen=True, slots=True)
class Deadline:
    """A moment the service must wake for: ``kind`` is "seat" (check who sat down at
    ``round``/``match``), "round" (round_timeout) or "ladder" (finish_if_due)."""

    at_ms: int
    kind: str
    round: int = 0
    match: int = 0


def deadlines(state: Tournament) -> list[Deadline]:
    """The deadlines of the tournament as it stands, from its events alone, so that a
    restarted service can set its timers again (one already past is due at once).
    Sorted by time. A seat deadline is listed while its match is undecided: whether
    everyone sat down is the table's to say."""
    if not state.is_started or state.is_finished:
        return []
    out = []
    if state.ladder_ends_at_ms is not None:
        out.append(Deadline(state.ladder_ends_at_ms, "ladder"))
    round_ = state.current
    if round_ is not None and not round_.timed_out:
        undecided = state.undecided(round_)
        if undecided:
            out.append(Deadline(round_.ends_at_ms, "round", round_.number))
        seat = state.settings.seat_window_ms
        out += [
            Deadline(m.opened_at_ms + seat, "seat", round_.number, m.pairing.match)
            for m in undecided
        ]
    return sorted(out, key=lambda d: (d.at_ms, d.kind, d.match))


# --- helpers ------------------------------------------------------------------------


def _require_created(state: Tournament) -> None:
    if not state.is_created:
        raise UnknownTournament("no such tournament")


def _require_open(state: Tournament) -> None:
    _require_created(state)
    if state.is_finished:
        raise AlreadyFinished("the tournament has finished")


def _ladder_over(state: Tournament, now_ms: int) -> bool:
    return state.ladder_ends_at_ms is not None and now_ms >= state.ladder_ends_at_ms


def _band(value: int | None) -> str:
    return "any" if value is None else f"{value:g}"


def _finish(
    state: Tournament, reason: str, detail: str, now_ms: int, ratings: Ratings | None
) -> TournamentFinished:
    order = tuple(row.entrant for row in standings(state, ratings))
    return TournamentFinished(reason, detail, order, now_ms)
