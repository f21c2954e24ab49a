"""The fair-deal aggregate: docs/specification.md §6's steps, decided and replayed (no I/O,
no clock)."""

from __future__ import annotations

import hashlib

import pytest

from fairdeal import Shuffler
from fairdeal.chains import QUICKNET
from fairdeal.fairness import (
    DRAND_GRACE_MS,
    MAX_ROUND_LEAD_MS,
    MAX_SEED_WINDOW_MS,
    ROUND_LEAD_MS,
    DeckIssued,
    DrandBeaconLate,
    DrandBeaconVerified,
    DrandFallback,
    DrandRoundBeacon,
    DrandRoundMissed,
    DrandRoundNamed,
    Fairness,
    FairnessError,
    SeatSeedReceived,
    SeatSpec,
    SeedWindowClosed,
    ServerSeedCommitted,
    ServerSeedRevealed,
    close_window_if_due,
    decide_round,
    evolve,
    from_payload,
    issue_deck,
    last_round_for,
    late_beacon,
    open_match,
    replay,
    reveal,
    round_fact_from_payload,
    round_named_for,
    round_resolved,
    round_stream,
    submit_seed,
    to_payload,
    visibility,
)

SEED = bytes(range(32))
COMMIT = hashlib.sha256(SEED).digest()
T0 = QUICKNET.time_of_round(1000) * 1000 + 500  # mid-round (ms): next round is 1001
SEATS = (SeatSpec(0, "ann"), SeatSpec(1, None), SeatSpec(2, "bob"), SeatSpec(3, None))
ANN, BOB = b"\x01" * 16, b"\x02" * 16


class Match:
    """Decide and apply in one step, keeping every event (as the service does)."""

    def __init__(self) -> None:
        self.state = Fairness()
        self.events: list = []

    def do(self, events: list) -> list:
        for e in events:
            self.state = evolve(self.state, e)
        self.events += events
        return events


def opened(seats=SEATS, window=30_000) -> Match:
    m = Match()
    m.do(open_match(m.state, "m1", COMMIT, seats, "quicknet", window, T0))
    return m


def test_commitment_comes_first_and_is_public() -> None:
    m = opened()
    (e,) = m.events
    assert isinstance(e, ServerSeedCommitted) and e.commitment == COMMIT
    assert visibility(e) == "public"
    assert e.window_closes_at_ms == T0 + 30_000


def test_the_commitment_fixes_the_lead_and_the_last_round_before_any_seed() -> None:
    # The rule's round for a window closed at its end: a server holding the window open
    # can name nothing later. T0 is half a second into round 1000; 30 s on is half a
    # second into round 1010, and 6 s (the lead) after that into 1012: 1013 is the last.
    (e,) = opened().events
    assert e.round_lead_ms == ROUND_LEAD_MS == 6_000
    assert e.last_round == 1013


R1000 = QUICKNET.time_of_round(1000) * 1000
#: (when the window closed, the lead, the round the rule names); quicknet's rounds are
#: 3 s apart, round 1000 due at R1000. A round due exactly at close + lead is out then.
RULE = {
    "no lead, just after round 1000: the next round": (R1000 + 1, 0, 1001),
    "no lead, as round 1000 comes out: 1001": (R1000, 0, 1001),
    "no lead, a millisecond before round 1001: 1001": (R1000 + 2_999, 0, 1001),
    "6 s lead, just after round 1000": (R1000 + 1, 6_000, 1003),
    "6 s lead, half a second into round 1000": (R1000 + 500, 6_000, 1003),
    "6 s lead, round 1002 due exactly at close + lead: out, so 1003": (R1000, 6_000, 1003),
    "6 s lead, a millisecond before round 1001": (R1000 + 2_999, 6_000, 1003),
    "6 s lead, as round 1001 comes out: 1004": (R1000 + 3_000, 6_000, 1004),
    "a lead that is not whole periods: 4 s": (R1000 + 500, 4_000, 1002),
    "the longest lead, a minute: 20 rounds on": (R1000 + 500, MAX_ROUND_LEAD_MS, 1021),
}


@pytest.mark.parametrize("closed_at,lead,round_", RULE.values(), ids=RULE.keys())
def test_the_round_named_is_the_first_due_more_than_the_lead_after_the_close(
    closed_at: int, lead: int, round_: int
) -> None:
    assert round_named_for("quicknet", closed_at, lead) == round_
    # Due more than the lead after the close; the one before is due at or before it.
    assert QUICKNET.time_of_round(round_) * 1000 > closed_at + lead
    assert QUICKNET.time_of_round(round_ - 1) * 1000 <= closed_at + lead
    # A lead of 0 is the rule before the lead: the first round after the close.
    if lead == 0:
        assert round_ == QUICKNET.next_round_after(closed_at / 1000)


