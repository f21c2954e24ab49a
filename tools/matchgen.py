"""Recorded matches without the table service: bots play a whole match with the pure cores
(``belot`` and ``fairdeal.fairness``), decks from ``fairdeal.Shuffler``, and either a real
quicknet beacon (round 1001 from tests/data) or the 5-second fallback (round 1002, declared
missed; its real beacon from tests/data is the late value of ``fallback_late``).

``generate(spec)`` gives the appends both streams receive, in the order the services
would make them (the randomness service's events and the table's, interleaved in time).
From there:

- ``offline_record(spec)``: the record built in memory, envelopes hashed with
  ``eventlog.envelope`` (positions, versions, times from a virtual clock), for unit tests;
- ``await write(store, appends)`` then ``await stored_record(store, match_id)``: the same
  match appended to a real event log and read back, for the service's tests.

Deterministic: every seed and the bots' generator come from SHA-256 of the spec's
``label`` (the first dealer from the rule, :func:`belot.first_dealer`); times come from a
virtual clock that starts the round's lead (``fairness.ROUND_LEAD_MS``) and 2.5 s
before the round named is due (so that the rule names 1001, whose beacon we have,
or 1002 for a fallback, or the spec's ``named_round``). Every match of one kind makes the
same round fact, so many matches can share one log.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from belot import (
    RULESETS,
    SupplyDeck,
    decide,
    due,
    evolve,
    first_dealer,
    new_match,
    started_event,
    view,
)
from belot.bots import choose
from belot.cards import Card
from belot.codec import to_payload as belot_payload
from belot.commands import Command
from belot.errors import RulesError
from belot.events import CardPlayed, DealScored, Event
from belot.match import DueKind, Phase
from belot.ruleset import Ruleset
from belot.seats import side_of
from eventkit import visibility_of
from eventkit.envelope import GENESIS_HASH, canonical_bytes, chain_hash
from eventlog import EventStore, NewEvent
from fairdeal import Shuffler, fairness, receipts
from fairdeal.chains import QUICKNET
from fairdeal.fairness import (
    ROUND_LEAD_MS,
    Fairness,
    FairnessEvent,
    SeatSpec,
    decide_round,
    issue_deck,
    late_beacon,
    open_match,
    reveal,
    round_resolved,
    round_stream,
    submit_seed,
)
from fairdeal.leave import leave_message
from fairdeal.record import build_record, drand_stream_of, match_stream, randomness_stream
from tools.drand_vectors import QUICKNET_BEACONS

BEACON_ROUND = 1001
#: The round a fallback match names (declared missed; its real beacon comes late).
MISSED_ROUND = 1002


def start_of(round_: int, round_lead_ms: int = ROUND_LEAD_MS) -> int:
    """When a match that names ``round_`` opens: the lead and 2.5 s before the round is
    due, so seeds sent or a window closed in the next 2.5 s make the rule name ``round_``
    (the round before is due at or before the lead after them)."""
    return QUICKNET.time_of_round(round_) * 1000 - round_lead_ms - 2_500


#: When a match naming round 1001 opens (with the lead of 6 s: half a second into 998).
START_MS = start_of(BEACON_ROUND)
#: The beacon's value is recorded this long after its round was due.
BEACON_AFTER_MS = 250
#: The fallback is recorded this long after the round was due.
MISSED_AFTER_MS = 5_020
WINDOW_MS = 20_000
FALLBACK_REASON = "no verified drand value by the round's due time + 5 s"
_SIGNATURES = {b["round"]: bytes.fromhex(b["signature"]) for b in QUICKNET_BEACONS}


@dataclass(frozen=True)
class MatchSpec:
    match_id: str = "gen-1"
    ruleset: str = "club"
    #: Seeds, first dealer and bots derive from this text.
    label: str = "matchgen"
    #: A player id per seat, None for a bot; default: humans at seats 0 (and 2).
    players: tuple[str | None, ...] | None = None
    #: "beacon" (round 1001 in time), "fallback", or "fallback_late" (a value comes late).
    drand: str = "beacon"
    level: str = "medium"
    #: Who asks for an abort (``end="abort"``).
    aborted_by: str = "operator:ops"
    #: Attacks: a seat's seed chosen by hand (by seat), and a first dealer written by hand
    #: instead of the rule's (the game is then played from that dealer, consistently).
    seat_seeds: tuple[tuple[int, bytes], ...] = ()
    first_dealer: int | None = None
    #: Attacks on the player's tab (tests/unit/test_tab_attacks.py), each record kept
    #: consistent: the round the match names (the match starts at ``start_of`` it;
    #: default 1001 with drand, 1002 for a fallback; recorded beacons:
    #: 1000-1003), a made-up beacon signature dealt from instead of drand's, human seats
    #: whose seed the server takes and never records (the window then closes at its end,
    #: so ``window_ms`` short enough to name a recorded round), and the window's length.
    named_round: int | None = None
    beacon_signature: bytes | None = None
    dropped_seeds: tuple[int, ...] = ()
    window_ms: int = WINDOW_MS
    #: The lead of the round the commitment records (0: as a match before the lead).
    round_lead_ms: int = ROUND_LEAD_MS
    #: "natural" (MatchEnded), "forfeit" (MatchForfeited), "abort" (MatchAborted a few
    #: cards into a deal), "abort_early" (MatchAborted while the seed window is open,
    #: before the round is named: the last human seat's seed comes after it, as a tab
    #: still sends it) or "abort_after_value" (an attack: MatchAborted once drand's value
    #: is in, before the first deck went out, when the server could compute every deck).
    end: str = "natural"
    #: Forfeit or abort a few cards into the deal after this many deals were scored.
    after_deals: int = 2
    #: The seat that leaves (``end="forfeit"``): a human's, as only a player can leave.
    leaver: int = 0
    #: How the forfeit is asked for (fairdeal.leave): "signed" (the seat's own signed
    #: request, with the key its page made), or, as attacks, "unsigned" (the server
    #: writes the forfeit with no signature) and "server_key" (the commitment records a
    #: key the server made instead of the seat's, and the server signs the leave).
    leave: str = "signed"
    #: The commitment promises signed leaves (False: a record of the rule before them).
    signed_leaves: bool = True
    #: The commitment records a receipt key (False: a record made before signed receipts).
    signed_receipts: bool = True
    #: Every n-th seat move is marked as made by the timer (metadata only); 0: none.
    timer_every: int = 7
    target: int | None = None
    #: The salts of the hidden events (belot.salts); False: a record of the rule before
    #: them (no salts promised, none in the events).
    salted: bool = True

    def seats(self) -> tuple[str | None, ...]:
        if self.players is not None:
            return self.players
        n = RULESETS[self.ruleset].players
        return ("ann", None, "bob", None) if n == 4 else ("ann", None)


@dataclass(frozen=True)
class Append:
    stream: str
    events: tuple[NewEvent, ...]
    at_ms: int


def _digest(spec: MatchSpec, what: str) -> bytes:
    return hashlib.sha256(f"matchgen/v1|{spec.label}|{what}".encode()).digest()


def _seat_private_key(spec: MatchSpec, seat: int, *, recorded: bool) -> Ed25519PrivateKey:
    """The key seat ``seat``'s page made (or, ``recorded`` under the "server_key"
    attack for the leaver, the one the server recorded in its place)."""
    forged = recorded and spec.leave == "server_key" and seat == spec.leaver
    what = f"server-key-{seat}" if forged else f"seat-key-{seat}"
    return Ed25519PrivateKey.from_private_bytes(_digest(spec, what))


def seat_key_of(spec: MatchSpec, seat: int, *, recorded: bool = False) -> bytes:
    """Seat ``seat``'s public key: the page's own, or (``recorded``) the commitment's."""
    public = _seat_private_key(spec, seat, recorded=recorded).public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def receipt_secret_of(spec: MatchSpec) -> bytes:
    """The match's private receipt key (fairdeal.receipts), as the randomness service
    would have drawn it (here from the label, so that a record is made again the same)."""
    return _digest(spec, "receipt-key")


