"""The web client in a real browser (Debian's headless Chromium over the DevTools
protocol, tests/browser.py) against the real services: randomness (a local drand relay on
a virtual clock, or relays that never answer), a table worker, the outbox relay, the
gateway serving the client, and the verify API.

1. With drand: a player signs up, opens a classic table with three bots, plays the whole
   match by clicking (bids and legal cards), sees the in-tab check pass (the tab watched
   drand itself on the player's relay, had the named round only after it was named, and
   verified its signature), then opens the replay and sees the verify service's report
   and every deck recomputed in the tab.
2. Without drand (the relays never answer: the fallback), and the stored server reveal
   tampered with as the tab writes it: the table says the match was dealt without drand
   and shows the failed check at once; the server's own report still passes. The same
   account, logged in in another browser, sees the table in the lobby with its bots; at
   the end the player signs out and logs in again.
3. Two players at a gambler table, one sitting down from the lobby's listing; dealt
   without drand, both tabs end amber: nothing failed, but that drand was late cannot be
   checked.
4. The page imports web/js/drand.js, whose vendored noble modules its import map resolves
   (the CSP allows that inline script by its hash, and no other): recorded quicknet
   beacons verify, forged ones do not.
5. An attack in the real page: the server acknowledges the tab's seed (the receipt), then
   the window's close shows none for its seat (the WebSocket's messages rewritten in the
   page, as a dishonest server would send them): the red banner names "your seed" at
   once, and the check at the end fails it.

The tab's clock follows the services' virtual one (tests/browser.py Page.set_clock,
web/js/clock.js), and its drand relays are set as a player sets them (localStorage
"belot.drand.relays").

On every turn of every match the board is compared with the game core: the match's
events are read from the event log and replayed with ``belot``, and its view of the seat
must give the highlighted cards (the legal ones), the bid and action buttons, the hand,
the trick shown and the running score; a click on what the page offered must be taken
with no error shown. At the end the score, the commitment and every seat's seed shown
are the stored match record's.

Screenshots are saved under tests/artifacts/ (ignored by git); their paths are printed.
Skipped, saying so, when no Chromium is installed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession, web
from aiohttp.test_utils import TestClient, TestServer

import drand
from belot import RULESETS, replay, view
from belot.cards import to_code
from belot.codec import command_to_payload, from_payload
from belot.events import EVENT_TYPES, MatchStarted
from belot_platform.settings import Settings
from commands.translog_client import LogUnavailable
from commands.witness_cmd import Witness, witness_once
from drand import QUICKNET
from drand.clock import ScaledClock
from eventlog import EventStore
from fairdeal import logentries
from fairdeal.fairness import ROUND_LEAD_MS
from fairdeal.leave import verify_leave
from fairdeal.record import match_stream
from fairdeal.verifier import verify_record
from services.verify.app import create_app as build_verify_app
from services.verify.http import RateLimits
from tests.browser import Page, chromium, chromium_path
from tests.integration.gateway_support import gateway
from tests.integration.table_support import ORIGIN, platform
from tools.drand_vectors import DEFAULT_BEACONS, QUICKNET_BEACONS
from tools.matchgen import MatchSpec, generate, stored_record, write
from translog import (
    Checkpoint,
    Cosigner,
    Ed25519Signer,
    consistency_path,
    inclusion_path,
    leaf_hash,
    open_checkpoint,
    root_hash,
    sign_checkpoint,
)

CHROMIUM = chromium_path()
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
MATCH_TIMEOUT = 150.0
PASSWORD = "correct horse battery"
#: The buttons the table shows for the game core's legal actions other than bids and cards.
EXTRAS = {"DeclareMelds": "declare-melds", "SwapTrumpSeven": "swap", "DemandRedeal": "redeal"}
#: The running score as the page shows it, ours first: [12, 30] from "Your side 12 — 30
#: their side" (the side names, a player's among them, are left out).
SCORE = """(el => el ? [...el.childNodes].filter(n => n.nodeType === Node.TEXT_NODE)
  .map(n => n.textContent).join('').split('—').map(x => Number(x.trim())) : null)
  (document.querySelector('#score'))"""

#: A browser test's marks: the session's loop, and Chromium (a skip says what to install).
BROWSER_TEST = [
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no Chromium: install Debian's chromium (apt-get install chromium) "
        "or set BELOT_CHROMIUM to run the browser tests",
    ),
]
pytestmark = BROWSER_TEST


class RestartableClock(ScaledClock):
    """The virtual clock, set back to a moment of our choosing: the recorded beacons are
    rounds 1000-1003, so the table must open just after round 1000 came out."""

    def restart(self, origin: float) -> None:
        self.origin = origin
        self._start = time.monotonic()


#: The transparency log's key: verify signs with it, the gateway tells the tab its vkey.
LOG_ORIGIN = "log.browser.test/belot"
LOG_KEY = Ed25519Signer(LOG_ORIGIN, bytes(range(7, 39)))
#: The log's configured witness: the tab requires a majority of the configured witnesses'
#: cosignatures before the round was due (``log witnesses``), as belot run's own gives.
WITNESS_KEY = Cosigner("witness.browser.test/w1", bytes(range(41, 73)))


@dataclass
class Web:
    url: str
    verify_url: str
    clock: ScaledClock
    store: Any  # the event log the services write: the tests read matches from it
    drand_url: str = ""  # the local drand relay the randomness service asks
    front: LogFront | None = None  # the hostile front before verify, when a test has one


class LogFront:
    """An HTTP front before the verify service, as the page reaches it: it passes every
    request through, until ``fork(index)``; from then on it serves the transparency log
    as an operator who holds the log's key and rewrote entry ``index`` would: the stored
    entries with that one changed (a space added: the same JSON to a reader, another leaf
    hash), checkpoints of that tree signed with the log's own key, and the proofs of that
    tree. The forged log is whole (its own proofs all verify); only a checkpoint kept from
    before the rewrite can tell."""

    ROUTES = ("/checkpoint", "/v1/log/proof/inclusion", "/v1/log/proof/consistency")

    def __init__(self, upstream: str, pool: Any, schema: str) -> None:
        self.upstream = upstream
        self.pool = pool
        self.schema = schema
        self.forked: int | None = None
        self.forged_answers = 0
        self.app = web.Application()
        self.app.router.add_route("*", "/{tail:.*}", self.handle)
        self.client: TestClient | None = None  # type: ignore[type-arg]
        self.session: ClientSession | None = None

    def fork(self, index: int) -> None:
        self.forked = index

    async def entries(self) -> list[bytes]:
        rows = await self.pool.fetch(
            f'SELECT entry FROM "{self.schema}".translog_entries ORDER BY index'
        )
        entries = [bytes(r[0]) for r in rows]
        if self.forked is not None:
            entries[self.forked] = entries[self.forked].replace(b'"v":1', b'"v":1 ')
        return entries

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.forked is not None and request.path in self.ROUTES:
            self.forged_answers += 1
            return await self.forged(request)
        assert self.session is not None
        async with self.session.request(
            request.method, self.upstream + request.path_qs, data=await request.read()
        ) as r:
            keep = {k: v for k, v in r.headers.items() if k.lower() != "content-length"}
            keep.pop("Transfer-Encoding", None)
            return web.Response(status=r.status, body=await r.read(), headers=keep)

    async def forged(self, request: web.Request) -> web.Response:
        leaves = [leaf_hash(e) for e in await self.entries()]
        cors = {"Access-Control-Allow-Origin": "*"}
        q = request.query
        if request.path == "/checkpoint":
            n = len(leaves)
            note = sign_checkpoint(Checkpoint(LOG_ORIGIN, n, root_hash(leaves)), LOG_KEY)
            return web.Response(text=note.to_text(), content_type="text/plain", headers=cors)
        if request.path == "/v1/log/proof/inclusion":
            proof = inclusion_path(leaves, int(q["index"]), int(q["size"]))
        else:
            proof = consistency_path(leaves, int(q["first"]), int(q["second"]))
        return web.json_response(
            {"proof": [base64.b64encode(h).decode() for h in proof]}, headers=cors
        )

    async def __aenter__(self) -> LogFront:
        self.session = ClientSession()
        self.client = TestClient(TestServer(self.app))
        await self.client.start_server()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.client is not None and self.session is not None
        await self.client.close()
        await self.session.close()

    @property
    def url(self) -> str:
        assert self.client is not None
        return str(self.client.make_url("")).rstrip("/")


@contextlib.asynccontextmanager
async def web_stack(
    servers: Any, store: Any, pg_pool: Any, nc: Any, js_names: Any, *, drand_mode: str,
    clock: ScaledClock, hostile_log: bool = False, round_lead_ms: int = ROUND_LEAD_MS,
) -> AsyncIterator[Web]:  # fmt: skip
    """The services, the verify API with the transparency log (signing every 0.2 s with
    LOG_KEY, whose vkey the gateway tells the page), and the gateway; ``hostile_log``: the
    page reaches verify through a LogFront."""
    verify_schema = f"v_{uuid.uuid4().hex[:12]}"
    verify = TestClient(
        TestServer(
            build_verify_app(
                Settings(
                    pg_dsn=servers.pg_dsn,
                    pg_schema=store.schema,
                    translog_origin=LOG_ORIGIN,
                    translog_key=LOG_KEY.skey,
                    translog_interval=0.2,
                    translog_witnesses=(WITNESS_KEY.vkey,),
                ),
                schema=verify_schema,
                limits=RateLimits(rate=10_000, burst=100_000),
            )
        )
    )
    await verify.start_server()
    try:
        async with contextlib.AsyncExitStack() as stack:
            services = platform(
                store,
                pg_pool,
                nc,
                js_names,
                drand_mode=drand_mode,
                clock=clock,
                turn_ms=60_000,
                round_lead_ms=round_lead_ms,
            )
            p = await stack.enter_async_context(services)
            verify_url = str(verify.make_url("")).rstrip("/")
            state = stack.enter_context(tempfile.TemporaryDirectory())
            witness = Witness(LOG_KEY.verifier(), WITNESS_KEY, Path(state) / "witness.state")
            stack.push_async_callback(
                _stopped, asyncio.create_task(_witnessing(witness, verify_url, clock))
            )
            front = None
            if hostile_log:
                front = await stack.enter_async_context(LogFront(verify_url, pg_pool, store.schema))
                verify_url = front.url
            http = await stack.enter_async_context(
                gateway(
                    servers,
                    store.schema,
                    js_names,
                    p.prefix,
                    verify_url=verify_url,
                    drand_urls=(p.drand_url,),
                    translog_origin=LOG_ORIGIN,
                    translog_vkey=LOG_KEY.vkey,
                )
            )
            yield Web(str(http.make_url("/")), verify_url, clock, store, p.drand_url, front)
    finally:
        await asyncio.wait_for(verify.close(), 30)
        # A lock a stuck connection holds must not make the teardown wait for ever.
        await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{verify_schema}" CASCADE', timeout=30)


async def _witnessing(witness: Witness, api: str, clock: ScaledClock) -> None:
    """The configured witness, on the services' clock, every 0.2 s (as belot witness run
    does every second against a log that signs every second): it reads the log's own
    API, never the page's front."""
    while True:
        with contextlib.suppress(LogUnavailable):
            await witness_once(witness, api, clock=clock.now)
        await asyncio.sleep(0.2)


