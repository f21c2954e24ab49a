"""Play now (docs/table.md#play-now): seat a player at a table of their ruleset that
waits for humans, or open one with bots in the other seats, open to humans for a while.

``<prefix>.table.create`` with ``"play_now": true`` comes here (any worker of the queue
group answers it): ``{"ruleset", "player", "bots_open_ms", "key"?, "command_id"?}`` ->
``{"table_id", "match_id", "seat", "opened"}``.

Why a lock. Two players asking at once must never open two tables when one waits, nor
share a seat. The seat is safe by itself (the table decides seats under its own lock:
``join`` with ``any``); the opening is not: two workers could each find no waiting table
and each open one. So the whole look-then-open runs under one lock per ruleset, a key of
the leases bucket made with KV *create* (only one holder; its entries expire with the
leases' TTL, so a worker that died holding it blocks nobody for longer than that). The
lobby's lines in ``<prefix>_tables`` are what is looked at: a table's line is written
before its creation or a join answers, so the next holder sees what the last one did.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from typing import Any, Final

import orjson
from nats.aio.client import Client
from nats.js.errors import KeyWrongLastSequenceError
from nats.js.kv import KeyValue

from belot import RULESETS
from belot_platform import fields, messaging
from belot_platform.messaging import BAD_REQUEST, ServiceError
from services.table import domain
from services.table.handlers import table_subject
from table.events import BOT, HUMAN

#: The lock's key in the leases bucket, by ruleset (never a table id: those are hex).
LOCK_PREFIX: Final = "play-now."
#: How often a request waiting for the lock looks again (seconds, spread).
LOCK_POLL_S: Final = 0.02
#: The bots' level at a play-now table.
BOT_LEVEL: Final = "medium"
#: Refusals of a join that say the table no longer waits: look at the next one.
STALE: Final = frozenset(
    {"table_started", "seat_taken", "bot_seat", "table_closed", "unknown_table", "unavailable",
     "timeout", "table_moved"}
)  # fmt: skip

#: The statuses of a table whose match has not ended.
LIVE: Final = frozenset({"open", "dealing", "playing"})

Create = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def waiting_tables(lines: dict[str, bytes], ruleset: str, now_ms: int) -> list[dict[str, Any]]:
    """The play-now tables of ``ruleset`` still waiting for humans, oldest first: open,
    with a free human seat or a bot's seat whose time is not up."""
    out = []
    for raw in lines.values():
        line = orjson.loads(raw)
        until = line.get("open_until_ms")
        if line.get("ruleset") != ruleset or until is None or line.get("status") != "open":
            continue
        free = any(s["kind"] == HUMAN and not s.get("player") and not s.get("reserved")
                   for s in line["seats"])  # fmt: skip
        if free or (now_ms < until and any(s["kind"] == BOT for s in line["seats"])):
            out.append(line)
    out.sort(key=lambda line: line.get("opened_at_ms", 0))
    return out


def seated_at(lines: dict[str, bytes], ruleset: str, player: str) -> dict[str, Any] | None:
    """The answer for a player who already sits at a table of ``ruleset`` whose match
    has not ended: that table and seat."""
    for raw in lines.values():
        line = orjson.loads(raw)
        if line.get("ruleset") != ruleset or line.get("status") not in LIVE:
            continue
        for s in line["seats"]:
            if s.get("player") == player:
                return {"table_id": line["table_id"], "match_id": line["match_id"],
                        "seat": s["seat"], "opened": False}  # fmt: skip
    return None


async def play_now(
    nc: Client,
    prefix: str,
    leases: KeyValue,
    registry: KeyValue,
    create: Create,
    body: dict[str, Any],
    *,
    lock_wait_s: float,
    timeout: float,
    now_ms: Callable[[], int],
) -> dict[str, Any]:
    """Seat ``body["player"]``; raises :class:`ServiceError` (bad_request, busy: the
    lock was not free within ``lock_wait_s``)."""
    player = fields.identifier("player", body.get("player"))
    name = body.get("ruleset")
    if not isinstance(name, str) or name not in RULESETS:
        raise ServiceError(BAD_REQUEST, f"ruleset must be one of {', '.join(sorted(RULESETS))}")
    wait = body.get("bots_open_ms")
    if type(wait) is not int or not 0 <= wait <= domain.MAX_BOTS_OPEN_MS:
        raise ServiceError(
            BAD_REQUEST, f"bots_open_ms: a whole number, 0 to {domain.MAX_BOTS_OPEN_MS}"
        )
    command_id = fields.command_id(body.get("command_id"))
    # Its shape checked now, not only by the join or the creation that uses it: a player
    # already seated is answered without either.
    seat_key = domain.seat_key(body.get("key")) or None
    named = {"name": n} if (n := domain.seat_name(body.get("name"))) else {}
    lock = LOCK_PREFIX + name
    revision = await _acquire(leases, lock, player, lock_wait_s)
    try:
        lines = await messaging.kv_values(registry, "lobby")
        seated = seated_at(lines, name, player)
        if seated is not None:  # asked again (a second click): the seat it has
            return seated
        for line in waiting_tables(lines, name, now_ms()):
            table_id = line["table_id"]
            join = {"player": player, "any": True, "command_id": command_id, **named,
                    **({"key": seat_key} if seat_key is not None else {})}  # fmt: skip
            try:
                reply = await messaging.request(
                    nc, f"{table_subject(prefix, table_id)}.join", join, timeout=timeout
                )
            except ServiceError as exc:
                if exc.code == "already_seated" and exc.details and "seat" in exc.details:
                    reply = {"seat": exc.details["seat"]}
                elif exc.code in STALE:
                    continue
                else:
                    raise
            return {"table_id": table_id, "match_id": line["match_id"], "seat": reply["seat"],
                    "opened": False}  # fmt: skip
        ruleset = RULESETS[name]
        created = await create(
            {
                "ruleset": name,
                "seats": [HUMAN] + [f"{BOT}:{BOT_LEVEL}"] * (ruleset.players - 1),
                "creator": player,
                "sit": 0,
                "bots_open_ms": wait,
                "command_id": command_id,
                **named,
                **({"key": seat_key} if seat_key is not None else {}),
            }
        )
        return {"table_id": created["table_id"], "match_id": created["match_id"], "seat": 0,
                "opened": True}  # fmt: skip
    finally:
        with contextlib.suppress(Exception):
            await leases.delete(lock, last=revision)


async def _acquire(leases: KeyValue, lock: str, holder: str, wait_s: float) -> int:
    """The lock's revision once this request holds it; raises :class:`ServiceError`
    (busy) after ``wait_s``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        try:
            return await leases.create(lock, holder.encode())
        except KeyWrongLastSequenceError:
            if loop.time() > deadline:
                raise ServiceError("busy", "play now is busy: retry in a moment") from None
            await asyncio.sleep(LOCK_POLL_S * (0.5 + random.random()))