def leave_signature_of(spec: MatchSpec) -> str:
    """The forfeit's signature, hex: the leaver's over its leave, or the attack's."""
    if spec.leave == "unsigned":
        return ""
    key = _seat_private_key(spec, spec.leaver, recorded=True)
    return key.sign(leave_message(spec.match_id, spec.leaver)).hex()


def server_seed_of(spec: MatchSpec) -> bytes:
    return _digest(spec, "server-seed")


def seat_seed_of(spec: MatchSpec, seat: int) -> bytes:
    """The seed ``seat`` sends in ``spec``'s match (unless the spec chose one)."""
    return _digest(spec, f"seat-seed-{seat}")[:16]


def _started(state: Any) -> tuple[str, dict[str, Any], str]:
    e = started_event(state)
    return e.TYPE, belot_payload(e), visibility_of(e)


class Diverged(Exception):
    """A move of ``moves`` that the rules refuse in the match being made: its appends up
    to there are ``appends``."""

    def __init__(self, appends: list[Append]) -> None:
        super().__init__(f"a move is refused after {len(appends)} appends")
        self.appends = appends


def generate(
    spec: MatchSpec,
    *,
    moves: Sequence[Command] | None = None,
    deck_of: Callable[[int, tuple[Card, ...]], tuple[Card, ...]] | None = None,
    made: list[Command] | None = None,
) -> list[Append]:
    """Both streams' appends, in log order (see the module docstring).

    For a twin of a match (the same public moves, other hidden cards): ``made`` collects
    the seats' moves as they are made; ``moves`` plays those instead of the bots, and
    ``deck_of(k, deck)`` deals another deck in their place (its salts stay the recipe's);
    a move the rules then refuse raises :class:`Diverged`."""
    played = iter(moves) if moves is not None else None
    rules = RULESETS[spec.ruleset]
    n = rules.players
    players = spec.seats()
    assert len(players) == n, f"{spec.ruleset} seats {n}"
    mstream, rstream = match_stream(spec.match_id), randomness_stream(spec.match_id)
    appends: list[Append] = []
    fair = Fairness()
    now = START_MS

    def fapply(events: list[FairnessEvent]) -> None:
        nonlocal fair
        if not events:
            return
        appends.append(
            Append(
                rstream,
                tuple(
                    NewEvent(e.TYPE, fairness.to_payload(e), fairness.visibility(e)) for e in events
                ),
                now,
            )
        )
        for e in events:
            fair = fairness.evolve(fair, e)

    seed = server_seed_of(spec)
    seats = tuple(
        SeatSpec(i, p, seat_key_of(spec, i, recorded=True) if p is not None else b"")
        for i, p in enumerate(players)
    )
    round_ = spec.named_round or (BEACON_ROUND if spec.drand == "beacon" else MISSED_ROUND)
    now = start_of(round_, spec.round_lead_ms)
    fapply(
        open_match(
            fair,
            spec.match_id,
            hashlib.sha256(seed).digest(),
            seats,
            "quicknet",
            spec.window_ms,
            now,
            spec.round_lead_ms,
            spec.salted,
            spec.signed_leaves,
            receipts.public_key(receipt_secret_of(spec)) if spec.signed_receipts else b"",
        )
    )
    humans = [s.seat for s in seats if s.player is not None]
    for spec_seat in seats:
        if spec_seat.player is not None:
            now += 400
            if spec.end == "abort_early" and spec_seat.seat == humans[-1]:
                _abort_at_once(appends, spec, rules, mstream, now)
                now += 400
            if spec_seat.seat in spec.dropped_seeds:
                continue  # taken (and acknowledged) by the server, never recorded
            seat_seed = dict(spec.seat_seeds).get(spec_seat.seat) or seat_seed_of(
                spec, spec_seat.seat
            )
            fapply(submit_seed(fair, spec_seat.seat, spec_seat.player, seat_seed, now))
    if not fair.is_window_closed:
        now = fair.window_closes_at_ms
        fapply(fairness.close_window_if_due(fair, now))
    assert fair.drand_round == round_ and fair.drand_due_at_ms is not None, fair.drand_round
    due_ms = fair.drand_due_at_ms
    signature = spec.beacon_signature or _SIGNATURES[round_]
    randomness = hashlib.sha256(signature).digest()
    if spec.drand == "beacon":
        now = due_ms + BEACON_AFTER_MS
        fact = decide_round("quicknet", round_, (signature, randomness, None), now)
    else:
        now = due_ms + MISSED_AFTER_MS
        fact = decide_round("quicknet", round_, None, now, FALLBACK_REASON)
    appends.append(
        Append(
            round_stream("quicknet", round_),
            (NewEvent(fact.TYPE, fairness.to_payload(fact), "public"),),
            now,
        )
    )
    fapply(round_resolved(fair, fact, now))
    assert fair.is_drand_resolved

    shuffler = Shuffler(fair.deck_inputs(seed))
    dealer = first_dealer(rules, shuffler.deck(0, rules.deck_size))
    if spec.first_dealer is not None:
        dealer = spec.first_dealer
    state = new_match(rules, spec.match_id, target=spec.target, first_dealer=dealer)
    rng = random.Random(_digest(spec, "bots"))

    def mapply(events: list[Event], metadata: dict[str, Any] | None = None) -> None:
        appends.append(
            Append(
                mstream,
                tuple(
                    NewEvent(e.TYPE, belot_payload(e), visibility_of(e), dict(metadata or {}))
                    for e in events
                ),
                now,
            )
        )

    if spec.end in ("abort_early", "abort_after_value"):
        if spec.end == "abort_after_value":
            now += 1_000
            _abort_at_once(appends, spec, rules, mstream, now)
        now += 1_000
        fapply(reveal(fair, seed, True, now))
        return appends
    mapply([started_event(state)])
    moves = scored = plays_in_deal = 0
    late_pending = spec.drand == "fallback_late"
    ended_by_table = False
    while True:
        d = due(state)
        if d.kind is DueKind.NOTHING:
            break
        metadata: dict[str, Any] = {}
        command: Command
        if d.kind is DueKind.DECK:
            now += 200
            fapply(issue_deck(fair, d.deal_number, rules.deck_size, now))
            k = d.deal_number
            deck = shuffler.deck(k, rules.deck_size)
            if deck_of is not None:
                deck = deck_of(k, deck)
            command = SupplyDeck(k, deck, fair.salts(seed, k))
        else:
            assert d.seat is not None
            if played is not None:
                command = next(played, None)  # type: ignore[arg-type]
                if command is None:
                    raise Diverged(appends)
            else:
                command = choose(view(state, d.seat), rng, spec.level)
            if made is not None:
                made.append(command)
            moves += 1
            if spec.timer_every and moves % spec.timer_every == 0:
                metadata = {"acted_by": "timer"}
        try:
            events = decide(state, command)
        except RulesError:
            if played is None:
                raise
            raise Diverged(appends) from None
        now += 400
        mapply(events, metadata)
        for e in events:
            state = evolve(state, e)
            if isinstance(e, DealScored):
                scored += 1
                plays_in_deal = 0
            elif isinstance(e, CardPlayed):
                plays_in_deal += 1
        if late_pending and now >= due_ms + 7_000:
            late_pending = False
            fapply(late_beacon(fair, round_, signature, randomness, now))
        if (
            spec.end != "natural"
            and scored >= spec.after_deals
            and state.phase is Phase.PLAYING
            and plays_in_deal >= 3
        ):
            now += 1_000
            if spec.end == "forfeit":
                body: dict[str, Any] = {
                    "leaver": spec.leaver,
                    "winner_side": 1 - side_of(spec.leaver),
                    "signature": leave_signature_of(spec),
                }
                appends.append(Append(mstream, (NewEvent("MatchForfeited", body),), now))
            else:
                body = {"reason": "the table was closed by an operator", "by": spec.aborted_by}
                appends.append(Append(mstream, (NewEvent("MatchAborted", body),), now))
            ended_by_table = True
            break
    assert ended_by_table or state.phase is Phase.OVER
    now += 1_000
    fapply(reveal(fair, seed, True, now))
    return appends


