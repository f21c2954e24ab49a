"""JSON forms of events and commands: the one place that knows them.

An event's payload is a flat JSON object: ``"type"`` (the event's fixed name),
``"schema"`` (its schema number), then its fields. Cards are codes (``"TS"``), strains
lower-case names (``"hearts"``, ``"all_trumps"``), melds ``{"kind", "cards"}``, meld
claims ``{"kind", "rank", "length", "trump"}``. Commands have the same shape with the
command's class name as ``"type"``.

Decoding checks the type and the schema and raises :class:`CodecError` for anything
else; an older schema would be upcast here when one exists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Final

from belot.cards import RANKS, parse_card, rank_of, suit_of, to_code
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SupplyDeck,
    SwapTrumpSeven,
)
from belot.events import EVENT_TYPES, Event
from belot.melds import Meld, MeldClaim, MeldKind
from belot.ruleset import Strain
from belot.scoring import Outcome


class CodecError(ValueError):
    """A payload that is not a known event or command of a known schema."""


def _strain_out(s: Strain) -> str:
    return s.name.lower()


def _strain_in(v: Any) -> Strain:
    try:
        return Strain[str(v).upper()]
    except KeyError:
        raise CodecError(f"unknown strain {v!r}") from None


def _meld_out(m: Meld) -> dict[str, Any]:
    return {"kind": m.kind.value, "cards": [to_code(c) for c in m.cards]}


def _meld_in(v: Any) -> Meld:
    cards = sorted(parse_card(c) for c in v["cards"])
    kind = MeldKind(v["kind"])
    if kind is MeldKind.FOUR:
        return Meld(kind, rank_of(cards[0]), 4)
    return Meld(kind, rank_of(cards[-1]), len(cards), suit_of(cards[0]))


def _claim_out(c: MeldClaim) -> dict[str, Any]:
    return {"kind": c.kind.value, "rank": RANKS[c.rank], "length": c.length, "trump": c.trump}


def _claim_in(v: Any) -> MeldClaim:
    return MeldClaim(
        MeldKind(v["kind"]), RANKS.index(v["rank"]), int(v["length"]), bool(v["trump"])
    )


def _same(v: Any) -> Any:
    return v


def _int(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise CodecError(f"{v!r} is not an integer")
    return v


def _optional(enc: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else enc(v)


#: Field annotation (as written in the dataclass) -> (encode, decode).
_FIELDS: Final[dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]]] = {
    "str": (_same, str),
    "int": (_same, _int),
    "bool": (_same, bool),
    "int | None": (_same, _optional(_int)),
    "Card": (to_code, parse_card),
    "tuple[Card, ...]": (
        lambda cs: [to_code(c) for c in cs],
        lambda vs: tuple(parse_card(v) for v in vs),
    ),
    "tuple[int, int]": (list, lambda v: (_int(v[0]), _int(v[1]))),
    "Strain": (_strain_out, _strain_in),
    "Strain | None": (_optional(_strain_out), _optional(_strain_in)),
    "Outcome": (lambda o: o.value, Outcome),
    "MeldClaim": (_claim_out, _claim_in),
    "tuple[Meld, ...]": (
        lambda ms: [_meld_out(m) for m in ms],
        lambda vs: tuple(_meld_in(v) for v in vs),
    ),
}

COMMAND_TYPES: Final[dict[str, type[Command]]] = {
    cls.__name__: cls
    for cls in (SupplyDeck, Bid, PlayCard, DeclareMelds, SwapTrumpSeven, DemandRedeal)
}


def _encode(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        out[f.name] = _FIELDS[str(f.type)][0](getattr(obj, f.name))
    return out


def _decode(cls: type[Any], payload: Mapping[str, Any]) -> Any:
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in payload:
            if f.default is not dataclasses.MISSING:
                continue
            raise CodecError(f"{cls.__name__} needs {f.name!r}")
        try:
            kwargs[f.name] = _FIELDS[str(f.type)][1](payload[f.name])
        except CodecError:
            raise
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise CodecError(f"{cls.__name__}.{f.name}: {exc}") from None
    return cls(**kwargs)


def to_payload(event: Event) -> dict[str, Any]:
    """The JSON-able form of an event."""
    return {"type": event.TYPE, "schema": event.SCHEMA, **_encode(event)}


def from_payload(payload: Mapping[str, Any]) -> Event:
    """The event a payload describes; raises :class:`CodecError`."""
    cls = EVENT_TYPES.get(str(payload.get("type")))
    if cls is None:
        raise CodecError(f"unknown event type {payload.get('type')!r}")
    if payload.get("schema") != cls.SCHEMA:
        raise CodecError(
            f"{cls.TYPE} schema {payload.get('schema')!r}; this code reads {cls.SCHEMA}"
        )
    event: Event = _decode(cls, payload)
    return event


def command_to_payload(command: Command) -> dict[str, Any]:
    return {"type": type(command).__name__, **_encode(command)}


def command_from_payload(payload: Mapping[str, Any]) -> Command:
    """The command a payload describes; raises :class:`CodecError`."""
    cls = COMMAND_TYPES.get(str(payload.get("type")))
    if cls is None:
        raise CodecError(f"unknown command {payload.get('type')!r}")
    command: Command = _decode(cls, payload)
    return command


def _check_annotations() -> None:
    # Every field of every event and command must have a codec entry: fail at import,
    # not on the first match that uses a new field.
    classes: list[type[Any]] = [*EVENT_TYPES.values(), *COMMAND_TYPES.values()]
    for cls in classes:
        for f in dataclasses.fields(cls):
            if str(f.type) not in _FIELDS:
                raise TypeError(f"{cls.__name__}.{f.name}: no codec for {f.type}")


_check_annotations()
