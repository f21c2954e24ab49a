"""Tiny builders for tournament tests: a run that decides and applies in one step,
keeping every event, as the tournament service does."""

from __future__ import annotations

from collections.abc import Iterable

from fairdeal.chains import QUICKNET
from fairdeal.draw import DRAW_ROUND_LEAD_MS
from tools.drand_vectors import QUICKNET_BEACONS
from tournament import commands as c
from tournament.settings import Format, Outcome, Settings
from tournament.state import Match, Tournament, evolve

W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
T0 = 1_700_000_000_000  # unix milliseconds
SECOND = 1000
#: Real quicknet signatures by round (tests/data/drand-quicknet.json).
SIGNATURES = {int(b["round"]): bytes.fromhex(b["signature"]) for b in QUICKNET_BEACONS}
#: A time to name a draw at whose round is a recorded one (1001, the first due more
#: than the lead after it).
DRAW_T0 = QUICKNET.time_of_round(1000) * 1000 - DRAW_ROUND_LEAD_MS + 500


class Run:
    def __init__(self, settings: Settings, entrants: Iterable[str] = (), now_ms: int = T0):
        self.state = Tournament()
        self.events: list = []
        self.now_ms = now_ms
        self.do(c.create(self.state, "t1", settings, now_ms))
        for e in entrants:
            self.do(c.enter(self.state, e, now_ms))

    def do(self, events: list) -> list:
        for e in events:
            self.state = evolve(self.state, e)
        self.events += events
        return events

    def pair(self, **kw) -> list:
        return self.do(c.pair_next_round(self.state, len(self.state.rounds) + 1, self.now_ms, **kw))

    def draw(self, **kw) -> list:
        """The named round's real beacon comes in (the clock moves to its due time)."""
        named = self.state.naming
        assert named is not None, "no draw named"
        self.now_ms = max(self.now_ms, named.due_at_ms)
        return self.do(
            c.make_draw(self.state, named.round, SIGNATURES[named.round], self.now_ms, **kw)
        )

    def pairs(self, round_no: int | None = None) -> list[tuple[str, ...]]:
        """Round ``round_no``'s (default: the current) pairings as ('a', 'b') or ('a',)."""
        r = self.state.rounds[(round_no or len(self.state.rounds)) - 1]
        return [(*m.pairing.a, *m.pairing.b) for m in r.matches]

    def match(self, x: str) -> Match:
        found = self.state.match_of(x)
        assert found is not None, f"{x} has no undecided match"
        return found[1]

    def result(self, x: str, outcome: Outcome, scored: int = 0, conceded: int = 0) -> list:
        """``x`` (side a or b of its undecided match) gets ``outcome``."""
        m = self.match(x)
        other = {W: L, L: W, D: D}[outcome]
        if x in m.pairing.a:
            a, b, pa, pb = outcome, other, scored, conceded
        else:
            a, b, pa, pb = other, outcome, conceded, scored
        round_no = self.state.current.number
        return self.do(
            c.record_result(
                self.state,
                round_no,
                m.pairing.match,
                a,
                b,
                self.now_ms,
                a_points=pa,
                b_points=pb,
                game=len(m.games) + 1,
            )
        )

    def wins(self, *winners: str) -> None:
        for x in winners:
            self.result(x, W)

    def finish_round(self, outcome: Outcome = D) -> None:
        """Every undecided match of the current round ends with side a's ``outcome``."""
        while self.state.undecided(self.state.current):
            m = self.state.undecided(self.state.current)[0]
            self.result(m.pairing.a[0], outcome)

    @property
    def finished(self):
        return self.state.finished


def swiss(rounds: int = 3, **kw) -> Settings:
    return Settings(Format.SWISS, rounds=rounds, **kw)


def robin(**kw) -> Settings:
    return Settings(Format.ROUND_ROBIN, **kw)


def knockout(**kw) -> Settings:
    return Settings(Format.ELIMINATION, **kw)


def ladder(**kw) -> Settings:
    return Settings(Format.LADDER, **kw)
