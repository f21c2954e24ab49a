"""The hard bot against colver's agents, in duplicate, on the card play of classic deals;
and the hard bot against medium in whole matches.

**Colver** (PyPI ``colver``, the ``bench`` extra) is a Rust engine for Belote Contrée.
Its trick rules are classic's but for one house variant (below). Its ``Agent`` is built
from a spec; the one measured here is IS-DD, double-dummy solves over sampled worlds:

    [play] method = "isdd", determinizations = 8, time_ms = 0, parallel = false
    [worlds] source = "uniform"

which needs no model weights.

**Deals.** Classic decks from the fair-deal recipe (server seed
``SHA-256("bench/arena|<seed>")``, deal ``k``'s deck is ``Shuffler.deck(k)``, the dealer
rotating), bid by the bots' own bidding at every seat (deterministic: the same hands
give the same contract whoever sits there). A deck that every seat passes is skipped.
Once the hands are complete the position is loaded into colver with
``Env.deal_with_hands`` (the same hands, mapped to colver's card numbering),
``set_contract`` (the trump, value 80, the taker's team; colver's contract values step
by ten, 80 is the closest to classic's "more than 81") and ``set_phase_playing``.

**Duplicate.** Each deal is played twice from the same position: the hard bot at seats
0 and 2 and colver at 1 and 3, then the other way round. A deal's figure is the hard
bot's card points (tricks and the last trick's 10, 162 a deal) minus colver's, averaged
over its two games, so the cards dealt cancel out; the mean over deals gets a normal
95% interval. Both games are played by our engine (``decide``/``evolve``), colver's
environment following move by move, and every trick's points are checked against
colver's count.

What each side knows: the hard bot gets its seat's view (the bidding, the turned card
the taker took); colver gets what its API takes, the contract and its team, and its
uniform worlds ignore the bidding.

**The house variant.** Colver lets a seat void in the led suit that cannot overtrump an
opponent's ruff throw any card; classic (001) makes it play a trump, lower if need be.
Every colver move is checked against :func:`belot.play.playable`; when colver picks a
discard classic forbids, the arena plays instead the card colver itself valued best
among the cards classic allows (IS-DD reports a value for every card it may play,
classic's cards among them), and counts it. Our cards are always legal for colver
(classic's legal cards are a subset of colver's), which is checked too.

**Time.** The hard bot's wall time per decision with more than one legal card, in the
same run; it is given a deadline (``out_of_time``) of ``--deadline-ms``, as the table
service gives it one.

**Hard against medium**: ``fairdeal.simulate.simulate`` (what ``belot simulate`` runs),
club and classic, mirrored pairs, the share of matches the hard bots win.

**Double-dummy loss** (``--loss-deals N``, not part of the default run): a measure of
card play with far less noise than the margin, for comparing versions of the bot. N
classic deals (seed ``loss|<seed>``) are played by the hard bot at every seat (or medium,
``--loss-players medium``: positions that do not move with the hard bot's constants, so
that two versions of it are measured on the same decisions); at each
decision with a choice, every legal card is solved exactly on the *true* deal
(:mod:`belot.bots.solver`), and a player's loss is the best card's value minus its
card's (card points, its side's minus the other's). The hard bot (with the deadline)
and colver's IS-DD then choose at each of those same positions (colver's environment
replayed to it), and the mean loss per decision is printed for each, by trick: the same
positions for both, so the comparison is paired. A loss is not all a mistake: some is
the price of not seeing the cards.

Writes docs/bench/arena.md when run at the sizes the targets name (or with
``--write``). Exits 1 below a target, 2 if colver is not installed.

    python bench/arena.py [--deals 600] [--matches 300] [--rulesets club,classic]
                          [--seed arena] [--deadline-ms 50] [--dump FILE] [--write]
                          [--loss-deals N [--loss-players hard|medium]]

``--matches 0`` skips the simulate phase and ``--deals 0`` the colver phase;
``--deadline-ms 0`` gives the hard bot no deadline, so that its strength at its budget
(deterministic work) can be compared between versions on a loaded machine, where only
ratios of times measured in one run say anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))

from belot import RULESETS, SupplyDeck, decide, due, evolve, new_match, view
from belot.bots import choose
from belot.cards import to_code
from belot.commands import Command, PlayCard
from belot.events import DealScored, TrickTaken
from belot.match import DueKind, Match, Phase
from belot.play import playable
from fairdeal import DeckInputs, Shuffler
from fairdeal.simulate import Z95, simulate

CLASSIC = RULESETS["classic"]
#: Targets (issue 19, "Done when").
MARGIN_TARGET = 3.0
MEDIAN_TARGET_MS = 30.0
P99_TARGET_MS = 60.0
WIN_SHARE_TARGET = 0.75
FULL_DEALS = 600
FULL_MATCHES = 300
DOC = ROOT / "docs" / "bench" / "arena.md"

COLVER_SPEC = """
[play]
method = "isdd"
determinizations = 8
time_ms = 0
parallel = false

