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

Fed by the same subscription as the finished-matches projection (:mod:`.store`),
one event at a time; every write is an idempotent upsert keyed by the match (or round),
so a replay after a restart, or two replicas, change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from eventkit import streams
from eventlog import RecordedEvent
from eventlog.migrations import quote_schema
from services.verify.reads import ReadPool

#: The projection's migration 2 (:data:`services.verify.store.COMPONENT`).
FACTS_MIGRATION: Final = """
CREATE TABLE IF NOT EXISTS {s}.verify_commitments (
    commitment  text NOT NULL,
    match_id    text NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (commitment, match_id)
);
CREATE TABLE IF NOT EXISTS {s}.verify_named_rounds (
    match_id    text PRIMARY KEY,
    chain       text NOT NULL,
    round       bigint NOT NULL,
    -- true: dealt from drand; false: without; NULL: not resolved yet
    with_drand  boolean,
    recorded_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS verify_named_rounds_round ON {s}.verify_named_rounds (chain, round);
CREATE TABLE IF NOT EXISTS {s}.verify_round_facts (
    chain       text NOT NULL,
    round       bigint NOT NULL,
    type        text NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (chain, round)
);
CREATE TABLE IF NOT EXISTS {s}.verify_seeds (
    match_id    text PRIMARY KEY,
    humans      integer NOT NULL,
    missing     integer NOT NULL,
    recorded_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS {s}.verify_endings (
    match_id     text PRIMARY KEY,
    ended_by     text NOT NULL,
    aborted_by   text,
    decks_issued integer NOT NULL,
    recorded_at  timestamptz NOT NULL
);
"""

