"""Information flow (docs/threat-model.md, "Hidden cards stay hidden"): whatever a channel
serves during a match is the same, byte for byte, whatever the other seats hold.

Two twin matches (:mod:`tests.twins`: the same public moves, times, ids, seeds and
salts; the other seats' cards moved within their hands, or across the seats until a
moved card is played) are written, append by append, each into a log of its own, read by
its own gateway, verify service and outbox relay, exactly as the services would read a
log the table and randomness services wrote. After every append, while the twins are
alike in public, a player seated at seat 0, a spectator signed in and an anonymous
reader ask every route that shows something of the table, the match or its fair deal
(the gateway's table, events and chat; the verify API's match, record, verification,
list, commitment, round, log entries, proofs and checkpoint), and each twin's answer
must be the other's to the byte (status, body, and the headers that say something of the
body: ETag, Cache-Control, Content-Type). The seated player's and the spectator's
WebSockets must receive the same messages, the relay must publish the same messages (but
for other seats' own events, which only the gateway reads, and the relay's keyed seals),
and nothing logged or shown in /metrics may hold a hidden value (a salt, a deck, another
seat's cards, the server seed, any hash of the match's stream). Finally the seated
player's search for another seat's cards (:mod:`tests.hidden`) is run on what it was
served: it has nothing to test a guess against.

What the table worker serves from its own state (the seat's view, the spectator's, the
state notice) is held to the same by tests/unit/test_information_flow_views.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from nats.aio.client import Client
from nats.js.errors import NotFoundError

from belot_platform.settings import Settings
from belot_platform.supervise import Supervisor
from eventlog import EventStore
from eventlog.relay import OutboxRelay
from eventlog.store import _record
from fairdeal import logentries
from services.gateway.domain import Identity, Tokens
from services.table.store import table_events
from services.verify.app import LOG, PROJECTION
from services.verify.app import create_app as build_verify
from services.verify.http import RateLimits
from table.events import FairDealOpened, MatchSeat, SeatConfig, SeatTaken, TableOpened
from tests.hidden import completion_search
from tests.integration import roles
from tests.integration.gateway_support import gateway
from tests.integration.table_support import eventually
from tests.twins import ACROSS, WITHIN, Twins, hidden_differs, make_twins
from tools.matchgen import Append, MatchSpec, server_seed_of
from translog.keys import Ed25519Signer

pytestmark = pytest.mark.asyncio(loop_scope="session")

TABLE = "flow-t"
SECRET = "flow-token-secret-0123456789abcdef"
ORIGIN = "flow.test/log"
LOG_KEY = Ed25519Signer(ORIGIN, bytes(range(32))).skey
#: Headers that say something of the body (Date and Server say when and what answered).
HEADERS = ("ETag", "Cache-Control", "Content-Type", "Retry-After")
#: Observers: a seated player (seat 0), a spectator signed in, an anonymous reader.
SEATED, SPECTATOR = Identity("ann", "ann"), Identity("zed", "zed")


def spec_for(ruleset: str) -> MatchSpec:
    players = ("ann", "bob") if ruleset == "gambler" else ("ann", "bob", "cat", "dan")
    return MatchSpec(
        match_id=f"flow-{ruleset}",
        ruleset=ruleset,
        label=f"flow-{ruleset}",
        players=players,
        target=300,
    )


def table_appends(spec: MatchSpec, at_ms: int) -> list[Append]:
    """The table's stream before its match: opened, every seat taken, the commitment
    shown (as the table service writes them)."""
    n = len(spec.seats())
    seats = tuple(SeatConfig("human") for _ in range(n))
    opened = TableOpened(TABLE, spec.match_id, spec.ruleset, 300, seats, 30_000, "medium",
                         False, at_ms=at_ms)  # fmt: skip
    taken = [SeatTaken(i, p or "", at_ms) for i, p in enumerate(spec.seats())]
    return [Append(f"table-{TABLE}", tuple(table_events([opened, *taken])), at_ms)]


def fair_deal_opened(spec: MatchSpec, commitment: dict[str, Any], at_ms: int) -> Append:
    opened = FairDealOpened(
        spec.match_id,
        commitment["commitment"],
        commitment["window_closes_at_ms"],
        last_round=commitment["last_round"],
        chain=commitment["chain"],
        seats=tuple(MatchSeat(i, p) for i, p in enumerate(spec.seats())),
        at_ms=at_ms,
    )
    return Append(f"table-{TABLE}", tuple(table_events([opened])), at_ms)


@dataclass
class Side:
    """One twin's log and everything that reads it."""

    name: str
    schema: str
    store: EventStore
    now: list[datetime]
    gateway: TestClient  # type: ignore[type-arg]
    verify: TestClient  # type: ignore[type-arg]
    stream: str
    subject: str
    versions: dict[str, int] = field(default_factory=dict)
    sockets: dict[str, list[Any]] = field(default_factory=dict)

    async def append(self, a: Append) -> None:
        self.now[0] = datetime.fromtimestamp(a.at_ms / 1000, UTC)
        v = self.versions.get(a.stream, 0)
        result = await self.store.append(a.stream, v, list(a.events))
        self.versions[a.stream] = result.last_version

    async def settle(self) -> None:
        """The verify service's projection has every event, and its log a checkpoint of
        every entry (signed now: the signer's own loop would sign at its own time)."""
        head = await self.store.head_position()
        projection = self.verify.server.app[PROJECTION]
        await eventually(lambda: projection.caught_up(head))
        await self.verify.server.app[LOG].sign_once()


