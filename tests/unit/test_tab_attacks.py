"""The operator as adversary, seen from the player's tab: what a record alone cannot show
(tests/unit/test_operator_attacks.py says which), caught by the tab's own check.

Each case is built with the project's own tools: the match played by bots from the
forged inputs where the attack needs it (``tools.matchgen``: a round named late, a
sock puppet's seed, a fallback, a dropped seed, a chosen dealer, a made-up beacon, no
salts promised), or a record forged and re-chained (``tests.tamper``: a salt chosen by the
server, in its event and in the deck's list alike), so that the record itself is
consistent, as a careful operator would make it; then what the seat's tab receives
(``tests.webfeed``: the WebSocket's messages, when the tab got each one on its own clock,
the seed reply's receipt), fake drand relays that produce the rounds at given times,
answer, lie or are down, and the verify API's answer on the commitment's matches (by
default this match alone; another match generated with the same server seed; or down).
web/test/attacks.test.mjs plays every case against the tab's own code
(web/node/tabsim.mjs: keeper.js, watch.js, fairdeal.js) and asserts that the named check
fails (an honest case: ok, or "could not check" and not ok where the tab cannot know),
that ``ok`` is false for every attack, and, where the failure can be known during the
match, that checkLive says so at once. Node runs once; this test then asserts that every
case was run and what it found.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from belot import RULESETS, deal_pattern, first_dealer
from belot.salts import COMPLETION, FIRST, salt_index
from fairdeal import DeckInputs, Drand, Shuffler, deal_salts
from fairdeal.fairness import (
    DRAND_GRACE_MS,
    MAX_ROUND_LEAD_MS,
    MAX_SEED_WINDOW_MS,
    ROUND_LEAD_MS,
    last_round_for,
)
from fairdeal.receipts import Receipt, sign_receipt
from services.gateway.web import rulesets_json
from tests.tamper import events, find, rechain, tampered
from tests.webfeed import beacons, due_ms, receipt_of, relay, timed_feed
from tools.matchgen import (
    MatchSpec,
    offline_record,
    receipt_secret_of,
    seat_key_of,
    seat_seed_of,
    server_seed_of,
)

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")

Feed = list[dict[str, Any]]

#: The player's own relay (drand's, as the tab lists it) and the one the server names.
TAB = "https://relay.drand.test"
SERVER = "https://relay.belot.test"


def honest_relays(late: dict[int, int] | None = None) -> list[dict[str, Any]]:
    return [relay(TAB, "tab", late=late), relay(SERVER, "server", late=late)]


DOWN = [relay(TAB, "tab", mode="down"), relay(SERVER, "server", mode="down")]
#: Round 1001's value, as matchgen deals from it.
R1001_VALUE = hashlib.sha256(bytes.fromhex(beacons()["1001"]["signature"])).digest()


@cache
def _record(spec: MatchSpec) -> str:
    return json.dumps(offline_record(spec))


def record_of(spec: MatchSpec) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(_record(spec))
    return result


def at_of(feed: Feed, event: str, nth: int = 0) -> int:
    return [m["at"] for m in feed if m["msg"]["event"] == event][nth]


def delay_from(feed: Feed, event: str, at: int) -> Feed:
    """The first ``event`` and everything after it reach the tab later, the first at
    ``at``: the server held them back (the log's own times may say anything)."""
    i = next(n for n, m in enumerate(feed) if m["msg"]["event"] == event)
    shift = at - feed[i]["at"]
    assert shift > 0
    return [*feed[:i], *({**m, "at": m["at"] + shift} for m in feed[i:])]


def in_a_catch_up(feed: Feed, event: str) -> Feed:
    """``event`` reaches the tab only in a catch-up (the gateway marks it replay)."""
    return [
        {**m, "msg": {**m["msg"], "replay": True}} if m["msg"]["event"] == event else m
        for m in feed
    ]


@dataclass
class Case:
    name: str
    #: The check that must fail; None: an honest match.
    check: str | None
    spec: MatchSpec
    relays: list[dict[str, Any]]
    #: An honest case's verdict: "ok", or "unchecked" (not ok, nothing failed, these
    #: checks could not be checked).
    expect: str = "ok"
    unchecked: tuple[str, ...] = ()
    #: Also failing (an attack may fail more than its own check).
    also: tuple[str, ...] = ()
    seat: int = 0
    receipt: bool = True
    #: The receipt the server gave, when it is not the record's (a dropped seed).
    receipt_version: int | None = None
    #: The receipt signed with another key than the match's (the commitment's).
    receipt_key_forged: bool = False
    edit: Any = None  # Feed -> Feed
    #: The record forged (Record -> None, in place), then re-chained (tests/tamper.py).
    forge: Any = None
    #: checkLive must report ``check`` by the time of this event (its ``live_nth``-th in
    #: the feed; + 200 ms); None: only the final check can tell.
    live_by: str | None = None
    live_nth: int = 0
    live_after_ms: int = 0
    #: What the failing check must say (a regular expression).
    detail: str | None = None
    info: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        record = record_of(self.spec)
        if self.forge is not None:
            record = json.loads(json.dumps(tampered(record, self.forge)))
        return record

    def build(self) -> dict[str, Any]:
        record = self.record()
        s = record["seats"][self.seat]
        feed = timed_feed(record, self.seat)
        if self.edit is not None:
            feed = self.edit(feed)
        my_seed = seat_seed_of(self.spec, self.seat).hex()
        receipt = None
        if self.receipt:
            if self.receipt_version is None:
                version = receipt_of(record, self.seat)["version"]
                at_ms = receipt_of(record, self.seat)["at_ms"]
            else:
                version = self.receipt_version
                at_ms = at_of(feed, "ServerSeedCommitted")
            # The server acknowledges the seed this tab sent, whatever it records, and
            # signs the receipt with the match's receipt key (fairdeal.receipts).
            secret = receipt_secret_of(self.spec)
            if self.receipt_key_forged:
                secret = hashlib.sha256(b"a key the commitment does not name").digest()
            signed = sign_receipt(
                secret,
                Receipt(
                    record["match_id"],
                    self.seat,
                    hashlib.sha256(bytes.fromhex(my_seed)).digest(),
                    f"randomness-{record['match_id']}",
                    version,
                ),
            )
            receipt = {**signed.to_json(), "at_ms": at_ms}
        live_at = (
            None
            if self.live_by is None
            else at_of(feed, self.live_by, self.live_nth)
            + self.live_after_ms
            + 300  # a tick, and margin
        )
        return {
            "name": self.name,
            "check": self.check,
            "expect": self.expect if self.check is None else "fail",
            "unchecked": list(self.unchecked),
            "also": list(self.also),
            "info": list(self.info),
            "match_id": record["match_id"],
            "player": s["player"],
            "seat": self.seat,
            "my_seed": my_seed,
            "my_key": seat_key_of(self.spec, self.seat).hex(),
            "receipt": receipt,
            "feed": feed,
            "relays": self.relays,
            "live_by": live_at,
            "detail": self.detail,
            "end_at": feed[-1]["at"] + 1_000,
            **self.extra,
        }


def club(label: str, **kw: Any) -> MatchSpec:
    return MatchSpec(match_id=f"tab-{label}", ruleset="club", label=f"tab-{label}", **kw)


def claim_the_lead(feed: Feed) -> Feed:
    """The commitment shown with the lead (and its last round), the round named as
    before it: the next one after the seeds were in."""
    out = []
    for m in feed:
        if m["msg"]["event"] in ("ServerSeedCommitted", "FairDealOpened"):
            p = dict(m["msg"]["payload"])
            p["last_round"] = last_round_for("quicknet", p["window_closes_at_ms"], ROUND_LEAD_MS)
            if m["msg"]["event"] == "ServerSeedCommitted":
                p["round_lead_ms"] = ROUND_LEAD_MS
            m = {**m, "msg": {**m["msg"], "payload": p}}
        out.append(m)
    return out


def puppet_seed() -> bytes:
    """The sock puppet's seed, chosen once round 1001's value is known: the first of a
    few candidates whose deal 1 turns up a jack."""
    spec = club("puppet", players=("ann", None, "puppet", None))
    turned = deal_pattern(RULESETS["club"]).turned
    for i in range(64):
        candidate = hashlib.sha256(f"puppet-{i}".encode()).digest()[:16]
        seeds = (seat_seed_of(spec, 0), b"", candidate, b"")
        inputs = DeckInputs(server_seed_of(spec), seeds, Drand(1001, R1001_VALUE))
        if int(Shuffler(inputs).deck(0, 32)[turned]) % 8 == 4:  # a jack
            return candidate
    raise LookupError("no candidate turns up a jack")


def other_dealer(ruleset: str, label: str) -> int:
    """A seat other than the one the published rule makes the first dealer."""
    spec = MatchSpec(match_id=f"tab-{label}", ruleset=ruleset, label=f"tab-{label}")
    rules = RULESETS[ruleset]
    seeds = tuple(
        seat_seed_of(spec, s) if p is not None else b"" for s, p in enumerate(spec.seats())
    )
    deck0 = Shuffler(DeckInputs(server_seed_of(spec), seeds, Drand(1001, R1001_VALUE))).deck(
        0, rules.deck_size
    )
    return (first_dealer(rules, deck0) + 1) % rules.players


def hidden_of(record: dict[str, Any], seat: int) -> list[tuple[int, int, dict[str, Any]]]:
    """The seat's hidden events (its CardsDealt) in the match stream, in order, each with
    its deal number and part (FIRST until the bidding is over, then COMPLETION)."""
    out = []
    deal, over = -1, False
    for e in events(record, "match"):
        if e["type"] == "DealStarted":
            deal, over = e["payload"]["deal_number"], False
        elif e["type"] in ("ContractTaken", "MisereStarted"):
            over = True
        elif e["type"] == "CardsDealt" and e["payload"]["seat"] == seat:
            out.append((deal, COMPLETION if over else FIRST, e))
    return out


def salt_forged(nth: int, salt: bytes | int, seat: int = 0) -> Any:
    """A forge: the salt of ``seat``'s ``nth`` hidden event becomes ``salt`` (an int: the
    salt of its hidden event of that index), in the event and in its deck's list of salts
    (DeckSupplied), as a server that chose it would write both."""

    def forge(record: dict[str, Any]) -> None:
        hidden = hidden_of(record, seat)
        deal, part, event = hidden[nth]
        new = hidden[salt][2]["payload"]["salt"] if isinstance(salt, int) else salt.hex()
        event["payload"]["salt"] = new
        players = len(record["seats"])
        deck = next(
            e
            for e in events(record, "match")
            if e["type"] == "DeckSupplied" and e["payload"]["deal_number"] == deal
        )
        deck["payload"]["salts"][salt_index(players, seat, part)] = new

    return forge


def with_hashes(spec: MatchSpec) -> Any:
    """An edit: every message of the match's stream comes with its hash, as the log has
    it (a gateway serving the hashes while the match runs)."""

    def edit(feed: Feed) -> Feed:
        record = record_of(spec)
        hashes = {e["version"]: e["hash"] for e in events(record, "match")}
        stream = f"match-{record['match_id']}"
        return [
            {**m, "msg": {**m["msg"], "hash": hashes[m["msg"]["version"]]}}
            if m["msg"]["stream"] == stream
            else m
            for m in feed
        ]

    return edit


#: A match played with the same server seed as "9 a commitment used by another match"
#: (the same label, another match id): the verify API lists it first.
REUSED_BEFORE = MatchSpec(match_id="tab-reused-before", ruleset="club", label="tab-reused")

#: Made-up quicknet "signatures", 48 bytes nobody signed: as test_operator_attacks.py
#: makes one, and, more careful, a point of G1's subgroup (its generator times
#: 123456789, as the browser test's FORGED_G1) that only fails the pairing.
FAKE_SIGNATURE = hashlib.sha256(b"not drand").digest() + bytes(16)
FAKE_POINT = bytes.fromhex(
    "af95b8218cbee2f4fa48e6b6f1df4e8ee46fee73c270dba3"
    "95dad523d10c9b35295ccfc92cf0a9db8a065e16dafbfaad"
)

CASES = [
    # --- honest matches
    Case("honest club with drand", None, club("honest"), honest_relays()),
    Case(
        "honest gambler with drand (the first dealer drawn from deal 1's deck)",
        None,
        MatchSpec(match_id="tab-honest-g", ruleset="gambler", label="tab-honest-g"),
        honest_relays(),
    ),
    Case(
        "honest fallback, the relays down: could not check, not ok, not failed",
        None,
        club("honest-fb", drand="fallback"),
        DOWN,
        expect="unchecked",
        unchecked=("drand round", "drand fallback"),
    ),
    Case(
        "honest fallback, drand 6 s late: could not check that drand was late",
        None,
        club("honest-late", drand="fallback"),
        honest_relays(late={1002: 6_000}),
        expect="unchecked",
        unchecked=("drand fallback",),
    ),
    Case(
        "honest, aborted in the seed window, before the round was named: said, with who asked",
        None,
        MatchSpec(
            match_id="tab-abort-early", ruleset="classic", label="tab-abort-e", end="abort_early"
        ),
        honest_relays(),
        # The round is named after the match ended: the tab watched no relay then.
        expect="unchecked",
        unchecked=("drand round",),
        info=("abort",),
    ),
    Case(
        "9 aborted after a deck went out (its cards known when thrown away)",
        "abort",
        MatchSpec(match_id="tab-abort", ruleset="classic", label="tab-abort", end="abort"),
        honest_relays(),
        detail=r"aborted after a deck went out",
    ),
    Case(
        "9 a free reroll: aborted once drand's value was in, before deck 0",
        "abort",
        MatchSpec(
            match_id="tab-reroll", ruleset="classic", label="tab-reroll", end="abort_after_value"
        ),
        honest_relays(),
        detail=r"aborted after round 1001 was named",
    ),
    # --- 1. round grinding: the window held until the round's value was out
    Case(
        "1 round grinding: round 1002 named 1.5 s after this tab had its value",
        "drand round",
        club("grind", named_round=1002),
        honest_relays(),
        edit=lambda f: delay_from(f, "SeedWindowClosed", due_ms(1002) + 100 + 1_500),
        live_by="DrandRoundNamed",
        detail=r"1\.5 s before it saw round 1002 named: the server could have known",
    ),
    Case(
        "1 round grinding, the relays down: named 4 s after the round was due",
        "drand round",
        club("grind-down", named_round=1002),
        DOWN,
        edit=lambda f: delay_from(f, "SeedWindowClosed", due_ms(1002) + 4_000),
        live_by="DrandRoundNamed",
        # (By the clock alone: once the tab's own relays had 2 s to answer.)
        live_after_ms=2_000,
        detail=r"by this tab's clock, round 1002 was due 4\.0 s before the table named it",
    ),
    Case(
        "1 the next round named under a 6 s lead: too soon for a witness, maybe out",
        "drand round",
        club("too-early", round_lead_ms=0),
        honest_relays(),
        edit=claim_the_lead,
        live_by="DrandRoundNamed",
        detail=r"round 1001 was named, earlier than the rule's round 1003 \(the first due more"
        r" than the commitment's lead of 6\.0 s after the window closed\)",
    ),
    # --- 2. a sock puppet's seed picked once the round's value was out
    Case(
        "2 sock puppet: seat 2's seed picked after round 1001 was out, named 0.8 s after",
        "drand round",
        club("puppet", players=("ann", None, "puppet", None), seat_seeds=((2, puppet_seed()),)),
        honest_relays(),
        edit=lambda f: delay_from(f, "SeedWindowClosed", due_ms(1001) + 100 + 800),
        live_by="DrandRoundNamed",
        detail=r"round 1001's value .* 0\.8 s before it saw round 1001 named",
    ),
    # --- 3. a false fallback: a second deck sequence for the server to choose from
    Case(
        "3 false fallback: this tab had round 1002 0.5 s after it was due",
        "drand fallback",
        club("false-fb", drand="fallback"),
        honest_relays(late={1001: 500, 1002: 500}),
        live_by="DrandFallback",
        detail=r"4\.\d s before the table said it was late",
    ),
    Case(
        "3 false fallback told only in a catch-up: round 1002 came 3 s after 1001",
        "drand fallback",
        club("false-fb-replay", drand="fallback"),
        honest_relays(late={1001: 600, 1002: 500}),
        edit=lambda f: in_a_catch_up(f, "DrandFallback"),
        live_by="DrandFallback",
        detail="after round 1001's, which came on time",
    ),
    # --- 4. a seed acknowledged, then dropped or replaced
    Case(
        "4 dropped seed: acknowledged (receipt), then recorded missing",
        "your seed",
        club("dropped", dropped_seeds=(0,), window_ms=2_000),
        honest_relays(),
        receipt_version=2,
        live_by="SeedWindowClosed",
        detail=r"acknowledged your seed \(receipt: randomness-tab-dropped, version 2\), then the"
        r" window closed showing no seed",
    ),
    Case(
        "4 replaced seed: acknowledged (receipt), then another recorded for the seat",
        "your seed",
        club("replaced", seat_seeds=((0, hashlib.sha256(b"the server's").digest()[:16]),)),
        honest_relays(),
        live_by="SeedWindowClosed",
        detail="then the window closed showing [0-9a-f]{32} for your seat instead of",
    ),
    Case(
        "4 a receipt signed with a key that is not the match's (it would prove nothing)",
        "your seed",
        club("badsig"),
        honest_relays(),
        receipt_key_forged=True,
        live_by="SeedWindowClosed",
        detail=r"not signed with the match's receipt key",
    ),
    Case(
        "4 the verify API refuses to publish this seat's receipt (hiding it from others)",
        "receipt published",
        club("receipt-refused"),
        honest_relays(),
        detail="the verify API refused to publish the receipt for your seed",
        extra={"receipts_refused": True},
    ),
    Case(
        "4 sent without a receipt, and recorded missing",
        "your seed",
        club("dropped-silent", dropped_seeds=(0,), window_ms=2_000),
        honest_relays(),
        receipt=False,
        live_by="SeedWindowClosed",
        detail="^the seed this tab sent was not used",
    ),
    # --- a forfeit written for this seat (issue 28, case 4): belot verify's ``ending``
    # needs the seat's signature with the key the commitment recorded; what it cannot
    # see, a key the server recorded in place of the seat's, this seat's tab does.
    Case(
        "4 a forfeit signed with a key the server recorded in place of this seat's",
        "your key",
        club("server-key", end="forfeit", leave="server_key", leaver=0, after_deals=1),
        honest_relays(),
        also=("forfeit",),
        live_by="ServerSeedCommitted",
        detail="recorded a key for your seat .* that this page did not make",
    ),
    Case(
        "4 this seat's key left out of the commitment",
        "your key",
        club("no-key"),
        honest_relays(),
        forge=lambda r: find(r, "randomness", "ServerSeedCommitted")["payload"]["seats"][0].update(
            key=""
        ),
        live_by="ServerSeedCommitted",
        detail="recorded no key for your seat",
    ),
    # --- 5. the first dealer chosen, the whole match played from it
    Case(
        "5 club dealt first by seat 1, not seat 0",
        "dealer",
        club("dealer", first_dealer=1),
        honest_relays(),
        detail="^seat 1 dealt first, but the published rule gives seat 0",
    ),
    Case(
        "5 gambler dealt first by the seat the rule does not give",
        "dealer",
        MatchSpec(
            match_id="tab-dealer-g",
            ruleset="gambler",
            label="tab-dealer-g",
            first_dealer=other_dealer("gambler", "dealer-g"),
        ),
        honest_relays(),
        detail=r"the published rule gives seat \d \(card 32 of deal 1's deck",
    ),
    # --- 6. a made-up beacon, dealt from
    Case(
        "6 fake beacon, the relays down: a curve point nobody signed",
        "drand value",
        club("fake", beacon_signature=FAKE_POINT),
        DOWN,
        live_by="DrandBeaconVerified",
        extra={"unchecked_too": ["drand relay"]},
        detail="does not verify for round 1001 of quicknet",
    ),
    Case(
        "6 fake beacon, the relays answering: 48 bytes that are not even a point",
        "drand value",
        club("fake-up", beacon_signature=FAKE_SIGNATURE),
        honest_relays(),
        also=("drand relay",),
        live_by="DrandBeaconVerified",
        detail="is not a point of G1's prime-order subgroup",
    ),
    # --- 7. the salts: without them (or with the server's own) a hash of a hidden event
    # can be searched for the seat's cards
    Case(
        "7 no salts promised: the commitment turns them off",
        "salts",
        club("unsalted", salted=False),
        honest_relays(),
        live_by="ServerSeedCommitted",
        detail="^the commitment does not promise salts",
    ),
    Case(
        "7 a salt of zeros: the seat's first cards of deal 1",
        "your salts",
        club("salt-zeros"),
        honest_relays(),
        forge=salt_forged(0, bytes(16)),
        detail=r"^the salt of your first cards of deal 1 is 0{32}, the recipe gives [0-9a-f]{32}"
        r" \(salt 1 of deck k=0\): the server chose it",
    ),
    Case(
        "7 a salt repeated: the seat's second cards with the salt of its first",
        "your salts",
        club("salt-repeat"),
        honest_relays(),
        forge=salt_forged(1, 0),
        live_by="CardsDealt",
        live_nth=1,
        detail=r"came with the salt of your first cards of deal 1, [0-9a-f]{32}: two events,"
        r" one salt",
    ),
    Case(
        "7 a salt the server chose: well formed, its own, not the recipe's",
        "your salts",
        club("salt-chosen"),
        honest_relays(),
        forge=salt_forged(2, hashlib.sha256(b"the server's salt").digest()[:16]),
        detail=r"is [0-9a-f]{32}, the recipe gives [0-9a-f]{32} \(salt \d of deck k=\d+\): the"
        r" server chose it",
    ),
    # --- 8. the hashes served while the match runs: another seat searches them
    Case(
        "8 hashes served: the WebSocket's messages of the match come with their hashes",
        "hashes",
        club("hashes"),
        honest_relays(),
        edit=with_hashes(club("hashes")),
        live_by="MatchStarted",
        detail=r"^the server serves the hashes of a running match: another seat can search"
        r" your cards with them \(event 1 of match-tab-hashes \(MatchStarted\) came on the"
        r" WebSocket",
    ),
    # --- 9. a server seed used twice: the first match's reveal gives the second's decks
    Case(
        "9 a commitment used by another match: the same server seed as an earlier one",
        "commitment new",
        club("reused", players=("ann", None, "bob", None)),
        honest_relays(),
        live_by="ServerSeedCommitted",
        extra={"commitment_matches": [REUSED_BEFORE.match_id, "tab-reused"]},
        detail=r"^the verify API lists match tab-reused-before under this match's commitment"
        r" too \(asked when this tab saw the commitment\)",
    ),
    Case(
        "honest, the verify API down: could not check the commitment's other matches",
        None,
        club("honest-noverify"),
        honest_relays(),
        expect="unchecked",
        unchecked=("commitment new", "receipt published"),
        extra={"verify_down": True},
    ),
]


def attack_cases() -> dict[str, Any]:
    return {
        "rulesets": rulesets_json()["rulesets"],
        "beacons": beacons(),
        "grace_ms": DRAND_GRACE_MS,
        "max_window_ms": MAX_SEED_WINDOW_MS,
        "max_lead_ms": MAX_ROUND_LEAD_MS,
        "cases": [c.build() for c in CASES],
    }


def test_the_cases_are_what_they_say() -> None:
    """The records are the attacks: consistent, each with its forged input."""
    cases = {c.name: c.build() for c in CASES}
    grind = cases["1 round grinding: round 1002 named 1.5 s after this tab had its value"]
    assert at_of(grind["feed"], "DrandRoundNamed") == due_ms(1002) + 1_600
    named = next(m for m in grind["feed"] if m["msg"]["event"] == "DrandRoundNamed")
    assert named["msg"]["payload"]["round"] == 1002
    dropped = cases["4 dropped seed: acknowledged (receipt), then recorded missing"]
    closed = next(m for m in dropped["feed"] if m["msg"]["event"] == "SeedWindowClosed")
    assert closed["msg"]["payload"]["seat_seeds"][0] == ""
    assert closed["msg"]["payload"]["missing"] == [0]
    assert not any(
        m["msg"]["event"] == "SeatSeedReceived" and m["msg"]["payload"]["seat"] == 0
        for m in dropped["feed"]
    )
    by_name = {c.name: c for c in CASES}
    # The salts: the forged records are chained over what they say (a careful forger),
    # the deck's list of salts saying the same as the seat's event.
    zeros = by_name["7 a salt of zeros: the seat's first cards of deal 1"].record()
    assert [e["hash"] for e in events(copy.deepcopy(zeros), "match")] == [
        e["hash"] for e in events(rechain(copy.deepcopy(zeros)), "match")
    ]
    deal, part, event = hidden_of(zeros, 0)[0]
    assert (deal, part, event["payload"]["salt"]) == (0, FIRST, "00" * 16)
    deck = next(e for e in events(zeros, "match") if e["type"] == "DeckSupplied")
    assert deck["payload"]["salts"][salt_index(4, 0, FIRST)] == "00" * 16
    repeated = by_name["7 a salt repeated: the seat's second cards with the salt of its first"]
    repeat = hidden_of(repeated.record(), 0)
    assert repeat[1][2]["payload"]["salt"] == repeat[0][2]["payload"]["salt"]
    chosen_case = by_name["7 a salt the server chose: well formed, its own, not the recipe's"]
    deal, part, event = hidden_of(chosen_case.record(), 0)[2]
    recipe = deal_salts(server_seed_of(chosen_case.spec), deal, 9)[salt_index(4, 0, part)]
    assert event["payload"]["salt"] != recipe.hex()
    assert len({e["payload"]["salt"] for _, _, e in hidden_of(chosen_case.record(), 0)}) == len(
        hidden_of(chosen_case.record(), 0)
    )
    # No salts promised: the commitment says so, and the hidden events carry none.
    unsalted = record_of(club("unsalted", salted=False))
    commit = next(e for e in events(unsalted, "randomness") if e["type"] == "ServerSeedCommitted")
    assert not commit["payload"].get("salted")
    assert {e["payload"]["salt"] for _, _, e in hidden_of(unsalted, 0)} == {""}
    # The hashes served: every message of the match's stream before its end carries one.
    served = cases["8 hashes served: the WebSocket's messages of the match come with their hashes"]
    match_msgs = [m["msg"] for m in served["feed"] if m["msg"]["stream"] == "match-tab-hashes"]
    assert match_msgs and all(len(m["hash"]) == 64 for m in match_msgs)
    assert not any("hash" in m["msg"] for m in cases["honest club with drand"]["feed"])
    # The commitment used twice: the earlier match was dealt from the same server seed.
    reused = cases["9 a commitment used by another match: the same server seed as an earlier one"]
    assert (
        record_of(REUSED_BEFORE)["fair_deal"]["commitment"]
        == (record_of(by_name[reused["name"]].spec)["fair_deal"]["commitment"])
    )
    assert reused["commitment_matches"] == ["tab-reused-before", reused["match_id"]]
    fake = cases["6 fake beacon, the relays down: a curve point nobody signed"]
    beacon = next(m for m in fake["feed"] if m["msg"]["event"] == "DrandBeaconVerified")
    assert beacon["msg"]["payload"]["signature"] == FAKE_POINT.hex()
    assert beacon["msg"]["payload"]["randomness"] == hashlib.sha256(FAKE_POINT).hexdigest()


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the tab's tests need it")
def test_the_tab_catches_every_attack(tmp_path: Path) -> None:
    assert NODE is not None
    path = tmp_path / "attacks.json"
    data = attack_cases()
    path.write_text(json.dumps(data), encoding="utf-8")
    results = tmp_path / "attacks.results.json"
    proc = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "test" / "attacks.test.mjs")],
        capture_output=True,
        encoding="utf-8",
        timeout=180,
        cwd=ROOT,
        env={
            **os.environ,
            "BELOT_TAB_ATTACKS": str(path),
            "BELOT_TAB_ATTACKS_RESULTS": str(results),
        },
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# skipped 0" in proc.stdout, proc.stdout[-2000:]
    ran = {r["name"]: r for r in json.loads(results.read_text(encoding="utf-8"))}
    assert set(ran) == {c["name"] for c in data["cases"]}, "every case was run"
    for c in data["cases"]:
        r = ran[c["name"]]
        if c["check"] is None:
            assert r["failed"] == [], (c["name"], r)
            assert r["ok"] is (c["expect"] == "ok"), (c["name"], r)
        else:
            assert c["check"] in r["failed"] and r["ok"] is False, (c["name"], r)
