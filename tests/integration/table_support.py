"""A platform for the table and gateway tests, on the test's own schema, JetStream
stream and subject prefix: the randomness service (a local drand relay of recorded
beacons on a virtual clock), table workers in this process, and the outbox relay.

With a role kit installed (tests/integration/roles.py), the table workers and the relay
use a store on the table role's pool, the randomness service one on its own role's
(and its seeds there); ``Platform.store`` stays the test's (the superuser's) for
looking at everything."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from aiohttp.test_utils import TestServer
from nats.aio.client import Client

from belot import RULESETS, Match, replay
from belot.codec import from_payload
from belot_platform import messaging
from belot_platform.supervise import Supervisor
from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app, load_beacons
from eventlog import EventStore, RecordedEvent
from eventlog.relay import OutboxRelay
from fairdeal import Shuffler, logentries
from fairdeal import fairness as fair
from fairdeal.fairness import ROUND_LEAD_MS
from services.randomness.handlers import Handlers
from services.randomness.service import RandomnessService
from services.randomness.store import SeedStore
from services.table.worker import TableWorker
from tests.integration import roles
from tools.drand_vectors import BEACONS_FILE

SPEED = 10.0
BEACONS = load_beacons(BEACONS_FILE, QUICKNET)


def origin_for(round_lead_ms: int) -> float:
    """Where the virtual clock starts for matches naming with that lead: the lead before
    half a second into round 1000, so that seeds in within 2.5 virtual seconds of the
    start make the rule name round 1001 (the first due more than the lead after them),
    recorded, as before the lead; later ones 1002 or 1003, recorded too."""
    return QUICKNET.time_of_round(1000) + 0.5 - round_lead_ms / 1000


#: The start of the virtual clock for the randomness service's default lead.
ORIGIN = origin_for(ROUND_LEAD_MS)
#: What the platform's relay serves: the recorded block of rounds 1000-1003 alone. With
#: the others too it would call round 123 the latest before round 1000 is out (a tab's
#: watch would then wait for 124 for ever); a relay started at round 1000 says "none yet".
RELAY_BEACONS = {r: b for r, b in BEACONS.items() if r >= 1000}


@dataclass
class Platform:
    store: EventStore
    nc: Client
    prefix: str
    randomness: RandomnessService
    workers: list[TableWorker] = field(default_factory=list)
    #: The local drand relay's address and the virtual clock it and the service share.
    drand_url: str = ""
    clock: ScaledClock | None = None
    #: The store the table workers use (the table role's in role mode, else ``store``).
    worker_store: EventStore | None = None

    async def request(self, subject: str, body: dict[str, Any], timeout: float = 10) -> Any:
        return await messaging.request(self.nc, f"{self.prefix}.{subject}", body, timeout=timeout)

    async def create(self, **body: Any) -> dict[str, Any]:
        reply: dict[str, Any] = await self.request("table.create", body)
        return reply

    async def table_events(self, table_id: str) -> list[RecordedEvent]:
        return await self.store.read_stream(f"table-{table_id}")

    async def match_events(self, match_id: str) -> list[RecordedEvent]:
        return await self.store.read_stream(f"match-{match_id}")

    async def wait_closed(self, table_id: str, timeout: float = 60.0) -> list[RecordedEvent]:
        return await wait_for_table(self.store, table_id, "TableClosed", timeout)

    async def add_worker(self, lease_ttl: float = 3.0, turn_ms: int = 30_000) -> TableWorker:
        worker = TableWorker(
            self.nc,
            self.worker_store or self.store,
            prefix=self.prefix,
            lease_ttl=lease_ttl,
            turn_ms=turn_ms,
        )
        await worker.start()
        self.workers.append(worker)
        return worker


async def wait_for_table(
    store: EventStore, table_id: str, event_type: str, timeout: float = 60.0
) -> list[RecordedEvent]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        events = await store.read_stream(f"table-{table_id}")
        if any(e.type == event_type for e in events):
            return events
        if loop.time() > deadline:
            raise AssertionError(
                f"table {table_id}: no {event_type} after {timeout}s; "
                f"has {[e.type for e in events]}"
            )
        await asyncio.sleep(0.1)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.05)


def replay_match(events: list[RecordedEvent]) -> tuple[Match, list[RecordedEvent]]:
    """The core's replay of a match stream, and its table-level tail (forfeit/abort)."""
    core = [e for e in events if e.type not in ("MatchForfeited", "MatchAborted")]
    tail = [e for e in events if e.type in ("MatchForfeited", "MatchAborted")]
    started = core[0].payload
    state = replay(RULESETS[started["ruleset"]], [from_payload(e.payload) for e in core])
    return state, tail


