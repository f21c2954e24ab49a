"""A bot's move gets the generator a move seeded by its match and version gets: seeded
only when the bot draws from it (services.table.table.SeededOnUse)."""

from __future__ import annotations

import random
from typing import cast

from belot import RULESETS, SupplyDeck, decide, due, evolve, new_match, view
from belot.bots import choose
from fairdeal import DeckInputs, Shuffler
from services.table.table import SeededOnUse


def test_it_draws_the_numbers_of_the_generator_seeded_so() -> None:
    lazy, eager = SeededOnUse("m-1:17"), random.Random("m-1:17")
    assert [lazy.random() for _ in range(3)] == [eager.random() for _ in range(3)]
    items, same = list(range(20)), list(range(20))
    lazy.shuffle(items)
    eager.shuffle(same)
    assert items == same and lazy.randrange(1000) == eager.randrange(1000)


def test_every_level_chooses_as_with_the_seeded_generator() -> None:
    ruleset = RULESETS["club"]
    digest = bytes(range(32))
    shuffler = Shuffler(DeckInputs(digest, (b"",) * ruleset.players, None))
    state = new_match(ruleset, "m-1")
    version, moves = 1, 0
    while moves < 40:
        d = due(state)
        if d.seat is None:
            command = SupplyDeck(d.deal_number, shuffler.deck(d.deal_number, ruleset.deck_size))
        else:
            seen = view(state, d.seat)
            for level in ("easy", "medium"):
                lazy = cast(random.Random, SeededOnUse(f"m-1:{version}"))
                assert choose(seen, lazy, level) == choose(
                    seen, random.Random(f"m-1:{version}"), level
                )
            budget = 4  # the hard bot draws: play-outs, few of them
            lazy = cast(random.Random, SeededOnUse(f"m-1:{version}"))
            hard = choose(seen, lazy, "hard", budget)
            assert hard == choose(seen, random.Random(f"m-1:{version}"), "hard", budget)
            command = choose(seen, random.Random(f"m-1:{version}"), "medium")
            moves += 1
        events = decide(state, command)
        for e in events:
            state = evolve(state, e)
        version += len(events)
