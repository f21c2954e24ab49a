"""The stored fair-play evidence names the bot that computed it (belot.fairplay.METHOD):
the known-best cards of two golden deals are pinned, so a change in what the hard bot
plays fails here until the method's name changes (and the verify job computes every
match again under it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import belot.fairplay
from belot.fairplay import METHOD
from tools.make_fairplay_vectors import GOLDEN, RULESETS_TAKEN, known_best_cards

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "data/fairplay-known-best.json").read_text(
        encoding="utf-8"
    )
)
MATCHES = {
    m["ruleset"]: m
    for m in json.loads(GOLDEN.read_text(encoding="utf-8"))["matches"]
    if m["ruleset"] in RULESETS_TAKEN
}


def test_the_vectors_are_the_current_methods() -> None:
    assert VECTORS["method"] == METHOD, (
        "belot.fairplay.METHOD changed: rebuild the vectors with tools/make_fairplay_vectors.py"
    )
    assert set(VECTORS["known_best"]) == set(RULESETS_TAKEN)


@pytest.mark.parametrize("name", RULESETS_TAKEN)
def test_the_hard_bot_still_plays_the_pinned_known_best_cards(name: str) -> None:
    cards = known_best_cards(MATCHES[name])
    assert len(cards) == len(VECTORS["known_best"][name])
    assert cards == VECTORS["known_best"][name], (
        f"the hard bot plays other known-best cards than {METHOD!r} did: the stored"
        " fair-play decisions were computed by another bot. Change belot.fairplay.METHOD"
        " (the verify job then computes every match again) and rebuild the vectors."
    )


def test_a_changed_bot_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pinned cards tell bots apart: the same search on a quarter of its budget plays
    # other cards on the club deal, which the test above would refuse.
    monkeypatch.setattr(belot.fairplay, "KNOWN_BUDGET", belot.fairplay.KNOWN_BUDGET // 4)
    assert known_best_cards(MATCHES["club"]) != VECTORS["known_best"]["club"]