#: What the verify role may do to these tables: add facts; a named round's outcome is
#: set once it is known.
FACTS_PRIVILEGES: Final = {
    "verify_commitments": "SELECT, INSERT",
    "verify_named_rounds": "SELECT, INSERT, UPDATE",
    "verify_round_facts": "SELECT, INSERT",
    "verify_seeds": "SELECT, INSERT",
    "verify_endings": "SELECT, INSERT",
}

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
#: reads no other: services.verify.store.HANDLED).
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
    """The cross-match tables of the verify service's schema: written on ``pool`` (the
    primary), queried on ``reads`` (:mod:`services.verify.reads`; default: ``pool``)."""

    def __init__(self, pool: asyncpg.Pool, schema: str, reads: ReadPool | None = None) -> None:
        self._pool = pool
        self._reads = ReadPool(pool, replicas=False) if reads is None else reads
        self._s = quote_schema(schema)

    async def handle(self, e: RecordedEvent) -> bool:
        """Take a public fair-deal fact into account; True if it wrote something."""
        if e.type not in FACT_TYPES or e.visibility != "public" or not isinstance(e.payload, dict):
            return False
        p, s = e.payload, self._s
        if e.stream_id.startswith(streams.RANDOMNESS):
            match_id = e.stream_id.removeprefix(streams.RANDOMNESS)
            if e.type == "ServerSeedCommitted" and isinstance(p.get("commitment"), str):
                await self._pool.execute(
                    f"INSERT INTO {s}.verify_commitments VALUES ($1, $2, $3)"
                    " ON CONFLICT DO NOTHING",
                    p["commitment"],
                    match_id,
                    e.recorded_at,
                )
                return True
            if e.type == "SeedWindowClosed":
                seeds, missing = p.get("seat_seeds"), p.get("missing")
                if not isinstance(seeds, list) or not isinstance(missing, list):
                    return False
                humans = sum(1 for x in seeds if x) + len(missing)
                await self._pool.execute(
                    f"INSERT INTO {s}.verify_seeds VALUES ($1, $2, $3, $4)"
                    " ON CONFLICT (match_id) DO NOTHING",
                    match_id,
                    humans,
                    len(missing),
                    e.recorded_at,
                )
                return True
            if e.type == "DrandRoundNamed":
                chain, round_ = p.get("chain"), p.get("round")
                if not isinstance(chain, str) or type(round_) is not int:
                    return False
                await self._pool.execute(
                    f"INSERT INTO {s}.verify_named_rounds VALUES ($1, $2, $3, NULL, $4)"
                    " ON CONFLICT (match_id) DO NOTHING",
                    match_id,
                    chain,
                    round_,
                    e.recorded_at,
                )
                return True
            if e.type in ("DrandBeaconVerified", "DrandFallback"):
                await self._pool.execute(
                    f"UPDATE {s}.verify_named_rounds SET with_drand = $2 WHERE match_id = $1",
                    match_id,
                    e.type == "DrandBeaconVerified",
                )
                return True
            return False
        if e.stream_id.startswith(streams.DRAND) and e.version == 1:
            chain, round_ = p.get("chain"), p.get("round")
            if e.type not in ("DrandRoundBeacon", "DrandRoundMissed"):
                return False
            if not isinstance(chain, str) or type(round_) is not int:
                return False
            await self._pool.execute(
                f"INSERT INTO {s}.verify_round_facts VALUES ($1, $2, $3, $4)"
                " ON CONFLICT DO NOTHING",
                chain,
                round_,
                e.type,
                e.recorded_at,
            )
            return True
        return False

    async def record_ending(self, end: RecordedEvent, fair_events: list[RecordedEvent]) -> None:
        """A match's end, with how many decks had gone out (an abort after one is a match
        thrown away by someone who could know its cards)."""
        payload = end.payload if isinstance(end.payload, dict) else {}
        by = payload.get("by") if end.type == "MatchAborted" else None
        decks = sum(1 for e in fair_events if e.type == "DeckIssued")
        await self._pool.execute(
            f"INSERT INTO {self._s}.verify_endings VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (match_id) DO NOTHING",
            end.stream_id.removeprefix(streams.MATCH),
            end.type,
            by if isinstance(by, str) else None,
            decks,
            end.recorded_at,
        )

    # ------------------------------------------------------------------ queries

    async def commitment_users(self, commitment: str) -> list[str]:
        rows = await self._reads.fetch(
            f"SELECT match_id FROM {self._s}.verify_commitments WHERE commitment = $1"
            " ORDER BY recorded_at, match_id",
            commitment,
        )
        return [r["match_id"] for r in rows]

    async def round_matches(self, chain: str, round_: int) -> RoundMatches:
        fact = await self._reads.fetchval(
            f"SELECT type FROM {self._s}.verify_round_facts WHERE chain = $1 AND round = $2",
            chain,
            round_,
        )
        rows = await self._reads.fetch(
            f"SELECT match_id, with_drand FROM {self._s}.verify_named_rounds"
            " WHERE chain = $1 AND round = $2 ORDER BY recorded_at, match_id",
            chain,
            round_,
        )
        return RoundMatches(chain, round_, fact, [(r["match_id"], r["with_drand"]) for r in rows])

    async def stats(self) -> dict[str, Any]:
        """The figures anyone can watch, over all time and the last 24 hours."""
        out: dict[str, Any] = {}
        for name, interval in WINDOWS.items():
            since = "" if interval is None else f"WHERE recorded_at > now() - interval '{interval}'"
            s = self._s
            rounds = await self._reads.fetchrow(
                f"SELECT count(*) AS facts,"
                f" count(*) FILTER (WHERE type = 'DrandRoundMissed') AS missed"
                f" FROM {s}.verify_round_facts {since}"
            )
            dealt = await self._reads.fetchrow(
                f"SELECT count(with_drand) AS resolved,"
                f" count(*) FILTER (WHERE with_drand = false) AS without_drand"
                f" FROM {s}.verify_named_rounds {since}"
            )
            ends = await self._reads.fetchrow(
                f"SELECT count(*) AS ended,"
                f" count(*) FILTER (WHERE ended_by = 'MatchForfeited') AS forfeited,"
                f" count(*) FILTER (WHERE ended_by = 'MatchAborted') AS aborted,"
                f" count(*) FILTER (WHERE ended_by = 'MatchAborted' AND decks_issued > 0)"
                f" AS aborted_after_deck,"
                # After the round was named, its value is out within seconds and every
                # deck can be computed: the verifier's ``ending`` fails such an abort,
                # deck or no deck, and this is how often it happens.
                f" count(*) FILTER (WHERE ended_by = 'MatchAborted' AND (decks_issued > 0"
                f" OR EXISTS (SELECT 1 FROM {s}.verify_named_rounds n"
                f" WHERE n.match_id = e.match_id AND n.recorded_at <= e.recorded_at)))"
                f" AS aborted_after_round"
                f" FROM {s}.verify_endings e {since}"
            )
            seeds = await self._reads.fetchrow(
                f"SELECT coalesce(sum(humans), 0) AS humans,"
                f" coalesce(sum(missing), 0) AS missing FROM {s}.verify_seeds {since}"
            )
            reused = await self._reads.fetchval(
                f"SELECT count(*) FROM (SELECT commitment FROM {s}.verify_commitments"
                f" {since} GROUP BY commitment HAVING count(*) > 1) AS twice"
            )
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
