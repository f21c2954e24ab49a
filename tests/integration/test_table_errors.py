"""Refusals with precise codes and nothing appended; idempotent retries; the turn timer;
leaving a match; the gateway's JSON errors and rate limits."""

from __future__ import annotations

import hashlib
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from belot import Strain
from belot.bots import choose
from belot_platform import messaging
from belot_platform.messaging import ServiceError
from fairdeal.leave import leave_message
from tests.integration.gateway_support import Player, gateway, move_request
from tests.integration.table_support import eventually, platform, wait_for_table

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def versions(store, created: dict) -> tuple[int, int, int]:
    m = created["match_id"]
    return (
        await store.stream_version(f"table-{created['table_id']}"),
        await store.stream_version(f"match-{m}"),
        await store.stream_version(f"randomness-{m}"),
    )


async def four_at_a_table(http, tag: str, **options) -> tuple[list[Player], dict]:
    players = [await Player(http, f"{tag}-{i}").register() for i in range(4)]
    status, created = await players[0].call(
        "POST", "/v1/tables", {"ruleset": "club", "sit": 0, "turn_seconds": 60, **options}
    )
    assert status == 201, created
    for i in (1, 2, 3):
        status, body = await players[i].call("POST", f"/v1/tables/{created['table_id']}/seats/{i}")
        assert status == 200, body
    return players, created


async def view_of(player: Player, table_id: str) -> dict:
    status, body = await player.call("GET", f"/v1/tables/{table_id}")
    assert status == 200, body
    return body


async def wait_for_cards(players: list[Player], table_id: str) -> None:
    async def dealt() -> bool:
        v = (await view_of(players[0], table_id))["view"]
        return v is not None and v["phase"] == "bidding"

    await eventually(dealt)


async def due_player(players: list[Player], table_id: str) -> Player:
    for pl in players:
        if (await view_of(pl, table_id))["view"]["legal"]:
            return pl
    raise AssertionError("nobody is due to act")


async def act_once(players: list[Player], table_id: str, rng: random.Random) -> dict:
    """The seat due to act makes an easy bot's move; returns the view it acted on."""
    from table.views import view_from_json

    for p in players:
        body = await view_of(p, table_id)
        v = body["view"]
        if v is not None and v["legal"]:
            verb, req = move_request(choose(view_from_json(v), rng, "easy"))
            status, reply = await p.call("POST", f"/v1/tables/{table_id}/{verb}", req)
            assert status == 200, reply
            return v
    raise AssertionError("nobody is due to act")