async def _stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@contextlib.asynccontextmanager
async def watchdog(limit: float = 300.0) -> AsyncIterator[None]:
    """Print every task's stack if the test (its teardown included) outlives ``limit``:
    a hang while the services stop then says where it is."""
    dump = asyncio.create_task(_dump_tasks_after(limit))
    try:
        yield
    finally:
        dump.cancel()


async def _dump_tasks_after(seconds: float) -> None:
    await asyncio.sleep(seconds)
    print(f"\nthe test still runs after {seconds} s (a hang?); its tasks:", file=sys.stderr)
    for task in asyncio.all_tasks():
        print(f"--- {task.get_name()}", file=sys.stderr)
        task.print_stack(file=sys.stderr)


async def follow_clock(page: Page, clock: ScaledClock) -> None:
    """The tab's clock reads the services' virtual one, from now on."""
    await page.set_clock(clock.now() * 1000, time.time() * 1000, clock.speed)


async def as_player(page: Page, web: Web, relays: list[str]) -> None:
    """A tab on the services' clock whose player chose these drand relays (none: only
    the server's are asked; the public ones are not reachable from here)."""
    await follow_clock(page, web.clock)
    await page.add_init_script(
        "try { localStorage.setItem('belot.drand.relays', "
        f"{json.dumps(json.dumps(relays))}); }} catch (e) {{}}"
    )


async def sign_up(page: Page, web: Web, name: str) -> None:
    await page.goto(web.url)
    await page.wait_for("document.querySelector('#login')")
    await page.type("#name", name)
    await page.type("#password", PASSWORD)
    await page.click("#sign-up")
    await page.wait_for("document.querySelector('#create-table')")
    assert await page.evaluate("document.querySelector('#who').textContent") == name


async def log_in(page: Page, name: str) -> None:
    """Log in with an account that exists, from the login page; lands in the lobby."""
    await page.wait_for("document.querySelector('#login')")
    await page.type("#name", name)
    await page.type("#password", PASSWORD)
    await page.click("#log-in")
    await page.wait_for("document.querySelector('#create-table')")
    who, said = await page.evaluate(
        "[document.querySelector('#who')?.textContent,"
        " document.querySelector('#message').textContent]"
    )
    assert (who, said) == (name, f"Logged in as {name}."), (who, said)


LOBBY_ROW = """(id => {
  const tr = [...document.querySelectorAll('#tables tr')].find(r => r.dataset.table === id);
  if (!tr) return null;
  const [about, status, seats] = tr.querySelectorAll('td');
  return {
    ruleset: about.querySelector('strong').textContent,
    target: about.querySelector('.dim').textContent,
    status: status.textContent,
    count: seats.firstChild.textContent,
    seats: [...seats.querySelectorAll('li')].map(li => [li.className, li.textContent]),
    sit: [...seats.querySelectorAll('button.sit')].map(b => b.dataset.seat),
  };
})"""


async def lobby_row(page: Page, table_id: str) -> dict[str, Any]:
    """The lobby's line for a table, once listed (the lobby asks every 3 s)."""
    row: dict[str, Any] = await page.wait_for(f"{LOBBY_ROW}({json.dumps(table_id)})", timeout=10)
    return row


async def fair_deal_shown(page: Page) -> dict[str, Any]:
    """The table's fair-deal panel: the commitment and every seat's seed (None: none)."""
    shown: dict[str, Any] = await page.evaluate(
        """({
          commitment: document.querySelector('#commitment')?.title ?? null,
          commitment_text: document.querySelector('#commitment')?.textContent ?? null,
          seeds: [...document.querySelectorAll('#seat-seeds li')]
            .map(li => li.querySelector('code')?.title ?? null),
        })"""
    )
    return shown


