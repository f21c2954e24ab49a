"""The verify service's pure parts: the row an ended match makes in the finished-matches
projection, read from its two streams (:mod:`services.verify.store` keeps the rows),
and the fair-play evidence of the kept decisions (:mod:`services.verify.fairplay` runs
the job and answers the operators). The checks themselves are :mod:`fairdeal.verifier`'s.
"""

from __future__ import annotations

import random
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from urllib.parse import quote

from belot.analysis import CardAnalysis, DealAnalysis, MatchAnalysis
from belot.events import CardPlayed, Event, MatchStarted
from belot.fairplay import Chances, Decision, Evidence, decisions, evidence, world_chances
from belot.ruleset import RULESETS
from belot.seats import side_of
from belot.view import SeatView
from eventkit import streams
from eventlog.envelope import RecordedEvent
from fairdeal.record import MATCH_FORFEITED, RecordError, decode, parse_record

#: Where a kept decision's position opens (the client's replay page).
REPLAY_ROUTE: Final = "/#/replay/"


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    match_id: str
    ruleset: str
    players: list[str]
    ended_by: str
    winner: int | None
    scores: list[int]
    ended_position: int
    ended_at: datetime
    revealed: bool
    dealt_with_drand: bool | None


def _int_or_none(v: Any) -> int | None:
    return v if type(v) is int else None


def _scores(v: Any) -> list[int]:
    if isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v):
        return list(v)
    return [0, 0]


def summarize_end(
    end: RecordedEvent, match_events: list[RecordedEvent], fair_events: list[RecordedEvent]
) -> FinishedMatch:
    """The row of an ended match, from its two streams (payloads read defensively: the
    projection lists what the log says; the verifier judges it)."""
    match_id = end.stream_id.removeprefix(streams.MATCH)
    started = match_events[0].payload if match_events else {}
    ruleset = started.get("ruleset") if isinstance(started, dict) else None
    payload = end.payload if isinstance(end.payload, dict) else {}
    last_scored = next((e.payload for e in reversed(match_events) if e.type == "DealScored"), None)
    scores = _scores(last_scored.get("scores")) if isinstance(last_scored, dict) else [0, 0]
    if end.type == "MatchEnded":
        winner, scores = _int_or_none(payload.get("winner")), _scores(payload.get("scores"))
    elif end.type == MATCH_FORFEITED:
        winner = _int_or_none(payload.get("winner_side"))
    else:
        winner = None
    players: list[str] = []
    drand: bool | None = None
    revealed = False
    for e in fair_events:
        p = e.payload if isinstance(e.payload, dict) else {}
        if e.type == "ServerSeedCommitted":
            seats = p.get("seats")
            if isinstance(seats, list):
                players = [
                    s["player"]
                    for s in seats
                    if isinstance(s, dict) and isinstance(s.get("player"), str)
                ]
        elif e.type == "DrandBeaconVerified":
            drand = True
        elif e.type == "DrandFallback":
            drand = False
        elif e.type == "ServerSeedRevealed":
            revealed = True
    return FinishedMatch(
        match_id=match_id,
        ruleset=ruleset if isinstance(ruleset, str) else "",
        players=players,
        ended_by=end.type,
        winner=winner,
        scores=scores,
        ended_position=end.position,
        ended_at=end.recorded_at,
        revealed=revealed,
        dealt_with_drand=drand,
    )


class FairPlayError(ValueError):
    """A match whose decisions cannot be computed (kept as ``failed``, with why)."""


class Stopped(Exception):
    """The job was stopped while a thread computed a match (nothing is kept)."""


# --- pure: a match's decisions, by seat --------------------------------------------------


def analysis_from_json(doc: Mapping[str, Any]) -> MatchAnalysis:
    """The stored analysis (belot-analysis/1) as :class:`MatchAnalysis`: its cards, which
    is what :func:`belot.fairplay.decisions` reads (no contract table, no accuracy)."""
    deals = []
    for d in doc["deals"]:
        cards = tuple(
            CardAnalysis(
                deal=c["deal"], trick=c["trick"], index=c["index"], seat=c["seat"],
                card=c["card"], values=dict(c["values"]), best=tuple(c["best"]),
                loss=c["loss"], margin=c["margin"],
            )
            for c in d["cards"]
        )  # fmt: skip
        deals.append(DealAnalysis(d["deal"], d["strain"], d["taker"], cards, (), d["start"]))
    return MatchAnalysis(doc["match_id"], doc["ruleset"], tuple(deals), ())


@dataclass(frozen=True, slots=True)
class SeatDecisions:
    """One account's seat in a match, and every card it played."""

    seat: int
    player: str
    decisions: tuple[Decision, ...]