#: (the window's length, the lead, the last round); the match opens at T0.
LAST = {
    "30 s window, no lead (a record before the lead)": (30_000, 0, 1011),
    "30 s window, 6 s lead": (30_000, 6_000, 1013),
    "20 s window, 6 s lead": (20_000, 6_000, 1009),
    "the longest window, 6 s lead": (MAX_SEED_WINDOW_MS, 6_000, 1203),
}


@pytest.mark.parametrize("window,lead,last", LAST.values(), ids=LAST.keys())
def test_the_last_round_is_the_rule_for_a_window_closed_at_its_end(
    window: int, lead: int, last: int
) -> None:
    m = Match()
    (e,) = m.do(open_match(m.state, "m1", COMMIT, SEATS, "quicknet", window, T0, lead))
    assert e.round_lead_ms == lead
    assert e.last_round == last_round_for("quicknet", T0 + window, lead) == last
    assert last == round_named_for("quicknet", T0 + window, lead)
    # A window closed by its timer, however late, names exactly the last round.
    _, named = m.do(close_window_if_due(m.state, T0 + window + 60_000))
    assert named.round == last


@pytest.mark.parametrize("lead", [-1, MAX_ROUND_LEAD_MS + 1])
def test_a_lead_out_of_bounds_is_refused(lead: int) -> None:
    with pytest.raises(FairnessError) as err:
        open_match(Fairness(), "m1", COMMIT, SEATS, "quicknet", 30_000, T0, lead)
    assert err.value.code == "bad_round_lead"


@pytest.mark.parametrize("window", [0, -1, MAX_SEED_WINDOW_MS + 1])
def test_a_window_out_of_bounds_is_refused(window: int) -> None:
    with pytest.raises(FairnessError) as err:
        open_match(Fairness(), "m1", COMMIT, SEATS, "quicknet", window, T0)
    assert err.value.code == "bad_window"


def test_a_late_timer_closes_the_window_at_its_end_and_names_no_round_past_the_last() -> None:
    m = opened(window=10_000)
    # The service was down: its timer runs 40 s after the window's end.
    closed, named = m.do(close_window_if_due(m.state, T0 + 50_000))
    assert closed.at_ms == T0 + 10_000
    assert named.round == m.state.last_round


def test_seeds_close_the_window_when_every_human_is_in() -> None:
    m = opened()
    first = m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    assert [type(e) for e in first] == [SeatSeedReceived]
    assert visibility(first[0]) == "seat:0", "private to its seat until the window closes"
    last = m.do(submit_seed(m.state, 2, "bob", BOB, T0 + 2000))
    assert [type(e) for e in last] == [SeatSeedReceived, SeedWindowClosed, DrandRoundNamed]
    closed, named = last[1], last[2]
    assert closed.seat_seeds == (ANN, b"", BOB, b"") and closed.missing == ()
    # the first round due more than the lead after the seeds are in: 2.5 s into round
    # 1000, plus 6 s, is half a second into round 1002, so 1003 (not 1001, the next)
    assert named.round == 1003 == round_named_for("quicknet", T0 + 2000, ROUND_LEAD_MS)
    assert named.due_at_ms == QUICKNET.time_of_round(named.round) * 1000 > T0 + 2000 + 6_000


def test_all_bot_match_closes_the_window_at_once() -> None:
    m = opened(seats=(SeatSpec(0, None), SeatSpec(1, None)))
    assert [type(e) for e in m.events] == [ServerSeedCommitted, SeedWindowClosed, DrandRoundNamed]


def test_window_timeout_records_missing_seeds_as_absent() -> None:
    m = opened(window=10_000)
    m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    assert close_window_if_due(m.state, T0 + 9990) == []
    closed = m.do(close_window_if_due(m.state, T0 + 10000))
    assert closed[0].seat_seeds == (ANN, b"", b"", b"") and closed[0].missing == (2,)


BAD_SEEDS = {
    "seed of 15 bytes": (0, "ann", b"\x00" * 15, "seed_wrong_length"),
    "seed of 17 bytes": (0, "ann", b"\x00" * 17, "seed_wrong_length"),
    "someone else's seat": (0, "bob", ANN, "not_your_seat"),
    "a bot's seat": (1, "ann", ANN, "bot_seat"),
    "no such seat": (7, "ann", ANN, "unknown_seat"),
}


