"""The verify service's fair-play job and its operator API, on a real event log and the
verify role's own grants: each analysed match's decisions are kept by seat for the
accounts' seats (none for a bot's, whose worlds are not solved), each with the chances
anyone recomputes from the record and its analysis, cards the turn clock played kept as
such; the API answers only the operators' token (401 without one, 403 with another, 403
for everyone where none is set), refuses a bad window with a JSON 400, and lists a
player whose seat played the double-dummy best card every time as flagged for review,
with the decisions the evidence rests on and the evidence belot.fairplay computes from
them."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

import tools.matchgen as matchgen
from belot import view
from belot.analysis import card_values
from belot.bots import choose as bot_choice
from belot.bots.solver import Solver
from belot.cards import CARD_CODES, to_code
from belot.commands import PlayCard
from belot.events import CardPlayed, Event, MatchStarted
from belot.fairplay import (
    FLAG_SCORE,
    METHOD,
    WORLDS,
    Chances,
    Decision,
    decisions,
    evidence,
    score,
    world_chances,
)
from belot.ruleset import RULESETS
from belot.view import SeatView
from belot_platform.settings import Settings
from eventlog import EventStore
from fairdeal import logentries
from fairdeal.analysis import analyse_record
from fairdeal.record import decode, parse_record
from services.verify import domain
from services.verify.app import create_app
from services.verify.domain import (
    SeatRow,
    Stopped,
    counted,
    listed,
    match_decisions,
    player_evidence,
)
from services.verify.fairplay import FairPlay
from services.verify.http import RateLimits
from tests.integration import roles
from tests.integration.table_support import eventually
from tools.matchgen import Append, MatchSpec, generate, offline_record, stored_record, write

TOKEN = "operator-secret-ü"
GENEROUS = RateLimits(rate=10_000, burst=100_000)
#: An honest match: accounts at seats 0 and 2, partners, bots at 1 and 3; every 7th move
#: the turn clock's. Its three deals give both accounts counted decisions.
HONEST = MatchSpec(match_id="fp-honest-1", ruleset="club", label="fp-honest-2", target=300,
                   players=("fp-ann", None, "fp-bob", None))  # fmt: skip
#: A seer: the account at seat 0 plays the double-dummy best card every time (it sees
#: every hand); the bot at seat 1 as matchgen's bots play. Every card of the match and
#: each decision's worlds are fixed by the label and the match id; this one's 38 deals
#: reach the flag with a wide margin (a score near 10, where a match of a dozen deals
#: scores near 5: test_web_fairplay's).
SEER = MatchSpec(match_id="fp-seer-1", ruleset="gambler", label="fairplay-seer-300",
                 target=3001, players=("fp-seer", None), timer_every=0)  # fmt: skip


def seer_appends(spec: MatchSpec) -> list[Append]:
    """``spec``'s match, seat 0 playing a double-dummy best card every time: matchgen's
    bots choose on a seat's view, so the view it hands them is the whole state here."""
    ruleset = RULESETS[spec.ruleset]

    def whole(state: Any, seat: int) -> Any:
        return state, seat

    def choose(seen: Any, rng: Any, level: Any, *rest: Any) -> Any:
        state, seat = seen
        seat_view = view(state, seat)
        cards = [m for m in seat_view.legal if isinstance(m, PlayCard)]
        if seat == 0 and cards and state.deal is not None:
            values = card_values(Solver(ruleset, state.deal.strain), ruleset, state.deal)
            best = max(values, key=lambda c: (values[c], -c))
            return next(m for m in cards if m.card == best)
        return bot_choice(seat_view, rng, level, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matchgen, "view", whole)
        patch.setattr(matchgen, "choose", choose)
        return generate(spec)


@pytest.fixture(scope="module")
def seer() -> Iterator[list[Append]]:
    yield seer_appends(SEER)


