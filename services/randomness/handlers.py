"""NATS request/reply handlers of the randomness service: parse, call the domain, reply.

Subjects (JSON bodies; errors come back as ``{"error": code, "message": text}``):

- ``belot.randomness.open``   {match_id, seats: [{seat, player|null}], window_ms?}
  -> {match_id, commitment, window_closes_at_ms, last_round, round_lead_ms, chain}
- ``belot.randomness.seed``   {match_id, seat, player, seed (32 hex digits), command_id?}
  -> {match_id, seat, accepted, window_closed, receipt: {match_id, seat, seed_sha256,
  stream, version, at_ms}}: the event that recorded the seed, which the record must honour
- ``belot.randomness.deck``   {match_id, deal, cards?: 32|24, wait_ms?: 0..15000}
  -> {match_id, deal, cards: [codes, top first], drand_round, fallback}
- ``belot.randomness.reveal`` {match_id} -> {match_id, server_seed}   (after match end only)
- ``belot.randomness.status`` {match_id} -> the public view of the match's fair deal

``deck`` is for the table service only: in production, NATS permissions keep players'
connections (the gateway's) off ``belot.randomness.deck``. The service publishes
``belot.randomness.fixed.<match_id>`` once a match's deck inputs are fixed (drand value
or fallback): tables are told at once.
"""

from __future__ import annotations

from typing import Any, Final

from belot_platform import fields
from belot_platform.messaging import BAD_REQUEST, ServiceError
from eventlog.envelope import check_stream_id
from eventlog.errors import InvalidEvent
from fairdeal.fairness import MAX_SEED_WINDOW_MS, FairnessError, SeatSpec
from fairdeal.leave import KEY_SIZE as LEAVE_KEY_SIZE
from services.randomness.domain import public_view, stream_of
from services.randomness.service import RandomnessService

SUBJECT: Final = "belot.randomness"
MAX_WAIT_MS: Final = 15_000
MAX_SEED_TEXT: Final = 200
#: The table service sends ``<table>:<player>:<client's command id>``: each part bounded.
MAX_COMMAND_ID: Final = 400


def _bad(message: str) -> ServiceError:
    return ServiceError(BAD_REQUEST, message)


def _obj(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise _bad("the request must be a JSON object")
    return body


def _match_id(body: dict[str, Any]) -> str:
    match_id = body.get("match_id")
    if not isinstance(match_id, str):
        raise _bad("match_id must be a string")
    try:
        check_stream_id(stream_of(match_id))
    except InvalidEvent:
        raise _bad("match_id: letters, digits, '_', '-' or ':' (at most 180)") from None
    return match_id


def _int(body: dict[str, Any], name: str, default: int | None = None) -> int:
    value = body.get(name, default)
    if type(value) is not int:
        raise _bad(f"{name} must be a whole number")
    return value


class Handlers:
    def __init__(self, service: RandomnessService, chain: str, subject: str = SUBJECT) -> None:
        self.service = service
        self.chain = chain
        self.subject = subject

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except FairnessError as exc:
            raise ServiceError.of(exc) from None

    async def open(self, body: Any) -> dict[str, Any]:
        body = _obj(body)
        match_id = _match_id(body)
        raw = body.get("seats")
        if not isinstance(raw, list) or not raw:
            raise _bad("seats must be a non-empty list of {seat, player}")
        seats = []
        for n, item in enumerate(raw):
            if not isinstance(item, dict) or item.get("seat") != n:
                raise _bad(f"seats[{n}] must be an object with seat = {n}")
            player = fields.optional_text(
                f"seats[{n}].player", item.get("player"), fields.MAX_ID,
                what=f"an account id (1 to {fields.MAX_ID} characters), or null for a bot",
            )  # fmt: skip
            key = item.get("key")
            field = f"seats[{n}].key"
            if key is not None and not isinstance(key, str):
                raise ServiceError("bad_key", f"{field} is hex digits, or null")
            try:
                public = b"" if key is None else fields.parse_hex(field, key, (LEAVE_KEY_SIZE,))
            except fields.FieldError as exc:
                raise ServiceError("bad_key", f"{exc.message} (or null)") from None
            seats.append(SeatSpec(n, player, public))
        window = body.get("window_ms")
        if window is not None and (
            type(window) is not int or not 1 <= window <= MAX_SEED_WINDOW_MS
        ):
            raise _bad(f"window_ms must be a whole number of milliseconds, 1..{MAX_SEED_WINDOW_MS}")
        state = await self._call(self.service.open(match_id, tuple(seats), self.chain, window))
        return {
            "match_id": match_id,
            "commitment": state.commitment.hex(),
            "window_closes_at_ms": state.window_closes_at_ms,
            "last_round": state.last_round,
            "round_lead_ms": state.round_lead_ms,
            "chain": state.chain,
        }

    async def seed(self, body: Any) -> dict[str, Any]:
        body = _obj(body)
        match_id = _match_id(body)
        seat = _int(body, "seat")
        player = fields.identifier("player", body.get("player"))
        # Any longer cannot be a seed; a shorter wrong one gets its precise code below.
        text = fields.text(
            "seed", body.get("seed"), MAX_SEED_TEXT, min_len=0, what="a string of hex digits"
        )
        try:
            seed = bytes.fromhex(text)
        except ValueError:
            raise ServiceError("seed_not_hex", "the seed must be hexadecimal") from None
        command_id = fields.optional_text("command_id", body.get("command_id"), MAX_COMMAND_ID)
        state = await self._call(self.service.submit_seed(match_id, seat, player, seed, command_id))
        receipt = await self._call(self.service.receipt(match_id, seat))
        return {
            "match_id": match_id,
            "seat": seat,
            "accepted": True,
            "window_closed": state.is_window_closed,
            "receipt": receipt,
        }

    async def deck(self, body: Any) -> dict[str, Any]:
        body = _obj(body)
        match_id = _match_id(body)
        deal = _int(body, "deal")
        cards = _int(body, "cards", 32)
        wait_ms = _int(body, "wait_ms", 0)
        if not 0 <= wait_ms <= MAX_WAIT_MS:
            raise _bad(f"wait_ms must be 0..{MAX_WAIT_MS}")
        result: dict[str, Any] = await self._call(
            self.service.deck(match_id, deal, cards, wait_ms / 1000)
        )
        return result

    async def reveal(self, body: Any) -> dict[str, Any]:
        match_id = _match_id(_obj(body))
        state = await self._call(self.service.reveal(match_id))
        assert state.server_seed is not None
        return {"match_id": match_id, "server_seed": state.server_seed.hex()}

    async def status(self, body: Any) -> dict[str, Any]:
        match_id = _match_id(_obj(body))
        state = await self.service.state(match_id)
        if not state.is_open:
            raise ServiceError("unknown_match", f"no match {match_id!r}")
        return public_view(state)

    def routes(self) -> dict[str, Any]:
        return {
            f"{self.subject}.open": self.open,
            f"{self.subject}.seed": self.seed,
            f"{self.subject}.deck": self.deck,
            f"{self.subject}.reveal": self.reveal,
            f"{self.subject}.status": self.status,
        }
