"""The hash chain's canonical bytes are reproducible with any JSON library."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventlog.envelope import (
    EVENT_TYPE_RE,
    GENESIS_HASH,
    STREAM_ID_RE,
    VISIBILITY_RE,
    WITHHELD,
    RecordedEvent,
    canonical_bytes,
    canonical_bytes_encoded,
    chain_hash,
    encode_json,
    format_time,
    parse_time,
)
from eventlog.errors import InvalidEvent

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
WHEN = datetime(2026, 1, 2, 3, 4, 5, 60, tzinfo=UTC)


@given(JSON, st.dictionaries(st.text(), JSON, max_size=3))
def test_canonical_bytes_equal_another_json_librarys(payload: object, meta: dict) -> None:
    # The rule is the JSON text with sorted keys and no whitespace: the standard json
    # module (eventkit.envelope's) and orjson agree on it, so a verifier in any language
    # with a JSON library reproduces the bytes.
    doc = {
        "metadata": meta,
        "payload": payload,
        "recorded_at": "2026-01-02T03:04:05.000060Z",
        "stream": "match-1",
        "type": "Bid",
        "version": 7,
        "visibility": "seat:2",
    }
    plain = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_bytes("match-1", 7, "Bid", payload, meta, "seat:2", WHEN) == plain.encode()
    try:
        other = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # a lone surrogate: orjson refuses it, and so does the log
        with pytest.raises(ValueError):
            canonical_bytes("match-1", 7, "Bid", payload, meta, "seat:2", WHEN)
        return
    assert canonical_bytes("match-1", 7, "Bid", payload, meta, "seat:2", WHEN) == other


@given(JSON, st.dictionaries(st.text(), JSON, max_size=3), st.booleans())
def test_an_event_comes_back_from_its_json(payload: object, meta: dict, withheld: bool) -> None:
    event = RecordedEvent(
        position=12, stream_id="match-1", version=3, type="CardPlayed", payload=payload,
        metadata=meta, visibility="seat:1", recorded_at=WHEN,
        hash=WITHHELD if withheld else hashlib.sha256(b"x").digest(),
    )  # fmt: skip
    assert RecordedEvent.from_json_dict(event.to_json_dict()) == event
    assert RecordedEvent.from_json_dict(orjson.loads(orjson.dumps(event.to_json_dict()))) == event


@given(
    JSON,
    st.dictionaries(st.text(), st.text(), max_size=3),
    st.from_regex(STREAM_ID_RE, fullmatch=True),
    st.from_regex(EVENT_TYPE_RE, fullmatch=True),
    st.from_regex(VISIBILITY_RE, fullmatch=True),
    st.integers(1, 2**62),
    st.datetimes(timezones=st.just(UTC)),
)
def test_canonical_bytes_from_encoded_parts_are_the_same_bytes(
    payload: object,
    meta: dict[str, str],
    stream: str,
    type_: str,
    visibility: str,
    version: int,
    when: datetime,
) -> None:
    # The store's writer hashes the payload and metadata it already encoded, and writes
    # the rest out itself: every valid stream id, type and visibility, byte for byte.
    try:
        p = encode_json(payload, type_, "payload").decode()
        m = encode_json(meta, type_, "metadata").decode()
    except InvalidEvent:
        return  # a NUL character: never stored, so never hashed
    expected = canonical_bytes(stream, version, type_, payload, meta, visibility, when)
    got = canonical_bytes_encoded(stream, version, type_, p, m, visibility, format_time(when))
    assert got == expected


def test_a_flat_object_is_encoded_and_one_with_a_float_refused() -> None:
    flat = {"seat": 1, "card": "TS", "belote": True, "x": None}
    assert (
        encode_json(flat, "Bid", "payload")
        == json.dumps(flat, sort_keys=True, separators=(",", ":")).encode()
    )
    with pytest.raises(InvalidEvent, match="float"):
        encode_json({"seat": 1, "points": 2.0}, "Bid", "payload")


def test_chain_starts_from_32_zero_bytes() -> None:
    canon = canonical_bytes("match-1", 1, "Bid", {}, {}, "public", WHEN)
    assert bytes(32) == GENESIS_HASH
    assert chain_hash(GENESIS_HASH, canon) == hashlib.sha256(bytes(32) + canon).digest()


def test_recorded_time_has_six_fractional_digits_in_utc() -> None:
    assert format_time(WHEN) == "2026-01-02T03:04:05.000060Z"
    assert parse_time(format_time(WHEN)) == WHEN
    with pytest.raises(ValueError):
        format_time(datetime(2026, 1, 1))


@pytest.mark.parametrize("bad", [1.0, {"a": [1, 2.5]}, {1: "x"}, "nul\x00", 2**64])
def test_values_that_cannot_be_stored_reproducibly_are_refused(bad: object) -> None:
    with pytest.raises(InvalidEvent):
        encode_json(bad, "Bid", "payload")


def test_a_time_formats_the_same_whatever_was_formatted_before() -> None:
    """format_time remembers its last answer (the events of an append share their time):
    an equal instant in another zone gets the same text, a different one its own."""
    from datetime import timedelta, timezone

    t = datetime(2026, 12, 7, 17, 44, 43, 168039, tzinfo=UTC)
    east = t.astimezone(timezone(timedelta(hours=3)))
    later = t + timedelta(microseconds=1)
    texts = [format_time(x) for x in (t, east, later, t, later, east)]
    assert texts == [
        "2026-12-07T17:44:43.168039Z",
        "2026-12-07T17:44:43.168039Z",
        "2026-12-07T17:44:43.168040Z",
        "2026-12-07T17:44:43.168039Z",
        "2026-12-07T17:44:43.168040Z",
        "2026-12-07T17:44:43.168039Z",
    ]
    with pytest.raises(ValueError, match="timezone-aware"):
        format_time(t.replace(tzinfo=None))