def assert_fair_deal_is_the_record(shown: dict[str, Any], record: dict[str, Any]) -> None:
    commitment = record["fair_deal"]["commitment"]
    assert shown["commitment"] == commitment, (shown, commitment)
    text = shown["commitment_text"]
    assert text.startswith(commitment[:16]) and text.endswith(commitment[-4:]), text
    assert shown["seeds"] == [s["seed"] or None for s in record["seats"]], shown


def scored_before_the_end(record: dict[str, Any]) -> bool:
    """A deal before the last left a match score other than 0:0, so the running score
    shown on a later turn was not all zeros (a match may end in its first deal)."""
    return any(d["score"] and any(d["score"]["scores"]) for d in record["deals"][:-1])


async def assert_final_score_is_the_record(page: Page, record: dict[str, Any], seat: int) -> None:
    """The score bar, the final score and the status line give the record's result, the
    seat's side first."""
    score, final, status = await page.evaluate(
        f"[{SCORE}, document.querySelector('#trick .final-score')?.textContent,"
        " document.querySelector('#status')?.textContent]"
    )
    scores = record["result"]["scores"]
    ours = [scores[seat % 2], scores[1 - seat % 2]]
    assert score == ours, (score, record["result"])
    assert final == f"{ours[0]}:{ours[1]}", (final, record["result"])
    assert status.startswith("Match over: ") and status.endswith(f", {final}."), status


async def open_table(
    page: Page, web: Web, *, ruleset: str = "classic", target: int = 151,
    before_create: Any = None,
) -> str:  # fmt: skip
    """Fill the lobby's form: me at seat 0, bots at the others, a short match."""
    await page.select("#ruleset", ruleset)
    seats = await page.evaluate("document.querySelectorAll('#seat-choices select').length")
    for seat, level in list(((1, "bot:easy"), (2, "bot:medium"), (3, "bot:medium")))[: seats - 1]:
        await page.select(f"#seat-{seat}", level)
    await page.type("#target", str(target))
    await page.type("#bot-delay", "20")
    await page.type("#turn-seconds", "60")
    if before_create is not None:
        await before_create()
    await page.click("#create-table")
    table_id: str = await page.wait_for(
        "location.hash.startsWith('#/table/') && document.querySelector('#table[data-status]')"
        " && decodeURIComponent(location.hash.slice(8))"
    )
    return table_id


PROBE = """(() => {
  const t = document.querySelector('#table');
  if (!t) return null;
  const kept = Object.keys(localStorage).find(k => k.startsWith('belot.kept.'));
  return {
    turn: t.dataset.turn, version: t.dataset.version, check: t.dataset.check,
    status: t.dataset.status, phase: t.dataset.phase,
    match: kept ? kept.slice('belot.kept.'.length) : null,
    cards: [...document.querySelectorAll('#hand button.card.legal')].map(b => b.dataset.card),
    illegal: [...document.querySelectorAll('#hand button.card:not(.legal)')]
      .map(b => b.dataset.card),
    bids: [...document.querySelectorAll('#bids button.bid')].map(b => b.dataset.strain),
    belote: !!document.querySelector('#belote'),
    timer: document.querySelector('#timer')?.textContent ?? null,
    extras: ['declare-melds', 'swap', 'redeal'].filter(id => document.getElementById(id)),
    trick: [...document.querySelectorAll('#trick .played [data-card]')].map(c => c.dataset.card),
    score: SCORE,
  };
})()""".replace("SCORE", SCORE)


