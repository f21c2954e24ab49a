"""One suite over every event type of every codec (the event kit, ``eventkit.codec``).

For each declared type, hypothesis builds events from the fields' own types and checks
what a log needs of its stored shape:

- an event written and read back (through JSON text) is the same event;
- its payload is JSON without floats (the log hashes exact bytes and refuses them), and
  holds the type's name and schema number where the codec says it does;
- a payload with any required field taken away, of a schema newer than the code, or of
  a type never declared is refused with the package's own error.

A new event in any package is in this suite the moment it is declared: the lists below
are the codecs' own registries, not copies of them.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from belot import codec as belot_codec
from belot.cards import Card, to_code
from belot.melds import Meld, MeldClaim, MeldKind
from belot.ruleset import Strain
from eventkit import Codec, EventKitError
from fairdeal import fairness
from rating import events as rating_events
from services.tournament import domain as tournament_service
from table import events as table_events
from tournament import codec as tournament_codec
from tournament.errors import TournamentError

#: Every codec, with the exception its refusals raise.
CODECS: dict[str, tuple[Codec, type[Exception]]] = {
    "belot": (belot_codec.EVENTS, belot_codec.CodecError),
    "belot-commands": (belot_codec.COMMANDS, belot_codec.CodecError),
    "tournament": (tournament_codec.CODEC, TournamentError),
    "rating": (rating_events.CODEC, rating_events.RatingEventError),
    "tournament-service": (tournament_service.SERVICE_CODEC, tournament_service.Refused),
    "table": (table_events.CODEC, table_events.TableEventError),
    "fairness": (fairness.CODEC, fairness.FairnessError),
}

CASES = [(name, type_name) for name, (codec, _) in CODECS.items() for type_name in codec.types]


def _meld() -> st.SearchStrategy[Meld]:
    four = st.integers(0, 7).map(lambda r: Meld(MeldKind.FOUR, r, 4))
    sequence = st.integers(3, 8).flatmap(
        lambda n: st.tuples(st.integers(n - 1, 7), st.integers(0, 3)).map(
            lambda rs: Meld(MeldKind.SEQUENCE, rs[0], n, rs[1])
        )
    )
    return four | sequence


#: Values of the types a converter stores (any value of the type is allowed there).
SPECIAL: dict[Any, st.SearchStrategy[Any]] = {
    Card: st.integers(0, 31).map(Card),
    Strain: st.sampled_from(list(Strain)),
    Meld: _meld(),
    MeldClaim: st.builds(
        MeldClaim,
        st.sampled_from(list(MeldKind)),
        st.integers(0, 7),
        st.integers(3, 8),
        st.booleans(),
    ),
    int: st.integers(-(2**53), 2**53),
    str: st.text(max_size=12),
    bool: st.booleans(),
    float: st.floats(allow_nan=False, allow_infinity=False),
    bytes: st.binary(max_size=40),
    table_events.SeatConfig: st.builds(
        table_events.SeatConfig,
        st.sampled_from([table_events.HUMAN, table_events.BOT]),
        st.none() | st.sampled_from(["easy", "medium", "hard"]),
        st.none() | st.text(min_size=1, max_size=8),
    ),
}


def values(hint: Any) -> st.SearchStrategy[Any]:
    """Any value of a field declared ``hint``, built from the declaration alone."""
    if hint in SPECIAL:
        return SPECIAL[hint]
    if isinstance(hint, typing.NewType):
        return values(hint.__supertype__)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(st.none() if a is type(None) else values(a) for a in args))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(values(args[0]), max_size=4).map(tuple)
        return st.tuples(*(values(a) for a in args))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = {f.name: values(hints[f.name]) for f in dataclasses.fields(hint)}
        return st.builds(hint, **fields)
    raise TypeError(f"no strategy for {hint!r}")


def _floats(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_floats(v) for v in value.values())
    if isinstance(value, list):
        return any(_floats(v) for v in value)
    return False


def _read(codec: Codec, payload: dict[str, Any], type_name: str) -> Any:
    return codec.from_payload(payload, None if codec.type_field else type_name)


@pytest.mark.parametrize("name,type_name", CASES, ids=[f"{n}:{t}" for n, t in CASES])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_round_trips_and_refuses_what_does_not_fit(
    name: str, type_name: str, data: st.DataObject
) -> None:
    codec, error = CODECS[name]
    cls = codec.types[type_name]
    event = data.draw(values(cls))
    payload = codec.to_payload(event)
    text = json.dumps(payload)  # JSON, and nothing JSON cannot hold
    assert not _floats(payload), "the event log refuses floats"
    assert _read(codec, json.loads(text), type_name) == event
    if codec.type_field is not None:
        assert payload[codec.type_field] == type_name
    if codec.schema_field:
        assert next(iter(payload)) == "schema" or codec.type_field is not None
        assert payload["schema"] == getattr(cls, "SCHEMA", 1)
        newer = {**payload, "schema": getattr(cls, "SCHEMA", 1) + 1}
        with pytest.raises(error):
            _read(codec, newer, type_name)
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            without = {k: v for k, v in payload.items() if k != f.name}
            with pytest.raises(error):
                _read(codec, without, type_name)


@pytest.mark.parametrize("name,type_name", CASES, ids=[f"{n}:{t}" for n, t in CASES])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_compiled_writer_makes_the_generic_payload_byte_for_byte(
    name: str, type_name: str, data: st.DataObject
) -> None:
    """The hot path (each class's compiled writer) against the reference (the
    converters composed): the same keys in the same order, the same values, the same
    JSON bytes, so the log's hashes cannot tell them apart."""
    codec, _ = CODECS[name]
    event = data.draw(values(codec.types[type_name]))
    fast, generic = codec.to_payload(event), codec.to_payload_generic(event)
    assert list(fast) == list(generic)
    assert orjson.dumps(fast) == orjson.dumps(generic)


