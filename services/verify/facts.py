"""What no single record can show, kept from the whole log: the platform's facts.

A dishonest operator can make each record look right on its own. Across records it
cannot hide:

- **a commitment used twice** (``verify_commitments``): the same server seed for two
  matches is a seed known before the second began;
- **a round whose matches disagree** (``verify_named_rounds``, ``verify_round_facts``):
  a fallback is one public fact about a drand round, so every match that named a missed
  round is dealt without drand and none that named a round whose value came;
- **the rates anyone can watch** (``verify_endings``, ``verify_seeds``, and the two
  above): how often rounds are declared missed and matches dealt without drand, how
  often a match is aborted after its cards went out, how often a human seat's seed is
  missing. An operator who chose decks through any of these would move these figures.

Fed by the same subscription as the finished-matches projection (:mod:`.projection`),
one event at a time; every write is an idempotent upsert keyed by the match (or round),
so a replay after a restart, or two replicas, change nothing. The tables, their
migration and queries are the store's (:mod:`services.verify.store.facts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from eventkit import streams
from eventlog import RecordedEvent
from services.verify.store import FactStore, Pool, ReadPool

#: The windows /v1/stats reports.
WINDOWS: Final = {"all": None, "last_24h": "24 hours"}


@dataclass(frozen=True, slots=True)
class RoundMatches:
    """A round's fact (its type, None if none yet) and every match that named it."""

    chain: str
    round: int
    fact: str | None
    matches: list[tuple[str, bool | None]]


def _rate(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(part / whole, 6)


#: The events :meth:`Facts.handle` takes into account (the verify service's follower
#: reads no other: services.verify.projection.HANDLED).
FACT_TYPES: Final = frozenset(
    {
        "ServerSeedCommitted",
        "SeedWindowClosed",
        "DrandRoundNamed",
        "DrandBeaconVerified",
        "DrandFallback",
        "DrandRoundBeacon",
        "DrandRoundMissed",
    }
)


class Facts:
    """The cross-match facts: written on ``pool`` (the primary), queried on ``reads``
    (:mod:`services.verify.store.reads`; default: ``pool``)."""

    def __init__(self, pool: Pool, schema: str, reads: ReadPool | None = None) -> None:
        reads = ReadPool(pool, replicas=False) if reads is None else reads
        self._store = FactStore(pool, schema, reads)

    async def handle(self, e: RecordedEvent) -> bool:
        """Take a public fair-deal fact into account; True if it wrote something."""
        if e.type not in FACT_TYPES or e.visibility != "public" or not isinstance(e.payload, dict):
            return False
        p = e.payload
        if e.stream_id.startswith(streams.RANDOMNESS):
            match_id = e.stream_id.removeprefix(streams.RANDOMNESS)
            if e.type == "ServerSeedCommitted" and isinstance(p.get("commitment"), str):
                await self._store.add_commitment(p["commitment"], match_id, e.recorded_at)
                return True
            if e.type == "SeedWindowClosed":
                seeds, missing = p.get("seat_seeds"), p.get("missing")
                if not isinstance(seeds, list) or not isinstance(missing, list):
                    return False
                humans = sum(1 for x in seeds if x) + len(missing)
                await self._store.add_seeds(match_id, humans, len(missing), e.recorded_at)
                return True
            if e.type == "DrandRoundNamed":
                chain, round_ = p.get("chain"), p.get("round")
                if not isinstance(chain, str) or type(round_) is not int:
                    return False
                await self._store.name_round(match_id, chain, round_, e.recorded_at)
                return True
            if e.type in ("DrandBeaconVerified", "DrandFallback"):
                await self._store.resolve_round(match_id, e.type == "DrandBeaconVerified")
                return True
            return False
        if e.stream_id.startswith(streams.DRAND) and e.version == 1:
            chain, round_ = p.get("chain"), p.get("round")
            if e.type not in ("DrandRoundBeacon", "DrandRoundMissed"):
                return False
            if not isinstance(chain, str) or type(round_) is not int:
                return False
            await self._store.add_round_fact(chain, round_, e.type, e.recorded_at)
            return True
        return False

    async def record_ending(self, end: RecordedEvent, fair_events: list[RecordedEvent]) -> None:
        """A match's end, with how many decks had gone out (an abort after one is a match
        thrown away by someone who could know its cards)."""
        payload = end.payload if isinstance(end.payload, dict) else {}
        by = payload.get("by") if end.type == "MatchAborted" else None
        decks = sum(1 for e in fair_events if e.type == "DeckIssued")
        await self._store.add_ending(
            end.stream_id.removeprefix(streams.MATCH),
            end.type,
            by if isinstance(by, str) else None,
            decks,
            end.recorded_at,
        )

    # ------------------------------------------------------------------ queries

    async def commitment_users(self, commitment: str) -> list[str]:
        return await self._store.commitment_users(commitment)

    async def round_matches(self, chain: str, round_: int) -> RoundMatches:
        fact, matches = await self._store.round_matches(chain, round_)
        return RoundMatches(chain, round_, fact, matches)

    async def stats(self) -> dict[str, Any]:
        """The figures anyone can watch, over all time and the last 24 hours."""
        out: dict[str, Any] = {}
        for name, interval in WINDOWS.items():
            counts = await self._store.counts(interval)
            rounds, dealt, ends = counts["rounds"], counts["dealt"], counts["ends"]
            seeds, reused = counts["seeds"], counts["reused"]
            out[name] = {
                "rounds": {
                    "facts": rounds["facts"],
                    "missed": rounds["missed"],
                    "missed_rate": _rate(rounds["missed"], rounds["facts"]),
                },
                "matches": {
                    "dealt": dealt["resolved"],
                    "without_drand": dealt["without_drand"],
                    "fallback_rate": _rate(dealt["without_drand"], dealt["resolved"]),
                    "ended": ends["ended"],
                    "forfeited": ends["forfeited"],
                    "aborted": ends["aborted"],
                    "aborted_after_deck": ends["aborted_after_deck"],
                    "abort_after_deck_rate": _rate(ends["aborted_after_deck"], ends["ended"]),
                    "aborted_after_round": ends["aborted_after_round"],
                    "abort_after_round_rate": _rate(ends["aborted_after_round"], ends["ended"]),
                },
                "seats": {
                    "human": int(seeds["humans"]),
                    "missing_seed": int(seeds["missing"]),
                    "missing_seed_rate": _rate(int(seeds["missing"]), int(seeds["humans"])),
                },
                "commitments_used_twice": reused,
            }
        return out