[worlds]
source = "uniform"
"""
#: colver's contract values step by ten from 80.
CONTRACT_VALUE = 80

# Our card is suit * 8 + rank, suits C D H S, ranks 7 8 9 T J Q K A. Colver's is
# suit * 8 + index, suits S H D C, indices 7 8 9 J Q K 10 A.
_RANK_TO_COLVER = (0, 1, 2, 6, 3, 4, 5, 7)
_SUIT_TO_COLVER = (3, 2, 1, 0)
TO_COLVER = tuple(_SUIT_TO_COLVER[c >> 3] * 8 + _RANK_TO_COLVER[c & 7] for c in range(32))
FROM_COLVER = {v: c for c, v in enumerate(TO_COLVER)}


@dataclass
class Tally:
    """What the duplicate games measured."""

    margins: list[float] = field(default_factory=list)
    hard_points: list[int] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    colver_moves: int = 0
    substituted: list[str] = field(default_factory=list)
    skipped_decks: int = 0
    late: int = 0


def _deal_seed(seed: str) -> bytes:
    return hashlib.sha256(f"bench/arena|{seed}".encode()).digest()


def positions(seed: str, count: int) -> list[tuple[Match, int]]:
    """``count`` classic deals in the playing phase, with the deck number each came from."""
    shuffler = Shuffler(DeckInputs(_deal_seed(seed), (b"",) * 4, None))
    out: list[tuple[Match, int]] = []
    k = 0
    while len(out) < count:
        k += 1
        state = new_match(CLASSIC, first_dealer=k % 4)
        d = due(state)
        for e in decide(state, SupplyDeck(d.deal_number, shuffler.deck(k))):
            state = evolve(state, e)
        rng = random.Random(k)
        while (d := due(state)).kind is DueKind.BID:
            assert d.seat is not None
            for e in decide(state, choose(view(state, d.seat), rng, "hard")):
                state = evolve(state, e)
        if state.phase is Phase.PLAYING:
            out.append((state, k))
    return out


def _colver_env(colver: Any, state: Match) -> Any:
    deal = state.deal
    assert deal is not None
    hands = [[TO_COLVER[c] for c in range(32) if h >> c & 1] for h in deal.hands]
    env = colver.Env.deal_with_hands(deal.dealer, hands)
    env.set_contract(_SUIT_TO_COLVER[deal.strain], CONTRACT_VALUE, deal.taker & 1, 0)
    env.set_phase_playing()
    return env


def _with_belote(state: Match, seat: int, card: int) -> Command:
    """Colver's seats announce belote whenever they may (colver counts it itself)."""
    v = view(state, seat)
    for m in v.legal:
        if isinstance(m, PlayCard) and m.card == card and m.belote:
            return m
    return PlayCard(seat, card)  # type: ignore[arg-type]


