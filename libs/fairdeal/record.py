"""The match record (format ``belot-match-record/1``): everything needed to check a
finished match without trusting the server, in one JSON document.

A match lives in two streams of the event log: ``match-<id>`` (the game core's events,
then possibly one table-level ``MatchForfeited`` or ``MatchAborted``) and
``randomness-<id>`` (the fair-deal events of :mod:`fairdeal.fairness`); the drand round
it named has a third, shared with every match that named the same round:
``drand-<chain>-<round>``, whose first event is the round's one public fact (its value
came in time, or the round was missed). A record holds the three streams event by
event with their envelopes (position, stream, version, type,
payload, metadata, visibility, recorded_at, hash), so the hash chains can be recomputed,
and a summary derived from those events for people and for checking by hand: the
ruleset and its deal pattern, the seats and their seeds, the commitment, the drand
round, randomness and signature or the fallback and why, every deal's deck and the
cards each seat was dealt, every bid and card played, the revealed server seed and the
result. The events are the evidence; the summary must agree with them, and the
verifier (:mod:`fairdeal.verifier`) checks that it does.

``libs/fairdeal/schema/match-record-v1.json`` is the JSON Schema of this format; docs/verifying.md
documents each field. Pure: standard library and the game core.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from belot import RULESETS, deal_pattern
from belot.cards import to_code, to_codes
from belot.codec import CodecError
from belot.codec import from_payload as belot_from_payload
from belot.codec import to_payload as belot_to_payload
from belot.events import (
    BeloteAnnounced,
    BottomCardShown,
    CardPlayed,
    CardsDealt,
    ContractTaken,
    DealAbandoned,
    DealScored,
    DealStarted,
    DeckSupplied,
    Event,
    MatchEnded,
    MatchStarted,
    MisereStarted,
    Passed,
    TrickTaken,
)
from eventkit.envelope import Envelope as Envelope  # the record's events
from eventkit.envelope import EnvelopeError
from eventkit.streams import MATCH_ENDINGS
from eventkit.streams import match_stream as match_stream  # the record's streams
from eventkit.streams import randomness_stream as randomness_stream
from fairdeal.chains import CHAINS
from fairdeal.fairness import (
    DeckIssued,
    DrandBeaconLate,
    DrandBeaconVerified,
    DrandFallback,
    DrandRoundBeacon,
    DrandRoundMissed,
    DrandRoundNamed,
    FairnessError,
    FairnessEvent,
    SeedWindowClosed,
    ServerSeedCommitted,
    ServerSeedRevealed,
    round_stream,
)
from fairdeal.fairness import from_payload as fairness_from_payload
from fairdeal.recipe import DRAND_VALUE_SIZE

FORMAT: Final = "belot-match-record/1"

#: Table-level events that end a match without the game's own MatchEnded.
MATCH_FORFEITED: Final = "MatchForfeited"
MATCH_ABORTED: Final = "MatchAborted"
TABLE_ENDINGS: Final = frozenset({MATCH_FORFEITED, MATCH_ABORTED})
ENDING_EVENTS: Final = MATCH_ENDINGS

#: The summary's keys, in the order a record lists them (between match_id and streams).
SUMMARY_KEYS: Final = (
    "complete",
    "status",
    "ruleset",
    "deal_pattern",
    "seats",
    "fair_deal",
    "deals",
    "result",
)
MATCH_ID_CHARS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:-"
)
MAX_MATCH_ID: Final = 180


def is_match_id(text: str) -> bool:
    """Letters, digits, '_', ':' or '-', 1 to 180 of them (so that ``randomness-<id>`` is
    a valid stream id of the log)."""
    return 0 < len(text) <= MAX_MATCH_ID and all(c in MATCH_ID_CHARS for c in text)


class RecordError(ValueError):
    """A document that is not a match record of a format this code reads (wrong format
    name, missing parts, parts of the wrong JSON type). A record whose parts are all
    there but whose contents are wrong is not this: the verifier reports it."""


# --- envelopes ---------------------------------------------------------------------------


def _envelope(doc: Any, where: str) -> Envelope:
    """The event's envelope (:class:`eventkit.envelope.Envelope`, the one reader of an
    event's JSON); raises :class:`RecordError` for one that is not."""
    try:
        return Envelope.from_json(doc, where)
    except EnvelopeError as exc:
        raise RecordError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class StreamRecord:
    id: str
    head: str | None
    events: tuple[Envelope, ...]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A parsed record: the match id, the summary as written, and both streams."""

    match_id: str
    summary: Mapping[str, Any]
    match: StreamRecord
    randomness: StreamRecord
    #: The named round's stream (``drand-<chain>-<round>``); empty before a round is named.
    drand: StreamRecord = StreamRecord("", None, ())


def _stream_from_json(doc: Any, where: str) -> StreamRecord:
    if not isinstance(doc, dict):
        raise RecordError(f"{where} is not a JSON object")
    sid, head, events = doc.get("id"), doc.get("head"), doc.get("events")
    if not isinstance(sid, str):
        raise RecordError(f"{where}.id is not a string")
    if head is not None and not isinstance(head, str):
        raise RecordError(f"{where}.head is not a string or null")
    if not isinstance(events, list):
        raise RecordError(f"{where}.events is not a list")
    return StreamRecord(
        sid,
        head,
        tuple(_envelope(e, f"{where}.events[{i}]") for i, e in enumerate(events)),
    )


def parse_record(doc: Any) -> MatchRecord:
    """Read a record's structure; raises :class:`RecordError` if ``doc`` is not one."""
    if not isinstance(doc, dict):
        raise RecordError("a match record is a JSON object")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise RecordError(f"format {fmt!r}: this verifier reads {FORMAT!r}")
    match_id = doc.get("match_id")
    if not isinstance(match_id, str):
        raise RecordError("match_id is not a string")
    streams = doc.get("streams")
    if not isinstance(streams, dict):
        raise RecordError("streams is not a JSON object")
    match = _stream_from_json(streams.get("match"), "streams.match")
    randomness = _stream_from_json(streams.get("randomness"), "streams.randomness")
    drand = (
        StreamRecord("", None, ())
        if streams.get("drand") is None
        else _stream_from_json(streams.get("drand"), "streams.drand")
    )
    summary = {k: doc.get(k) for k in SUMMARY_KEYS}
    return MatchRecord(match_id, summary, match, randomness, drand)


