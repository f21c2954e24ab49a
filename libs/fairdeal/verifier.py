"""Verify a match record: was this match dealt fairly, and played by the rules?

The one verifier: the verify service's API and ``belot verify`` both call
:func:`verify_record`. Pure (standard library and the game core): the BLS check of a drand
signature needs pairing arithmetic, which lives in ``libs/drand``, so it comes in as a
function (``bls=drand.verify``); without it the signature check is reported as skipped and
the report is not ``ok``.

The checks, in the order the report lists them (each passes, fails saying what differs,
or is skipped when what it needs failed or is missing):

``hash_chain``      both streams: versions 1, 2, 3, ..., each event's hash recomputed from
                    the canonical bytes and the previous hash (:mod:`fairdeal.eventchain`)
``events``          every event decodes, streams start as they must, visibilities are the
                    rules', one ending event, nothing after it
``summary``         the record's summary fields are exactly what the events say
``commitment``      SHA-256 of the revealed server seed is the commitment made first
``seat_seeds``      each seat's seed as shown is the one the seat sent (bots: none), sent
                    while the window was open
``drand_round``     the named round is the rule's (:func:`fairdeal.fairness.round_named_for`):
                    the first due more than the commitment's lead after the seeds were
                    in, from the recorded times (``SeedWindowClosed.at_ms``; no recorded
                    lead: 0, the rule before it); an earlier round fails (it may have been
                    out when named); no later than the last round the commitment allowed,
                    which is the rule's round for the window's end; the window and the
                    lead are no longer than the longest allowed
``drand_beacon``    the chain is the pinned one; randomness = SHA-256(signature); the value
                    came in time; or the fallback came no earlier than due + 5 s, and a
                    late value no earlier than the fallback
``drand_fact``      the round's one public fact (its own stream, shared by every match that
                    named the round) says what the match did: its value in time, or missed
``drand_signature`` the beacon's BLS signature against the chain's public key (injected)
``decks``           each deal's deck recomputed with the recipe equals the deck dealt, the
                    randomness service issued it, and no deck was issued for a deal that
                    was never dealt (a look at cards nobody played)
``deals``           each recomputed deck, through the published deal pattern, gives exactly
                    the cards each seat was dealt (and the turned and bottom cards)
``dealer``          the first dealer is the one the published rule gives (gambler: from deal
                    0's deck; the other rulesets: seat 0), so nobody chose it
``play``            replaying with the game core: every bid and card was legal and every
                    derived event (tricks, scores, the end) is what the rules give
``score``           the result follows from the replay (a forfeit goes to the other side)
``ending``          how the match ended leaves no choice to the server: an abort after a
                    deck went out fails (the cards were known when it was thrown away)
``reveal``          the server seed was revealed once, after the match's end

What a record alone cannot show, the verify API adds from the whole log (a commitment
used by two matches, a round whose matches disagree); see ``services/verify``.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from belot import RULESETS, Ruleset, deal_pattern, first_dealer
from belot.cards import to_code
from belot.commands import (
    Bid,
    Command,
    DeclareMelds,
    DemandRedeal,
    PlayCard,
    SupplyDeck,
    SwapTrumpSeven,
)
from belot.errors import RulesError
from belot.events import (
    BeloteAnnounced,
    BottomCardShown,
    CardPlayed,
    CardsDealt,
    ContractTaken,
    DealStarted,
    DeckSupplied,
    MatchEnded,
    MatchStarted,
    MeldDeclared,
    MisereStarted,
    Passed,
    RedealDemanded,
    TrumpSevenSwapped,
    Visibility,
)
from belot.match import Match, Phase, decide, evolve, new_match
from belot.seats import side_of
from eventkit import streams
from fairdeal.chains import CHAINS, Chain
from fairdeal.eventchain import GENESIS_HASH, chain_hash
from fairdeal.fairness import (
    DRAND_GRACE_MS,
    MAX_ROUND_LEAD_MS,
    MAX_SEED_WINDOW_MS,
    PUBLIC,
    DeckIssued,
    DrandBeaconLate,
    DrandBeaconVerified,
    DrandFallback,
    DrandRoundBeacon,
    DrandRoundMissed,
    DrandRoundNamed,
    FairnessEvent,
    SeatSeedReceived,
    SeedWindowClosed,
    ServerSeedCommitted,
    ServerSeedRevealed,
    last_round_for,
    round_named_for,
    visibility,
)
from fairdeal.recipe import (
    SEAT_SEED_SIZE,
    SERVER_SEED_SIZE,
    DeckInputs,
    Drand,
    RecipeError,
    Shuffler,
)
from fairdeal.record import (
    MATCH_FORFEITED,
    TABLE_ENDINGS,
    Decoded,
    Envelope,
    MatchItem,
    MatchRecord,
    StreamRecord,
    TableEnd,
    decode,
    drand_stream_of,
    is_match_id,
    match_stream,
    parse_record,
    randomness_stream,
    summarize_decoded,
)

REPORT_FORMAT: Final = "belot-match-verification/1"
PASS: Final = "pass"
FAIL: Final = "fail"
SKIP: Final = "skip"
CHECKS: Final = (
    "hash_chain",
    "events",
    "summary",
    "commitment",
    "seat_seeds",
    "drand_round",
    "drand_beacon",
    "drand_fact",
    "drand_signature",
    "decks",
    "deals",
    "dealer",
    "play",
    "score",
    "ending",
    "reveal",
)
CHECK_CRASHED: Final = "the check could not run on this record"
#: At most this many differences are listed per check.
MAX_DIFFERENCES: Final = 20

#: ``bls(chain, round, signature, previous_signature)`` raises (any Exception) when the
#: signature does not verify against the chain's public key. ``drand.verify`` is one.
BlsCheck = Callable[[Chain, int, bytes, bytes | None], object]


# --- the report --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Difference:
    """What differs, and where: ``recorded`` is what the record says, ``expected`` what
    it should say (either may be None when the text says it all)."""

    where: str
    what: str
    recorded: Any = None
    expected: Any = None

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "what": self.what,
            "recorded": self.recorded,
            "expected": self.expected,
        }


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # PASS, FAIL or SKIP
    detail: str
    differences: tuple[Difference, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == PASS

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "differences": [d.to_json() for d in self.differences],
        }


@dataclass(frozen=True, slots=True)
class Report:
    match_id: str
    checks: tuple[Check, ...]
    #: True: dealt with a verified drand value; False: dealt without drand (fallback);
    #: None: the record does not say.
    dealt_with_drand: bool | None
    drand_round: int | None
    fallback_reason: str | None
    bls_checked: bool

    @property
    def ok(self) -> bool:
        """Every check passed (a skipped check is not a pass)."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status == FAIL)

    @property
    def skipped(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status == SKIP)

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def with_check(self, check: Check) -> Report:
        """This report with one more check (``belot verify --drand-url`` adds one)."""
        return Report(
            self.match_id,
            (*self.checks, check),
            self.dealt_with_drand,
            self.drand_round,
            self.fallback_reason,
            self.bls_checked,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "match_id": self.match_id,
            "ok": self.ok,
            "dealt_with_drand": self.dealt_with_drand,
            "drand_round": self.drand_round,
            "fallback_reason": self.fallback_reason,
            "bls_checked": self.bls_checked,
            "failed": list(self.failed),
            "skipped": list(self.skipped),
            "checks": [c.to_json() for c in self.checks],
        }


def _pass(name: str, detail: str) -> Check:
    return Check(name, PASS, detail)


def _skip(name: str, detail: str) -> Check:
    return Check(name, SKIP, detail)


def _result(name: str, problems: Sequence[Difference], ok: str, bad: str) -> Check:
    if not problems:
        return Check(name, PASS, ok)
    shown = tuple(problems[:MAX_DIFFERENCES])
    more = len(problems) - len(shown)
    suffix = f" ({more} more not listed)" if more > 0 else ""
    return Check(name, FAIL, f"{bad}: {problems[0].where}: {problems[0].what}{suffix}", shown)


# --- entry points --------------------------------------------------------------------------


