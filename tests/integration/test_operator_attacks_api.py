"""The operator as adversary, seen from the whole log: what no single record can show,
the verify API shows (see tests/unit/test_operator_attacks.py for the records alone).

- a server seed used by two matches (case 9, "reuse a seed"): each record verifies on
  its own; the API's report and ``belot verify <API URL>`` refuse both;
- a fallback for a round whose value came (case 3): a match that fell back on a round
  other matches were dealt from fails ``round_consistency``; a round declared missed
  while a match was dealt from its value fails every match of the round;
- the figures anyone can watch: ``/v1/stats`` counts the rounds missed, the matches dealt
  without drand, the aborts after a deck went out and the seeds used twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from belot_platform.settings import Settings
from commands.cli import main as belot
from eventlog import EventStore, NewEvent
from fairdeal import logentries
from fairdeal.chains import QUICKNET
from services.verify.app import create_app
from services.verify.http import RateLimits
from tests.integration.table_support import eventually
from tools.drand_vectors import QUICKNET_BEACONS
from tools.matchgen import MatchSpec, generate, offline_record, write

pytestmark = pytest.mark.asyncio(loop_scope="session")

HONEST = MatchSpec(match_id="honest-1", ruleset="club", label="api-attack")
#: The same label, so the same server seed: a commitment used twice.
REUSED = replace(HONEST, match_id="reused-1")
#: Fell back on round 1002, which the forger declared missed...
MISSED = MatchSpec(match_id="missed-1", ruleset="club", drand="fallback", label="api-missed")
#: ... while this match was dealt from round 1002's real value.
DEALT_1002 = "dealt-1002"
ABORTED = MatchSpec(match_id="aborted-1", ruleset="classic", end="abort", label="api-abort")
#: A free reroll: thrown away once drand's value was in, before deck 0 went out.
REROLLED = MatchSpec(
    match_id="rerolled-1", ruleset="classic", end="abort_after_value", label="api-reroll"
)
#: An honest abort, while the seed window was open.
ABORTED_EARLY = MatchSpec(
    match_id="early-1", ruleset="classic", end="abort_early", label="api-early"
)
#: Fell back on round 1001, whose value came in time for honest-1.
FELL_BACK_1001 = "fellback-1001"


async def write_randomness_only(
    store: EventStore, match_id: str, round_: int, *, with_drand: bool
) -> None:
    """A match's fair-deal stream up to its drand outcome (what the API's facts read)."""
    seed = hashlib.sha256(match_id.encode()).digest()
    at = QUICKNET.time_of_round(round_ - 1) * 1000 + 500
    due = QUICKNET.time_of_round(round_) * 1000
    sig = next(b["signature"] for b in QUICKNET_BEACONS if b["round"] == round_)
    events = [
        NewEvent(
            "ServerSeedCommitted",
            {
                "match_id": match_id,
                "commitment": hashlib.sha256(seed).hexdigest(),
                "seats": [{"seat": 0, "player": None}, {"seat": 1, "player": None}],
                "chain": "quicknet",
                "window_closes_at_ms": at + 20_000,
                "last_round": QUICKNET.next_round_after((at + 20_000) / 1000),
                "at_ms": at,
            },
        ),
        NewEvent("SeedWindowClosed", {"seat_seeds": ["", ""], "missing": [], "at_ms": at}),
        NewEvent(
            "DrandRoundNamed",
            {"chain": "quicknet", "round": round_, "due_at_ms": due, "at_ms": at},
        ),
        NewEvent(
            "DrandBeaconVerified",
            {
                "round": round_,
                "signature": sig,
                "randomness": hashlib.sha256(bytes.fromhex(sig)).hexdigest(),
                "previous_signature": None,
                "at_ms": due + 300,
            },
        )
        if with_drand
        else NewEvent(
            "DrandFallback",
            {"round": round_, "reason": "no verified drand value", "at_ms": due + 5_100},
        ),
    ]
    await store.append(f"randomness-{match_id}", 0, events)


@dataclass
class World:
    client: TestClient  # type: ignore[type-arg]
    url: str


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def world(servers: Any, pg_pool: Any) -> AsyncIterator[World]:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    store = await EventStore.open(pg_pool, schema, producer="tests", entries=logentries)
    for spec in (HONEST, REUSED, MISSED, ABORTED, REROLLED, ABORTED_EARLY):
        await write(store, generate(spec))
    await write_randomness_only(store, DEALT_1002, 1002, with_drand=True)
    await write_randomness_only(store, FELL_BACK_1001, 1001, with_drand=False)
    settings = Settings(pg_dsn=servers.pg_dsn, pg_schema=schema)
    app = create_app(settings, schema=schema, limits=RateLimits(rate=10_000, burst=100_000))
    client: TestClient = TestClient(TestServer(app))  # type: ignore[type-arg]
    await client.start_server()

    # The API's projection has read every stream written above (the six matches, and the
    # two of randomness alone, which only the stats and the rounds count); a loaded
    # machine can take a while, and a test must not start before it has.
    async def caught_up() -> bool:
        body = await (await client.get("/v1/matches")).json()
        round_ = await (await client.get("/v1/rounds/quicknet/1001")).json()
        stats = await (await client.get("/v1/stats")).json()
        return (
            len(body["matches"]) >= 6
            and len(round_["matches"]) >= 5
            and stats["all"]["matches"]["dealt"] >= 8
        )

    await eventually(caught_up, timeout=60)
    yield World(client, str(client.make_url("")).rstrip("/"))
    await client.close()
    await store.close()
    await pg_pool.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def report(world: World, match_id: str) -> dict[str, Any]:
    resp = await world.client.get(f"/v1/matches/{match_id}/verification")
    assert resp.status == 200, await resp.text()
    result: dict[str, Any] = await resp.json()
    return result


def check(rep: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in rep["checks"] if c["name"] == name)
    return found


async def test_a_server_seed_used_twice_is_refused_for_both_matches(world: World) -> None:
    # On its own each record is a fair match.
    for spec in (HONEST, REUSED):
        rep = await report(world, spec.match_id)
        own = [c for c in rep["checks"] if c["name"] not in ("commitment_unique",)]
        assert all(c["status"] == "pass" for c in own), [c for c in own if c["status"] != "pass"]
        assert rep["ok"] is False and rep["failed"] == ["commitment_unique"]
        assert "reused-1" in check(rep, "commitment_unique")["detail"] or spec is REUSED
    commitment = offline_record(HONEST)["fair_deal"]["commitment"]
    users = await (await world.client.get(f"/v1/commitments/{commitment}")).json()
    assert users == {"commitment": commitment, "matches": ["honest-1", "reused-1"],
                     "used_twice": True}  # fmt: skip
    # belot verify, given the API's URL, asks it and refuses the record.
    code = await asyncio.to_thread(belot, ["verify", f"{world.url}/v1/matches/reused-1"])
    assert code == 1


async def test_a_fallback_on_a_round_whose_value_came_is_a_choice(world: World) -> None:
    body = await (await world.client.get("/v1/rounds/quicknet/1001")).json()
    assert body["fact"] == "DrandRoundBeacon"
    assert body["consistent"] is False and body["deviating"] == [FELL_BACK_1001]
    rep = await report(world, "honest-1")
    assert check(rep, "round_consistency")["status"] == "pass"
    assert "1 other match(es) fell back" in check(rep, "round_consistency")["detail"]


async def test_a_round_declared_missed_while_a_match_used_its_value_fails_the_round(
    world: World,
) -> None:
    rep = await report(world, "missed-1")
    rc = check(rep, "round_consistency")
    assert rc["status"] == "fail" and DEALT_1002 in rc["detail"]
    # The record alone verifies: only the whole log shows the claim was false.
    assert rep["failed"] == ["round_consistency"]
    code = await asyncio.to_thread(belot, ["verify", f"{world.url}/v1/matches/missed-1"])
    assert code == 1


async def test_the_figures_anyone_can_watch(world: World) -> None:
    stats = await (await world.client.get("/v1/stats")).json()
    for window in ("all", "last_24h"):
        w = stats[window]
        assert w["commitments_used_twice"] == 1
        # Rounds 1001 (came) and 1002 (declared missed).
        assert w["rounds"] == {"facts": 2, "missed": 1, "missed_rate": 0.5}
        # Dealt: honest, reused, missed, aborted, rerolled, early, dealt-1002,
        # fellback-1001 (each named a round that resolved); two without drand.
        assert w["matches"]["dealt"] == 8 and w["matches"]["without_drand"] == 2
        assert w["matches"]["fallback_rate"] == 0.25
        assert w["matches"]["aborted_after_deck"] == 1 and w["matches"]["ended"] == 6
        assert w["matches"]["abort_after_deck_rate"] == round(1 / 6, 6)
        # The reroll threw no deck away, and counts: after the round was named.
        assert w["matches"]["aborted"] == 3 and w["matches"]["aborted_after_round"] == 2
        assert w["matches"]["abort_after_round_rate"] == round(2 / 6, 6)
        assert w["seats"]["human"] == 6 * 2 and w["seats"]["missing_seed"] == 0


async def test_bad_paths_get_clear_errors(world: World) -> None:
    for path, code in (
        ("/v1/commitments/xyz", "bad_commitment"),
        ("/v1/commitments/" + "A" * 64, "bad_commitment"),
        ("/v1/rounds/nochain/1", "bad_chain"),
        ("/v1/rounds/quicknet/0", "bad_round"),
        ("/v1/rounds/quicknet/1e3", "bad_round"),
        ("/v1/rounds/quicknet/" + "9" * 30, "bad_round"),
    ):
        resp = await world.client.get(path)
        assert resp.status == 400, path
        assert (await resp.json())["error"] == code


async def test_an_abort_after_a_deck_is_refused_beside_the_platforms_abort_rate(
    world: World,
) -> None:
    rep = await report(world, "aborted-1")
    assert rep["failed"] == ["ending"]
    assert "aborted by operator:ops" in check(rep, "ending")["detail"]
    assert rep["platform"]["abort_after_deck_rate"] == round(1 / 6, 6)
    assert rep["platform"]["abort_after_round_rate"] == round(2 / 6, 6)
    assert rep["platform"]["see"] == "/v1/stats"


async def test_a_free_reroll_is_refused_and_an_early_abort_is_not(world: World) -> None:
    rep = await report(world, REROLLED.match_id)
    assert rep["failed"] == ["ending"]
    assert "after round 1001 was named" in check(rep, "ending")["detail"]
    rep = await report(world, ABORTED_EARLY.match_id)
    assert rep["ok"] is True, rep["failed"]
    assert "before the round was named" in check(rep, "ending")["detail"]