async def play_match(
    page: Page, rng: random.Random, store: Any, seat: int = 0, shot: Path | None = None,
    reload_after: int | None = None,
) -> dict[str, int]:  # fmt: skip
    """Click through the match: a bid button or a highlighted card whenever it is our
    turn, until the in-tab check has a result; before each click the board is compared
    with the game core's replay of the stored match (``against_core``). Returns what was
    clicked and checked. ``shot``: a screenshot the first time cards are highlighted;
    ``reload_after``: reload the page once after that many cards (the tab takes the
    table's events again)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + MATCH_TIMEOUT
    acted: dict[str, float] = {}  # match version -> when we clicked for it
    clicks = {"bids": 0, "cards": 0, "timer_seen": 0, "refused": 0, "melds": 0, "swaps": 0}
    clicks |= {"core_checked": 0, "tricks_seen": 0, "scores_seen": 0}
    while True:
        state = await page.evaluate(PROBE)
        if state and state["check"] in ("pass", "fail", "unchecked"):
            return clicks
        if loop.time() > deadline:
            raise AssertionError(f"the match did not finish in {MATCH_TIMEOUT} s: {state}")
        mine = state and state["turn"] == "me"
        stale = state and loop.time() - acted.get(state["version"], -99.0) < 3.0
        if mine and state["timer"] and re.fullmatch(r"\d+ s", state["timer"]):
            clicks["timer_seen"] += 1
        if mine and not stale:
            await against_core(store, state, seat, clicks)
            try:
                moved = await act(page, state, rng, clicks, shot)
            except TimeoutError:
                continue  # the page changed under the click (a newer view): look again
            if moved:
                acted[state["version"]] = loop.time()
            if reload_after is not None and clicks["cards"] == reload_after:
                reload_after = None
                await page.reload()
                await page.wait_for("document.querySelector('#table[data-status]')")
                clicks["reloads"] = 1
        await asyncio.sleep(0.05)


async def against_core(
    store: Any, state: dict[str, Any], seat: int, clicks: dict[str, int]
) -> None:
    """On our turn the match waits for us, so the board must be the game core's: replay
    the match's stored events with ``belot`` and compare its view of our seat with the
    page: the highlighted cards are the legal cards, the bid and action buttons the legal
    calls and actions, the hand, the trick on the table (the last one when none is
    started) and the running score. Skipped when the log is ahead of the page (a newer
    view is on its way)."""
    if state["match"] is None:
        return
    events = await store.read_stream(match_stream(state["match"]))
    if not events or str(events[-1].version) != state["version"]:
        return
    core = [from_payload(e.payload) for e in events if e.type in EVENT_TYPES]
    assert isinstance(core[0], MatchStarted), core[0]
    v = view(replay(RULESETS[core[0].ruleset], core), seat)
    legal = [command_to_payload(m) for m in v.legal]
    assert v.turn == seat and legal, (v.turn, state)
    assert set(state["cards"]) == {m["card"] for m in legal if m["type"] == "PlayCard"}, legal
    assert sorted(state["cards"] + state["illegal"]) == sorted(to_code(c) for c in v.hand)
    bids = sorted(m["strain"] or "pass" for m in legal if m["type"] == "Bid")
    assert sorted(state["bids"]) == bids, (state["bids"], bids)
    assert state["belote"] == any(m["type"] == "PlayCard" and m["belote"] for m in legal)
    offered = {EXTRAS[m["type"]] for m in legal if m["type"] in EXTRAS}
    assert set(state["extras"]) == offered, (state["extras"], legal)
    on_table = [to_code(c) for _, c in v.trick]
    if not on_table and v.tricks:
        on_table = [to_code(c) for c in v.tricks[-1].cards]
    assert state["trick"] == on_table, (state["trick"], on_table)
    side = seat % 2
    assert state["score"] == [v.scores[side], v.scores[1 - side]], (state["score"], v.scores)
    clicks["core_checked"] += 1
    clicks["tricks_seen"] += bool(on_table)
    clicks["scores_seen"] += any(v.scores)


async def answered(page: Page, version: str) -> None:
    """After a click on what the page offered: wait until the move is taken (the page no
    longer offers it) and fail if an error is shown instead. The message line is cleared
    first, so that an earlier refusal still shown is not taken for this one. Raises
    TimeoutError when nothing happened (the click missed: the caller looks again)."""
    await page.evaluate(
        "(m => { m.hidden = true; m.textContent = ''; m.className = 'message'; })"
        "(document.querySelector('#message'))"
    )
    said = await page.wait_for(
        f"""(() => {{
          const t = document.querySelector('#table');
          const m = document.querySelector('#message');
          const error = !m.hidden && m.classList.contains('error') ? m.textContent : '';
          if (error) return {{error}};
          if (t && (t.dataset.turn !== 'me' || t.dataset.version !== {json.dumps(version)}))
            return {{error: ''}};
          return null;
        }})()""",
        timeout=5,
    )
    assert said["error"] == "", f"the page refused what it offered: {said['error']}"


async def act(
    page: Page, state: dict[str, Any], rng: random.Random, clicks: dict[str, int],
    shot: Path | None,
) -> bool:  # fmt: skip
    """One click for our turn; False when it was a card the server had to refuse."""
    if state["bids"]:
        # Take one time in three, else pass (bots take otherwise; all passing redeals,
        # which the check must follow too).
        takes = [b for b in state["bids"] if b != "pass"]
        choice = rng.choice(takes) if takes and rng.random() < 0.34 else "pass"
        await page.click(f'#bids button.bid[data-strain="{choice}"]', timeout=2)
        await answered(page, state["version"])
        clicks["bids"] += 1
        return True
    if "declare-melds" in state["extras"]:
        await page.click("#declare-melds", timeout=2)  # melds are worth declaring
        await answered(page, state["version"])
        clicks["melds"] += 1
        return True
    if "swap" in state["extras"] and rng.random() < 0.5:
        await page.click("#swap", timeout=2)
        await answered(page, state["version"])
        clicks["swaps"] += 1
        return True
    if not state["cards"]:
        return False
    if shot is not None and clicks["cards"] == 2:
        await page.screenshot(shot)
    if state["illegal"] and not clicks["refused"]:
        # A card the rules forbid now: the server refuses it and the page says why.
        await page.click(f'#hand button.card[data-card="{state["illegal"][0]}"]', timeout=2)
        said = await page.wait_for(
            "(t => t.includes('cannot play') && t)"
            "(document.querySelector('#message:not([hidden])')?.textContent ?? '')"
        )
        assert said.startswith("Playing ") and "You cannot play that card now" in said
        print(f"\nrefused as it should be: {said}")
        clicks["refused"] += 1
        return False
    card = rng.choice(state["cards"])
    await page.click(f'#hand button.card.legal[data-card="{card}"]', timeout=2)
    await answered(page, state["version"])
    clicks["cards"] += 1
    return True


async def kept_record(page: Page) -> dict[str, Any]:
    raw = await page.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('belot.kept.'))"
        ".map(k => localStorage.getItem(k))"
    )
    assert len(raw) == 1, raw
    kept: dict[str, Any] = json.loads(raw[0])
    return kept


async def checks_shown(page: Page) -> dict[str, str]:
    shown: dict[str, str] = await page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#checks li')]"
        ".map(li => [li.dataset.check, li.className]))"
    )
    return shown


def artifact(name: str) -> Path:
    return ARTIFACTS / name


#: Where the docs' screenshots live: a test copies its screenshot there only when
#: BELOT_DOCS_SHOTS=1 asks it to (a run of the tests leaves the checkout as it was).
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def to_docs(shot: Path) -> None:
    """Copy ``shot`` to docs/img/ when BELOT_DOCS_SHOTS=1 (the docs' pictures renewed)."""
    if os.environ.get("BELOT_DOCS_SHOTS") == "1":
        shutil.copy(shot, DOCS_IMG / shot.name)


@contextlib.asynccontextmanager
async def explained(page: Page, name: str) -> AsyncIterator[None]:
    """On a failure, save what the page showed and what it said, then fail."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            path = await page.screenshot(artifact(f"web-failure-{name}.png"))
            status = await page.evaluate(
                "[document.querySelector('#status')?.textContent,"
                " document.querySelector('#message')?.textContent,"
                " Object.keys(localStorage).filter(k => k.startsWith('belot.kept.'))"
                ".map(k => localStorage.getItem(k))]"
            )
            print(f"\nfailure screenshot: {path}\npage: {status}\nerrors: {page.errors}")
        raise


async def test_a_player_plays_a_classic_match_and_the_tab_verifies_it(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    started = time.monotonic()
    # Half real speed: the tab has 2.9 virtual seconds (5.8 real) after round 1000 to send
    # its seed, so that round 1001 (recorded) is the one named. With no lead (the rule of
    # commitments made before it, which tabs still check): the 6 s lead would be 12 s
    # more at this speed; the other browser tests run with it, twice as fast.
    clock = RestartableClock(ORIGIN, 0.5)
    async with (
        watchdog(),
        web_stack(
            servers, store, pg_pool, nc, js_names, drand_mode="ok", clock=clock, round_lead_ms=0
        ) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await as_player(page, web, [web.drand_url])
        shots, clicks = await drand_match(page, web, clock, store)
    print(f"\nscreenshots: {' '.join(str(p) for p in shots)}")
    print(f"browser match with drand: {time.monotonic() - started:.1f} s, clicks {clicks}")


async def drand_match(
    page: Page, web: Web, clock: RestartableClock, store: Any
) -> tuple[list[Path], dict[str, int]]:
    round_1000 = QUICKNET.time_of_round(1000)

    async def just_after_round_1000() -> None:
        clock.restart(round_1000 + 0.1)
        await follow_clock(page, clock)

    async with explained(page, "drand"):
        await sign_up(page, web, f"ann{uuid.uuid4().hex[:6]}")
        table_id = await open_table(page, web, target=301, before_create=just_after_round_1000)
        # The fair deal in the tab, before the first card.
        await page.wait_for("document.querySelector('#my-seed')")
        shown_first = await fair_deal_shown(page)
        await page.wait_for("document.querySelector('#drand-round')", timeout=30)
        playing_png = artifact("web-table-playing.png")
        clicks = await play_match(page, random.Random(11), store, shot=playing_png, reload_after=5)
        assert clicks["cards"] >= 8 and clicks["timer_seen"] and clicks["refused"], clicks
        assert clicks["reloads"] == 1, clicks
        assert clicks["core_checked"] >= 8 and clicks["tricks_seen"], clicks
        await page.wait_for("document.querySelector('#table').dataset.check === 'pass'")
        # The table closes after the reveal; its final view comes from the log.
        await page.wait_for("document.querySelector('#table').dataset.status === 'closed'")
        await page.wait_for("document.querySelector('#table').dataset.phase === 'over'")
        shown = await checks_shown(page)
        kept = await kept_record(page)
        banner = await page.evaluate("document.querySelector('#banner').textContent")
        href = await page.evaluate("document.querySelector('#drand-round').href")
        shown_last = await fair_deal_shown(page)
        table_png = await page.screenshot(artifact("web-table-verified.png"))

        # What the tab kept, showed and checked is the match the log holds.
        record = await stored_record(store, kept["match_id"])
        assert clicks["scores_seen"] or not scored_before_the_end(record), clicks
        await assert_final_score_is_the_record(page, record, 0)
        # The commitment shown before the tab made its seed is the match's; every seat's
        # seed is shown as recorded (the bots': none).
        assert shown_first["commitment"] == record["fair_deal"]["commitment"], shown_first
        assert_fair_deal_is_the_record(shown_last, record)
        assert kept["table_id"] == table_id
        assert record["seats"][kept["seat"]]["seed"] == kept["my_seed"]
        # Recorded beacons are rounds 1000-1003: the one named is the first after the seed.
        drand_round = kept["drand"]["round"]
        assert record["fair_deal"]["drand"]["round"] == drand_round in (1001, 1002, 1003)
        assert kept["reveal"]["server_seed"] == record["fair_deal"]["server_seed"]
        assert set(kept["deals"]) == {str(d["deal"]) for d in record["deals"]}
        assert kept["conflicts"] == []  # the reload showed the same facts again
        assert verify_record(record, bls=drand.verify).ok

        assert "verified in this tab" in banner.lower()
        assert href == f"https://api.drand.sh/{QUICKNET.hash}/public/{drand_round}"
        assert set(shown.values()) == {"pass"}, shown
        assert shown["commitment"] == "pass" and shown["your seed"] == "pass", shown
        assert shown["commitment bounds"] == "pass" and shown["dealer"] == "pass", shown
        assert shown["drand round"] == "pass" and shown["drand value"] == "pass", shown
        assert shown["drand relay"] == "pass", shown  # fetched by the tab itself
        # The transparency log: the checkpoint the tab pinned when the match opened (it
        # opens with the Python library too) is extended by the one at the end, which
        # holds each of the match's entries, and they say what the tab saw.
        for name in ("log key", "log consistency", "log inclusion", "log entries"):
            assert shown[name] == "pass", shown
        pinned = kept["log"]["open"]
        signed = open_checkpoint(pinned["note"], LOG_KEY.verifier())
        root = base64.b64encode(signed.checkpoint.root_hash).decode()
        assert (signed.checkpoint.size, root) == (pinned["size"], pinned["root"]), pinned
        assert kept["log"]["vkey"] == LOG_KEY.vkey and kept["log"]["told"] is None
        assert kept["commitment_seen_at"] <= pinned["seen_at"] < kept["reveal"]["seen_at"]
        key = json.loads(await page.evaluate("localStorage.getItem('belot.translog.key')"))
        assert key["vkey"] == LOG_KEY.vkey, key
        # The tab watched drand on the player's relay: it had the named round's value
        # only after it saw the round named, on its own clock; the seed's receipt named
        # the event that recorded it.
        own = kept["drand_seen"][str(drand_round)]
        assert (own["source"], own["relay"]) == ("player", web.drand_url), own
        assert kept["drand_round_live"] is True
        assert own["at"] >= kept["drand_round_seen_at"], (own, kept["drand_round_seen_at"])
        assert kept["receipt"]["version"] == kept["seed_received"]["version"], kept["receipt"]
        # The whole check again, in the page, on what the tab kept: how long it takes.
        again = await page.evaluate(
            """(async (id, api) => {
              const f = await import('/js/fairdeal.js');
              const kept = JSON.parse(localStorage.getItem('belot.kept.' + id));
              const t = performance.now();
              const r = await f.checkKept(kept, {relays: [], verifyApi: api});
              return [performance.now() - t, r.ok, r.checks.length];
            })"""
            f"({json.dumps(kept['match_id'])}, {json.dumps(web.verify_url)})"
        )
        assert again[1] is True, again
        print(
            f"\nthe tab had round {drand_round} {own['at'] - kept['drand_round_seen_at']} ms "
            f"(virtual, at half speed) after it saw it named; the whole check, "
            f"{again[2]} checks, takes {again[0]:.1f} ms in Chromium (drand's BLS check cached)"
        )
        # The log's checks again, in the page, against the verify service: how long.
        log_again = await page.evaluate(
            """(async (id, api, vkey) => {
              const l = await import('/js/logcheck.js');
              const b = await import('/js/logbase.js');
              const kept = JSON.parse(localStorage.getItem('belot.kept.' + id));
              const t = performance.now();
              const checks = await l.checkLog(kept, {verifyApi: api, key: b.logKeyOf(vkey, vkey)});
              return [performance.now() - t, checks.map(c => c.status)];
            })"""
            f"({json.dumps(kept['match_id'])}, {json.dumps(web.verify_url)},"
            f" {json.dumps(LOG_KEY.vkey)})"
        )
        assert log_again[1] == ["pass"] * 5, log_again  # with `log witnesses`
        entries = await web.store.pool.fetchval(
            f'SELECT count(*) FROM "{web.store.schema}".translog_entries'
        )
        print(
            f"the log's four checks take {log_again[0]:.1f} ms in Chromium (the match's "
            f"entries, a checkpoint, a consistency proof and one inclusion proof per entry, "
            f"from the verify service; {entries} entries in the log)"
        )
        deal_checks = [k for k in shown if k.startswith("deal ")]
        assert len(deal_checks) == len(record["deals"]) and all(
            shown[k] == "pass" for k in deal_checks
        )
        assert await page.evaluate("!document.querySelector('#fallback')")

        # The replay.
        await page.click("#replay-link")
        await page.wait_for("document.querySelector('#report-verdict')", timeout=30)
        assert await page.evaluate("document.querySelector('#replay').dataset.report") == "ok"
        assert await page.evaluate("document.querySelector('#replay').dataset.recomputed") == "ok"
        kept_items = await page.evaluate(
            "[...document.querySelectorAll('#kept li')].map(li => li.className)"
        )
        assert kept_items and set(kept_items) == {"pass"}, kept_items
        for _ in range(6):
            await page.click("#step-next")
        assert "step 7" in await page.evaluate("document.querySelector('#step-label').textContent")
        replay_png = await page.screenshot(artifact("web-replay.png"))
        assert page.errors == [], page.errors
    return [playing_png, table_png, replay_png], clicks


PINNED = """(() => {
  const key = Object.keys(localStorage).find(k => k.startsWith('belot.kept.'));
  const kept = key ? JSON.parse(localStorage.getItem(key)) : null;
  return kept && kept.log && kept.log.open ? kept.log.open : null;
})()"""


async def test_a_log_rewritten_after_the_tab_pinned_its_checkpoint_fails_at_the_end(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The operator rewrites the transparency log while the match runs (one entry from
    before it, changed in its bytes only) and serves the forked tree, signed with the
    log's own key, with proofs that all hold in it (LogFront, before verify). Everything
    the table showed adds up; the tab fails "log consistency" at the end, because the
    checkpoint it pinned when the match opened is not a prefix of the forked tree."""
    assert CHROMIUM is not None
    started = time.monotonic()
    # Another match already in the log: the checkpoint the tab pins holds entries.
    before = await EventStore.open(pg_pool, store.schema, producer="tests", entries=logentries)
    await write(before, generate(MatchSpec(match_id="before-1", ruleset="club", label="before")))
    await before.close()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(
            servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock,
            hostile_log=True,
        ) as web,
        chromium(CHROMIUM) as browser,
    ):  # fmt: skip
        assert web.front is not None
        page = await browser.new_page()
        await as_player(page, web, [])
        async with explained(page, "forked-log"):
            await sign_up(page, web, f"cy{uuid.uuid4().hex[:6]}")
            await open_table(page, web)
            pinned = await page.wait_for(PINNED, timeout=30)
            assert pinned["size"] >= 1, pinned
            web.front.fork(0)
            await play_match(page, random.Random(7), store)
            await page.wait_for("document.querySelector('#table').dataset.check === 'fail'")
            await page.wait_for("document.querySelector('#table').dataset.phase === 'over'")
            shown = await checks_shown(page)
            failed = await page.evaluate("document.querySelector('#banner').dataset.failed")
            detail = await page.evaluate(
                "document.querySelector('#checks li[data-check=\"log consistency\"]').textContent"
            )
            png = await page.screenshot(artifact("web-table-forked-log.png"))
            assert page.errors == [], page.errors
    # The fork is one no witness cosigned: the witnesses' check fails with it.
    assert failed == "log consistency,log witnesses", (failed, shown)
    assert shown["log consistency"] == "fail", shown
    assert "the log was rewritten" in detail and f"one of {pinned['size']} this tab" in detail
    # The forged tree is whole: its proofs hold, and the entries say what the table showed.
    assert (shown["log key"], shown["log inclusion"], shown["log entries"]) == ("pass",) * 3
    assert shown["commitment"] == "pass" and shown["your seed"] == "pass", shown
    assert all(shown[k] == "pass" for k in shown if k.startswith("deal ")), shown
    assert web.front.forged_answers >= 3  # a checkpoint, a consistency proof, inclusions
    print(f"\nscreenshot: {png}")
    print(f"browser match against a rewritten log: {time.monotonic() - started:.1f} s")