@contextlib.asynccontextmanager
async def side(servers: Any, pg_pool: Any, nc: Client, name: str) -> AsyncIterator[Side]:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await roles.prepare(pg_pool, schema)
    now = [datetime.now(UTC)]
    store = await EventStore.open(
        pg_pool, schema, producer="twin", entries=logentries, clock=lambda: now[0]
    )
    token = uuid.uuid4().hex[:10]
    names = _Names(f"F_{token}", f"f{token}.events")
    outbox = OutboxRelay(store, nc.jetstream(), stream=names.stream,
                         subject_prefix=names.subject_prefix)  # fmt: skip
    await outbox.ensure_stream()
    relay = Supervisor().spawn("outbox-relay", lambda t: outbox.run(t.stopping, t.beat))
    verify_settings = Settings(
        pg_dsn=roles.dsn_for("verify", servers.pg_dsn),
        pg_schema=schema,
        translog_key=LOG_KEY,
        translog_origin=ORIGIN,
        translog_interval=3600.0,
    )
    limits = RateLimits(rate=100_000, burst=1_000_000)
    verify = TestClient(TestServer(build_verify(verify_settings, schema=schema, limits=limits)))
    await verify.start_server()
    try:
        async with gateway(
            servers, schema, names, f"p{token}", token_secret=SECRET, rate_burst=1_000_000,
            rate_per_second=100_000.0,
        ) as http:  # fmt: skip
            yield Side(name, schema, store, now, http, verify, names.stream, names.subject_prefix)
    finally:
        await verify.close()
        await relay.stop()
        await store.close()
        with contextlib.suppress(NotFoundError):
            await nc.jetstream().delete_stream(names.stream)
        await roles.drop_schemas(pg_pool, schema)


@dataclass(frozen=True)
class _Names:
    stream: str
    subject_prefix: str


def _auth(who: Identity | None) -> dict[str, str]:
    if who is None:
        return {}
    return {"Authorization": f"Bearer {Tokens(SECRET, 3600).issue(who)}"}


async def _get(client: TestClient, path: str, who: Identity | None) -> tuple[Any, ...]:  # type: ignore[type-arg]
    async with client.get(path, headers=_auth(who)) as resp:
        body = await resp.read()
        return (resp.status, tuple(resp.headers.get(h) for h in HEADERS), body)


def routes(spec: MatchSpec, commitment: str | None, round_: int | None, size: int) -> list[Any]:
    m = spec.match_id
    gw = [
        f"/v1/tables/{TABLE}/events",
        f"/v1/tables/{TABLE}",
        f"/v1/tables/{TABLE}/chat",
        "/v1/lobby",
    ]
    vf = [
        f"/v1/matches/{m}",
        f"/v1/matches/{m}/record",
        f"/v1/matches/{m}/verification",
        "/v1/matches?limit=100",
        f"/v1/log/entries?match={m}",
        "/checkpoint",
        f"/v1/log/checkpoints/{size}",
    ]
    if commitment is not None:
        vf.append(f"/v1/commitments/{commitment}")
    if round_ is not None:
        vf.append(f"/v1/rounds/quicknet/{round_}")
    if size > 1:
        vf += [
            f"/v1/log/proof/inclusion?index=0&size={size}",
            f"/v1/log/proof/consistency?first=1&second={size}",
        ]
    return [("gateway", p, who) for p in gw for who in (SEATED, SPECTATOR, None)] + [
        ("verify", p, None) for p in vf
    ]