# --- decoding ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableEnd:
    """``MatchForfeited`` {leaver, winner_side} or ``MatchAborted`` {reason, by}."""

    type: str
    leaver: int | None = None
    winner_side: int | None = None
    reason: str | None = None
    #: Who asked for the abort (``tournament:<id>``, an operator); None in records made
    #: before aborts named it.
    by: str | None = None
    #: The leaver's signature over its leave (:mod:`fairdeal.leave`); empty when the
    #: forfeit carries none.
    signature: bytes = b""


MatchItem = Event | TableEnd


def decode_table_end(type_: str, payload: Any) -> TableEnd:
    """Raises ValueError for a payload that is not the table's ending event."""
    if not isinstance(payload, dict):
        raise ValueError(f"{type_} payload is not a JSON object")
    if type_ == MATCH_FORFEITED:
        leaver, side = payload.get("leaver"), payload.get("winner_side")
        if type(leaver) is not int or type(side) is not int:
            raise ValueError("MatchForfeited needs whole numbers leaver and winner_side")
        signature = payload.get("signature", "")
        try:
            signed = bytes.fromhex(signature) if isinstance(signature, str) else None
        except ValueError:
            signed = None
        if signed is None:
            raise ValueError("MatchForfeited.signature is hex (the leaver's signature)")
        return TableEnd(type_, leaver=leaver, winner_side=side, signature=signed)
    reason, by = payload.get("reason"), payload.get("by")
    if not isinstance(reason, str):
        raise ValueError("MatchAborted needs a reason (text)")
    if by is not None and not isinstance(by, str):
        raise ValueError("MatchAborted.by names who asked (text)")
    return TableEnd(type_, reason=reason, by=by)


