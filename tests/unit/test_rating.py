"""The rating aggregate: eligibility, idempotency, replay, inactivity, provisional mark,
leaderboards, history and the look-up for tournaments (issue 9)."""

from __future__ import annotations

import functools
import json
import math
import random

import pytest

from rating import (
    DEFAULT_SETTINGS,
    MatchNotRated,
    MatchRated,
    MatchSummary,
    Pool,
    RatedMatch,
    RatingEventError,
    RatingSettings,
    RatingState,
    Reason,
    Result,
    Seat,
    Unrated,
    decide,
    display,
    eligibility,
    empty,
    evolve,
    from_payload,
    history,
    leaderboard,
    rating_deviation,
    rating_of,
    replay,
    standings,
    to_payload,
)
from rating.events import RatingEvent
from rating.model import sigma_after_idle

DAY = 86_400_000  # milliseconds
T0 = 1_700_000_000_000


def summary(
    match_id: str,
    players: list[str | None],
    winner: int | None = 0,
    *,
    finished: bool = True,
    leaver: int | None = None,
    at: int = T0,
    ruleset: str = "club",
    rated: bool = True,
) -> MatchSummary:
    seats = tuple(Seat(i, p) for i, p in enumerate(players))
    return MatchSummary(match_id, ruleset, seats, winner, finished, leaver, at, rated)


def play(state: RatingState, s: MatchSummary) -> tuple[RatingState, tuple[RatingEvent, ...]]:
    events = decide(state, s)
    for e in events:
        state = evolve(state, e)
    return state, events


# --- eligibility ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        pytest.param(
            summary("m", ["a", "b", "c", "d"]), (("a", "c"), ("b", "d"), 0, None), id="win"
        ),
        pytest.param(summary("m", ["a", "b"], 1), (("a",), ("b",), 1, None), id="1v1-win"),
        pytest.param(
            summary("m", ["a", "b", "c", "d"], None),
            (("a", "c"), ("b", "d"), None, None),
            id="draw",
        ),
        pytest.param(
            summary("m", ["a", "b", "c", "d"], None, finished=False, leaver=2),
            (("a", "c"), ("b", "d"), 1, "c"),
            id="leaver-loses-for-their-side",
        ),
        pytest.param(
            summary("m", ["a", "b", "c", "d"], 1, finished=False, leaver=3),
            (("a", "c"), ("b", "d"), 0, "d"),
            id="leaver-loses-even-when-ahead",
        ),
        pytest.param(
            summary("m", ["a", "b"], 0, finished=True, leaver=0),
            (("a",), ("b",), 1, "a"),
            id="leaver-overrides-result",
        ),
    ],
)
def test_rated(case: MatchSummary, expected: tuple[object, ...]) -> None:
    verdict = eligibility(case)
    assert isinstance(verdict, RatedMatch)
    assert (verdict.sides[0], verdict.sides[1], verdict.winner, verdict.left_by) == expected


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        pytest.param(summary("m", ["a", None, "c", "d"]), Reason.BOT_SEAT, id="bot-seat"),
        pytest.param(summary("m", [None, "b"]), Reason.BOT_SEAT, id="bot-opponent-1v1"),
        pytest.param(
            summary("m", ["a", None, "c", "d"], finished=False, leaver=0),
            Reason.BOT_SEAT,
            id="bot-seat-even-with-leaver",
        ),
        pytest.param(
            summary("m", ["a", "b", "c", "d"], None, finished=False),
            Reason.UNFINISHED,
            id="unfinished",
        ),
        pytest.param(
            summary("m", ["a", "b"], 0, finished=False),
            Reason.UNFINISHED,
            id="unfinished-with-leader",
        ),
        pytest.param(summary("m", ["a", "b"], rated=False), Reason.CASUAL, id="casual-table"),
        pytest.param(summary("m", ["a", "b", "c"]), Reason.MALFORMED, id="three-seats"),
        pytest.param(summary("m", ["a", "b", "a", "d"]), Reason.MALFORMED, id="player-twice"),
        pytest.param(summary("m", ["a", ""]), Reason.MALFORMED, id="empty-player"),
        pytest.param(summary("m", ["a", "b"], 2), Reason.MALFORMED, id="winner-not-a-side"),
        pytest.param(summary("m", ["a", "b"], leaver=5), Reason.MALFORMED, id="leaver-not-a-seat"),
        pytest.param(summary("", ["a", "b"]), Reason.MALFORMED, id="no-match-id"),
    ],
)
def test_unrated(case: MatchSummary, reason: Reason) -> None:
    verdict = eligibility(case)
    assert isinstance(verdict, Unrated)
    assert verdict.reason is reason
    events = decide(empty(), case)
    assert len(events) == 1 and isinstance(events[0], MatchNotRated)
    assert events[0].reason == reason.value


