"""The tab attack suite once in Chromium: every case tests/unit/test_tab_attacks.py builds
(a dishonest operator's consistent record, what the seat's tab received and when, fake
drand relays and a fake verify API) played against the tab's own modules as the browser
loads them, through the import map of web/index.html, on the browser's Web Crypto and
its Ed25519 and BLS from the vendored noble. Node runs the same cases on every change
(web/test/attacks.test.mjs); this shows the page's engine reaches the same verdicts.

A static server here serves web/ (the modules, the vendored libraries, the harness
web/node/tabsim.mjs, which the gateway does not serve) and the cases; the page plays them
all and returns each verdict. Skipped, saying so, when no Chromium is installed.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from tests.browser import chromium, chromium_path
from tests.unit.test_tab_attacks import attack_cases

pytestmark = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(
        chromium_path() is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium) "
        "or set BELOT_CHROMIUM to run the browser tests",
    ),
]

WEB = Path(__file__).resolve().parents[2] / "web"
IMPORT_MAP = re.search(
    r'<script type="importmap">.*?</script>', (WEB / "index.html").read_text(encoding="utf-8"), re.S
)

PLAY = """(async () => {
  // tabsim settles promises with Node's setImmediate: the browser's equivalent.
  globalThis.setImmediate ??= (f) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => f();
    c.port2.postMessage(0);
  };
  const { playTab, failedNames } = await import('/node/tabsim.mjs');
  const data = await (await fetch('/attacks.json')).json();
  const rulesets = Object.fromEntries(data.rulesets.map((r) => [r.name, r]));
  const out = [];
  for (const c of data.cases) {
    const { result } = await playTab(c, { rulesets, beacons: data.beacons });
    out.push({ name: c.name, ok: result.ok, complete: result.complete,
               failed: failedNames(result), unchecked: result.unchecked });
  }
  return { out, agent: navigator.userAgent };
})()"""


def _app(cases: dict[str, object]) -> web.Application:
    assert IMPORT_MAP is not None, "web/index.html has no import map"
    page = f"<!doctype html><html><head>{IMPORT_MAP.group(0)}</head><body></body></html>"

    async def index(_: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html")

    async def module(request: web.Request) -> web.Response:
        path = (WEB / request.match_info["path"]).resolve()
        if WEB not in path.parents or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), content_type="text/javascript")

    async def data(_: web.Request) -> web.Response:
        return web.json_response(cases)

    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/attacks.json", data)
    app.router.add_get("/{path:(js|vendor|node)/.+}", module)
    return app


async def test_every_tab_attack_fails_its_check_in_chromium_too() -> None:
    path = chromium_path()
    assert path is not None
    data = attack_cases()
    server = TestServer(_app(data))
    await server.start_server()
    try:
        async with chromium(path) as browser:
            page = await browser.new_page()
            await page.goto(str(server.make_url("/")))
            started = time.monotonic()
            played = await page.evaluate(PLAY)
            took = time.monotonic() - started
            assert page.errors == [], page.errors
    finally:
        await server.close()
    ran = {r["name"]: r for r in played["out"]}
    assert set(ran) == {c["name"] for c in data["cases"]}, "every case was played"
    attacks = 0
    for c in data["cases"]:
        r = ran[c["name"]]
        assert r["complete"] is True, (c["name"], r)
        if c["check"] is None:
            assert r["failed"] == [], (c["name"], r)
            assert r["ok"] is (c["expect"] == "ok"), (c["name"], r)
            assert sorted(r["unchecked"]) == sorted(c["unchecked"]), (c["name"], r)
        else:
            attacks += 1
            assert c["check"] in r["failed"] and r["ok"] is False, (c["name"], r)
            extra = set(r["failed"]) - {c["check"], *c["also"]}
            assert not extra, (c["name"], r)
    assert attacks >= 20, attacks
    print(
        f"\n{len(ran)} tab cases ({attacks} attacks) in Chromium in {took:.1f} s "
        f"({json.dumps(played['agent'])[:60]}...)"
    )
