"""The table service's decisions (pure: no I/O, times passed in): the options a create
request may ask for, who may take or act for a seat, and the payloads of the events it
appends (declared in :mod:`table.events`). What those events mean, and the state they
fold into, is :mod:`table.state` (the gateway folds a table's stream too).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from belot import RULESETS, Ruleset
from belot.bots import LEVELS
from belot.seats import side_of
from belot_platform import fields
from belot_platform.errors import ServiceError
from fairdeal import leave
from table.events import (
    BOT,
    HUMAN,
    BotSeatsOpened,
    MatchForfeited,
    MatchSeat,
    SeatConfig,
    SeatTaken,
    TableEvent,
    TableMatchFinished,
    TableOpened,
    TournamentTable,
)
from table.state import OPEN, TableOptions, TableState

#: Limits of a table's options.
MIN_TARGET: Final = 1
MAX_TARGET: Final = 10_000
MIN_TURN_MS: Final = 200
MAX_TURN_MS: Final = 600_000
MAX_BOT_DELAY_MS: Final = 10_000
#: The most turns in a row the timer may play for a seat before a bot takes it.
MAX_AUTOPLAY_AFTER: Final = 20
#: The longest a "play now" table keeps its bots' seats open to humans.
MAX_BOTS_OPEN_MS: Final = 600_000
#: The longest tournament name a table records (the tournament service's own bound).
MAX_TOURNAMENT_NAME: Final = 200
#: The longest account name a seat may carry (the gateway's names are at most 32).
MAX_NAME: Final = 64


class TableError(ServiceError):
    """A table command refused (a :class:`~belot_platform.errors.ServiceError`, named
    for the table's own refusals); nothing is appended."""


def parse_options(
    body: Mapping[str, Any], default_turn_ms: int, default_autoplay_after: int = 2
) -> TableOptions:
    """A table's options from a create request; raises :class:`TableError` (bad_request).

    ``seats``: one item a seat, ``"human"``, ``"bot"`` (medium), ``"bot:easy"`` or an
    object ``{"kind": "bot", "level": "hard"}``.
    """
    name = body.get("ruleset")
    if not isinstance(name, str) or name not in RULESETS:
        raise TableError("bad_request", f"ruleset must be one of {', '.join(sorted(RULESETS))}")
    ruleset = RULESETS[name]
    raw = body.get("seats")
    if raw is None:
        raw = [HUMAN] * ruleset.players
    if not isinstance(raw, list) or len(raw) != ruleset.players:
        raise TableError("bad_request", f"{name} has {ruleset.players} seats: give one item each")
    seats = tuple(_seat_config(item, n) for n, item in enumerate(raw))
    target = _whole(body, "target", ruleset.target, MIN_TARGET, MAX_TARGET)
    turn_ms = default_turn_ms
    if body.get("turn_seconds") is not None:
        secs = body["turn_seconds"]
        if type(secs) not in (int, float) or not MIN_TURN_MS <= secs * 1000 <= MAX_TURN_MS:
            raise TableError("bad_request", "turn_seconds must be a number from 0.2 to 600")
        turn_ms = int(secs * 1000)
    fallback = body.get("fallback_level", "medium")
    if fallback not in LEVELS:
        raise TableError("bad_request", f"fallback_level must be one of {', '.join(LEVELS)}")
    rated = body.get("rated", True)
    if not isinstance(rated, bool):
        raise TableError("bad_request", "rated must be true or false")
    delay = _whole(body, "bot_delay_ms", 0, 0, MAX_BOT_DELAY_MS)
    autoplay = _whole(body, "autoplay_after", default_autoplay_after, 0, MAX_AUTOPLAY_AFTER)
    return TableOptions(
        name, seats, target, turn_ms, fallback, rated, delay, autoplay_after=autoplay
    )


def extra_events(body: Mapping[str, Any], now_ms: int) -> list[TableEvent]:
    """The events a create request adds after ``TableOpened``: ``bots_open_ms`` (a whole
    number of milliseconds: the bots' seats open to humans that long, "play now"),
    ``tournament`` (``{"id", "name"}``: the tournament the table plays a game of).
    Raises :class:`TableError` (bad_request)."""
    out: list[TableEvent] = []
    if body.get("bots_open_ms") is not None:
        wait = _whole(body, "bots_open_ms", 0, 0, MAX_BOTS_OPEN_MS)
        out.append(BotSeatsOpened(now_ms + wait, now_ms))
    tournament = body.get("tournament")
    if tournament is not None:
        if not isinstance(tournament, dict):
            raise TableError("bad_request", "tournament is an object {id, name}")
        try:
            tid = fields.text("tournament.id", tournament.get("id"), fields.MAX_ID)
            name = fields.text("tournament.name", tournament.get("name"), MAX_TOURNAMENT_NAME)
        except fields.FieldError as exc:
            raise TableError.of(exc) from None
        out.append(TournamentTable(tid, name, now_ms))
    return out


def first_free_seat(state: TableState, player: str, now_ms: int) -> int:
    """The seat "play now" gives ``player``: a free human seat (not kept for another),
    else a bot's seat open to humans. Raises :class:`TableError` (``already_seated``
    with the seat in its details, ``table_started``, ``seat_taken``: none is free)."""
    mine = state.seat_of(player)
    if mine is not None:
        raise TableError(
            "already_seated", f"you already sit at seat {mine}", details={"seat": mine}
        )
    if state.status != OPEN:
        raise TableError("table_started", "the match has started: seats are taken")
    for s in state.seats:
        if not s.is_bot and s.player is None and s.config.reserved in (None, player):
            return s.number
    for s in state.seats:
        if state.is_open_to_humans(s, now_ms):
            return s.number
    raise TableError("seat_taken", "no seat is free at this table")


def _whole(body: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name, default)
    if value is None:
        value = default
    if type(value) is not int or not low <= value <= high:
        raise TableError("bad_request", f"{name} must be a whole number from {low} to {high}")
    return value


def _seat_config(item: Any, n: int) -> SeatConfig:
    if isinstance(item, str):
        name, _, text = item.partition(":")
        item = {"kind": name, "level": text or None}
    if not isinstance(item, dict):
        raise TableError("bad_request", f"seats[{n}]: 'human', 'bot:<level>' or an object")
    kind = item.get("kind")
    if kind == HUMAN:
        try:  # the account the seat is kept for: an id, bounded like every id
            reserved = fields.optional_text(
                f"seats[{n}].player", item.get("player"), fields.MAX_ID,
                what=f"the account id the seat is kept for (1 to {fields.MAX_ID} characters)",
            )  # fmt: skip
        except fields.FieldError as exc:
            raise TableError.of(exc) from None
        return SeatConfig(HUMAN, None, reserved)
    if kind == BOT:
        level = item.get("level") or "medium"
        if level not in LEVELS:
            raise TableError("bad_request", f"seats[{n}]: a bot's level is one of {LEVELS}")
        return SeatConfig(BOT, level)
    raise TableError("bad_request", f"seats[{n}]: kind is 'human' or 'bot'")


# --- decisions -----------------------------------------------------------------------


def opened(
    table_id: str, match_id: str, options: TableOptions, created_by: str | None, now_ms: int
) -> TableOpened:
    """The ``TableOpened`` of a new table."""
    return TableOpened(
        table_id,
        match_id,
        options.ruleset,
        options.target,
        options.seats,
        options.turn_ms,
        options.fallback_level,
        options.rated,
        bot_delay_ms=options.bot_delay_ms,
        created_by=created_by,
        autoplay_after=options.autoplay_after,
        at_ms=now_ms,
    )


def hex_field(name: str, value: Any, size: int, what: str) -> str:
    """An optional field of ``size`` bytes as lower-case hex ("" when absent), read by
    the platform's one hex parser; raises :class:`TableError` (``bad_key`` or
    ``bad_signature``, by ``name``)."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise TableError(f"bad_{name}", f"{name} must be {what}: {2 * size} hex digits")
    try:
        return fields.parse_hex(name, value, (size,)).hex()
    except fields.FieldError as exc:
        raise TableError(f"bad_{name}", f"{exc.message} ({what})") from None


def seat_name(value: Any) -> str:
    """The ``name`` the gateway sends with a seat taken: the account's name, or none."""
    return fields.optional_text("name", value, MAX_NAME) or ""


def seat_key(value: Any) -> str:
    """The ``key`` a page sends with its seat: an Ed25519 public key, or none."""
    return hex_field("key", value, leave.KEY_SIZE, "an Ed25519 public key")


def signature_field(value: Any) -> str:
    """The ``signature`` a ``leave`` carries, its shape only (64 bytes, hex, or none)."""
    return hex_field("signature", value, leave.SIGNATURE_SIZE, "an Ed25519 signature")


def leave_signature(state: TableState, seat: int, signature: str) -> str:
    """A leave's signature (:func:`signature_field`), checked against the key the seat was
    taken with (:mod:`fairdeal.leave`): a seat with a key leaves only with its signature;
    one without has none to give. Raises :class:`TableError` (``bad_signature``)."""
    key = state.seats[seat].key
    if not key:
        if signature:
            raise TableError("bad_signature", "this seat was taken without a key to sign with")
        return ""
    if not signature:
        raise TableError(
            "bad_signature", "this seat was taken with a key: its leave must be signed with it"
        )
    if not leave.verify_leave(bytes.fromhex(key), state.match_id, seat, bytes.fromhex(signature)):
        raise TableError(
            "bad_signature", "the signature is not this seat's key's over this match and seat"
        )
    return signature


def take_seat(
    state: TableState, seat: int, player: str, now_ms: int, key: str = "", name: str = ""
) -> SeatTaken:
    """``player`` (its account ``name``, if the gateway said it) takes ``seat`` (with its
    page's ``key``, hex, if any); raises :class:`TableError`."""
    if not 0 <= seat < len(state.seats):
        raise TableError("unknown_seat", f"this table has seats 0..{len(state.seats) - 1}")
    if state.status != OPEN:
        raise TableError("table_started", "the match has started: seats are taken")
    target = state.seats[seat]
    if target.is_bot and not state.is_open_to_humans(target, now_ms):
        raise TableError("bot_seat", f"seat {seat} is a bot's")
    if target.player == player:
        raise TableError("already_seated", f"you already sit at seat {seat}")
    if target.player is not None:
        raise TableError("seat_taken", f"seat {seat} is taken")
    if target.config.reserved is not None and target.config.reserved != player:
        raise TableError("seat_reserved", f"seat {seat} is kept for another player")
    mine = state.seat_of(player)
    if mine is not None:
        raise TableError("already_seated", f"you already sit at seat {mine}")
    return SeatTaken(seat, player, key=key, name=name, at_ms=now_ms)


def seat_for(state: TableState, player: str, seat: int | None) -> int:
    """The seat ``player`` acts for; raises :class:`TableError` (``not_your_seat``)."""
    mine = state.seat_of(player)
    if seat is not None:
        if not 0 <= seat < len(state.seats):
            raise TableError("unknown_seat", f"this table has seats 0..{len(state.seats) - 1}")
        if mine != seat:
            raise TableError("not_your_seat", f"seat {seat} is not yours")
        return seat
    if mine is None:
        raise TableError("not_your_seat", "you have no seat at this table")
    return mine


def winner_side_against(ruleset: Ruleset, leaver: int) -> int:
    """The side that wins when ``leaver`` leaves (docs/specification.md §5: leaving is a loss)."""
    return 1 - side_of(leaver)


def forfeited(ruleset: Ruleset, leaver: int, signature: str = "") -> MatchForfeited:
    return MatchForfeited(leaver, winner_side_against(ruleset, leaver), signature)


def match_finished(
    state: TableState,
    *,
    winner: int | None,
    finished: bool,
    leaver: int | None,
    now_ms: int,
) -> TableMatchFinished:
    """The ``TableMatchFinished``: exactly rating.MatchSummary's fields."""
    assert state.options is not None
    return TableMatchFinished(
        state.match_id,
        state.options.ruleset,
        tuple(MatchSeat(n, p) for n, p in state.match_seats),
        winner,
        finished,
        leaver,
        now_ms,
        state.options.rated,
    )


def to_dict(options: TableOptions) -> dict[str, Any]:
    return dataclasses.asdict(options)