def test_seats_out_of_order_are_malformed() -> None:
    s = MatchSummary("m", "club", (Seat(1, "b"), Seat(0, "a")), 0, True, None, T0)
    assert eligibility(s) == Unrated(Reason.MALFORMED, "seats are not numbered 0..n-1 in order")


def test_pool_keeps_its_side_size() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b", "c", "d"]))
    events = decide(state, summary("m2", ["a", "b"]))
    assert isinstance(events[0], MatchNotRated) and events[0].reason == "side-size"


# --- the update through the aggregate ---------------------------------------------------


def test_two_against_two_updates_each_player() -> None:
    state, (event,) = play(empty(), summary("m1", ["a", "b", "c", "d"]))
    assert isinstance(event, MatchRated)
    # The manual's 2v2 values, on the display scale: 1500 + 29.48 * 1.9643 = 1558.
    assert [c.rating_after for c in event.changes] == [1558, 1558, 1442, 1442]
    assert [c.player for c in event.changes] == ["a", "c", "b", "d"]
    # Now a and c are unequal: their next update differs.
    state, _ = play(state, summary("m2", ["a", "e", "f", "g"], 0, at=T0 + 60))
    assert rating_of(state, "club", "a") > rating_of(state, "club", "c")


def test_leaver_loses_rating() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b"], 0, finished=False, leaver=0))
    assert rating_of(state, "club", "a") < 1500 < rating_of(state, "club", "b")
    (entry,) = history(state, "club", "a")
    assert entry.result is Result.LOSS and entry.left_by == "a"


def test_draw_counts_as_draw() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b"], None))
    assert rating_of(state, "club", "a") == rating_of(state, "club", "b") == 1500.0
    assert state.pools["club"].players["a"].draws == 1


def test_rating_of_unknown_player_or_pool_is_the_newcomers() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b"]))
    assert rating_of(state, "club", "nobody") == 1500.0
    assert rating_of(state, "french", "a") == 1500.0
    assert rating_of(empty(RatingSettings(display_center=1200.0)), "club", "x") == 1200.0


def test_display_scale_gives_elo_meaning() -> None:
    # settings.py: with sigma ~ 0, a 400-point gap is 10:1 under the Plackett-Luce
    # likelihood one against one; two against two, a gap D of side means is Elo's D*sqrt 2.
    s = DEFAULT_SETTINGS
    assert s.points_per_mu == pytest.approx(29.4809, abs=1e-4)
    assert display(s, s.mu) == 1500.0 and rating_deviation(s, s.sigma) == pytest.approx(
        245.68, abs=0.01
    )
    for n, elo_gap in ((1, 400.0), (2, 400.0 * math.sqrt(2))):
        dmu = 400.0 / s.points_per_mu  # per player
        p = 1.0 / (1.0 + math.exp(-(n * dmu) / (s.beta * math.sqrt(2 * n))))
        assert p == pytest.approx(1.0 / (1.0 + 10 ** (-elo_gap / 400)))


# --- idempotency --------------------------------------------------------------------------


def test_match_delivered_twice_counts_once() -> None:
    m = summary("m1", ["a", "b", "c", "d"])
    state, first = play(empty(), m)
    assert decide(state, m) == ()
    assert evolve(state, first[0]) is not state
    assert evolve(state, first[0]) == state  # the event stored twice: no change either
    assert state.pools["club"].players["a"].games == 1
    assert len(history(state, "club", "a")) == 1


