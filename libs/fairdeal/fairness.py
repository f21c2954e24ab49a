"""The fair deal of one match as an event-sourced aggregate (docs/specification.md §6), pure.

The randomness service decides commands against this state and appends the events; the
verifier replays the same events. Times are whole unix milliseconds from the service's
clock, passed in (no clock here; integers because the event log hashes exact JSON).
The server seed itself never enters this state until :class:`ServerSeedRevealed`: the
service keeps it in its private store and hands in only the commitment.

Order of events for a match (stream ``randomness-<match id>``)::

    ServerSeedCommitted                      public: the commitment, the seats, the window's
                                             end and the last round the match may name
    SeatSeedReceived*                        private to the seat until the window closes
    SeedWindowClosed                         public: every seat's seed (absent ones empty)
    DrandRoundNamed                          public: the first round due more than the
                                             lead after the seeds were in (:func:`round_named_for`)
    DrandBeaconVerified | DrandFallback      public: the value, or round 0 / zeros and why
    DrandBeaconLate?                         public: a value that came after the fallback
    DeckIssued*                              public: deal numbers whose deck went out
    ServerSeedRevealed                       public, only once the match has ended

Whether a round's value came in time is not a match's to decide: it is one public fact
about the round, the first and only event of the round's own stream
(``drand-<chain>-<round>``, :func:`round_stream`): :class:`DrandRoundBeacon` (the value
came by its due time + 5 s) or :class:`DrandRoundMissed`. Every match that named the
round follows that fact (:func:`round_resolved`), so a fallback can never be one match's
free second deck: it is every match of that round dealt without drand, in public.

Why ``last_round``: the commitment fixes, before any seat sends a seed, the latest round
the match may name (the first round after the window's end). A server that holds the
window open to wait for a round whose value it likes can only choose among the rounds up
to that one, and the verifier and the player's tab both check the bound.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Final

from belot.salts import salt_count
from eventkit import SEAT, Codec, visibility_of
from eventkit.streams import MATCH_ENDINGS, drand_stream
from fairdeal.chains import CHAINS
from fairdeal.leave import KEY_SIZE as LEAVE_KEY_SIZE
from fairdeal.receipts import KEY_SIZE as RECEIPT_KEY_SIZE
from fairdeal.recipe import (
    DRAND_VALUE_SIZE,
    MAX_DEAL,
    MAX_SEATS,
    SEAT_SEED_SIZE,
    SERVER_SEED_SIZE,
    DeckInputs,
    Drand,
    deal_salts,
)

#: docs/specification.md §6.4: the match falls back when drand's value is this late.
DRAND_GRACE_MS: Final = 5_000
#: The lead of the round named, docs/specification.md §6.3: the match names the first round
#: due more than this after its window closed. Its sum: the transparency log signs a
#: checkpoint holding the naming within BELOT_TRANSLOG_INTERVAL (1 s) of its commit, a
#: witness polling every second (``belot witness run --interval``, 1 s by default) fetches
#: and cosigns it within another second, and 4 s are margin for the requests, a busy
#: signer or witness, and a witness whose clock runs a little ahead. Two quicknet periods:
#: the round is due 6-9 s after the window closed, which delays a match's first deal by
#: as much, a cost paid once per match. (``tests/integration/test_witness.py`` plays a
#: match in real time: the naming is cosigned about a second after it.)
ROUND_LEAD_MS: Final = 6_000
#: The longest lead a commitment may record: a longer one only delays the match (a minute
#: is ten times what a witness needs), and a bound keeps a typo from stalling it for hours.
MAX_ROUND_LEAD_MS: Final = 60_000
#: The longest seed window a match may commit to (the randomness service refuses more).
#: With quicknet's 3-second rounds it bounds the rounds a match could name: at most
#: ``MAX_SEED_WINDOW_MS / 3000 + 1``.
MAX_SEED_WINDOW_MS: Final = 600_000

PUBLIC: Final = "public"

#: Event types of a match's own stream (``match-<id>``) after which its server seed may be
#: revealed: the game's end, a forfeit (a seat left), or an abort by the table service.
MATCH_ENDING_EVENTS: Final = MATCH_ENDINGS


def seat_visibility(seat: int) -> str:
    return f"seat:{seat}"


# --- events -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat of the match: a human (``player`` sends the seed) or a bot (sends none)."""

    seat: int
    player: str | None  # None for a bot
    #: The seat's Ed25519 public key (:mod:`fairdeal.leave`), which its page made and
    #: sent with the seat; its signature is how the seat asks to leave. Empty for a bot,
    #: for a client that sent none, and in records made before keys.
    key: bytes = b""

    @property
    def is_human(self) -> bool:
        return self.player is not None