def recomputed(record: dict[str, Any], seats: set[int]) -> list[Decision]:
    """Every card of ``record``'s match as anyone computes it from the record alone:
    its analysis, then belot.fairplay's decisions, the worlds solved for ``seats`` (the
    accounts'), not for the others."""

    def chances(seat_view: SeatView, rng: Any) -> Chances | None:
        return world_chances(seat_view, rng) if seat_view.seat in seats else None

    pairs = decode(parse_record(record).match.events, ()).match
    events = [item for _, item in pairs if isinstance(item, Event)]
    acted = [e.metadata.get("acted_by") for e, i in pairs if isinstance(i, CardPlayed)]
    assert isinstance(events[0], MatchStarted)
    ruleset = RULESETS[events[0].ruleset]
    return decisions(ruleset, events, analyse_record(record), chances, acted)


def without_place(d: dict[str, Any]) -> dict[str, Any]:
    """An API decision less what the API adds to belot.fairplay's JSON."""
    return {k: v for k, v in d.items() if k not in ("match_id", "replay")}


async def client_of(settings: Settings, schema: str) -> TestClient:  # type: ignore[type-arg]
    app = create_app(settings, schema=schema, limits=GENEROUS, analysis_poll=0.05)
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()
    return client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def answer(client: Any, path: str, token: str | None = TOKEN) -> tuple[int, Any]:
    resp = await client.get(path, headers=bearer(token) if token is not None else {})
    return resp.status, await resp.json()


@dataclass
class Verify:
    """A verify service on a schema of its own (the verify role's grants) with the
    operators' token, and the log it follows."""

    schema: str
    store: EventStore
    settings: Settings
    client: Any
    #: The same service where no operator token is set (its routes closed to all).
    closed: Any = None

    async def computed(self, pg_pool: Any, matches: int, timeout: float) -> None:
        """Until the fair-play job has computed ``matches`` matches."""

        async def done() -> bool:
            n = await pg_pool.fetchval(
                f'SELECT count(*) FROM "{self.schema}".verify_fairplay_matches'
                " WHERE outcome = 'computed'"
            )
            return bool(n == matches)

        await eventually(done, timeout=timeout)


@asynccontextmanager
async def verify_service(
    servers: Any, pg_pool: Any, closed_too: bool = False
) -> AsyncIterator[Verify]:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    settings = Settings(
        pg_dsn=roles.dsn_for("verify", servers.pg_dsn), pg_schema=schema, admin_token=TOKEN
    )
    client = await client_of(settings, schema)
    closed = None
    if closed_too:
        no_token = replace(settings, admin_token=None, verify_analysis_workers=0)
        closed = await client_of(no_token, schema)
    try:
        yield Verify(schema, store, settings, client, closed)
    finally:
        if closed is not None:
            await closed.close()
        await client.close()
        await store.close()
        await roles.drop_schemas(pg_pool, schema)


