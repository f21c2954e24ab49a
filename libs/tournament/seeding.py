"""Placing the entrants when a tournament starts, and forming teams at tables of four.

Ratings come through a port: any ``Mapping[str, float]`` from player id to rating (issue
9 supplies the real one); a player it does not know is rated DEFAULT_RATING (1500). A
team's rating is its two players' mean.

Teams (docs/specification.md §5: "teams of two are formed when round 1 is paired and
stay together"): the players in seed order are folded, seed 1 with the last seed, seed 2
with the one before last, and so on, so that teams come out balanced; the team of seed 1 is team 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournament.errors import BadSeeding, OddPlayersForTeams
from tournament.events import Team
from tournament.settings import DEFAULT_RATING, Seeding

Ratings = Mapping[str, float]


def rating(ratings: Ratings, player: str) -> float:
    return float(ratings.get(player, DEFAULT_RATING))


def team_rating(ratings: Ratings, players: Sequence[str]) -> float:
    return sum(rating(ratings, p) for p in players) / len(players)


def seed_order(
    players: Sequence[str],
    how: Seeding,
    ratings: Ratings,
    manual: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """The players, seed 1 first.

    RATING: highest first; equal ratings keep entry order. MANUAL: exactly the players,
    in the organiser's order. RANDOM is not ordered here: it is drawn from a drand
    round named when entries close (``commands.name_draw_round``, ``commands.make_draw``),
    so that nobody, the operator included, chooses it.
    Raises BadSeeding when the order needed is missing or wrong, and for RANDOM.
    """
    if how is Seeding.RATING:
        entry = {p: i for i, p in enumerate(players)}
        return tuple(sorted(players, key=lambda p: (-rating(ratings, p), entry[p])))
    if how is Seeding.MANUAL:
        if manual is None or sorted(manual) != sorted(players):
            raise BadSeeding("a manual seeding lists every entrant exactly once")
        return tuple(manual)
    raise BadSeeding("a random seeding is drawn from a named drand round, not ordered here")


def form_teams(players_in_seed_order: Sequence[str]) -> tuple[Team, ...]:
    """Fold the seeded players into teams of two: 1 with n, 2 with n-1, …

    Raises OddPlayersForTeams when someone would be left without a partner.
    """
    n = len(players_in_seed_order)
    if n % 2:
        raise OddPlayersForTeams(
            f"{n} players cannot all form teams of two: one more must enter or one withdraw"
        )
    return tuple(
        Team(f"team-{k + 1}", (players_in_seed_order[k], players_in_seed_order[n - 1 - k]))
        for k in range(n // 2)
    )
