"""The language a player chose is kept with the account (gateway migration 4): a log-in
answers it, so the web client speaks it on any browser; a language the client has no
catalogue for is refused with the reason, and only the account's own token sets it."""

from __future__ import annotations

import uuid

import pytest

from services.gateway.store import LANGUAGES
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_language_is_kept_for_the_account(servers, store, pg_pool, nc, js_names) -> None:
    tag = str(uuid.uuid4().int)[:6]  # digits: they go with any script
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        ivan = await Player(http, f"Иван{tag}").register()
        other = await Player(http, f"olga{tag}").register()
        login = {"name": f"Иван{tag}", "password": "correct horse"}
        status, body = await ivan.call("POST", "/v1/sessions", login)
        assert (status, body["language"]) == (201, None), body  # not chosen yet

        status, body = await ivan.call("PUT", "/v1/account/language", {"language": "ru"})
        assert (status, body) == (200, {"language": "ru"}), body
        status, body = await ivan.call("POST", "/v1/sessions", login)
        assert body["language"] == "ru", body
        # Another account's choice is its own.
        status, body = await other.call(
            "POST", "/v1/sessions", {"name": f"olga{tag}", "password": "correct horse"}
        )
        assert body["language"] is None, body

        for bad in ("de", "RU", "", "x" * 9, 7, None):
            status, body = await ivan.call("PUT", "/v1/account/language", {"language": bad})
            assert status == 400 and body["error"] in ("bad_language", "bad_request"), (bad, body)
            assert isinstance(body["message"], str) and body["message"], body
        status, body = await ivan.call("PUT", "/v1/account/language", {"language": "de"})
        assert body["error"] == "bad_language" and "ru, bg, en, fr" in body["message"], body
        status, body = await ivan.call("POST", "/v1/sessions", login)
        assert body["language"] == "ru", body  # nothing refused was kept

        async with http.put("/v1/account/language", json={"language": "fr"}) as r:
            assert r.status == 401, await r.text()  # no token: nobody's language
        assert set(LANGUAGES) == {"ru", "bg", "en", "fr"}
