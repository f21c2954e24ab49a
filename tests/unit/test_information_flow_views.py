"""What a table worker serves from its state (docs/threat-model.md, "Hidden cards stay
hidden"): a seat's view (the table's ``view`` reply and the ``turn`` message the gateway
forwards), a spectator's view, and what the table waits for (its ``state`` notice), after
every append of twin matches (:mod:`tests.twins`) whose other seats' cards differ, are
the same, byte for byte, as long as the twins are alike in public. The channels that
read the log are held to the same in tests/integration/test_information_flow.py."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from belot import RULESETS, due, replay, view
from belot.codec import from_payload
from belot.events import EVENT_TYPES
from table.views import public_view, view_to_json
from tests.twins import ACROSS, WITHIN, Twins, hidden_differs, make_twins
from tools.matchgen import MatchSpec


def spec_for(ruleset: str) -> MatchSpec:
    players = ("ann", "bob") if ruleset == "gambler" else ("ann", "bob", "cat", "dan")
    return MatchSpec(
        match_id=f"flow-{ruleset}", ruleset=ruleset, label=f"flow-{ruleset}", players=players,
        target=300,
    )  # fmt: skip


def served_by_the_worker(twins: Twins, appends: list[Any], upto: int) -> list[bytes]:
    """What the worker would serve after ``appends[:upto]``: each seat's reply as seen by
    the observer (its own view), a spectator's, and the state notice's facts."""
    stream = f"match-{twins.spec.match_id}"
    events = [
        from_payload(e.payload)
        for a in appends[:upto]
        if a.stream == stream
        for e in a.events
        if e.type in EVENT_TYPES
    ]
    if not events:
        return []
    rules = RULESETS[twins.spec.ruleset]
    state = replay(rules, events)
    d = due(state)
    return [
        orjson.dumps(view_to_json(view(state, twins.observer))),
        orjson.dumps(public_view(view(state, 0))),
        orjson.dumps({"due": d.kind.value, "turn": d.seat, "deal_number": d.deal_number}),
    ]


@pytest.mark.parametrize("mode", [WITHIN, ACROSS])
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_worker_serves_the_same_whatever_the_other_seats_hold(ruleset: str, mode: str) -> None:
    twins = make_twins(spec_for(ruleset), 0, mode)
    assert hidden_differs(twins)
    if mode == WITHIN:  # every move stays legal and public to the end
        assert twins.same == len(twins.a) == len(twins.b)
    compared = 0
    for upto in range(1, twins.during + 1):
        a = served_by_the_worker(twins, twins.a, upto)
        b = served_by_the_worker(twins, twins.b, upto)
        assert a == b, (upto, [x for x, y in zip(a, b, strict=True) if x != y])
        compared += bool(a)
    assert compared >= (40 if mode == WITHIN else 4)


def test_the_comparison_can_fail() -> None:
    """The control: twins made for the player at seat 1 move seat 0's cards too; seat 0's
    own view shows them, so served to seat 0 the twins differ, while seat 1 sees the same."""
    twins = make_twins(spec_for("club"), 1, WITHIN)
    seat0 = Twins(twins.spec, 0, twins.a, twins.b, twins.same, twins.end)
    differ = same = 0
    for upto in range(1, twins.during + 1):
        a, b = (
            served_by_the_worker(seat0, twins.a, upto),
            served_by_the_worker(seat0, twins.b, upto),
        )
        differ += a[:1] != b[:1]
        assert served_by_the_worker(twins, twins.a, upto) == served_by_the_worker(
            twins, twins.b, upto
        )
        same += bool(a)
    assert differ > 0 and same > differ
