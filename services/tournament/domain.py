"""The tournament service's glue around the pure core (no I/O): what its stream holds
besides the core's events, the state they fold into, requests parsed into settings, the
seats of a table, and a table's result read as the core's.

``tournament-<id>`` holds the core's events (``tournament.codec``) and four events of
the service's own, which the core never sees:

- ``TournamentConfigured`` (secret: it holds the registration password's hash): the
  name, the creator, the password, forbidden pairs, a manual seeding order, the tables'
  options (target, turn time, bot pace, fallback level, rated) and whether rounds are
  paired as soon as the previous one is complete. Written at creation and at each edit,
  whole: the last one holds.
- ``TournamentPaused`` / ``TournamentResumed``: no round is paired and no table opened
  while paused; the clocks of the round in play keep running (a round's time limit is
  the players' promise, docs/specification.md §5).
- ``TableAssigned``: the table the table service opened for a game of a pairing (its
  id, match id and who sits where). Results come back by table id.

Entrants are account ids, or bots: ``bot:<level>:<n>`` (``level`` easy, medium or hard)
are entrants the service seats as ``bot:<level>`` seats; anyone else sits as a human
seat reserved for that account and must take it through the gateway.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Final, TypeGuard

from belot import RULESETS
from belot.bots import LEVELS
from belot_platform import fields
from belot_platform.errors import ServiceError
from eventkit import SECRET, Codec, streams, visibility_of
from tournament import Tournament, evolve, from_payload, to_payload
from tournament.codec import EVENT_TYPES
from tournament.errors import TournamentError
from tournament.events import Pairing, TournamentEvent
from tournament.settings import Format, Points, Seeding, Settings
from tournament.state import Match, Round

# --- the service's own events ---------------------------------------------------------

CONFIGURED: Final = "TournamentConfigured"
PAUSED: Final = "TournamentPaused"
RESUMED: Final = "TournamentResumed"
TABLE_ASSIGNED: Final = "TableAssigned"
SERVICE_EVENTS: Final = frozenset({CONFIGURED, PAUSED, RESUMED, TABLE_ASSIGNED})

STREAM_PREFIX: Final = streams.TOURNAMENT
#: The table service's streams, ``table-<table id>``, which the tournament reads.
TABLE_STREAM: Final = streams.TABLE
BOT_PREFIX: Final = "bot:"
ID_RE: Final = re.compile(r"[A-Za-z0-9_\-]{1,64}")
MAX_NAME: Final = 100
MAX_PASSWORD: Final = 256
MAX_ENTRANTS: Final = 1024
#: Bounds of the clocks an organiser may set, milliseconds.
MIN_SEAT_WINDOW_MS: Final = 500
MAX_SEAT_WINDOW_MS: Final = 3_600_000
MIN_ROUND_MS: Final = 1_000
MAX_ROUND_MS: Final = 7 * 86_400_000
MAX_TARGET: Final = 10_000


def stream_of(tournament_id: str) -> str:
    return f"{STREAM_PREFIX}{tournament_id}"


class Refused(ServiceError):
    """A request the tournament service refuses (a
    :class:`~belot_platform.errors.ServiceError`, named for the service's own refusals)."""


def bad(message: str) -> Refused:
    return Refused("bad_request", message)


# --- configuration --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The options of every table the tournament opens (the table service's)."""

    target: int | None = None  # None: the ruleset's own
    turn_ms: int | None = None  # None: the table service's default
    bot_delay_ms: int = 0
    fallback_level: str = "medium"
    rated: bool = True


@dataclass(frozen=True, slots=True)
class Config:
    """The organiser's configuration, and the event that states it: the last
    ``TournamentConfigured`` holds (``at_ms``, when it was written, is not part of what
    is configured: two configurations are the same whenever written)."""

    TYPE: ClassVar[str] = CONFIGURED
    VISIBILITY: ClassVar[str] = SECRET  # the registration password's hash
    name: str = ""
    creator: str | None = None
    password_hash: str | None = None
    forbidden: tuple[tuple[str, str], ...] = ()
    manual_order: tuple[str, ...] | None = None
    table: TableConfig = TableConfig()
    auto_next: bool = True
    at_ms: int = field(default=0, compare=False)

    def to_payload(self, at_ms: int) -> dict[str, Any]:
        return SERVICE_CODEC.to_payload(replace(self, at_ms=at_ms))

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Config:
        config: Config = SERVICE_CODEC.from_payload(p, CONFIGURED)
        return config

    @property
    def forbidden_pairs(self) -> list[frozenset[str]]:
        return [frozenset(p) for p in self.forbidden]


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    entrant: str  # the entrant (a team where teams play) this seat plays for
    player: str  # the player id: an account, or a bot entrant's id
    bot: str | None  # the bot's level, for bot entrants


@dataclass(frozen=True, slots=True)
class Assigned:
    """A table opened for one game of a pairing (the ``TableAssigned`` event)."""

    TYPE: ClassVar[str] = TABLE_ASSIGNED

    round: int
    match: int
    game: int
    table_id: str
    match_id: str
    seats: tuple[Seat, ...]
    at_ms: int

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.round, self.match, self.game)

    def to_payload(self) -> dict[str, Any]:
        return SERVICE_CODEC.to_payload(self)

    @classmethod
    def from_payload(cls, p: Mapping[str, Any]) -> Assigned:
        assigned: Assigned = SERVICE_CODEC.from_payload(p, TABLE_ASSIGNED)
        return assigned


