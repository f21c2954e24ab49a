"""The randomness service end to end on real PostgreSQL and NATS, with a local drand
relay of recorded real beacons on a virtual clock (SPEED times real time)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import asyncpg
import orjson
import pytest
from aiohttp.test_utils import TestServer

from belot_platform import messaging
from belot_platform.messaging import ServiceError
from commands.cli import main as belot
from drand import QUICKNET
from drand.client import DrandClient
from drand.clock import ScaledClock
from drand.relay import Mode, create_relay_app, load_beacons
from eventlog import EventStore, NewEvent
from fairdeal import logentries
from fairdeal.fairness import ROUND_LEAD_MS, round_named_for
from fairdeal.receipts import public_key, receipt_from_json, verify_receipt
from services.randomness.domain import stream_of
from services.randomness.handlers import Handlers
from services.randomness.service import RandomnessService
from services.randomness.store import SeedStore
from tests.integration import roles
from tools.drand_vectors import BEACONS_FILE

pytestmark = pytest.mark.asyncio(loop_scope="session")

SPEED = 10.0
BEACONS = load_beacons(BEACONS_FILE, QUICKNET)
# The lead before half a period into round 1000: the first round due more than the lead
# after seeds sent now is 1001.
ORIGIN = QUICKNET.time_of_round(1000) + 0.5 - ROUND_LEAD_MS / 1000
ANN, BOB = "ann", "bob"
SEATS = [{"seat": 0, "player": ANN}, {"seat": 1, "player": None},
         {"seat": 2, "player": BOB}, {"seat": 3, "player": None}]  # fmt: skip


class HeldClock(ScaledClock):
    """The virtual clock, stopped while a test does two things that must see one moment
    (the round a match names is the first due more than the lead after its seeds: two
    opens 0.25 s apart on a loaded machine cross a 3-second round at SPEED 10)."""

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        moment = self.now()
        self.now = lambda: moment  # type: ignore[method-assign]
        try:
            yield
        finally:
            del self.now
            self.origin = moment
            self._start = time.monotonic()


@dataclass
class Rig:
    service: RandomnessService
    store: EventStore
    clock: HeldClock
    subject: str
    nc: object
    replies: list

    async def ask(self, verb: str, body: dict) -> dict:
        try:
            reply = await messaging.request(self.nc, f"{self.subject}.{verb}", body, timeout=10)
        except ServiceError as exc:
            self.replies.append({"error": exc.code, "message": exc.message})
            raise
        self.replies.append(reply)
        return reply

    async def events(self, match_id: str) -> list:
        return await self.store.read_stream(stream_of(match_id))


@contextlib.asynccontextmanager
async def rig(store, pg_pool, nc, mode: str = "ok", window_ms: int = 20_000) -> AsyncIterator[Rig]:
    # The seed store goes in the test's own schema (dropped after the test).
    clock = HeldClock(ORIGIN, SPEED)
    relay = TestServer(create_relay_app({"quicknet": BEACONS}, clock, Mode.parse(mode)))
    await relay.start_server()
    # With a role kit, the service runs as the randomness role (its own pool and store).
    own = (
        None
        if roles.CURRENT is None
        else await asyncpg.create_pool(roles.CURRENT.dsn("randomness"))
    )
    # Its store writes the transparency log's entries, as the service's does.
    service_store = EventStore(
        pg_pool if own is None else own, store.schema, producer="randomness", entries=logentries
    )
    seeds = SeedStore(pg_pool if own is None else own, store.schema)
    await seeds.migrate()
    client = DrandClient([str(relay.make_url(""))], QUICKNET, clock=clock, retry_interval=0.3)
    fixed: list[dict] = []

    async def notify(match_id: str, body: dict) -> None:
        fixed.append(body)

    service = RandomnessService(
        service_store, seeds, client, clock, window_ms=window_ms, notify=notify
    )
    subject = f"t{uuid.uuid4().hex[:10]}.randomness"
    subs = [
        await messaging.serve(nc, s, h)
        for s, h in Handlers(service, "quicknet", subject).routes().items()
    ]
    await service.start()
    r = Rig(service, store, clock, subject, nc, [])
    r.fixed = fixed  # type: ignore[attr-defined]
    try:
        yield r
    finally:
        for sub in subs:
            await sub.unsubscribe()
        await service.stop()
        await client.close()
        await relay.close()
        await service_store.close()
        if own is not None:
            await own.close()


def new_match_id() -> str:
    return uuid.uuid4().hex


async def wait_for(predicate, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if await predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached")


async def end_match(store: EventStore, match_id: str) -> None:
    await store.append(f"match-{match_id}", 0, [NewEvent("MatchEnded", {"scores": [1000, 500]})])


def belot_deck(
    capsys, seed: str, seats: list[str], deal: int, drand: tuple[int, str] | None
) -> list[str]:
    argv = ["deck", "--server-seed", seed, "--deal", str(deal), "--json"]
    for s in seats:
        argv += ["--seat-seed", s]
    if drand:
        argv += ["--drand-round", str(drand[0]), "--drand-value", drand[1]]
    assert belot(argv) == 0
    return orjson.loads(capsys.readouterr().out)


async def test_a_match_from_commitment_to_reveal(store, pg_pool, nc, capsys, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    match_id = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        opened = await r.ask("open", {"match_id": match_id, "seats": SEATS})
        ann_seed, bob_seed = "11" * 16, "22" * 16
        first = await r.ask(
            "seed", {"match_id": match_id, "seat": 0, "player": ANN, "seed": ann_seed}
        )
        assert first["window_closed"] is False
        status = await r.ask("status", {"match_id": match_id})
        assert status["seats"][0]["seed_sent"] and status["seats"][0]["seed"] is None
        last = await r.ask(
            "seed", {"match_id": match_id, "seat": 2, "player": BOB, "seed": bob_seed}
        )
        assert last["window_closed"] is True
        deck0 = await r.ask("deck", {"match_id": match_id, "deal": 0, "wait_ms": 10_000})
        deck1 = await r.ask("deck", {"match_id": match_id, "deal": 1})
        # 1001 when the seeds arrive within 0.25 s of the rig's start; a slower machine
        # closes the window later and the rule names a later round (checked below).
        assert deck0["drand_round"] in (1001, 1002) and deck0["fallback"] is False
        with pytest.raises(ServiceError) as early:
            await r.ask("reveal", {"match_id": match_id})
        assert early.value.code == "match_not_ended"
        await end_match(store, match_id)
        revealed = await r.ask("reveal", {"match_id": match_id})
        seed = revealed["server_seed"]
        events = await r.events(match_id)

    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == opened["commitment"]
    types = [e.type for e in events]
    assert types == [
        "ServerSeedCommitted", "SeatSeedReceived", "SeatSeedReceived", "SeedWindowClosed",
        "DrandRoundNamed", "DrandBeaconVerified", "DeckIssued", "DeckIssued", "ServerSeedRevealed",
    ]  # fmt: skip
    assert [e.visibility for e in events[1:3]] == ["seat:0", "seat:2"]
    named = events[4].payload
    # The rule's round: the first due more than the commitment's lead after the close.
    lead = events[0].payload["round_lead_ms"]
    assert lead == ROUND_LEAD_MS
    assert named["round"] == round_named_for("quicknet", events[3].payload["at_ms"], lead)
    assert named["due_at_ms"] > events[3].payload["at_ms"] + lead
    assert deck0["drand_round"] == named["round"]
    verified = events[5].payload
    beacon = BEACONS[named["round"]]
    assert verified["signature"] == beacon.signature.hex()
    assert verified["randomness"] == hashlib.sha256(beacon.signature).hexdigest()
    # The decks equal `belot deck` on the same inputs (bots' seats empty).
    seats = [ann_seed, "", bob_seed, ""]
    drand = (named["round"], verified["randomness"])
    assert deck0["cards"] == belot_deck(capsys, seed, seats, 0, drand)
    assert deck1["cards"] == belot_deck(capsys, seed, seats, 1, drand)
    # The server seed appears nowhere before the reveal: no event, reply or log line.
    before = [e for e in events if e.type != "ServerSeedRevealed"]
    assert all(seed not in orjson.dumps(e.payload).decode() for e in before)
    assert all(seed not in orjson.dumps(x).decode() for x in r.replies[:-1])
    assert seed not in caplog.text


async def test_silent_drand_falls_back_at_due_plus_5(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc, mode="down") as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS[:2]})
        await r.ask("seed", {"match_id": match_id, "seat": 0, "player": ANN, "seed": "33" * 16})
        deck = await r.ask("deck", {"match_id": match_id, "deal": 0, "wait_ms": 15_000})
        events = await r.events(match_id)
        fixed = r.fixed  # type: ignore[attr-defined]
    assert deck["fallback"] is True and deck["drand_round"] is None
    named = next(e.payload for e in events if e.type == "DrandRoundNamed")
    fallback = next(e.payload for e in events if e.type == "DrandFallback")
    late_ms = fallback["at_ms"] - named["due_at_ms"]
    assert 5_000 <= late_ms < 6_500, late_ms  # at due + 5 s, not earlier
    assert fixed == [{"match_id": match_id, "drand_round": named["round"], "fallback": True}]


async def test_lying_relay_is_not_dealt_from(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc, mode="lying") as r:
        await r.ask(
            "open",
            {
                "match_id": match_id,
                "seats": [{"seat": 0, "player": None}, {"seat": 1, "player": None}],
            },
        )
        deck = await r.ask("deck", {"match_id": match_id, "deal": 0, "wait_ms": 15_000})
        types = [e.type for e in await r.events(match_id)]
    assert deck["fallback"] is True
    assert "DrandBeaconVerified" not in types and "DrandFallback" in types


BAD_SEEDS = {
    "15 bytes": ({"seat": 0, "player": ANN, "seed": "00" * 15}, "seed_wrong_length"),
    "17 bytes": ({"seat": 0, "player": ANN, "seed": "00" * 17}, "seed_wrong_length"),
    "not hex": ({"seat": 0, "player": ANN, "seed": "zz" * 16}, "seed_not_hex"),
    "someone else's seat": ({"seat": 0, "player": BOB, "seed": "00" * 16}, "not_your_seat"),
    "a bot's seat": ({"seat": 1, "player": ANN, "seed": "00" * 16}, "bot_seat"),
    "no such seat": ({"seat": 9, "player": ANN, "seed": "00" * 16}, "unknown_seat"),
    "seat not a number": ({"seat": "0", "player": ANN, "seed": "00" * 16}, "bad_request"),
}


@pytest.mark.parametrize("body,code", BAD_SEEDS.values(), ids=BAD_SEEDS.keys())
async def test_bad_seed_is_refused_and_nothing_appended(store, pg_pool, nc, body, code) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
        before = await store.stream_version(stream_of(match_id))
        with pytest.raises(ServiceError) as err:
            await r.ask("seed", {"match_id": match_id, **body})
        assert err.value.code == code and err.value.message
        assert await store.stream_version(stream_of(match_id)) == before


async def test_second_seed_and_late_seed_are_refused(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc, window_ms=3_000) as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
        await r.ask("seed", {"match_id": match_id, "seat": 0, "player": ANN, "seed": "44" * 16})
        version = await store.stream_version(stream_of(match_id))
        with pytest.raises(ServiceError) as again:
            await r.ask("seed", {"match_id": match_id, "seat": 0, "player": ANN, "seed": "55" * 16})
        assert again.value.code == "seed_already_sent"
        assert await store.stream_version(stream_of(match_id)) == version

        async def closed() -> bool:
            return (await r.service.state(match_id)).is_window_closed

        await wait_for(closed)  # the 3 s window passes (0.3 s real)
        events = await r.events(match_id)
        closing = next(e.payload for e in events if e.type == "SeedWindowClosed")
        assert closing["missing"] == [2] and closing["seat_seeds"][2] == ""
        version = await store.stream_version(stream_of(match_id))
        with pytest.raises(ServiceError) as late:
            await r.ask("seed", {"match_id": match_id, "seat": 2, "player": BOB, "seed": "66" * 16})
        assert late.value.code == "seed_window_closed"
        assert await store.stream_version(stream_of(match_id)) == version


async def test_retried_commands_are_idempotent(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        a = await r.ask("open", {"match_id": match_id, "seats": SEATS})
        b = await r.ask("open", {"match_id": match_id, "seats": SEATS})
        assert a["commitment"] == b["commitment"]
        body = {
            "match_id": match_id,
            "seat": 0,
            "player": ANN,
            "seed": "77" * 16,
            "command_id": "c1",
        }
        await r.ask("seed", body)
        await r.ask("seed", body)  # the same command again: accepted, nothing new
        types = [e.type for e in await r.events(match_id)]
    assert types == ["ServerSeedCommitted", "SeatSeedReceived"]


async def test_unknown_match_and_deck_before_inputs_fixed(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        with pytest.raises(ServiceError) as unknown:
            await r.ask("deck", {"match_id": match_id, "deal": 0})
        assert unknown.value.code == "unknown_match"
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
        with pytest.raises(ServiceError) as early:
            await r.ask("deck", {"match_id": match_id, "deal": 0})
        assert early.value.code == "inputs_not_fixed"
        with pytest.raises(ServiceError) as bad:
            await r.ask("open", {"match_id": "has space", "seats": SEATS})
        assert bad.value.code == "bad_request"


async def test_restarted_service_resumes_the_timers(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc, window_ms=2_000) as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
    # The service stopped before the window closed; a new one picks the match up.
    async with rig(store, pg_pool, nc, window_ms=2_000) as r2:

        async def resolved() -> bool:
            return (await r2.service.state(match_id)).is_drand_resolved

        await wait_for(resolved)
        types = [e.type for e in await r2.events(match_id)]
    assert types[:3] == ["ServerSeedCommitted", "SeedWindowClosed", "DrandRoundNamed"]
    assert types[3] in ("DrandBeaconVerified", "DrandFallback")


async def test_a_seed_gets_a_receipt_the_record_must_honour(store, pg_pool, nc) -> None:
    match_id = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
        reply = await r.ask("seed", {"match_id": match_id, "seat": 2, "player": BOB,
                                     "seed": "5a" * 16})  # fmt: skip
        events = await r.events(match_id)
    receipt = reply["receipt"]
    recorded = events[receipt["version"] - 1]
    assert receipt["stream"] == stream_of(match_id) and receipt["seat"] == 2
    assert recorded.type == "SeatSeedReceived" and recorded.payload["seed"] == "5a" * 16
    assert receipt["seed_sha256"] == hashlib.sha256(bytes.fromhex("5a" * 16)).hexdigest()
    assert receipt["at_ms"] == recorded.payload["at_ms"]
    # Signed with the match's receipt key, whose public half the commitment recorded
    # before any seed (fairdeal.receipts): the receipt proves the seed to anyone.
    key = bytes.fromhex(events[0].payload["receipt_key"])
    assert events[0].type == "ServerSeedCommitted" and len(key) == 32
    assert verify_receipt(key, receipt_from_json(receipt))
    # Not a key a reader could make: a different one for every match, and not the
    # revealed server seed's (a reveal must not let anyone sign receipts).
    other = new_match_id()
    async with rig(store, pg_pool, nc) as r:
        await r.ask("open", {"match_id": other, "seats": SEATS})
        opened = (await r.events(other))[0].payload
    assert opened["receipt_key"] != events[0].payload["receipt_key"]
    kept = await pg_pool.fetchval(
        f"SELECT receipt_key FROM {store.schema}.server_seeds WHERE match_id = $1", match_id
    )
    assert kept is not None and public_key(bytes(kept)) == key
    # A receipt edited in any field no longer verifies.
    for field, value in (("seat", 0), ("version", receipt["version"] + 1),
                         ("seed_sha256", "00" * 32), ("stream", "randomness-other")):  # fmt: skip
        assert not verify_receipt(key, receipt_from_json({**receipt, field: value})), field


async def open_both_and_deal(r: Rig, a: str, b: str) -> list[dict]:
    """Two bots' matches opened at one moment (so naming one round), and each one's
    first deck asked for."""
    bots = [{"seat": 0, "player": None}, {"seat": 1, "player": None}]
    with r.clock.held():
        await r.ask("open", {"match_id": a, "seats": bots})
        await r.ask("open", {"match_id": b, "seats": bots})
    return list(
        await asyncio.gather(
            r.ask("deck", {"match_id": a, "deal": 0, "wait_ms": 15_000}),
            r.ask("deck", {"match_id": b, "deal": 0, "wait_ms": 15_000}),
        )
    )


async def test_matches_that_name_one_round_follow_its_one_fact(store, pg_pool, nc) -> None:
    # Two matches name the same round while drand is silent: the round is declared missed
    # once, in its own stream, and both are dealt without drand. None can choose.
    a, b = new_match_id(), new_match_id()
    async with rig(store, pg_pool, nc, mode="down") as r:
        decks = await open_both_and_deal(r, a, b)
        named = [next(e.payload for e in await r.events(m) if e.type == "DrandRoundNamed")
                 for m in (a, b)]  # fmt: skip
        assert named[0]["round"] == named[1]["round"]
        facts = await store.read_stream(f"drand-quicknet-{named[0]['round']}")
    assert [d["fallback"] for d in decks] == [True, True]
    assert [f.type for f in facts] == ["DrandRoundMissed"]
    assert facts[0].payload["at_ms"] >= named[0]["due_at_ms"] + 5_000


async def test_matches_that_fell_back_on_one_round_share_one_late_poll(store, pg_pool, nc) -> None:
    # The relay answers, but 8 s late: the round falls back at due + 5 s for both matches,
    # and its value, when it comes, is recorded for both (DrandBeaconLate). The relays
    # are asked for that late value once for the round, not once a match: in an outage,
    # every match of a round would otherwise poll every relay for a minute.
    a, b = new_match_id(), new_match_id()
    async with rig(store, pg_pool, nc, mode="slow:8") as r:
        asked: list[int] = []
        beacon_by = r.service.drand.beacon_by

        async def counted(round_: int, deadline: float, **kw: Any) -> Any:
            asked.append(round_)
            return await beacon_by(round_, deadline, **kw)

        r.service.drand.beacon_by = counted  # type: ignore[method-assign]
        decks = await open_both_and_deal(r, a, b)

        async def late_recorded() -> bool:
            types = [{e.type for e in await r.events(m)} for m in (a, b)]
            return all("DrandBeaconLate" in t for t in types)

        await wait_for(late_recorded)
        named = next(e.payload for e in await r.events(a) if e.type == "DrandRoundNamed")
    assert [d["fallback"] for d in decks] == [True, True]
    assert asked == [named["round"], named["round"]]  # the decision, then the late value


async def test_a_round_fact_already_in_the_log_is_followed_not_decided_again(
    store, pg_pool, nc
) -> None:
    # Another process (or a previous run) recorded the round as missed; drand now
    # answers with its value in time, but the fact stands: the match falls back. Rounds
    # 1001 and 1002 both: which one the match names depends on how fast the seed comes.
    for round_ in (1001, 1002):
        due_ms = QUICKNET.time_of_round(round_) * 1000
        missed = {"chain": "quicknet", "round": round_, "due_at_ms": due_ms,
                  "reason": "recorded first elsewhere", "at_ms": due_ms + 5_000}  # fmt: skip
        await store.append(f"drand-quicknet-{round_}", 0, [NewEvent("DrandRoundMissed", missed)])
    match_id = new_match_id()
    async with rig(store, pg_pool, nc, mode="ok") as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS[:2]})
        await r.ask("seed", {"match_id": match_id, "seat": 0, "player": ANN, "seed": "21" * 16})
        deck = await r.ask("deck", {"match_id": match_id, "deal": 0, "wait_ms": 15_000})
        events = await r.events(match_id)
    assert deck["fallback"] is True
    fallback = next(e.payload for e in events if e.type == "DrandFallback")
    assert fallback["reason"] == "recorded first elsewhere"
    named = next(e.payload["round"] for e in events if e.type == "DrandRoundNamed")
    assert named in (1001, 1002)
    assert len(await store.read_stream(f"drand-quicknet-{named}")) == 1


async def test_a_server_seed_is_never_kept_for_two_matches(store, pg_pool) -> None:
    """Once revealed, a seed used again would let whoever saw it compute every deck of the
    second match from its public events while it runs (docs/threat-model.md)."""
    seeds = SeedStore(pg_pool, store.schema)
    await seeds.migrate()
    seed, key = bytes(range(32)), bytes(range(1, 33))
    assert await seeds.put("reuse-1", seed, key) == (seed, key)
    # A retried open keeps the first seed and the first receipt key.
    assert await seeds.put("reuse-1", bytes(32), bytes(32)) == (seed, key)
    with pytest.raises(asyncpg.UniqueViolationError):
        await seeds.put("reuse-2", seed, bytes(32))
    assert await seeds.get("reuse-2") is None
