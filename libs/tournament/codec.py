"""Events to JSON-able payloads and back: the one place the stored shape is defined.

A payload is the event's fields (nested values as objects, tuples as lists, enums as
their text) plus ``"schema"``, the event's schema number. Stored type names are never
reused; when an event's shape changes, its SCHEMA goes up and an upcaster registered in
``UPCASTERS`` turns the old payload into the new one on read.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any

from tournament.errors import BadPayload, UnknownEvent
from tournament.events import EVENT_CLASSES, TournamentEvent

EVENT_TYPES: dict[str, type[TournamentEvent]] = {cls.TYPE: cls for cls in EVENT_CLASSES}

#: (type name, old schema) -> a function making the payload of schema + 1. None yet.
UPCASTERS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


def event_type(event: TournamentEvent) -> str:
    return event.TYPE


def to_payload(event: TournamentEvent) -> dict[str, Any]:
    """The event as a JSON-able dict (with its schema number)."""
    out = _encode(event)
    assert isinstance(out, dict)
    return {"schema": event.SCHEMA, **out}


def from_payload(type_name: str, payload: dict[str, Any]) -> TournamentEvent:
    """Rebuild an event. Raises UnknownEvent for a type never stored, BadPayload for a
    payload that does not fit it."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise UnknownEvent(f"unknown tournament event type {type_name!r}")
    payload = dict(payload)
    schema = payload.pop("schema", 1)
    while schema < cls.SCHEMA:
        upcast = UPCASTERS.get((type_name, schema))
        if upcast is None:
            raise BadPayload(f"{type_name} schema {schema} has no upcaster")
        payload, schema = upcast(payload), schema + 1
    if schema != cls.SCHEMA:
        raise BadPayload(f"{type_name} schema {schema} is newer than this code knows")
    try:
        event = _decode(cls, payload)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadPayload(f"{type_name}: {exc}") from None
    return typing.cast(TournamentEvent, event)


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    return value


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is not type(None):
                return _decode(option, value)
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise TypeError(f"expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise TypeError(f"expected an object for {hint.__name__}, got {value!r}")
        hints = typing.get_type_hints(hint)
        kwargs = {
            f.name: _decode(hints[f.name], value[f.name])
            for f in dataclasses.fields(hint)
            if f.name in value or f.default is dataclasses.MISSING
        }
        return hint(**kwargs)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if hint in (int, str, bool) and type(value) is hint:
        return value
    raise TypeError(f"expected {getattr(hint, '__name__', hint)}, got {value!r}")