def _abort_at_once(
    appends: list[Append], spec: MatchSpec, rules: Ruleset, mstream: str, now: int
) -> None:
    """As the table does when asked to abort before its first deck: the match stream
    opens (seat 0 deals: no card was dealt) and ends at once."""
    empty = new_match(rules, spec.match_id, target=spec.target)
    abort = {"reason": "the table was closed by an operator", "by": spec.aborted_by}
    appends.append(
        Append(mstream, (NewEvent(*_started(empty)), NewEvent("MatchAborted", abort)), now)
    )


# --- offline: envelopes in memory -------------------------------------------------------------


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=(ms % 1000) * 1000)


def envelopes(appends: list[Append]) -> dict[str, list[dict[str, Any]]]:
    """Each stream's envelopes as the log would store them: global positions in append
    order, versions from 1, the batch's time as recorded_at, the hash chain."""
    out: dict[str, list[dict[str, Any]]] = {}
    heads: dict[str, bytes] = {}
    position = 0
    for a in appends:
        stream = out.setdefault(a.stream, [])
        at = _time(a.at_ms)
        for e in a.events:
            position += 1
            version = len(stream) + 1
            metadata = {**e.metadata, "producer": "matchgen"}
            prev = heads.get(a.stream, GENESIS_HASH)
            h = chain_hash(
                prev,
                canonical_bytes(a.stream, version, e.type, e.payload, metadata, e.visibility, at),
            )
            heads[a.stream] = h
            stream.append(
                {
                    "position": position,
                    "stream": a.stream,
                    "version": version,
                    "type": e.type,
                    "payload": e.payload,
                    "metadata": metadata,
                    "visibility": e.visibility,
                    "recorded_at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                    "hash": h.hex(),
                }
            )
    return out