TAMPER = """(() => {
  // The test's tamperer: whatever the tab stores of a match, the server's reveal in it is
  // changed (one hex digit) as it is written. The tab's check reads the stored copy.
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (typeof key === 'string' && key.startsWith('belot.kept.')) {
      try {
        const kept = JSON.parse(value);
        if (kept.reveal && !kept.reveal.tampered) {
          const s = kept.reveal.server_seed;
          kept.reveal.server_seed = (s[0] === '0' ? '1' : '0') + s.slice(1);
          kept.reveal.tampered = true;
          value = JSON.stringify(kept);
        }
      } catch (e) {}
    }
    return setItem.call(this, key, value);
  };
})();"""


async def test_a_tampered_reveal_is_shown_failed_and_a_fallback_says_so(
    servers, store, pg_pool, nc, js_names
) -> None:
    assert CHROMIUM is not None
    started = time.monotonic()
    # Relays that never answer: the fallback in 2.5 s. (Twice real speed, not faster: the
    # tab's check compares its own times with drand's schedule, on a clock that runs as
    # fast as the services' one, and real latencies grow with it.)
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await as_player(page, web, [])
        png = await tampered_match(page, web, store, browser)
    print(f"\nscreenshot: {png}")
    print(f"browser match, fallback and tampered reveal: {time.monotonic() - started:.1f} s")