@dataclass(frozen=True, slots=True)
class Paused:
    """No round is paired and no table opened until ``TournamentResumed``."""

    TYPE: ClassVar[str] = PAUSED
    at_ms: int


@dataclass(frozen=True, slots=True)
class Resumed:
    TYPE: ClassVar[str] = RESUMED
    at_ms: int


#: The service's own events, declared on the event kit's one codec: payloads without a
#: schema number (their first shape; a new one would add it).
SERVICE_CODEC: Final = Codec((Config, Paused, Resumed, Assigned), schema_field=False, error=Refused)


def service_event(event: Config | Paused | Resumed | Assigned) -> tuple[str, dict[str, Any], str]:
    """One of the service's events as the log stores it: type, payload, visibility."""
    return SERVICE_CODEC.name_of(event), SERVICE_CODEC.to_payload(event), visibility_of(event)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A tournament as its stream folds: the core's state, the service's extras, and the
    stream version they are at (the expected version of the next append)."""

    state: Tournament = field(default_factory=Tournament)
    config: Config = Config()
    paused: bool = False
    tables: Mapping[tuple[int, int, int], Assigned] = field(default_factory=dict)
    version: int = 0
    #: Command ids already in the stream (the service's idempotency within it).
    command_ids: frozenset[str] = frozenset()

    @property
    def id(self) -> str:
        return self.state.id

    def table_for(self, round_no: int, m: Match) -> Assigned | None:
        return self.tables.get((round_no, m.pairing.match, len(m.games) + 1))

    @property
    def status(self) -> str:
        return status_of(self.state, self.paused)


def status_of(state: Tournament, paused: bool = False) -> str:
    """``registering``, ``running``, ``paused``, ``finished`` or ``cancelled``."""
    if state.finished is not None:
        return "cancelled" if state.finished.reason == "cancelled" else "finished"
    if not state.is_started:
        return "registering"
    return "paused" if paused else "running"


def is_core(event_type: str) -> bool:
    return event_type in EVENT_TYPES


def fold(
    loaded: Loaded,
    events: Iterable[tuple[int, str, Mapping[str, Any], str | None]],
) -> Loaded:
    """``loaded`` after ``events`` (version, type, payload, command id), in order.
    Types neither the core's nor the service's are skipped (written by newer code)."""
    state, config, paused = loaded.state, loaded.config, loaded.paused
    tables = dict(loaded.tables)
    ids = set(loaded.command_ids)
    version = loaded.version
    for v, event_type, payload, command_id in events:
        version = v
        if command_id:
            ids.add(command_id)
        if is_core(event_type):
            state = evolve(state, from_payload(event_type, dict(payload)))
        elif event_type == CONFIGURED:
            config = Config.from_payload(payload)
        elif event_type == PAUSED:
            paused = True
        elif event_type == RESUMED:
            paused = False
        elif event_type == TABLE_ASSIGNED:
            a = Assigned.from_payload(payload)
            tables[a.key] = a
    return Loaded(state, config, paused, tables, version, frozenset(ids))


def core_event(event: TournamentEvent) -> tuple[str, dict[str, Any]]:
    return event.TYPE, to_payload(event)


# --- parsing requests -----------------------------------------------------------------

SETTING_FIELDS: Final = (
    *("ruleset", "table_size", "rounds", "best_of", "points", "round_seconds"),
    *("seat_window_seconds", "ladder_days", "rotate_partners", "seeding", "max_entrants"),
    *("min_rating", "max_rating"),
)
CONFIG_FIELDS: Final = (
    *("name", "password", "target", "turn_seconds", "bot_delay_ms", "fallback_level"),
    *("rated", "auto_next"),
)
EDITABLE: Final = frozenset((*SETTING_FIELDS, *CONFIG_FIELDS))


def _int(body: Mapping[str, Any], name: str, low: int, high: int, where: str = "") -> int:
    value = body[name]
    if type(value) is not int or not low <= value <= high:
        raise bad(f"{where}{name} must be a whole number from {low} to {high}")
    return value


def _one_of(value: Any, choices: Iterable[str]) -> TypeGuard[str]:
    """Is ``value`` one of the texts ``choices`` (a list or an object is none: it
    cannot even be looked up in a set)?"""
    return isinstance(value, str) and value in set(choices)


def _ms(body: Mapping[str, Any], name: str, low_ms: int, high_ms: int) -> int:
    value = body[name]
    if type(value) not in (int, float) or not low_ms <= value * 1000 <= high_ms:
        raise bad(
            f"{name} must be a number of seconds from {low_ms / 1000:g} to {high_ms / 1000:g}"
        )
    return int(value * 1000)


def _opt_int(body: Mapping[str, Any], name: str, low: int, high: int) -> int | None:
    return None if body[name] is None else _int(body, name, low, high)


def _bool(body: Mapping[str, Any], name: str) -> bool:
    value = body[name]
    if not isinstance(value, bool):
        raise bad(f"{name} must be true or false")
    return value


def parse_settings(body: Mapping[str, Any], base: Settings) -> Settings:
    """``base`` with the tournament numbers ``body`` gives; raises Refused."""
    changes: dict[str, Any] = {}
    if "ruleset" in body:
        if not _one_of(body["ruleset"], RULESETS):
            raise bad(f"ruleset must be one of {', '.join(sorted(RULESETS))}")
        changes["ruleset"] = body["ruleset"]
        if "table_size" not in body:
            changes["table_size"] = RULESETS[body["ruleset"]].players
    if "table_size" in body:
        changes["table_size"] = _int(body, "table_size", 2, 4)
    for name, high in (("rounds", 100), ("ladder_days", 365)):
        if name in body:
            changes[name] = _int(body, name, 0, high)
    if "best_of" in body:
        changes["best_of"] = _int(body, "best_of", 1, 3)
    if "points" in body:
        p = body["points"]
        if not isinstance(p, dict) or set(p) - {"win", "draw", "loss"}:
            raise bad("points is an object {win, draw, loss} of whole numbers")
        for k in ("win", "draw", "loss"):
            if k in p:
                _int(p, k, -1000, 1000, "points.")
        changes["points"] = Points(**{**dataclasses.asdict(base.points), **p})
    if "round_seconds" in body:
        changes["round_ms"] = _ms(body, "round_seconds", MIN_ROUND_MS, MAX_ROUND_MS)
    if "seat_window_seconds" in body:
        changes["seat_window_ms"] = _ms(
            body, "seat_window_seconds", MIN_SEAT_WINDOW_MS, MAX_SEAT_WINDOW_MS
        )
    if "rotate_partners" in body:
        changes["rotate_partners"] = _bool(body, "rotate_partners")
    if "seeding" in body:
        if not _one_of(body["seeding"], (s.value for s in Seeding)):
            raise bad("seeding is rating, manual or random")
        changes["seeding"] = Seeding(body["seeding"])
    if "max_entrants" in body:
        changes["max_entrants"] = _opt_int(body, "max_entrants", 2, MAX_ENTRANTS)
    for name in ("min_rating", "max_rating"):
        if name in body:
            changes[name] = _opt_int(body, name, 0, 10_000)
    settings = replace(base, **changes)
    try:
        settings = settings.validated()
    except TournamentError as exc:
        raise Refused.of(exc) from None
    if RULESETS[settings.ruleset].players != settings.table_size:
        raise Refused(
            "bad_settings",
            f"{settings.ruleset} is played by {RULESETS[settings.ruleset].players}: "
            "table_size must match it",
        )
    return settings


def parse_format(body: Mapping[str, Any]) -> Settings:
    """A new tournament's settings: ``format`` and the numbers given, else defaults
    (club, tables of four; Swiss needs ``rounds``)."""
    fmt = body.get("format")
    if not _one_of(fmt, (f.value for f in Format)):
        raise bad("format is round_robin, swiss, elimination or ladder")
    return parse_settings({"ruleset": "club", **body}, Settings(Format(fmt)))


def parse_config(body: Mapping[str, Any], base: Config, password_hash: str | None) -> Config:
    """``base`` with the service options ``body`` gives (``password_hash``: the hash of
    a new ``password``, made by the caller). Raises Refused."""
    changes: dict[str, Any] = {}
    if "name" in body:
        name = fields.text("name", body["name"], MAX_NAME * 2)  # a little room for spaces
        if not 1 <= len(name.strip()) <= MAX_NAME:
            raise bad(f"name: 1 to {MAX_NAME} characters")
        changes["name"] = name.strip()
    if "password" in body:
        fields.optional_text(
            "password", body["password"], MAX_PASSWORD,
            what=f"1 to {MAX_PASSWORD} characters, or null for none",
        )  # fmt: skip
        changes["password_hash"] = password_hash
    table: dict[str, Any] = {}
    if "target" in body:
        table["target"] = _opt_int(body, "target", 1, MAX_TARGET)
    if "turn_seconds" in body:
        table["turn_ms"] = (
            None if body["turn_seconds"] is None else _ms(body, "turn_seconds", 200, 600_000)
        )
    if "bot_delay_ms" in body:
        table["bot_delay_ms"] = _int(body, "bot_delay_ms", 0, 10_000)
    if "fallback_level" in body:
        if not _one_of(body["fallback_level"], LEVELS):
            raise bad(f"fallback_level is one of {', '.join(LEVELS)}")
        table["fallback_level"] = body["fallback_level"]
    if "rated" in body:
        table["rated"] = _bool(body, "rated")
    if table:
        changes["table"] = replace(base.table, **table)
    if "auto_next" in body:
        changes["auto_next"] = _bool(body, "auto_next")
    return replace(base, **changes)


def parse_bot(level: Any, taken: Iterable[str]) -> str:
    """A new bot entrant's id, ``bot:<level>:<n>`` with the first free n."""
    if not _one_of(level, LEVELS):
        raise bad(f"bot: a bot's level is one of {', '.join(LEVELS)}")
    used = set(taken)
    n = 1
    while f"{BOT_PREFIX}{level}:{n}" in used:
        n += 1
    return f"{BOT_PREFIX}{level}:{n}"