@dataclass(frozen=True, slots=True)
class ServerSeedCommitted:
    TYPE: ClassVar[str] = "ServerSeedCommitted"
    match_id: str
    commitment: bytes
    seats: tuple[SeatSpec, ...]
    chain: str
    window_closes_at_ms: int
    #: The last drand round the match may name: the rule's round for a window closed at
    #: its end, :func:`last_round_for` (0 in records made before the bound existed: such a
    #: record cannot pass).
    last_round: int
    at_ms: int
    #: The lead of the round the match names (:data:`ROUND_LEAD_MS`, :func:`round_named_for`).
    #: A fact of the commitment rather than a rule of the code, fixed with the window and
    #: the last round before any seed: a checker reads the rule a record was made under
    #: from the record (0 in records made before the lead: the rule then, the next round),
    #: so every record verifies under the rule it was made with, without a date or version
    #: switch, and another lead (a slower chain, a log signing less often) needs no new
    #: checker. It bounds nothing an attacker wants: the server picks it before any seed,
    #: like the window, and a short one only leaves the witnesses no time, which
    #: ``log_timing`` then shows; naming an earlier round than it says fails the verifier.
    round_lead_ms: int = 0
    #: Every hidden event of the match (a deck, a seat's cards) carries a salt made from
    #: the server seed (:mod:`belot.salts`, :func:`fairdeal.recipe.deal_salts`), which the
    #: verifier recomputes once the seed is revealed. Promised here, before any seed, as
    #: the lead is: a record says which rule it was made under (false in records made
    #: before salts), and the player's tab refuses a match that does not promise them.
    salted: bool = False
    #: A forfeit needs the leaver's signature (:mod:`fairdeal.leave`) with the key this
    #: commitment records for its seat. Promised here, before any seed, as the salts are
    #: (false in records made before keys, whose forfeits a checker cannot hold to it).
    signed_leaves: bool = False
    #: The match's receipt key (:mod:`fairdeal.receipts`): the public half of the
    #: Ed25519 key the randomness service drew for this match, which signs each seat's
    #: receipt for its seed. Empty in records made before signed receipts.
    receipt_key: bytes = b""


@dataclass(frozen=True, slots=True)
class SeatSeedReceived:
    TYPE: ClassVar[str] = "SeatSeedReceived"
    VISIBILITY: ClassVar[str] = SEAT  # the seat's own, until the window closes
    seat: int
    seed: bytes
    at_ms: int


@dataclass(frozen=True, slots=True)
class SeedWindowClosed:
    TYPE: ClassVar[str] = "SeedWindowClosed"
    seat_seeds: tuple[bytes, ...]  # in seat order, b"" for a bot or a seat that sent none
    missing: tuple[int, ...]  # human seats that sent no seed in time
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandRoundNamed:
    TYPE: ClassVar[str] = "DrandRoundNamed"
    chain: str
    round: int
    due_at_ms: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandBeaconVerified:
    TYPE: ClassVar[str] = "DrandBeaconVerified"
    round: int
    signature: bytes
    randomness: bytes
    previous_signature: bytes | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandFallback:
    TYPE: ClassVar[str] = "DrandFallback"
    round: int  # the round that was named and did not arrive in time
    reason: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandBeaconLate:
    TYPE: ClassVar[str] = "DrandBeaconLate"
    round: int
    signature: bytes
    randomness: bytes
    at_ms: int


@dataclass(frozen=True, slots=True)
class DeckIssued:
    TYPE: ClassVar[str] = "DeckIssued"
    deal: int
    cards: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class ServerSeedRevealed:
    TYPE: ClassVar[str] = "ServerSeedRevealed"
    server_seed: bytes
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandRoundBeacon:
    """A round's value came, verified, by its due time + 5 s: every match that named the
    round is dealt from it. The first event of the round's stream."""

    TYPE: ClassVar[str] = "DrandRoundBeacon"
    chain: str
    round: int
    signature: bytes
    randomness: bytes
    previous_signature: bytes | None
    at_ms: int