@pytest.mark.parametrize("seat,player,seed,code", BAD_SEEDS.values(), ids=BAD_SEEDS.keys())
def test_bad_seed_is_refused(seat, player, seed, code) -> None:
    m = opened()
    with pytest.raises(FairnessError) as err:
        submit_seed(m.state, seat, player, seed, T0 + 1000)
    assert err.value.code == code


def test_second_seed_from_a_seat_is_refused() -> None:
    m = opened()
    m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    with pytest.raises(FairnessError) as err:
        submit_seed(m.state, 0, "ann", b"\x09" * 16, T0 + 2000)
    assert err.value.code == "seed_already_sent"


def test_seed_after_the_window_is_refused() -> None:
    m = opened(window=10_000)
    with pytest.raises(FairnessError) as err:
        submit_seed(m.state, 0, "ann", ANN, T0 + 10000)
    assert err.value.code == "seed_window_closed"
    m.do(close_window_if_due(m.state, T0 + 10000))
    with pytest.raises(FairnessError) as err:
        submit_seed(m.state, 2, "bob", BOB, T0 + 10500)
    assert err.value.code == "seed_window_closed"


def seeded() -> Match:
    m = opened()
    m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    m.do(submit_seed(m.state, 2, "bob", BOB, T0 + 1000))
    return m


def beacon_fact(m: Match, at_ms: int) -> DrandRoundBeacon:
    fact = decide_round("quicknet", m.state.drand_round, (b"s" * 48, b"r" * 32, None), at_ms)
    assert isinstance(fact, DrandRoundBeacon)
    return fact


def test_a_round_whose_value_came_in_time_is_one_fact_and_the_match_is_dealt_from_it() -> None:
    m = seeded()
    due = m.state.drand_due_at_ms
    fact = beacon_fact(m, due + 1000)
    assert round_stream(fact.chain, fact.round) == f"drand-quicknet-{m.state.drand_round}"
    (e,) = m.do(round_resolved(m.state, fact, due + 1200))
    assert isinstance(e, DrandBeaconVerified) and e.at_ms == due + 1000, "when the value came"
    assert m.state.drand is not None and m.state.drand.value == b"r" * 32
    assert round_resolved(m.state, fact, due + 1300) == [], "resolved once"


def test_a_missed_round_is_declared_only_at_due_plus_5_and_the_match_falls_back() -> None:
    m = seeded()
    due = m.state.drand_due_at_ms
    with pytest.raises(FairnessError) as err:
        decide_round("quicknet", m.state.drand_round, None, due + DRAND_GRACE_MS - 1)
    assert err.value.code == "not_due"
    fact = decide_round("quicknet", m.state.drand_round, None, due + DRAND_GRACE_MS, "silent")
    assert isinstance(fact, DrandRoundMissed) and fact.due_at_ms == due
    (fb,) = m.do(round_resolved(m.state, fact, due + DRAND_GRACE_MS + 10))
    assert isinstance(fb, DrandFallback) and fb.reason == "silent"
    (late,) = m.do(late_beacon(m.state, m.state.drand_round, b"s" * 48, b"r" * 32, due + 9000))
    assert isinstance(late, DrandBeaconLate)
    assert late_beacon(m.state, m.state.drand_round, b"s" * 48, b"r" * 32, due + 9500) == []
    assert m.state.drand is None and m.state.fallback
    assert m.state.deck_inputs(SEED).drand is None  # dealt from round 0 and zeros


def test_a_value_that_came_after_the_deadline_makes_the_round_missed() -> None:
    m = seeded()
    due = m.state.drand_due_at_ms
    fact = decide_round("quicknet", m.state.drand_round, (b"s" * 48, b"r" * 32, None), due + 6000)
    assert isinstance(fact, DrandRoundMissed)


def test_a_late_value_is_never_recorded_for_a_match_dealt_from_drand() -> None:
    m = seeded()
    m.do(round_resolved(m.state, beacon_fact(m, m.state.drand_due_at_ms + 100), T0 + 5000))
    assert late_beacon(m.state, m.state.drand_round, b"s" * 48, b"r" * 32, T0 + 20_000) == []