async def check_decks(store: EventStore, match_id: str) -> int:
    """Every DeckSupplied in the match equals the recipe's deck from the revealed seed and
    the randomness stream's inputs; returns how many decks were checked."""
    rows = await store.read_stream(f"randomness-{match_id}")
    state = fair.replay([fair.from_payload(r.type, r.payload) for r in rows])
    assert state.server_seed is not None, "the server seed was not revealed"
    shuffler = Shuffler(state.deck_inputs(state.server_seed))
    n = 0
    for e in await store.read_stream(f"match-{match_id}"):
        if e.type == "DeckSupplied":
            size = len(e.payload["cards"])
            expected = [c for c in _codes(shuffler.deck(e.payload["deal_number"], size))]
            assert e.payload["cards"] == expected, f"deal {e.payload['deal_number']}"
            n += 1
    return n


def _codes(cards: Any) -> list[str]:
    from belot.cards import to_codes

    return to_codes(list(cards))


@contextlib.asynccontextmanager
async def platform(
    store: EventStore,
    pg_pool: Any,
    nc: Client,
    js_names: Any,
    *,
    workers: int = 1,
    lease_ttl: float = 3.0,
    turn_ms: int = 30_000,
    window_ms: int = 20_000,
    drand_mode: str = "ok",
    relay: bool = True,
    clock: ScaledClock | None = None,
    round_lead_ms: int = ROUND_LEAD_MS,
) -> AsyncIterator[Platform]:
    """The platform; ``round_lead_ms``: the lead of the round its matches name (the
    service's default; a test that starts many matches one after another, or on a slow
    clock, may give a shorter one: tournament_support, test_web_browser). The clock
    starts at :func:`origin_for` the lead unless one is given."""
    prefix = f"t{uuid.uuid4().hex[:10]}"
    clock = clock or ScaledClock(origin_for(round_lead_ms), SPEED)
    drand_relay = TestServer(
        create_relay_app({"quicknet": RELAY_BEACONS}, clock, Mode.parse(drand_mode))
    )
    await drand_relay.start_server()
    own_pools: list[asyncpg.Pool] = []
    table_store = randomness_store = relay_store = store
    seeds_pool = pg_pool
    if roles.CURRENT is not None:
        kit = roles.CURRENT
        for role in ("table", "randomness", "relay"):
            own_pools.append(await asyncpg.create_pool(kit.dsn(role), min_size=1, max_size=6))
        table_store = EventStore(own_pools[0], store.schema, producer="table", entries=logentries)
        randomness_store = EventStore(
            own_pools[1], store.schema, producer="randomness", entries=logentries
        )
        relay_store = EventStore(own_pools[2], store.schema, producer="relay")
        seeds_pool = own_pools[1]
    seeds = SeedStore(seeds_pool, store.schema)
    await seeds.migrate()
    client = DrandClient([str(drand_relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.3)
    randomness = RandomnessService(
        randomness_store, seeds, client, clock, window_ms=window_ms, round_lead_ms=round_lead_ms
    )
    subs = [
        await messaging.serve(nc, s, h)
        for s, h in Handlers(randomness, "quicknet", f"{prefix}.randomness").routes().items()
    ]
    await randomness.start()
    relay_task = None
    if relay:
        outbox = OutboxRelay(
            relay_store,
            nc.jetstream(),
            stream=js_names.stream,
            subject_prefix=js_names.subject_prefix,
        )
        await outbox.ensure_stream()
        # Supervised, as in the relay service: a failure is logged and it starts again.
        relay_task = Supervisor().spawn(
            "outbox-relay", lambda t: outbox.run(t.stopping, t.beat), grace=outbox.ack_timeout
        )
    drand_url = str(drand_relay.make_url("")).rstrip("/")
    p = Platform(
        store, nc, prefix, randomness, drand_url=drand_url, clock=clock, worker_store=table_store
    )
    for _ in range(workers):
        await p.add_worker(lease_ttl, turn_ms)
    try:
        yield p
    finally:
        for w in p.workers:
            await w.stop(handover=False)
        if relay_task is not None:
            await relay_task.stop()
        for sub in subs:
            await sub.unsubscribe()
        await randomness.stop()
        await client.close()
        await drand_relay.close()
        for own in {table_store, randomness_store, relay_store} - {store}:
            await own.close()
        for pool in own_pools:
            await pool.close()
        js = nc.jetstream()
        for bucket in (f"{prefix}_table_leases", f"{prefix}_tables"):
            with contextlib.suppress(Exception):
                await js.delete_key_value(bucket)
