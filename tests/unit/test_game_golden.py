"""Golden matches and perft counts: regressions in any rule show up as a diff.

``tests/data/game-golden.json`` (built by ``tools/make_game_golden.py``) holds one short
match per ruleset as the commands that went in and the events that came out; every
command is fed back through ``decide`` and must give exactly those events. Its decks are
``fairdeal``'s, and the test recomputes them (and the salts of the hidden events) from the
recorded server seed, as a verifier would.

Perft, after python-chess: the number of legal move sequences of a given length from a
fixed position (optional actions such as belote or melds count as moves). The counts
pin legal-move generation; they were recorded from this implementation, each checked by
hand at depth 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from belot import RULESETS, Bid, Strain, decide, evolve, legal_moves, new_match
from belot.codec import command_from_payload, from_payload, to_payload
from belot.commands import SupplyDeck
from belot.match import Match, replay
from belot.salts import salt_count
from fairdeal import DeckInputs, Shuffler, deal_salts

GOLDEN = json.loads(
    (Path(__file__).resolve().parents[1] / "data/game-golden.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("match", GOLDEN["matches"], ids=lambda m: m["ruleset"])
def test_golden_match(match: dict) -> None:
    ruleset = RULESETS[match["ruleset"]]
    started = from_payload(match["started"])
    state = replay(ruleset, [started])
    log = [started]
    seed, players = bytes.fromhex(match["server_seed"]), ruleset.players
    shuffler = Shuffler(DeckInputs(seed, (b"",) * players, None))
    for step in match["steps"]:
        command = command_from_payload(step["command"])
        if isinstance(command, SupplyDeck):
            assert command.cards == shuffler.deck(command.deal_number)
            assert command.salts == deal_salts(seed, command.deal_number, salt_count(players))
        events = decide(state, command)
        assert [to_payload(e) for e in events] == step["events"]
        for e in events:
            state = evolve(state, e)
        log += events
    assert state.result is not None
    assert replay(ruleset, log) == state


def perft(state: Match, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in legal_moves(state):
        after = state
        for e in decide(state, move):
            after = evolve(after, e)
        total += perft(after, depth - 1)
    return total


def _after_bidding(name: str, strain: Strain) -> Match:
    ruleset = RULESETS[name]
    deck = Shuffler(DeckInputs(bytes(32), (b"",) * ruleset.players, None)).deck(0)
    state = new_match(ruleset)
    for cmd in (SupplyDeck(0, deck), Bid((0 + 1) % ruleset.players, strain)):
        for e in decide(state, cmd):
            state = evolve(state, e)
    return state


# (ruleset, contract) -> perft counts at depths 1, 2, 3, 4, 5 from the first card.
PERFT: dict[tuple[str, Strain], list[int]] = {
    # Seat 1 leads 8 cards; club adds its spade tierce's declaration; gambler 9 cards.
    ("classic", Strain.SPADES): [8, 20, 62, 126, 882],
    ("club", Strain.SPADES): [9, 36, 106, 252, 914],
    # French from depth 3: the third seat, whose partner led, need not trump (004).
    ("french", Strain.SPADES): [8, 20, 86, 174, 1218],
    ("gambler", Strain.CLUBS): [9, 20, 160, 336, 2352],
}


@pytest.mark.parametrize(("name", "strain"), list(PERFT), ids=lambda x: str(x))
def test_perft(name: str, strain: Strain) -> None:
    state = _after_bidding(name, strain)
    counts = [perft(state, d) for d in range(1, 6)]
    assert counts == PERFT[name, strain]
