"""What the rating service shows: a pool's table and leaderboard, a player's history, and
the look-up the tournament service uses for tie-breaks and seeding.

Read-time inactivity: a table is read "as of" a time the caller passes in (``now_ms``,
unix milliseconds), and each player's RD and provisional mark include the growth since
their last rated match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rating.ledger import HistoryEntry, PlayerRating, RatingState
from rating.model import display, rating_deviation, round_half_up, sigma_after_idle
from rating.settings import MS_PER_DAY, RatingSettings


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a table. Equal (integer) ratings share a rank (1, 2, 2, 4)."""

    rank: int
    player: str
    rating: int  # display
    rd: int  # display rating deviation, as of the table's time
    games: int
    provisional: bool


def rating_of(state: RatingState, pool: str, player: str) -> float:
    """A player's display rating in a pool, for tie-breaks and seeding. A player with no
    rated match in the pool, or a pool with none, gets a newcomer's rating: the display
    centre, 1500 by default. Inactivity does not move a rating (only its RD)."""
    p = state.pools.get(pool)
    known = p.players.get(player) if p is not None else None
    if p is None or known is None:
        return state.settings.display_center
    return display(state.settings, known.mu)


def rd_at(state: RatingState, player: PlayerRating, now_ms: int) -> float:
    """The player's display RD at ``now_ms``, inactivity included."""
    s = state.settings
    sigma = sigma_after_idle(s, player.sigma, now_ms - player.last_at_ms)
    return rating_deviation(s, sigma)


def is_provisional(settings: RatingSettings, rd: float) -> bool:
    """lichess's rule: provisional while RD >= 110 (settings.provisional_rd)."""
    return rd >= settings.provisional_rd


def standings(state: RatingState, pool: str, now_ms: int) -> tuple[Row, ...]:
    """Every rated player of the pool, best first, each with the provisional mark."""
    p = state.pools.get(pool)
    if p is None:
        return ()
    return _rank(state, p.players.values(), now_ms)


def leaderboard(state: RatingState, pool: str, now_ms: int) -> tuple[Row, ...]:
    """The public leaderboard: established players (not provisional at ``now_ms``) with a
    rated match in the pool within ``leaderboard_active_days`` of ``now_ms``."""
    p = state.pools.get(pool)
    if p is None:
        return ()
    s = state.settings
    window = s.leaderboard_active_days * MS_PER_DAY
    eligible = [
        player
        for player in p.players.values()
        if now_ms - player.last_at_ms <= window
        and not is_provisional(s, rd_at(state, player, now_ms))
    ]
    return _rank(state, eligible, now_ms)


def history(state: RatingState, pool: str, player: str) -> tuple[HistoryEntry, ...]:
    """The player's rated matches in the pool, oldest first."""
    p = state.pools.get(pool)
    return () if p is None else p.history.get(player, ())


def _rank(state: RatingState, players: Iterable[PlayerRating], now_ms: int) -> tuple[Row, ...]:
    s = state.settings
    lines = []
    for player in players:
        rd = rd_at(state, player, now_ms)
        rating = round_half_up(display(s, player.mu))
        lines.append(
            (rating, player.player, round_half_up(rd), player.games, is_provisional(s, rd))
        )
    # Highest rating first; the player id orders equal ratings so that the table is the
    # same on every replay (they share the rank).
    lines.sort(key=lambda line: (-line[0], line[1]))
    rows: list[Row] = []
    for i, (rating, player_id, rd_int, games, provisional) in enumerate(lines):
        rank = rows[-1].rank if rows and rows[-1].rating == rating else i + 1
        rows.append(Row(rank, player_id, rating, rd_int, games, provisional))
    return tuple(rows)