def offline_record(spec: MatchSpec) -> dict[str, Any]:
    """The record of ``spec``'s match, built in memory; plain JSON values throughout."""
    streams = envelopes(generate(spec))
    randomness = streams[randomness_stream(spec.match_id)]
    record = build_record(
        spec.match_id,
        streams[match_stream(spec.match_id)],
        randomness,
        streams.get(drand_stream_of(randomness) or "", []),
    )
    result: dict[str, Any] = json.loads(json.dumps(record))
    return result


def deal_count(spec: MatchSpec) -> int:
    return sum(1 for a in generate(spec) for e in a.events if e.type == "DeckSupplied")


def spec_with_deals(deals: int, spec: MatchSpec, tries: int = 200) -> MatchSpec:
    """The first spec (labels ``<label>-0``, ``-1``, ...) whose match has ``deals`` decks."""
    for i in range(tries):
        candidate = replace(spec, label=f"{spec.label}-{i}")
        if deal_count(candidate) == deals:
            return candidate
    raise LookupError(f"no match with {deals} deals in {tries} tries")


# --- online: a real event log ---------------------------------------------------------------


async def write(store: EventStore, appends: list[Append]) -> None:
    """Append everything to ``store``, each stream with its expected versions. A drand
    round's fact already in the log (another generated match named the same round) is
    kept: it must be the same fact."""
    versions: dict[str, int] = {}
    for a in appends:
        if a.stream.startswith("drand-") and a.stream not in versions:
            known = await store.read_stream(a.stream)
            if known:
                assert [e.type for e in known[:1]] == [a.events[0].type], a.stream
                versions[a.stream] = known[-1].version
                continue
        v = versions.get(a.stream, 0)
        result = await store.append(a.stream, v, list(a.events))
        versions[a.stream] = result.last_version


async def stored_record(store: EventStore, match_id: str) -> dict[str, Any]:
    """The record of ``match_id`` read back from the log."""
    m = await store.read_stream(match_stream(match_id))
    r = [e.to_json_dict() for e in await store.read_stream(randomness_stream(match_id))]
    drand = drand_stream_of(r)
    d = [] if drand is None else await store.read_stream(drand)
    record = build_record(match_id, [e.to_json_dict() for e in m], r, [e.to_json_dict() for e in d])
    result: dict[str, Any] = json.loads(json.dumps(record))
    return result
