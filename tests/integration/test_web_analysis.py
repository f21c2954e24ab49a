"""The replay page shows the verify API's double-dummy analysis, in Chromium: each seat's
figures, a deal's chart, its cards that gave points away and its table of contracts,
and beside each card of the steps its verdict; every number the page shows is the API's
(GET /v1/matches/{id}/analysis, made by the verify service's analysis job). And the same
page in Russian. Screenshots: tests/artifacts/replay-analysis-{phone,laptop}.png (with
BELOT_DOCS_SHOTS=1, copied to docs/img/)."""

from __future__ import annotations

from typing import Any

import aiohttp

from drand.clock import ScaledClock
from tests.browser import chromium
from tests.integration.table_support import ORIGIN, eventually
from tests.integration.test_web_browser import (
    ARTIFACTS,
    BROWSER_TEST,
    CHROMIUM,
    explained,
    to_docs,
    watchdog,
    web_stack,
)
from tests.integration.test_web_table import LAPTOP, PHONE
from tools.matchgen import MatchSpec, generate, write

SPEC = MatchSpec(match_id="web-analysis-1", ruleset="club", label="web-analysis", target=300)

pytestmark = BROWSER_TEST

SEATS = """[...document.querySelectorAll('#analysis-seats tbody tr')]
  .map(tr => [Number(tr.dataset.seat), Number(tr.dataset.lost), tr.dataset.accuracy])"""
LOST = """[...document.querySelectorAll('#analysis-lost li')]
  .map(li => [li.dataset.card, Number(li.dataset.loss)])"""
CONTRACTS = """[...document.querySelectorAll('#analysis-contracts tbody tr')]
  .map(tr => [tr.dataset.strain,
              ...[...tr.querySelectorAll('td.num')].map(td => Number(td.textContent))])"""


async def test_the_replay_shows_the_analysis_the_api_made(
    servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any
) -> None:
    assert CHROMIUM is not None
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
        aiohttp.ClientSession() as http,
    ):
        await write(store, generate(SPEC))
        url = f"{web.verify_url}/v1/matches/{SPEC.match_id}/analysis"
        got: dict[str, Any] = {}

        async def analysed() -> bool:
            async with http.get(url) as resp:
                got.update(await resp.json())
                return resp.status == 200

        await eventually(analysed, timeout=60)
        api = dict(got)
        deal = api["deals"][0]
        page = await browser.new_page()
        async with explained(page, "replay-analysis"):
            await page.set_viewport(*LAPTOP)
            await page.goto(f"{web.url}#/replay/{SPEC.match_id}")
            await page.wait_for("document.querySelector('#analysis[data-ready=\"yes\"]')", 30)
            seats = await page.evaluate(SEATS)
            assert seats == [
                [s["seat"], s["lost"], "" if s["accuracy"] is None else str(s["accuracy"])]
                for s in api["seats"]
            ], seats
            await page.wait_for("document.querySelector('#analysis-deal')")
            lost = await page.evaluate(LOST)
            assert lost == [[c["card"], c["loss"]] for c in deal["cards"] if c["loss"]], lost
            contracts = await page.evaluate(CONTRACTS)
            assert contracts == [[c["strain"], *c["points"]] for c in deal["contracts"]]
            points = await page.evaluate(
                "document.querySelector('.margin-chart polyline').getAttribute('points')"
                ".split(' ').length"
            )
            assert points == len(deal["cards"]) + 1
            # Step to the deal's first card: its verdict is the API's.
            for _ in range(40):
                card = await page.evaluate("document.querySelector('#step-analysis').dataset.card")
                if card == "0":
                    break
                await page.click("#step-next")
            verdict = await page.evaluate("document.querySelector('#step-analysis').textContent")
            first = deal["cards"][0]
            if first["loss"]:
                assert f"Gave away {first['loss']} point" in verdict, verdict
            else:
                assert verdict.startswith("A best card"), verdict
            shots = []
            for name, size, where in (("laptop", LAPTOP, "#analysis-deal"),
                                      ("phone", PHONE, "#analysis")):  # fmt: skip
                await page.set_viewport(*size)
                await page.evaluate(f"document.querySelector('{where}').scrollIntoView()")
                shot = await page.screenshot(ARTIFACTS / f"replay-analysis-{name}.png", False)
                to_docs(shot)
                shots.append(shot)
            # In Russian: the same numbers, the words of the catalogue.
            await page.goto(f"{web.url}?lang=ru#/replay/{SPEC.match_id}")
            await page.wait_for("document.querySelector('#analysis[data-ready=\"yes\"]')", 30)
            heading = await page.evaluate("document.querySelector('#analysis h2').textContent")
            assert heading == "Анализ", heading
            assert await page.evaluate(SEATS) == seats
            await page.wait_for("document.querySelector('#analysis-deal')")
            for name, size in (("laptop", LAPTOP), ("phone", PHONE)):
                await page.set_viewport(*size)
                await page.evaluate("document.querySelector('#analysis-deal').scrollIntoView()")
                shot = await page.screenshot(ARTIFACTS / f"replay-analysis-ru-{name}.png", False)
                to_docs(shot)
                shots.append(shot)
            assert page.errors == [], page.errors
    print(f"\nscreenshots: {' '.join(map(str, shots))}")
