"""A bot's random generator is seeded by what a new owner of the table can read in the log
and no player can before the end (docs/threat-model.md, "Hidden cards stay hidden")."""

from __future__ import annotations

from belot import RULESETS, SupplyDeck, decide, evolve, new_match
from belot.cards import FULL_DECK
from belot.salts import SALT_SIZE, salt_count
from services.table.table import bot_seed


def test_the_seed_holds_the_deals_secret_salt() -> None:
    rules = RULESETS["club"]
    start = new_match(rules, "m")
    salts = tuple(bytes([i]) * SALT_SIZE for i in range(salt_count(4)))
    salted = unsalted = start
    for e in decide(start, SupplyDeck(0, FULL_DECK, salts)):
        salted = evolve(salted, e)
    for e in decide(start, SupplyDeck(0, FULL_DECK)):
        unsalted = evolve(unsalted, e)
    assert bot_seed(salted, "m", 7) == f"m:7:{salts[0].hex()}"
    assert bot_seed(unsalted, "m", 7) == "m:7"  # a match from before salts, as it was
    assert bot_seed(start, "m", 0) == "m:0"  # no deal yet
