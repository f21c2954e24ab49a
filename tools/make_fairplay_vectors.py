"""Build tests/data/fairplay-chances.json: the chances the fair-play measure computes
(belot.fairplay) for every card of the first deal of two golden matches: the worlds with
a choice, those in which the card played was best, and the card best in the most.

The stored evidence of every account (the verify service's fair-play job) holds chances
computed by one model of what a seat knows (the hard bot's worlds, solved exactly), named
by ``belot.fairplay.METHOD``. When the model changes what a decision's worlds say, these
figures change and ``tests/unit/test_fairplay_method.py`` fails: change METHOD (the job
then computes every analysed match again under the new name) and rebuild this file, on
purpose only:

    python tools/make_fairplay_vectors.py > tests/data/fairplay-chances.json
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


def chances_of(match: dict[str, Any]) -> list[list[Any]]:
    """Every card played in the match's first deal where the deal gave a choice: the card,
    its worlds with a choice, those in which it was best, and the likeliest best card."""
    ruleset = RULESETS[match["ruleset"]]
    events = first_deal(match)
    made = decisions(ruleset, events, analyse(ruleset, events, contracts=False))
    return [[d.played, d.worlds, d.hits, d.likeliest] for d in made if d.choice]


def vectors() -> dict[str, Any]:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["matches"]
    return {
        "about": "belot.fairplay's chances; see tools/make_fairplay_vectors.py",
        "method": METHOD,
        "chances": {
            m["ruleset"]: chances_of(m) for m in golden if m["ruleset"] in RULESETS_TAKEN
        },
    }


if __name__ == "__main__":
    sys.stdout.buffer.write(json.dumps(vectors(), indent=1).encode("utf-8") + b"\n")
