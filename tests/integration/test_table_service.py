"""The table service on real PostgreSQL and NATS: bot tables of every ruleset, the match
stream's shape, the rating contract, decks equal to the recipe, errors and retries."""

from __future__ import annotations

import pytest

from tests.integration.table_support import check_decks, platform, replay_match

pytestmark = pytest.mark.asyncio(loop_scope="session")

RULESETS = {"club": 4, "classic": 4, "french": 4, "gambler": 2}


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_bot_table_plays_a_whole_match(store, pg_pool, nc, js_names, ruleset) -> None:
    async with platform(store, pg_pool, nc, js_names) as p:
        seats = ["bot:easy"] * RULESETS[ruleset]
        created = await p.create(ruleset=ruleset, seats=seats)  # the full target
        table_id, match_id = created["table_id"], created["match_id"]
        table_events = await p.wait_closed(table_id)
    types = [e.type for e in table_events]
    assert types == [
        "TableOpened", "FairDealOpened", "TableMatchFinished", "FairDealRevealed", "TableClosed",
    ]  # fmt: skip
    match = await store.read_stream(f"match-{match_id}")
    assert match[0].type == "MatchStarted" and match[-1].type == "MatchEnded"
    state, tail = replay_match(match)
    assert not tail and state.result is not None
    assert list(state.result.scores) == match[-1].payload["scores"]
    finished = table_events[2].payload
    assert finished == {
        "match_id": match_id,
        "ruleset": ruleset,
        "seats": [{"seat": n, "player": None} for n in range(RULESETS[ruleset])],
        "winner": state.result.winner,
        "finished": True,
        "leaver": None,
        "finished_at_ms": finished["finished_at_ms"],
        "rated": True,
    }
    assert all(e.metadata.get("acted_by") == "bot" for e in match if e.type == "CardPlayed")
    assert await check_decks(store, match_id) >= 1