def test_two_deliveries_decided_before_either_is_stored() -> None:
    # Two consumers decide from the same state; the second event is ignored on evolve.
    m = summary("m1", ["a", "b"])
    e1, e2 = decide(empty(), m)[0], decide(empty(), m)[0]
    assert replay([e1, e2]) == replay([e1])


def test_unrated_match_is_remembered() -> None:
    m = summary("m1", ["a", None])
    state, _ = play(empty(), m)
    assert "m1" in state.seen and decide(state, m) == ()


# --- replay ---------------------------------------------------------------------------------


def random_season(seed: int, n: int = 300) -> tuple[list[RatingEvent], RatingState]:
    rng = random.Random(seed)
    players = [f"p{i:02d}" for i in range(24)]
    state = empty()
    events: list[RatingEvent] = []
    at = T0
    for k in range(n):
        at += rng.randrange(3 * DAY)
        ruleset, size = rng.choice([("club", 4), ("gambler", 2)])
        seats: list[str | None] = list(rng.sample(players, size))
        roll = rng.random()
        if roll < 0.05:
            seats[rng.randrange(size)] = None  # a bot
        winner = rng.choice([0, 1, 1, 0, None]) if rng.random() < 0.2 else rng.choice([0, 1])
        leaver = rng.randrange(size) if roll > 0.95 else None
        finished = leaver is None and rng.random() > 0.03
        s = summary(
            f"m{k}", seats, winner, finished=finished, leaver=leaver, at=at, ruleset=ruleset
        )
        state, new = play(state, s)
        events += new
        if rng.random() < 0.1:  # a redelivery
            state, again = play(state, s)
            assert again == ()
    return events, state


def test_replay_rebuilds_identical_tables() -> None:
    events, live = random_season(7)
    now = T0 + 400 * DAY
    # Through the stored form: JSON text, as the log will hold it.
    stored = [(type(e).TYPE, json.dumps(to_payload(e))) for e in events]
    rebuilt = replay(from_payload(t, json.loads(p)) for t, p in stored)
    assert rebuilt == live
    assert functools.reduce(evolve, events, empty()) == live
    for pool in ("club", "gambler"):
        assert standings(rebuilt, pool, now) == standings(live, pool, now)
        assert leaderboard(rebuilt, pool, now) == leaderboard(live, pool, now)
        assert len(standings(live, pool, now)) > 10


def test_replay_with_duplicates_in_the_log() -> None:
    events, live = random_season(11, 120)
    doubled = [e for e in events for _ in (0, 1)]
    assert replay(doubled) == live


def test_payloads_hold_no_floats() -> None:
    # The log refuses floats in payloads (its hash chain needs bytes every JSON library
    # reproduces); mu and sigma travel as exact decimal text.
    events, _ = random_season(17, 40)

    def walk(value: object) -> None:
        assert not isinstance(value, float), value
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for e in events:
        walk(to_payload(e))
    rated = next(e for e in events if isinstance(e, MatchRated))
    assert to_payload(rated)["changes"][0]["mu_after"] == repr(rated.changes[0].mu_after)


def test_codec_rejects_unknown_type_and_schema() -> None:
    events, _ = random_season(3, 10)
    payload = to_payload(events[0])
    with pytest.raises(RatingEventError):
        from_payload("MatchForgotten", payload)
    with pytest.raises(RatingEventError):
        from_payload(type(events[0]).TYPE, {**payload, "schema": 99})
    with pytest.raises(RatingEventError):
        from_payload("MatchRated", {"schema": 1, "match_id": "x"})


# --- inactivity and the provisional mark --------------------------------------------------


def test_sigma_grows_with_inactivity_and_is_capped() -> None:
    s = DEFAULT_SETTINGS
    k = s.points_per_mu
    established = 50.0 / k  # RD 50
    assert sigma_after_idle(s, established, 0) == established
    assert sigma_after_idle(s, established, -DAY) == established  # clocks disagree
    grown = sigma_after_idle(s, established, 180 * DAY)
    assert grown * k == pytest.approx(110.0)  # settings.py: RD 50 -> 110 in 180 days
    assert sigma_after_idle(s, established, 10 * 365 * DAY) == s.sigma  # the cap
    assert sigma_after_idle(s, s.sigma, 30 * DAY) == s.sigma


