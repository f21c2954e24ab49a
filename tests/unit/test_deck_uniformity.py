"""Statistical test: over 50,000 decks, every card is uniform over the 32 positions.

The same statistic and thresholds are applied to a deliberately biased shuffle (``x mod
(i + 1)`` without rejection) to show the test has the power to catch that mistake.
The inputs are fixed (seeds derived from a counter), so the test is deterministic.
"""

from __future__ import annotations

import hashlib
import hmac
import math

import pytest

from fairdeal import DeckInputs, Shuffler

DECKS = 50_000
SEATS = (b"\x01" * 16, b"", b"\x02" * 16, b"")


def chi_square_quantile(p_upper: float, df: int) -> float:
    """Upper quantile of chi-square by Wilson-Hilferty (accurate to <1% for df >= 30)."""
    # z for the upper tail p: invert the normal survival function by bisection on erfc.
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * math.erfc(mid / math.sqrt(2)) > p_upper:
            lo = mid
        else:
            hi = mid
    z = lo
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


def position_counts(decks) -> list[list[int]]:
    counts = [[0] * 32 for _ in range(32)]  # counts[card][position]
    for d in decks:
        for pos, card in enumerate(d):
            counts[card][pos] += 1
    return counts


def statistics(counts: list[list[int]]) -> tuple[float, float]:
    """(overall chi-square over the 32x32 table, worst single card's chi-square)."""
    expected = DECKS / 32
    per_card = [sum((c - expected) ** 2 / expected for c in row) for row in counts]
    return sum(per_card), max(per_card)


# Thresholds at a false-alarm rate of 1e-6: overall (31*31 degrees of freedom, since each
# deck is a permutation) and per card (31 df, Bonferroni over 32 cards).
OVERALL_LIMIT = chi_square_quantile(1e-6, 31 * 31)
PER_CARD_LIMIT = chi_square_quantile(1e-6 / 32, 31)


def real_decks():
    for n in range(DECKS // 1000):
        shuffler = Shuffler(DeckInputs(hashlib.sha256(b"uniform/%d" % n).digest(), SEATS))
        for k in range(1000):
            yield shuffler.deck(k)


def biased_decks():
    """The classic mistake: x mod (i + 1) straight from the stream, no rejection."""
    for n in range(DECKS):
        key = hashlib.sha256(b"biased/%d" % n).digest()
        stream = hmac.digest(key, b"block0", "sha256")
        deck = list(range(32))
        for step, i in enumerate(range(31, 0, -1)):
            j = stream[step] % (i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        yield deck


@pytest.mark.slow
def test_each_card_is_uniform_over_positions() -> None:
    overall, worst = statistics(position_counts(real_decks()))
    assert overall < OVERALL_LIMIT, (overall, OVERALL_LIMIT)
    assert worst < PER_CARD_LIMIT, (worst, PER_CARD_LIMIT)


@pytest.mark.slow
def test_the_same_test_catches_a_shuffle_without_rejection() -> None:
    overall, worst = statistics(position_counts(biased_decks()))
    assert overall > OVERALL_LIMIT and worst > PER_CARD_LIMIT, (overall, worst)


def test_quantile_matches_known_values() -> None:
    # chi-square 0.95 quantiles from standard tables: df 30 -> 43.773, df 100 -> 124.342
    assert chi_square_quantile(0.05, 30) == pytest.approx(43.773, rel=0.005)
    assert chi_square_quantile(0.05, 100) == pytest.approx(124.342, rel=0.002)
