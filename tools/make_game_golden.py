"""Build tests/data/game-golden.json: whole matches as commands in, events out.

One short match per ruleset (target 300) between medium bots on fair-deal decks, with
the fair deal's salts of the hidden events (belot.salts). The
test feeds every command back through ``decide`` and compares the events exactly, so a
change in any rule shows up as a diff in this file. Rebuild only on purpose:

    python tools/make_game_golden.py > tests/data/game-golden.json
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libs"))

from belot import RULESETS, decide, due, evolve, new_match, started_event, view
from belot.bots import choose
from belot.codec import command_to_payload, to_payload
from belot.commands import SupplyDeck
from belot.match import DueKind
from belot.salts import salt_count
from fairdeal import DeckInputs, Shuffler, deal_salts

TARGET = 300


def record(name: str) -> dict[str, object]:
    ruleset = RULESETS[name]
    n = ruleset.players
    seed = hashlib.sha256(f"golden/{name}".encode()).digest()
    shuffler = Shuffler(DeckInputs(seed, (b"",) * n, None))
    rng = random.Random(name)
    levels = ["medium", "easy"] * (n // 2)
    state = new_match(ruleset, f"golden-{name}", target=TARGET, first_dealer=1)
    steps = []
    while (d := due(state)).kind is not DueKind.NOTHING:
        if d.kind is DueKind.DECK:
            k = d.deal_number
            command = SupplyDeck(k, shuffler.deck(k), deal_salts(seed, k, salt_count(n)))
        else:
            assert d.seat is not None
            command = choose(view(state, d.seat), rng, levels[d.seat])
        events = decide(state, command)
        for e in events:
            state = evolve(state, e)
        steps.append(
            {"command": command_to_payload(command), "events": [to_payload(e) for e in events]}
        )
    return {
        "ruleset": name,
        "server_seed": seed.hex(),
        "started": to_payload(
            started_event(new_match(ruleset, f"golden-{name}", target=TARGET, first_dealer=1))
        ),
        "steps": steps,
    }


def main() -> None:
    # One step per line, so that a rule change reads as a small diff.
    out = ['{"about": "commands in, events out; see tools/make_game_golden.py",', '"matches": [']
    matches = [record(name) for name in sorted(RULESETS)]
    for i, m in enumerate(matches):
        head = {k: v for k, v in m.items() if k != "steps"}
        out.append(json.dumps(head)[:-1] + ', "steps": [')
        steps = [json.dumps(step, separators=(",", ":")) for step in m["steps"]]  # type: ignore[attr-defined]
        out.append(",\n".join(steps))
        out.append("]}" + ("," if i < len(matches) - 1 else ""))
    out.append("]}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
