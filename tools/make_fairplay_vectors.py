"""Build tests/data/fairplay-known-best.json: the known-best cards the fair-play measure
computes (belot.fairplay) on the first deal of two golden matches.

The stored evidence of every account (the verify service's fair-play job) holds known-best
cards computed by one version of the hard bot, named by ``belot.fairplay.METHOD``. When
the bot changes what it plays, these cards change and
``tests/unit/test_fairplay_method.py`` fails: change METHOD (the job then computes every
analysed match again under the new name) and rebuild this file, on purpose only:

    python tools/make_fairplay_vectors.py > tests/data/fairplay-known-best.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

from belot import RULESETS
from belot.analysis import analyse
from belot.codec import from_payload
from belot.events import CardPlayed, Event
from belot.fairplay import METHOD, decisions

GOLDEN = Path(__file__).resolve().parents[1] / "tests/data/game-golden.json"
#: A four-seat ruleset and the two-seat one: the bot's two kinds of worlds.
RULESETS_TAKEN = ("club", "gambler")


def first_deal(match: dict[str, Any]) -> list[Event]:
    """A golden match's events up to its first deal's last card."""
    ruleset = RULESETS[match["ruleset"]]
    events: list[Event] = [from_payload(match["started"])]
    cards = 0
    for step in match["steps"]:
        for payload in step["events"]:
            if cards == ruleset.players * ruleset.tricks:
                return events
            event = from_payload(payload)
            events.append(event)
            cards += isinstance(event, CardPlayed)
    return events


def known_best_cards(match: dict[str, Any]) -> list[str]:
    """The known-best card of every card played in the match's first deal."""
    ruleset = RULESETS[match["ruleset"]]
    events = first_deal(match)
    made = decisions(ruleset, events, analyse(ruleset, events, contracts=False))
    return [d.known_best for d in made]


def vectors() -> dict[str, Any]:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["matches"]
    return {
        "about": "belot.fairplay's known-best cards; see tools/make_fairplay_vectors.py",
        "method": METHOD,
        "known_best": {
            m["ruleset"]: known_best_cards(m) for m in golden if m["ruleset"] in RULESETS_TAKEN
        },
    }


if __name__ == "__main__":
    sys.stdout.buffer.write(json.dumps(vectors(), indent=1).encode("utf-8") + b"\n")
