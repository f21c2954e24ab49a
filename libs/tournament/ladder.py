"""Ladder (docs/specification.md §5): no rounds; for a set number of days every rated match of the
tournament's game from the lobby scores win/draw/loss points.

- Leaving a match counts as a loss; a match nobody wins is a draw (the table reports it).
- Withdrawing keeps what was scored; matches played after that do not count.
- A ladder takes entrants while it runs (a decision of ours: the seed is silent, and a
  ladder open to late comers is what players of a site expect). A match counts for an
  entrant from their entry on, since only entrants' scores are recorded.
- Ranking: the total, then rating (standings.py).
"""

from __future__ import annotations

from tournament.events import LadderScore
from tournament.settings import MS_PER_DAY, Outcome


def window_end(started_at_ms: int, days: int) -> int:
    return started_at_ms + days * MS_PER_DAY


def in_window(played_at_ms: int, started_at_ms: int, ends_at_ms: int) -> bool:
    """A match counts when it finished within [start, end)."""
    return started_at_ms <= played_at_ms < ends_at_ms


def counts_for(played_at_ms: int, withdrawn_at_ms: int | None) -> bool:
    """Matches after a withdrawal do not count; those before it keep counting."""
    return withdrawn_at_ms is None or played_at_ms < withdrawn_at_ms


def outcome_of(score: LadderScore) -> Outcome:
    """Leaving a match is a loss, whatever the table says of the rest of it."""
    return Outcome.LOSS if score.left else score.outcome
