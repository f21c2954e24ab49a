"""What the outbox relay puts in a message's body: the envelope without its hash, or a secret
event's stub."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import orjson
import pytest

from eventlog.envelope import RecordedEvent
from eventlog.relay import message_body, withheld

DECK = ["7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]


def event(visibility: str, payload: object) -> RecordedEvent:
    return RecordedEvent(
        position=17,
        stream_id="match-42",
        version=3,
        type="DeckSupplied" if visibility == "secret" else "CardsDealt",
        payload=payload,
        metadata={"producer": "table", "command_id": "c-1"},
        visibility=visibility,
        recorded_at=datetime(2026, 1, 2, 3, 4, 5, 60, tzinfo=UTC),
        hash=hashlib.sha256(b"chain").digest(),
    )


def test_a_secret_event_travels_as_a_stub_without_payload_or_hash() -> None:
    e = event("secret", {"deal_number": 1, "cards": DECK})
    assert withheld(e)
    body = message_body(e)
    assert body == {
        "position": 17,
        "stream": "match-42",
        "version": 3,
        "type": "DeckSupplied",
        "payload": None,
        "metadata": {"producer": "table", "command_id": "c-1"},
        "visibility": "secret",
        "recorded_at": "2026-01-02T03:04:05.000060Z",
        "hash": None,
        "withheld": True,
    }
    data = orjson.dumps(body)
    assert orjson.dumps(DECK) not in data and b"7S" not in data
    assert e.hash.hex().encode() not in data


@pytest.mark.parametrize("visibility", ["public", "seat:0", "seat:3"])
def test_public_and_seat_private_events_travel_whole_but_their_hash(visibility: str) -> None:
    """The hash chain runs through the hidden events: no message carries a hash, which
    would test every guess at them (docs/threat-model.md, "Hidden cards stay hidden")."""
    e = event(visibility, {"seat": 0, "cards": DECK[:5]})
    assert not withheld(e)
    assert message_body(e) == {**e.to_json_dict(), "hash": None}
    assert "withheld" not in message_body(e)
    assert e.hash.hex().encode() not in orjson.dumps(message_body(e))


def test_the_stub_does_not_change_the_event() -> None:
    e = event("secret", {"deal_number": 1, "cards": DECK})
    message_body(e)
    assert e.payload == {"deal_number": 1, "cards": DECK}
    assert e.to_json_dict()["hash"] == e.hash.hex()


def _seal_by_parts(
    key: bytes, expected: int, subject: str, headers: dict[str, str], body: bytes
) -> str:
    """The seal as first written: an HMAC-SHA-256 fed each length-prefixed part in turn."""
    import hmac

    from eventlog.relay import EVENT_HEADERS, POSITION, SEAL_HEX

    mac = hmac.new(key, digestmod=hashlib.sha256)
    for part in (str(expected), subject, headers[POSITION], *(headers[h] for h in EVENT_HEADERS)):
        data = part.encode()
        mac.update(b"%d:" % len(data) + data)
    mac.update(b"%d:" % len(body) + body)
    return mac.hexdigest()[:SEAL_HEX]


@pytest.mark.parametrize("visibility", ["public", "seat:2", "secret"])
@pytest.mark.parametrize("expected", [0, 1, 987_654_321])
def test_the_one_shot_seal_is_the_seal_of_the_parts(visibility: str, expected: int) -> None:
    """A message's id (its seal) must not change with how it is computed: messages already
    in the stream are checked against it (eventlog.relay's module docstring)."""
    from eventlog.relay import event_headers, seal, subject_for

    e = event(visibility, {"deal_number": 1, "cards": DECK, "name": "Иван"})
    key = hashlib.sha256(b"relay key").digest()
    subject, body, headers = (
        subject_for("belot.events", e),
        orjson.dumps(message_body(e)),
        event_headers(e),
    )
    assert seal(key, expected, subject, headers, body) == _seal_by_parts(
        key, expected, subject, headers, body
    )
