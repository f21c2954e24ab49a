"""The skill model: OpenSkill's Weng-Lin models behind three small pure functions, and the
mapping from the model's units to what players see (settings.py says why each number).

OpenSkill's ``rate`` copies its inputs and returns new ratings; it draws no randomness
that reaches a result (a rating object gets a uuid4 label, which we never read), so the
same inputs give the same outputs, which replay depends on.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

from rating.settings import MS_PER_DAY, RatingSettings

_MODEL_CLASSES: dict[str, Any] = {
    "PlackettLuce": PlackettLuce,
    "BradleyTerryFull": BradleyTerryFull,
    "BradleyTerryPart": BradleyTerryPart,
    "ThurstoneMostellerFull": ThurstoneMostellerFull,
    "ThurstoneMostellerPart": ThurstoneMostellerPart,
}


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's skill belief in the model's units: mean and standard deviation."""

    mu: float
    sigma: float


@functools.cache
def _model(settings: RatingSettings) -> Any:
    # Cached per settings record (frozen, hashable); the model object holds parameters only.
    return _MODEL_CLASSES[settings.model](
        mu=settings.mu, sigma=settings.sigma, beta=settings.beta, tau=settings.tau
    )


def update(
    settings: RatingSettings,
    sides: tuple[tuple[Skill, ...], tuple[Skill, ...]],
    winner: int | None,
) -> tuple[tuple[Skill, ...], tuple[Skill, ...]]:
    """The model's update for one match between two sides: ``winner`` is 0 or 1, or None
    for a draw. Each player's own skill moves (OpenSkill rates players, not teams)."""
    model = _model(settings)
    teams = [[model.create_rating([s.mu, s.sigma]) for s in side] for side in sides]
    ranks = [1.0, 1.0] if winner is None else ([1.0, 2.0] if winner == 0 else [2.0, 1.0])
    new = model.rate(teams, ranks=ranks)
    a, b = (tuple(Skill(float(r.mu), float(r.sigma)) for r in team) for team in new)
    return a, b


def win_probability(
    settings: RatingSettings, sides: tuple[tuple[Skill, ...], tuple[Skill, ...]]
) -> float:
    """The chance that side 0 beats side 1, by the library's ``predict_win``."""
    model = _model(settings)
    teams = [[model.create_rating([s.mu, s.sigma]) for s in side] for side in sides]
    return float(model.predict_win(teams)[0])


def display(settings: RatingSettings, mu: float) -> float:
    """The Elo-like rating players see; a newcomer (mu = settings.mu) shows display_center."""
    return settings.display_center + settings.points_per_mu * (mu - settings.mu)


def rating_deviation(settings: RatingSettings, sigma: float) -> float:
    """Sigma on the display scale (lichess's RD)."""
    return settings.points_per_mu * sigma


def sigma_after_idle(settings: RatingSettings, sigma: float, idle_ms: int) -> float:
    """Sigma after ``idle_ms`` milliseconds without a rated match: sigma^2 + c^2 t (Glicko), never
    above a newcomer's sigma nor below where it was. Time running backwards (events from
    two clocks) counts as no time."""
    days = max(0, idle_ms) / MS_PER_DAY
    c2 = settings.rd_variance_per_day / settings.points_per_mu**2
    grown = math.sqrt(sigma * sigma + c2 * days)
    return max(sigma, min(grown, settings.sigma))


def round_half_up(x: float) -> int:
    """Ratings are shown as integers; half rounds up (not to even) so that 1500.5 -> 1501."""
    return math.floor(x + 0.5)