@dataclass(frozen=True, slots=True)
class DrandRoundMissed:
    """No verified value of the round by its due time + 5 s: every match that named it is
    dealt without drand. The first event of the round's stream."""

    TYPE: ClassVar[str] = "DrandRoundMissed"
    chain: str
    round: int
    due_at_ms: int
    reason: str
    at_ms: int


RoundFact = DrandRoundBeacon | DrandRoundMissed

FairnessEvent = (
    ServerSeedCommitted
    | SeatSeedReceived
    | SeedWindowClosed
    | DrandRoundNamed
    | DrandBeaconVerified
    | DrandFallback
    | DrandBeaconLate
    | DeckIssued
    | ServerSeedRevealed
    | DrandRoundBeacon
    | DrandRoundMissed
)

EVENT_TYPES: Final[dict[str, type[Any]]] = {
    cls.TYPE: cls
    for cls in (
        ServerSeedCommitted,
        SeatSeedReceived,
        SeedWindowClosed,
        DrandRoundNamed,
        DrandBeaconVerified,
        DrandFallback,
        DrandBeaconLate,
        DeckIssued,
        ServerSeedRevealed,
        DrandRoundBeacon,
        DrandRoundMissed,
    )
}


def round_stream(chain: str, round_: int) -> str:
    """The stream holding the one public fact about a drand round."""
    return drand_stream(chain, round_)


def visibility(event: FairnessEvent) -> str:
    """Who may see the event while the match runs: a seat's own seed is private to it
    until the window closes (then SeedWindowClosed shows all); everything else is public
    (each event's VISIBILITY, :func:`eventkit.visibility_of`)."""
    return visibility_of(event)


# --- codec: JSON-able payloads, bytes as hex ----------------------------------------


def _refused(code: str, message: str) -> FairnessError:
    return FairnessError(code, message)


#: The events as the log stores them: their fields, bytes as lower-case hex, no type or
#: schema number in the payload (their first shape); the event kit's one codec
#: (:mod:`eventkit.codec`) derives the rest from the fields' types.
CODEC: Final = Codec(
    EVENT_TYPES.values(),
    converters={bytes: (bytes.hex, bytes.fromhex)},
    schema_field=False,
    error=_refused,
)


def to_payload(event: FairnessEvent) -> dict[str, Any]:
    return CODEC.to_payload(event)


def from_payload(event_type: str, payload: dict[str, Any]) -> FairnessEvent:
    """Rebuild an event; raises FairnessError on an unknown type or a malformed payload."""
    if event_type == ServerSeedCommitted.TYPE:
        # Upcast: commitments recorded before the bound existed fixed no last round, and
        # those recorded before the lead named the next round (a lead of 0).
        payload = {"last_round": 0, "round_lead_ms": 0, **payload}
    event: FairnessEvent = CODEC.from_payload(payload, event_type)
    return event


def round_fact_from_payload(event_type: str, payload: dict[str, Any]) -> RoundFact:
    """The fact a round's stream opens with; raises FairnessError for anything else."""
    event = from_payload(event_type, payload)
    if not isinstance(event, DrandRoundBeacon | DrandRoundMissed):
        raise FairnessError("bad_payload", f"{event_type} is not a drand round's fact")
    return event


# --- errors -------------------------------------------------------------------------


