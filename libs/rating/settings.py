"""The rating parameters, in one record (issue 9).

The model works in the library's units (mu, sigma: 25 and 25/3 for a newcomer). Players
see an Elo-like scale, and every threshold they can see is stated on that scale:

- **display rating** = ``display_center + points_per_mu * (mu - settings.mu)``, so a
  newcomer shows 1500. ``points_per_mu`` gives display differences Elo's meaning under the
  model's own likelihood: for two established players (sigma near 0) one against one,
  Plackett-Luce (and Bradley-Terry) expect A to beat B with probability
  ``1 / (1 + exp(-(mu_A - mu_B) / (beta * sqrt 2)))``, and Elo says ``1 / (1 + 10^(-D/400))``
  for a display gap D. Both agree when ``points_per_mu = (400 / ln 10) / (beta * sqrt 2)``
  = 29.48 (beta = 25/6): a 400-point gap means 10 to 1, as players expect.
  Two against two, the same scale is kept, so that a rating means the same in every pool
  and one RD threshold serves all; the model sums the partners' mu and doubles the
  performance noise, so there a gap D between the sides' mean ratings carries the odds
  Elo gives to a gap of D * sqrt 2 (a 400-point gap between sides is about 26 to 1).
- **RD** (rating deviation, lichess's word) = ``points_per_mu * sigma``; a newcomer's is 246.
- **provisional** while RD >= ``provisional_rd`` = 110, lichess's threshold
  (lila ``Glicko.provisionalDeviation``), the same number in the same kind of points
  (sigma >= 3.73).
- **inactivity**: sigma^2 grows by ``rd_variance_per_day / points_per_mu^2`` per day
  without a rated match (Glicko's ``c^2 t``), capped at the newcomer's sigma. The default
  turns an established RD of 50 provisional again after 180 days away.
- **leaderboards** list players who are not provisional and played a rated match in the
  pool within ``leaderboard_active_days``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

#: Elo's scale: 400 points per factor of 10 in the odds, i.e. 400/ln 10 points per logit.
ELO_POINTS_PER_LOGIT: Final = 400.0 / math.log(10.0)

#: Times are whole unix milliseconds, as in every event of the log (its JSON has no floats).
MS_PER_DAY: Final = 86_400_000

#: The OpenSkill (Weng-Lin) models this package can run; the chosen one is the default.
MODELS: Final = (
    "PlackettLuce",
    "BradleyTerryFull",
    "BradleyTerryPart",
    "ThurstoneMostellerFull",
    "ThurstoneMostellerPart",
)


@dataclass(frozen=True, slots=True)
class RatingSettings:
    """Every rating parameter. The model's four numbers are OpenSkill's defaults, so the
    library's published values hold for this package's updates too."""

    model: str = "PlackettLuce"
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0  # OpenSkill's per-match dynamics, added to sigma^2 each match
    display_center: float = 1500.0
    provisional_rd: float = 110.0
    # display points^2 per day: (110^2 - 50^2) / 180, RD 50 -> 110 in 180 idle days
    rd_variance_per_day: float = (110.0**2 - 50.0**2) / 180.0
    leaderboard_active_days: float = 30.0

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown rating model {self.model!r}; known: {', '.join(MODELS)}")
        if not (self.sigma > 0 and self.beta > 0 and self.tau >= 0):
            raise ValueError("sigma and beta must be positive and tau not negative")
        if self.rd_variance_per_day < 0 or self.leaderboard_active_days < 0:
            raise ValueError("inactivity growth and the activity window cannot be negative")

    @property
    def points_per_mu(self) -> float:
        """Display points per unit of mu (the module docstring says why this value)."""
        return ELO_POINTS_PER_LOGIT / (math.sqrt(2.0) * self.beta)


DEFAULT_SETTINGS: Final = RatingSettings()
