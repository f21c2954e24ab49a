"""The small pure parts of witness lookups and registrations: a ``?witness=`` value, the
client address a registration counts against, and when ``belot witness run`` renews."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from aiohttp.test_utils import make_mocked_request

from belot_platform.errors import ServiceError
from commands.witness_cmd import RENEW_AT_LEAST_S, RENEW_AT_MOST_S, renew_in
from services.verify.translog import client_address, parse_witness_param


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("witness.example/w1+276eac93", ("witness.example/w1", 0x276EAC93)),
        ("witness.example/w1 276eac93", ("witness.example/w1", 0x276EAC93)),  # '+' as space
        ("w+276EAC93", ("w", 0x276EAC93)),
    ],
)
def test_a_witness_parameter_is_a_name_and_a_key_id(text: str, expected: tuple[str, int]) -> None:
    assert parse_witness_param(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "w", "w+", "+276eac93", "w+276eac9", "w+276eac933", "a+b+276eac93", "a\x01+276eac93",
     "a\ud800+276eac93", "w+27 6eac9", "x" * 257 + "+276eac93"],
)  # fmt: skip
def test_anything_else_is_bad_witness(text: str) -> None:
    with pytest.raises(ServiceError) as info:
        parse_witness_param(text)
    assert info.value.code == "bad_witness" and info.value.status == 400


class _Transport:
    def __init__(self, peer: str) -> None:
        self.peer = peer

    def get_extra_info(self, name: str, default: object = None) -> object:
        return (self.peer, 4242) if name == "peername" else default


@pytest.mark.parametrize(
    ("peer", "counted_as"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),  # the same host's block
        ("::ffff:203.0.113.9", "203.0.113.9"),
    ],
)
def test_a_registration_counts_against_the_address_or_its_64(peer: str, counted_as: str) -> None:
    request = make_mocked_request("POST", "/v1/log/witnesses", transport=_Transport(peer))
    assert client_address(request) == counted_as


def test_the_witness_renews_after_a_quarter_of_its_term_within_bounds() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    assert renew_in("2026-01-01T00:10:00Z", now) == 150.0  # 10 min left
    assert renew_in("2026-01-02T00:00:00Z", now) == RENEW_AT_MOST_S  # a day left
    assert renew_in("2026-01-01T00:00:01Z", now) == RENEW_AT_LEAST_S
    assert renew_in("2025-12-31T00:00:00Z", now) == RENEW_AT_LEAST_S  # lapsed: at once
    assert renew_in(None, now) == RENEW_AT_MOST_S  # configured: nothing to renew
    assert renew_in("not a time", now) == RENEW_AT_MOST_S