async def test_refusals_carry_precise_codes_and_append_nothing(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players, created = await four_at_a_table(http, "err")
        table_id = created["table_id"]
        stranger = await Player(http, "err-stranger").register()

        # Seed not 16 bytes (the window is open: nobody sent one yet).
        await wait_for_table(store, table_id, "FairDealOpened")
        before = await versions(store, created)
        status, body = await players[1].call(
            "POST", f"/v1/tables/{table_id}/seed", {"seed": "ab" * 15}
        )
        assert (status, body["error"]) == (400, "seed_wrong_length"), body
        assert body["message"]
        assert await versions(store, created) == before
        for pl in players:
            status, body = await pl.call(
                "POST", f"/v1/tables/{table_id}/seed", {"seed": random.randbytes(16).hex()}
            )
            assert status == 200, body
        await wait_for_cards(players, table_id)

        first = await due_player(players, table_id)
        due_seat = (await view_of(first, table_id))["view"]["seat"]
        other = players[(due_seat + 1) % 4]
        turned = (await view_of(first, table_id))["view"]["turned"]
        not_turned = next(s.name.lower() for s in Strain if s.is_suit and s.name[0] != turned[1])
        before = await versions(store, created)
        cases = [
            # (who, route, body, status, code)
            (other, "bid", {"strain": None}, 409, "not_your_turn"),
            (first, "bid", {"strain": not_turned}, 409, "bid_not_allowed"),
            (first, "play", {"card": "AS"}, 409, "not_expected"),
            (stranger, "bid", {"strain": None}, 403, "not_your_seat"),
            (other, "bid", {"strain": None, "seat": due_seat}, 403, "not_your_seat"),
            (first, "bid", {"strain": "trumps"}, 400, "bad_request"),
            (first, "play", {"card": "ZZ"}, 400, "bad_request"),
        ]
        for who, route, req, code_status, code in cases:
            status, body = await who.call("POST", f"/v1/tables/{table_id}/{route}", req)
            assert (status, body.get("error")) == (code_status, code), (route, req, body)
            assert isinstance(body.get("message"), str) and body["message"]
        status, body = await first.call("POST", "/v1/tables/nosuchtable/bid", {"strain": None})
        assert (status, body["error"]) == (404, "unknown_table")
        assert await versions(store, created) == before

        # An illegal card: play on until a seat due to follow holds a card it may not play.
        rng = random.Random(3)
        found = False
        for _ in range(200):
            for pl in players:
                v = (await view_of(pl, table_id))["view"]
                if v["legal"] and v["phase"] == "playing" and v["trick"]:
                    legal = {m["card"] for m in v["legal"] if m["type"] == "PlayCard"}
                    illegal = [c for c in v["hand"] if c not in legal]
                    if illegal:
                        before = await versions(store, created)
                        # The attack: another seat (and a stranger) ask to play the card
                        # for this seat, to read its legal cards from the refusal's
                        # details. They are refused as not its owner, before the rules
                        # are asked: nothing of the seat's hand is in the answer.
                        for snoop in (players[(v["seat"] + 1) % 4], stranger):
                            status, body = await snoop.call(
                                "POST", f"/v1/tables/{table_id}/play",
                                {"card": illegal[0], "seat": v["seat"]},
                            )  # fmt: skip
                            assert (status, body["error"]) == (403, "not_your_seat"), body
                            assert "details" not in body and illegal[0] not in str(body), body
                        status, body = await pl.call(
                            "POST", f"/v1/tables/{table_id}/play", {"card": illegal[0]}
                        )
                        assert (status, body["error"]) == (409, "illegal_card"), body
                        # The refusal's facts reach the player, for the page to say them
                        # in its own language (web/js/ui.js errorText).
                        details = body["details"]
                        assert details["card"] == illegal[0]
                        assert sorted(details["allowed"]) == sorted(legal), body
                        assert details["suit"] == v["trick"][0][1][1], body
                        assert details["rule"] in ("follow", "overtrump", "trump", "beat_trump")
                        assert await versions(store, created) == before
                        found = True
            if found:
                break
            await act_once(players, table_id, rng)
        assert found, "no seat ever held an illegal card"


async def test_retried_commands_are_idempotent(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players = [await Player(http, f"idem-{i}").register() for i in range(4)]
        body = {"ruleset": "club", "sit": 0, "command_id": "create-1"}
        s1, a = await players[0].call("POST", "/v1/tables", body)
        s2, b = await players[0].call("POST", "/v1/tables", body)
        assert s1 == s2 == 201 and a["table_id"] == b["table_id"]
        table_id = a["table_id"]
        for i in (1, 2, 3):
            for _ in range(2):  # the same join twice: one SeatTaken
                status, reply = await players[i].call(
                    "POST", f"/v1/tables/{table_id}/seats/{i}", {"command_id": f"join-{i}"}
                )
                assert status == 200, reply
        await wait_for_table(store, table_id, "FairDealOpened")
        for pl in players:
            seed = {"seed": random.randbytes(16).hex(), "command_id": "seed"}
            for _ in range(2):
                status, reply = await pl.call("POST", f"/v1/tables/{table_id}/seed", seed)
                assert status == 200, reply
        await wait_for_cards(players, table_id)
        due = await due_player(players, table_id)
        version = await store.stream_version(f"match-{a['match_id']}")
        for _ in range(3):
            status, reply = await due.call(
                "POST", f"/v1/tables/{table_id}/bid", {"strain": None, "command_id": "bid-1"}
            )
            assert status == 200, reply
        assert await store.stream_version(f"match-{a['match_id']}") == version + 1
        table = [e.type for e in await store.read_stream(f"table-{table_id}")]
        assert table.count("TableOpened") == 1 and table.count("SeatTaken") == 4
        fair = [e.type for e in await store.read_stream(f"randomness-{a['match_id']}")]
        assert fair.count("SeatSeedReceived") == 4


async def test_the_timer_plays_and_a_leaver_forfeits(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names, window_ms=2_000) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ann = await Player(http, "timer-ann").register()
        # Ann's page made a key for her seat (web/js/seatkey.js); her leave is signed.
        key = Ed25519PrivateKey.generate()
        public = key.public_key().public_bytes_raw().hex()
        status, created = await ann.call(
            "POST",
            "/v1/tables",
            {
                "ruleset": "gambler",
                "seats": ["human", "bot:easy"],
                "sit": 0,
                "key": public,
                "turn_seconds": 0.3,
                "fallback_level": "easy",
                # The timer plays every one of her turns: no bot takes her seat over.
                "autoplay_after": 0,
            },
        )
        assert status == 201, created
        match_id = created["match_id"]

        async def timed_out() -> bool:
            events = await store.read_stream(f"match-{match_id}")
            return sum(e.metadata.get("acted_by") == "timer" for e in events) >= 3

        await eventually(timed_out, 30)
        leave = f"/v1/tables/{created['table_id']}/leave"
        # Nobody leaves for her: no signature, another key's, another match's, garbage.
        stranger = Ed25519PrivateKey.generate().sign(leave_message(match_id, 0)).hex()
        elsewhere = key.sign(leave_message("another-match", 0)).hex()
        for forged in (None, stranger, elsewhere, "zz" * 64, "ab"):
            status, body = await ann.call(
                "POST", leave, {} if forged is None else {"signature": forged}
            )
            assert status == 400 and body["error"] == "bad_signature", (forged, status, body)
        assert "MatchForfeited" not in [
            e.type for e in await store.read_stream(f"match-{match_id}")
        ]
        signature = key.sign(leave_message(match_id, 0)).hex()
        status, body = await ann.call("POST", leave, {"signature": signature})
        assert status == 200 and body["forfeit"] is True, body
        table = await wait_for_table(store, created["table_id"], "TableClosed")
    match = await store.read_stream(f"match-{match_id}")
    timed = [e for e in match if e.metadata.get("acted_by") == "timer"]
    assert all(e.metadata["bot_level"] == "easy" for e in timed)
    acts = [e for e in timed if e.type in ("CardPlayed", "Passed", "ContractTaken")]
    assert acts and all(e.payload["seat"] == 0 for e in acts)
    assert match[-1].type == "MatchForfeited"
    assert match[-1].payload == {"leaver": 0, "winner_side": 1, "signature": signature}
    # The commitment recorded her key before any seed; the bot has none.
    fair = await store.read_stream(f"randomness-{match_id}")
    commit = next(e.payload for e in fair if e.type == "ServerSeedCommitted")
    assert commit["signed_leaves"] is True
    assert [(s["seat"], s["key"]) for s in commit["seats"]] == [(0, public), (1, "")]
    assert [e.type for e in match].count("MatchForfeited") == 1
    finished = next(e.payload for e in table if e.type == "TableMatchFinished")
    assert (finished["winner"], finished["finished"], finished["leaver"]) == (1, False, 0)
    assert [e.type for e in table][-2:] == ["FairDealRevealed", "TableClosed"]
    assert "SeatAutoplayStarted" not in [e.type for e in table]


ADMIN = "operator-" + "a" * 16


class HeldClock:
    """A clock that moves only when the test moves it (seconds): the rate limiter's
    buckets refill when the test says, not while it sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_gateway_errors_are_json(servers, store, pg_pool, nc, js_names) -> None:
    clock = HeldClock()
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(
            servers, store.schema, js_names, p.prefix, clock, rate_per_second=2.0, rate_burst=5,
            admin_token=ADMIN,
        ) as http,
    ):  # fmt: skip

        async def call(method: str, path: str, **kw) -> tuple[int, dict, dict]:
            async with http.request(method, path, **kw) as resp:
                return resp.status, await resp.json(), dict(resp.headers)

        assert (await call("POST", "/v1/accounts", data=b"{not json"))[:2] == (
            400, {"error": "bad_request", "message": "the body is not valid JSON"}
        )  # fmt: skip
        status, body, _ = await call("POST", "/v1/accounts", json={"name": "ok-name"})
        assert status == 400 and body["error"] == "bad_request"
        status, body, _ = await call("GET", "/v1/nowhere")
        assert status == 404 and body["error"] == "not_found"
        status, body, _ = await call("DELETE", "/v1/lobby")
        assert status == 405 and body["error"] == "method_not_allowed"
        clock.now += 2.5  # the bucket refills
        ann = await Player(http, "json-ann").register()  # two requests of this address
        clock.now += 2.5
        status, body, _ = await call("POST", "/v1/tables", json={"ruleset": "club"})
        assert status == 401 and body["error"] == "unauthorized"
        bad = {"Authorization": "Bearer forged.token.value"}
        status, body, _ = await call("GET", "/v1/ws", headers=bad)
        assert status == 401 and body["error"] == "unauthorized"
        # Forged tokens, a new one each time, all draw on this address's bucket.
        codes = [
            (await call("GET", "/v1/lobby", headers={"Authorization": f"Bearer forged.{i}"}))[0]
            for i in range(8)
        ]
        assert 429 in codes
        status, body, headers = await call("GET", "/v1/lobby", headers=bad)
        assert status == 429 and body["error"] == "rate_limited"
        assert int(headers["Retry-After"]) >= 1
        other = {"Authorization": "Bearer another.forged.token"}
        assert (await call("GET", "/v1/lobby", headers=other))[0] == 429
        assert (await call("GET", "/v1/lobby?token=yet.another.one"))[0] == 429
        assert (await call("GET", "/v1/lobby"))[0] == 429
        # A player's valid token has the player's own bucket, the operator's token its own.
        assert (await call("GET", "/v1/lobby", headers=ann.auth))[0] == 200
        operator = {"Authorization": f"Bearer {ADMIN}"}
        assert (await call("GET", "/v1/lobby", headers=operator))[0] == 200
        # Retry-After is honest: once that long has passed, the address may ask again.
        clock.now += int(headers["Retry-After"])
        assert (await call("GET", "/v1/lobby", headers=bad))[0] == 200  # public: answered


async def event_counts(store, created: dict) -> list[int]:
    """How many events each of the table's three streams holds."""
    m = created["match_id"]
    streams = (f"table-{created['table_id']}", f"match-{m}", f"randomness-{m}")
    return [len(await store.read_stream(s)) for s in streams]


#: Fields of the wrong JSON type (or value) for each command: 400 bad_request each.
WRONG_SEAT = ["1", [0], {"n": 0}, 1.0, True, 1e30, 99999999999999999999999]
WRONG_SEED = [5, ["ab" * 16], {"seed": "ab"}, None, True]
WRONG_MOVES = [
    ("bid", {}),  # a bid names a strain (null to pass): the table says so, not the gateway
    ("play", {}),
    ("bid", {"strain": 5}),
    ("bid", {"strain": ["hearts"]}),
    ("bid", {"strain": {"name": "hearts"}}),
    ("play", {"card": 5}),
    ("play", {"card": ["AS"]}),
    ("play", {"card": "AS", "belote": "yes"}),
    ("announce", {"melds": "true"}),
    ("announce", {"belote": 5}),
    ("announce", {"belote": ["KH"]}),
    *((verb, {"seat": seat}) for verb in ("swap", "redeal") for seat in WRONG_SEAT),
    *(("bid", {"strain": None, "seat": seat}) for seat in WRONG_SEAT),
    *(("play", {"card": "AS", "seat": seat}) for seat in WRONG_SEAT),
    *(("announce", {"melds": True, "seat": seat}) for seat in WRONG_SEAT),
    *((verb, {"command_id": cid}) for verb in ("bid", "leave") for cid in (5, "", ["c"])),
]


async def test_wrong_typed_fields_are_bad_request_and_append_nothing(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players, created = await four_at_a_table(http, "types")
        table_id = created["table_id"]
        await wait_for_table(store, table_id, "FairDealOpened")

        async def refused(who: Player, route: str, req: dict) -> None:
            status, body = await who.call("POST", f"/v1/tables/{table_id}/{route}", req)
            assert (status, body.get("error")) == (400, "bad_request"), (route, req, body)
            assert isinstance(body.get("message"), str) and body["message"], body

        seed = random.randbytes(16).hex()
        before = await event_counts(store, created)
        for seat in WRONG_SEAT:
            await refused(players[1], "seed", {"seed": seed, "seat": seat})
        for text in WRONG_SEED:
            await refused(players[1], "seed", {"seed": text})
            await refused(players[1], "seed", {"seed": text, "seat": 1})
        await refused(players[1], "seed", {"seed": seed, "command_id": 7})
        assert await event_counts(store, created) == before
        for pl in players:
            status, body = await pl.call(
                "POST", f"/v1/tables/{table_id}/seed", {"seed": random.randbytes(16).hex()}
            )
            assert status == 200, body
        await wait_for_cards(players, table_id)

        due = await due_player(players, table_id)
        before = await event_counts(store, created)
        for route, req in WRONG_MOVES:
            await refused(due, route, req)
        assert await event_counts(store, created) == before
        # The seat still acts: nothing was decided for it.
        status, body = await due.call("POST", f"/v1/tables/{table_id}/bid", {"strain": None})
        assert status == 200, body


async def test_an_abort_names_who_asked_and_a_seed_gets_its_receipt(
    servers, store, pg_pool, nc, js_names
) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        players, created = await four_at_a_table(http, "abort")
        table_id, match_id = created["table_id"], created["match_id"]
        await wait_for_table(store, table_id, "FairDealOpened")
        for i, pl in enumerate(players):
            seed = random.randbytes(16).hex()
            status, body = await pl.call("POST", f"/v1/tables/{table_id}/seed", {"seed": seed})
            assert status == 200, body
            receipt = body["receipt"]
            assert receipt["seat"] == i and receipt["stream"] == f"randomness-{match_id}"
            assert receipt["seed_sha256"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        await wait_for_cards(players, table_id)
        subject = f"{p.prefix}.table.{table_id}.abort"
        before = await versions(store, created)
        for bad in ({"reason": "tidy up"}, {"reason": "tidy up", "by": ""},
                    {"reason": "x", "by": "y" * 201}):  # fmt: skip
            with pytest.raises(ServiceError) as err:
                await messaging.request(nc, subject, bad, timeout=5)
            assert err.value.code == "bad_request"
        assert await versions(store, created) == before
        await messaging.request(nc, subject, {"reason": "tidy up", "by": "operator:ann"}, timeout=5)
        events = await store.read_stream(f"match-{match_id}")
    assert events[-1].type == "MatchAborted"
    assert events[-1].payload == {"reason": "tidy up", "by": "operator:ann"}