def verify_record(doc: Any, *, bls: BlsCheck | None = None) -> Report:
    """Verify a record (the parsed JSON document). Raises
    :class:`~fairdeal.record.RecordError` if ``doc`` is not a record at all; everything
    else is a check in the report."""
    return verify(parse_record(doc), bls=bls)


def verify(record: MatchRecord, *, bls: BlsCheck | None = None) -> Report:
    ctx = _Context(record, bls)
    checks = tuple(_run(name, getattr(ctx, f"check_{name}")) for name in CHECKS)
    verified, fallback = ctx.one(DrandBeaconVerified), ctx.one(DrandFallback)
    dealt_with_drand = True if verified is not None else False if fallback is not None else None
    named = ctx.one(DrandRoundNamed)
    return Report(
        record.match_id,
        checks,
        dealt_with_drand,
        named.round if named is not None else None,
        fallback.reason if fallback is not None else None,
        bls is not None,
    )


def _run(name: str, check: Callable[[], Check]) -> Check:
    # Records come from anyone: a check that meets something it cannot handle fails
    # closed, saying so, rather than taking the verifier (or the API) down. The tests
    # feed mangled records and require that this never happens.
    try:
        return check()
    except Exception as exc:
        return Check(name, FAIL, f"{CHECK_CRASHED}: {type(exc).__name__}: {exc}")


# --- helpers -----------------------------------------------------------------------------


def _codes(cards: Sequence[int]) -> list[str]:
    return [to_code(c) for c in cards]


_CANONICAL: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(value: Any) -> str:
    return _CANONICAL.encode(value)


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.3f} s"


#: A summary nests about 6 levels deep; a record nested far deeper is not compared
#: further (and cannot exhaust the stack).
MAX_DIFF_DEPTH: Final = 32


