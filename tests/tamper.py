"""Altering a record in one place, for the tamper tests: the event edited, and then (unless
asked not to) the hash chains recomputed and the summary derived again, so that only the
fair-deal and game checks stand between the forgery and a pass."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from eventkit.envelope import GENESIS_HASH, canonical_bytes, chain_hash
from fairdeal.record import build_record

Record = dict[str, Any]


def events(record: Record, stream: str) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = record["streams"][stream]["events"]
    return result


def find(record: Record, stream: str, type_: str, nth: int = 0) -> dict[str, Any]:
    """The ``nth`` event of ``type_`` in ``stream`` ('match', 'randomness' or 'drand')."""
    found = [e for e in events(record, stream) if e["type"] == type_]
    return found[nth]


def rechain(record: Record) -> Record:
    """Versions renumbered from 1, positions handed out again in the new order, every hash
    recomputed, in every stream; then the summary derived again from the events (what a
    careful forger would do)."""
    for name in ("match", "randomness", "drand"):
        if name not in record["streams"]:
            continue
        prev = GENESIS_HASH
        stream = events(record, name)
        positions = sorted(e["position"] for e in stream)
        for i, e in enumerate(stream):
            e["version"] = i + 1
            e["position"] = positions[i]
            h = chain_hash(
                prev,
                canonical_bytes(
                    e["stream"],
                    e["version"],
                    e["type"],
                    e["payload"],
                    e["metadata"],
                    e["visibility"],
                    e["recorded_at"],
                ),
            )
            e["hash"] = h.hex()
            prev = h
    drand = events(record, "drand") if "drand" in record["streams"] else []
    return build_record(
        record["match_id"], events(record, "match"), events(record, "randomness"), drand
    )


def tampered(record: Record, edit: Callable[[Record], None], *, forge: bool = True) -> Record:
    """A copy of ``record`` with ``edit`` applied; ``forge``: chains and summary redone."""
    copied = copy.deepcopy(record)
    edit(copied)
    return rechain(copied) if forge else copied
