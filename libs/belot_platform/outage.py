"""A dependency that does not answer (PostgreSQL, NATS, another service) is an outage,
not a bug: the request may well succeed in a moment. Every service answers it alike,
HTTP 503 ``{"error": "unavailable", "message": ...}`` with ``Retry-After``
(:func:`belot_platform.app.outage_response`), and a NATS handler with the code
``unavailable`` (which the gateway turns into that 503), never 500 ``internal``.

:func:`is_outage` is the one place that says which exceptions are outages; each
service's error mapping (its HTTP middleware, :func:`belot_platform.messaging.serve`,
the table's command callback) asks it.
"""

from __future__ import annotations

from typing import Final

import asyncpg
import nats.errors
import nats.js.errors

from belot_platform.errors import ServiceError

UNAVAILABLE: Final = "unavailable"
#: The codes a NATS reply (``messaging.request``) gives an outage: nobody listens, or
#: no reply came in time.
OUTAGE_CODES: Final = frozenset({UNAVAILABLE, "timeout"})
#: Seconds a client is told to wait: a reconnect or a table's failover takes a few.
RETRY_AFTER_S: Final = 5

_POSTGRES: Final = (
    asyncpg.PostgresConnectionError,  # SQLSTATE class 08: the connection failed or went
    asyncpg.CannotConnectNowError,  # the server is starting or shutting down
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
)
_NATS: Final = (
    nats.errors.NoRespondersError,
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.ConnectionDrainingError,
    nats.errors.NoServersError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.StaleConnectionError,
    nats.js.errors.ServiceUnavailableError,
    nats.js.errors.NoStreamResponseError,
)
#: Socket errors (a refused or reset connection, asyncpg's "connect call failed") and
#: timeouts (nats' own TimeoutError is one, a pool's acquire too).
_OS: Final = (ConnectionError, TimeoutError)


def is_outage(exc: BaseException) -> bool:
    """Is ``exc`` (or what it was raised from) a dependency that does not answer?"""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ServiceError):
            return current.code in OUTAGE_CODES
        if isinstance(current, _POSTGRES + _NATS + _OS):
            return True
        current = current.__cause__ or current.__context__
    return False


def what_failed(exc: BaseException) -> str:
    """Which dependency, in words, for the message (never the exception's own text:
    it may hold a server's address)."""
    module = type(exc).__module__
    if module.startswith("asyncpg"):
        return "the database does not answer"
    if module.startswith("nats"):
        return "the message bus does not answer"
    return "a service this one needs does not answer"


def headers() -> dict[str, str]:
    return {"Retry-After": str(RETRY_AFTER_S)}


def client_code(code: str) -> str:
    """The code a client is answered with for a NATS reply's ``code``: ``unavailable``
    for either outage code (to a client, "nobody answers" and "no reply in time" are
    both "not now"), else the code itself."""
    return UNAVAILABLE if code in OUTAGE_CODES else code
