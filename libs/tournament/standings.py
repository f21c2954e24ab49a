"""Standings: who is ahead, by each format's own tie-breaks (docs/specification.md §5), pure.

- Round-robin: points; then head-to-head: the points each scored in the matches among
  the entrants level on points (for two, the match between them); then belot points
  scored minus points conceded.
- Swiss: points; then opponents' points: the sum of the current points of everyone met
  (a bye meets nobody and adds nothing); then rating.
- Elimination: the round reached (the winner is past the final); nothing else ranks
  those knocked out in the same round.
- Ladder: total; then rating.

When every tie-break is level, the seed decides (the entry order in a ladder), so the
order is total and the same on every replay. Every row carries its tie-break values and a
line saying how they were computed, for the live table and the exports.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from tournament.events import Pairing
from tournament.ladder import counts_for, outcome_of
from tournament.seeding import Ratings, team_rating
from tournament.settings import Format, Outcome, Points
from tournament.state import Tournament

#: Each format's ranking, in the order it is applied: (column, how it is computed).
TIE_BREAKS: dict[Format, tuple[tuple[str, str], ...]] = {
    Format.ROUND_ROBIN: (
        ("points", "win, draw and loss points; a sit-out scores a win"),
        ("head_to_head", "points scored in the matches among those level on points"),
        ("points_difference", "belot points scored minus belot points conceded"),
        ("seed", "the seed, when everything else is level"),
    ),
    Format.SWISS: (
        ("points", "win, draw and loss points; a bye scores a win"),
        ("opponents_points", "the sum of the current points of every opponent met"),
        ("rating", "rating from the ratings service (1500 when unknown)"),
        ("seed", "the seed, when everything else is level"),
    ),
    Format.ELIMINATION: (
        ("reached", "the round reached; the winner is past the final"),
        ("seed", "the seed, among those out in the same round"),
    ),
    Format.LADDER: (
        ("points", "win, draw and loss points of rated matches in the window"),
        ("rating", "rating from the ratings service (1500 when unknown)"),
        ("entry", "the order of entry, when everything else is level"),
    ),
}


@dataclass(slots=True)
class Tally:
    """One entrant's record so far (formats with rounds, and the ladder)."""

    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    scored: int = 0  # belot points for
    conceded: int = 0  # belot points against
    opponents: list[str] = field(default_factory=list)
    #: (opponents in that match, points this entrant took from it), one per match.
    meetings: list[tuple[tuple[str, ...], int]] = field(default_factory=list)

    def add(self, outcome: Outcome, points: Points) -> None:
        self.points += points.of(outcome)
        if outcome is Outcome.WIN:
            self.wins += 1
        elif outcome is Outcome.DRAW:
            self.draws += 1
        else:
            self.losses += 1


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    entrant: str
    players: tuple[str, ...]
    status: str
    points: int
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    #: The format's tie-breaks after points, in order: (column, value).
    tie_breaks: tuple[tuple[str, int | float], ...]
    #: How the points and tie-breaks were computed, in plain words.
    how: str


def tally(state: Tournament) -> dict[str, Tally]:
    """Every entrant's record from the rounds' decided matches (and the ladder's)."""
    points = state.settings.points
    out: dict[str, Tally] = {e: Tally() for e in state.order}
    if state.settings.format is Format.LADDER:
        return _ladder_tally(state, out)
    for round_ in state.rounds:
        for match in round_.matches:
            decided = state.decision(round_.number, match)
            if decided is None:
                continue
            p = match.pairing
            if p.is_bye:
                for e in p.a:
                    out[e].add(Outcome.WIN, points)
                    out[e].byes += 1
                continue
            game = match.games[0] if match.games and not match.forfeited else None
            _score_side(
                out,
                p.a,
                p.b,
                decided.a,
                points,
                game.a_points if game else 0,
                game.b_points if game else 0,
            )
            _score_side(
                out,
                p.b,
                p.a,
                decided.b,
                points,
                game.b_points if game else 0,
                game.a_points if game else 0,
            )
    return out


def _score_side(
    out: dict[str, Tally],
    side: tuple[str, ...],
    other: tuple[str, ...],
    outcome: Outcome,
    points: Points,
    scored: int,
    conceded: int,
) -> None:
    for e in side:
        t = out[e]
        t.add(outcome, points)
        t.scored += scored
        t.conceded += conceded
        t.opponents.extend(other)
        t.meetings.append((other, points.of(outcome)))


def _ladder_tally(state: Tournament, out: dict[str, Tally]) -> dict[str, Tally]:
    points = state.settings.points
    for report in state.ladder:
        for s in report.scores:
            if s.entrant not in out or not counts_for(
                report.played_at_ms, state.withdrawn_at_ms.get(s.entrant)
            ):
                continue  # withdrawing keeps the points; later matches do not count
            out[s.entrant].add(outcome_of(s), points)
    return out


