"""The table service's NATS request/reply: parse a player's request into a core command
and answer errors as ``{"error": code, "message": text}``.

``belot.table.create`` (queue group ``table``) is :meth:`TableWorker.create`; a table's
own subjects ``belot.table.<id>.<verb>`` are answered by its owner through
:func:`command_callback`: ``join``, ``leave``, ``seed``, ``view``, ``abort``,
``resume`` (a seat taken back from autoplay), ``presence`` (a gateway's live players:
:mod:`services.table.presence`) and the moves
``bid``, ``play``, ``announce``, ``swap``, ``redeal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, Protocol

import orjson
from nats.aio.msg import Msg

from belot import Bid, Command, DeclareMelds, DemandRedeal, PlayCard, Strain, SwapTrumpSeven
from belot.cards import Card, parse_card
from belot_platform import fields, outage
from belot_platform.messaging import BAD_REQUEST, ServiceError
from services.table.domain import TableError
from services.table.store import LostTable

log = logging.getLogger(__name__)


def _strain(value: Any) -> Strain | None:
    if value is None:
        return None
    if not isinstance(value, str) or value.upper() not in Strain.__members__:
        names = ", ".join(s.name.lower() for s in Strain if s is not Strain.MISERE)
        raise TableError(BAD_REQUEST, f"strain must be null (pass) or one of {names}")
    return Strain[value.upper()]


def _card(value: Any, field: str = "card") -> Card:
    if not isinstance(value, str):
        raise TableError(BAD_REQUEST, f"{field} must be a code such as 'TS' or 'AH'")
    try:
        return parse_card(value)
    except ValueError:
        raise TableError(
            BAD_REQUEST, f"{field} {fields.quote(value)} is not a card (rank 7-A then suit C D H S)"
        ) from None


def parse_move(verb: str, body: dict[str, Any]) -> Callable[[int], Command]:
    """The core command a player's request asks for, given the seat it is for; raises
    :class:`TableError` for a malformed request. Called before the table's state is
    looked at: a request is refused for its fields whatever the table's state."""
    if verb == "bid":
        if "strain" not in body:
            raise TableError(BAD_REQUEST, "a bid names a strain, or null to pass")
        strain = _strain(body["strain"])
        return lambda seat: Bid(seat, strain)
    if verb == "play":
        belote = body.get("belote", False)
        if not isinstance(belote, bool):
            raise TableError(BAD_REQUEST, "belote must be true or false")
        card = _card(body.get("card"))
        return lambda seat: PlayCard(seat, card, belote)
    if verb == "announce":
        melds = body.get("melds")
        if melds is True:
            return DeclareMelds
        if "belote" in body:
            announced = _card(body["belote"], "belote")
            return lambda seat: PlayCard(seat, announced, True)
        raise TableError(BAD_REQUEST, "announce {melds: true} or {belote: card}")
    if verb == "swap":
        return SwapTrumpSeven
    if verb == "redeal":
        return DemandRedeal
    raise TableError(BAD_REQUEST, f"unknown move {verb!r}")


def create_subject(prefix: str) -> str:
    """Where tables are made (queue group ``table``): :meth:`TableWorker.create`."""
    return f"{prefix}.table.create"


def table_subject(prefix: str, table_id: str) -> str:
    """A table's own requests, ``<this>.<verb>``: answered by its owner
    (:func:`command_callback`)."""
    return f"{prefix}.table.{table_id}"


def released_subject(prefix: str) -> str:
    """Where a stopping worker says which tables it gave up, for the others to claim."""
    return f"{prefix}.table.released"


MOVES: Final = ("bid", "play", "announce", "swap", "redeal")
#: A table's own requests besides the moves, each answered by the Table method of its name.
REQUESTS: Final = ("join", "leave", "seed", "view", "abort", "resume", "presence")


class Requests(Protocol):
    """What a table's subscription answers through: its id, its in-flight requests, a
    method per move and per request of :data:`REQUESTS`. The worker's ``Table`` is one;
    naming only this keeps the handlers below the worker (the worker imports them)."""

    id: str
    inflight: set[asyncio.Task[None]]

    async def move(self, verb: str, body: dict[str, Any]) -> dict[str, Any]: ...


def command_callback(
    table: Requests, moved: Callable[[], None]
) -> Callable[[Msg], Awaitable[None]]:
    """The callback of ``table``'s subscription; ``moved`` is called (soon, not inside
    the handler) when an append found the table owned by another worker."""
    handlers: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
        verb: getattr(table, verb) for verb in REQUESTS
    }

    async def handle(msg: Msg) -> None:
        verb = msg.subject.rsplit(".", 1)[-1]
        try:
            # Looked up at call time (fields.decode), so that a test may record reads.
            body = fields.decode(msg.data, f"the request on {msg.subject}") if msg.data else {}
            if not isinstance(body, dict):
                raise TableError(BAD_REQUEST, "the request must be a JSON object")
            if verb in MOVES:
                reply: dict[str, Any] = await table.move(verb, body)
            elif verb in handlers:
                reply = await handlers[verb](body)
            else:
                raise TableError(BAD_REQUEST, f"unknown request {verb!r}")
        except ServiceError as exc:  # the table's refusals, the randomness service's
            reply = exc.to_json()
        except fields.FieldError as exc:
            reply = ServiceError.of(exc).to_json()
        except LostTable:
            reply = ServiceError("table_moved", "the table changed owner: retry").to_json()
            asyncio.get_running_loop().call_soon(moved)
        except Exception as exc:
            if outage.is_outage(exc):
                # The database or the bus does not answer: not a bug, and the command
                # may be retried with its command id.
                log.warning("table command: %s (%s)", outage.what_failed(exc), exc)
                reply = ServiceError(outage.UNAVAILABLE, outage.what_failed(exc)).to_json()
            else:
                log.exception("table command failed", extra={"table_id": table.id})
                reply = ServiceError("internal", type(exc).__name__).to_json()
        if msg.reply:
            with contextlib.suppress(Exception):
                await msg.respond(orjson.dumps(reply))

    async def on_msg(msg: Msg) -> None:
        task = asyncio.create_task(handle(msg))
        table.inflight.add(task)
        task.add_done_callback(table.inflight.discard)

    return on_msg
