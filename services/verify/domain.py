"""The verify service's pure parts: the row an ended match makes in the finished-matches
projection, read from its two streams (:mod:`services.verify.store` keeps the rows).
The checks themselves are :mod:`fairdeal.verifier`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from eventkit import streams
from eventlog.envelope import RecordedEvent
from fairdeal.record import MATCH_FORFEITED


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