class FairnessError(ValueError):
    """A command the fair-deal rules refuse; ``code`` is stable, the message plain words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- state --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fairness:
    match_id: str = ""
    commitment: bytes = b""
    seats: tuple[SeatSpec, ...] = ()
    chain: str = ""
    window_closes_at_ms: int = 0
    last_round: int = 0
    round_lead_ms: int = 0
    salted: bool = False
    signed_leaves: bool = False
    receipt_key: bytes = b""
    received: dict[int, bytes] = field(default_factory=dict)
    seat_seeds: tuple[bytes, ...] | None = None  # set when the window closes
    seeds_in_at_ms: int | None = None
    drand_round: int | None = None
    drand_due_at_ms: int | None = None
    drand: Drand | None = None  # the value dealt from (None: not yet, or fallback)
    drand_signature: bytes | None = None
    fallback: bool = False
    late_recorded: bool = False
    decks_issued: tuple[int, ...] = ()
    server_seed: bytes | None = None  # only once revealed

    @property
    def is_open(self) -> bool:
        return bool(self.match_id)

    @property
    def is_window_closed(self) -> bool:
        return self.seat_seeds is not None

    @property
    def is_drand_resolved(self) -> bool:
        return self.drand is not None or self.fallback

    @property
    def is_revealed(self) -> bool:
        return self.server_seed is not None

    def deck_inputs(self, server_seed: bytes) -> DeckInputs:
        """The recipe's inputs, once fixed; the caller brings the server seed."""
        if self.seat_seeds is None or not self.is_drand_resolved:
            raise FairnessError("inputs_not_fixed", "the seeds or the drand value are not in yet")
        return DeckInputs(server_seed, self.seat_seeds, self.drand)

    def salts(self, server_seed: bytes, deal: int) -> tuple[bytes, ...]:
        """Deal ``deal``'s salts of its hidden events (none for a match that did not
        promise them); the caller brings the server seed."""
        if not self.salted:
            return ()
        return deal_salts(server_seed, deal, salt_count(len(self.seats)))


def evolve(state: Fairness, event: FairnessEvent) -> Fairness:
    match event:
        case ServerSeedCommitted():
            return replace(
                state,
                match_id=event.match_id,
                commitment=event.commitment,
                seats=event.seats,
                chain=event.chain,
                window_closes_at_ms=event.window_closes_at_ms,
                last_round=event.last_round,
                round_lead_ms=event.round_lead_ms,
                salted=event.salted,
                signed_leaves=event.signed_leaves,
                receipt_key=event.receipt_key,
            )
        case SeatSeedReceived():
            return replace(state, received={**state.received, event.seat: event.seed})
        case SeedWindowClosed():
            return replace(state, seat_seeds=event.seat_seeds, seeds_in_at_ms=event.at_ms)
        case DrandRoundNamed():
            return replace(state, drand_round=event.round, drand_due_at_ms=event.due_at_ms)
        case DrandBeaconVerified():
            return replace(
                state, drand=Drand(event.round, event.randomness), drand_signature=event.signature
            )
        case DrandFallback():
            return replace(state, fallback=True)
        case DrandBeaconLate():
            return replace(state, late_recorded=True)
        case DeckIssued():
            return replace(state, decks_issued=(*state.decks_issued, event.deal))
        case ServerSeedRevealed():
            return replace(state, server_seed=event.server_seed)
        case DrandRoundBeacon() | DrandRoundMissed():
            return state  # facts of a round's own stream, not of a match's
    raise FairnessError("unknown_event", f"cannot apply {type(event).__name__}")


def replay(events: list[FairnessEvent]) -> Fairness:
    state = Fairness()
    for event in events:
        state = evolve(state, event)
    return state


# --- decisions ----------------------------------------------------------------------


def open_match(
    state: Fairness,
    match_id: str,
    commitment: bytes,
    seats: tuple[SeatSpec, ...],
    chain: str,
    window_ms: int,
    now_ms: int,
    round_lead_ms: int = ROUND_LEAD_MS,
    salted: bool = True,
    signed_leaves: bool = True,
    receipt_key: bytes = b"",
) -> list[FairnessEvent]:
    """Commit to the server seed, with the window's end, the lead of the round to name,
    the last round it allows, and the salts of the hidden events (``salted``: False only
    to make a record of the rule before them). When no seat is human the window closes
    at once."""
    if state.is_open:
        raise FairnessError("match_exists", f"match {state.match_id} is already open")
    if len(commitment) != 32:
        raise FairnessError("bad_commitment", "a commitment is a 32-byte SHA-256")
    if not 1 <= len(seats) <= MAX_SEATS or [s.seat for s in seats] != list(range(len(seats))):
        raise FairnessError("bad_seats", "seats must be numbered 0, 1, 2, ... (1 to 255 of them)")
    if not 0 < window_ms <= MAX_SEED_WINDOW_MS:
        raise FairnessError(
            "bad_window", f"the seed window must be 1..{MAX_SEED_WINDOW_MS} milliseconds"
        )
    if not 0 <= round_lead_ms <= MAX_ROUND_LEAD_MS:
        raise FairnessError(
            "bad_round_lead", f"the round's lead must be 0..{MAX_ROUND_LEAD_MS} milliseconds"
        )
    if chain not in CHAINS:
        raise FairnessError("unknown_chain", f"no drand chain named {chain!r}")
    if any(s.key and (not s.is_human or len(s.key) != LEAVE_KEY_SIZE) for s in seats):
        raise FairnessError(
            "bad_key", f"a seat's key is a human's {LEAVE_KEY_SIZE}-byte Ed25519 public key"
        )
    if receipt_key and len(receipt_key) != RECEIPT_KEY_SIZE:
        raise FairnessError(
            "bad_key", f"the receipt key is a {RECEIPT_KEY_SIZE}-byte Ed25519 public key"
        )
    closes = now_ms + window_ms
    opened = ServerSeedCommitted(
        match_id,
        commitment,
        seats,
        chain,
        closes,
        last_round_for(chain, closes, round_lead_ms),
        now_ms,
        round_lead_ms,
        salted,
        signed_leaves,
        receipt_key,
    )
    events: list[FairnessEvent] = [opened]
    if not any(s.is_human for s in seats):
        events += _close_window(evolve(state, opened), now_ms)
    return events


