"""Declaring an event: one way, in every package.

An event is a frozen dataclass, past tense, with three class constants:

- ``TYPE``: the name it is stored under. A stored name is never reused for another
  shape: a reader of an old log must never mistake one fact for another.
- ``SCHEMA``: the number of its shape, 1 first. A new shape gets the next number and
  an upcaster from the old one (:class:`eventkit.codec.Codec`); a field added with a
  default needs neither, since a payload without it reads as the default.
- ``VISIBILITY``: who may see it while its stream runs: :data:`PUBLIC` (every seat and
  spectator), :data:`SECRET` (nobody: the whole deck, a password's hash) or
  :data:`SEAT` (only the seat its ``seat`` field names: the cards dealt to it). A log
  shows private and secret events once the match is over. Absent: public.

The fields' types say how each is stored: the codec derives the JSON from them, so a
field's type is its schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Final

PUBLIC: Final = "public"
SECRET: Final = "secret"
SEAT: Final = "seat"
VISIBILITIES: Final = frozenset({PUBLIC, SECRET, SEAT})


#: Each class's declared visibility as text, worked out on its first event (every
#: event appended asks): a class's ``VISIBILITY`` is a constant of its declaration.
_VISIBILITIES: dict[type[Any], str] = {}


def visibility_of(event: Any) -> str:
    """The event's visibility as the log stores it: ``public``, ``secret`` or
    ``seat:<n>``."""
    cls = type(event)
    value = _VISIBILITIES.get(cls)
    if value is None:
        declared = getattr(cls, "VISIBILITY", PUBLIC)
        value = _VISIBILITIES[cls] = str(getattr(declared, "value", declared))  # enum or text
    if value == SEAT:
        return f"seat:{event.seat}"
    return value


def declared(classes: Iterable[type[Any]]) -> dict[str, type[Any]]:
    """The events by stored name; raises TypeError for a class that is not declared
    as this module says (not a frozen dataclass, no TYPE, a bad SCHEMA or VISIBILITY, a
    seat-visible event without a ``seat`` field) or a name used twice."""
    out: dict[str, type[Any]] = {}
    for cls in classes:
        name = getattr(cls, "TYPE", "")
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls.__name__} declares no TYPE")
        if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__name__} is not a frozen dataclass")
        schema = getattr(cls, "SCHEMA", 1)
        if type(schema) is not int or schema < 1:
            raise TypeError(f"{cls.__name__}.SCHEMA must be a whole number from 1")
        visibility = getattr(cls, "VISIBILITY", PUBLIC)
        visibility = str(getattr(visibility, "value", visibility))
        if visibility not in VISIBILITIES:
            raise TypeError(
                f"{cls.__name__}.VISIBILITY {visibility!r} is not one of {sorted(VISIBILITIES)}"
            )
        if visibility == SEAT and "seat" not in {f.name for f in dataclasses.fields(cls)}:
            raise TypeError(f"{cls.__name__} is seen by a seat but names none")
        if name in out:
            raise TypeError(f"{name} is declared twice ({out[name].__name__}, {cls.__name__})")
        out[name] = cls
    return out
