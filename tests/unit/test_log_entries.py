"""The transparency log's entries (fairdeal.logentries): which events get one, their
canonical bytes, and parsing them back."""

from __future__ import annotations

import json

import pytest

from fairdeal import logentries as le
from fairdeal.fairness import (
    DrandFallback,
    DrandRoundMissed,
    DrandRoundNamed,
    SeatSpec,
    ServerSeedCommitted,
    ServerSeedRevealed,
    to_payload,
)

H1 = bytes(range(32))
H2 = bytes(range(32, 64))
AT = "2026-01-01T00:00:00.000000Z"

COMMITTED = ServerSeedCommitted(
    "m1", bytes(32), (SeatSpec(0, "ana"), SeatSpec(1, None)), "quicknet", 1_000, 77, 500
)


def _entry(stream: str, type_: str, payload: object, heads=None) -> le.LogEntry:
    pending = le.prepare(stream, type_, payload)
    assert pending is not None
    return pending.entry(3, H1, AT, heads or {})


@pytest.mark.parametrize(
    ("stream", "type_", "logged"),
    [
        ("randomness-m1", "ServerSeedCommitted", True),
        ("randomness-m1", "DrandRoundNamed", True),
        ("randomness-m1", "DrandFallback", True),
        ("randomness-m1", "ServerSeedRevealed", True),
        ("randomness-m1", "SeatSeedReceived", False),
        ("randomness-m1", "DeckIssued", False),
        ("drand-quicknet-7", "DrandRoundMissed", True),
        ("drand-quicknet-7", "DrandRoundBeacon", False),
        ("match-m1", "MatchEnded", True),
        ("match-m1", "MatchForfeited", True),
        ("match-m1", "MatchAborted", True),
        ("match-m1", "CardPlayed", False),
        ("tournament-t", "MatchEnded", False),
        ("table-t", "MatchAborted", False),
    ],
    ids=lambda v: str(v),
)
def test_which_events_get_an_entry(stream: str, type_: str, logged: bool) -> None:
    assert le.is_logged(stream, type_) is logged


def test_the_commitment_entry_in_canonical_bytes() -> None:
    entry = _entry("randomness-m1", "ServerSeedCommitted", to_payload(COMMITTED))
    assert entry == le.Commitment(
        le.EventRef("randomness-m1", 3, H1, AT),
        "m1",
        bytes(32),
        ((0, "ana"), (1, None)),
        "quicknet",
        1_000,
        77,
    )
    data = le.to_bytes(entry)
    # The golden bytes: keys sorted at every depth, no whitespace, hex in lower case.
    assert data == (
        b'{"chain":"quicknet","commitment":"'
        + b"00" * 32
        + b'","event":{"hash":"'
        + H1.hex().encode()
        + b'","recorded_at":"2026-01-01T00:00:00.000000Z",'
        b'"stream":"randomness-m1","version":3},"kind":"commitment","last_round":77,'
        b'"match":"m1","seats":[{"player":"ana","seat":0},{"player":null,"seat":1}],'
        b'"v":1,"window_closes_at_ms":1000}'
    )
    assert le.parse_entry(data) == entry


def test_every_kind_round_trips() -> None:
    entries = [
        _entry("randomness-m1", "ServerSeedCommitted", to_payload(COMMITTED)),
        _entry(
            "randomness-m1", "DrandRoundNamed", to_payload(DrandRoundNamed("quicknet", 9, 30, 1))
        ),
        _entry("randomness-m1", "DrandFallback", to_payload(DrandFallback(9, "missed", 2))),
        _entry(
            "drand-quicknet-9",
            "DrandRoundMissed",
            to_payload(DrandRoundMissed("quicknet", 9, 30, "timeout", 4)),
        ),
        _entry("randomness-m1", "ServerSeedRevealed", to_payload(ServerSeedRevealed(H2, 9))),
        _entry("match-m1", "MatchAborted", {"reason": "x"}, {"randomness-m1": (5, H2)}),
    ]
    assert [type(e) for e in entries] == [
        le.Commitment,
        le.RoundNamed,
        le.Fallback,
        le.RoundMissed,
        le.Reveal,
        le.Ending,
    ]
    for entry in entries:
        assert le.parse_entry(le.to_bytes(entry)) == entry
    ending = entries[-1]
    assert isinstance(ending, le.Ending)
    assert ending.heads == (
        le.StreamHead("match-m1", 3, H1),
        le.StreamHead("randomness-m1", 5, H2),
    )
    assert le.entry_match(entries[3]) is None
    assert {le.entry_match(e) for e in entries if not isinstance(e, le.RoundMissed)} == {"m1"}


def test_an_ending_before_any_fair_deal_event_records_the_empty_stream() -> None:
    ending = _entry("match-m1", "MatchEnded", {})
    assert isinstance(ending, le.Ending)
    assert ending.heads[1] == le.StreamHead("randomness-m1", 0, bytes(32))


@pytest.mark.parametrize(
    ("stream", "type_", "payload"),
    [
        ("randomness-m1", "ServerSeedCommitted", {"match_id": "m1"}),
        ("randomness-m2", "ServerSeedCommitted", to_payload(COMMITTED)),
        ("randomness-m1", "DrandRoundNamed", "not an object"),
        (
            "drand-quicknet-8",
            "DrandRoundMissed",
            to_payload(DrandRoundMissed("quicknet", 9, 3, "", 4)),
        ),
        ("match-m 1", "MatchEnded", {}),
    ],
    ids=["payload", "other match", "not an object", "other round", "bad match id"],
)
def test_an_event_that_cannot_be_logged_is_refused(
    stream: str, type_: str, payload: object
) -> None:
    with pytest.raises(le.LogEntryError):
        le.prepare(stream, type_, payload)


def test_only_canonical_bytes_parse() -> None:
    entry = _entry("randomness-m1", "ServerSeedRevealed", to_payload(ServerSeedRevealed(H2, 9)))
    data = le.to_bytes(entry)
    spaced = json.dumps(json.loads(data)).encode()
    for bad in (
        spaced,
        data.replace(b'"v":1', b'"v":2'),
        data.replace(b'"kind":"reveal"', b'"kind":"other"'),
        data[:-1] + b',"extra":1}',
        data.replace(H1.hex().encode(), H1.hex().upper().encode()),
        b"[]",
        b"\xff",
    ):
        with pytest.raises(le.LogEntryError):
            le.parse_entry(bad)