def standings(state: Tournament, ratings: Ratings | None = None) -> list[Standing]:
    """The table as it stands, best first. ``ratings``: the ratings port (1500 default)."""
    ratings = ratings or {}
    fmt = state.settings.format
    if fmt is Format.ELIMINATION:
        return _elimination(state)
    tallies = tally(state)

    def rating(e: str) -> float:
        return team_rating(ratings, state.players_of(e))

    if fmt is Format.SWISS:
        buchholz = {e: sum(tallies[o].points for o in t.opponents) for e, t in tallies.items()}
        ranked = sorted(
            state.order, key=lambda e: (-tallies[e].points, -buchholz[e], -rating(e), state.seed(e))
        )
        return _rows(
            state,
            ranked,
            tallies,
            lambda e: (("opponents_points", buchholz[e]), ("rating", rating(e))),
            lambda e: (
                "opponents: "
                + (" + ".join(f"{o} {tallies[o].points}" for o in tallies[e].opponents) or "none")
                + f" = {buchholz[e]}"
            ),
        )
    if fmt is Format.LADDER:
        ranked = sorted(state.order, key=lambda e: (-tallies[e].points, -rating(e), state.seed(e)))
        return _rows(state, ranked, tallies, lambda e: (("rating", rating(e)),), lambda e: "")
    h2h = _head_to_head(state, tallies)
    ranked = sorted(
        state.order,
        key=lambda e: (-tallies[e].points, -h2h[e][0], -_diff(tallies[e]), state.seed(e)),
    )
    return _rows(
        state,
        ranked,
        tallies,
        lambda e: (("head_to_head", h2h[e][0]), ("points_difference", _diff(tallies[e]))),
        lambda e: (
            (
                f"head-to-head among {', '.join(h2h[e][1])}: {h2h[e][0]}"
                if len(h2h[e][1]) > 1
                else "nobody level on points"
            )
            + f"; difference {tallies[e].scored} - {tallies[e].conceded} = {_diff(tallies[e])}"
        ),
    )


def _diff(t: Tally) -> int:
    return t.scored - t.conceded


def _head_to_head(
    state: Tournament, tallies: dict[str, Tally]
) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Points each scored in matches against others level with it on points."""
    level: dict[int, list[str]] = defaultdict(list)
    for e in state.order:
        level[tallies[e].points].append(e)
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    for group in level.values():
        members = set(group)
        for e in group:
            mini = sum(
                pts
                for opponents, pts in tallies[e].meetings
                if any(o in members for o in opponents)
            )
            out[e] = (mini if len(group) > 1 else 0, tuple(group))
    return out


def _rows(
    state: Tournament,
    ranked: list[str],
    tallies: dict[str, Tally],
    breaks: Callable[[str], tuple[tuple[str, int | float], ...]],
    how: Callable[[str], str],
) -> list[Standing]:
    pts = state.settings.points
    last = "entry" if state.settings.format is Format.LADDER else "seed"
    rows = []
    for place, e in enumerate(ranked, 1):
        t = tallies[e]
        played = t.wins + t.draws + t.losses - t.byes
        line = (
            f"{t.wins} won x {pts.win} + {t.draws} drawn x {pts.draw} + "
            f"{t.losses} lost x {pts.loss} = {t.points}"
            + (f" (wins include {t.byes} sit-out)" if t.byes else "")
        )
        extra = how(e)
        rows.append(
            Standing(
                place=place,
                entrant=e,
                players=state.players_of(e),
                status=str(state.status.get(e, "active")),
                points=t.points,
                played=played,
                wins=t.wins,
                draws=t.draws,
                losses=t.losses,
                byes=t.byes,
                tie_breaks=(*breaks(e), (last, state.seed(e))),
                how=f"{line}; {extra}" if extra else line,
            )
        )
    return rows


def elimination_reached(state: Tournament) -> dict[str, int]:
    """The round each entrant reached: lost (or still playing) there; past the final for
    the winner, i.e. the number of rounds + 1."""
    reached = dict.fromkeys(state.order, 1)
    for round_ in state.rounds:
        for match in round_.matches:
            p = match.pairing
            for e in p.entrants:
                reached[e] = round_.number
            decided = state.decision(round_.number, match)
            if decided is None:
                continue
            for side, outcome in ((p.a, decided.a), (p.b, decided.b)):
                if outcome is Outcome.WIN:
                    for e in side:
                        reached[e] = round_.number + 1
    return reached


def _elimination(state: Tournament) -> list[Standing]:
    reached = elimination_reached(state)
    won: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    for round_ in state.rounds:
        for match in round_.matches:
            decided = state.decision(round_.number, match)
            if decided is not None and not match.pairing.is_bye:
                for e in match.pairing.entrants:
                    played[e] += 1
                for e in _winners(match.pairing, decided.a, decided.b):
                    won[e] += 1
    ranked = sorted(state.order, key=lambda e: (-reached[e], state.seed(e)))
    final = state.elimination_rounds
    rows = []
    for place, e in enumerate(ranked, 1):
        r = reached[e]
        rows.append(
            Standing(
                place=place,
                entrant=e,
                players=state.players_of(e),
                status=str(state.status.get(e, "active")),
                points=won[e],
                played=played[e],
                wins=won[e],
                draws=0,
                losses=played[e] - won[e],
                byes=0,
                tie_breaks=(("reached", r), ("seed", state.seed(e))),
                how="won the final" if r > final else f"reached round {r} of {final}",
            )
        )
    return rows


def _winners(p: Pairing, a: Outcome, b: Outcome) -> tuple[str, ...]:
    if a is Outcome.WIN:
        return p.a
    if b is Outcome.WIN:
        return p.b
    return ()