async def _watch(client: TestClient, who: Identity, out: list[Any]) -> Any:  # type: ignore[type-arg]
    ws = await client.ws_connect("/v1/ws", headers=_auth(who))
    await ws.send_str(orjson.dumps({"op": "watch", "table": TABLE}).decode())

    async def receive() -> None:
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                return
            out.append(orjson.loads(msg.data))

    return ws, asyncio.create_task(receive())


async def _hidden_values(twins: Twins, s: Side) -> list[bytes]:
    """What no channel may serve during the match: every salt, every deck and every other
    seat's cards, the server seed, and every hash of the match's stream (read as its
    owner)."""
    out = [server_seed_of(twins.spec).hex().encode()]
    for e in await s.store.read_stream(f"match-{twins.spec.match_id}"):
        out.append(e.hash.hex().encode())
        p = e.payload
        if e.type == "DeckSupplied":
            out += [orjson.dumps(p["cards"]), *(x.encode() for x in p["salts"])]
        elif e.type == "CardsDealt" and p["seat"] != twins.observer:
            out += [orjson.dumps(p["cards"]), p["salt"].encode()]
    return out


@pytest.mark.parametrize("mode", [WITHIN, ACROSS])
@pytest.mark.parametrize("ruleset", ["club", "classic", "french", "gambler"])
async def test_every_channel_serves_the_same_whatever_the_other_seats_hold(
    servers: Any, pg_pool: Any, nc: Client, ruleset: str, mode: str, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG)
    twins = make_twins(spec_for(ruleset), 0, mode)
    assert hidden_differs(twins)
    start_ms = twins.a[0].at_ms - 1_000
    async with (
        side(servers, pg_pool, nc, "a") as a,
        side(servers, pg_pool, nc, "b") as b,
    ):
        for s in (a, b):
            for t in table_appends(twins.spec, start_ms):
                await s.append(t)
        watched: dict[str, dict[str, list[Any]]] = {}
        tasks = []
        for s in (a, b):
            for who in (SEATED, SPECTATOR):
                out: list[Any] = []
                watched.setdefault(s.name, {})[who.player] = out
                tasks.append(await _watch(s.gateway, who, out))
        # Each socket has caught up with the table's stream before the match begins: an
        # event that came while it was reading the log would be marked "replay", a flag
        # that says when the socket started, not what the seats hold.
        table_events_n = len(table_appends(twins.spec, start_ms)[0].events)

        async def caught_up() -> bool:
            return all(
                any(m.get("stream") == f"table-{TABLE}" and m.get("version") == table_events_n
                    for m in out)
                for by_player in watched.values() for out in by_player.values()
            )  # fmt: skip

        await eventually(caught_up)
        mismatches, compared = await _moments(twins, a, b)
        assert mismatches == [], mismatches[:3]
        assert compared > 20
        # The sockets: every message each observer received, once it has all of them.
        last = await a.store.head_position()

        async def delivered() -> bool:
            """Each socket has every event its observer may see (the events route's)."""
            for s in (a, b):
                for who in (SEATED, SPECTATOR):
                    # A seat's own seed's receipt, shown to the others once the window
                    # closed, is not sent again to sockets that were watching then.
                    own = "seat:0" if who is SEATED else "public"
                    want = {
                        (e["stream"], e["version"])
                        for e in await _events_of(s, who)
                        if e["visibility"] in ("public", own)
                    }
                    got = {
                        (m["stream"], m["version"])
                        for m in watched[s.name][who.player]
                        if m.get("type") == "event"
                    }
                    if not want or not want <= got:
                        return False
            return True

        await eventually(delivered)
        await eventually(lambda: _published(nc, a.stream, last))
        await eventually(lambda: _published(nc, b.stream, last))
        for ws, task in tasks:
            await ws.close()
            await task
        for who in (SEATED.player, SPECTATOR.player):
            assert _by_stream(watched["a"][who]) == _by_stream(watched["b"][who]), who
            assert len(watched["a"][who]) > 10
        relayed = 0
        for seq in range(1, last + 1):
            ma = await nc.jetstream().get_msg(a.stream, seq)
            mb = await nc.jetstream().get_msg(b.stream, seq)
            ha = {k: v for k, v in (ma.headers or {}).items() if k.startswith("Belot-")}
            hb = {k: v for k, v in (mb.headers or {}).items() if k.startswith("Belot-")}
            assert ha == hb and ma.subject[len(a.subject) :] == mb.subject[len(b.subject) :]
            if ha["Belot-Visibility"] in ("public", "secret", f"seat:{twins.observer}"):
                assert ma.data == mb.data, (seq, ha)
                relayed += 1
        assert relayed > 10
        # Nothing hidden in the logs or the metrics, and nothing for the seated player's
        # search to test a guess against.
        hidden = await _hidden_values(twins, a) + await _hidden_values(twins, b)
        metrics = [(await (await c.get("/metrics")).read()) for s in (a, b)
                   for c in (s.gateway, s.verify)]  # fmt: skip
        logged = "\n".join(r.getMessage() for r in caplog.records).encode()
        for text in (*metrics, logged):
            assert not [h for h in hidden if h in text]
        served = await _events_of(a, SEATED)
        match = [e for e in served if e["stream"].startswith("match-")]
        assert match and all(e["hash"] is None for e in match)
        assert completion_search(match, ruleset, 0) == []


