"""NATS credentials in BELOT_NATS_URL: which user and password the services send."""

from __future__ import annotations

import pytest

from belot_platform.messaging import credentials


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("nats://127.0.0.1:4222", None),
        ("nats://gateway:pw1@nats1:4222", ("gateway", "pw1")),
        # one set for the whole cluster: the first server that names one
        ("nats://nats1:4222,nats://table:pw2@nats2:4222", ("table", "pw2")),
        ("nats://table:pw2@nats1:4222, nats://table:pw2@nats2:4222", ("table", "pw2")),
        # percent-encoded: a password may hold any character
        ("nats://rating:p%40ss%3Aw%2Frd@nats1:4222", ("rating", "p@ss:w/rd")),
        # a bare user name is a token, which this platform does not use
        ("nats://sometoken@nats1:4222", None),
    ],
)
def test_credentials_come_from_the_url(url: str, expected: tuple[str, str] | None) -> None:
    assert credentials(url) == expected


@pytest.mark.parametrize("user", ["a.b", "a%20b", "a*", "a>"])
def test_a_user_that_cannot_name_an_inbox_is_refused(user: str) -> None:
    with pytest.raises(ValueError, match="NATS user"):
        credentials(f"nats://{user}:pw@nats1:4222")
