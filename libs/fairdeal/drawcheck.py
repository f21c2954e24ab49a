"""A tournament's draw checked from its public events: was the seed order drand's, and
nobody's choice?

The input is the tournament's draw document (``GET /v1/tournaments/{id}/draw``, what
``belot verify-draw`` fetches or reads from a file)::

    {"format": "belot-tournament-draw/1", "tournament_id": "...",
     "events": [{"version": 1, "type": "TournamentCreated", "payload": {...}}, ...]}

``events`` are the tournament stream's core events (``tournament.codec``), in order: the
creation, the entries, the naming, the draw, the start and whatever followed. The checks,
in the report's order (each passes, fails naming what differs, or is skipped when what
it needs is missing; :mod:`fairdeal.verifier.report`):

``events``            every event decodes, the first creates this tournament, and the
                      stream folds with the tournament core (``tournament.replay``)
``naming``            exactly one ``DrawRoundNamed``, made while the seeding was random and
                      the tournament not started, before any ``DrawMade``: a second naming
                      would be a second draw to choose from
``entrants``          the named entrants are exactly those registered when it was named, in
                      entry order (the field the draw shuffles), and nobody entered after
``draw_round``        the round is the rule's (``fairdeal.draw.draw_round_for``): the first
                      of a pinned chain due more than the lead after the naming, the lead
                      no shorter than the rule's; its due time is the chain's; the draw
                      names that round and was made no earlier than its due time
``beacon``            the value is 32 bytes and SHA-256 of the signature (drand's
                      randomness is derived, never taken on a relay's word)
``beacon_signature``  the signature verifies against the chain's pinned public key, by the
                      BLS function handed in (``drand.verify``); without one the check is
                      skipped and the report is not ``ok``
``order``             the recorded order is the recipe's (``fairdeal.draw.draw_order``)
                      from the named entrants, the tournament id and that value
``started``           the start follows the draw: the tournament core, handed the same
                      beacon, gives the recorded ``Started`` (seeds, teams folded from
                      them, the round-robin schedule)

What no check here can show: the naming's time is the service's own clock. A service that
named a round, saw its value, and wrote the naming as made later would fail nothing
above; a witness's cosignature on the transparency log is what dates a naming
independently (docs/tournaments.md, "What trust remains").

Pure: the standard library, the tournament core, the draw recipe and the chains.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from fairdeal.chains import CHAINS, Chain
from fairdeal.draw import (
    DRAW_ROUND_LEAD_MS,
    MAX_DRAW_ROUND_LEAD_MS,
    RANDOMNESS_SIZE,
    DrawError,
    draw_order,
    draw_round_for,
    randomness_of,
)
from fairdeal.verifier.report import (
    FAIL,
    PASS,
    Check,
    Checked,
    Difference,
    pass_check,
    skip_check,
    verdict,
)
from tournament import TournamentError, commands, from_payload
from tournament.events import (
    DrawMade,
    DrawRoundNamed,
    Entered,
    Started,
    TournamentCreated,
    TournamentEvent,
)
from tournament.settings import Seeding
from tournament.state import Tournament, evolve

DOCUMENT_FORMAT: Final = "belot-tournament-draw/1"
REPORT_FORMAT: Final = "belot-tournament-draw-verification/1"
CHECKS: Final = (
    "events",
    "naming",
    "entrants",
    "draw_round",
    "beacon",
    "beacon_signature",
    "order",
    "started",
)
#: drand's BLS check, handed in (``drand.verify``): raises when the signature does not
#: verify for (chain, round) against the chain's pinned key.
BlsCheck = Callable[[Chain, int, bytes, bytes | None], object]


class DrawDocumentError(ValueError):
    """Not a draw document at all (``belot verify-draw`` exits 2 with this message)."""


@dataclass(frozen=True, slots=True)
class DrawReport(Checked):
    tournament_id: str
    checks: tuple[Check, ...]
    #: The named round (None: nothing named).
    round: int | None
    #: The drawn order, as recorded (None: no draw yet).
    order: tuple[str, ...] | None
    bls_checked: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "tournament_id": self.tournament_id,
            "ok": self.ok,
            "round": self.round,
            "order": None if self.order is None else list(self.order),
            "bls_checked": self.bls_checked,
            "failed": list(self.failed),
            "skipped": list(self.skipped),
            "checks": [c.to_json() for c in self.checks],
        }


@dataclass(frozen=True, slots=True)
class _Stream:
    """The document decoded: each event with the state just before it."""

    tournament_id: str
    events: tuple[TournamentEvent, ...]
    before: tuple[Tournament, ...]
    problems: tuple[Difference, ...]

    def of(self, cls: type[Any]) -> list[int]:
        return [i for i, e in enumerate(self.events) if isinstance(e, cls)]


def _decode(doc: Any) -> _Stream:
    if not isinstance(doc, Mapping):
        raise DrawDocumentError("a draw document is a JSON object")
    if doc.get("format") != DOCUMENT_FORMAT:
        raise DrawDocumentError(f"format is not {DOCUMENT_FORMAT!r}: {doc.get('format')!r}")
    tid = doc.get("tournament_id")
    raw = doc.get("events")
    if not isinstance(tid, str) or not tid:
        raise DrawDocumentError("tournament_id: the tournament's id")
    if not isinstance(raw, list):
        raise DrawDocumentError("events: the tournament's events, a list")
    problems: list[Difference] = []
    events: list[TournamentEvent] = []
    before: list[Tournament] = []
    state = Tournament()
    for n, item in enumerate(raw):
        where = f"events[{n}]"
        if (
            not isinstance(item, Mapping)
            or not isinstance(item.get("type"), str)
            or not isinstance(item.get("payload"), dict)
        ):
            problems.append(Difference(where, "not {type, payload}"))
            break
        try:
            event = from_payload(item["type"], dict(item["payload"]))
        except TournamentError as exc:
            problems.append(Difference(f"{where} {item['type']}", exc.message))
            break
        if n == 0 and not (isinstance(event, TournamentCreated) and event.tournament_id == tid):
            problems.append(Difference(where, "the stream does not open by creating " + tid))
            break
        try:
            after = evolve(state, event)
        except (LookupError, ValueError, TypeError, AttributeError) as exc:
            problems.append(Difference(f"{where} {item['type']}", f"does not fold: {exc}"))
            break
        events.append(event)
        before.append(state)
        state = after
    if not raw:
        problems.append(Difference("events", "no events"))
    return _Stream(tid, tuple(events), tuple(before), tuple(problems))


def verify_draw(doc: Any, *, bls: BlsCheck | None = None) -> DrawReport:
    """Check a draw document (parsed JSON). Raises DrawDocumentError if ``doc`` is not
    one at all; everything else is a check in the report."""
    s = _decode(doc)
    checks = [
        verdict(
            "events",
            s.problems,
            f"{len(s.events)} events decode and fold with the tournament core",
            "the events are not the tournament's",
        )
    ]
    namings = s.of(DrawRoundNamed)
    draws = s.of(DrawMade)
    checks.append(_naming(s, namings, draws))
    if len(namings) != 1:
        why = "no one naming to check"
        return _report(s, checks, None, None, bls, why)
    at = namings[0]
    named = s.events[at]
    assert isinstance(named, DrawRoundNamed)
    checks.append(_entrants(s, at, named))
    made_at = next((i for i in draws if i > at), None)
    made = None if made_at is None else s.events[made_at]
    assert made is None or isinstance(made, DrawMade)
    checks.append(_draw_round(named, made))
    if made is None or made_at is None:
        return _report(s, checks, named.round, None, bls, "the draw is not made yet")
    checks.append(_beacon(made))
    checks.append(_signature(named, made, bls))
    checks.append(_order(s.tournament_id, named, made))
    checks.append(_started(s, made_at, named, made))
    return _report(s, checks, named.round, made.order, bls, "")


def _report(
    s: _Stream,
    checks: list[Check],
    round_: int | None,
    order: tuple[str, ...] | None,
    bls: BlsCheck | None,
    why: str,
) -> DrawReport:
    done = {c.name for c in checks}
    checks += [skip_check(name, f"not checked: {why}") for name in CHECKS if name not in done]
    return DrawReport(s.tournament_id, tuple(checks), round_, order, bls is not None)


def _naming(s: _Stream, namings: Sequence[int], draws: Sequence[int]) -> Check:
    name = "naming"
    if not namings:
        return Check(
            name,
            FAIL,
            "no draw's round was named: the seeding was not random, or the tournament was "
            "seeded before draws were named (nothing here shows its order was not chosen)",
        )
    problems: list[Difference] = []
    if len(namings) > 1:
        rounds = [getattr(s.events[i], "round", None) for i in namings]
        problems.append(
            Difference(
                f"events[{namings[1]}] DrawRoundNamed",
                f"named {len(namings)} times (rounds {rounds}): one naming, one draw",
                len(namings),
                1,
            )
        )
    first = namings[0]
    state = s.before[first]
    if state.settings.seeding is not Seeding.RANDOM:
        problems.append(
            Difference(
                f"events[{first}] DrawRoundNamed",
                "named while the seeding was not random",
                state.settings.seeding.value,
                Seeding.RANDOM.value,
            )
        )
    if state.is_started:
        problems.append(Difference(f"events[{first}] DrawRoundNamed", "named after the start"))
    if any(i < first for i in draws):
        problems.append(Difference("DrawMade", "a draw made before its round was named"))
    if len(draws) > 1:
        problems.append(
            Difference(f"events[{draws[1]}] DrawMade", f"{len(draws)} draws: one is made")
        )
    named = s.events[first]
    return verdict(
        name,
        problems,
        f"named once, at {getattr(named, 'at_ms', '?')} ms, while the seeding was random "
        "and before the start",
        "the naming is not the one naming of a random draw",
    )


def _entrants(s: _Stream, at: int, named: DrawRoundNamed) -> Check:
    problems: list[Difference] = []
    registered = s.before[at].entered
    if named.entrants != registered:
        problems.append(
            Difference(
                "DrawRoundNamed.entrants",
                "not the entrants registered when it was named, in entry order",
                list(named.entrants),
                list(registered),
            )
        )
    started = next((i for i in s.of(Started) if i > at), len(s.events))
    late = [
        e.entrant for e in s.events[at + 1 : started] if isinstance(e, Entered)
    ]  # entries closed with the naming
    if late:
        problems.append(
            Difference("Entered", "entered after the naming: entries closed then", late, [])
        )
    return verdict(
        "entrants",
        problems,
        f"the {len(named.entrants)} entrants named are those registered then, in entry "
        "order; nobody entered after",
        "the field is not the one registered",
    )


def _draw_round(named: DrawRoundNamed, made: DrawMade | None) -> Check:
    name = "draw_round"
    chain = CHAINS.get(named.chain)
    if chain is None:
        return Check(
            name,
            FAIL,
            f"unknown drand chain {named.chain!r}",
            (
                Difference(
                    "DrawRoundNamed.chain", "not a pinned chain", named.chain, sorted(CHAINS)
                ),
            ),
        )
    problems: list[Difference] = []
    lead = named.round_lead_ms
    if not DRAW_ROUND_LEAD_MS <= lead <= MAX_DRAW_ROUND_LEAD_MS:
        problems.append(
            Difference(
                "DrawRoundNamed.round_lead_ms",
                f"the lead must be {DRAW_ROUND_LEAD_MS}..{MAX_DRAW_ROUND_LEAD_MS} ms: a shorter "
                "one leaves no time to witness the naming before the value exists",
                lead,
                f"{DRAW_ROUND_LEAD_MS}..{MAX_DRAW_ROUND_LEAD_MS}",
            )
        )
    rule = draw_round_for(chain.name, named.at_ms, lead)
    if named.round != rule:
        what = "earlier than" if named.round < rule else "not"
        problems.append(
            Difference(
                "DrawRoundNamed.round",
                f"{what} the rule's round: the first due more than {lead} ms after the "
                f"naming at {named.at_ms} ms",
                named.round,
                rule,
            )
        )
    due = chain.time_of_round(named.round) * 1000 if named.round >= 1 else None
    if named.due_at_ms != due:
        problems.append(
            Difference("DrawRoundNamed.due_at_ms", "not the round's time", named.due_at_ms, due)
        )
    if made is not None:
        if (made.chain, made.round) != (named.chain, named.round):
            problems.append(
                Difference(
                    "DrawMade.round",
                    "not the round named",
                    f"{made.chain} {made.round}",
                    f"{named.chain} {named.round}",
                )
            )
        if due is not None and made.at_ms < due:
            problems.append(
                Difference(
                    "DrawMade.at_ms",
                    "made before the round's value existed",
                    made.at_ms,
                    f">= {due}",
                )
            )
    return verdict(
        name,
        problems,
        f"{chain.name} round {named.round} is the first due more than {lead} ms after the "
        f"naming at {named.at_ms} ms (due at {named.due_at_ms} ms)"
        + ("" if made is None else f"; the draw used it, at {made.at_ms} ms"),
        "the round is not the rule's",
    )


def _beacon(made: DrawMade) -> Check:
    problems: list[Difference] = []
    if len(made.randomness) != RANDOMNESS_SIZE:
        problems.append(Difference("DrawMade.randomness", "not 32 bytes", len(made.randomness), 32))
    expected = randomness_of(made.signature)
    if made.randomness != expected:
        problems.append(
            Difference(
                "DrawMade.randomness",
                "not SHA-256 of the signature",
                made.randomness.hex(),
                expected.hex(),
            )
        )
    return verdict(
        "beacon",
        problems,
        f"the value {made.randomness.hex()} is SHA-256 of the recorded signature",
        "the value is not the signature's",
    )


def _signature(named: DrawRoundNamed, made: DrawMade, bls: BlsCheck | None) -> Check:
    name = "beacon_signature"
    chain = CHAINS.get(made.chain)
    if chain is None:
        return Check(name, FAIL, f"unknown drand chain {made.chain!r}")
    if bls is None:
        return skip_check(name, "no BLS check was handed in: the signature is not checked")
    try:
        bls(chain, made.round, made.signature, None)
    except Exception as exc:  # the BLS function's refusal, whatever its type
        return Check(
            name,
            FAIL,
            f"the signature does not verify for {chain.name} round {made.round}: {exc}",
            (Difference("DrawMade.signature", "not drand's", made.signature.hex()),),
        )
    return pass_check(
        name,
        f"the signature verifies for {chain.name} round {made.round} against the chain's "
        "pinned public key",
    )


def _order(tid: str, named: DrawRoundNamed, made: DrawMade) -> Check:
    try:
        expected = draw_order(made.randomness, tid, named.entrants)
    except DrawError as exc:
        return Check("order", FAIL, f"the recipe refuses the inputs: {exc.message}")
    problems: list[Difference] = []
    if made.order != expected:
        first = next(
            (i for i, (a, b) in enumerate(zip(made.order, expected, strict=False)) if a != b),
            min(len(made.order), len(expected)),
        )
        problems.append(
            Difference(
                f"DrawMade.order[{first}]",
                f"seed {first + 1} is not the recipe's",
                list(made.order),
                list(expected),
            )
        )
    return verdict(
        "order",
        problems,
        f"the order is the recipe's from the {len(named.entrants)} named entrants, the "
        "tournament id and the round's value",
        "the order is not the recipe's",
    )


def _started(s: _Stream, made_at: int, named: DrawRoundNamed, made: DrawMade) -> Check:
    name = "started"
    after = s.events[made_at + 1] if made_at + 1 < len(s.events) else None
    if not isinstance(after, Started):
        return Check(name, FAIL, "no Started right after the draw: the core appends them together")
    state = s.before[made_at]
    try:
        # The same beacon handed to the core, at the draw's own time (or its round's due
        # time, should the recorded time be earlier: draw_round says so): the Started
        # the core makes. Round 1's pairing also depends on the forbidden pairs, which
        # the organiser keeps private, so it is not compared here.
        again = commands.make_draw(
            state, named.round, made.signature, max(made.at_ms, named.due_at_ms)
        )
    except TournamentError as exc:
        return Check(name, FAIL, f"the core does not start from this draw: {exc.message}")
    expected = next(e for e in again if isinstance(e, Started))
    problems: list[Difference] = []
    for field in ("order", "teams", "schedule"):
        got, want = getattr(after, field), getattr(expected, field)
        if got != want:
            problems.append(
                Difference(f"Started.{field}", "not what the draw gives", _plain(got), _plain(want))
            )
    return verdict(
        name,
        problems,
        "the start (seeds"
        + (", teams" if after.teams else "")
        + (", schedule" if after.schedule else "")
        + ") is the one the core makes from this draw",
        "the start does not follow the draw",
    )


def _plain(value: Any) -> Any:
    """A Started field as JSON-ready values (tuples of dataclasses as lists of dicts)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {k: _plain(getattr(value, k)) for k in fields}
    return value


__all__ = [
    "CHECKS",
    "DOCUMENT_FORMAT",
    "PASS",
    "REPORT_FORMAT",
    "BlsCheck",
    "DrawDocumentError",
    "DrawReport",
    "verify_draw",
]
