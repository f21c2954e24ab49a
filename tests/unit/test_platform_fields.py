"""The boundary checks every service uses (belot_platform.fields) and the one place that
says what an outage is (belot_platform.outage)."""

from __future__ import annotations

import asyncpg
import nats.errors
import orjson
import pytest

from belot_platform import fields, outage
from belot_platform.app import outage_response
from belot_platform.fields import FieldError
from belot_platform.messaging import ServiceError

NUL = "a\x00b"
SURROGATE = "a\ud800b"


@pytest.mark.parametrize(
    ("raw", "field", "problem"),
    [
        (b'{"name": "a\\u0000"}', "name", "NUL"),
        (b'{"name": "a\\ud800"}', "name", "lone surrogate"),
        (b'{"seats": ["human", {"player": "\\udfff"}]}', "seats[1].player", "lone surrogate"),
        (b'{"pairs": [["a", "b"], ["c", "\\u0000"]]}', "pairs[1][1]", "NUL"),
        (b'{"points": {"w\\u0000in": 3}}', "a key of points", "NUL"),
        (b'"\\u0000"', "the body", "NUL"),
    ],
)
def test_decode_names_the_field_that_holds_what_postgresql_refuses(
    raw: bytes, field: str, problem: str
) -> None:
    with pytest.raises(FieldError) as refused:
        fields.decode(raw)
    assert refused.value.field == field, refused.value.message
    assert refused.value.message.startswith(field) and problem in refused.value.message
    assert refused.value.code == "bad_request"
    orjson.dumps(refused.value.message)  # the answer itself can be sent


@pytest.mark.parametrize("raw", [b"{not json", b'{"a": NaN}', b'{"a": "\\ud800', b"\xff"])
def test_decode_refuses_what_is_not_json(raw: bytes) -> None:
    with pytest.raises(FieldError, match=r"^the request is not valid JSON$"):
        fields.decode(raw, "the request")


def test_decode_keeps_everything_else() -> None:
    raw = '{"name": "Zoë 🂡", "pair": "\\ud83c\\udca1", "n": [1, null, true]}'.encode()
    assert fields.decode(raw) == {"name": "Zoë 🂡", "pair": "🂡", "n": [1, None, True]}


def test_decode_survives_a_deep_body() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(FieldError, match="not valid JSON"):
        fields.decode(deep)  # orjson refuses the depth; the standard library too


def test_text_checks_type_characters_and_length() -> None:
    assert fields.text("name", "ann", 3) == "ann"
    for value, words in [
        (None, "must be a string of 1 to 3 characters"),
        (5, "must be a string of 1 to 3 characters"),
        ("", "must be a string of 1 to 3 characters"),
        ("anne", "is 4 characters long: at most 3"),
        (NUL, "holds a NUL character"),
        (SURROGATE, "holds a lone surrogate"),
    ]:
        with pytest.raises(FieldError) as refused:
            fields.text("name", value, 3)
        assert refused.value.message.startswith("name ") and words in refused.value.message
    assert fields.text("seed", "", 3, min_len=0) == ""
    assert fields.optional_text("creator", None, 3) is None
    with pytest.raises(FieldError, match=r"^seed must be 32 hex digits$"):
        fields.text("seed", 5, 64, what="32 hex digits")


def test_ids_and_command_ids_have_their_bounds() -> None:
    assert fields.identifier("player", "p" * fields.MAX_ID)
    with pytest.raises(FieldError, match="player is 201 characters long"):
        fields.identifier("player", "p" * (fields.MAX_ID + 1))
    assert fields.command_id(None) is None
    assert fields.command_id("c" * fields.MAX_COMMAND_ID)
    with pytest.raises(FieldError, match="command_id is 101 characters long"):
        fields.command_id("c" * (fields.MAX_COMMAND_ID + 1))


def test_a_quoted_value_is_cut_short_and_escaped() -> None:
    quoted = fields.quote("x" * 10_000 + "\x00")
    assert len(quoted) <= fields.QUOTE and "\x00" not in quoted
    assert fields.quote(SURROGATE) == repr(SURROGATE)
    orjson.dumps(fields.quote(SURROGATE))


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionRefusedError(111, "Connect call failed"),
        TimeoutError(),
        asyncpg.ConnectionDoesNotExistError("connection was closed"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("too many"),
        nats.errors.TimeoutError(),
        nats.errors.NoRespondersError(),
        nats.errors.ConnectionClosedError(),
        ServiceError("unavailable", "nobody answers"),
        ServiceError("timeout", "no reply"),
    ],
    ids=lambda e: type(e).__name__ + (f":{e.code}" if isinstance(e, ServiceError) else ""),
)
def test_outages_are_recognised(exc: Exception) -> None:
    assert outage.is_outage(exc)
    try:
        raise RuntimeError("wrapped") from exc
    except RuntimeError as wrapper:
        assert outage.is_outage(wrapper)  # what it was raised from counts


@pytest.mark.parametrize(
    "exc",
    [
        RuntimeError("a bug"),
        KeyError("x"),
        asyncpg.UniqueViolationError("duplicate"),
        asyncpg.UndefinedTableError("no table"),
        ServiceError("bad_request", "no"),
        FileNotFoundError("x"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_bugs_and_refusals_are_not_outages(exc: Exception) -> None:
    assert not outage.is_outage(exc)


def test_the_outage_answer_is_a_503_with_retry_after() -> None:
    response = outage_response("the database does not answer")
    assert response.status == 503
    assert response.headers["Retry-After"] == str(outage.RETRY_AFTER_S)
    assert response.content_type == "application/json"
    assert response.text is not None
    body = orjson.loads(response.text)
    assert body["error"] == "unavailable" and body["message"].startswith("the database")
