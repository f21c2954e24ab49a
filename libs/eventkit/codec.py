"""The one codec: events (and commands) to JSON-able payloads and back, from their
declarations (:mod:`eventkit.declare`).

A payload is the event's fields, in the order the class declares them, each stored as
its type says:

- ``int``, ``str``, ``bool``: as they are, and read back only as that type (``True`` is
  not a number, ``"1"`` is not one either);
- a tuple: a list (``tuple[X, ...]`` of any length, ``tuple[X, Y]`` of exactly two);
- ``X | None``: ``null`` or X;
- an enum: its value;
- a dataclass: an object of its fields (a field with a default may be absent);
- any other type only through a *converter* the package registers for it (cards as
  codes, bytes as hex, a float as the shortest text that reads back to it): floats have
  no default form, since the event log hashes exact bytes and refuses them.

A package's codec is a declaration: its events, its converters, whether the payload
holds the type's name (``type_field``) and the schema number (``schema_field``, always
first: ``{"schema": 1, ...}``), and its upcasters. An upcaster turns a payload of
``(type, schema)`` into one of ``schema + 1``; reading applies them in turn, so code
only ever sees the current shape. A payload without a schema number is schema 1.

How each field is read and written is worked out once per class, when the codec is
made: a field whose type the codec cannot store fails there, at import, not on the
first match that uses it.

Writing is on every append's hot path, so each class's writer is also compiled then:
the source of one function that builds the payload's dict in a single literal, each
field's conversion written out inline (``obj.seat``, ``_t0[obj.card]`` for a converter
whose write half is a table indexed by the value, ``[_t0[x] for x in obj.cards]``), with
no per-field dispatch at run time. :meth:`Codec.to_payload` uses it;
:meth:`Codec.to_payload_generic` is the reference it is built from (the converters
composed as closures), and a property test holds the two to the same output for every
declared type (tests/unit/test_event_codecs.py).

Every refusal goes through the package's ``error(code, message)``, so each package
keeps its own error type: ``unknown_event`` (a type never declared), ``bad_schema`` (a
schema newer than the code, or an old one without an upcaster) and ``bad_payload`` (a
payload that does not fit its type).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from eventkit.declare import declared

#: How a value of one type is written and read back. The write half may be a table (a
#: tuple or a mapping): the value is then its index or key (cards as their codes,
#: looked up, not called).
Converter = tuple[Callable[[Any], Any] | tuple[Any, ...] | Mapping[Any, Any], Callable[[Any], Any]]
#: A converter with its write half a function (a table's is its ``__getitem__``).
_Pair = tuple[Callable[[Any], Any], Callable[[Any], Any]]
#: Turns the payload of one schema into the payload of the next.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class EventKitError(ValueError):
    """The default refusal of a codec: ``code`` is stable, the message plain words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


UNKNOWN_EVENT: Final = "unknown_event"
BAD_SCHEMA: Final = "bad_schema"
BAD_PAYLOAD: Final = "bad_payload"

#: What a value must be read back as, by the type it is declared with.
_EXACT: Final[dict[Any, type]] = {int: int, str: str, bool: bool}


class _Unfit(ValueError):
    """A value that does not fit its declared type (becomes a ``bad_payload``)."""


