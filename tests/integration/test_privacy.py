"""Privacy: everything every player's WebSocket and HTTP calls receive during a match,
and everything the public endpoints show meanwhile (the gateway's lobby and table, and
the verify API's match, record and verification), is recorded; before the match ends
none of it holds another seat's dealt cards, a secret event, or the server seed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from services.verify.app import create_app as build_verify
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform
from tests.integration.test_gateway_e2e import seat_players

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def spectate(
    http: TestClient, verify: TestClient, table_id: str, match_id: str, done: asyncio.Event,
    out: list,
) -> None:  # fmt: skip
    """Poll every public endpoint, anonymously, until ``done``."""
    gateway_paths = ("/v1/lobby", f"/v1/tables/{table_id}", f"/v1/tables/{table_id}/events")
    verify_paths = (
        "/v1/matches?limit=100",
        f"/v1/matches/{match_id}",
        f"/v1/matches/{match_id}/record",
        f"/v1/matches/{match_id}/verification",
    )
    while not done.is_set():
        for client, paths in ((http, gateway_paths), (verify, verify_paths)):
            for path in paths:
                async with client.get(path) as resp:
                    out.append((time.time(), path, await resp.json()))
        await asyncio.sleep(0.05)


def dealt_cards(match: list) -> dict[tuple[int, int], set[str]]:
    """(deal number, seat) -> the cards dealt to that seat in that deal."""
    out: dict[tuple[int, int], set[str]] = {}
    deal = -1
    for e in match:
        if e.type == "DeckSupplied":
            deal = e.payload["deal_number"]
        elif e.type == "CardsDealt":
            out.setdefault((deal, e.payload["seat"]), set()).update(e.payload["cards"])
    return out


def views_in(message: Any) -> list[dict]:
    found = []
    if isinstance(message, dict):
        if "hand" in message and "legal" in message and "hand_sizes" in message:
            found.append(message)
        for v in message.values():
            found += views_in(v)
    elif isinstance(message, list):
        for v in message:
            found += views_in(v)
    return found


def events_in(message: Any) -> list[tuple[str, str]]:
    """(type, visibility) of every event a message carries (WS events, stream dumps)."""
    out = []
    if isinstance(message, dict):
        if "visibility" in message and ("event" in message or "type" in message):
            out.append((message.get("event") or message["type"], message["visibility"]))
        for v in message.values():
            out += events_in(v)
    elif isinstance(message, list):
        for v in message:
            out += events_in(v)
    return out


def check_clean(
    message: Any, seat: int | None, dealt: dict, secrets: list[str], where: str
) -> None:
    text = orjson.dumps(message).decode()
    for secret in secrets:
        assert secret not in text, f"{where}: a secret appears before the end"
    events = events_in(message)
    # docs/specification.md §6.2: once the seed window closed every seat's seed is shown to all.
    seeds_shown = any(kind == "SeedWindowClosed" for kind, _ in events)
    for kind, visibility in events:
        if kind == "SeatSeedReceived" and seeds_shown:
            continue
        assert visibility == "public" or visibility == f"seat:{seat}", (where, kind, visibility)
    for v in views_in(message):
        if seat is None or v.get("seat") is None:
            assert v["hand"] == [] and v["legal"] == [], where
        else:
            assert v["seat"] == seat, where
            # A deal never dealt (the view pushed as the match ended) holds no card.
            assert set(v["hand"]) <= dealt.get((v["deal_number"], seat), set()), where


async def test_nothing_private_leaks_before_the_end(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players = [await Player(http, f"priv-{i}").register() for i in range(4)]
        created = await seat_players(players, "club", ["human"] * 4, target=300)
        table_id, match_id = created["table_id"], created["match_id"]
        done = asyncio.Event()
        public: list = []
        settings = Settings(pg_dsn=roles.dsn_for("verify", servers.pg_dsn), pg_schema=store.schema)
        limits = RateLimits(rate=10_000, burst=100_000)
        verify = TestClient(TestServer(build_verify(settings, schema=store.schema, limits=limits)))
        await verify.start_server()
        spectator = asyncio.create_task(spectate(http, verify, table_id, match_id, done, public))
        stamped: list[list] = [[] for _ in players]

        async def play(i: int) -> None:
            pl = players[i]
            original = pl.call

            async def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
                status, reply = await original(method, path, body)
                stamped[i].append((time.time(), path, reply))
                return status, reply

            pl.call = call  # type: ignore[method-assign]
            await pl.play(table_id)

        await asyncio.gather(*(play(i) for i in range(4)))
        done.set()
        await spectator
        await verify.close()

    match = await store.read_stream(f"match-{match_id}")
    fair = await store.read_stream(f"randomness-{match_id}")
    assert match[-1].type == "MatchEnded"
    ended_at = match[-1].recorded_at.timestamp()
    server_seed = next(e.payload["server_seed"] for e in fair if e.type == "ServerSeedRevealed")
    dealt = dealt_cards(match)
    decks = [orjson.dumps(e.payload["cards"]).decode() for e in match if e.type == "DeckSupplied"]

    def hidden_from(seat: int | None) -> list[str]:
        # Other seats' dealt packets as the log writes them, every deck, the server seed.
        packets = [
            orjson.dumps(e.payload["cards"]).decode()
            for e in match
            if e.type == "CardsDealt" and e.payload["seat"] != seat
        ]
        return [server_seed, *decks, *packets]

    checked = 0
    for i, pl in enumerate(players):
        secrets = hidden_from(i)
        for m in pl.received:  # the WebSocket, in order: stop at the match's end
            if m.get("type") == "event" and m.get("event") == "MatchEnded":
                break
            check_clean(m, i, dealt, secrets, f"{pl.name} ws")
            checked += 1
        for at, path, reply in stamped[i]:
            if at < ended_at:
                check_clean(reply, i, dealt, secrets, f"{pl.name} {path}")
                checked += 1
    for at, path, reply in public:
        if at < ended_at:
            check_clean(reply, None, dealt, hidden_from(None), f"public {path}")
            checked += 1
    assert checked > 200
    # The verify API was asked all along: the match showed, in progress, and was refused.
    records = [r for at, path, r in public if at < ended_at and path.endswith("/record")]
    shown = [r for r in records if "streams" in r]  # the match, as the log had it then
    assert shown and all(r["fair_deal"]["server_seed"] is None for r in shown), records[-1]
    assert any(e["type"] == "CardPlayed" for r in shown for e in r["streams"]["match"]["events"])
    refused = [r for at, p, r in public if at < ended_at and p.endswith("/verification")]
    assert refused and all(r.get("error") in ("match_not_ended", "unknown_match") for r in refused)
    # And after the end, the players were shown the reveal.
    assert all(
        any(m.get("event") == "FairDealRevealed" and m["payload"]["server_seed"] == server_seed
            for m in pl.received)
        for pl in players
    )  # fmt: skip