@pytest.mark.asyncio(loop_scope="session")
async def test_the_job_keeps_the_accounts_seats_and_the_api_lists_the_seer(
    servers: Any, pg_pool: Any, seer: list[Append]
) -> None:
    async with verify_service(servers, pg_pool, closed_too=True) as v:
        schema, store, client, closed = v.schema, v.store, v.client, v.closed
        await write(store, generate(HONEST))
        await write(store, seer)
        await v.computed(pg_pool, 2, timeout=600)
        rows = await pg_pool.fetch(
            f'SELECT match_id, seat, player, decisions::text AS d FROM "{schema}".verify_fairplay'
            " ORDER BY match_id, seat"
        )
        assert [(r["match_id"], r["seat"], r["player"]) for r in rows] == [
            (HONEST.match_id, 0, "fp-ann"), (HONEST.match_id, 2, "fp-bob"),
            (SEER.match_id, 0, "fp-seer"),
        ]  # fmt: skip
        # Each seat's row holds every card it played, in order, with who played it: the
        # turn clock's cards as the record's metadata says.
        record = await stored_record(store, HONEST.match_id)
        pairs = decode(parse_record(record).match.events, ()).match
        played = [(e.metadata.get("acted_by"), i) for e, i in pairs if isinstance(i, CardPlayed)]
        for r in rows[:2]:
            kept = json.loads(r["d"])
            mine = [(who, i) for who, i in played if i.seat == r["seat"]]
            assert [d["played"] for d in kept] == [to_code(i.card) for _, i in mine]
            assert [d["acted_by"] for d in kept] == [who for who, _ in mine]
        assert any(who == "timer" for who, _ in played)
        # ...and its chances, as anyone computes them from the record: the worlds of each
        # account's choices solved (belot.fairplay.world_chances), seeded by the match.
        again = {
            HONEST.match_id: await asyncio.to_thread(recomputed, record, {0, 2}),
            SEER.match_id: await asyncio.to_thread(
                recomputed, await stored_record(store, SEER.match_id), {0}
            ),
        }
        for r in rows:
            mine = [d for d in again[r["match_id"]] if d.seat == r["seat"]]
            assert json.loads(r["d"]) == [d.to_json() for d in mine], (r["match_id"], r["seat"])
            assert any(d.counted for d in mine), (r["match_id"], r["seat"])
            for d in mine:
                assert 0 <= d.hits <= d.worlds <= WORLDS and (d.choice or not d.worlds), d
                assert (d.likeliest in CARD_CODES) == (d.worlds > 0), d

        # The operators' token, and nobody else's.
        status, body = await answer(client, "/v1/fairplay/players", token=None)
        assert (status, body["error"]) == (401, "unauthorized"), body
        status, body = await answer(client, "/v1/fairplay/players", token="wrong")
        assert (status, body["error"]) == (403, "forbidden"), body
        status, body = await answer(client, "/v1/fairplay/players/fp-seer", token="wrong")
        assert (status, body["error"]) == (403, "forbidden"), body
        for token in (None, TOKEN, ""):
            status, body = await answer(closed, "/v1/fairplay/players", token=token)
            assert status in (401, 403) and isinstance(body["message"], str), body
        status, body = await answer(closed, "/v1/fairplay/players", token=TOKEN)
        assert (status, body["error"]) == (403, "forbidden"), body
        # Bad input: JSON 400s; an unknown player: 404.
        for window in ("0", "-1", "1001", "abc", "2.5", "", "99999999999999999999"):
            status, body = await answer(client, f"/v1/fairplay/players?window={window}")
            assert (status, body["error"]) == (400, "bad_window"), (window, body)
            assert isinstance(body["message"], str)
        status, body = await answer(client, "/v1/fairplay/players/nobody")
        assert (status, body["error"]) == (404, "unknown_player"), body

        # The list: the seer first, flagged, with its decisions.
        status, listing = await answer(client, "/v1/fairplay/players?window=1000")
        assert status == 200, listing
        assert listing["flag_score"] == FLAG_SCORE and listing["window"] == 1000
        players = [p["player"] for p in listing["players"]]
        assert players[0] == "fp-seer" and set(players) <= {"fp-seer", "fp-ann", "fp-bob"}
        top = listing["players"][0]
        assert top["flagged"] and top["evidence"]["flagged"], top
        # The evidence is belot.fairplay's of the seat's decisions: every card a best
        # card, far more than the worlds expected.
        seers = [d for d in again[SEER.match_id] if d.seat == 0]
        assert top["evidence"] == evidence(seers).to_json(), top
        ev = top["evidence"]
        assert ev["score"] >= FLAG_SCORE and ev["found"] == ev["decisions"] > ev["expected"], ev
        assert top["partners"] == []  # two players: no partner
        assert set(players) == {"fp-seer", "fp-ann", "fp-bob"}, players
        assert not any(p["flagged"] for p in listing["players"][1:]), listing
        honest = again[HONEST.match_id]
        by_name = {p["player"]: p for p in listing["players"]}
        for name, seat in (("fp-ann", 0), ("fp-bob", 2)):
            mine = [d for d in honest if d.seat == seat]
            assert by_name[name]["evidence"] == evidence(mine).to_json(), by_name[name]
            # A partnership of the two accounts: both seats' decisions.
            (pair,) = by_name[name]["partners"]
            assert pair["player"] == {"fp-ann": "fp-bob", "fp-bob": "fp-ann"}[name], pair
            both = [d for d in honest if d.seat in (0, 2)]
            assert pair["evidence"] == evidence(both).to_json(), pair

        status, detail = await answer(client, "/v1/fairplay/players/fp-seer?window=1000")
        assert status == 200, detail
        assert detail["evidence"] == top["evidence"] and detail["deals"] == top["deals"]
        made = detail["decisions"]
        assert len(made) == top["evidence"]["decisions"] > 0
        # The counted decisions, each with its worlds, its chance and its likeliest card.
        assert [without_place(d) for d in made] == [d.to_json() for d in seers if d.counted]
        for d in made:
            assert d["match_id"] == SEER.match_id and d["seat"] == 0
            assert d["found"] and d["played"] in d["dd_best"], d
            assert 0 <= d["hits"] <= d["worlds"] <= WORLDS and d["worlds"] > 0, d
            assert d["chance"] == round(d["hits"] / d["worlds"], 4), d
            assert d["surprise"] == round(1 - d["hits"] / d["worlds"], 4), d
            assert d["likeliest"] in CARD_CODES, d
            # The replay opened at the card: its deal, trick and place in the trick.
            place = f"{d['deal']}/{d['trick']}/{d['index']}"
            assert d["replay"] == f"/#/replay/{SEER.match_id}/{place}", d
        assert evidence(Decision.from_json(d) for d in made).to_json() == top["evidence"]
        assert any(d["likeliest"] != d["played"] for d in made), "a card the worlds did not favour"
        # A window of a few deals counts only the last of them.
        status, few = await answer(client, "/v1/fairplay/players/fp-seer?window=2")
        assert status == 200 and few["deals"] == 2, few
        last = max(d["deal"] for d in made)
        assert {d["deal"] for d in few["decisions"]} <= {last, last - 1}, few

        # The answers are for no cache; the page's preflight may send its token.
        resp = await client.get("/v1/fairplay/players", headers=bearer(TOKEN))
        assert resp.headers["Cache-Control"] == "no-store"
        resp = await client.options(
            "/v1/fairplay/players",
            headers={"Origin": "http://elsewhere", "Access-Control-Request-Method": "GET",
                     "Access-Control-Request-Headers": "authorization"},
        )  # fmt: skip
        assert resp.status == 204
        assert "Authorization" in resp.headers["Access-Control-Allow-Headers"]
        # The OpenAPI document names both routes; the metrics count the job.
        spec = (await answer(client, "/v1/openapi.json"))[1]
        assert {"/v1/fairplay/players", "/v1/fairplay/players/{player}"} <= set(spec["paths"])
        text = await (await client.get("/metrics")).text()
        assert 'belot_verify_fairplay_total{outcome="computed"}' in text

        async def no_backlog() -> bool:
            text = await (await client.get("/metrics")).text()
            return "\nbelot_verify_fairplay_backlog 0.0" in text

        await eventually(no_backlog, timeout=10)


