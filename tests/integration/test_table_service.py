"""The table service on real PostgreSQL and NATS: bot tables of every ruleset, the match
stream's shape, the rating contract, decks equal to the recipe, errors and retries."""

from __future__ import annotations

import random

import pytest

from belot import RULESETS as CORE_RULESETS
from belot import SupplyDeck, decide, due, evolve, replay, view
from belot.bots import choose
from belot.codec import from_payload, to_payload
from services.table.table import bot_seed
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


async def test_the_bots_moves_are_those_a_move_seeded_by_its_version_makes(
    store, pg_pool, nc, js_names
) -> None:
    # The worker decides a run of bots' moves ahead, the deck's with them, and appends
    # them together: each move must still be the one the core's bot makes for that
    # seat's view with the generator a single move gets (table.bot_seed), with the
    # metadata of its level, and a deck followed by a bot's turn is one append with it.
    seats = ["bot", "bot:easy", "bot", "bot:easy"]
    async with platform(store, pg_pool, nc, js_names) as p:
        created = await p.create(ruleset="club", seats=seats, target=400)
        await p.wait_closed(created["table_id"])
    match_id = created["match_id"]
    rows = await store.read_stream(f"match-{match_id}")
    assert rows[-1].type == "MatchEnded"
    state = replay(CORE_RULESETS["club"], [from_payload(rows[0].payload)])
    levels = ["medium", "easy", "medium", "easy"]
    moves = decks = 0
    i = 1
    while i < len(rows):
        r = rows[i]
        if r.type == "DeckSupplied":
            deck = from_payload(r.payload)
            assert len(deck.salts) == 9  # the randomness service's (belot.salts)
            events = decide(state, SupplyDeck(deck.deal_number, deck.cards, deck.salts))
            after = state
            for e in events:
                after = evolve(after, e)
            if due(after).seat is not None:
                # The deck and the first bot's move after it: one append, one time.
                assert rows[i + len(events)].recorded_at == r.recorded_at
                decks += 1
        else:
            assert r.metadata["acted_by"] == "bot", r
            seat = due(state).seat
            assert seat is not None
            level = levels[seat]
            assert r.metadata == {"acted_by": "bot", "bot_level": level, "producer": "table"}
            rng = random.Random(bot_seed(state, match_id, r.version - 1))
            events = decide(state, choose(view(state, seat), rng, level))
            moves += 1
        got = rows[i : i + len(events)]
        assert [x.payload for x in got] == [to_payload(e) for e in events], r.version
        assert len({x.metadata.get("bot_level") for x in got}) == 1
        for e in events:
            state = evolve(state, e)
        i += len(events)
    assert state.result is not None and moves > 30 and decks >= 1


async def test_a_created_table_is_adopted_as_its_log_folds_it(store, pg_pool, nc, js_names) -> None:
    """A creation folds what it appends instead of reading it back from the log: the
    table it drives is the one a new owner would load, a retry of the creation loads it."""
    from services.table.store import load

    async with platform(store, pg_pool, nc, js_names) as p:
        body = {"creator": "ann", "sit": 0, "seats": ["human", "bot", "bot", "bot"],
                "ruleset": "club", "target": 151, "command_id": "create-once"}  # fmt: skip
        created = await p.create(**body)
        table_id = created["table_id"]
        table = p.workers[0].tables[table_id]
        loaded = await load(p.worker_store, table_id)
        assert loaded.table.exists and loaded.table.seats[0].player == "ann"
        assert table.state == loaded.table
        assert table.table_version == loaded.table_version == 2
        assert table.command_ids == loaded.command_ids and len(table.command_ids) == 1
        assert table.match is None and loaded.match is None
        # The same command again: the table as written, not a second one.
        again = await p.create(**body)
        assert again["table_id"] == table_id
        assert [e.type for e in await p.table_events(table_id)][:2] == ["TableOpened", "SeatTaken"]
