"""A dishonest player's search for the other seats' cards in what it is served, for the
tests of docs/threat-model.md, "Hidden cards stay hidden".

The attack. A stream's hash chain runs through its hidden events: hash(v) =
SHA-256(hash(v-1) || canonical bytes of event v). A seat served the hashes of the events
it sees (the public ones and its own) holds, around each hidden event, the hash before
it and the hash after it, and every byte of the hidden event but its cards: the type,
stream, version, visibility and seat follow from the rules, the time and metadata are
those of the public event written in the same append. So it tries every packet the
other seat could hold and keeps the ones that rebuild the next hash it was served.

:func:`completion_search` plays it on the completion (three cards, or two and the turned
card for the taker): the cards of one seat alone between two served events, fewer than
10^4 ordered guesses. The same search on a first distribution (five or six cards) takes
about 10^7 to 10^8 guesses: minutes on one core, and no less certain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from belot import RULESETS, deal_pattern
from belot.cards import FULL_DECK, parse_card, to_code
from eventkit.envelope import canonical_bytes

Envelope = dict[str, Any]


def served(envelopes: Sequence[Envelope], seat: int | None, *, hashes: bool) -> list[Envelope]:
    """What a viewer at ``seat`` (None: the public) is served of a stream that has not
    ended: its public events and the seat's own; with their hashes (``hashes``: as they
    were served before the fix, or as a role that reads the log's rows gets them) or
    without (as they are served now)."""
    own = None if seat is None else f"seat:{seat}"
    out = []
    for e in envelopes:
        if e["visibility"] in ("public", own):
            out.append(e if hashes else {**e, "hash": None})
    return out


@dataclass(frozen=True, slots=True)
class Search:
    """One hidden packet searched for: where it is, whose, how many guesses were tried,
    and the guesses that rebuild the served hash (the true packet, or nothing)."""

    version: int
    seat: int
    tried: int
    found: tuple[tuple[str, ...], ...]


def completion_search(
    served_events: Sequence[Envelope],
    ruleset: str,
    seat: int,
    *,
    payload_extra: Iterable[dict[str, Any]] = ({},),
) -> list[Search]:
    """Search every completion packet of another seat that lies alone between two events
    served to ``seat`` with their hashes (the module docstring). ``payload_extra``: what
    to add to each guessed payload, tried in turn (a guess at a salt, say)."""
    rules = RULESETS[ruleset]
    n = rules.players
    pattern = deal_pattern(rules)
    by_version = {e["version"]: e for e in served_events}
    extras = list(payload_extra)
    out: list[Search] = []
    dealer = turned = None
    known: set[int] = set()
    for e in served_events:
        p = e["payload"]
        if e["type"] == "DealStarted":
            dealer, turned, known = p["dealer"], parse_card(p["turned"]), set()
            known.add(turned)
        elif e["type"] == "CardsDealt" and p["seat"] == seat:
            known.update(parse_card(c) for c in p["cards"])
        elif e["type"] in ("ContractTaken", "MisereStarted") and dealer is not None:
            assert turned is not None
            taker = p["seat"] if e["type"] == "ContractTaken" else None
            # The completion follows at once, in dealing order: our own packet too.
            own_at = e["version"] + 1 + (seat - dealer - 1) % n
            own = by_version.get(own_at)
            if own is None or own["type"] != "CardsDealt":
                continue
            own_cards = {parse_card(c) for c in own["payload"]["cards"]}
            pool = sorted(set(FULL_DECK[: rules.deck_size]) - known - own_cards - {turned})
            for j in range(n):
                v = e["version"] + 1 + j
                target = (dealer + 1 + j) % n
                before, after = by_version.get(v - 1), by_version.get(v + 1)
                if target == seat or v in by_version or before is None or after is None:
                    continue
                if before.get("hash") is None or after.get("hash") is None:
                    continue  # nothing served to test a guess against
                if taker is None:
                    assert pattern.completion_without_taker is not None
                    indices = pattern.completion_without_taker[(target - dealer) % n]
                else:
                    indices = pattern.completion[(taker - dealer) % n][(target - dealer) % n]
                out.append(_search(e, before, after, v, target, indices, pattern.turned,
                                   turned, pool, extras))  # fmt: skip
    return out


def _search(
    trigger: Envelope,
    before: Envelope,
    after: Envelope,
    version: int,
    target: int,
    indices: Sequence[int],
    turned_index: int,
    turned: int,
    pool: Sequence[int],
    extras: Sequence[dict[str, Any]],
) -> Search:
    prev = bytes.fromhex(before["hash"])
    want = bytes.fromhex(after["hash"])
    tail = canonical_bytes(
        after["stream"], after["version"], after["type"], after["payload"],
        after["metadata"], after["visibility"], after["recorded_at"],
    )  # fmt: skip
    free = [i for i, x in enumerate(indices) if x != turned_index]
    found: list[tuple[str, ...]] = []
    tried = 0
    for guess in permutations(pool, len(free)):
        cards = [turned] * len(indices)
        for slot, card in zip(free, guess, strict=True):
            cards[slot] = card
        codes = [to_code(c) for c in cards]
        for extra in extras:
            tried += 1
            payload = {"type": "CardsDealt", "schema": 1, "seat": target, "cards": codes, **extra}
            body = canonical_bytes(
                trigger["stream"], version, "CardsDealt", payload, trigger["metadata"],
                f"seat:{target}", trigger["recorded_at"],
            )  # fmt: skip
            guessed = hashlib.sha256(prev + body).digest()
            if hashlib.sha256(guessed + tail).digest() == want:
                found.append(tuple(codes))
    return Search(version, target, tried, tuple(found))