def submit_seed(
    state: Fairness, seat: int, player: str, seed: bytes, now_ms: int
) -> list[FairnessEvent]:
    """A human seat's seed, from that seat's own player, once, while the window is open."""
    if not state.is_open:
        raise FairnessError("unknown_match", "no such match")
    if not 0 <= seat < len(state.seats):
        raise FairnessError("unknown_seat", f"the match has no seat {seat}")
    spec = state.seats[seat]
    if not spec.is_human:
        raise FairnessError("bot_seat", f"seat {seat} is a bot's: it sends no seed")
    if spec.player != player:
        raise FairnessError("not_your_seat", f"seat {seat} is not yours")
    if len(seed) != SEAT_SEED_SIZE:
        raise FairnessError(
            "seed_wrong_length", f"a seat seed is {SEAT_SEED_SIZE} bytes, this one is {len(seed)}"
        )
    if state.is_window_closed or now_ms >= state.window_closes_at_ms:
        raise FairnessError("seed_window_closed", "the seed window has closed")
    if seat in state.received:
        raise FairnessError("seed_already_sent", f"seat {seat} has already sent its seed")
    events: list[FairnessEvent] = [SeatSeedReceived(seat, seed, now_ms)]
    after = evolve(state, events[0])
    if all(s.seat in after.received for s in state.seats if s.is_human):
        events += _close_window(after, now_ms)
    return events


def close_window_if_due(state: Fairness, now_ms: int) -> list[FairnessEvent]:
    """Close the seed window once its time has come; missing seeds are recorded absent."""
    if not state.is_open or state.is_window_closed or now_ms < state.window_closes_at_ms:
        return []
    return _close_window(state, now_ms)


def _close_window(state: Fairness, now_ms: int) -> list[FairnessEvent]:
    seeds = tuple(state.received.get(s.seat, b"") for s in state.seats)
    missing = tuple(s.seat for s in state.seats if s.is_human and s.seat not in state.received)
    chain = CHAINS[state.chain]
    # A window closed by its timer closes at its end, however late the timer ran, so the
    # round named can never pass the last round the commitment allowed. (A timer run
    # long after the end names a round whose value may be out: the tabs see that.)
    closed_at = min(now_ms, state.window_closes_at_ms)
    round_ = round_named_for(chain.name, closed_at, state.round_lead_ms)
    return [
        SeedWindowClosed(seeds, missing, closed_at),
        DrandRoundNamed(chain.name, round_, chain.time_of_round(round_) * 1000, now_ms),
    ]


def round_named_for(chain: str, closed_at_ms: int, round_lead_ms: int) -> int:
    """The round a match whose seed window closed at ``closed_at_ms`` names: the first
    round of ``chain`` due more than ``round_lead_ms`` after it (strictly: a round due
    exactly then is out then). A lead of 0 is the rule before the lead: the next round."""
    return CHAINS[chain].next_round_after_ms(closed_at_ms + round_lead_ms)


def last_round_for(chain: str, window_closes_at_ms: int, round_lead_ms: int) -> int:
    """The last round a match whose window ends then may name: the rule's round for a
    window closed at its end (a window that closes early names an earlier one)."""
    return round_named_for(chain, window_closes_at_ms, round_lead_ms)