def test_a_fact_about_another_round_is_refused() -> None:
    m = seeded()
    other = decide_round("quicknet", m.state.drand_round + 1, (b"s" * 48, b"r" * 32, None), T0)
    with pytest.raises(FairnessError) as err:
        round_resolved(m.state, other, T0 + 3000)
    assert err.value.code == "wrong_round"
    with pytest.raises(FairnessError) as err:
        round_fact_from_payload("DeckIssued", {"deal": 0, "cards": 32, "at_ms": 1})
    assert err.value.code == "bad_payload"


def test_decks_only_once_inputs_are_fixed_and_each_recorded_once() -> None:
    m = opened()
    with pytest.raises(FairnessError) as err:
        issue_deck(m.state, 0, 32, T0)
    assert err.value.code == "inputs_not_fixed"
    m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    m.do(submit_seed(m.state, 2, "bob", BOB, T0 + 1000))
    with pytest.raises(FairnessError):
        issue_deck(m.state, 0, 32, T0 + 2000)  # drand not resolved yet
    m.do(round_resolved(m.state, beacon_fact(m, m.state.drand_due_at_ms), T0 + 3000))
    assert [type(e) for e in m.do(issue_deck(m.state, 0, 32, T0 + 4000))] == [DeckIssued]
    assert m.do(issue_deck(m.state, 0, 32, T0 + 5000)) == []
    m.do(issue_deck(m.state, 1, 32, T0 + 6000))
    assert m.state.decks_issued == (0, 1)
    deck = Shuffler(m.state.deck_inputs(SEED)).deck(1)
    assert len(deck) == 32


def test_reveal_only_at_match_end_and_only_the_committed_seed() -> None:
    m = seeded()
    with pytest.raises(FairnessError) as err:
        reveal(m.state, SEED, match_ended=False, now_ms=T0 + 50000)
    assert err.value.code == "match_not_ended"
    with pytest.raises(FairnessError) as err:
        reveal(m.state, bytes(32), match_ended=True, now_ms=T0 + 50000)
    assert err.value.code == "seed_mismatch"
    (e,) = m.do(reveal(m.state, SEED, match_ended=True, now_ms=T0 + 50000))
    assert isinstance(e, ServerSeedRevealed) and e.server_seed == SEED
    assert reveal(m.state, SEED, match_ended=True, now_ms=T0 + 51000) == []
    with pytest.raises(FairnessError):
        issue_deck(m.state, 5, 32, T0 + 52000)


def test_events_round_trip_through_payloads_and_replay_rebuilds_state() -> None:
    m = seeded()
    fact = beacon_fact(m, m.state.drand_due_at_ms)
    m.do(round_resolved(m.state, fact, T0 + 3000))
    m.do(issue_deck(m.state, 0, 24, T0 + 4000))
    m.do(reveal(m.state, SEED, match_ended=True, now_ms=T0 + 60000))
    payloads = [to_payload(e) for e in m.events]
    # the event log hashes exact JSON and refuses floats: times are integer milliseconds
    assert not [v for p in payloads for v in p.values() if isinstance(v, float)]
    decoded = [from_payload(type(e).TYPE, p) for e, p in zip(m.events, payloads, strict=True)]
    assert decoded == m.events
    assert replay(decoded) == m.state
    assert round_fact_from_payload(fact.TYPE, to_payload(fact)) == fact


def test_a_commitment_recorded_before_the_last_round_existed_reads_as_none() -> None:
    (e,) = opened().events
    old = {k: v for k, v in to_payload(e).items() if k != "last_round"}
    assert from_payload("ServerSeedCommitted", old).last_round == 0


def test_a_commitment_recorded_before_the_lead_reads_as_lead_0_and_names_the_next_round() -> None:
    (e,) = opened().events
    assert to_payload(e)["round_lead_ms"] == ROUND_LEAD_MS
    old = {k: v for k, v in to_payload(e).items() if k != "round_lead_ms"}
    upcast = from_payload("ServerSeedCommitted", old)
    assert isinstance(upcast, ServerSeedCommitted) and upcast.round_lead_ms == 0
    m = Match()
    m.do([upcast])
    m.do(submit_seed(m.state, 0, "ann", ANN, T0 + 1000))
    *_, named = m.do(submit_seed(m.state, 2, "bob", BOB, T0 + 2000))
    assert isinstance(named, DrandRoundNamed) and named.round == 1001


def test_malformed_payload_is_a_clear_error() -> None:
    with pytest.raises(FairnessError) as err:
        from_payload("SeatSeedReceived", {"seat": 0, "seed": "zz", "at": 1.0})
    assert err.value.code == "bad_payload"
    with pytest.raises(FairnessError) as err:
        from_payload("Nope", {})
    assert err.value.code == "unknown_event"