def _exact(kind: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if type(value) is not kind:
            raise _Unfit(f"{value!r} is not {'an' if kind is int else 'a'} {kind.__name__}")
        return value

    return read


def _same(value: Any) -> Any:
    return value


class Codec:
    """One package's events to payloads and back (module docstring).

    ``events``: the declared classes, or a mapping of stored name to class for things
    stored by another name (commands by class name). ``error(code, message)`` makes the
    exception each refusal raises."""

    def __init__(
        self,
        events: Iterable[type[Any]] | Mapping[str, type[Any]],
        *,
        converters: Mapping[Any, Converter] | None = None,
        upcasters: Mapping[tuple[str, int], Upcaster] | None = None,
        type_field: str | None = None,
        schema_field: bool = True,
        error: Callable[[str, str], Exception] = EventKitError,
    ) -> None:
        self.types: dict[str, type[Any]] = (
            dict(events) if isinstance(events, Mapping) else declared(events)
        )
        self._names = {cls: name for name, cls in self.types.items()}
        self._converters: dict[Any, Converter] = dict(converters or {})
        self.upcasters: dict[tuple[str, int], Upcaster] = dict(upcasters or {})
        self.type_field = type_field
        self.schema_field = schema_field
        self._error = error
        self._plans: dict[type[Any], _Plan] = {}
        for cls in self.types.values():
            self._plan(cls)
        self._writers: dict[type[Any], Callable[[Any], dict[str, Any]]] = {
            cls: _Compiler(self).top(cls, name) for name, cls in self.types.items()
        }

    # ------------------------------------------------------------------ the API

    def name_of(self, event: Any) -> str:
        """The stored type name of ``event``."""
        return self._names[type(event)]

    def to_payload(self, event: Any) -> dict[str, Any]:
        """The JSON-able form of ``event`` (its class's compiled writer)."""
        return self._writers[type(event)](event)

    def to_payload_generic(self, event: Any) -> dict[str, Any]:
        """The JSON-able form of ``event`` through the composed converters: the
        reference the compiled writers are held to."""
        cls = type(event)
        out: dict[str, Any] = {}
        if self.type_field is not None:
            out[self.type_field] = self._names[cls]
        if self.schema_field:
            out["schema"] = getattr(cls, "SCHEMA", 1)
        out.update(self._plans[cls].write(event))
        return out

    def from_payload(self, payload: Mapping[str, Any], type_name: str | None = None) -> Any:
        """The event a payload describes, upcast to its current schema; its type is
        ``type_name`` or, for a codec with a ``type_field``, the payload's own."""
        if type_name is None:
            type_name = str(payload.get(self.type_field)) if self.type_field else ""
        cls = self.types.get(type_name)
        if cls is None:
            raise self._error(UNKNOWN_EVENT, f"unknown event type {type_name!r}")
        data = dict(payload)
        if self.schema_field:
            schema = data.pop("schema", 1)
            current = getattr(cls, "SCHEMA", 1)
            if type(schema) is not int:
                raise self._error(BAD_SCHEMA, f"{type_name}: schema {schema!r} is not a number")
            while schema < current:
                upcast = self.upcasters.get((type_name, schema))
                if upcast is None:
                    raise self._error(
                        BAD_SCHEMA, f"{type_name} schema {schema} has no upcaster to {current}"
                    )
                data, schema = upcast(data), schema + 1
            if schema != current:
                raise self._error(
                    BAD_SCHEMA, f"{type_name} schema {schema}: this code reads {current}"
                )
        try:
            return self._plans[cls].read(data)
        except (_Unfit, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise self._error(BAD_PAYLOAD, f"{type_name}: {exc}") from None

    # ------------------------------------------------------------------ plans

    def _plan(self, cls: type[Any]) -> _Plan:
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._plans[cls] = _Plan(cls)  # first: a class may hold itself
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                write, read = self._field(hints[f.name], f"{cls.__name__}.{f.name}")
                has_default = (
                    f.default is not dataclasses.MISSING
                    or f.default_factory is not dataclasses.MISSING
                )
                plan.fields.append((f.name, write, read, has_default))
        return plan

    def _field(self, hint: Any, where: str) -> _Pair:
        """How a value declared ``hint`` is written and read (module docstring)."""
        if hint in self._converters:
            write, read = self._converters[hint]
            if isinstance(write, tuple | Mapping):
                return write.__getitem__, read
            return write, read
        if isinstance(hint, typing.NewType):
            supertype: Any = hint.__supertype__
            return self._field(supertype, where)
        if hint in _EXACT:
            return _same, _exact(_EXACT[hint])
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            options = [a for a in args if a is not type(None)]
            if len(options) != 1 or len(args) != 2:
                raise TypeError(f"{where}: only X | None unions can be stored, not {hint}")
            write, read = self._field(options[0], where)
            return (
                lambda v: None if v is None else write(v),
                lambda v: None if v is None else read(v),
            )
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                write, read = self._field(args[0], where)
                return (
                    lambda vs: [write(v) for v in vs],
                    lambda vs: tuple(read(v) for v in _list(vs)),
                )
            parts = [self._field(a, where) for a in args]
            return (
                lambda vs: [w(v) for (w, _), v in zip(parts, vs, strict=True)],
                lambda vs: tuple(
                    r(v) for (_, r), v in zip(parts, _list(vs, len(parts)), strict=True)
                ),
            )
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return (lambda v: v.value, hint)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            plan = self._plan(hint)
            return plan.write, plan.read
        raise TypeError(f"{where}: no way to store {hint!r}: register a converter for it")


def _list(value: Any, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _Unfit(f"{value!r} is not a list")
    if length is not None and len(value) != length:
        raise _Unfit(f"{value!r} does not hold {length} values")
    return value


class _Plan:
    """How one dataclass is written and read: its fields in order, each with its
    converter and whether it may be absent (it has a default)."""

    def __init__(self, cls: type[Any]) -> None:
        self.cls = cls
        self.fields: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], bool]] = []
        #: The compiled writer of this class as a field of another (:class:`_Compiler`).
        self.compiled: Callable[[Any], dict[str, Any]] | None = None

    def write(self, obj: Any) -> dict[str, Any]:
        return {name: write(getattr(obj, name)) for name, write, _, _ in self.fields}

    def read(self, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise _Unfit(f"{self.cls.__name__} is an object, not {data!r}")
        kwargs: dict[str, Any] = {}
        for name, _, read, has_default in self.fields:
            if name not in data:
                if has_default:
                    continue
                raise _Unfit(f"{self.cls.__name__} needs {name!r}")
            try:
                kwargs[name] = read(data[name])
            except _Unfit as exc:
                raise _Unfit(f"{name}: {exc}") from None
        return self.cls(**kwargs)


class _Compiler:
    """Writes the source of one class's writer (module docstring) and compiles it.

    Every expression is built over a plain local name, so a value used twice (``X |
    None``) is read once; what the source refers to (tables, converters, plans) is
    bound by name in the function's globals. The types were checked by the codec's
    plans before this runs: anything not handled here is a bug, not a payload."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.env: dict[str, Any] = {}
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"_{prefix}{self.count}"

    def bind(self, value: Any, prefix: str) -> str:
        name = self.fresh(prefix)
        self.env[name] = value
        return name

    def top(self, cls: type[Any], name: str) -> Callable[[Any], dict[str, Any]]:
        head: list[str] = []
        if self.codec.type_field is not None:
            head.append(f"{self.codec.type_field!r}: {name!r}")
        if self.codec.schema_field:
            head.append(f"'schema': {getattr(cls, 'SCHEMA', 1)!r}")
        return self.function(cls, head)

    def function(self, cls: type[Any], head: list[str]) -> Callable[[Any], dict[str, Any]]:
        hints = typing.get_type_hints(cls)
        lines, items = [], list(head)
        for f in dataclasses.fields(cls):
            local = self.fresh("v")
            lines.append(f"    {local} = obj.{f.name}")
            items.append(f"{f.name!r}: {self.expr(hints[f.name], local)}")
        fn = self.fresh("write")
        source = f"def {fn}(obj):\n" + "".join(line + "\n" for line in lines)
        source += "    return {" + ", ".join(items) + "}\n"
        exec(compile(source, f"<eventkit writer {cls.__name__}>", "exec"), self.env)
        writer: Callable[[Any], dict[str, Any]] = self.env[fn]
        return writer

    def expr(self, hint: Any, src: str) -> str:
        """The source of ``src``'s stored form, ``src`` a local name declared ``hint``."""
        converters = self.codec._converters
        if hint in converters:
            write = converters[hint][0]
            if isinstance(write, tuple | Mapping):
                return f"{self.bind(write, 't')}[{src}]"
            return f"{self.bind(write, 'c')}({src})"
        if isinstance(hint, typing.NewType):
            return self.expr(hint.__supertype__, src)
        if hint in _EXACT:
            return src
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            (option,) = [a for a in args if a is not type(None)]
            inner = self.expr(option, src)
            return src if inner == src else f"(None if {src} is None else {inner})"
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                item = self.fresh("x")
                inner = self.expr(args[0], item)
                return f"list({src})" if inner == item else f"[{inner} for {item} in {src}]"
            parts = [self.fresh("p") for _ in args]
            fn = self.fresh("tuple")
            body = ", ".join(self.expr(a, p) for a, p in zip(args, parts, strict=True))
            source = f"def {fn}(vs):\n    {', '.join(parts)}, = vs\n    return [{body}]\n"
            exec(compile(source, "<eventkit writer tuple>", "exec"), self.env)
            return f"{fn}({src})"
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return f"{src}.value"
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            # Through the plan, looked up when called: a class may hold itself.
            plan = self.codec._plan(hint)
            if plan.compiled is None:
                plan.compiled = _pending
                plan.compiled = self.function(hint, [])
            return f"{self.bind(plan, 'plan')}.compiled({src})"
        raise TypeError(f"no compiled form for {hint!r}")  # the plans refused it first


def _pending(obj: Any) -> dict[str, Any]:
    raise RuntimeError("a writer called while it is compiled")