def decide_round(
    chain: str,
    round_: int,
    beacon: tuple[bytes, bytes, bytes | None] | None,
    now_ms: int,
    reason: str = "no verified drand value by the round's due time + 5 s",
) -> RoundFact:
    """The one fact about a round: ``beacon`` (signature, randomness, previous signature;
    the caller verified the signature) came in time, or it did not. Raises FairnessError
    when it is too early to say that a round was missed."""
    c = CHAINS.get(chain)
    if c is None:
        raise FairnessError("unknown_chain", f"no drand chain named {chain!r}")
    due_ms = c.time_of_round(round_) * 1000
    if beacon is not None and now_ms < due_ms + DRAND_GRACE_MS:
        signature, randomness, previous = beacon
        if len(randomness) != DRAND_VALUE_SIZE:
            raise FairnessError("bad_randomness", "drand randomness is 32 bytes")
        return DrandRoundBeacon(chain, round_, signature, randomness, previous, now_ms)
    if now_ms < due_ms + DRAND_GRACE_MS:
        raise FairnessError("not_due", f"round {round_} is not due + 5 s yet")
    return DrandRoundMissed(chain, round_, due_ms, reason, now_ms)


def round_resolved(state: Fairness, fact: RoundFact, now_ms: int) -> list[FairnessEvent]:
    """The match follows its named round's public fact: dealt from its value, or without
    drand. A match never decides this for itself."""
    if state.drand_round is None or fact.round != state.drand_round or fact.chain != state.chain:
        raise FairnessError(
            "wrong_round", f"{fact.chain} round {fact.round} is not the round this match named"
        )
    if state.is_drand_resolved:
        return []
    if isinstance(fact, DrandRoundBeacon):
        return [
            DrandBeaconVerified(
                fact.round, fact.signature, fact.randomness, fact.previous_signature, fact.at_ms
            )
        ]
    return [DrandFallback(fact.round, fact.reason, max(now_ms, fact.at_ms))]


def late_beacon(
    state: Fairness, round_: int, signature: bytes, randomness: bytes, now_ms: int
) -> list[FairnessEvent]:
    """After a fallback, a verified value that came later: recorded, never used."""
    if state.drand_round is None or round_ != state.drand_round:
        raise FairnessError("wrong_round", f"round {round_} is not the round named")
    if len(randomness) != DRAND_VALUE_SIZE:
        raise FairnessError("bad_randomness", "drand randomness is 32 bytes")
    if not state.fallback or state.late_recorded:
        return []
    return [DrandBeaconLate(round_, signature, randomness, now_ms)]


def issue_deck(state: Fairness, deal: int, cards: int, now_ms: int) -> list[FairnessEvent]:
    """Record that deal ``deal``'s deck went out; only once the inputs are fixed."""
    if not state.is_open:
        raise FairnessError("unknown_match", "no such match")
    if not state.is_window_closed or not state.is_drand_resolved:
        raise FairnessError("inputs_not_fixed", "the seeds or the drand value are not in yet")
    if state.is_revealed:
        raise FairnessError("match_over", "the match has ended: no more decks")
    if not 0 <= deal <= MAX_DEAL:
        raise FairnessError("bad_deal", f"deal number {deal} is outside 0..2^32-1")
    if cards not in (32, 24):
        raise FairnessError("bad_cards", "a deck has 32 or 24 cards")
    if deal in state.decks_issued:
        return []
    return [DeckIssued(deal, cards, now_ms)]


def reveal(
    state: Fairness, server_seed: bytes, match_ended: bool, now_ms: int
) -> list[FairnessEvent]:
    """Reveal the server seed, only once the match has ended, and only the committed one."""
    if not state.is_open:
        raise FairnessError("unknown_match", "no such match")
    if not match_ended:
        raise FairnessError("match_not_ended", "the server seed is revealed only at match end")
    if (
        len(server_seed) != SERVER_SEED_SIZE
        or hashlib.sha256(server_seed).digest() != state.commitment
    ):
        raise FairnessError("seed_mismatch", "that seed does not match the commitment")
    if state.is_revealed:
        return []
    return [ServerSeedRevealed(server_seed, now_ms)]
