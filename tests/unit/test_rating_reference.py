"""Rating updates against published values of OpenSkill's Plackett-Luce model.

Sources (each value copied from the page named beside it):

- openskill.py's user manual, docs/source/manual.rst ("The Basics", "Predicting
  Winners", "Predicting Draws"), vivekjoshy/openskill.py, and the README's example;
- openskill.py's test data, tests/models/data/plackettluce.json ("normal"), whose values
  the library's own tests/models/weng_lin/test_plackett_luce.py checks;
- openskill.js, the independent JavaScript implementation the Python one was ported from:
  src/__tests__/rate.test.ts ("reverses rank", "rate accepts and runs a placket-luce
  model by default for teams", "... with tau", "accepts a tau term") and
  src/models/__tests__/plackett-luce.test.ts ("2p FFA", which runs without tau).
"""

from __future__ import annotations

import pytest

from rating import DEFAULT_SETTINGS, RatingSettings, Skill, win_probability
from rating.model import update

NEW = Skill(25.0, 25.0 / 3.0)
EXACT = 1e-12  # relative: the same arithmetic, at most the last bit apart


def approx(skills: tuple[Skill, ...]) -> list[object]:
    return [(pytest.approx(s.mu, rel=EXACT), pytest.approx(s.sigma, rel=EXACT)) for s in skills]


def pairs(skills: tuple[Skill, ...]) -> list[tuple[float, float]]:
    return [(s.mu, s.sigma) for s in skills]


def test_defaults_are_openskills() -> None:
    s = DEFAULT_SETTINGS
    assert (s.model, s.mu, s.sigma, s.beta, s.tau) == (
        "PlackettLuce",
        25.0,
        25.0 / 3.0,
        25.0 / 6.0,
        25.0 / 300.0,
    )


def test_manual_two_against_two_newcomers() -> None:
    # manual.rst "The Basics": p1, p2 beat p3, p4, all newcomers.
    a, b = update(DEFAULT_SETTINGS, ((NEW, NEW), (NEW, NEW)), 0)
    assert pairs(a) == approx((Skill(26.964294621803063, 8.177962604389991),) * 2)
    assert pairs(b) == approx((Skill(23.035705378196937, 8.177962604389991),) * 2)


def test_js_one_against_one_newcomers() -> None:
    # rate.test.ts "reverses rank": the winner and the loser of two newcomers.
    a, b = update(DEFAULT_SETTINGS, ((NEW,), (NEW,)), 1)
    assert pairs(b) == approx((Skill(27.635389493140497, 8.06590141354368),))
    assert pairs(a) == approx((Skill(22.364610506859503, 8.06590141354368),))


def test_js_one_against_one_without_tau() -> None:
    # plackett-luce.test.ts "2p FFA" (the model function alone adds no tau).
    a, b = update(RatingSettings(tau=0.0), ((NEW,), (NEW,)), 0)
    assert pairs(a) == approx((Skill(27.63523138347365, 8.065506316323548),))
    assert pairs(b) == approx((Skill(22.36476861652635, 8.065506316323548),))


SIDES = (
    (Skill(29.182, 4.782), Skill(27.174, 4.922)),
    (Skill(16.672, 6.217), NEW),
)


def test_js_two_against_two_rated_players() -> None:
    # rate.test.ts "rate accepts and runs a placket-luce model by default for teams".
    a, b = update(DEFAULT_SETTINGS, SIDES, 0)
    assert pairs(a) == approx(
        (Skill(29.607340941337068, 4.755311788972862), Skill(27.624602782532037, 4.892807828777459))
    )
    assert pairs(b) == approx(
        (Skill(15.953170429143093, 6.125902065139878), Skill(23.70858117648013, 8.111707446126035))
    )


def test_js_two_against_two_with_tau() -> None:
    # rate.test.ts "... for teams with tau" (tau 0.01).
    a, b = update(RatingSettings(tau=0.01), SIDES, 0)
    assert pairs(a) == approx(
        (Skill(29.60722003260825, 4.754607604502581), Skill(27.624482251695827, 4.892124276331747))
    )
    assert pairs(b) == approx(
        (
            Skill(15.953286947567106, 6.1253654293947335),
            Skill(23.708689129525133, 8.111303923213725),
        )
    )


def test_js_tau_term() -> None:
    # rate.test.ts "accepts a tau term": two players at (25, 3), tau 0.3.
    a, b = update(RatingSettings(tau=0.3), ((Skill(25, 3),), (Skill(25, 3),)), 0)
    assert pairs(a) == approx((Skill(25.624880438870754, 2.9879993738476953),))
    assert pairs(b) == approx((Skill(24.375119561129246, 2.9879993738476953),))


def test_library_data_one_against_two() -> None:
    # plackettluce.json "normal": model (mu 20.35125162611535, sigma 8.33148112355601),
    # one newcomer beats two.
    s = RatingSettings(mu=20.35125162611535, sigma=8.33148112355601)
    new = Skill(s.mu, s.sigma)
    a, b = update(s, ((new,), (new, new)), 0)
    assert pairs(a) == approx((Skill(23.855123082692877, 8.22447878583752),))
    assert pairs(b) == approx((Skill(16.84738016953782, 8.179571171464575),) * 2)


def test_manual_predict_win() -> None:
    # manual.rst "Predicting Winners": a newcomer against (33.564, 1.123).
    p = win_probability(DEFAULT_SETTINGS, ((NEW,), (Skill(33.564, 1.123),)))
    assert p == pytest.approx(0.2021226121041832, rel=1e-12)


def test_draw_between_equals_moves_no_mean() -> None:
    # A draw between equals changes no mean and narrows both alike; against a stronger
    # side, a draw lifts the weaker side and lowers the stronger.
    a, b = update(DEFAULT_SETTINGS, ((NEW,), (NEW,)), None)
    assert a[0].mu == b[0].mu == 25.0
    assert a[0].sigma == b[0].sigma < NEW.sigma
    weak, strong = update(DEFAULT_SETTINGS, ((Skill(20, 3),), (Skill(30, 3),)), None)
    assert weak[0].mu > 20 and strong[0].mu < 30
