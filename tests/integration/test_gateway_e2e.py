"""Whole matches through gateway -> table -> randomness, one WebSocket client per human
seat choosing its moves from the view the gateway sends it; the finished match's
events rebuild the same final score."""

from __future__ import annotations

import asyncio
import os

import pytest

from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import (
    check_decks,
    eventually,
    platform,
    replay_match,
    wait_for_table,
)
from tests.integration.test_table_errors import four_at_a_table, wait_for_cards

pytestmark = pytest.mark.asyncio(loop_scope="session")

PLAYERS = {"club": 4, "classic": 4, "french": 4, "gambler": 2}


async def seat_players(
    players: list[Player], ruleset: str, seats: list[str], **options: object
) -> dict:
    first = players[0]
    status, created = await first.call(
        "POST",
        "/v1/tables",
        {"ruleset": ruleset, "seats": seats, "sit": 0, "turn_seconds": 60, **options},
    )
    assert status == 201, created
    table_id = created["table_id"]
    humans = [n for n, s in enumerate(seats) if s == "human"]
    for p, seat in zip(players[1:], humans[1:], strict=False):
        status, body = await p.call("POST", f"/v1/tables/{table_id}/seats/{seat}")
        assert status == 200, body
    return created


@pytest.mark.parametrize("ruleset", PLAYERS)
async def test_humans_play_a_whole_match(servers, store, pg_pool, nc, js_names, ruleset) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        n = PLAYERS[ruleset]
        players = [await Player(http, f"{ruleset}-{i}").register() for i in range(n)]
        created = await seat_players(players, ruleset, ["human"] * n)  # the full target
        table_id, match_id = created["table_id"], created["match_id"]
        await asyncio.gather(*(pl.play(table_id) for pl in players))

        # The worker takes the closed table off the lobby after it appended TableClosed,
        # which the players may hear first: it is gone soon after, not necessarily at once.
        async def off_the_lobby() -> bool:
            status, lobby = await players[0].call("GET", "/v1/lobby")
            assert status == 200, lobby
            return all(t["table_id"] != table_id for t in lobby["tables"])

        await eventually(off_the_lobby)
    match = await store.read_stream(f"match-{match_id}")
    state, tail = replay_match(match)
    assert not tail and state.result is not None
    assert match[-1].type == "MatchEnded"
    assert list(state.result.scores) == match[-1].payload["scores"]
    moves = [e for e in match if e.type in ("CardPlayed", "Passed", "ContractTaken")]
    assert all(e.metadata.get("acted_by") == "player" for e in moves)
    assert sum(pl.moves for pl in players) >= len([e for e in match if e.type == "CardPlayed"])
    table = await store.read_stream(f"table-{table_id}")
    finished = next(e.payload for e in table if e.type == "TableMatchFinished")
    assert finished["seats"] == [{"seat": i, "player": players[i].player} for i in range(n)]
    assert finished["winner"] == state.result.winner and finished["finished"] is True
    assert all(pl.saw_commitment_before_seed for pl in players)
    fair = await store.read_stream(f"randomness-{match_id}")
    closed = next(e.payload for e in fair if e.type == "SeedWindowClosed")
    assert closed["seat_seeds"] == [pl.seed for pl in players]
    assert await check_decks(store, match_id) >= 1


async def test_mixed_human_and_bot_table(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players = [await Player(http, f"mixed-{i}").register() for i in range(2)]
        seats = ["human", "bot:easy", "human", "bot:medium"]
        created = await seat_players(players, "club", seats, target=300)
        await asyncio.gather(*(pl.play(created["table_id"]) for pl in players))
    match = await store.read_stream(f"match-{created['match_id']}")
    state, _ = replay_match(match)
    assert state.result is not None and match[-1].type == "MatchEnded"
    by_seat: dict[int, set] = {}
    for e in match:
        if e.type == "CardPlayed":
            by_seat.setdefault(e.payload["seat"], set()).add(e.metadata.get("acted_by"))
    assert by_seat[0] == by_seat[2] == {"player"} and by_seat[1] == by_seat[3] == {"bot"}
    levels = {e.payload["seat"]: e.metadata.get("bot_level") for e in match
              if e.type == "CardPlayed" and e.payload["seat"] in (1, 3)}  # fmt: skip
    assert levels == {1: "easy", 3: "medium"}
    table = await store.read_stream(f"table-{created['table_id']}")
    finished = next(e.payload for e in table if e.type == "TableMatchFinished")
    assert [s["player"] for s in finished["seats"]] == [
        players[0].player, None, players[1].player, None
    ]  # fmt: skip


async def test_the_status_follows_the_match(servers, store, pg_pool, nc, js_names) -> None:
    """open while seats are free, dealing from the commitment to the first deck, then
    playing; the table's reply and its lobby line say the same."""
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann = await Player(http, "status-ann").register()
        status, created = await ann.call("POST", "/v1/tables", {"ruleset": "club", "sit": 0})
        assert status == 201, created
        assert await statuses(ann, created["table_id"]) == ("open", "open")

        players, created = await four_at_a_table(http, "status")  # 60 s turns: nobody acts
        table_id = created["table_id"]
        await wait_for_table(store, table_id, "FairDealOpened")
        assert await statuses(players[0], table_id) == ("dealing", "dealing")
        for pl in players:
            status, body = await pl.call(
                "POST", f"/v1/tables/{table_id}/seed", {"seed": os.urandom(16).hex()}
            )
            assert status == 200, body
        await wait_for_cards(players, table_id)

        async def playing() -> bool:
            return await statuses(players[0], table_id) == ("playing", "playing")

        await eventually(playing)


async def statuses(player: Player, table_id: str) -> tuple[str, str]:
    """The table's status as its reply gives it, and as its lobby line does."""
    status, table = await player.call("GET", f"/v1/tables/{table_id}")
    assert status == 200, table
    status, lobby = await player.call("GET", "/v1/lobby")
    assert status == 200, lobby
    line = next((t for t in lobby["tables"] if t["table_id"] == table_id), {})
    return table["status"], line.get("status", "")