def decode_match_event(env: Envelope) -> MatchItem:
    """The game event (or table ending) an envelope holds; raises ValueError."""
    if env.type in TABLE_ENDINGS:
        return decode_table_end(env.type, env.payload)
    if not isinstance(env.payload, dict):
        raise ValueError("the payload is not a JSON object")
    if env.payload.get("type") != env.type:
        raise ValueError(f"envelope type {env.type!r} but payload type {env.payload.get('type')!r}")
    try:
        return belot_from_payload(env.payload)
    except CodecError as exc:
        raise ValueError(str(exc)) from None


#: The log stores integers of at most 64 bits (eventlog refuses larger ones).
_INT_LIMIT: Final = 2**64


def _is_int(v: Any) -> bool:
    return type(v) is int and -_INT_LIMIT < v < _INT_LIMIT


def _field_ok(annotation: str, v: Any) -> bool:
    if annotation == "int":
        return _is_int(v)
    if annotation == "str":
        return isinstance(v, str)
    if annotation == "bool":
        return isinstance(v, bool)
    if annotation == "bytes":
        return isinstance(v, bytes)
    if annotation == "bytes | None":
        return v is None or isinstance(v, bytes)
    if annotation == "tuple[bytes, ...]":
        return isinstance(v, tuple) and all(isinstance(x, bytes) for x in v)
    if annotation == "tuple[int, ...]":
        return isinstance(v, tuple) and all(_is_int(x) for x in v)
    if annotation == "tuple[SeatSpec, ...]":
        return isinstance(v, tuple) and all(
            _is_int(x.seat) and (x.player is None or isinstance(x.player, str)) for x in v
        )
    return False


def decode_fairness_event(env: Envelope) -> FairnessEvent:
    """The fair-deal event an envelope holds, every field of its declared JSON type;
    raises ValueError."""
    if not isinstance(env.payload, dict):
        raise ValueError("the payload is not a JSON object")
    try:
        event = fairness_from_payload(env.type, env.payload)
    except FairnessError as exc:
        raise ValueError(exc.message) from None
    for f in dataclasses.fields(event):
        if not _field_ok(str(f.type), getattr(event, f.name)):
            raise ValueError(f"{env.type}.{f.name} is not of its type ({f.type})")
    return event


@dataclass(slots=True)
class Decoded:
    """Both streams decoded; events that do not decode are left out and described in
    ``problems`` as ``(stream, version, what)``."""

    match: list[tuple[Envelope, MatchItem]] = field(default_factory=list)
    fairness: list[tuple[Envelope, FairnessEvent]] = field(default_factory=list)
    drand: list[tuple[Envelope, FairnessEvent]] = field(default_factory=list)
    problems: list[tuple[str, int, str]] = field(default_factory=list)


def decode(
    match_events: Sequence[Envelope],
    randomness_events: Sequence[Envelope],
    drand_events: Sequence[Envelope] = (),
) -> Decoded:
    out = Decoded()
    for env in match_events:
        try:
            out.match.append((env, decode_match_event(env)))
        except ValueError as exc:
            out.problems.append((env.stream, env.version, f"{env.type}: {exc}"))
    for env in randomness_events:
        try:
            out.fairness.append((env, decode_fairness_event(env)))
        except ValueError as exc:
            out.problems.append((env.stream, env.version, f"{env.type}: {exc}"))
    for env in drand_events:
        try:
            out.drand.append((env, decode_fairness_event(env)))
        except ValueError as exc:
            out.problems.append((env.stream, env.version, f"{env.type}: {exc}"))
    return out


# --- the summary ---------------------------------------------------------------------------


def _hex(b: bytes | None) -> str | None:
    return None if b is None else b.hex()


def _chain_json(name: str) -> dict[str, Any]:
    chain = CHAINS.get(name)
    if chain is None:
        return {
            "name": name,
            "hash": None,
            "public_key": None,
            "period": None,
            "genesis_time": None,
            "scheme": None,
        }
    return {
        "name": chain.name,
        "hash": chain.hash,
        "public_key": chain.public_key.hex(),
        "period": chain.period,
        "genesis_time": chain.genesis_time,
        "scheme": chain.scheme,
    }