def match_decisions(
    record: Mapping[str, Any], analysis: Mapping[str, Any], stop: threading.Event | None = None
) -> list[SeatDecisions]:
    """Every account's seat of the finished match ``record`` (a bot's seat has none) and
    the cards it played, from the record's events, their ``acted_by`` and the stored
    ``analysis``. Raises :class:`FairPlayError`. CPU-bound: run it in a thread; once
    ``stop`` is set, it raises :class:`Stopped` before the next decision's worlds are
    solved (a cancelled task cannot stop its thread, and a match's solves take seconds)."""

    try:
        parsed = parse_record(record)
    except RecordError as exc:
        raise FairPlayError(f"not a match record: {exc}") from None
    accounts: dict[int, str] = {}
    for s in record.get("seats") or []:
        if isinstance(s, dict) and s.get("human") is True:
            seat, player = s.get("seat"), s.get("player")
            if type(seat) is int and isinstance(player, str) and player:
                accounts[seat] = player
    if not accounts:
        return []  # a match of bots: nobody's evidence, nothing to search

    def chances(seat_view: SeatView, rng: random.Random) -> Chances | None:
        if stop is not None and stop.is_set():
            raise Stopped
        if seat_view.seat not in accounts:
            return None  # a bot's seat keeps no row: its worlds are not solved
        return world_chances(seat_view, rng)

    pairs = decode(parsed.match.events, ()).match
    events = [item for _, item in pairs if isinstance(item, Event)]
    if not events or not isinstance(events[0], MatchStarted):
        raise FairPlayError("the match stream does not start with MatchStarted")
    ruleset = RULESETS.get(events[0].ruleset)
    if ruleset is None:
        raise FairPlayError(f"unknown ruleset {events[0].ruleset!r}")
    acted: list[str | None] = []
    for env, item in pairs:
        if isinstance(item, CardPlayed):
            who = env.metadata.get("acted_by") if isinstance(env.metadata, dict) else None
            acted.append(who if isinstance(who, str) else None)
    try:
        made = decisions(ruleset, events, analysis_from_json(analysis), chances, acted)
    except (ValueError, KeyError, TypeError) as exc:
        raise FairPlayError(f"{type(exc).__name__}: {exc}") from None
    return [
        SeatDecisions(seat, player, tuple(d for d in made if d.seat == seat))
        for seat, player in accounts.items()
    ]


# --- pure: the evidence over a window of deals -------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A stored row: an account's seat in a match (ended at ``position``)."""

    match_id: str
    position: int
    seat: int
    player: str
    decisions: tuple[Decision, ...]


@dataclass(frozen=True, slots=True)
class Placed:
    """A decision and the match it was made in."""

    match_id: str
    decision: Decision

    @property
    def replay(self) -> str:
        """The replay opened at the decision's card (its deal, trick and place in it)."""
        d = self.decision
        return f"{REPLAY_ROUTE}{quote(self.match_id, safe='')}/{d.deal}/{d.trick}/{d.index}"

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            **self.decision.to_json(),
            "replay": self.replay,
        }


@dataclass(frozen=True, slots=True)
class Partnership:
    partner: str
    deals: int
    evidence: Evidence
    placed: tuple[Placed, ...]


@dataclass(frozen=True, slots=True)
class PlayerEvidence:
    """A player's evidence over its last deals: its own seats', and each partnership's
    (both seats' decisions of the deals the two sat together)."""

    player: str
    matches: int
    deals: int
    evidence: Evidence
    placed: tuple[Placed, ...]
    partners: tuple[Partnership, ...]

    @property
    def flagged(self) -> bool:
        """Its own evidence, or a partnership's, reaches the flag: for a person to review."""
        return self.evidence.flagged or any(p.evidence.flagged for p in self.partners)

    def to_json(self, *, with_decisions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player": self.player, "matches": self.matches, "deals": self.deals,
            "flagged": self.flagged, "evidence": self.evidence.to_json(),
            "partners": [
                {"player": p.partner, "deals": p.deals, "evidence": p.evidence.to_json(),
                 **({"decisions": counted(p.placed)} if with_decisions else {})}
                for p in self.partners
            ],
        }  # fmt: skip
        if with_decisions:
            out["decisions"] = counted(self.placed)
        return out


def counted(placed: Iterable[Placed]) -> list[dict[str, Any]]:
    """The decisions :func:`belot.fairplay.evidence` counts (a choice in the true deal
    and in some of the worlds, the player's own card), as JSON."""
    return [p.to_json() for p in placed if p.decision.counted]


def _evidence(placed: Sequence[Placed]) -> Evidence:
    return evidence(p.decision for p in placed)


def player_evidence(rows: Sequence[SeatRow], window: int) -> dict[str, PlayerEvidence]:
    """Each player's evidence over its last ``window`` deals (the latest match first,
    its last deal first), from the stored rows of every match concerned (the partners'
    rows included)."""
    by_match: dict[str, list[SeatRow]] = defaultdict(list)
    for r in rows:
        by_match[r.match_id].append(r)
    by_player: dict[str, list[SeatRow]] = defaultdict(list)
    for r in rows:
        by_player[r.player].append(r)
    out = {}
    for player, mine in by_player.items():
        mine.sort(key=lambda r: (r.position, r.match_id), reverse=True)
        kept: list[tuple[SeatRow, set[int]]] = []
        left = window
        for r in mine:
            if left <= 0:
                break
            last = sorted({d.deal for d in r.decisions}, reverse=True)[:left]
            if last:
                kept.append((r, set(last)))
                left -= len(last)
        placed = tuple(
            Placed(r.match_id, d) for r, deals in kept for d in r.decisions if d.deal in deals
        )
        together: dict[str, list[Placed]] = defaultdict(list)
        shared: dict[str, int] = defaultdict(int)
        for r, deals in kept:
            for q in by_match[r.match_id]:
                if q.seat == r.seat or side_of(q.seat) != side_of(r.seat) or q.player == player:
                    continue
                shared[q.player] += len(deals & {d.deal for d in q.decisions})
                together[q.player].extend(
                    Placed(r.match_id, d) for d in (*r.decisions, *q.decisions) if d.deal in deals
                )
        partners = sorted(
            (Partnership(q, shared[q], _evidence(ps), tuple(ps)) for q, ps in together.items()),
            key=lambda p: (-p.evidence.score, p.partner),
        )
        out[player] = PlayerEvidence(
            player, len(kept), window - left, _evidence(placed), placed, tuple(partners)
        )
    return out


def listed(found: Mapping[str, PlayerEvidence]) -> list[PlayerEvidence]:
    """The players with counted decisions, flagged ones first, then by score."""
    return sorted(
        (p for p in found.values() if p.evidence.n),
        key=lambda p: (not p.flagged, -p.evidence.score, p.player),
    )


# --- the job and the store ---------------------------------------------------------------