def play_game(
    colver: Any,
    state: Match,
    hard_side: int,
    tag: str,
    tally: Tally,
    deadline_ms: float,
) -> tuple[int, int]:
    """Play one deal from ``state`` with the hard bot on ``hard_side``; card points by side."""
    env = _colver_env(colver, state)
    agents = {
        s: colver.Agent(COLVER_SPEC, seat=s, seed=int.from_bytes(_deal_seed(f"{tag}|{s}")[:4]))
        for s in range(4)
        if s & 1 != hard_side
    }
    for agent in agents.values():
        agent.init_deal(env)
    rng = random.Random(f"arena|{tag}")
    points = [0, 0]
    while True:
        d = due(state)
        assert d.kind is DueKind.CARD and d.seat is not None, d
        seat = d.seat
        deal = state.deal
        assert deal is not None
        assert env.current_player() == seat, "colver and the engine disagree on the turn"
        allowed = playable(deal.hands[seat], deal.trick, deal.strain, CLASSIC)
        if seat & 1 == hard_side:
            v = view(state, seat)
            start = time.perf_counter()
            until = start + deadline_ms / 1000

            def out_of_time(until: float = until) -> bool:
                return time.perf_counter() >= until

            command = choose(v, rng, "hard", None, out_of_time if deadline_ms > 0 else None)
            elapsed = (time.perf_counter() - start) * 1000
            if len({m.card for m in v.legal if isinstance(m, PlayCard)}) > 1:
                tally.times_ms.append(elapsed)
                tally.late += 0 < deadline_ms <= elapsed
            assert isinstance(command, PlayCard)
            card = int(command.card)
            if TO_COLVER[card] not in env.legal_actions():
                raise AssertionError(f"colver refuses our legal {to_code(card)}")
        else:
            decision = agents[seat].decide(env)
            card = FROM_COLVER[decision["action"]]
            tally.colver_moves += 1
            if not allowed >> card & 1:
                card = _closest(decision, allowed, seat)
                tally.substituted.append(f"{to_code(FROM_COLVER[decision['action']])}->"
                                         f"{to_code(card)}")  # fmt: skip
            command = _with_belote(state, seat, card)
        action = TO_COLVER[card]
        for agent in agents.values():
            agent.observe(env, action)
        env.step(action)
        for e in decide(state, command):
            state = evolve(state, e)
            if isinstance(e, TrickTaken):
                points[e.seat & 1] += e.points
            if isinstance(e, DealScored):
                theirs = tuple(env.get_points())
                if theirs != (points[0], points[1]) and max(points) < 162:
                    raise AssertionError(f"points differ: ours {points}, colver's {theirs}")
                return points[0], points[1]


def _closest(decision: dict[str, Any], allowed: int, seat: int) -> int:
    """Among the cards classic allows, the one colver valued best for its team (its
    values are north-south minus east-west)."""
    sign = 1 if seat & 1 == 0 else -1
    values = {FROM_COLVER[a]: v for a, v in decision.get("candidates", [])}
    legal = [c for c in range(32) if allowed >> c & 1]
    scored = [c for c in legal if c in values]
    if scored:
        return max(scored, key=lambda c: (sign * values[c], -c))
    return legal[0]


def run_arena(
    colver: Any, deals: int, seed: str, deadline_ms: float, log: Callable[[str], None]
) -> Tally:
    tally = Tally()
    started = time.perf_counter()
    deals_played = positions(seed, deals)
    tally.skipped_decks = deals_played[-1][1] - deals if deals_played else 0
    for i, (state, deck) in enumerate(deals_played):
        got = []
        for hard_side in (0, 1):
            pts = play_game(
                colver, state, hard_side, f"{seed}|{deck}|{hard_side}", tally, deadline_ms
            )
            got.append((pts[hard_side], pts[1 - hard_side]))
        margin = ((got[0][0] - got[0][1]) + (got[1][0] - got[1][1])) / 2
        tally.margins.append(margin)
        tally.hard_points.extend(h for h, _ in got)
        if (i + 1) % 20 == 0 or i + 1 == deals:
            lo, hi = mean_interval(tally.margins)
            log(
                f"  {i + 1} deals: margin {statistics.fmean(tally.margins):+.2f} [{lo:+.2f}, "
                f"{hi:+.2f}], {time.perf_counter() - started:.0f} s"
            )
    return tally