def summarize_fair_deal(
    events: Sequence[FairnessEvent], drand_events: Sequence[FairnessEvent] = ()
) -> tuple[dict[str, Any], list[Any]]:
    """The ``fair_deal`` part and the ``seats`` part of a record."""
    fd: dict[str, Any] = {
        "commitment": None,
        "chain": None,
        "window_closes_at_ms": None,
        "last_round": None,
        "seeds_in_at_ms": None,
        "missing_seeds": None,
        "drand_round": None,
        "drand_due_at_ms": None,
        "round_fact": None,
        "drand": None,
        "fallback": None,
        "late_beacon": None,
        "deck_inputs": None,
        "decks_issued": [],
        "server_seed": None,
        "revealed_at_ms": None,
    }
    seats: list[Any] = []
    for e in events:
        if isinstance(e, ServerSeedCommitted):
            fd["commitment"] = e.commitment.hex()
            fd["chain"] = _chain_json(e.chain)
            fd["window_closes_at_ms"] = e.window_closes_at_ms
            fd["last_round"] = e.last_round
            seats = [
                {"seat": s.seat, "player": s.player, "human": s.is_human, "seed": None}
                for s in e.seats
            ]
        elif isinstance(e, SeedWindowClosed):
            fd["seeds_in_at_ms"] = e.at_ms
            fd["missing_seeds"] = list(e.missing)
            for i, seed in enumerate(e.seat_seeds):
                if i < len(seats):
                    seats[i]["seed"] = seed.hex()
        elif isinstance(e, DrandRoundNamed):
            fd["drand_round"] = e.round
            fd["drand_due_at_ms"] = e.due_at_ms
        elif isinstance(e, DrandBeaconVerified):
            fd["drand"] = {
                "round": e.round,
                "randomness": e.randomness.hex(),
                "signature": e.signature.hex(),
                "previous_signature": _hex(e.previous_signature),
                "at_ms": e.at_ms,
            }
            fd["deck_inputs"] = {"drand_round": e.round, "drand_value": e.randomness.hex()}
        elif isinstance(e, DrandFallback):
            fd["fallback"] = {"round": e.round, "reason": e.reason, "at_ms": e.at_ms}
            fd["deck_inputs"] = {"drand_round": 0, "drand_value": bytes(DRAND_VALUE_SIZE).hex()}
        elif isinstance(e, DrandBeaconLate):
            fd["late_beacon"] = {
                "round": e.round,
                "randomness": e.randomness.hex(),
                "signature": e.signature.hex(),
                "at_ms": e.at_ms,
            }
        elif isinstance(e, DeckIssued):
            fd["decks_issued"].append({"deal": e.deal, "cards": e.cards, "at_ms": e.at_ms})
        elif isinstance(e, ServerSeedRevealed):
            fd["server_seed"] = e.server_seed.hex()
            fd["revealed_at_ms"] = e.at_ms
    for e in drand_events[:1]:
        if isinstance(e, DrandRoundBeacon | DrandRoundMissed):
            fd["round_fact"] = {
                "type": e.TYPE,
                "chain": e.chain,
                "round": e.round,
                "at_ms": e.at_ms,
                "signature": e.signature.hex() if isinstance(e, DrandRoundBeacon) else None,
                "reason": e.reason if isinstance(e, DrandRoundMissed) else None,
            }
    return fd, seats


def _strain_name(strain: Any) -> str:
    return str(strain.name).lower()


def _other(event: Event) -> dict[str, Any]:
    payload = belot_to_payload(event)
    payload.pop("schema", None)
    return payload


def _new_deal(k: int) -> dict[str, Any]:
    return {
        "deal": k,
        "dealer": None,
        "deck": None,
        "turned": None,
        "first_cards": None,
        "completion_cards": None,
        "bids": [],
        "contract": None,
        "bottom": None,
        "plays": [],
        "tricks": [],
        "other_events": [],
        "score": None,
        "abandoned": None,
    }


