"""Hidden cards stay hidden (docs/threat-model.md): a player's search of the other seats'
cards against the hashes of a running match.

The red team first: in a match of the rule before salts, served as the gateway and the
verify API served it then (every public event's hash, and a seat's own), the search
(:mod:`tests.hidden`) finds every completion packet that lies alone between two served
events, exactly, in a fraction of a second. Then the two defences, each on its own:

- the salts (:mod:`belot.salts`): given the very hashes the log holds (what a reader of
  its rows, or a channel that forgot to withhold them, would have), the same search over
  the same guesses finds nothing, whatever it guesses the salt to be;
- the serving: nothing served during the match carries a hash of the match's stream, so
  there is nothing to test a guess against (tests/integration/test_information_flow.py
  holds every channel to this, byte for byte).
"""

from __future__ import annotations

import pytest

from tests.hidden import completion_search, served
from tools.matchgen import MatchSpec, envelopes, generate

RULESETS = ("club", "classic", "french", "gambler")


def _match(ruleset: str, *, salted: bool) -> list[dict]:
    n = 2 if ruleset == "gambler" else 4
    spec = MatchSpec(
        match_id=f"hide-{ruleset}",
        ruleset=ruleset,
        label=f"hidden-{ruleset}",
        players=("ann", "bob") if n == 2 else ("ann", "bob", "cat", "dan"),
        salted=salted,
        target=400,
    )
    events = envelopes(generate(spec))[f"match-{spec.match_id}"]
    assert events[-1]["type"] == "MatchEnded"
    return events[:-1]  # as the match runs: every event before its end


def _true_packet(events: list[dict], version: int) -> tuple[str, ...]:
    (e,) = [e for e in events if e["version"] == version]
    return tuple(e["payload"]["cards"])


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_old_rule_gives_a_seats_cards_away(ruleset: str) -> None:
    events = _match(ruleset, salted=False)
    found = 0
    for seat in range(2 if ruleset == "gambler" else 4):
        view = served(events, seat, hashes=True)
        # The payload as the rule before salts writes it (its salt empty): known to all.
        for s in completion_search(view, ruleset, seat, payload_extra=({"salt": ""},)):
            # The one guess that rebuilds the served hash is the seat's true packet.
            assert s.found == (_true_packet(events, s.version),), (seat, s)
            found += 1
    assert found >= 4  # every deal gives some seat another's completion


@pytest.mark.parametrize("ruleset", RULESETS)
def test_salted_hashes_give_nothing_away(ruleset: str) -> None:
    events = _match(ruleset, salted=True)
    # The salts are there, and each seat's differs (belot.salts).
    salts = [e["payload"]["salt"] for e in events if e["type"] == "CardsDealt"]
    assert all(len(s) == 32 for s in salts) and len(set(salts)) == len(salts)
    guesses = ({}, {"salt": ""}, {"salt": "00" * 16})  # no salt, an empty one, zeros
    searched = 0
    for seat in range(2 if ruleset == "gambler" else 4):
        for s in completion_search(
            served(events, seat, hashes=True), ruleset, seat, payload_extra=guesses
        ):
            assert s.found == (), (seat, s)
            assert s.tried >= 3 * 20 * 19  # the whole space the old rule fell to
            searched += 1
    assert searched >= 4


@pytest.mark.parametrize("ruleset", RULESETS)
def test_without_hashes_there_is_nothing_to_search(ruleset: str) -> None:
    """As served now: no hash of the running match, so not one guess can be tested (the
    search would find every packet of the old rule above)."""
    events = _match(ruleset, salted=False)
    for seat in (None, *range(2 if ruleset == "gambler" else 4)):
        view = served(events, seat, hashes=False)
        assert view and all(e["hash"] is None for e in view)
        assert completion_search(view, ruleset, 0 if seat is None else seat) == []