def made(
    seat: int, deal: int, found: bool, hits: int, acted_by: str | None = "player", worlds: int = 4
) -> Decision:
    """A decision with a choice: the card played (AS) a best card of the deal or not
    (``found``), and one in ``hits`` of its ``worlds``."""
    best = ("AS",) if found else ("KS",)
    return Decision(deal, 0, seat, seat, "AS", best, 0, True, worlds, hits, "AS", acted_by)


def test_the_window_counts_a_players_last_deals_and_its_partnerships() -> None:
    """Pure (no database): the last ``window`` deals are the latest match's last deals
    first; a partnership counts both seats' decisions of the deals the two sat
    together, within the player's window; the turn clock's cards are not counted, nor a
    decision none of whose worlds gave a choice; a bot (no row) is no partner; the list
    puts the flagged first."""
    rows = [
        # m1 (older): ann at 0 and bob at 2, partners; m2 (newer): ann at 1 and cy at 3,
        # partners; the other seats bots (no rows). Chances in quarters: 4 worlds each.
        SeatRow("m1", 10, 0, "ann", (made(0, 0, True, 1), made(0, 1, True, 2),
                                     made(0, 2, False, 3))),
        SeatRow("m1", 10, 2, "bob", (made(2, 0, True, 2), made(2, 1, True, 2),
                                     made(2, 2, True, 2, "timer"))),
        SeatRow("m2", 20, 1, "ann", (made(1, 0, True, 1), made(1, 1, True, 1))),
        SeatRow("m2", 20, 3, "cy", (made(3, 0, False, 2), made(3, 1, False, 2),
                                    made(3, 1, True, 0, worlds=0))),
    ]  # fmt: skip
    found = player_evidence(rows, 3)
    ann = found["ann"]
    # m2's two deals, then m1's last one (deal 2).
    assert (ann.deals, ann.matches) == (3, 2)
    assert [(p.match_id, p.decision.deal) for p in ann.placed] == [
        ("m2", 0), ("m2", 1), ("m1", 2)]  # fmt: skip
    # Two best cards found where the worlds expected 1/4 + 1/4 + 3/4.
    assert (ann.evidence.n, ann.evidence.found, ann.evidence.expected) == (3, 2, 1.25)
    assert ann.evidence.score > 0
    partners = {p.partner: p for p in ann.partners}
    assert set(partners) == {"bob", "cy"}
    # With bob: m1's deal 2 only (in ann's window); bob's card there was the clock's.
    assert partners["bob"].deals == 1
    assert (partners["bob"].evidence.n, partners["bob"].evidence.found) == (1, 0)
    assert partners["bob"].evidence.expected == 0.75 and partners["bob"].evidence.score < 0
    # With cy: both of m2's deals, cy's decision without worlds not counted.
    pair = partners["cy"].evidence
    assert partners["cy"].deals == 2 and (pair.n, pair.found, pair.expected) == (4, 2, 1.5)
    # bob's own window: all three deals of m1, the clock's card not counted.
    assert found["bob"].deals == 3 and found["bob"].evidence.n == 2
    assert (found["bob"].evidence.found, found["bob"].evidence.expected) == (2, 1.0)
    # cy: two decisions counted of three, and the API lists those two.
    assert found["cy"].evidence.n == 2 and len(counted(found["cy"].placed)) == 2
    everyone = player_evidence(rows, 1000)
    whole = everyone["ann"].evidence
    assert everyone["ann"].deals == 5 and (whole.n, whole.found, whole.expected) == (5, 4, 2.0)
    # The JSON the API gives: found, expected and score, the flag from FLAG_SCORE.
    assert everyone["ann"].to_json()["evidence"] == {
        "decisions": 5, "found": 4, "expected": 2.0,
        # The score of exactly these five decisions (belot.fairplay.score, its weights).
        "score": round(score([made(0, 0, True, 1), made(0, 1, True, 2), made(0, 2, False, 3),
                              made(1, 0, True, 1), made(1, 1, True, 1)]), 3),
        "flagged": False,
    }  # fmt: skip
    keys = [(p.player, not p.flagged, -p.evidence.score) for p in listed(everyone)]
    assert sorted(k[0] for k in keys) == ["ann", "bob", "cy"]
    assert [k[1:] for k in keys] == sorted(k[1:] for k in keys)  # flagged first, by score
    # What the job keeps rebuilds the same decision.
    d = made(0, 3, False, 3, "timer")
    assert Decision.from_json(json.loads(json.dumps(d.to_json()))) == d