@dataclasses.dataclass(frozen=True)
class _Leaf:
    card: Card
    strain: Strain | None = None


@dataclasses.dataclass(frozen=True)
class _Node:
    """What no declared event holds yet: a class holding itself, a dataclass field, an
    optional one, a fixed tuple of mixed kinds, a tuple of optionals."""

    leaf: _Leaf
    pair: tuple[Card, int]
    maybe: _Leaf | None
    cards: tuple[Card | None, ...]
    child: _Node | None = None


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.builds(
            _Node,
            leaf=values(_Leaf),
            pair=values(tuple[Card, int]),
            maybe=values(_Leaf | None),
            cards=values(tuple[Card | None, ...]),
        ),
        lambda inner: st.builds(
            _Node,
            leaf=values(_Leaf),
            pair=values(tuple[Card, int]),
            maybe=values(_Leaf | None),
            cards=values(tuple[Card | None, ...]),
            child=inner,
        ),
        max_leaves=4,
    )
)
def test_the_compiled_writer_handles_every_shape_a_field_may_take(node: _Node) -> None:
    codec = Codec(
        {"Node": _Node}, converters=belot_codec._CONVERTERS, type_field="type", schema_field=False
    )
    fast = codec.to_payload(node)
    assert orjson.dumps(fast) == orjson.dumps(codec.to_payload_generic(node))
    assert fast["pair"][0] == to_code(node.pair[0])
    assert codec.from_payload(json.loads(orjson.dumps(fast))) == node


@pytest.mark.parametrize("name", list(CODECS))
def test_a_type_never_declared_is_refused(name: str) -> None:
    codec, error = CODECS[name]
    payload = {codec.type_field: "NeverDeclared"} if codec.type_field else {}
    with pytest.raises(error):
        codec.from_payload(payload, None if codec.type_field else "NeverDeclared")


def test_a_field_no_codec_can_store_fails_when_the_codec_is_made() -> None:
    @dataclasses.dataclass(frozen=True)
    class Measured:
        TYPE: typing.ClassVar[str] = "Measured"
        metres: float

    with pytest.raises(TypeError, match="register a converter"):
        Codec([Measured])
    assert Codec([Measured], converters={float: (repr, float)}).to_payload(Measured(1.5)) == {
        "schema": 1,
        "metres": "1.5",
    }


def test_a_declaration_that_breaks_the_rules_is_refused() -> None:
    @dataclasses.dataclass
    class Mutable:
        TYPE: typing.ClassVar[str] = "Mutable"

    @dataclasses.dataclass(frozen=True)
    class Peeking:
        TYPE: typing.ClassVar[str] = "Peeking"
        VISIBILITY: typing.ClassVar[str] = "seat"
        cards: int

    with pytest.raises(TypeError, match="frozen"):
        Codec([Mutable])
    with pytest.raises(TypeError, match="names none"):
        Codec([Peeking])


def test_an_old_schema_is_upcast_in_turn_and_a_missing_upcaster_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Renamed:
        TYPE: typing.ClassVar[str] = "Renamed"
        SCHEMA: typing.ClassVar[int] = 3
        entrant: str

    codec = Codec([Renamed], upcasters={("Renamed", 1): lambda p: {"player": p["name"]}})
    with pytest.raises(EventKitError) as refused:
        codec.from_payload({"schema": 1, "name": "a"}, "Renamed")
    assert refused.value.code == "bad_schema"
    codec.upcasters[("Renamed", 2)] = lambda p: {"entrant": p["player"]}
    assert codec.from_payload({"schema": 1, "name": "a"}, "Renamed") == Renamed("a")
    assert codec.from_payload({"name": "a"}, "Renamed") == Renamed("a")  # no schema: 1