@dataclass(frozen=True)
class Decision:
    """A position of the double-dummy loss measure: the seat to play and the true value
    of each of its legal cards."""

    state: Match
    seat: int
    values: dict[int, int]


def loss_positions(seed: str, deals: int, players: str = "hard") -> list[Decision]:
    """The decisions with a choice of ``deals`` classic deals played by ``players`` bots
    at every seat (no deadline), each with its cards' exact values on the true deal.
    Medium's positions do not depend on the hard bot's constants, so every variant of
    it is measured on the same decisions (paired)."""
    from belot.bots.solver import Solver

    out = []
    for state, k in positions(f"loss|{seed}", deals):
        rng = random.Random(k)
        while (d := due(state)).kind is DueKind.CARD:
            assert d.seat is not None and state.deal is not None
            deal = state.deal
            v = view(state, d.seat)
            cards = sorted({m.card for m in v.legal if isinstance(m, PlayCard)})
            if len(cards) > 1:
                won = 0
                for t in deal.tricks:
                    won |= 1 << (t.winner & 1)
                values = Solver(CLASSIC, deal.strain).values(
                    list(deal.hands), list(deal.trick), deal.leader,
                    CLASSIC.tricks - len(deal.tricks), won, cards,
                )  # fmt: skip
                assert values is not None
                out.append(Decision(state, d.seat, values))
            for e in decide(state, choose(v, rng, players)):
                state = evolve(state, e)
    return out


def hard_card(decision: Decision, i: int, deadline_ms: float) -> int:
    v = view(decision.state, decision.seat)
    until = time.perf_counter() + deadline_ms / 1000
    command = choose(
        v, random.Random(i), "hard", None,
        (lambda: time.perf_counter() >= until) if deadline_ms > 0 else None,
    )  # fmt: skip
    assert isinstance(command, PlayCard)
    return int(command.card)


def colver_card(colver: Any, decision: Decision, i: int) -> int:
    """Colver's IS-DD at ``decision``, its environment and agent replayed to it."""
    deal = decision.state.deal
    assert deal is not None
    seat = decision.seat
    dealt = [deal.hands[s] | deal.played[s] for s in range(4)]
    env = colver.Env.deal_with_hands(
        deal.dealer, [[TO_COLVER[c] for c in range(32) if h >> c & 1] for h in dealt]
    )
    env.set_contract(_SUIT_TO_COLVER[deal.strain], CONTRACT_VALUE, deal.taker & 1, 0)
    env.set_phase_playing()
    agent = colver.Agent(COLVER_SPEC, seat=seat, seed=i)
    agent.init_deal(env)
    for card in [c for t in deal.tricks for c in t.cards] + list(deal.trick):
        agent.observe(env, TO_COLVER[card])
        env.step(TO_COLVER[card])
    decision_ = agent.decide(env)
    card = FROM_COLVER[decision_["action"]]
    allowed = playable(deal.hands[seat], deal.trick, deal.strain, CLASSIC)
    return card if allowed >> card & 1 else _closest(decision_, allowed, seat)


def loss_report(
    colver: Any,
    seed: str,
    deals: int,
    deadline_ms: float,
    log: Callable[[str], None],
    players: str = "hard",
) -> None:
    """Print the double-dummy loss per decision of hard and colver (module docstring)."""
    decisions = loss_positions(seed, deals, players)
    losses: dict[str, dict[int, list[int]]] = {"hard": {}, "colver IS-DD": {}}
    for i, decision in enumerate(decisions):
        best = max(decision.values.values())
        trick = len(decision.state.deal.tricks) if decision.state.deal else 0
        for name, card in (
            ("hard", hard_card(decision, i, deadline_ms)),
            ("colver IS-DD", colver_card(colver, decision, i)),
        ):
            losses[name].setdefault(trick, []).append(best - decision.values[card])
    log(f"double-dummy loss per decision, {len(decisions)} decisions of {deals} deals "
        f"played by {players} bots (seed {seed!r}; card points, side minus side), by trick "
        "1..8:")  # fmt: skip
    for name, by_trick in losses.items():
        every = [x for xs in by_trick.values() for x in xs]
        mean = statistics.fmean(every)
        se = statistics.stdev(every) / math.sqrt(len(every))
        tricks = " ".join(f"{statistics.fmean(by_trick[t]):.2f}" for t in sorted(by_trick))
        log(f"  {name}: {mean:.3f} (s.e. {se:.3f}); {tricks}")


