"""The verifier on what the real randomness service writes: a bot match whose decks come
from ``belot.randomness.deck`` (NATS, local drand relay, virtual clock), its game events
appended as the table service will, the seed revealed by the service; the record read
back from the log verifies, with drand and with the fallback."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

import drand
from belot import RULESETS, SupplyDeck, decide, due, evolve, new_match, started_event, view
from belot.bots import choose
from belot.cards import parse_card
from belot.codec import to_payload
from belot.commands import Command
from belot.match import DueKind
from eventkit import visibility_of
from eventlog import EventStore, NewEvent
from fairdeal.verifier import verify_record
from tests.integration.test_randomness import rig
from tests.tamper import tampered
from tools.matchgen import stored_record

pytestmark = pytest.mark.asyncio(loop_scope="session")

SEATS = [
    {"seat": 0, "player": "ann"},
    {"seat": 1, "player": None},
    {"seat": 2, "player": "bob"},
    {"seat": 3, "player": None},
]


async def play_bot_match(r: Any, store: EventStore, match_id: str) -> None:
    """The table's part: a classic match between medium bots, decks from the service."""
    rules = RULESETS["classic"]
    state = new_match(rules, match_id)  # classic: seat 0 deals first (belot.first_dealer)
    stream = f"match-{match_id}"
    version = (
        await store.append(stream, 0, [NewEvent("MatchStarted", to_payload(started_event(state)))])
    ).last_version
    rng = random.Random(7)
    while True:
        d = due(state)
        if d.kind is DueKind.NOTHING:
            break
        command: Command
        if d.kind is DueKind.DECK:
            deck = await r.ask(
                "deck", {"match_id": match_id, "deal": d.deal_number, "wait_ms": 15_000}
            )
            cards = tuple(parse_card(c) for c in deck["cards"])
            salts = tuple(bytes.fromhex(x) for x in deck["salts"])
            command = SupplyDeck(d.deal_number, cards, salts)
        else:
            assert d.seat is not None
            command = choose(view(state, d.seat), rng, "medium")
        events = decide(state, command)
        result = await store.append(
            stream,
            version,
            [NewEvent(e.TYPE, to_payload(e), visibility_of(e)) for e in events],
            command_id=uuid.uuid4().hex,
        )
        version = result.last_version
        for e in events:
            state = evolve(state, e)


def _drop_salts(record: dict[str, Any]) -> None:
    for e in record["streams"]["match"]["events"]:
        if e["type"] == "DeckSupplied":
            e["payload"]["salts"] = []
        elif e["type"] == "CardsDealt":
            e["payload"]["salt"] = ""


@pytest.mark.parametrize("mode", ["ok", "down"])
async def test_a_match_dealt_by_the_randomness_service_verifies(
    store: EventStore, pg_pool: Any, nc: Any, mode: str
) -> None:
    match_id = f"svc-{uuid.uuid4().hex[:10]}"
    async with rig(store, pg_pool, nc, mode=mode) as r:
        await r.ask("open", {"match_id": match_id, "seats": SEATS})
        await r.ask("seed", {"match_id": match_id, "seat": 0, "player": "ann", "seed": "11" * 16})
        await r.ask("seed", {"match_id": match_id, "seat": 2, "player": "bob", "seed": "22" * 16})
        await play_bot_match(r, store, match_id)
        await r.ask("reveal", {"match_id": match_id})
    record = await stored_record(store, match_id)
    report = verify_record(record, bls=drand.verify)
    assert report.ok, [(c.name, c.detail) for c in report.checks if not c.passed]
    # A table that left the salts out (belot.salts) would not have passed.
    unsalted = tampered(record, lambda r: _drop_salts(r))
    assert [c.name for c in verify_record(unsalted, bls=drand.verify).checks if not c.passed] == [
        "decks"
    ]
    # The rule's round for when the window closed (the drand_round check holds it to
    # the rule): 1001 when the seeds arrive within 0.25 s of the rig's start, 1002 on a
    # slower machine.
    assert report.drand_round in (1001, 1002)
    assert report.dealt_with_drand is (mode == "ok")
    assert record["seats"][0]["seed"] == "11" * 16 and record["seats"][1]["seed"] == ""
