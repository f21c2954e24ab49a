"""JSON forms of events and commands: the one place that knows them.

An event's payload is a flat JSON object: ``"type"`` (the event's fixed name),
``"schema"`` (its schema number), then its fields. Cards are codes (``"TS"``), strains
lower-case names (``"hearts"``, ``"all_trumps"``), melds ``{"kind", "cards"}``, meld
claims ``{"kind", "rank", "length", "trump"}``, bytes (the salts of hidden events)
lower-case hex. Commands have the same shape with the command's class name as
``"type"``.

Decoding checks the type and the schema and raises :class:`CodecError` for anything
else; an older schema would be upcast here when one exists. Everything but the five
converters below (cards, strains, melds, claims, bytes) is the event kit's one codec
(:mod:`eventkit.codec`), which derives the rest from the fields' types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from belot.cards import CARD_CODES, RANKS, Card, parse_card, rank_of, suit_of
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
from eventkit import Codec, Converter


class CodecError(ValueError):
    """A payload that is not a known event or command of a known schema."""


#: A strain's stored name, looked up (the codec's write half is this table).
_STRAIN_NAMES: Final[dict[Strain, str]] = {s: s.name.lower() for s in Strain}


def _strain_in(v: Any) -> Strain:
    try:
        return Strain[str(v).upper()]
    except KeyError:
        raise CodecError(f"unknown strain {v!r}") from None


def _meld_out(m: Meld) -> dict[str, Any]:
    return {"kind": m.kind.value, "cards": [CARD_CODES[c] for c in m.cards]}


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


COMMAND_TYPES: Final[dict[str, type[Command]]] = {
    cls.__name__: cls
    for cls in (SupplyDeck, Bid, PlayCard, DeclareMelds, SwapTrumpSeven, DemandRedeal)
}


def _refused(code: str, message: str) -> CodecError:
    return CodecError(message)


def _bytes_in(v: Any) -> bytes:
    # Only the form the writer gives (lower-case hex, nothing else): one value, one text.
    if not isinstance(v, str) or len(v) % 2 or v.strip("0123456789abcdef"):
        raise CodecError(f"bytes are lower-case hex text, not {v!r}")
    return bytes.fromhex(v)


_CONVERTERS: Final[dict[Any, Converter]] = {
    # Tables: the compiled writers index them inline (eventkit.codec).
    Card: (CARD_CODES, parse_card),
    Strain: (_STRAIN_NAMES, _strain_in),
    MeldClaim: (_claim_out, _claim_in),
    Meld: (_meld_out, _meld_in),
    bytes: (bytes.hex, _bytes_in),  # the salts of hidden events (belot.salts)
}
#: The events: ``{"type", "schema", ...fields}``.
EVENTS: Final = Codec(
    EVENT_TYPES.values(), converters=_CONVERTERS, type_field="type", error=_refused
)
#: The commands: ``{"type": class name, ...fields}``, no schema.
COMMANDS: Final = Codec(
    COMMAND_TYPES, converters=_CONVERTERS, type_field="type", schema_field=False, error=_refused
)


def to_payload(event: Event) -> dict[str, Any]:
    """The JSON-able form of an event."""
    return EVENTS.to_payload(event)


def from_payload(payload: Mapping[str, Any]) -> Event:
    """The event a payload describes; raises :class:`CodecError`."""
    event: Event = EVENTS.from_payload(payload)
    return event


def command_to_payload(command: Command) -> dict[str, Any]:
    return COMMANDS.to_payload(command)


def command_from_payload(payload: Mapping[str, Any]) -> Command:
    """The command a payload describes; raises :class:`CodecError`."""
    command: Command = COMMANDS.from_payload(payload)
    return command
