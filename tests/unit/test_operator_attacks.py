"""The operator as adversary: every way docs/threat-model.md lists for a dishonest server
to choose the cards, tried with the project's own tools, and the check that refuses it.

Each case builds the record a careful forger would publish: the game played again from
the forged inputs where that is what the attack needs (``tools.matchgen``), or one event
edited and then every hash chain and the summary redone (``tests.tamper``), so that only
the fair-deal rules stand between the forgery and ``VERIFIED``. Then ``belot verify``
runs on it, as anyone would run it, and must exit 1 naming the check.

What a record alone cannot show is caught elsewhere, and tested there:
- a round named after its value was out, a seed dropped after it was acknowledged, a
  first dealer or a beacon shown otherwise to the player: the player's tab
  (web/test/attacks.test.mjs, fed by tests/unit/test_tab_attacks.py);
- a commitment used by two matches, a round whose matches disagree: the verify API
  (tests/integration/test_operator_attacks_api.py);
- rewriting the log, reading hands from the log or NATS, known secrets: the database
  roles, the NATS permissions and the settings (tests/integration/test_db_roles.py,
  test_nats_permissions.py, tests/unit/test_platform_settings.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from belot import RULESETS, first_dealer
from commands.cli import main as belot
from fairdeal import DeckInputs, Drand, Shuffler
from fairdeal.chains import QUICKNET
from fairdeal.fairness import DRAND_GRACE_MS, MAX_SEED_WINDOW_MS, ROUND_LEAD_MS, last_round_for
from fairdeal.verifier import verify_record
from tests.tamper import events, find, tampered
from tools.matchgen import (
    BEACON_ROUND,
    MatchSpec,
    offline_record,
    seat_seed_of,
    server_seed_of,
)

Record = dict[str, Any]

CLUB = MatchSpec(ruleset="club", label="attack-club")
FALLBACK = MatchSpec(ruleset="club", drand="fallback_late", label="attack-fb")
DUE_MS = QUICKNET.time_of_round(BEACON_ROUND) * 1000


@cache
def _honest(spec: MatchSpec) -> str:
    return json.dumps(offline_record(spec))


def honest(spec: MatchSpec = CLUB) -> Record:
    result: Record = json.loads(_honest(spec))
    return result


def forged(edit: Callable[[Record], None], spec: MatchSpec = CLUB) -> Record:
    return tampered(honest(spec), edit)


def payload(r: Record, stream: str, type_: str, nth: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = find(r, stream, type_, nth)["payload"]
    return result


# --- 1. Round grinding: hold the window, wait for rounds, pick one ----------------------------


def name_round(r: Record, round_: int, *, backdate: bool = True) -> None:
    """Name ``round_`` instead, the window's close back-dated to just before the lead
    before it was due (so that the rule names it)."""
    named = payload(r, "randomness", "DrandRoundNamed")
    named["round"], named["due_at_ms"] = round_, QUICKNET.time_of_round(round_) * 1000
    lead = payload(r, "randomness", "ServerSeedCommitted")["round_lead_ms"]
    if backdate:
        closed = payload(r, "randomness", "SeedWindowClosed")
        closed["at_ms"] = named["due_at_ms"] - lead - 100


def round_past_the_last(r: Record) -> None:
    last = payload(r, "randomness", "ServerSeedCommitted")["last_round"]
    name_round(r, last + 1)


def last_round_moved(r: Record) -> None:
    payload(r, "randomness", "ServerSeedCommitted")["last_round"] += 5


def window_too_long(r: Record) -> None:
    # A window long enough to wait for hundreds of rounds, its last round recomputed.
    commit = payload(r, "randomness", "ServerSeedCommitted")
    commit["window_closes_at_ms"] = commit["at_ms"] + MAX_SEED_WINDOW_MS + 1
    commit["last_round"] = last_round_for(
        "quicknet", commit["window_closes_at_ms"], commit["round_lead_ms"]
    )


def no_last_round(r: Record) -> None:
    # A commitment in the old shape, fixing no last round.
    del payload(r, "randomness", "ServerSeedCommitted")["last_round"]


def round_already_out(r: Record) -> None:
    # The round before: due, its value public, when the seeds were in.
    name_round(r, BEACON_ROUND - 1, backdate=False)


#: A match made before the lead: the commitment records none, the next round is named.
BEFORE_THE_LEAD = MatchSpec(ruleset="club", label="attack-nolead", round_lead_ms=0)


def no_lead_recorded(r: Record) -> None:
    # The record as it was written before the lead existed: no field at all.
    del payload(r, "randomness", "ServerSeedCommitted")["round_lead_ms"]


def next_round_under_the_lead(r: Record) -> None:
    # The next round named (as before the lead: due 1-2.5 s after the naming, too soon
    # for a witness, and out before one could see it) while the commitment records the
    # lead, its last round made to agree.
    commit = payload(r, "randomness", "ServerSeedCommitted")
    commit["round_lead_ms"] = ROUND_LEAD_MS
    commit["last_round"] = last_round_for("quicknet", commit["window_closes_at_ms"], ROUND_LEAD_MS)


def closed_after_the_window(r: Record) -> None:
    commit = payload(r, "randomness", "ServerSeedCommitted")
    closed = payload(r, "randomness", "SeedWindowClosed")
    closed["at_ms"] = commit["window_closes_at_ms"] + 10


# --- 2. A sock-puppet seat's seed, changed or sent late ---------------------------------------


def puppet_seed_changed(r: Record) -> None:
    closed = payload(r, "randomness", "SeedWindowClosed")
    closed["seat_seeds"][2] = "ab" * 16


def puppet_seed_after_close(r: Record) -> None:
    ev = events(r, "randomness")
    seed = find(r, "randomness", "SeatSeedReceived", 1)
    ev.remove(seed)
    ev.insert(ev.index(find(r, "randomness", "DrandRoundNamed")) + 1, seed)


def puppet_seed_after_window_end(r: Record) -> None:
    commit = payload(r, "randomness", "ServerSeedCommitted")
    payload(r, "randomness", "SeatSeedReceived", 1)["at_ms"] = commit["window_closes_at_ms"]


# --- 3. A false fallback: a second deck sequence ----------------------------------------------


def fallback_for_a_published_round(r: Record) -> None:
    # The round's own fact says its value came in time; the match says it fell back.
    ev = events(r, "drand")
    ev[0] = {
        **ev[0],
        "type": "DrandRoundBeacon",
        "payload": {
            "chain": "quicknet",
            "round": ev[0]["payload"]["round"],
            "signature": payload(r, "randomness", "DrandBeaconLate")["signature"],
            "randomness": payload(r, "randomness", "DrandBeaconLate")["randomness"],
            "previous_signature": None,
            "at_ms": ev[0]["payload"]["due_at_ms"] + 600,
        },
    }


def fallback_without_the_rounds_fact(r: Record) -> None:
    events(r, "drand").clear()


def round_missed_too_early(r: Record) -> None:
    fact = payload(r, "drand", "DrandRoundMissed")
    fact["at_ms"] = fact["due_at_ms"] + DRAND_GRACE_MS - 1_000


def late_value_in_time(r: Record) -> None:
    # Recorded as late, 0.25 s after the round was due: it came in time.
    due = payload(r, "randomness", "DrandRoundNamed")["due_at_ms"]
    payload(r, "randomness", "DrandBeaconLate")["at_ms"] = due + 250


def dealt_from_a_missed_round(r: Record) -> None:
    # The match used the beacon while its round's fact says missed.
    ev = events(r, "drand")
    ev[0] = {
        **ev[0],
        "type": "DrandRoundMissed",
        "payload": {
            "chain": "quicknet",
            "round": BEACON_ROUND,
            "due_at_ms": DUE_MS,
            "reason": "no verified drand value by the round's due time + 5 s",
            "at_ms": DUE_MS + 5_100,
        },
    }


# --- 4. A seed acknowledged, then dropped ------------------------------------------------------


def acknowledged_seed_shown_missing(r: Record) -> None:
    closed = payload(r, "randomness", "SeedWindowClosed")
    closed["seat_seeds"][0] = ""
    closed["missing"] = [0]


# --- 5. The first dealer chosen after deck 0 was known ----------------------------------------


def dealer_spec(ruleset: str, dealer: int) -> MatchSpec:
    return MatchSpec(ruleset=ruleset, label=f"attack-dealer-{ruleset}", first_dealer=dealer)


def other_dealers() -> list[tuple[str, int]]:
    """Every dealer but the rule's: the three other seats of club, gambler's other seat."""
    out = []
    for ruleset in ("club", "gambler"):
        spec = MatchSpec(ruleset=ruleset, label=f"attack-dealer-{ruleset}")
        rules = RULESETS[ruleset]
        seeds = tuple(
            seat_seed_of(spec, s) if p is not None else b"" for s, p in enumerate(spec.seats())
        )
        beacon = json.loads(_honest(MatchSpec(ruleset=ruleset, label=spec.label)))
        value = bytes.fromhex(beacon["fair_deal"]["deck_inputs"]["drand_value"])
        deck0 = Shuffler(DeckInputs(server_seed_of(spec), seeds, Drand(BEACON_ROUND, value))).deck(
            0, rules.deck_size
        )
        rule = first_dealer(rules, deck0)
        out += [(ruleset, d) for d in range(rules.players) if d != rule]
    return out


# --- 6. A made-up beacon -----------------------------------------------------------------------


def fake_beacon(r: Record) -> None:
    # 48 bytes nobody signed, the randomness made to match them, everywhere it appears.
    sig = hashlib.sha256(b"not drand").digest() + bytes(16)
    randomness = hashlib.sha256(sig).hexdigest()
    for p in (
        payload(r, "randomness", "DrandBeaconVerified"),
        payload(r, "drand", "DrandRoundBeacon"),
    ):
        p["signature"], p["randomness"] = sig.hex(), randomness


# --- 9. Abort and deal again, peek at a deck --------------------------------------------------


def peeked_deck(r: Record) -> None:
    ev = events(r, "randomness")
    last = max(e["payload"]["deal"] for e in ev if e["type"] == "DeckIssued")
    issued = find(r, "randomness", "DeckIssued")
    reveal = find(r, "randomness", "ServerSeedRevealed")
    ev.insert(
        ev.index(reveal),
        {**issued, "payload": {**issued["payload"], "deal": last + 1}},
    )


def abort_naming_nobody(r: Record) -> None:
    del payload(r, "match", "MatchAborted")["by"]


@dataclass(frozen=True)
class Attack:
    case: str  # the threat model's number, then the variant
    check: str  # the check that must fail
    edit: Callable[[Record], None] | None = None  # None: the spec's match as generated
    spec: MatchSpec = CLUB

    def build(self) -> Record:
        return forged(self.edit, self.spec) if self.edit else offline_record(self.spec)


ABORTED = MatchSpec(ruleset="classic", end="abort", label="attack-ab")
ABORTED_EARLY = MatchSpec(ruleset="classic", end="abort_early", label="attack-abe")
#: Thrown away once drand's value was in and before deck 0 went out: the randomness
#: service could compute every deck by then (a free reroll).
ABORTED_AFTER_VALUE = MatchSpec(ruleset="classic", end="abort_after_value", label="attack-abv")

ATTACKS = [
    Attack("1 a round past the commitment's last", "drand_round", round_past_the_last),
    Attack("1 the last round moved", "drand_round", last_round_moved),
    Attack("1 a window longer than allowed", "drand_round", window_too_long),
    Attack("1 a commitment fixing no last round", "drand_round", no_last_round),
    Attack("1 a round already out when the seeds came", "drand_round", round_already_out),
    Attack(
        "1 the next round named under the lead",
        "drand_round",
        next_round_under_the_lead,
        BEFORE_THE_LEAD,
    ),
    Attack("1 the window closed after its end", "drand_round", closed_after_the_window),
    Attack("2 the puppet's seed changed at the close", "seat_seeds", puppet_seed_changed),
    Attack("2 the puppet's seed after the close", "seat_seeds", puppet_seed_after_close),
    Attack("2 the puppet's seed after the window", "seat_seeds", puppet_seed_after_window_end),
    Attack(
        "3 a fallback for a round whose value came",
        "drand_fact",
        fallback_for_a_published_round,
        FALLBACK,
    ),
    Attack(
        "3 a fallback without its round's fact",
        "drand_fact",
        fallback_without_the_rounds_fact,
        FALLBACK,
    ),
    Attack("3 a round missed before due + 5 s", "drand_fact", round_missed_too_early, FALLBACK),
    Attack("3 a late value that came in time", "drand_beacon", late_value_in_time, FALLBACK),
    Attack("3 dealt from a round declared missed", "drand_fact", dealt_from_a_missed_round),
    Attack("4 an acknowledged seed shown missing", "seat_seeds", acknowledged_seed_shown_missing),
    *(
        Attack(f"5 {ruleset} dealt first by seat {d}", "dealer", spec=dealer_spec(ruleset, d))
        for ruleset, d in other_dealers()
    ),
    Attack("6 a made-up 48-byte signature", "drand_signature", fake_beacon),
    Attack("9 aborted after a deck went out", "ending", spec=ABORTED),
    Attack("9 an abort naming nobody", "ending", abort_naming_nobody, ABORTED_EARLY),
    Attack("9 an abort after the value, before deck 0", "ending", None, ABORTED_AFTER_VALUE),
    Attack("9 a deck issued for a deal never dealt", "decks", peeked_deck),
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.case for a in ATTACKS])
def test_belot_verify_refuses_the_forgery_naming_the_check(
    attack: Attack, tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(attack.build()), encoding="utf-8")
    assert belot(["verify", "--no-log", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {attack.check}" in out, out
    assert out.splitlines()[-1].startswith("NOT VERIFIED")
    assert attack.check in out.splitlines()[-1]


@pytest.mark.parametrize(
    "spec",
    [CLUB, FALLBACK, MatchSpec(ruleset="gambler", label="attack-g")],
    ids=["with drand", "with a real fallback", "gambler"],
)
def test_honest_matches_still_verify(spec: MatchSpec, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(honest(spec)), encoding="utf-8")
    assert belot(["verify", "--no-log", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("VERIFIED")


def test_a_record_made_before_the_lead_still_verifies(tmp_path: Path, capsys: Any) -> None:
    record = forged(no_lead_recorded, BEFORE_THE_LEAD)
    commit = payload(record, "randomness", "ServerSeedCommitted")
    assert "round_lead_ms" not in commit
    closed = payload(record, "randomness", "SeedWindowClosed")
    named = payload(record, "randomness", "DrandRoundNamed")
    # The next round, due less than a period after the seeds were in.
    assert named["round"] == BEACON_ROUND
    assert 0 < named["due_at_ms"] - closed["at_ms"] < QUICKNET.period * 1000
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert belot(["verify", "--no-log", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("VERIFIED")
    assert "a commitment with no lead: the rule before the lead" in out


def test_the_next_round_under_the_lead_is_refused_as_too_early() -> None:
    report = verify_record(forged(next_round_under_the_lead, BEFORE_THE_LEAD))
    (check,) = [c for c in report.checks if c.name == "drand_round"]
    assert check.status == "fail"
    (diff,) = check.differences
    assert diff.where == "DrandRoundNamed.round"
    assert "it may have been out when named" in diff.what
    assert (diff.recorded, diff.expected) == (BEACON_ROUND, BEACON_ROUND + 2)


def test_a_careful_false_fallback_is_a_claim_a_relay_cannot_confirm(
    tmp_path: Path, capsys: Any, drand_relay: str
) -> None:
    # The careful forger dealt the whole match without drand and declared the round
    # missed for it: the record is consistent, so only drand itself can speak. The relay
    # serves the round, so `belot verify --drand-url` will not call the fallback good.
    path = tmp_path / "record.json"
    path.write_text(json.dumps(honest(FALLBACK)), encoding="utf-8")
    assert belot(["verify", "--no-log", str(path), "--drand-url", drand_relay]) == 1
    out = capsys.readouterr().out
    assert "SKIP  drand_relay" in out and "cannot confirm the fallback" in out


def test_a_free_reroll_is_refused_by_ending_alone() -> None:
    """The reroll as the randomness service could make it: the round's value in, every
    deck computable, the match thrown away before deck 0 went out. Every other check
    passes (the forgery is consistent; before the naming rule ``ending`` passed it too:
    no deck had gone out), and ``ending`` fails it by the log's order; the same abort
    before the round was named, a moment earlier in the window, still verifies."""
    report = verify_record(offline_record(ABORTED_AFTER_VALUE))
    failed = {c.name for c in report.checks if c.status == "fail"}
    assert failed == {"ending"}
    (check,) = [c for c in report.checks if c.name == "ending"]
    assert "after round 1001 was named" in check.detail
    early = verify_record(offline_record(ABORTED_EARLY))
    assert {c.name for c in early.checks if c.status == "fail"} == set()
    (check,) = [c for c in early.checks if c.name == "ending"]
    assert "before the round was named" in check.detail
