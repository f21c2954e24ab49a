"""The gateway serves the web client: its files with the right types and caching, nothing
outside web/'s served folders, a Content Security Policy that keeps everything local, the
client's configuration and the rulesets; and a closed table's final view from the log."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from pathlib import Path

import pytest

from belot import RULESETS, deal_pattern
from fairdeal.chains import DEFAULT_RELAYS
from services.gateway.web import DEFAULT_WEB_DIR
from tests.integration.gateway_support import Player, gateway
from tests.integration.table_support import platform

pytestmark = pytest.mark.asyncio(loop_scope="session")

WEB = DEFAULT_WEB_DIR


#: Configured relays: one plain http (development), one https.
RELAYS = ("http://relay.local:8080/", "https://relay.example/drand")


async def test_the_client_is_served_with_types_and_revalidation(
    servers, store, pg_pool, nc, js_names
) -> None:
    verify = "https://verify.example"
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(
            servers, store.schema, js_names, p.prefix, verify_url=verify, drand_urls=RELAYS
        ) as http,
    ):
        expected = {
            "/": ("text/html", WEB / "index.html"),
            "/index.html": ("text/html", WEB / "index.html"),
            "/js/app.js": ("text/javascript", WEB / "js" / "app.js"),
            "/js/deck.js": ("text/javascript", WEB / "js" / "deck.js"),
            "/css/belot.css": ("text/css", WEB / "css" / "belot.css"),
            "/js/drand.js": ("text/javascript", WEB / "js" / "drand.js"),
            # The vendored noble modules, as the import map names them.
            "/vendor/@noble/curves/bls12-381.js": (
                "text/javascript",
                WEB / "vendor" / "@noble" / "curves" / "bls12-381.js",
            ),
            "/vendor/@noble/hashes/sha2.js": (
                "text/javascript",
                WEB / "vendor" / "@noble" / "hashes" / "sha2.js",
            ),
        }
        for path, (content_type, file) in expected.items():
            async with http.get(path) as r:
                assert r.status == 200, path
                assert r.content_type == content_type, path
                assert r.charset == "utf-8", path
                body = await r.read()
                assert body == file.read_bytes(), path
                etag = r.headers["ETag"]
                assert etag == '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
                assert r.headers["Cache-Control"] == "no-cache"
                assert r.headers["X-Content-Type-Options"] == "nosniff"
            async with http.get(path, headers={"If-None-Match": etag}) as r:
                assert r.status == 304 and await r.read() == b"", path
            async with http.head(path) as r:
                assert r.status == 200

        async with http.get("/") as r:
            csp = r.headers["Content-Security-Policy"]
        directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
        assert directives["default-src"] == ["'self'"]
        # Scripts from the gateway, and one inline script: the import map, by its hash.
        [import_map] = re.findall(
            r'<script type="importmap">(.*?)</script>',
            (WEB / "index.html").read_text(encoding="utf-8"),
            re.S,
        )
        digest = base64.b64encode(hashlib.sha256(import_map.encode()).digest()).decode()
        assert directives["script-src"] == ["'self'", f"'sha256-{digest}'"]
        assert "https://verify.example" in directives["connect-src"]  # the replay page's API
        # Any https relay: the tab's own (DEFAULT_RELAYS), the player's, the configured
        # ones; a configured plain-http one by name. Scripts stay the gateway's own.
        connect = directives["connect-src"]
        assert "https:" in connect and "http://relay.local:8080" in connect, connect
        assert all(r.startswith("https://") for r in DEFAULT_RELAYS)
        assert "http:" not in connect and "*" not in connect, connect
        assert "unsafe-inline" not in csp
        async with http.get("/js/drand.js") as r:
            assert "Content-Security-Policy" not in r.headers
        # Every module the page loads is a local file (no CDN).
        index = (WEB / "index.html").read_text(encoding="utf-8")
        assert "http://" not in index and "https://" not in index

        for path in (
            "/test/deck.test.mjs",  # not a served folder
            "/js/../test/deck.test.mjs",
            "/js/%2e%2e/test/deck.test.mjs",
            "/js/nope.js",
            "/js/.hidden.js",
            "/README.md",
            "/js/app.py",
            "/vendor/@noble/curves/LICENSE",  # no served extension
            "/vendor/@noble/curves/../../js/app.js",
            "/node/importmap.mjs",  # Node's loader, not the page's
            "/vendor/@noble/curves/bn254.js",  # not vendored
        ):
            async with http.get(path) as r:
                assert r.status == 404, path
                assert (await r.json())["error"] == "not_found", path


async def test_config_and_rulesets(servers, store, pg_pool, nc, js_names) -> None:
    relays = ("http://relay.test",)
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix, drand_urls=relays) as http,
    ):
        async with http.get("/v1/config") as r:
            config = await r.json()
        # No BELOT_VERIFY_URL: the page's host on the verify service's port.
        assert config["verify_url"] == f"http://{http.host}:8081"
        assert config["drand"] == {"chain": "quicknet", "relays": ["http://relay.test"]}
        # No log key in the settings nor in the (fresh) data directory: none is told.
        assert config["translog"] is None
        async with http.get("/v1/rulesets") as r:
            rulesets = {x["name"]: x for x in (await r.json())["rulesets"]}
        assert set(rulesets) == set(RULESETS)
        for name, ruleset in RULESETS.items():
            assert rulesets[name]["deal_pattern"] == deal_pattern(ruleset).to_payload()
            assert rulesets[name]["players"] == ruleset.players


async def test_a_missing_web_directory_says_so(servers, store, pg_pool, nc, js_names,
                                              tmp_path: Path) -> None:  # fmt: skip
    async with (
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix, web_dir=tmp_path) as http,
        http.get("/") as r,
    ):
        assert r.status == 404
        assert "BELOT_WEB_DIR" in (await r.json())["message"]


async def test_a_closed_table_shows_its_final_view(servers, store, pg_pool, nc, js_names) -> None:
    async with (
        platform(store, pg_pool, nc, js_names) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
    ):
        player = await Player(http, "final-view").register()
        status, created = await player.call(
            "POST",
            "/v1/tables",
            {"ruleset": "classic", "seats": ["human", "bot:easy", "bot:easy", "bot:easy"],
             "sit": 0, "target": 100, "turn_seconds": 60},
        )  # fmt: skip
        assert status == 201, created
        table_id = created["table_id"]
        await asyncio.wait_for(player.play(table_id), 60)
        await p.wait_closed(table_id)
        status, reply = await player.call("GET", f"/v1/tables/{table_id}")
        anonymous = await (await http.get(f"/v1/tables/{table_id}")).json()
    assert status == 200 and reply["status"] == "closed"
    assert reply["seat"] == 0 and reply["table"]["seats"][0]["name"] == "final-view"
    assert reply["view"]["phase"] == "over" and reply["view"]["seat"] == 0
    assert reply["ending"]["type"] == "MatchEnded"
    assert reply["view"]["scores"] == reply["ending"]["scores"]
    assert anonymous["seat"] is None and anonymous["view"]["seat"] is None
    assert anonymous["view"]["hand"] == [] and anonymous["view"]["legal"] == []
