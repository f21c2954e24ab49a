"""Twin matches for the information-flow tests (docs/threat-model.md, "Hidden cards stay
hidden"): two matches alike in everything public, moves, times, seeds, ids and salts
included, whose other seats' hidden cards differ.

Match ``a`` is :func:`tools.matchgen.generate`'s; match ``b`` plays the very moves made in
``a`` on decks whose hidden positions are shuffled (the observer's own cards, the turned
card and gambler's shown bottom card stay where they are). Two ways:

- ``within``: each other seat's cards are shuffled among its own places (which come in
  the first distribution and which in the completion, and in what order). Every move of
  ``a`` stays legal and every public event the same to the match's end.
- ``across``: the cards of all the other seats (and those nobody is dealt) are shuffled
  together in the first deal that is played (not thrown in). The twins are alike until
  a moved card is played (or a meld or belote depends on it): :attr:`Twins.same` is
  where they part.

Whatever is served to the observer while the twins are alike must then be the same, byte
for byte: anything else is a function of the cards the observer may not see.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from belot import RULESETS, deal_pattern
from belot.cards import Card
from belot.commands import Command
from tools.matchgen import Append, Diverged, MatchSpec, generate

WITHIN = "within"
ACROSS = "across"


@dataclass
class _DealFacts:
    dealer: int = 0
    taker: int | None = None
    misere: bool = False
    completed: bool = False


@dataclass
class Twins:
    spec: MatchSpec
    observer: int
    a: list[Append]
    b: list[Append]
    #: Appends ``0 .. same - 1`` are alike in everything public (and ``a[same]`` differs).
    same: int
    #: The index of the append that ends the match (MatchEnded/Forfeited/Aborted).
    end: int
    moves: list[Command] = field(default_factory=list)

    @property
    def during(self) -> int:
        """How many appends of the twins are both alike and before the match's end."""
        return min(self.same, self.end)


def _deal_facts(appends: Sequence[Append], match_stream: str) -> dict[int, _DealFacts]:
    facts: dict[int, _DealFacts] = {}
    deal: _DealFacts | None = None
    for a in appends:
        if a.stream != match_stream:
            continue
        for e in a.events:
            p = e.payload
            if e.type == "DealStarted":
                deal = facts[p["deal_number"]] = _DealFacts(dealer=p["dealer"])
            elif deal is None:
                continue
            elif e.type == "ContractTaken":
                deal.taker, deal.completed = p["seat"], True
            elif e.type == "MisereStarted":
                deal.misere, deal.completed = True, True
    return facts


def _places(ruleset: str, facts: _DealFacts) -> tuple[list[list[int]], list[int]]:
    """Each seat's places in the deck this deal (first distribution, then completion), and
    the places nobody is dealt; the turned card's and a shown card's are in neither."""
    rules = RULESETS[ruleset]
    n, pattern = rules.players, deal_pattern(rules)
    fixed = {pattern.turned}
    by_seat: list[list[int]] = []
    for seat in range(n):
        offset = (seat - facts.dealer) % n
        places = list(pattern.first[offset])
        if facts.completed:
            if facts.misere:
                assert pattern.completion_without_taker is not None
                places += pattern.completion_without_taker[offset]
            else:
                assert facts.taker is not None
                places += pattern.completion[(facts.taker - facts.dealer) % n][offset]
        by_seat.append([i for i in places if i not in fixed])
    if facts.completed and pattern.shown is not None:
        fixed.add(pattern.shown)
    if pattern.first_dealer_from is not None:
        fixed.add(pattern.first_dealer_from)  # it names the first dealer: public
    dealt = {i for places in by_seat for i in places}
    nobody = [i for i in range(rules.deck_size) if i not in dealt and i not in fixed]
    return by_seat, nobody


def make_twins(spec: MatchSpec, observer: int, mode: str, seed: int = 0) -> Twins:
    """Twins of ``spec``'s match for a player at seat ``observer`` (module docstring)."""
    made: list[Command] = []
    a = generate(spec, made=made)
    match_stream = f"match-{spec.match_id}"
    facts = _deal_facts(a, match_stream)
    rng = random.Random(f"twins/{spec.label}/{mode}/{seed}")

    played = min(k for k, f in facts.items() if f.completed)  # the first deal played

    def deck_of(k: int, deck: tuple[Card, ...]) -> tuple[Card, ...]:
        if k not in facts or (mode == ACROSS and k != played):
            return deck
        by_seat, nobody = _places(spec.ruleset, facts[k])
        others = [places for seat, places in enumerate(by_seat) if seat != observer]
        groups = [*others, nobody] if mode == WITHIN else [[i for g in others for i in g] + nobody]
        out = list(deck)
        for _ in range(100):  # a shuffle that moves something
            for group in groups:
                cards = [deck[i] for i in group]
                rng.shuffle(cards)
                for i, c in zip(group, cards, strict=True):
                    out[i] = c
            if tuple(out) != deck:
                return tuple(out)
        raise AssertionError(f"deal {k}: no hidden card to move")

    try:
        b = generate(spec, moves=made, deck_of=deck_of)
    except Diverged as diverged:
        b = diverged.appends
    same = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if _public(x) != _public(y)),
        min(len(a), len(b)),
    )
    end = next(
        i
        for i, x in enumerate(a)
        if x.stream == match_stream
        and any(e.type in ("MatchEnded", "MatchForfeited", "MatchAborted") for e in x.events)
    )
    return Twins(spec, observer, a, b, same, end, made)


def _public(append: Append) -> Any:
    """What anyone may see of an append: everything but the hidden events' payloads."""
    return (
        append.stream,
        append.at_ms,
        [
            (e.type, e.visibility, dict(e.metadata), e.payload if e.visibility == "public" else 0)
            for e in append.events
        ],
    )


def hidden_differs(twins: Twins) -> bool:
    """Do the twins' hidden events differ before they part (the test would show nothing
    otherwise)?"""
    return any(
        [e.payload for e in x.events] != [e.payload for e in y.events]
        for x, y in zip(twins.a[: twins.during], twins.b[: twins.during], strict=True)
    )