async def tampered_match(page: Page, web: Web, store: Any, browser: Any) -> Path:
    async with explained(page, "tampered"):
        await page.add_init_script(TAMPER)
        # A refused log-in is said plainly.
        await page.goto(web.url)
        await page.type("#name", "nobody-here")
        await page.type("#password", "not the password")
        await page.click("#log-in")
        said = await page.wait_for("document.querySelector('#message:not([hidden])')?.textContent")
        assert said == "Logging in: Wrong name or password.", said
        name = f"bob{uuid.uuid4().hex[:6]}"
        await sign_up(page, web, name)
        table_id = await open_table(page, web)
        # The same account logged in elsewhere sees the table in the lobby, its bots too.
        elsewhere = await browser.new_page(context=await browser.new_context())
        await elsewhere.goto(web.url)
        await log_in(elsewhere, name)
        row = await lobby_row(elsewhere, table_id)
        await elsewhere.close()
        assert elsewhere.errors == [], elsewhere.errors
        assert (row["ruleset"], row["target"]) == ("classic", "to 151"), row
        assert row["count"] == "0 free, 3 bots", row
        assert row["seats"] == [
            ["seat taken me", name],
            ["seat bot", "bot (easy)"],
            ["seat bot", "bot (medium)"],
            ["seat bot", "bot (medium)"],
        ], row
        assert row["sit"] == [] and row["status"] != "open", row
        await page.wait_for("document.querySelector('#fallback')", timeout=30)
        fallback_text = await page.evaluate("document.querySelector('#fallback').textContent")
        clicks = await play_match(page, random.Random(5), store)
        assert clicks["core_checked"] >= 4, clicks
        await page.wait_for("document.querySelector('#table').dataset.check === 'fail'")
        await page.wait_for("document.querySelector('#table').dataset.phase === 'over'")
        banner = await page.evaluate("document.querySelector('#banner').textContent")
        shown = await checks_shown(page)
        message = await page.evaluate("document.querySelector('#message').textContent")
        kept = await kept_record(page)
        png = await page.screenshot(artifact("web-table-tampered.png"))

        record = await stored_record(store, kept["match_id"])
        await assert_final_score_is_the_record(page, record, 0)
        assert record["fair_deal"]["fallback"] is not None and record["fair_deal"]["drand"] is None
        assert kept["reveal"]["tampered"] is True
        assert kept["reveal"]["server_seed"] != record["fair_deal"]["server_seed"]
        # The server's own verifier passes: the failure is the tab's, found on its own.
        assert verify_record(record, bls=drand.verify).ok

        assert fallback_text == "Dealt without drand"
        assert "FAILED" in banner and "commitment" in banner, banner
        assert "FAILED" in message, message
        assert shown["commitment"] == "fail", shown
        assert shown["drand fallback"] == "unchecked", shown  # the relays never answered
        assert shown["your seed"] == "pass" and shown["commitment bounds"] == "pass", shown
        assert all(shown[k] == "fail" for k in shown if k.startswith("deal ")), shown

        # Signing out and in again with the account: the lobby, under its name.
        await page.click("#log-out")
        await page.wait_for("document.querySelector('#login') && !document.querySelector('#who')")
        await log_in(page, name)
        assert page.errors == [], page.errors
    return png


