"""The pure parts of the table and gateway services: table options and seats, the rating
contract's payload, the first dealer, tokens, rate limits, visibility, views as JSON."""

from __future__ import annotations

import random
import stat

import orjson
import pytest

from belot import RULESETS, DueKind, SupplyDeck, decide, due, evolve, new_match, view
from belot.bots import choose
from belot_platform.errors import ServiceError
from fairdeal import DeckInputs, Shuffler
from services.gateway.domain import (
    Identity,
    RateLimiter,
    TokenError,
    Tokens,
    may_see,
    token_secret,
)
from services.gateway.handlers import parse_whole
from services.table import domain
from services.table.domain import TableError
from table import events as table_events
from table import state as table_state
from table.views import public_view, view_from_json, view_to_json


def opened(**body: object) -> table_state.TableState:
    options = domain.parse_options({"ruleset": "club", **body}, 30_000)
    payload = table_events.to_payload(domain.opened("t1", "t1-1", options, "ann", 1))
    return table_state.evolve(table_state.TableState(), table_state.TABLE_OPENED, payload)


BAD_OPTIONS = {
    "no ruleset": {"ruleset": "poker"},
    "three seats": {"seats": ["human"] * 3},
    "bad level": {"seats": ["bot:genius", "human", "human", "human"]},
    "bad kind": {"seats": [{"kind": "alien"}, "human", "human", "human"]},
    "target zero": {"target": 0},
    "target float": {"target": 500.5},
    "turn too short": {"turn_seconds": 0.01},
    "fallback": {"fallback_level": "godlike"},
    "rated text": {"rated": "yes"},
}


@pytest.mark.parametrize("body", BAD_OPTIONS.values(), ids=BAD_OPTIONS.keys())
def test_bad_table_options_are_refused(body: dict) -> None:
    with pytest.raises(TableError) as err:
        domain.parse_options({"ruleset": "club", **body}, 30_000)
    assert err.value.code == "bad_request" and err.value.message


def test_seats_are_taken_once_by_humans() -> None:
    state = opened(seats=["human", "bot:easy", "human", "bot"])
    assert state.seats[3].config.level == "medium"
    taken = domain.take_seat(state, 0, "ann", 2)
    state = table_state.apply(state, taken)
    cases = [
        (0, "bob", "seat_taken"),
        (1, "bob", "bot_seat"),
        (2, "ann", "already_seated"),
        (7, "bob", "unknown_seat"),
    ]
    for seat, player, code in cases:
        with pytest.raises(TableError) as err:
            domain.take_seat(state, seat, player, 3)
        assert err.value.code == code
    assert not state.all_seated
    state = table_state.apply(state, domain.take_seat(state, 2, "bob", 4))
    assert state.all_seated and state.seat_of("bob") == 2
    assert domain.seat_for(state, "bob", None) == 2
    with pytest.raises(TableError, match="not_your_seat"):
        domain.seat_for(state, "bob", 0)
    with pytest.raises(TableError, match="not_your_seat"):
        domain.seat_for(state, "carol", None)


def test_a_reserved_seat_is_kept_for_its_player() -> None:
    state = opened(ruleset="gambler", seats=[{"kind": "human", "player": "ann"}, "bot:easy"])
    assert state.seats[0].config.reserved == "ann"
    assert table_state.summary(state)["seats"][0]["reserved"] == "ann"
    with pytest.raises(TableError) as err:
        domain.take_seat(state, 0, "bob", 2)
    assert err.value.code == "seat_reserved"
    state = table_state.apply(state, domain.take_seat(state, 0, "ann", 3))
    assert state.all_seated
    # An unreserved seat's payload is what it always was.
    assert table_state.SeatConfig(table_state.HUMAN).to_json() == {"kind": "human", "level": None}
    with pytest.raises(TableError):
        domain.parse_options({"ruleset": "gambler", "seats": [{"kind": "human", "player": 3},
                                                              "human"]}, 30_000)  # fmt: skip


def test_the_rating_contract_payload() -> None:
    state = opened(rated=False)
    fair = {
        "match_id": "t1-1",
        "commitment": "00" * 32,
        "window_closes_at_ms": 5,
        "chain": "quicknet",
        "at_ms": 5,
        "seats": [{"seat": n, "player": p} for n, p in enumerate(["a", None, "c", None])],
    }
    state = table_state.evolve(state, table_state.FAIR_DEAL_OPENED, fair)
    finished = domain.match_finished(state, winner=1, finished=False, leaver=0, now_ms=9)
    payload = table_events.to_payload(finished)
    assert payload == {
        "match_id": "t1-1",
        "ruleset": "club",
        "seats": [
            {"seat": 0, "player": "a"},
            {"seat": 1, "player": None},
            {"seat": 2, "player": "c"},
            {"seat": 3, "player": None},
        ],
        "winner": 1,
        "finished": False,
        "leaver": 0,
        "finished_at_ms": 9,
        "rated": False,
    }
    assert table_events.from_payload(finished.TYPE, payload) == finished
    forfeits = [
        domain.forfeited(RULESETS["club"], 2),
        domain.forfeited(RULESETS["gambler"], 1, "ab" * 64),
    ]
    assert [table_events.to_payload(f) for f in forfeits] == [
        {"leaver": 2, "winner_side": 1, "signature": ""},
        {"leaver": 1, "winner_side": 0, "signature": "ab" * 64},
    ]
    # A forfeit recorded before signed leaves reads back with no signature.
    old = table_events.from_payload("MatchForfeited", {"leaver": 2, "winner_side": 1})
    assert old == domain.forfeited(RULESETS["club"], 2)


