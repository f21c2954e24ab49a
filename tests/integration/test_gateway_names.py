"""Account names in any script through the real gateway and PostgreSQL: "Иван" signs up
and logs in; a look-alike of a taken name, a mixed-script name, a control or a bidi
override are refused with the reason; accounts made before keys keep working and get
their key at the gateway's start (services/gateway/names.py, gateway migration 3)."""

from __future__ import annotations

import uuid

import pytest

from belot_platform import messaging
from services.gateway.app import API
from services.gateway.store import AccountStore
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_names_in_any_script_one_each_and_no_look_alikes(
    servers, store, pg_pool, nc, js_names
) -> None:
    tag = str(uuid.uuid4().int)[:6]  # digits: they go with any script
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ivan = await Player(http, f"Иван{tag}").register()  # signs up and logs in
        assert ivan.player and ivan.token
        login = {"name": f"ИВАН{tag}", "password": "correct horse"}
        status, body = await ivan.call("POST", "/v1/sessions", login)
        assert status == 201 and body["player"] == ivan.player, body  # case aside
        latin = await Player(http, f"Ivan{tag}").register()
        assert latin.player != ivan.player

        async def signup(name: str) -> tuple[int, dict]:
            async with http.post(
                "/v1/accounts", json={"name": name, "password": "correct horse"}
            ) as r:
                return r.status, await r.json()

        # "Ivan" with a Cyrillic "а": mixed scripts, refused with the reason.
        status, body = await signup(f"Iv\u0430n{tag}")
        assert (status, body["error"]) == (400, "bad_name"), body
        assert "one script" in body["message"]
        # The reason's facts, for the page to say in its player's language.
        assert body["details"] == {"reason": "scripts", "scripts": ["Cyrillic", "Latin"]}, body
        # A whole-Cyrillic look-alike of a Latin name that exists: taken.
        status, body = await signup(f"BAC{tag}")
        assert status == 201, body
        status, body = await signup(f"ВАС{tag}")
        assert (status, body["error"]) == (409, "name_taken"), body
        for bad, said in (
            (f"ab\u202ecd{tag}", "invisible formatting character"),
            (f"ab\x07cd{tag}", "control character"),
            (f"ann bo{tag}", "a space"),
        ):
            status, body = await signup(bad)
            assert (status, body["error"]) == (400, "bad_name"), (bad, body)
            assert said in body["message"], body
        status, body = await signup(f"ab\x00cd{tag}")  # refused before any rule: a NUL
        assert status == 400, body


async def test_accounts_made_before_keys_keep_working_and_get_theirs(
    servers, store, pg_pool, nc, js_names
) -> None:
    tag = str(uuid.uuid4().int)[:6]
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        old = await Player(http, f"old{tag}").register()
        # As an account from before look-alike keys: no key.
        await pg_pool.execute(
            f"UPDATE {store.schema}.accounts SET name_key = NULL WHERE id = $1", old.player
        )
        login = {"name": f"OLD{tag}", "password": "correct horse"}
        status, body = await old.call("POST", "/v1/sessions", login)
        assert status == 201 and body["player"] == old.player, body
        filled = await AccountStore(pg_pool, store.schema).fill_name_keys()
        assert filled >= 1
        key = await pg_pool.fetchval(
            f"SELECT name_key FROM {store.schema}.accounts WHERE id = $1", old.player
        )
        assert key is not None
        alike = {"name": f"0LD{tag}", "password": "correct horse"}
        async with http.post("/v1/accounts", json=alike) as r:
            assert r.status == 409, await r.text()  # a look-alike (zero for O) of it


async def test_a_seat_says_its_players_name_and_no_view_reads_the_accounts(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The gateway says a player's name with the seat it takes (SeatTaken's ``name``):
    the table's answers and pushes name the seats from the table itself, and serving
    one reads no account. A seat taken before seats said names is named from the
    accounts, as before."""
    tag = str(uuid.uuid4().int)[:6]
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ivan = await Player(http, f"Иван{tag}").register()
        ann = await Player(http, f"ann{tag}").register()
        status, created = await ivan.call(
            "POST", "/v1/tables", {"ruleset": "club", "seats": ["human"] * 4, "sit": 0}
        )
        assert status == 201, created
        table_id = created["table_id"]
        status, body = await ann.call("POST", f"/v1/tables/{table_id}/seats/2")
        assert status == 200, body
        api = http.server.app[API]
        looked_up: list[list[str]] = []
        names = api.accounts.names

        async def counted(ids: list[str]) -> dict[str, str]:
            looked_up.append(ids)
            return await names(ids)

        api.accounts.names = counted  # type: ignore[method-assign]
        status, body = await ann.call("GET", f"/v1/tables/{table_id}")
        assert status == 200, body
        assert [s["name"] for s in body["table"]["seats"]] == [
            f"Иван{tag}",
            None,
            f"ann{tag}",
            None,
        ]
        assert looked_up == []
        events = await p.table_events(table_id)
        assert {e.payload["name"] for e in events if e.type == "SeatTaken"} == {
            f"Иван{tag}",
            f"ann{tag}",
        }
        # A seat taken without a name (as before seats said them): looked up, alone.
        carl = await Player(http, f"carl{tag}").register()
        await messaging.request(
            p.nc, f"{p.prefix}.table.{table_id}.join", {"player": carl.player, "seat": 1}, timeout=5
        )
        status, body = await ann.call("GET", f"/v1/tables/{table_id}")
        assert status == 200, body
        assert body["table"]["seats"][1]["name"] == f"carl{tag}"
        assert looked_up == [[carl.player]]
