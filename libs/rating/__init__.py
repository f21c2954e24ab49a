"""Ratings for rated matches (issue 9): one-against-one and two-against-two, per ruleset
pool, with OpenSkill's Plackett-Luce model and lichess's conventions (Elo-like display,
provisional mark, uncertainty growing with inactivity, leaderboards of established
players). Pure: no I/O, no clock (times come in as data), no randomness.

    verdict = eligibility(summary)              # rated? how? (eligibility.py)
    events = decide(state, summary)             # MatchRated / MatchNotRated / () if seen
    state = evolve(state, event)                # or replay(events)
    leaderboard(state, "club", now_ms); history(state, "club", player)
    rating_of(state, "club", player)            # tournament tie-breaks and seeding
"""

from rating.eligibility import (
    MatchSummary,
    RatedMatch,
    Reason,
    Seat,
    Unrated,
    eligibility,
    side_of,
)
from rating.events import (
    EVENT_TYPES,
    MatchNotRated,
    MatchRated,
    PlayerChange,
    RatingEvent,
    RatingEventError,
    from_payload,
    to_payload,
)
from rating.ledger import (
    HistoryEntry,
    PlayerRating,
    Pool,
    RatingState,
    Result,
    decide,
    empty,
    evolve,
    replay,
)
from rating.model import Skill, display, rating_deviation, sigma_after_idle, win_probability
from rating.settings import DEFAULT_SETTINGS, MODELS, RatingSettings
from rating.views import Row, history, is_provisional, leaderboard, rating_of, rd_at, standings

__all__ = [
    "DEFAULT_SETTINGS",
    "EVENT_TYPES",
    "MODELS",
    "HistoryEntry",
    "MatchNotRated",
    "MatchRated",
    "MatchSummary",
    "PlayerChange",
    "PlayerRating",
    "Pool",
    "RatedMatch",
    "RatingEvent",
    "RatingEventError",
    "RatingSettings",
    "RatingState",
    "Reason",
    "Result",
    "Row",
    "Seat",
    "Skill",
    "Unrated",
    "decide",
    "display",
    "eligibility",
    "empty",
    "evolve",
    "from_payload",
    "history",
    "is_provisional",
    "leaderboard",
    "rating_deviation",
    "rating_of",
    "rd_at",
    "replay",
    "side_of",
    "sigma_after_idle",
    "standings",
    "to_payload",
    "win_probability",
]