def bot_level(player: str) -> str | None:
    """The level of a bot entrant's id (``bot:easy:3`` -> easy), else None."""
    if not player.startswith(BOT_PREFIX):
        return None
    level = player.split(":")[1] if player.count(":") == 2 else ""
    return level if level in LEVELS else None


def _entrant_id(value: Any) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= fields.MAX_ID


def parse_pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(_entrant_id(x) for x in p) and p[0] != p[1]
        for p in value
    ):
        raise bad("pairs is a list of [entrant, entrant] pairs of two different entrants")
    return tuple(sorted({tuple(sorted(p)) for p in value}))


def parse_order(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(_entrant_id(x) for x in value):
        raise bad("order is the list of entrants, seed 1 first")
    if len(set(value)) != len(value):
        raise bad("order names each entrant once")
    return tuple(value)


# --- tables ---------------------------------------------------------------------------


def seats_for(state: Tournament, pairing: Pairing) -> tuple[Seat, ...]:
    """Who sits where at a pairing's table. Side a is seat 0 (and 2 at four), side b
    seat 1 (and 3): partners sit opposite, so a side is a table's side. Where teams
    play, a team's two players take its two seats; with rotating partners the pairing's
    sides are the players themselves."""

    def players(side: tuple[str, ...]) -> list[tuple[str, str]]:
        return [(e, p) for e in side for p in state.players_of(e)]

    a, b = players(pairing.a), players(pairing.b)
    order = [a[0], b[0]] if len(a) == 1 else [a[0], b[0], a[1], b[1]]
    return tuple(Seat(n, e, p, bot_level(p)) for n, (e, p) in enumerate(order))


def table_request(
    loaded: Loaded, pairing: Pairing, seats: Sequence[Seat], command_id: str
) -> dict[str, Any]:
    """The ``<prefix>.table.create`` request for a pairing's table."""
    t = loaded.config.table
    body: dict[str, Any] = {
        "ruleset": loaded.state.settings.ruleset,
        "seats": [
            f"bot:{s.bot}" if s.bot else {"kind": "human", "player": s.player} for s in seats
        ],
        "fallback_level": t.fallback_level,
        "rated": t.rated,
        "bot_delay_ms": t.bot_delay_ms,
        "creator": f"tournament:{loaded.id}",
        "command_id": command_id,
        # The table names its tournament (table.events.TournamentTable): its page and
        # the lobby link back to it.
        "tournament": {"id": loaded.id, "name": loaded.config.name},
    }
    if t.target is not None:
        body["target"] = t.target
    if t.turn_ms is not None:
        body["turn_seconds"] = t.turn_ms / 1000
    return body


@dataclass(frozen=True, slots=True)
class TableResult:
    """A table's ``TableMatchFinished`` read as the core's result of a game."""

    a: str  # outcome of side a
    b: str
    a_points: int
    b_points: int


def result_of(payload: Mapping[str, Any], scores: tuple[int, int] | None) -> TableResult | None:
    """Side a is the table's side 0 (seats_for). ``scores``: the match's final score
    (side 0, side 1) when it was played to its end. None: the table gives no result (an
    abort): the round's clock decides that match."""
    winner = payload.get("winner")
    s0, s1 = scores if scores is not None else (0, 0)
    if winner == 0:
        return TableResult("win", "loss", s0, s1)
    if winner == 1:
        return TableResult("loss", "win", s0, s1)
    if payload.get("finished"):
        return TableResult("draw", "draw", s0, s1)
    return None


def seated_players(events: Iterable[tuple[str, Mapping[str, Any]]]) -> tuple[set[str], bool]:
    """From a table's events: the accounts that sat down (and did not get up again before
    the match began), and whether the match began (every seat taken)."""
    seated: dict[int, str] = {}
    began = False
    for event_type, payload in events:
        if event_type == "SeatTaken":
            seated[payload["seat"]] = payload["player"]
        elif event_type == "SeatLeft" and not payload.get("forfeit"):
            seated.pop(payload["seat"], None)
        elif event_type == "FairDealOpened":
            began = True
            for s in payload.get("seats", []):
                if s.get("player"):
                    seated[s["seat"]] = s["player"]
    return set(seated.values()), began


def missing_entrants(assigned: Assigned, seated: set[str]) -> list[str]:
    """The entrants of a table with a human player who is not seated."""
    out: list[str] = []
    for s in assigned.seats:
        if s.bot is None and s.player not in seated and s.entrant not in out:
            out.append(s.entrant)
    return out


# --- views ----------------------------------------------------------------------------


def settings_json(s: Settings) -> dict[str, Any]:
    return {
        "format": s.format.value,
        "ruleset": s.ruleset,
        "table_size": s.table_size,
        "rounds": s.rounds,
        "best_of": s.best_of,
        "points": dataclasses.asdict(s.points),
        "round_seconds": s.round_ms / 1000,
        "seat_window_seconds": s.seat_window_ms / 1000,
        "ladder_days": s.ladder_days,
        "rotate_partners": s.rotate_partners,
        "seeding": s.seeding.value,
        "max_entrants": s.max_entrants,
        "min_rating": s.min_rating,
        "max_rating": s.max_rating,
    }


def round_json(loaded: Loaded, r: Round) -> dict[str, Any]:
    state = loaded.state
    matches = []
    for m in r.matches:
        d = state.decision(r.number, m)
        table = loaded.table_for(r.number, m) if d is None else None
        tables = [
            {"game": a.game, "table_id": a.table_id, "match_id": a.match_id}
            for key, a in sorted(loaded.tables.items())
            if key[:2] == (r.number, m.pairing.match)
        ]
        matches.append(
            {
                "match": m.pairing.match,
                "a": list(m.pairing.a),
                "b": list(m.pairing.b),
                "bye": m.pairing.is_bye,
                "result": None if d is None else {"a": d.a.value, "b": d.b.value},
                "games": [
                    {"a": g.a.value, "b": g.b.value, "a_points": g.a_points, "b_points": g.b_points}
                    for g in m.games
                ],
                "forfeited": list(m.forfeited),
                "timed_out": m.timed_out,
                "table_id": None if table is None else table.table_id,
                "tables": tables,
            }
        )
    return {
        "round": r.number,
        "paired_at_ms": r.paired_at_ms,
        "ends_at_ms": r.ends_at_ms,
        "timed_out": r.timed_out,
        "matches": matches,
    }


def current_tables(loaded: Loaded) -> dict[str, dict[str, Any]]:
    """Each player with a table to sit at now: the table id and the seat."""
    out: dict[str, dict[str, Any]] = {}
    r = loaded.state.current
    if r is None or loaded.state.is_finished:
        return out
    for m in loaded.state.undecided(r):
        a = loaded.table_for(r.number, m)
        if a is None:
            continue
        for s in a.seats:
            out[s.player] = {
                "table_id": a.table_id,
                "seat": s.seat,
                "round": r.number,
                "match": a.match,
                "game": a.game,
            }
    return out


#: The draw document's format (``GET /v1/tournaments/{id}/draw``): what
#: ``fairdeal.drawcheck.verify_draw`` and ``belot verify-draw`` read.
DRAW_DOCUMENT: Final = "belot-tournament-draw/1"


def draw_json(state: Tournament) -> dict[str, Any] | None:
    """A random seeding's draw as the tournament shows it: the round named and, once it
    is made, the beacon and the order (None: nothing is drawn)."""
    named = state.naming
    if named is None:
        return None
    made = state.draw
    return {
        "status": "awaiting_round" if made is None else "made",
        "chain": named.chain,
        "round": named.round,
        "due_at_ms": named.due_at_ms,
        "round_lead_ms": named.round_lead_ms,
        "named_at_ms": named.at_ms,
        "entrants": list(named.entrants),
        "namings": len(state.draw_namings),
        "signature": None if made is None else made.signature.hex(),
        "randomness": None if made is None else made.randomness.hex(),
        "order": None if made is None else list(made.order),
        "made_at_ms": None if made is None else made.at_ms,
    }


def draw_document(
    tournament_id: str, events: Iterable[tuple[int, str, Mapping[str, Any]]]
) -> dict[str, Any]:
    """The tournament's public draw document: its core events (version, type, payload)
    in order, from which anyone recomputes the draw (``belot verify-draw``). The
    service's own events are left out: ``TournamentConfigured`` is secret (the password's
    hash), and none of them enters the draw."""
    return {
        "format": DRAW_DOCUMENT,
        "tournament_id": tournament_id,
        "events": [
            {"version": v, "type": t, "payload": dict(p)} for v, t, p in events if is_core(t)
        ],
    }


def winner_json(loaded: Loaded) -> dict[str, Any] | None:
    """The winner of a tournament that finished (not cancelled): the first of its final
    standings, with its players (a team's two where teams play). None otherwise."""
    state = loaded.state
    if state.finished is None or loaded.status != "finished" or not state.finished.standings:
        return None
    entrant = state.finished.standings[0]
    return {"entrant": entrant, "players": list(state.players_of(entrant))}


def tournament_json(loaded: Loaded, *, detail: bool = True) -> dict[str, Any]:
    state, config = loaded.state, loaded.config
    out: dict[str, Any] = {
        "tournament_id": state.id,
        "name": config.name,
        "status": loaded.status,
        "creator": config.creator,
        "settings": settings_json(state.settings),
        "password_required": config.password_hash is not None,
        "created_at_ms": state.created_at_ms,
        "started_at_ms": state.started_at_ms,
        "entrants": list(state.order or state.entered),
        "round": len(state.rounds),
        "version": loaded.version,
        "finished": None
        if state.finished is None
        else {
            "reason": state.finished.reason,
            "detail": state.finished.detail,
            "standings": list(state.finished.standings),
            "at_ms": state.finished.at_ms,
        },
        "winner": winner_json(loaded),
    }
    if not detail:
        return out
    out.update(
        {
            "tables_options": dataclasses.asdict(config.table),
            "auto_next": config.auto_next,
            "forbidden_pairs": [list(p) for p in config.forbidden],
            "manual_order": None if config.manual_order is None else list(config.manual_order),
            "teams": {t: list(p) for t, p in state.teams.items()},
            "statuses": {e: s.value for e, s in state.status.items()},
            "ladder_ends_at_ms": state.ladder_ends_at_ms,
            "draw": draw_json(state),
            "rounds": [round_json(loaded, r) for r in state.rounds],
            "tables": current_tables(loaded),
        }
    )
    return out