def summarize_game(
    items: Sequence[MatchItem],
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], dict[str, Any] | None, str]:
    """``ruleset``, ``deals``, ``result`` and ``status`` from the match stream's events."""
    ruleset: dict[str, Any] | None = None
    deals: list[dict[str, Any]] = []
    result: dict[str, Any] | None = None
    status = "in_progress"
    players = 0
    scores = [0, 0]
    deal: dict[str, Any] | None = None
    completing = False
    belote_pending: tuple[int, int] | None = None

    def current(k: int | None = None) -> dict[str, Any]:
        nonlocal deal, completing
        if deal is None or (k is not None and deal["deal"] != k):
            deal = _new_deal(k if k is not None else len(deals))
            deals.append(deal)
            completing = False
        return deal

    for e in items:
        if isinstance(e, MatchStarted):
            rules = RULESETS.get(e.ruleset)
            players = rules.players if rules else 0
            ruleset = {
                "name": e.ruleset,
                "players": rules.players if rules else None,
                "deck_size": rules.deck_size if rules else None,
                "target": e.target,
                "first_dealer": e.first_dealer,
            }
        elif isinstance(e, DeckSupplied):
            current(e.deal_number)["deck"] = to_codes(list(e.cards))
        elif isinstance(e, DealStarted):
            d = current(e.deal_number)
            d["dealer"] = e.dealer
            d["turned"] = to_code(e.turned)
        elif isinstance(e, CardsDealt):
            d = current()
            key = "completion_cards" if completing else "first_cards"
            if d[key] is None:
                d[key] = [[] for _ in range(players)]
            if 0 <= e.seat < players:  # another seat is the play check's to report
                d[key][e.seat].extend(to_codes(list(e.cards)))
        elif isinstance(e, Passed):
            current()["bids"].append({"seat": e.seat, "call": "pass"})
        elif isinstance(e, ContractTaken):
            d = current()
            d["bids"].append({"seat": e.seat, "call": _strain_name(e.strain)})
            d["contract"] = {"taker": e.seat, "strain": _strain_name(e.strain)}
            completing = True
        elif isinstance(e, MisereStarted):
            current()["contract"] = {"taker": None, "strain": "misere"}
            completing = True
        elif isinstance(e, BottomCardShown):
            current()["bottom"] = to_code(e.card)
        elif isinstance(e, BeloteAnnounced):
            belote_pending = (e.seat, e.card)
        elif isinstance(e, CardPlayed):
            belote = belote_pending == (e.seat, e.card)
            belote_pending = None
            current()["plays"].append({"seat": e.seat, "card": to_code(e.card), "belote": belote})
        elif isinstance(e, TrickTaken):
            current()["tricks"].append(
                {"winner": e.seat, "cards": to_codes(list(e.cards)), "points": e.points}
            )
        elif isinstance(e, DealScored):
            current(e.deal_number)["score"] = {
                "outcome": e.outcome.value,
                "totals": list(e.totals),
                "awarded": list(e.awarded),
                "scores": list(e.scores),
                "hanging": e.hanging,
                "winner": e.winner,
            }
            scores = list(e.scores)
            deal = None
        elif isinstance(e, DealAbandoned):
            current(e.deal_number)["abandoned"] = e.reason
            deal = None
        elif isinstance(e, MatchEnded):
            status = "ended"
            result = {
                "ended_by": MatchEnded.TYPE,
                "winner": e.winner,
                "scores": list(e.scores),
                "leaver": None,
                "reason": None,
                "by": None,
            }
        elif isinstance(e, TableEnd):
            if e.type == MATCH_FORFEITED:
                status = "forfeited"
                result = {
                    "ended_by": e.type,
                    "winner": e.winner_side,
                    "scores": list(scores),
                    "leaver": e.leaver,
                    "reason": None,
                    "by": None,
                }
            else:
                status = "aborted"
                result = {
                    "ended_by": e.type,
                    "winner": None,
                    "scores": list(scores),
                    "leaver": None,
                    "reason": e.reason,
                    "by": e.by,
                }
        else:  # melds, belote already handled, swaps, redeal demands
            current()["other_events"].append(_other(e))
    return ruleset, deals, result, status