async def test_two_players_sit_and_play_gambler_and_both_tabs_check(
    servers, store, pg_pool, nc, js_names
) -> None:
    """Two people in two browser contexts: one opens a gambler table with a free seat,
    the other takes it from the lobby; both play by clicking (gambler's bids, "Declare
    melds" and "Swap the trump seven" when the server offers them, misère when both
    pass), and each tab checks its own cards; a fallback match."""
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        gil = await browser.new_page(context=await browser.new_context())
        hal = await browser.new_page(context=await browser.new_context())
        for page in (gil, hal):
            await as_player(page, web, [])
        async with explained(gil, "gambler-gil"), explained(hal, "gambler-hal"):
            gil_name = f"gil{uuid.uuid4().hex[:6]}"
            await sign_up(gil, web, gil_name)
            await gil.select("#ruleset", "gambler")
            await gil.select("#seat-1", "human")
            await gil.type("#target", "300")
            await gil.click("#create-table")
            await gil.wait_for("document.querySelector('#table[data-status=\"open\"]')")
            assert "Waiting for 1 more player" in await gil.evaluate(
                "document.querySelector('#status').textContent"
            )
            table_id = await gil.evaluate("decodeURIComponent(location.hash.slice(8))")
            hal_name = f"hal{uuid.uuid4().hex[:6]}"
            await sign_up(hal, web, hal_name)
            # The lobby lists the open table: its ruleset, who sits, the free seat.
            row = await lobby_row(hal, table_id)
            assert (row["ruleset"], row["target"]) == ("gambler", "to 300"), row
            assert (row["status"], row["count"]) == ("open", "1 free, 0 bots"), row
            # Seats are numbered 1 and 2 where a number is needed.
            assert row["seats"] == [["seat taken", gil_name], ["seat free", "Sit at seat 2"]]
            assert row["sit"] == ["1"], row
            await hal.click("button.sit[data-seat='1']", timeout=10)  # from the lobby
            await hal.wait_for("document.querySelector('#table[data-status]')")
            assert await hal.evaluate("document.querySelectorAll('.seat-box').length") == 2
            clicks = await asyncio.gather(
                play_match(gil, random.Random(3), store, 0),
                play_match(hal, random.Random(4), store, 1),
            )
            shown = [await checks_shown(p) for p in (gil, hal)]
            kept = [await kept_record(p) for p in (gil, hal)]
            record = await stored_record(store, kept[0]["match_id"])
            for seat, page in enumerate((gil, hal)):
                assert clicks[seat]["core_checked"] >= 8, clicks
                assert clicks[seat]["tricks_seen"], clicks
                assert clicks[seat]["scores_seen"] or not scored_before_the_end(record), clicks
                await page.wait_for("document.querySelector('#table').dataset.phase === 'over'")
                await assert_final_score_is_the_record(page, record, seat)
                assert_fair_deal_is_the_record(await fair_deal_shown(page), record)
            png = [
                await gil.screenshot(artifact("web-table-gambler.png")),
                await hal.screenshot(artifact("web-table-gambler-2.png")),
            ]
            for page in (gil, hal):
                # Dealt without drand and no relay answered: amber, never green.
                assert await page.evaluate("document.querySelector('#table').dataset.check") == (
                    "unchecked"
                )
                banner = await page.evaluate(
                    "[document.querySelector('#banner').className,"
                    " document.querySelector('#banner').textContent]"
                )
                assert banner[0] == "banner unchecked", banner
                assert banner[1].startswith("Fair deal checked in this tab, but 2 could"), banner
                assert "could not check that drand was late" in banner[1], banner
                assert "Nothing failed" in banner[1], banner
                assert page.errors == [], page.errors
            for s in shown:
                assert s["commitment"] == "pass" and s["your seed"] == "pass", s
                assert s["dealer"] == "pass" and s["commitment bounds"] == "pass", s
                assert s["drand fallback"] == "unchecked", s
                assert s["drand round"] == "unchecked", s  # only the server's relay, down
                assert "fail" not in s.values(), s
            # The replay of this match, dealt without drand, never says it failed: the
            # tab's own check at the table could not check everything, nothing failed.
            await gil.goto(f"{web.url}#/replay/{kept[0]['match_id']}")
            await gil.wait_for(
                "document.querySelector('#replay[data-report]') && "
                "document.querySelector('#kept-verdict')"
            )
            verdict = await gil.evaluate("document.querySelector('#kept-verdict').dataset.status")
            assert verdict == "unchecked", verdict
            # (A contract the takers failed is the game's word: the verification is read.)
            text = await gil.evaluate("document.querySelector('#verification').innerText")
            said_failed = re.compile(r"(?<!nothing )\bfailed\b", re.I)  # not "fail" of a bait
            failed = [line for line in text.splitlines() if said_failed.search(line)]
            assert failed == [], failed
            assert "could not check everything; nothing failed" in text.replace("\n", " ")
            # The seats are named by their players in the replay too.
            meta = await gil.evaluate("document.querySelector('#deals p').textContent")
            assert gil_name in meta or hal_name in meta, meta
            # Each tab kept its own seat's cards, and both seeds went into the decks.
            assert [k["seat"] for k in kept] == [0, 1]
            assert kept[0]["seat_seeds"] == kept[1]["seat_seeds"]
            assert kept[0]["seat_seeds"] == [kept[0]["my_seed"], kept[1]["my_seed"]]
            assert kept[0]["deals"]["0"]["first"] != kept[1]["deals"]["0"]["first"]
    print(f"\nscreenshots: {png[0]} {png[1]}")
    print(f"browser gambler match of two: {time.monotonic() - started:.1f} s, clicks {clicks}")


DROP_MY_SEED = """(() => {
  // A dishonest server, as the tab sees it: every WebSocket message passes through here.
  // The seed this tab sent is acknowledged (the seed reply's receipt is the server's own,
  // untouched), then the window's close shows none for seat 0 and lists it missing, and
  // the event recording it is never shown.
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  const edit = (m) => {
    if (m.type !== 'event') return m;
    if (m.event === 'SeatSeedReceived' && m.payload.seat === 0) return null;
    if (m.event !== 'SeedWindowClosed') return m;
    const seat_seeds = [...m.payload.seat_seeds];
    seat_seeds[0] = '';
    const missing = [...new Set([...m.payload.missing, 0])];
    return {...m, payload: {...m.payload, seat_seeds, missing}};
  };
  window.WebSocket = class extends Native {
    set onmessage(handler) {
      super.onmessage = (e) => {
        const text = typeof e.data === 'string' ? e.data : decoder.decode(e.data);
        const out = edit(JSON.parse(text));
        if (out !== null) handler(new MessageEvent('message', {data: JSON.stringify(out)}));
      };
    }
    get onmessage() { return super.onmessage; }
  };
  window.confirm = () => true;  // "leaving forfeits it for your side. Leave?"
})();"""