def mean_interval(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return (m, m)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs))
    return (m - half, m + half)


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _simulate(name: str, matches: int, seed: str) -> tuple[str, int, int, int, float]:
    start = time.perf_counter()
    r = simulate(RULESETS[name], ["hard", "medium", "hard", "medium"], matches, seed, swap=True)
    return name, r.wins[0], r.draws, r.deals, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=FULL_DEALS)
    parser.add_argument("--matches", type=int, default=FULL_MATCHES, help="0: skip simulate")
    parser.add_argument("--seed", default="arena")
    parser.add_argument("--deadline-ms", type=float, default=50.0, help="0: no deadline")
    parser.add_argument(
        "--rulesets", default="club,classic", help="simulate only these (comma-separated)"
    )
    parser.add_argument("--write", action="store_true", help="write docs/bench/arena.md")
    parser.add_argument("--dump", type=Path, help="write each deal's margin to this JSON file")
    parser.add_argument(
        "--loss-deals", type=int, default=0, help="first, the double-dummy loss over N deals"
    )
    parser.add_argument(
        "--loss-players", choices=("hard", "medium"), default="hard",
        help="the bots whose play makes the loss's positions (medium: the same for every "
        "variant of hard, paired)",
    )  # fmt: skip
    args = parser.parse_args()
    try:
        import colver
    except ImportError:
        print("colver is not installed: pip install -e '.[bench]' (colver==0.11.1)")
        return 2

    def log(line: str) -> None:
        print(line, flush=True)

    if args.loss_deals:
        loss_report(colver, args.seed, args.loss_deals, args.deadline_ms, log, args.loss_players)
    load_before = os.getloadavg()
    lines: list[str] = []
    ok = True
    log(f"colver {colver.__version__} IS-DD (8 uniform worlds) vs hard, {args.deals} classic "
        f"deals x 2 (teams swapped), seed {args.seed!r}")  # fmt: skip
    tally = run_arena(colver, args.deals, args.seed, args.deadline_ms, log) if args.deals else None
    if tally is not None and args.dump:
        args.dump.write_text(
            json.dumps({"margins": tally.margins, "times_ms": tally.times_ms}), encoding="utf-8"
        )
    if tally is not None:
        mean = statistics.fmean(tally.margins)
        lo, hi = mean_interval(tally.margins)
        med = statistics.median(tally.times_ms)
        p99 = percentile(tally.times_ms, 0.99)
        hard_mean = statistics.fmean(tally.hard_points)
        full = args.deals >= FULL_DEALS
        pass_margin = mean >= MARGIN_TARGET and lo > 0 and full
        pass_time = med <= MEDIAN_TARGET_MS and p99 <= P99_TARGET_MS
        ok &= pass_margin and pass_time
        lines += [
            f"| hard minus colver IS-DD, card points a deal | {mean:+.2f} [{lo:+.2f}, {hi:+.2f}] "
            f"| at least +{MARGIN_TARGET:.0f}, interval above 0, {FULL_DEALS}+ deals "
            f"| {'PASS' if pass_margin else 'FAIL'} |",
            f"| hard's card points a game (of 162) | {hard_mean:.2f} | | |",
            f"| hard decision time, median | {med:.1f} ms | at most {MEDIAN_TARGET_MS:.0f} ms "
            f"| {'PASS' if med <= MEDIAN_TARGET_MS else 'FAIL'} |",
            f"| hard decision time, p99 | {p99:.1f} ms | at most {P99_TARGET_MS:.0f} ms "
            f"| {'PASS' if p99 <= P99_TARGET_MS else 'FAIL'} |",
        ]
        subs = len(tally.substituted)
        late = (
            f"{tally.late} reached the {args.deadline_ms:.0f} ms deadline"
            if args.deadline_ms > 0 else "no deadline"
        )  # fmt: skip
        notes = [
            f"{args.deals} deals ({2 * args.deals} games; {tally.skipped_decks} decks skipped "
            f"for all passes), {len(tally.times_ms)} hard decisions with a choice "
            f"({late}), {tally.colver_moves} colver moves.",
            f"House variant: {subs} colver moves ({100 * subs / max(1, tally.colver_moves):.2f}%) "
            "were discards classic forbids (no overtrump possible over an opponent's ruff); "
            "each was replaced by the card colver valued best among classic's legal cards.",
        ]
    else:
        notes = []
    if args.matches:
        names = args.rulesets.split(",")
        log(f"hard vs medium, belot simulate, {args.matches} matches swapped, {', '.join(names)}")
        with ProcessPoolExecutor(2) as pool:
            results = list(pool.map(_simulate, names, [args.matches] * len(names),
                                    [args.seed] * len(names)))  # fmt: skip
        for name, wins, draws, deals, seconds in results:
            share = wins / args.matches
            passed = share >= WIN_SHARE_TARGET and args.matches >= FULL_MATCHES
            ok &= passed
            lines.append(
                f"| hard vs medium, {name}: matches won | {wins} / {args.matches} = "
                f"{100 * share:.1f}% | at least {100 * WIN_SHARE_TARGET:.0f}% of "
                f"{FULL_MATCHES} | {'PASS' if passed else 'FAIL'} |"
            )
            notes.append(f"{name}: {deals} deals, {draws} drawn matches, {seconds:.0f} s.")
    load_after = os.getloadavg()
    verdict = "PASS" if ok else "FAIL"
    if not lines:
        verdict = "nothing judged (--deals 0, --matches 0)"
    notes.append(
        "Load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in load_before)
        + "; after: " + ", ".join(f"{x:.2f}" for x in load_after)
        + f" ({os.cpu_count()} cores, shared)."
    )  # fmt: skip
    table = ["| figure | measured [95% interval] | target | |", "| --- | --- | --- | --- |", *lines]
    print("\n".join(table))
    for note in notes:
        print(note)
    print(f"arena: {verdict}")
    if args.write or (args.deals >= FULL_DEALS and args.matches >= FULL_MATCHES):
        _write(args, table, notes, verdict, colver.__version__)
    return 0 if ok else 1