def _diff(where: str, recorded: Any, expected: Any, out: list[Difference], depth: int = 0) -> None:
    """Append the differences between two JSON values, path by path."""
    if len(out) >= MAX_DIFFERENCES:
        return
    if depth > MAX_DIFF_DEPTH:
        out.append(Difference(where, "nested far deeper than a record is"))
        return
    if isinstance(recorded, dict) and isinstance(expected, dict):
        for key in sorted(set(recorded) | set(expected), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in recorded:
                out.append(Difference(path, "missing from the record", None, expected[key]))
            elif key not in expected:
                out.append(Difference(path, "not derived from the events", recorded[key], None))
            else:
                _diff(path, recorded[key], expected[key], out, depth + 1)
        return
    if isinstance(recorded, list) and isinstance(expected, list):
        if len(recorded) != len(expected):
            out.append(
                Difference(
                    where,
                    f"{len(recorded)} items where the events give {len(expected)}",
                    len(recorded),
                    len(expected),
                )
            )
        for i, (a, b) in enumerate(zip(recorded, expected, strict=False)):
            _diff(f"{where}[{i}]", a, b, out, depth + 1)
        return
    if type(recorded) is not type(expected) or recorded != expected:
        out.append(Difference(where, "differs from what the events say", recorded, expected))


def _where(env: Envelope) -> str:
    return f"{env.stream} version {env.version}"


def _event_text(e: MatchItem | Command) -> str:
    if isinstance(e, TableEnd):
        return e.type
    parts = []
    for f in dataclasses.fields(e):
        name = f.name
        value = getattr(e, name)
        if name in ("cards",) and isinstance(value, tuple):
            value = " ".join(_codes(list(value)))
        elif name in ("card", "turned", "seven", "taken") and isinstance(value, int):
            value = to_code(value)
        elif isinstance(value, enum.Enum):
            value = str(value.name).lower()
        parts.append(f"{name}={value}")
    return f"{type(e).__name__}({', '.join(parts)})"


def _command_at(items: Sequence[MatchItem], i: int) -> Command | None:
    """The command whose events start at ``items[i]``, read back from its first event."""
    e = items[i]
    if isinstance(e, DeckSupplied):
        return SupplyDeck(e.deal_number, e.cards)
    if isinstance(e, Passed):
        return Bid(e.seat, None)
    if isinstance(e, ContractTaken):
        return Bid(e.seat, e.strain)
    if isinstance(e, BeloteAnnounced):
        return PlayCard(e.seat, e.card, True)
    if isinstance(e, CardPlayed):
        return PlayCard(e.seat, e.card)
    if isinstance(e, MeldDeclared):
        return DeclareMelds(e.seat)
    if isinstance(e, TrumpSevenSwapped):
        return SwapTrumpSeven(e.seat)
    if isinstance(e, RedealDemanded):
        return DemandRedeal(e.seat)
    return None


def _expected_visibility(e: MatchItem) -> str:
    if isinstance(e, TableEnd):
        return PUBLIC
    if e.VISIBILITY is Visibility.PUBLIC:
        return PUBLIC
    if e.VISIBILITY is Visibility.SEAT:
        return f"seat:{getattr(e, 'seat', '?')}"
    return "secret"


_TIME_DIGITS: Final = frozenset("0123456789")


def _is_recorded_time(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ``: fixed width, so such times compare as text."""
    shape = "dddd-dd-ddTdd:dd:dd.ddddddZ"
    return len(text) == len(shape) and all(
        (c in _TIME_DIGITS) if s == "d" else c == s for c, s in zip(text, shape, strict=True)
    )


@dataclass(slots=True)
class _Deal:
    number: int
    deck: tuple[int, ...] | None = None
    started: DealStarted | None = None
    first: dict[int, list[int]] = field(default_factory=dict)
    completion: dict[int, list[int]] = field(default_factory=dict)
    taker: int | None = None
    misere: bool = False
    bottom: int | None = None


# --- the checks ----------------------------------------------------------------------------


class _Context:
    """One verification: the record decoded once, the checks in order, sharing results."""

    def __init__(self, record: MatchRecord, bls: BlsCheck | None) -> None:
        self.record = record
        self.bls = bls
        self.decoded: Decoded = decode(
            record.match.events, record.randomness.events, record.drand.events
        )
        self.items: list[MatchItem] = [e for _, e in self.decoded.match]
        self.envs: list[Envelope] = [env for env, _ in self.decoded.match]
        self.fair: list[FairnessEvent] = [e for _, e in self.decoded.fairness]
        self.ruleset: Ruleset | None = None
        first = self.items[0] if self.items else None
        if isinstance(first, MatchStarted):
            self.ruleset = RULESETS.get(first.ruleset)
        self.decks: dict[int, tuple[int, ...]] | None = None  # recomputed, by deal number
        self.final: Match | None = None  # the replayed state, when the replay got through
        # The replay reached the recorded MatchEnded and the rules end the match otherwise.
        self.wrong_end: tuple[MatchEnded, MatchEnded] | None = None

    def all(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.fair if isinstance(e, cls)]

    def one(self, cls: type[Any]) -> Any:
        found = self.all(cls)
        return found[0] if found else None

    def chain(self) -> Chain | None:
        commit = self.one(ServerSeedCommitted)
        return CHAINS.get(commit.chain) if commit is not None else None

    # hash_chain ------------------------------------------------------------------------

    def _chain_problems(self, stream: StreamRecord, expected_id: str) -> list[Difference]:
        problems: list[Difference] = []
        if stream.id != expected_id:
            problems.append(Difference(stream.id, "wrong stream id", stream.id, expected_id))
        if not stream.events:
            problems.append(Difference(expected_id, "the stream has no events"))
            return problems
        prev = GENESIS_HASH
        last_position = 0
        for i, e in enumerate(stream.events):
            where = f"{expected_id} version {e.version}"
            if e.stream != expected_id:
                problems.append(Difference(where, "event of another stream", e.stream, expected_id))
            if e.version != i + 1:
                problems.append(
                    Difference(
                        where,
                        f"version {e.version} at place {i + 1}: an event is missing, added or "
                        "out of order",
                        e.version,
                        i + 1,
                    )
                )
            if e.position <= last_position:
                problems.append(
                    Difference(where, "positions do not increase", e.position, f"> {last_position}")
                )
            last_position = e.position
            try:
                recomputed = chain_hash(prev, e.canonical_bytes()).hex()
            except (TypeError, ValueError, RecursionError) as exc:
                problems.append(Difference(where, f"cannot be hashed: {type(exc).__name__}"))
                recomputed = ""
            if e.hash != recomputed:
                problems.append(
                    Difference(
                        where,
                        "hash differs from SHA-256(previous hash || canonical bytes)",
                        e.hash,
                        recomputed,
                    )
                )
            # Chain on the recorded hash, so that one altered event is named alone.
            try:
                prev = bytes.fromhex(e.hash)
            except ValueError:
                prev = bytes.fromhex(recomputed) if recomputed else GENESIS_HASH
            if len(prev) != 32:
                prev = GENESIS_HASH
        if stream.head is not None and stream.head != stream.events[-1].hash:
            problems.append(
                Difference(
                    f"{expected_id} head",
                    "head is not the last event's hash",
                    stream.head,
                    stream.events[-1].hash,
                )
            )
        return problems

    def check_hash_chain(self) -> Check:
        r = self.record
        problems = self._chain_problems(r.match, match_stream(r.match_id))
        problems += self._chain_problems(r.randomness, randomness_stream(r.match_id))
        if r.drand.events:
            # Chained under its own id: whether it is the named round's is drand_fact's.
            problems += self._chain_problems(r.drand, r.drand.id)
        return _result(
            "hash_chain",
            problems,
            f"the hash chains hold ({len(r.match.events)} match events, "
            f"{len(r.randomness.events)} fair-deal events, {len(r.drand.events)} of the "
            "drand round's)",
            "a hash chain is broken",
        )

    # events --------------------------------------------------------------------------------

    def check_events(self) -> Check:
        problems = [
            Difference(f"{s} version {v}", f"does not decode: {what}")
            for s, v, what in self.decoded.problems
        ]
        r = self.record
        if not is_match_id(r.match_id):
            problems.append(Difference("match_id", "not a valid match id", r.match_id))
        # The match stream.
        if not self.items or not isinstance(self.items[0], MatchStarted):
            problems.append(
                Difference(
                    match_stream(r.match_id), "the match stream does not start with MatchStarted"
                )
            )
        else:
            started = self.items[0]
            assert isinstance(started, MatchStarted)
            if started.match_id not in ("", r.match_id):
                problems.append(
                    Difference(
                        _where(self.envs[0]),
                        "MatchStarted of another match",
                        started.match_id,
                        r.match_id,
                    )
                )
        if self.ruleset is None and self.items and isinstance(self.items[0], MatchStarted):
            started = self.items[0]
            problems.append(
                Difference(
                    _where(self.envs[0]), "unknown ruleset", started.ruleset, sorted(RULESETS)
                )
            )
        ended_at: int | None = None
        for i, (env, e) in enumerate(self.decoded.match):
            want = _expected_visibility(e)
            if env.visibility != want:
                problems.append(
                    Difference(
                        _where(env), f"{env.type} has the wrong visibility", env.visibility, want
                    )
                )
            if ended_at is not None:
                problems.append(Difference(_where(env), f"{env.type} after the match's end"))
            if i > 0 and isinstance(e, MatchStarted):
                problems.append(Difference(_where(env), "a second MatchStarted"))
            if isinstance(e, MatchEnded | TableEnd):
                ended_at = i
        if ended_at is None:
            problems.append(
                Difference(
                    match_stream(r.match_id),
                    "no event ends the match: the record is of a match in progress",
                )
            )
        # The fair-deal stream.
        fair = self.decoded.fairness
        if not fair or not isinstance(fair[0][1], ServerSeedCommitted):
            problems.append(
                Difference(
                    randomness_stream(r.match_id),
                    "the fair-deal stream does not start with ServerSeedCommitted",
                )
            )
        else:
            commit = fair[0][1]
            if commit.match_id != r.match_id:
                problems.append(
                    Difference(
                        _where(fair[0][0]),
                        "commitment for another match",
                        commit.match_id,
                        r.match_id,
                    )
                )
            if self.ruleset is not None and len(commit.seats) != self.ruleset.players:
                problems.append(
                    Difference(
                        _where(fair[0][0]),
                        "seat count differs from the ruleset's",
                        len(commit.seats),
                        self.ruleset.players,
                    )
                )
        for env, fe in fair:
            want = visibility(fe)
            if env.visibility != want:
                problems.append(
                    Difference(
                        _where(env), f"{env.type} has the wrong visibility", env.visibility, want
                    )
                )
        for cls in (
            ServerSeedCommitted,
            SeedWindowClosed,
            DrandRoundNamed,
            DrandBeaconVerified,
            DrandFallback,
            DrandBeaconLate,
            ServerSeedRevealed,
        ):
            count = len(self.all(cls))
            if count > 1:
                problems.append(
                    Difference(randomness_stream(r.match_id), f"{cls.TYPE} recorded {count} times")
                )
        return _result(
            "events",
            problems,
            f"every event decodes and is where and as visible as the rules say "
            f"({self.ruleset.name if self.ruleset else '?'} ruleset)",
            "the events are not a well-formed match",
        )

    # summary -------------------------------------------------------------------------------

    def check_summary(self) -> Check:
        expected = summarize_decoded(self.decoded)
        recorded = dict(self.record.summary)
        problems: list[Difference] = []
        # Fast path: the same JSON text (which, unlike ==, tells 1 from 1.0 and true).
        try:
            same = _canonical(recorded) == _canonical(expected)
        except (TypeError, ValueError, RecursionError):
            same = False
        if not same:
            _diff("", recorded, expected, problems)
            if not problems:
                problems.append(Difference("", "the summary's JSON differs from the events'"))
        return _result(
            "summary",
            problems,
            "the record's summary fields are exactly what its events say",
            "the summary differs from the events",
        )

    # commitment ----------------------------------------------------------------------------

    def server_seed(self) -> bytes | None:
        revealed = self.one(ServerSeedRevealed)
        return revealed.server_seed if revealed is not None else None

    def check_commitment(self) -> Check:
        commit = self.one(ServerSeedCommitted)
        if commit is None:
            return Check("commitment", FAIL, "no commitment was recorded")
        seed = self.server_seed()
        if seed is None:
            return Check("commitment", FAIL, "the server seed was not revealed")
        got = hashlib.sha256(seed).digest()
        if len(seed) != SERVER_SEED_SIZE:
            return Check(
                "commitment",
                FAIL,
                f"the revealed seed is {len(seed)} bytes, not 32",
                (Difference("ServerSeedRevealed.server_seed", "wrong length", len(seed), 32),),
            )
        if got != commit.commitment:
            return Check(
                "commitment",
                FAIL,
                "SHA-256 of the revealed server seed is not the commitment",
                (
                    Difference(
                        "ServerSeedCommitted.commitment",
                        "SHA-256(revealed seed) differs",
                        commit.commitment.hex(),
                        got.hex(),
                    ),
                ),
            )
        return _pass(
            "commitment",
            f"SHA-256 of the revealed server seed is the commitment {commit.commitment.hex()} "
            "made before any seat sent a seed",
        )

    # seat seeds ----------------------------------------------------------------------------

    def check_seat_seeds(self) -> Check:
        commit = self.one(ServerSeedCommitted)
        closed = self.one(SeedWindowClosed)
        if commit is None or closed is None:
            return Check("seat_seeds", FAIL, "the seed window's opening or closing is missing")
        problems: list[Difference] = []
        seats = commit.seats
        if len(closed.seat_seeds) != len(seats):
            problems.append(
                Difference(
                    "SeedWindowClosed.seat_seeds",
                    "one seed per seat",
                    len(closed.seat_seeds),
                    len(seats),
                )
            )
        received: dict[int, SeatSeedReceived] = {}
        closed_seen = False
        for e in self.fair:
            if isinstance(e, SeedWindowClosed):
                closed_seen = True
            if not isinstance(e, SeatSeedReceived):
                continue
            where = f"SeatSeedReceived seat {e.seat}"
            if closed_seen:
                problems.append(Difference(where, "recorded after the window closed"))
            if not 0 <= e.seat < len(seats) or not seats[e.seat].is_human:
                problems.append(Difference(where, "not a human seat: a bot sends no seed"))
                continue
            if e.seat in received:
                problems.append(Difference(where, "a second seed from the same seat"))
            if len(e.seed) != SEAT_SEED_SIZE:
                problems.append(Difference(where, "a seat seed is 16 bytes", len(e.seed), 16))
            if e.at_ms >= commit.window_closes_at_ms:
                problems.append(
                    Difference(
                        where,
                        "sent after the window's end",
                        e.at_ms,
                        f"< {commit.window_closes_at_ms}",
                    )
                )
            received[e.seat] = e
        for spec, shown in zip(seats, closed.seat_seeds, strict=False):
            where = f"SeedWindowClosed.seat_seeds[{spec.seat}]"
            sent = received.get(spec.seat)
            want = sent.seed if sent is not None else b""
            if shown != want:
                what = (
                    "differs from the seed the seat sent"
                    if sent is not None
                    else "the seat sent no seed: it must be empty"
                )
                problems.append(Difference(where, what, shown.hex(), want.hex()))
        missing = tuple(s.seat for s in seats if s.is_human and s.seat not in received)
        if tuple(closed.missing) != missing:
            problems.append(
                Difference(
                    "SeedWindowClosed.missing",
                    "human seats that sent no seed",
                    list(closed.missing),
                    list(missing),
                )
            )
        last_seed = max((e.at_ms for e in received.values()), default=commit.at_ms)
        if closed.at_ms < last_seed:
            problems.append(
                Difference(
                    "SeedWindowClosed.at_ms",
                    "closed before the last seed came in",
                    closed.at_ms,
                    f">= {last_seed}",
                )
            )
        if missing and closed.at_ms < commit.window_closes_at_ms:
            problems.append(
                Difference(
                    "SeedWindowClosed.at_ms",
                    "closed early while seeds were missing",
                    closed.at_ms,
                    f">= {commit.window_closes_at_ms}",
                )
            )
        humans = sum(1 for s in seats if s.is_human)
        return _result(
            "seat_seeds",
            problems,
            f"{len(received)} of {humans} human seats sent a seed, each shown as sent; "
            f"{len(seats) - humans} bot seats sent none",
            "the seat seeds do not match what the seats sent",
        )

    # drand round -----------------------------------------------------------------------------

    def check_drand_round(self) -> Check:
        commit = self.one(ServerSeedCommitted)
        closed = self.one(SeedWindowClosed)
        named = self.one(DrandRoundNamed)
        if commit is None or closed is None or named is None:
            return Check("drand_round", FAIL, "the window's closing or the named round is missing")
        chain = CHAINS.get(named.chain)
        if chain is None:
            return Check(
                "drand_round",
                FAIL,
                f"unknown drand chain {named.chain!r}",
                (
                    Difference(
                        "DrandRoundNamed.chain", "not a pinned chain", named.chain, sorted(CHAINS)
                    ),
                ),
            )
        problems: list[Difference] = []
        if named.chain != commit.chain:
            problems.append(
                Difference(
                    "DrandRoundNamed.chain",
                    "not the chain the match committed to",
                    named.chain,
                    commit.chain,
                )
            )
        lead = commit.round_lead_ms
        lead_ok = 0 <= lead <= MAX_ROUND_LEAD_MS
        # A lead out of bounds is _round_bounds' difference; the rule is computed with 0.
        first = round_named_for(chain.name, closed.at_ms, lead if lead_ok else 0)
        rule = (
            f"the first due more than the commitment's lead of {lead} ms after the seeds "
            f"were in at {closed.at_ms} ms"
            if lead
            else f"the first produced after the seeds were in at {closed.at_ms} ms (a "
            "commitment with no lead: the rule before the lead)"
        )
        if named.round < first:
            problems.append(
                Difference(
                    "DrandRoundNamed.round",
                    f"earlier than the rule's round ({rule}): it may have been out when named",
                    named.round,
                    first,
                )
            )
        elif named.round != first:
            problems.append(
                Difference(
                    "DrandRoundNamed.round", f"not the rule's round ({rule})", named.round, first
                )
            )
        due = chain.time_of_round(named.round) * 1000 if named.round >= 1 else None
        if named.due_at_ms != due:
            problems.append(
                Difference(
                    "DrandRoundNamed.due_at_ms", "not the round's time", named.due_at_ms, due
                )
            )
        if named.at_ms < closed.at_ms:
            problems.append(
                Difference(
                    "DrandRoundNamed.at_ms",
                    "named before the seeds were in",
                    named.at_ms,
                    f">= {closed.at_ms}",
                )
            )
        problems += self._round_bounds(chain, commit, closed, named)
        before = first - 1
        return _result(
            "drand_round",
            problems,
            f"round {named.round} of {chain.name} is {rule} (round {before} was due at "
            f"{chain.time_of_round(before) * 1000 if before >= 1 else 'genesis'} ms, round "
            f"{named.round} at {named.due_at_ms} ms), within the commitment's last round "
            f"{commit.last_round}",
            "the drand round was not the rule's",
        )

    @staticmethod
    def _round_bounds(
        chain: Chain,
        commit: ServerSeedCommitted,
        closed: SeedWindowClosed,
        named: DrandRoundNamed,
    ) -> list[Difference]:
        """The bounds the commitment set before any seed came: the window's length and the
        last round the match may name. A server holding the window open to wait for a
        round it likes can choose among those rounds only."""
        problems: list[Difference] = []
        lead = commit.round_lead_ms
        if not 0 <= lead <= MAX_ROUND_LEAD_MS:
            problems.append(
                Difference(
                    "ServerSeedCommitted.round_lead_ms",
                    f"the round's lead must be 0..{MAX_ROUND_LEAD_MS} ms",
                    lead,
                    f"0..{MAX_ROUND_LEAD_MS}",
                )
            )
            lead = 0
        window = commit.window_closes_at_ms - commit.at_ms
        if not 0 < window <= MAX_SEED_WINDOW_MS:
            problems.append(
                Difference(
                    "ServerSeedCommitted.window_closes_at_ms",
                    f"the seed window lasts {window} ms: it must be 1..{MAX_SEED_WINDOW_MS}",
                    window,
                    f"1..{MAX_SEED_WINDOW_MS}",
                )
            )
        if commit.last_round == 0:
            problems.append(
                Difference(
                    "ServerSeedCommitted.last_round",
                    "the commitment fixed no last round: the round could have been waited for",
                )
            )
        else:
            want = last_round_for(chain.name, commit.window_closes_at_ms, lead)
            if commit.last_round != want:
                problems.append(
                    Difference(
                        "ServerSeedCommitted.last_round",
                        "not the rule's round for a window closed at its end",
                        commit.last_round,
                        want,
                    )
                )
            if named.round > commit.last_round:
                problems.append(
                    Difference(
                        "DrandRoundNamed.round",
                        "later than the last round the commitment allowed",
                        named.round,
                        f"<= {commit.last_round}",
                    )
                )
        if closed.at_ms < commit.at_ms:
            problems.append(
                Difference(
                    "SeedWindowClosed.at_ms",
                    "closed before it opened",
                    closed.at_ms,
                    f">= {commit.at_ms}",
                )
            )
        if closed.at_ms > commit.window_closes_at_ms:
            problems.append(
                Difference(
                    "SeedWindowClosed.at_ms",
                    "closed after the window's end",
                    closed.at_ms,
                    f"<= {commit.window_closes_at_ms}",
                )
            )
        return problems

    # drand beacon ----------------------------------------------------------------------------

    def check_drand_beacon(self) -> Check:
        named = self.one(DrandRoundNamed)
        verified = self.one(DrandBeaconVerified)
        fallback = self.one(DrandFallback)
        late = self.one(DrandBeaconLate)
        chain = self.chain()
        if named is None or chain is None:
            return Check("drand_beacon", FAIL, "no drand round was named on a pinned chain")
        problems: list[Difference] = []
        if verified is not None and fallback is not None:
            problems.append(Difference("randomness stream", "both a drand value and a fallback"))
        if verified is not None:
            if verified.round != named.round:
                problems.append(
                    Difference(
                        "DrandBeaconVerified.round",
                        "not the named round",
                        verified.round,
                        named.round,
                    )
                )
            want = hashlib.sha256(verified.signature).digest()
            if verified.randomness != want:
                problems.append(
                    Difference(
                        "DrandBeaconVerified.randomness",
                        "is not SHA-256 of the signature",
                        verified.randomness.hex(),
                        want.hex(),
                    )
                )
            if chain.is_chained != (verified.previous_signature is not None):
                problems.append(
                    Difference(
                        "DrandBeaconVerified.previous_signature",
                        f"the {chain.name} chain is "
                        f"{'chained' if chain.is_chained else 'unchained'}",
                    )
                )
            if verified.at_ms < named.due_at_ms:
                problems.append(
                    Difference(
                        "DrandBeaconVerified.at_ms",
                        "recorded before the round was due",
                        verified.at_ms,
                        f">= {named.due_at_ms}",
                    )
                )
            if verified.at_ms >= named.due_at_ms + DRAND_GRACE_MS:
                problems.append(
                    Difference(
                        "DrandBeaconVerified.at_ms",
                        "came after due + 5 s: the match should have fallen back",
                        verified.at_ms,
                        f"< {named.due_at_ms + DRAND_GRACE_MS}",
                    )
                )
            if late is not None:
                problems.append(Difference("DrandBeaconLate", "a late value after a value in time"))
            return _result(
                "drand_beacon",
                problems,
                f"dealt with drand {chain.name} round {verified.round} (pinned chain "
                f"{chain.hash[:16]}...): randomness {verified.randomness.hex()} is SHA-256 of "
                f"the signature, recorded {_seconds(verified.at_ms - named.due_at_ms)} after "
                "the round was due",
                "the drand beacon does not hold",
            )
        if fallback is None:
            return Check("drand_beacon", FAIL, "neither a drand value nor a fallback was recorded")
        if fallback.round != named.round:
            problems.append(
                Difference(
                    "DrandFallback.round", "not the named round", fallback.round, named.round
                )
            )
        earliest = named.due_at_ms + DRAND_GRACE_MS
        if fallback.at_ms < earliest:
            problems.append(
                Difference(
                    "DrandFallback.at_ms",
                    "fell back before the round was due + 5 s",
                    fallback.at_ms,
                    f">= {earliest}",
                )
            )
        late_text = ""
        if late is not None:
            want = hashlib.sha256(late.signature).digest()
            if late.randomness != want:
                problems.append(
                    Difference(
                        "DrandBeaconLate.randomness",
                        "is not SHA-256 of the signature",
                        late.randomness.hex(),
                        want.hex(),
                    )
                )
            if late.round != named.round:
                problems.append(
                    Difference(
                        "DrandBeaconLate.round", "not the named round", late.round, named.round
                    )
                )
            if late.at_ms < max(fallback.at_ms, earliest):
                # A value "late" by less than 5 s came in time: the match should have
                # been dealt from it, so the fallback was a choice.
                problems.append(
                    Difference(
                        "DrandBeaconLate.at_ms",
                        "a value recorded as late came before the fallback, or by due + 5 s",
                        late.at_ms,
                        f">= {max(fallback.at_ms, earliest)}",
                    )
                )
            late_text = (
                f"; round {late.round}'s value came later, at "
                f"{_seconds(late.at_ms - named.due_at_ms)} after it was due, and was not used"
            )
        return _result(
            "drand_beacon",
            problems,
            f"dealt without drand: round {named.round} had no value by its due time + 5 s, so "
            f"the decks use round 0 and 32 zero bytes (fallback recorded "
            f"{_seconds(fallback.at_ms - named.due_at_ms)} after the round was due: "
            f"{fallback.reason}){late_text}",
            "the drand fallback does not hold",
        )

    # drand fact --------------------------------------------------------------------------

    def check_drand_fact(self) -> Check:
        """A fallback is a platform-wide fact about a round, never one match's choice: the
        round's own stream opens with one fact, and the match must have followed it."""
        named = self.one(DrandRoundNamed)
        chain = self.chain()
        if named is None or chain is None:
            return Check("drand_fact", FAIL, "no drand round was named on a pinned chain")
        want_id = drand_stream_of(self.record.randomness.events)
        stream = self.record.drand
        if not stream.events:
            return Check(
                "drand_fact",
                FAIL,
                f"the record lacks the round's own stream {want_id}: whether round "
                f"{named.round} came in time is not shown as the platform's fact",
            )
        problems: list[Difference] = []
        if stream.id != want_id:
            problems.append(
                Difference("streams.drand.id", "not the named round's stream", stream.id, want_id)
            )
        facts = self.decoded.drand
        for env, e in facts:
            if env.visibility != PUBLIC:
                problems.append(
                    Difference(_where(env), "a round's fact is public", env.visibility, PUBLIC)
                )
            if not isinstance(e, DrandRoundBeacon | DrandRoundMissed):
                problems.append(Difference(_where(env), f"{env.type} is not a round's fact"))
        if len(facts) != 1 or not isinstance(facts[0][1], DrandRoundBeacon | DrandRoundMissed):
            problems.append(
                Difference(
                    want_id or "streams.drand",
                    "a round's stream holds exactly one fact",
                    [e.type for e, _ in facts],
                    ["DrandRoundBeacon or DrandRoundMissed"],
                )
            )
            return _result("drand_fact", problems, "", "the round's fact is not one fact")
        fact = facts[0][1]
        assert isinstance(fact, DrandRoundBeacon | DrandRoundMissed)
        if (fact.chain, fact.round) != (named.chain, named.round):
            problems.append(
                Difference(
                    f"{fact.TYPE}.round",
                    "a fact about another round",
                    f"{fact.chain} {fact.round}",
                    f"{named.chain} {named.round}",
                )
            )
        verified, fallback = self.one(DrandBeaconVerified), self.one(DrandFallback)
        due = named.due_at_ms
        if isinstance(fact, DrandRoundMissed):
            if fact.at_ms < due + DRAND_GRACE_MS:
                problems.append(
                    Difference(
                        "DrandRoundMissed.at_ms",
                        "declared missed before the round was due + 5 s",
                        fact.at_ms,
                        f">= {due + DRAND_GRACE_MS}",
                    )
                )
            if fact.due_at_ms != due:
                problems.append(
                    Difference(
                        "DrandRoundMissed.due_at_ms", "not the round's time", fact.due_at_ms, due
                    )
                )
            if verified is not None:
                problems.append(
                    Difference(
                        "DrandBeaconVerified",
                        "the match was dealt from a round the platform declared missed",
                    )
                )
            text = (
                f"round {fact.round} was declared missed for every match that named it, "
                f"{_seconds(fact.at_ms - due)} after it was due, and this match was dealt "
                "without drand as every such match must be"
            )
        else:
            if not due <= fact.at_ms < due + DRAND_GRACE_MS:
                problems.append(
                    Difference(
                        "DrandRoundBeacon.at_ms",
                        "a value in time comes between the due time and due + 5 s",
                        fact.at_ms,
                        f"{due}..{due + DRAND_GRACE_MS - 1}",
                    )
                )
            if fallback is not None:
                problems.append(
                    Difference(
                        "DrandFallback",
                        f"the platform had round {fact.round}'s value in time, "
                        f"{_seconds(fact.at_ms - due)} after it was due: the fallback was a "
                        "choice, a second deck for this match",
                    )
                )
            elif verified is not None and (
                verified.signature != fact.signature
                or verified.randomness != fact.randomness
                or verified.at_ms != fact.at_ms
            ):
                problems.append(
                    Difference(
                        "DrandBeaconVerified",
                        "not the round's value as the platform recorded it",
                        verified.signature.hex(),
                        fact.signature.hex(),
                    )
                )
            text = (
                f"round {fact.round}'s value came {_seconds(fact.at_ms - due)} after it was "
                "due, one fact for every match that named it, and this match was dealt from it"
            )
        return _result("drand_fact", problems, text, "the match did not follow its round's fact")

    def check_drand_signature(self) -> Check:
        verified = self.one(DrandBeaconVerified)
        late = self.one(DrandBeaconLate)
        chain = self.chain()
        beacon = verified if verified is not None else late
        if beacon is None:
            if self.one(DrandFallback) is not None:
                return _pass("drand_signature", "dealt without drand: no drand signature was used")
            return Check("drand_signature", FAIL, "no drand beacon was recorded")
        if chain is None:
            return Check("drand_signature", FAIL, "the match names no pinned drand chain")
        what = "the beacon dealt from" if verified is not None else "the late (unused) value"
        if self.bls is None:
            return _skip(
                "drand_signature",
                f"not checked: this verifier was given no BLS function ({what}, round "
                f"{beacon.round})",
            )
        previous = verified.previous_signature if verified is not None else None
        try:
            self.bls(chain, beacon.round, beacon.signature, previous)
        except Exception as exc:
            return Check(
                "drand_signature",
                FAIL,
                f"the signature of {what} does not verify: {exc}",
                (
                    Difference(
                        f"{type(beacon).__name__}.signature",
                        f"does not verify for round {beacon.round} against the "
                        f"{chain.name} public key",
                        beacon.signature.hex(),
                    ),
                ),
            )
        return _pass(
            "drand_signature",
            f"the BLS signature of {what} (round {beacon.round}) verifies against the pinned "
            f"{chain.name} public key {chain.public_key.hex()[:16]}...",
        )

    # decks ------------------------------------------------------------------------------------

    def _inputs(self) -> tuple[DeckInputs | None, str]:
        seed = self.server_seed()
        closed = self.one(SeedWindowClosed)
        verified = self.one(DrandBeaconVerified)
        fallback = self.one(DrandFallback)
        if seed is None:
            return None, "no server seed was revealed"
        if closed is None:
            return None, "the seat seeds were never shown"
        if verified is None and fallback is None:
            return None, "neither a drand value nor a fallback was recorded"
        try:
            drand = None if verified is None else Drand(verified.round, verified.randomness)
            return DeckInputs(seed, tuple(closed.seat_seeds), drand), ""
        except RecipeError as exc:
            return None, f"the recipe refuses the inputs: {exc}"

    def _deck_events(self) -> list[tuple[Envelope, DeckSupplied]]:
        return [(env, e) for env, e in self.decoded.match if isinstance(e, DeckSupplied)]

    def check_decks(self) -> Check:
        inputs, why = self._inputs()
        if inputs is None:
            return _skip("decks", f"cannot recompute the decks: {why}")
        if self.ruleset is None:
            return _skip("decks", "cannot recompute the decks: unknown ruleset")
        size = self.ruleset.deck_size
        shuffler = Shuffler(inputs)
        supplied = self._deck_events()
        issued = {e.deal: e for e in self.all(DeckIssued)}
        problems: list[Difference] = []
        decks: dict[int, tuple[int, ...]] = {}
        for env, e in supplied:
            where = f"{_where(env)} (deal {e.deal_number})"
            try:
                deck = tuple(shuffler.deck(e.deal_number, size))
            except RecipeError as exc:
                problems.append(
                    Difference(where, f"the recipe refuses deal {e.deal_number}: {exc}")
                )
                continue
            decks[e.deal_number] = deck
            if tuple(e.cards) != deck:
                at = next(
                    (i for i, (a, b) in enumerate(zip(e.cards, deck, strict=False)) if a != b),
                    min(len(e.cards), len(deck)),
                )
                problems.append(
                    Difference(
                        where,
                        f"the deck dealt differs from the recipe's from card {at}",
                        " ".join(_codes(list(e.cards))),
                        " ".join(_codes(list(deck))),
                    )
                )
            given = issued.get(e.deal_number)
            if given is None:
                problems.append(Difference(where, "the randomness service never issued this deck"))
            elif given.cards != size:
                problems.append(Difference(where, "issued with another size", given.cards, size))
        numbers = [e.deal_number for _, e in supplied]
        if numbers != list(range(len(numbers))):
            problems.append(
                Difference(
                    "DeckSupplied",
                    "deal numbers must run 0, 1, 2, ...",
                    numbers,
                    list(range(len(numbers))),
                )
            )
        fixed_at = max(
            (e.at_ms for e in self.fair if isinstance(e, DrandBeaconVerified | DrandFallback)),
            default=None,
        )
        dealt = set(numbers)
        for k, given in sorted(issued.items()):
            if k not in dealt:
                problems.append(
                    Difference(
                        f"DeckIssued deal {k}",
                        "a deck went out for a deal that was never dealt: its cards were seen "
                        "and not played",
                    )
                )
            if fixed_at is not None and given.at_ms < fixed_at:
                problems.append(
                    Difference(
                        f"DeckIssued deal {k}",
                        "issued before the inputs were fixed",
                        given.at_ms,
                        f">= {fixed_at}",
                    )
                )
        self.decks = decks
        drand = inputs.drand
        source = f"drand round {drand.round}" if drand else "round 0 and zeros (no drand)"
        return _result(
            "decks",
            problems,
            f"{len(supplied)} decks recomputed from the revealed server seed, "
            f"{len(inputs.seat_seeds)} seat seeds and {source}: each equals the deck dealt",
            "a deck differs from the recipe's",
        )

    # deals ------------------------------------------------------------------------------------

    def _deals(self) -> list[_Deal]:
        deals: list[_Deal] = []
        deal: _Deal | None = None
        completing = False
        for e in self.items:
            if isinstance(e, DeckSupplied):
                deal = _Deal(e.deal_number, tuple(e.cards))
                deals.append(deal)
                completing = False
            elif deal is None:
                continue
            elif isinstance(e, DealStarted):
                deal.started = e
            elif isinstance(e, CardsDealt):
                target = deal.completion if completing else deal.first
                target.setdefault(e.seat, []).extend(e.cards)
            elif isinstance(e, ContractTaken):
                deal.taker, completing = e.seat, True
            elif isinstance(e, MisereStarted):
                deal.misere, completing = True, True
            elif isinstance(e, BottomCardShown):
                deal.bottom = e.card
        return deals

    def check_deals(self) -> Check:
        if self.ruleset is None:
            return _skip("deals", "unknown ruleset")
        if self.decks is None:
            return _skip("deals", "the decks could not be recomputed (see decks)")
        rules = self.ruleset
        pattern = deal_pattern(rules)
        published = pattern.to_payload()
        problems: list[Difference] = []
        _diff("deal_pattern", self.record.summary.get("deal_pattern"), published, problems)
        if problems:
            return Check(
                "deals",
                FAIL,
                "the record's deal pattern is not the ruleset's published pattern",
                tuple(problems),
            )
        n = rules.players

        def by_seat(
            indices: Sequence[Sequence[int]], deck: Sequence[int], dealer: int
        ) -> list[list[int]]:
            # Offsets count from the dealer: seat s is offset (s - dealer) mod n.
            return [[deck[i] for i in indices[(s - dealer) % n]] for s in range(n)]

        count = 0
        for d in self._deals():
            deck = self.decks.get(d.number)
            if deck is None:
                continue
            where = f"deal {d.number}"
            if d.started is None:
                problems.append(Difference(where, "no DealStarted after the deck"))
                continue
            dealer = d.started.dealer
            if not 0 <= dealer < n:
                problems.append(Difference(where, "no such dealer seat", dealer))
                continue
            count += 1
            if d.started.turned != deck[pattern.turned]:
                problems.append(
                    Difference(
                        f"{where} turned card",
                        f"deck index {pattern.turned}",
                        to_code(d.started.turned),
                        to_code(deck[pattern.turned]),
                    )
                )
            first = by_seat(pattern.first, deck, dealer)
            for s in range(n):
                got = d.first.get(s, [])
                if got != first[s]:
                    problems.append(
                        Difference(
                            f"{where} seat {s} first cards",
                            "not the cards the pattern gives this seat from the deck",
                            _codes(got),
                            _codes(first[s]),
                        )
                    )
            if d.taker is not None:
                completion: list[list[int]] | None = by_seat(
                    pattern.completion[(d.taker - dealer) % n], deck, dealer
                )
            elif d.misere and pattern.completion_without_taker is not None:
                completion = by_seat(pattern.completion_without_taker, deck, dealer)
            else:
                completion = None
            if completion is None:
                if d.completion:
                    problems.append(
                        Difference(f"{where}", "cards dealt after bidding though nobody took")
                    )
            else:
                for s in range(n):
                    got = d.completion.get(s, [])
                    if got != completion[s]:
                        problems.append(
                            Difference(
                                f"{where} seat {s} completion cards",
                                "not the cards the pattern gives this seat from the deck",
                                _codes(got),
                                _codes(completion[s]),
                            )
                        )
            if pattern.shown is not None and completion is not None:
                want = deck[pattern.shown]
                if d.bottom != want:
                    problems.append(
                        Difference(
                            f"{where} bottom card",
                            f"deck index {pattern.shown}",
                            None if d.bottom is None else to_code(d.bottom),
                            to_code(want),
                        )
                    )
        return _result(
            "deals",
            problems,
            f"{count} deals: each recomputed deck, through {rules.name}'s published deal "
            "pattern, gives exactly the cards each seat was dealt",
            "a seat was dealt other cards than the deck and the pattern give",
        )

    # dealer -----------------------------------------------------------------------------------

    def check_dealer(self) -> Check:
        """Who deals first follows the published rule, recomputed from deal 0's deck: the
        server knows that deck before the match starts, so a dealer it wrote would be a
        choice of who gets which hand."""
        if self.ruleset is None or not self.items or not isinstance(self.items[0], MatchStarted):
            return _skip("dealer", "the match stream does not start with a known ruleset")
        started = self.items[0]
        pattern = deal_pattern(self.ruleset)
        rule = (
            "seat 0 deals first"
            if pattern.first_dealer_from is None
            else f"deal 0's card {pattern.first_dealer_from} (suit * 8 + rank) modulo "
            f"{self.ruleset.players}"
        )
        deck0 = next((e for e in self.items if isinstance(e, DeckSupplied)), None)
        if deck0 is None:
            if started.first_dealer != 0:
                return Check(
                    "dealer",
                    FAIL,
                    "no card was dealt, yet MatchStarted names a first dealer but seat 0",
                    (
                        Difference(
                            "MatchStarted.first_dealer", "no deck: seat 0", started.first_dealer, 0
                        ),
                    ),
                )
            return _pass("dealer", "no card was dealt: no dealer to choose")
        if deck0.deal_number != 0 or len(deck0.cards) != self.ruleset.deck_size:
            return Check("dealer", FAIL, "the first deck is not deal 0's full deck (see decks)")
        want = first_dealer(self.ruleset, deck0.cards)
        if started.first_dealer != want:
            return Check(
                "dealer",
                FAIL,
                f"the first dealer was seat {started.first_dealer}, but the rule ({rule}) "
                f"gives seat {want}: a dealer written after the deck was known is a choice",
                (Difference("MatchStarted.first_dealer", rule, started.first_dealer, want),),
            )
        return _pass("dealer", f"seat {want} dealt first, as the rule gives: {rule}")

    # play ---------------------------------------------------------------------------------------

    def check_play(self) -> Check:
        items, envs = self.items, self.envs
        if self.ruleset is None or not items or not isinstance(items[0], MatchStarted):
            return _skip("play", "the match stream does not start with a known ruleset")
        if self.decoded.problems and any(
            s.startswith(streams.MATCH) for s, _, _ in self.decoded.problems
        ):
            return Check("play", FAIL, "some match events do not decode (see events)")
        started = items[0]
        try:
            state = new_match(
                self.ruleset,
                started.match_id,
                target=started.target,
                first_dealer=started.first_dealer,
            )
        except (RulesError, ValueError) as exc:
            return Check("play", FAIL, f"MatchStarted cannot start a match: {exc}")
        i, commands = 1, 0
        while i < len(items):
            e = items[i]
            if isinstance(e, TableEnd):
                if i != len(items) - 1:
                    return Check("play", FAIL, f"{_where(envs[i])}: {e.type} is not the last event")
                break
            command = _command_at(items, i)
            if command is None:
                return Check(
                    "play",
                    FAIL,
                    f"{_where(envs[i])}: {_event_text(e)} does not follow from any command here",
                    (
                        Difference(
                            _where(envs[i]),
                            "an event the rules do not produce at this point",
                            _event_text(e),
                        ),
                    ),
                )
            try:
                expected = decide(state, command)
            except RulesError as exc:
                return Check(
                    "play",
                    FAIL,
                    f"{_where(envs[i])}: illegal: {_event_text(command)}: {exc.message}",
                    (
                        Difference(
                            _where(envs[i]), f"{exc.code}: {exc.message}", _event_text(command)
                        ),
                    ),
                )
            if not expected:  # every command makes at least one event; never loop on none
                return Check("play", FAIL, f"{_where(envs[i])}: a command without events")
            recorded = items[i : i + len(expected)]
            for j, want in enumerate(expected):
                got = recorded[j] if j < len(recorded) else None
                if got != want:
                    if isinstance(got, MatchEnded) and isinstance(want, MatchEnded):
                        self.wrong_end = (got, want)
                    where = _where(envs[i + j]) if i + j < len(envs) else "end of the match stream"
                    return Check(
                        "play",
                        FAIL,
                        f"{where}: the rules give {_event_text(want)} after {_event_text(command)}",
                        (
                            Difference(
                                where,
                                "not what the rules give",
                                None if got is None else _event_text(got),
                                _event_text(want),
                            ),
                        ),
                    )
                state = evolve(state, want)
            i += len(expected)
            commands += 1
        ending = items[-1]
        if state.phase is not Phase.OVER and not isinstance(ending, TableEnd):
            return Check("play", FAIL, "the replay ends with the match unfinished")
        self.final = state
        return _pass(
            "play",
            f"replayed {commands} commands (decks, bids, cards and announcements) with the "
            f"{self.ruleset.name} rules: each was legal and every derived event is the rules'",
        )

    # score -----------------------------------------------------------------------------------

    def check_score(self) -> Check:
        state = self.final
        if self.wrong_end is not None:
            got, want_end = self.wrong_end
            return Check(
                "score",
                FAIL,
                f"the match ended {got.scores[0]} to {got.scores[1]} (winner {got.winner}) but "
                f"the rules give {want_end.scores[0]} to {want_end.scores[1]} (winner "
                f"{want_end.winner})",
                (
                    Difference(
                        "MatchEnded",
                        "not the result the replay computes",
                        {"winner": got.winner, "scores": list(got.scores)},
                        {"winner": want_end.winner, "scores": list(want_end.scores)},
                    ),
                ),
            )
        if state is None or self.ruleset is None:
            return _skip("score", "the replay did not get through (see play)")
        result = self.record.summary.get("result")
        ending = self.items[-1]
        problems: list[Difference] = []
        if isinstance(ending, MatchEnded):
            assert state.result is not None
            want: dict[str, Any] = {
                "ended_by": MatchEnded.TYPE,
                "winner": state.result.winner,
                "scores": list(state.result.scores),
                "leaver": None,
                "reason": None,
                "by": None,
            }
            text = (
                f"the match ended {state.result.scores[0]} to {state.result.scores[1]}, "
                + (
                    "a draw"
                    if state.result.winner is None
                    else f"won by side {state.result.winner}"
                )
                + ", as the replay computes"
            )
        elif isinstance(ending, TableEnd) and ending.type == MATCH_FORFEITED:
            leaver = ending.leaver if ending.leaver is not None else -1
            n = self.ruleset.players
            if not 0 <= leaver < n:
                problems.append(Difference("MatchForfeited.leaver", "no such seat", leaver))
                winner = None
            else:
                winner = 1 - side_of(leaver)
            if ending.winner_side != winner:
                problems.append(
                    Difference(
                        "MatchForfeited.winner_side",
                        "a forfeit goes to the leaver's opponents",
                        ending.winner_side,
                        winner,
                    )
                )
            want = {
                "ended_by": MATCH_FORFEITED,
                "winner": winner,
                "scores": list(state.scores),
                "leaver": ending.leaver,
                "reason": None,
                "by": None,
            }
            text = (
                f"seat {leaver} left; the match goes to side {winner} (scores then "
                f"{state.scores[0]} to {state.scores[1]})"
            )
        elif isinstance(ending, TableEnd):
            want = {
                "ended_by": ending.type,
                "winner": None,
                "scores": list(state.scores),
                "leaver": None,
                "reason": ending.reason,
                "by": ending.by,
            }
            text = (
                f"aborted ({ending.reason}) with the scores at {state.scores[0]} to "
                f"{state.scores[1]}: no winner"
            )
        else:
            return Check("score", FAIL, "no event ends the match")
        _diff("result", result, want, problems)
        return _result("score", problems, text, "the result does not follow from the play")

    # ending -----------------------------------------------------------------------------------

    def check_ending(self) -> Check:
        """An abort after a deck went out is a match thrown away by someone who could know
        its cards (the server can compute every deck once drand is in): the record cannot
        show the abort was not chosen, so it does not verify. Who asked and why are shown,
        and the verify API publishes the platform's abort rate."""
        ends = [e for e in self.items if isinstance(e, MatchEnded | TableEnd)]
        if not ends:
            return Check("ending", FAIL, "no event ends the match")
        end = ends[-1]
        if isinstance(end, MatchEnded):
            return _pass("ending", "the match was played to its end")
        if end.type == MATCH_FORFEITED:
            return _pass(
                "ending", f"seat {end.leaver} left the match and lost it (a seat's own choice)"
            )
        issued = sorted(e.deal for e in self.all(DeckIssued))
        who = end.by if end.by else "nobody named"
        if not issued:
            if end.by is None:
                return Check("ending", FAIL, "aborted, and the record does not say who asked")
            return _pass(
                "ending",
                f"aborted by {who} ({end.reason}) before any deck went out: no card was known",
            )
        return Check(
            "ending",
            FAIL,
            f"aborted by {who} ({end.reason}) after {len(issued)} deck(s) went out (deals "
            f"{', '.join(str(k) for k in issued)}): whoever could see those cards could "
            "throw the match away and deal another, so this record cannot show the abort "
            "was not chosen (the verify API's /v1/stats gives the platform's abort rate)",
            (Difference("MatchAborted", "an abort after a deck went out", who, None),),
        )

    # reveal -----------------------------------------------------------------------------------

    def check_reveal(self) -> Check:
        revealed = [
            (env, e) for env, e in self.decoded.fairness if isinstance(e, ServerSeedRevealed)
        ]
        if not revealed:
            return Check("reveal", FAIL, "the server seed was never revealed")
        ends = [(env, e) for env, e in self.decoded.match if isinstance(e, MatchEnded | TableEnd)]
        if not ends:
            return Check("reveal", FAIL, "the seed was revealed but no event ends the match")
        problems: list[Difference] = []
        env, _ = revealed[0]
        end_env = ends[-1][0]
        for t, what in ((env.recorded_at, "reveal"), (end_env.recorded_at, "match end")):
            if not _is_recorded_time(t):
                problems.append(
                    Difference(f"{what} recorded_at", "not YYYY-MM-DDTHH:MM:SS.ffffffZ", t)
                )
        if not problems and env.recorded_at < end_env.recorded_at:
            problems.append(
                Difference(
                    _where(env),
                    "revealed before the match ended",
                    env.recorded_at,
                    f">= {end_env.recorded_at}",
                )
            )
        if not problems and env.position < end_env.position:
            problems.append(
                Difference(
                    _where(env),
                    "written to the log before the match's end",
                    env.position,
                    f"> {end_env.position}",
                )
            )
        after = False
        for e in self.fair:
            if isinstance(e, ServerSeedRevealed):
                after = True
            elif after and isinstance(e, DeckIssued):
                problems.append(Difference(f"DeckIssued deal {e.deal}", "a deck after the reveal"))
        return _result(
            "reveal",
            problems,
            f"the server seed was revealed at {env.recorded_at}, after the match's "
            f"{end_env.type} at {end_env.recorded_at}",
            "the reveal is out of place",
        )


# --- what only the whole log shows -----------------------------------------------------------
#
# A record cannot show that its commitment was never used by another match, nor that every
# match that named its round did what the round's fact says: the verify API answers both
# from the whole log, and ``belot verify`` asks it. These build the checks from those
# answers, so that the API and the command judge alike.

#: The names of the checks the verify API adds to a report.
PLATFORM_CHECKS: Final = ("commitment_unique", "round_consistency")


def commitment_check(match_id: str, commitment: str, users: Sequence[str]) -> Check:
    """``users``: every match the log shows committing to ``commitment``. A server seed
    used twice is a seed known before the second match: its decks were not fresh."""
    others = sorted(m for m in set(users) if m != match_id)
    if match_id not in users:
        return Check(
            "commitment_unique",
            FAIL,
            f"the log shows no match {match_id} committing to {commitment[:16]}...",
        )
    if others:
        return Check(
            "commitment_unique",
            FAIL,
            f"the commitment {commitment[:16]}... was used by {len(others)} other match(es) "
            f"({', '.join(others[:5])}): a server seed used twice was known before the "
            "second match began",
            tuple(Difference("commitment", "also used by", m) for m in others[:MAX_DIFFERENCES]),
        )
    return _pass(
        "commitment_unique", f"no other match in the log used the commitment {commitment[:16]}..."
    )


def round_check(
    match_id: str,
    chain: str,
    round_: int,
    fact: str | None,
    matches: Sequence[tuple[str, bool | None]],
) -> Check:
    """``fact``: the type of the round's one fact (``DrandRoundBeacon``,
    ``DrandRoundMissed``, None if the log holds none); ``matches``: every match that named
    the round, with whether it was dealt from drand (None: not resolved yet).

    A fallback is a fact about a round: every match that named a missed round is dealt
    without drand, and none that named a round whose value came. A match that fell back
    on a round whose value came had a second deck to choose from: it fails. A round
    declared missed while some match was dealt from its value is a false claim: every
    match of the round fails (each fallback was a choice)."""
    name = "round_consistency"
    if fact is None:
        return Check(
            name,
            FAIL,
            f"the log holds no fact about {chain} round {round_}: its matches followed nothing",
        )
    came = fact == DrandRoundBeacon.TYPE
    dealt_with = [m for m, used in matches if used is True]
    without = [m for m, used in matches if used is False]
    mine = next((used for m, used in matches if m == match_id), None)
    if came and mine is False:
        return Check(
            name,
            FAIL,
            f"{chain} round {round_}'s value came in time ({len(dealt_with)} match(es) were "
            "dealt from it), yet this match was dealt without drand: its fallback was a "
            "choice, a second deck",
        )
    if not came and dealt_with:
        return Check(
            name,
            FAIL,
            f"{chain} round {round_} was declared missed, yet {len(dealt_with)} match(es) "
            f"were dealt from its value ({', '.join(sorted(dealt_with)[:5])}): the value "
            "came, and every fallback of this round was a choice",
            tuple(
                Difference(m, "dealt from a round declared missed")
                for m in sorted(dealt_with)[:MAX_DIFFERENCES]
            ),
        )
    said = "its value came in time" if came else "it was missed"
    others = (
        f"; {len(without)} other match(es) fell back on it and fail their own check"
        if came and without
        else ""
    )
    return _pass(
        name,
        f"{chain} round {round_}: {said}, and this match, like "
        f"{len(dealt_with) if came else len(without)} of the {len(matches)} that named it, "
        f"was dealt {'from' if came else 'without'} drand{others}",
    )


__all__ = [
    "CHECKS",
    "FAIL",
    "PASS",
    "PLATFORM_CHECKS",
    "REPORT_FORMAT",
    "SKIP",
    "TABLE_ENDINGS",
    "BlsCheck",
    "Check",
    "Difference",
    "Report",
    "commitment_check",
    "round_check",
    "verify",
    "verify_record",
]
