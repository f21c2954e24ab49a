"""A refusal, the one shape every service answers one in: a stable snake_case ``code``
and a message in plain words, ``{"error": code, "message": text}``; and the one table of
the HTTP status each code is answered with.

Why one type. A refusal crosses several edges on its way to a client: the game core
refuses a move, the table service answers the NATS request with it, the gateway raises it
back (:func:`belot_platform.messaging.request`) and answers the HTTP request with it.
A type of its own at each edge is a rewrapping at each edge, each one a chance to drop
the code or the headers, and shapes that drift apart (their arguments in different
orders). So the code and the message are read once, where a core error leaves the core
(:meth:`ServiceError.of`), and the same object travels on: every service raises
:class:`ServiceError` (or a thin subclass named for its ``except`` clauses, with no field
of its own: the table's ``TableError``, the tournament's ``Refused``), and every edge
answers it as it is.

Why one status table. The status is a fact about a code, not about who raises it: a
seat that does not exist is the client's bad input wherever it is refused.
:data:`STATUS` names the codes whose status is not their family's, :func:`status_of`
gives any code's. A raise gives a status of its own only where one route answers a
code unlike the rest, and says why there: a name in a path that names nothing is 404,
the same name in a query string bad input (the gateway's leaderboard path answers
``bad_ruleset`` 404, the verify API's ``?ruleset=`` the table's 400; the rating API's
``?pool=`` answers ``unknown_pool`` 400, its paths the table's 404). An answer to
aiohttp's own HTTP errors (404, 405, 413) keeps the status aiohttp chose.

The NATS side carries no status: the caller (the gateway) reads it from this table for
the code it receives. An HTTP answer is built by :func:`belot_platform.app.error_response`.

Pure (no aiohttp, no NATS): the command-line tools use :class:`UsageError`, and
:mod:`belot_platform.outage` and :mod:`belot_platform.messaging` read these types.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Protocol

#: The status of a code not in :data:`STATUS` whose name starts with ``bad_``: the
#: bad-input family (``bad_request``, ``bad_<field>``: a field the client got wrong).
BAD_INPUT_STATUS: Final = 400
BAD_INPUT_PREFIX: Final = "bad_"
#: The status of any other code not in :data:`STATUS`: a refusal, the request was
#: understood and the state refuses it now (not your turn, registration closed, ...).
REFUSAL_STATUS: Final = 409

#: The code of a :class:`UsageError` (never sent: a command line prints the message).
USAGE: Final = "usage"
#: The exit status of a command given bad input (its message is one line on stderr).
EXIT_USAGE: Final = 2

#: The HTTP status of each code whose status is not its family's (:func:`status_of`).
#: The gateway's and the verify API's codes, merged: where both answer a code, they
#: answer it alike (tests/unit/test_refusals.py).
STATUS: Final[Mapping[str, int]] = MappingProxyType(
    {
        # 400: the client's input, outside the bad_ family.
        "seed_wrong_length": 400,  # the fair deal's check of a seat's seed
        "seed_not_hex": 400,  # the randomness service's
        "unknown_seat": 400,  # the game's: a seat number no table has
        "card_not_in_hand": 400,  # the game's: a card the client made up
        "empty_body": 400,  # the verify API's upload
        "not_a_record": 400,
        "witness_key_type": 400,  # the transparency log's witness registration
        # The transparency log's refusals (translog.errors), each the client's input.
        "hash_malformed": 400,
        "out_of_range": 400,
        "proof_invalid": 400,
        "note_malformed": 400,
        "key_malformed": 400,
        "key_ambiguous": 400,
        "note_unknown_key": 400,
        "note_bad_signature": 400,
        "checkpoint_malformed": 400,
        "checkpoint_wrong_origin": 400,
        "checkpoint_quorum": 400,
        "tile_malformed": 400,
        # 401: who asks is not known.
        "unauthorized": 401,
        "bad_credentials": 401,
        # 403: known, and not allowed.
        "not_your_seat": 403,
        "forbidden": 403,
        "wrong_password": 403,
        "witness_unknown": 403,
        # 404: no such thing.
        "not_found": 404,
        "unknown_table": 404,
        "unknown_tournament": 404,
        "unknown_match": 404,
        "unknown_pool": 404,
        "no_checkpoint": 404,
        "checkpoint_unknown": 404,
        "no_tile": 404,
        "method_not_allowed": 405,
        # 409 though named bad_: the game's BadEvent, a log the rules cannot follow.
        "bad_event": 409,
        "table_closed": 410,
        "too_large": 413,
        "request_entity_too_large": 413,
        "unsupported_media_type": 415,
        "rate_limited": 429,
        "internal": 500,
        # 503: not now; what the request needs does not answer (Retry-After).
        "unavailable": 503,
        "timeout": 503,
        "table_unavailable": 503,
        "starting": 503,
    }
)


def status_of(code: str) -> int:
    """The HTTP status ``code`` is answered with: :data:`STATUS`'s, else 400 for the
    bad-input family (``bad_*``), else 409 (a refusal)."""
    status = STATUS.get(code)
    if status is not None:
        return status
    return BAD_INPUT_STATUS if code.startswith(BAD_INPUT_PREFIX) else REFUSAL_STATUS


class Coded(Protocol):
    """What a core refuses with: ``belot.errors.RulesError``, ``tournament``'s,
    ``translog``'s and ``fairdeal``'s errors, :class:`belot_platform.fields.FieldError`
    (a class-level or an instance ``code``, and a ``message``)."""

    @property
    def code(self) -> str: ...

    @property
    def message(self) -> str: ...


class ServiceError(Exception):
    """A refusal: a stable ``code``, a ``message`` (English, for API users), the facts a
    client says in its player's language (``details``: the rules' illegal card, its rule,
    the suit led and the cards allowed), and the HTTP ``headers`` its answer carries
    (``Retry-After``). ``status`` is :func:`status_of` the code unless the raiser gives
    one (see the module's docstring for when). Sent as :meth:`to_json`."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        details: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status_of(code) if status is None else status
        self.headers: Mapping[str, str] = dict(headers or {})
        self.details: Mapping[str, object] | None = dict(details) if details else None

    @classmethod
    def of(cls, error: Coded) -> ServiceError:
        """The refusal a core's error stands for: its code, message and details, nothing
        added. The one conversion, where the error leaves the core."""
        return cls(error.code, error.message, details=getattr(error, "details", None))

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"error": self.code, "message": self.message}
        if self.details:
            out["details"] = dict(self.details)
        return out


class UsageError(ServiceError):
    """Bad input on a command line: its message is printed on one line (``str()`` is the
    bare message) and the command exits with :data:`EXIT_USAGE`."""

    def __init__(self, message: str) -> None:
        super().__init__(USAGE, message)

    def __str__(self) -> str:
        return self.message