async def _moments(twins: Twins, a: Side, b: Side) -> tuple[list[Any], int]:
    """Append the twins' appends one by one while they are alike and before the match's
    end; after each, ask every route as each observer of both. The answers that differ
    (which append, where, who asked), and how many were compared."""
    commitment: dict[str, Any] | None = None
    round_: int | None = None
    mismatches: list[Any] = []
    compared = 0
    for i in range(twins.during):
        x, y = twins.a[i], twins.b[i]
        await a.append(x)
        await b.append(y)
        for e in x.events:
            if e.type == "ServerSeedCommitted":
                commitment = e.payload
                opened = fair_deal_opened(twins.spec, commitment, x.at_ms)
                await a.append(opened)
                await b.append(opened)
            elif e.type == "DrandRoundNamed":
                round_ = e.payload["round"]
        await a.settle()
        await b.settle()
        size = len(await a.store.pool.fetch(f'SELECT 1 FROM "{a.schema}".translog_entries'))
        for service, path, who in routes(
            twins.spec, commitment and commitment["commitment"], round_, size
        ):
            got = [await _get(getattr(s, service), path, who) for s in (a, b)]
            if got[0] != got[1]:
                mismatches.append((i, service, path, who and who.player, got))
            compared += 1
    return mismatches, compared


async def test_the_comparison_catches_the_hashes_once_served(
    servers: Any, pg_pool: Any, nc: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: with the log read as it was before (every hash served to a viewer, as
    the gateway's events route and the verify API's record served them), the twins'
    answers differ, on exactly those routes: what the test above holds equal is what a
    player could search."""

    async def served_whole(
        self: EventStore, stream_id: str, viewer: Any, *, ended_by: Any, from_version: int = 1
    ) -> list[Any]:
        own = None if viewer.seat is None else f"seat:{viewer.seat}"
        rows = await self._pool.fetch(
            self._sql_stream_as, stream_id, from_version, own or "public", list(ended_by)
        )
        return [_record(r) for r in rows]

    monkeypatch.setattr(EventStore, "read_stream_as", served_whole)
    twins = make_twins(spec_for("club"), 0, ACROSS)
    async with (
        side(servers, pg_pool, nc, "a") as a,
        side(servers, pg_pool, nc, "b") as b,
    ):
        for s in (a, b):
            for t in table_appends(twins.spec, twins.a[0].at_ms - 1_000):
                await s.append(t)
        mismatches, _ = await _moments(twins, a, b)
    where = {(service, path.split("?")[0]) for _, service, path, _, _ in mismatches}
    assert ("gateway", f"/v1/tables/{TABLE}/events") in where
    assert ("verify", f"/v1/matches/{twins.spec.match_id}/record") in where


def _by_stream(messages: list[Any]) -> dict[str, list[bytes]]:
    """A socket's messages, each stream's (and the chat's, the rest's) in the order they
    came: the order of two streams' messages is the network's, not the log's."""
    out: dict[str, list[bytes]] = {}
    for m in messages:
        key = m.get("stream") or m.get("type")
        out.setdefault(key, []).append(orjson.dumps(m))
    return out


async def _events_of(s: Side, who: Identity) -> list[dict[str, Any]]:
    status, _, body = await _get(s.gateway, f"/v1/tables/{TABLE}/events", who)
    assert status == 200
    streams = orjson.loads(body)["streams"]
    return [e for events in streams.values() for e in events]


async def _published(nc: Client, stream: str, last: int) -> bool:
    info = await nc.jetstream().stream_info(stream)
    return bool(info.state.last_seq >= last)
