"""Invariants over any sequence of results (hypothesis):

- Swiss never pairs two entrants twice and never gives anyone a second bye, for any
  results (and withdrawals between rounds), up to rounds = entrants - 1; when it stops
  early for want of a valid round, no valid round existed (checked by exhaustive search).
- Round-robin: everyone meets everyone exactly once.
- Elimination: always exactly one winner.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.tournament_kit import D, L, Run, W, knockout, robin, swiss
from tournament import withdraw
from tournament.standings import elimination_reached

OUTCOMES = st.sampled_from([W, D, L])


def exists_valid_round(players: list[str], met: set[frozenset[str]], byes: set[str]) -> bool:
    """Exhaustive: can everyone be paired (one bye to someone without one, if odd)?"""
    if len(players) % 2:
        return any(
            exists_valid_round([p for p in players if p != b], met, byes)
            for b in players
            if b not in byes
        )
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        exists_valid_round([p for p in rest if p != q], met, byes)
        for q in rest
        if frozenset((first, q)) not in met
    )


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 9), data=st.data())
def test_swiss_never_pairs_twice_nor_byes_twice(n: int, data) -> None:
    names = [f"p{i}" for i in range(n)]
    run = Run(swiss(rounds=n - 1), names)
    met: set[frozenset[str]] = set()
    byes: set[str] = set()
    while True:
        run.pair()
        if run.finished:
            break
        for p in run.pairs():
            if len(p) == 1:
                assert p[0] not in byes, "a second bye"
                byes.add(p[0])
            else:
                assert frozenset(p) not in met, "a rematch"
                met.add(frozenset(p))
        assert sorted(e for p in run.pairs() for e in p) == sorted(run.state.active)
        for m in run.state.current.matches:
            if not m.pairing.is_bye:
                run.result(m.pairing.a[0], data.draw(OUTCOMES))
        # now and then someone withdraws between rounds (never paired again)
        leaver = data.draw(st.sampled_from([None, None, None, *run.state.active]))
        if leaver is not None:
            run.do(withdraw(run.state, leaver, run.now_ms))
            if run.finished:
                break
    event(run.finished.reason)
    active = list(run.state.active)
    if run.finished.reason == "no_valid_pairing":
        assert not exists_valid_round(active, met, byes)
    elif run.finished.reason == "too_few_to_pair":
        assert len(active) < 2
    else:
        assert run.finished.reason in ("all_rounds_played", "all_withdrew")
        assert run.finished.reason == "all_withdrew" or len(run.state.rounds) == n - 1


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 12), data=st.data())
def test_round_robin_meets_everyone_exactly_once(n: int, data) -> None:
    names = [f"p{i}" for i in range(n)]
    run = Run(robin(), names)
    run.pair()
    while not run.finished:
        for m in run.state.undecided(run.state.current):
            run.result(m.pairing.a[0], data.draw(OUTCOMES))
        run.pair()
    met = Counter(
        frozenset(p)
        for r in range(1, len(run.state.rounds) + 1)
        for p in run.pairs(r)
        if len(p) == 2
    )
    assert met == dict.fromkeys((frozenset(c) for c in combinations(names, 2)), 1)
    sat_out = Counter(
        p[0] for r in range(1, len(run.state.rounds) + 1) for p in run.pairs(r) if len(p) == 1
    )
    assert sat_out == (dict.fromkeys(names, 1) if n % 2 else {})


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 20), best_of=st.sampled_from([1, 3]), data=st.data())
def test_elimination_always_yields_one_winner(n: int, best_of: int, data) -> None:
    run = Run(knockout(best_of=best_of), [f"p{i}" for i in range(n)])
    run.pair()
    games = 0
    while not run.finished:
        for m in run.state.undecided(run.state.current):
            while run.state.match_of(m.pairing.a[0]) is not None:
                games += 1
                # draws are replayed; keep the example finite
                outcome = data.draw(OUTCOMES) if games < 200 else W
                run.result(m.pairing.a[0], outcome)
        run.pair()
    assert run.finished.reason == "final_decided"
    reached = elimination_reached(run.state)
    past_final = [e for e, r in reached.items() if r > run.state.elimination_rounds]
    assert past_final == [run.finished.standings[0]]
