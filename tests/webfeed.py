"""What a player's tab receives, built from a match record, for the web client's Node
tests (tests/unit/test_web_js.py, tests/unit/test_tab_attacks.py): the WebSocket's event
messages a seat may see, when the tab got each one on its own clock, the seed reply's
receipt, and fake drand relays (web/node/tabsim.mjs plays them against the tab's code).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from fairdeal.chains import QUICKNET
from fairdeal.receipts import Receipt, sign_receipt
from services.gateway.domain import MATCH_ENDING, RANDOMNESS_OPENED_BY, may_see
from tools.drand_vectors import QUICKNET_BEACONS

Msg = dict[str, Any]
#: How long after the log recorded an event the tab gets it (the gateway, the socket).
LATENCY_MS = 40
#: How long after a round is due drand's relays serve it, as the fake relays do.
RELAY_AFTER_MS = 100


def seat_feed(record: dict[str, Any], seat: int) -> list[Msg]:
    """What a tab at ``seat`` receives: the WebSocket's event messages, in log order."""
    events = sorted(
        [*record["streams"]["match"]["events"], *record["streams"]["randomness"]["events"]],
        key=lambda e: e["position"],
    )
    opened: set[str] = set()
    feed = []
    for e in events:
        stream = e["stream"]
        if stream.startswith("match-") and e["type"] in MATCH_ENDING:
            opened.add(stream)
        if stream.startswith("randomness-") and e["type"] in RANDOMNESS_OPENED_BY:
            opened.add(stream)
        if may_see(e["visibility"], seat, stream in opened):
            feed.append(
                {
                    "type": "event",
                    "stream": stream,
                    "version": e["version"],
                    "event": e["type"],
                    "payload": e["payload"],
                    "visibility": e["visibility"],
                }
            )
    return feed


def recorded_ms(event: dict[str, Any]) -> int:
    """When the log recorded ``event`` (its envelope's recorded_at), Unix ms."""
    at = datetime.strptime(event["recorded_at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return round(at.timestamp() * 1000)


def timed_feed(
    record: dict[str, Any], seat: int, latency_ms: int = LATENCY_MS
) -> list[dict[str, Any]]:
    """``seat_feed`` with the tab's time for each message: when the log recorded the
    event, plus ``latency_ms``: [{msg, at}]."""
    when = {
        (e["stream"], e["version"]): recorded_ms(e)
        for name in ("match", "randomness")
        for e in record["streams"][name]["events"]
    }
    return [
        {"msg": m, "at": when[(m["stream"], m["version"])] + latency_ms}
        for m in seat_feed(record, seat)
    ]


def receipt_of(record: dict[str, Any], seat: int, secret: bytes | None = None) -> dict[str, Any]:
    """The seed reply's receipt for ``seat`` (services/randomness/service.py receipt): the
    randomness stream's SeatSeedReceived of the seat, signed with the match's private
    receipt key ``secret`` (tools.matchgen.receipt_secret_of) when given."""
    for e in record["streams"]["randomness"]["events"]:
        if e["type"] == "SeatSeedReceived" and e["payload"]["seat"] == seat:
            receipt = Receipt(
                record["match_id"],
                seat,
                hashlib.sha256(bytes.fromhex(e["payload"]["seed"])).digest(),
                e["stream"],
                e["version"],
            )
            if secret is not None:
                receipt = sign_receipt(secret, receipt)
            return {**receipt.to_json(), "at_ms": e["payload"]["at_ms"]}
    raise LookupError(f"no seed of seat {seat} is recorded")


def due_ms(round_: int) -> int:
    return QUICKNET.time_of_round(round_) * 1000


def beacons() -> dict[str, dict[str, Any]]:
    """The recorded quicknet beacons the fake relays serve, by round."""
    out = {}
    for b in QUICKNET_BEACONS:
        out[str(b["round"])] = {"round": b["round"], "signature": b["signature"]}
    return out


def relay(
    url: str,
    source: str,
    *,
    late: dict[int, int] | None = None,
    mode: str = "honest",
    rounds: range = range(1000, 1004),
) -> dict[str, Any]:
    """A fake drand relay: it serves each round of ``rounds`` from its due time +
    RELAY_AFTER_MS (``late``: later, by round, in ms after due), holds a request for the
    next round until then and answers 425 for later ones; ``mode`` "down" answers
    nothing, "lying" serves signatures with a bit flipped. ``source``: who lists it for
    the tab ("player", "tab" or "server")."""
    late = late or {}
    produced = {str(r): due_ms(r) + late.get(r, RELAY_AFTER_MS) for r in rounds}
    return {"url": url, "source": source, "mode": mode, "produced": produced}