#: A club match of two partnered accounts (seats 0 and 2) and two bots, four deals.
PURE = MatchSpec(match_id="fp-pure-1", ruleset="club", label="fpw-club", target=300,
                 players=("fp-dee", None, "fp-eve", None))  # fmt: skip


def test_a_match_measures_the_accounts_seats_only_and_stops_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pure (no database): the job's computation solves the worlds of the accounts'
    choices and of no bot's, keeps each account's cards with their chances, and raises
    Stopped before solving anything more once the job is stopped."""
    record = offline_record(PURE)
    analysis = analyse_record(record).to_json()
    asked: list[int] = []

    def counting(seat_view: SeatView, rng: Any) -> Chances:
        asked.append(seat_view.seat)
        return world_chances(seat_view, rng)

    monkeypatch.setattr(domain, "world_chances", counting)
    seats = match_decisions(record, analysis)
    assert [(s.seat, s.player) for s in seats] == [(0, "fp-dee"), (2, "fp-eve")]
    choices = [d for s in seats for d in s.decisions if d.choice]
    assert sorted(asked) == sorted(d.seat for d in choices) and set(asked) == {0, 2}
    # The same cards and chances as belot.fairplay's on the accounts' seats.
    again = recomputed(record, {0, 2})
    for s in seats:
        assert list(s.decisions) == [d for d in again if d.seat == s.seat]
        assert any(d.counted for d in s.decisions), s.player
    # A bot's choices have no worlds (they are not measured).
    assert any(d.choice for d in again if d.seat in (1, 3))
    assert all(d.worlds == 0 for d in again if d.seat in (1, 3))

    stop = threading.Event()
    stop.set()
    asked.clear()
    with pytest.raises(Stopped):
        match_decisions(record, analysis, stop)
    assert asked == []


@pytest.mark.asyncio(loop_scope="session")
async def test_decisions_of_a_model_that_changed_are_not_read_and_are_computed_again(
    servers: Any, pg_pool: Any
) -> None:
    """The chances are the worlds' of one model (belot.fairplay.METHOD): the rows one
    computed are not evidence once the worlds say other things. A job under another
    method (the drawer or the solver changed) reads none of the old rows, has every
    analysed match in its backlog, and keeps its own rows beside the old ones, which stay
    as they were."""
    changed = "worlds-changed/2"  # the method of a model that changed
    spec = MatchSpec(match_id="fp-method-1", ruleset="gambler", label="fp-method",
                     target=151, players=("fp-cy", None), timer_every=0)  # fmt: skip
    async with (
        verify_service(servers, pg_pool) as v,
        asyncpg.create_pool(v.settings.pg_dsn, min_size=1, max_size=2) as verify_pool,
    ):
        schema, store, client = v.schema, v.store, v.client
        await write(store, generate(spec))
        await v.computed(pg_pool, 1, timeout=300)
        status, listing = await answer(client, "/v1/fairplay/players?window=1000")
        assert status == 200 and listing["method"] == METHOD, listing
        assert [p["player"] for p in listing["players"]] == ["fp-cy"]
        kept = await pg_pool.fetch(
            f'SELECT method, decisions::text AS d FROM "{schema}".verify_fairplay'
        )
        assert [r["method"] for r in kept] == [METHOD]

        newer = FairPlay(verify_pool, schema, store, method=changed)
        assert await newer.rows(1000) == []  # the old model's rows are not the new one's
        assert await newer.pending() == [spec.match_id] and await newer.backlog() == 1
        assert await newer.compute(spec.match_id) == "computed"
        assert await newer.backlog() == 0
        rows = await newer.rows(1000)
        assert [(r.match_id, r.player) for r in rows] == [(spec.match_id, "fp-cy")]
        after = await pg_pool.fetch(
            f'SELECT method, decisions::text AS d FROM "{schema}".verify_fairplay'
        )
        assert sorted(r["method"] for r in after) == sorted([changed, METHOD])
        old = next(r["d"] for r in after if r["method"] == METHOD)
        assert old == kept[0]["d"]  # the old rows as they were
        # The service's own method still reads its rows only.
        status, again = await answer(client, "/v1/fairplay/players?window=1000")
        assert again["players"] == listing["players"], again
