"""The stored fair-play evidence names the model that computed its chances
(belot.fairplay.METHOD): the chances of every card of two golden deals are pinned, so a
change in what a decision's worlds say (the drawer, the knowledge, the solver, their
number) fails here until the method's name changes (and the verify job computes every
match again under it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import belot.fairplay
from belot.fairplay import METHOD
from tools.make_fairplay_vectors import GOLDEN, RULESETS_TAKEN, chances_of

VECTORS = json.loads(
    (Path(__file__).resolve().parents[1] / "data/fairplay-chances.json").read_text(
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
    assert set(VECTORS["chances"]) == set(RULESETS_TAKEN)


@pytest.mark.parametrize("name", RULESETS_TAKEN)
def test_the_worlds_still_give_the_pinned_chances(name: str) -> None:
    chances = chances_of(MATCHES[name])
    assert len(chances) == len(VECTORS["chances"][name]) > 0
    assert chances == VECTORS["chances"][name], (
        f"the worlds give other chances than {METHOD!r} did: the stored fair-play"
        " decisions were computed by another model. Change belot.fairplay.METHOD (the"
        " verify job then computes every match again) and rebuild the vectors."
    )


def test_a_changed_model_is_noticed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pinned chances tell models apart: half the worlds give other figures on the
    # club deal, which the test above would refuse.
    monkeypatch.setattr(belot.fairplay, "WORLDS", belot.fairplay.WORLDS // 2)
    assert chances_of(MATCHES["club"]) != VECTORS["chances"]["club"]