async def test_a_seed_dropped_after_its_receipt_is_shown_failed_at_once(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The real page against a dishonest server (its messages rewritten in the page):
    the tab sent its seed and got a receipt, then the window closed showing no seed for
    its seat. The red banner beside the board names "your seed" at once, while the deal
    goes on; the player leaves (a forfeit), comes back, and the check at the end fails
    it too, naming the receipt's event."""
    assert CHROMIUM is not None
    started = time.monotonic()
    clock = ScaledClock(ORIGIN, 2.0)
    async with (
        watchdog(),
        web_stack(servers, store, pg_pool, nc, js_names, drand_mode="down", clock=clock) as web,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await as_player(page, web, [])
        await page.add_init_script(DROP_MY_SEED)
        async with explained(page, "dropped-seed"):
            await sign_up(page, web, f"dee{uuid.uuid4().hex[:6]}")
            table_id = await open_table(page, web)
            t0 = time.monotonic()
            # (Said at the close; the receipt may come a moment after it: then it is named.)
            banner = await page.wait_for(
                "(b => b && b.classList.contains('fail') && b.textContent.includes('receipt')"
                " && [b.dataset.failed, b.textContent])"
                "(document.querySelector('#fairdeal #banner'))",
                timeout=30,
            )
            live_s = time.monotonic() - t0
            assert banner[0] == "your seed", banner
            assert banner[1].startswith("Fair-deal check FAILED (your seed): the server "), banner
            assert "acknowledged your seed (receipt: randomness-" in banner[1], banner
            assert "showing no seed for your seat" in banner[1], banner
            assert await page.evaluate("document.querySelector('#table').dataset.live") == "fail"
            # Never behind a click: the seal on the felt turns red and the fair-deal panel
            # opens by itself with its banner, beside the felt (the cards did not move for
            # it: the felt starts where it did).
            beside = await page.evaluate(
                """(() => {
                  const b = document.querySelector('#banner');
                  const seal = document.querySelector('#felt #seal');
                  const top = (s) => document.querySelector(s).getBoundingClientRect().top;
                  return [!!b.closest('aside.fairdeal'), !b.closest('aside.fairdeal').hidden,
                          seal.dataset.state, top('#felt') === top('.table-side')];
                })()"""
            )
            assert beside == [True, True, "fail", True], beside
            kept = await kept_record(page)
            assert kept["receipt"]["seat"] == 0 and kept["seat_seeds"][0] == "", kept
            assert kept["seed_received"] is None and kept["missing_seeds"] == [0], kept
            live_png = await page.screenshot(artifact("web-table-dropped-seed.png"))
            # The match goes on; the player leaves once the first deal is out.
            await page.wait_for(
                "['bidding', 'playing'].includes(document.querySelector('#table').dataset.phase)",
                timeout=30,
            )
            await page.click("#leave")
            await page.wait_for("document.querySelector('#create-table')")
            await page.evaluate(f"location.hash = '#/table/{table_id}'")
            await page.wait_for(
                "document.querySelector('#table')?.dataset.check === 'fail'", timeout=60
            )
            shown = await checks_shown(page)
            final = await page.evaluate(
                "[document.querySelector('#banner').dataset.failed,"
                " document.querySelector('#checks li[data-check=\"your seed\"]').textContent]"
            )
            kept = await kept_record(page)
            record = await stored_record(store, kept["match_id"])
            # The server's own record is honest: the seed was used there.
            assert record["seats"][0]["seed"] == kept["my_seed"]
            # The page left with its seat's signature (web/js/seatkey.js), made with the
            # key it sent with the seat, which the commitment recorded before any seed.
            mine = await page.evaluate(
                f"JSON.parse(localStorage.getItem('belot.seatkey.{table_id}')).key"
            )
            commit = next(e["payload"] for e in record["streams"]["randomness"]["events"]
                          if e["type"] == "ServerSeedCommitted")  # fmt: skip
            forfeit = next(e["payload"] for e in record["streams"]["match"]["events"]
                           if e["type"] == "MatchForfeited")  # fmt: skip
            assert commit["seats"][0]["key"] == mine and forfeit["leaver"] == 0, commit
            assert verify_leave(
                bytes.fromhex(mine), kept["match_id"], 0, bytes.fromhex(forfeit["signature"])
            )
            assert shown["your seed"] == "fail", shown
            assert "your seed" in final[0].split(","), final
            assert f"version {kept['receipt']['version']}" in final[1], final
            assert shown["commitment"] == "pass", shown
            # Its own key was the commitment's, and it asked to leave: both pass.
            assert shown["your key"] == "pass" and shown["forfeit"] == "pass", shown
            # Its seed's receipt, signed with the match's receipt key, published at the
            # verify API (from the page, across origins) for anyone's check to hold to.
            assert shown["receipt published"] == "pass", shown
            assert kept["check"]["ok"] is False and kept["check"]["failed"] is True
            assert page.errors == [], page.errors
    print(f"\nscreenshot: {live_png}")
    print(
        f"browser dropped seed: the red banner {live_s:.1f} s after the table opened; "
        f"in all {time.monotonic() - started:.1f} s"
    )


#: A point of G1's subgroup, encoded as a quicknet signature is, that no one signed:
#: G1's generator times 123456789. SHA-256 of it "passes" a randomness-only check.
FORGED_G1 = (
    "af95b8218cbee2f4fa48e6b6f1df4e8ee46fee73c270dba3"
    "95dad523d10c9b35295ccfc92cf0a9db8a065e16dafbfaad"
)

DRAND_IN_PAGE = """(async (beacons, forged) => {
  const drand = await import('/js/drand.js');
  const out = {real: [], forged: [], ms: {}};
  let t = performance.now();
  out.real.push(drand.verifyBeacon('quicknet', beacons[0]));
  out.ms.first = performance.now() - t;
  t = performance.now();
  for (const b of beacons) out.real.push(drand.verifyBeacon('quicknet', b));
  out.ms.warm = (performance.now() - t) / beacons.length;
  for (const b of forged) out.forged.push(drand.verifyBeacon(b.chain, b));
  return out;
})"""


async def test_the_page_verifies_drand_signatures_with_the_vendored_noble(
    servers, store, pg_pool, nc, js_names
) -> None:
    """The real page, from the real gateway with its Content Security Policy: its import
    map resolves the vendored noble modules (allowed by its hash), web/js/drand.js
    verifies recorded quicknet beacons and refuses forged ones, and no other inline script
    runs. Prints how long one verification takes in Chromium."""
    assert CHROMIUM is not None
    quicknet = [b for b in QUICKNET_BEACONS if "randomness" in b][:6]
    beacons = [{"round": b["round"], "signature": b["signature"]} for b in quicknet]
    real = quicknet[1]
    forged = [
        # Made up; its randomness is SHA-256 of it, all the tab checked before.
        {"chain": "quicknet", "round": 5, "signature": FORGED_G1,
         "randomness": hashlib.sha256(bytes.fromhex(FORGED_G1)).hexdigest()},
        # A real signature, of another round.
        {"chain": "quicknet", "round": real["round"] + 1, "signature": real["signature"]},
        # A real one with another randomness.
        {"chain": "quicknet", "round": real["round"], "signature": real["signature"],
         "randomness": quicknet[0]["randomness"]},
        # A default-chain beacon with a bit flipped.
        {"chain": "default", "round": DEFAULT_BEACONS[0]["round"],
         "signature": "0" + DEFAULT_BEACONS[0]["signature"][1:],
         "previous_signature": DEFAULT_BEACONS[0]["previous_signature"]},
    ]  # fmt: skip
    async with (
        watchdog(),
        platform(store, pg_pool, nc, js_names, workers=0) as p,
        gateway(servers, store.schema, js_names, p.prefix) as http,
        chromium(CHROMIUM) as browser,
    ):
        page = await browser.new_page()
        await page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')));"
        )
        async with explained(page, "drand-noble"):
            await page.goto(str(http.make_url("/")))
            await page.wait_for("document.querySelector('#login')")
            got = await page.evaluate(
                f"{DRAND_IN_PAGE}({json.dumps(beacons)}, {json.dumps(forged)})"
            )
            # Nothing was refused so far: the import map was allowed, by its hash.
            refused_before = await page.evaluate("window.__csp")
            # The CSP still refuses any other inline script.
            ran = await page.evaluate(
                """new Promise(done => {
                  const s = document.createElement('script');
                  s.textContent = 'window.__inline = true';
                  document.head.append(s);
                  setTimeout(() => done([window.__inline ?? false, window.__csp]), 300);
                })"""
            )
            assert page.errors == [], page.errors
    for result, b in zip(got["real"], [quicknet[0], *quicknet], strict=True):
        assert result == {"ok": True, "randomness": b["randomness"], "why": None}, result
    whys = [r["why"] for r in got["forged"]]
    assert [r["ok"] for r in got["forged"]] == [False] * len(forged), got["forged"]
    assert whys[0] == (
        "the signature does not verify for round 5 of quicknet under its pinned public key"
    )
    assert whys[1].startswith(f"the signature does not verify for round {real['round'] + 1} ")
    assert whys[2].startswith(f"the randomness given, {quicknet[0]['randomness']}, is not SHA-256")
    assert whys[3].startswith("the signature "), whys[3]
    assert refused_before == []
    assert ran == [False, ["script-src-elem inline"]], ran
    print(
        f"\ndrand verification in Chromium: first {got['ms']['first']:.1f} ms "
        f"(with noble's precomputation), then {got['ms']['warm']:.1f} ms each"
    )