FIELD = ["a", "o1", "o2", "o3", "o4", "o5"]


def established_state(games: int = 240) -> tuple[RatingState, float]:
    """A field of six playing one-against-one among themselves until their ratings settle;
    returns the state and the time of the last match."""
    rng = random.Random(5)
    state = empty()
    at = T0
    for k in range(games):
        at = T0 + k * 600_000
        pair = rng.sample(FIELD, 2)
        state, _ = play(state, summary(f"m{k}", pair, rng.choice([0, 1]), at=at, ruleset="gambler"))
    return state, at


def test_provisional_until_rd_below_110() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b"], ruleset="gambler"))
    (row, *_) = standings(state, "gambler", T0)
    assert row.provisional and row.rd > 110
    assert leaderboard(state, "gambler", T0) == ()

    state, last = established_state()
    rows = standings(state, "gambler", last)
    assert all(not r.provisional and r.rd < 110 for r in rows)
    assert sorted(r.player for r in leaderboard(state, "gambler", last)) == sorted(FIELD)


def test_inactivity_makes_a_rating_provisional_again_and_drops_it_from_the_board() -> None:
    state, last = established_state()
    assert len(leaderboard(state, "gambler", last + DAY)) == len(FIELD)
    # Past the activity window but still established: off the leaderboard, rating kept.
    later = last + 31 * DAY
    assert leaderboard(state, "gambler", later) == ()
    assert all(not r.provisional for r in standings(state, "gambler", later))
    # A year away: provisional again; the rating itself has not moved.
    year = last + 365 * DAY
    for row in standings(state, "gambler", year):
        assert row.provisional
        assert rating_of(state, "gambler", row.player) == pytest.approx(row.rating, abs=0.5)


def test_inactivity_widens_the_next_update() -> None:
    state, last = established_state()
    soon, _ = play(state, summary("x1", ["a", "o1"], 1, at=last + 600_000, ruleset="gambler"))
    late, _ = play(state, summary("x1", ["a", "o1"], 1, at=last + 200 * DAY, ruleset="gambler"))
    before = rating_of(state, "gambler", "a")
    assert before - rating_of(late, "gambler", "a") > before - rating_of(soon, "gambler", "a")
    entry = history(late, "gambler", "a")[-1]
    assert entry.match_id == "x1" and entry.rating_before == int(before + 0.5)


# --- tables -----------------------------------------------------------------------------------


def test_table_order_and_shared_ranks() -> None:
    # a beats b, c beats d: a and c equal, b and d equal.
    state, _ = play(empty(), summary("m1", ["a", "b"], 0, ruleset="gambler"))
    state, _ = play(state, summary("m2", ["c", "d"], 0, ruleset="gambler"))
    rows = standings(state, "gambler", T0)
    assert [(r.rank, r.player) for r in rows] == [(1, "a"), (1, "c"), (3, "b"), (3, "d")]
    assert all(r.games == 1 for r in rows)


def test_history_lists_partners_and_opponents() -> None:
    state, _ = play(empty(), summary("m1", ["a", "b", "c", "d"], 1))
    (entry,) = history(state, "club", "b")
    assert entry.partners == ("d",) and entry.opponents == ("a", "c")
    assert entry.result is Result.WIN and entry.rating_after > entry.rating_before == 1500
    assert history(state, "club", "nobody") == () and history(state, "nope", "a") == ()


def test_settings_refuse_unknown_model() -> None:
    with pytest.raises(ValueError, match="unknown rating model"):
        RatingSettings(model="Elo")


def test_decide_needs_only_the_matchs_players() -> None:
    # The service can load just the seated players' rows and whether the match id was
    # seen, instead of whole pools: decide gives the same events (ledger.py).
    _, live = random_season(13, 200)
    club = live.pools["club"]
    seated = sorted(club.players)[:4]
    m = summary("new", list(seated), 1, at=T0 + 900 * DAY)
    partial = RatingState(
        live.settings,
        {"club": Pool("club", club.side_size, {p: club.players[p] for p in seated}, {})},
        frozenset(),
    )
    assert decide(partial, m) == decide(live, m)
    assert isinstance(decide(live, m)[0], MatchRated)