def test_a_rotated_secret_keeps_the_old_tokens_until_the_previous_one_is_dropped() -> None:
    old, new = "o" * 32, "n" * 32
    before = Tokens(old, 3600).issue(Identity("id-1", "ann"))
    rotating = Tokens(new, 3600, previous=old)
    assert rotating.check(before) == Identity("id-1", "ann")  # no session ends
    after = rotating.issue(Identity("id-2", "bob"))
    assert Tokens(new, 3600).check(after) == Identity("id-2", "bob")  # signed with the new
    with pytest.raises(TokenError):
        Tokens(old, 3600).check(after)
    with pytest.raises(TokenError):  # the rotation over: the old tokens are refused
        Tokens(new, 3600).check(before)


def test_tokens_round_trip_and_refuse_forgeries(tmp_path) -> None:
    tokens = Tokens("k" * 32, 3600)
    token = tokens.issue(Identity("id-1", "ann"))
    assert tokens.check(token) == Identity("id-1", "ann")
    # One character of the signature changed (not its last: base64's last character has
    # bits no byte uses, and "xx" there can decode to the very same signature).
    changed = token[:-10] + ("A" if token[-10] != "A" else "B") + token[-9:]
    for bad in (changed, "nonsense", Tokens("other" * 8, 3600).issue(Identity("x", "y"))):
        with pytest.raises(TokenError):
            tokens.check(bad)
    expired = Tokens("k" * 32, -1)
    with pytest.raises(TokenError, match="expired"):
        expired.check(token)
    secret = token_secret(None, tmp_path)
    assert token_secret(None, tmp_path) == secret and len(secret) == 64
    assert stat.S_IMODE((tmp_path / "gateway-token-secret").stat().st_mode) == 0o600
    assert token_secret("configured-secret!", tmp_path) == "configured-secret!"


def test_rate_limiter_is_a_token_bucket() -> None:
    limiter = RateLimiter(rate=2.0, burst=3)
    assert [limiter.take("a", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("a", 0.0) == pytest.approx(0.5)
    assert limiter.take("b", 0.0) == 0.0  # another key, another bucket
    assert limiter.take("a", 0.6) == 0.0  # refilled one after half a second


@pytest.mark.parametrize(
    "text", ["99999999999999999999999", "4", "-1", "+1", " 1", "1_0", "\u0661", "1.0", ""]
)
def test_a_number_in_a_path_is_ascii_digits_within_bounds(text: str) -> None:
    with pytest.raises(ServiceError) as info:
        parse_whole(text, "the seat", 0, 3)
    assert (info.value.code, info.value.status) == ("bad_request", 400)
    assert info.value.message == "the seat is a whole number from 0 to 3"


def test_path_numbers_and_error_statuses() -> None:
    assert [parse_whole(t, "the seat", 0, 3) for t in ("0", "3", "03")] == [0, 3, 3]
    assert ServiceError("internal", "a bug").status == 500  # not the refusals' 409
    assert ServiceError("unknown_seat", "no such seat").status == 400
    assert ServiceError("not_your_turn", "wait").status == 409


def test_visibility() -> None:
    assert may_see("public", None, False)
    assert may_see("seat:2", 2, False) and not may_see("seat:2", 1, False)
    assert not may_see("seat:2", None, False) and not may_see("secret", 2, False)
    assert may_see("secret", None, True) and may_see("seat:1", 3, True)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_views_survive_json(ruleset: str) -> None:
    rules = RULESETS[ruleset]
    state = new_match(rules, "m", target=300)
    shuffler = Shuffler(DeckInputs(b"\x07" * 32, (b"",) * rules.players, None))
    rng = random.Random(5)
    while due(state).kind is not DueKind.NOTHING:
        d = due(state)
        if d.kind is DueKind.DECK:
            command = SupplyDeck(d.deal_number, shuffler.deck(d.deal_number, rules.deck_size))
        else:
            assert d.seat is not None
            v = view(state, d.seat)
            again = view_from_json(orjson.loads(orjson.dumps(view_to_json(v))))
            assert again == v
            spectator = public_view(v)
            assert spectator["hand"] == [] and spectator["legal"] == []
            command = choose(again, rng, "medium")
        for e in decide(state, command):
            state = evolve(state, e)