def _write(
    args: argparse.Namespace, table: list[str], notes: list[str], verdict: str, version: str
) -> None:
    DOC.parent.mkdir(parents=True, exist_ok=True)
    when = time.strftime("%Y-%m-%d %H:%M %Z")
    text = [
        "<!-- Generated by bench/arena.py; do not edit by hand: run the bench to rewrite it. -->",
        "",
        "# The hard bot against colver, and against medium",
        "",
        f"Run {when}: `python bench/arena.py --deals {args.deals} --matches {args.matches} "
        f"--seed {args.seed} --deadline-ms {args.deadline_ms:g}`, Python "
        f"{sys.version.split()[0]}, colver {version}.",
        "",
        'Colver IS-DD (`[play] method = "isdd"`, `determinizations = 8`, `time_ms = 0`, '
        '`parallel = false`, `[worlds] source = "uniform"`) against the hard bot on the card '
        "play of classic deals, each deal played twice with the teams swapped; a deal's "
        "figure is the hard bot's card points minus colver's, averaged over its two games. "
        "How the deals are made, what each side knows and how colver's one house variant "
        "is handled: the docstring of bench/arena.py.",
        "",
        *table,
        "",
        *[f"- {n}" for n in notes],
        "",
        f"Verdict: **{verdict}**.",
        "",
    ]
    DOC.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