def summarize_decoded(decoded: Decoded) -> dict[str, Any]:
    """The summary part of a record from its decoded events (undecodable events are left
    out: the verifier reports them separately)."""
    ruleset, deals, result, status = summarize_game([e for _, e in decoded.match])
    fair_deal, seats = summarize_fair_deal(
        [e for _, e in decoded.fairness], [e for _, e in decoded.drand]
    )
    rules = RULESETS.get(ruleset["name"]) if ruleset else None
    pattern = deal_pattern(rules).to_payload() if rules else None
    return {
        "complete": status != "in_progress",
        "status": status,
        "ruleset": ruleset,
        "deal_pattern": pattern,
        "seats": seats,
        "fair_deal": fair_deal,
        "deals": deals,
        "result": result,
    }


def summarize(
    match_events: Sequence[Envelope],
    randomness_events: Sequence[Envelope],
    drand_events: Sequence[Envelope] = (),
) -> dict[str, Any]:
    """The summary part of a record, derived from the events alone."""
    return summarize_decoded(decode(match_events, randomness_events, drand_events))


def _head(events: Sequence[Envelope]) -> str | None:
    return events[-1].hash if events else None


def build_record(
    match_id: str,
    match_events: Sequence[Mapping[str, Any]],
    randomness_events: Sequence[Mapping[str, Any]],
    drand_events: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A record from the streams' envelopes (``RecordedEvent.to_json_dict()`` each):
    the match's, its fair deal's and its named round's (:func:`drand_stream_of` names it).

    Give every event of the streams once the match has ended; before the end give the
    public events only (the record then says ``complete: false`` and cannot verify).
    Raises :class:`RecordError` if an envelope is malformed.
    """
    m = tuple(_envelope(e, f"match event {i}") for i, e in enumerate(match_events))
    r = tuple(_envelope(e, f"randomness event {i}") for i, e in enumerate(randomness_events))
    d = tuple(_envelope(e, f"drand event {i}") for i, e in enumerate(drand_events))
    return {
        "format": FORMAT,
        "match_id": match_id,
        **summarize(m, r, d),
        "streams": {
            "match": {
                "id": match_stream(match_id),
                "head": _head(m),
                "events": [e.to_json() for e in m],
            },
            "randomness": {
                "id": randomness_stream(match_id),
                "head": _head(r),
                "events": [e.to_json() for e in r],
            },
            "drand": {
                # The events' own stream; whether it is the named round's, the verifier says.
                "id": d[0].stream if d else drand_stream_of(r) or "",
                "head": _head(d),
                "events": [e.to_json() for e in d],
            },
        },
    }


def drand_stream_of(randomness_events: Sequence[Envelope | Mapping[str, Any]]) -> str | None:
    """The stream of the round a match named (from its ``DrandRoundNamed``), or None."""
    for e in randomness_events:
        env_type = e.type if isinstance(e, Envelope) else e.get("type")
        payload = e.payload if isinstance(e, Envelope) else e.get("payload")
        if env_type == DrandRoundNamed.TYPE and isinstance(payload, dict):
            chain, round_ = payload.get("chain"), payload.get("round")
            if isinstance(chain, str) and type(round_) is int:
                return round_stream(chain, round_)
    return None


def public_view(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record without its streams: what ``GET /v1/matches/{id}`` shows."""
    return {k: v for k, v in record.items() if k != "streams"}


def record_digest(record: Mapping[str, Any]) -> str:
    """A short identity of a record's evidence: SHA-256 over both streams' heads and
    lengths (hex). Equal digests mean the same events, whatever the summary says."""
    streams = record.get("streams") or {}
    parts = []
    for name in ("match", "randomness", "drand"):
        s = streams.get(name) or {}
        parts.append(f"{s.get('id')}:{len(s.get('events') or [])}:{s.get('head')}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()
