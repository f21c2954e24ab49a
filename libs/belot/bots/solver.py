"""Exact (double-dummy) solves of the rest of a deal with every hand known, in machine
code.

The hard bot samples worlds (:mod:`belot.bots.worlds`) and asks this module for the
exact value of each card it may play in each world: the best result both sides can
force from there, seeing all the cards. It is what double-dummy engines for bridge and
belote do, over 32-bit masks:

- **Alpha-beta on card points.** A position's value is the points its side to play will
  take from here minus the points the other side will take: the cards of the trick on
  the table and of every trick to come, the last trick's 10, and the capot bonus when a
  side takes every trick of the deal. It is zero-sum, so one negamax search serves both
  sides (at four, partners share a side). In misère (gambler's all-pass) each side wants
  *fewer* points, so a trick's points count against its winner and there is no capot.
  The contract, belote and melds are not in the search: the caller adds them to the
  points the search finds (:func:`belot.bots.hard`), so values stay additive, which is
  what makes the transposition table work.
- **Transposition table.** At the start of a trick the value depends only on which seat
  holds which of the remaining cards, who leads, and (for capot) which sides have taken
  a trick. Within one world each card belongs to one seat, so the key is the set of
  cards still out, the seat to lead and those sides; the entry holds a lower and an
  upper bound and the best lead. Different orders of the same tricks meet there. Only
  trick starts are stored: storing every position was measured (some 4% fewer
  positions for a whole deal, each dearer) and dropped. The table is a fixed array
  (open addressing, a few probes, a new entry taking the place of one from an older
  world or the first probed): a lost entry costs a search again, never a wrong value,
  since an entry holds bounds proven for its exact key. A new world starts a new
  generation instead of clearing it. An entry is two 64-bit words (the key with its
  generation; both bounds with the best lead), not five: the same positions searched,
  in less memory, which is what a probe costs. Measured on the first leads of 12 club
  deals (every card of the leader, one table): 2**18 entries of five words (10 MB) 59
  ms a deal, of two words (4 MB) 59 ms, 2**17 of two (2 MB) 50 ms for 0.2% more
  positions, 2**16 (1 MB) 50-57 ms for 2.5% more, 2**14 70-80 ms for 56% more.
- **Equivalent cards** are one move (:mod:`belot.bots.equivalent`).
- **Zero windows.** Each card's exact value is found by MTD(f): zero-window searches
  from a first guess (the previous card's value) until the bounds meet, the table
  keeping what each pass learnt. Measured on whole deals (eight cards a hand, every
  card of the leader), it searches a fifth fewer positions than one full-window
  alpha-beta a card. For a whole deal's value (the match analysis's contract table),
  first guesses other than 0 were measured and dropped (three strains of 12 club deals,
  positions a deal): from 0, 863,000; bisection over the possible values, 929,000; a
  lower and an upper bound from two searches far outside, then their middle, 915,000,
  or upward from the lower, 927,000. A test far from the value is cheap, one near it
  dear whatever leads there. :meth:`Solver.values_below` is for a caller that knows the
  best card's value (the analysis, from the card before): each card's search starts
  there with that upper bound, so a best card takes one zero-window search, not two.
  After the first test, each moves from the bound it moved by 4 points, twice as far
  each time the tests fall on the same side again, and no test lies outside the points
  still to take (:func:`_reach`).
- **Move ordering.** The table's best lead first; then a lead that cannot be beaten in
  its suit, with the most points; a seat whose side holds the trick adds points; a seat
  that can take it takes it as cheaply as it can; otherwise it throws its least. The
  next move is picked when it is due (:func:`_pick`), not all of them sorted when a node
  opens: after a cut the rest are never looked at. Tried and dropped (first leads of 12
  club deals, one process): a lead the opponents cannot beat or ruff counted as
  unbeatable (4% fewer positions, no faster), or only the partner's cards ignored (0.7%
  fewer).
- **Bounds from the points still to take.** A trick start whose window lies beyond what
  either side can still take (every card out, the last trick's 10, the capot bonus while
  it is open) returns at once (:func:`_reach`).
- **The last tricks in nested loops.** At four players, a trick start with four tricks
  or fewer to play is searched by :func:`_level4`, :func:`_level3` and :func:`_level2`:
  alpha-beta over the trick's four cards as four nested loops, each completed trick's
  rest from the table or the level below, the last trick played by itself. No frames to
  push and pop where most positions are. Each level is its own compiled function (not a
  recursion, see below).
- **Measured together** (this design against the last, the same 16 medium-bot matches of
  each ruleset and 40 easy-bot matches, one process each, every card's values and every
  contract table identical): a club deal's analysis 146 ms before, 39 after (easy bots'
  matches 104 and 31), classic 206 and 51, french 213 and 52, gambler 7.7 and 4.0. A
  position costs 20-25 ns, not 51-55, and a club deal's first lead searches 774,000 of
  them, not 959,000 (a position: a card played in the search). The hard bot, on 831
  decisions of 40 classic deals without a deadline: 7 cards differ (its node budgets
  end elsewhere), its double-dummy loss 4.45 a decision against 4.48, its median
  decision 11.5 ms against 17.5.
- **Where the rest of the time goes, and what did not help** (4 club matches' analysis,
  one process). Most positions are in the last three tricks, and the move order is
  already near the best a zero-window search can have: of a trick's four seats, the
  loops try 1.89, 1.48, 1.57 and 1.41 cards of 3.24, 2.14, 2.25 and 2.07 legal, about
  the (1 + legal) / 2 of a perfectly ordered tree, so fewer positions must come from
  fewer trick starts, not from trying moves in another order. Tried and dropped: the
  trumps that cannot lose as a bound at each trick start (1-5% fewer positions, no
  faster); trick-start keys with the pointless low cards renamed, so that positions
  that differ only in which low cards are gone share an entry (their holders in the key,
  three words an entry: 6-16% fewer positions, a fifth more time); no table for the
  last two tricks (no change); larger tables (2**19, 2**21: as many positions, slower);
  a perfect first guess for a whole-deal value (2.8 searches instead of 7.3, a third
  fewer positions: the bound on what a better guess could give).
- **The rules of the trick are the ruleset's own**: :func:`playable` is
  :func:`belot.play.playable` with the ruleset's three trick parameters (partner
  exception, overtrumping a ruff, raising when trumps are led) as numbers, and the
  winner comes from :func:`belot.play.power_table`. ``tests/unit/test_bot_solver.py``
  holds the port to the original over random hands and tricks in every ruleset and
  strain, and the solver's values to a brute-force minimax.

**Why compiled, and why numba.** A solve of the last four tricks costs a few thousand
positions; of the last six, some twenty thousand; of a whole deal, some 900,000 (every
card of the leader). In Python a position costs about 2 µs, here about 20 ns: the
difference between solving the last four tricks of a handful of worlds and the last six
of sixty-four (:mod:`belot.bots.hard` says what that bought). The issue that asked for
exact solves asked for native speed only from a dependency with wheels on PyPI, so that
``make test`` needs no toolchain: numba (with llvmlite, its LLVM binding, and NumPy)
ships wheels for every platform the project runs on and compiles the functions below
on first use. ``cache=True`` keeps the machine code beside this file (``__pycache__``)
or, where that is read-only, in the directory ``NUMBA_CACHE_DIR`` names (the image sets
one and fills it at build time), so a process after the first loads it in a fraction of
a second instead of compiling for some ten. Only the hard bot imports this module, on
its first solve. The compiled entry points release the GIL (``nogil``), so a table
worker's event loop runs on while a bot thinks in its thread.

**An explicit stack.** Numba cannot load a cached recursive function (its issue 6061:
the process crashes), so the search keeps its own stack of frames (:func:`_search`):
the recursive negamax of the textbook, its calls and returns as pushes and pops, down to
the last four tricks, which the nested loops take (above).

A solve may be given a node budget; past it the solve stops and says so (``None``),
and the caller falls back to cheaper play-outs for that world. Node counts, not a
clock, keep a solve reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import FunctionType
from typing import Any, Final

import numpy as np
from numba import njit

from belot.bots.equivalent import MERGE
from belot.cards import PLAIN_ABOVE, SUIT_MASKS, TRUMP_ABOVE, Mask
from belot.play import CARD_POINTS, MISERE, power_table
from belot.ruleset import PartnerException, Ruleset, Strain


def _compiled(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit`` with its machine code cached on disk, or without a cache where no
    directory for one is writable (numba refuses to decorate then): such a process
    compiles on its first solve, some ten seconds."""

    def wrap(function: Callable[..., Any]) -> Any:
        try:
            return njit(cache=True, **options)(function)
        except RuntimeError:
            return njit(**options)(function)

    return wrap


#: Larger than any value (252 cards and capot, doubled in no trump, fits easily).
INF: Final = 1 << 20
#: No node limit.
UNLIMITED: Final = 1 << 40

_PARTNER: Final = {
    PartnerException.NONE: 0,
    PartnerException.PARTNER_WINNING: 1,
    PartnerException.PARTNER_LED: 2,
}

# Indices into a rules vector (see rules_vector).
_N, _STRAIN, _PARTNER_RULE, _OVERTRUMP, _RAISE, _GAIN, _CAPOT, _LAST, _LIMIT, _FLAGS = range(10)
#: Flags (tests only): no table, no merging of equivalent cards.
NO_TABLE: Final = 1
NO_MERGE: Final = 2

_KEYS: Final = np.array(
    [[power_table(s, led) for led in range(4)] for s in range(7)], dtype=np.int64
)
_PTS: Final = np.array(CARD_POINTS, dtype=np.int64)
_SUIT: Final = np.array(SUIT_MASKS, dtype=np.int64)
_TRUMP_ABOVE: Final = np.array(TRUMP_ABOVE, dtype=np.int64)
#: ``_ABOVE[strain][card]``: the cards of its suit that beat it, in that suit's order.
_ABOVE: Final = np.array(
    [
        [
            (TRUMP_ABOVE if s == Strain.ALL_TRUMPS or c >> 3 == s else PLAIN_ABOVE)[c]
            for c in range(32)
        ]
        for s in range(7)
    ],
    dtype=np.int64,
)
#: ``_TRUMPS[strain]``: the trump suit's cards (none in all-trumps: only ordering uses it).
_TRUMPS: Final = np.array([SUIT_MASKS[s] if s <= 3 else 0 for s in range(7)], dtype=np.int64)
#: The pointless low cards that may merge, by strain (see belot.bots.equivalent).
_LOWS: Final = np.array(
    [
        sum((3 if s == Strain.ALL_TRUMPS or suit == s else 7) << (8 * suit) for suit in range(4))
        for s in range(7)
    ],
    dtype=np.int64,
)
_MERGE: Final = np.array(MERGE, dtype=np.int64)
#: ``_SUIT_PTS[strain, suit, byte]``: the points of the cards of ``suit`` a byte names.
_SUIT_PTS: Final = np.array(
    [
        [
            [sum(CARD_POINTS[s][8 * suit + r] for r in range(8) if b >> r & 1) for b in range(256)]
            for suit in range(4)
        ]
        for s in range(7)
    ],
    dtype=np.int64,
)

#: Transposition table slots (a power of two) and probes per lookup.
TABLE_BITS: Final = 16
_PROBES: Final = 4
#: A table entry is two words: the key (the cards out, 32 bits; the seat to lead, 2; the
#: sides that have taken a trick, 2) with the generation above ``_GEN_SHIFT`` (0: no
#: entry; fewer than 2**27 solves a table), and the bounds (each plus ``_OFFSET`` in 22
#: bits: values lie within +-INF) with the best lead (plus one) above them.
_GEN_SHIFT: Final = 36
_OFFSET: Final = 1 << 21
_FIELD: Final = (1 << 22) - 1
#: Trick starts with this many tricks left or fewer are searched in nested loops
#: (:func:`_level`; two at two players), the others on the stack of frames
#: (:func:`_search`).
_LOW: Final = 4


def rules_vector(
    ruleset: Ruleset, strain: int, node_limit: int = UNLIMITED, flags: int = 0
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """A ruleset's trick rules and a strain, as the compiled functions read them."""
    misere = strain == MISERE
    return np.array(
        [
            ruleset.players,
            strain,
            _PARTNER[ruleset.partner_exception],
            int(ruleset.overtrump_a_ruff),
            int(ruleset.raise_when_trump_led),
            -1 if misere else 1,
            0 if misere else ruleset.capot_bonus,
            -10 if misere else 10,
            node_limit,
            flags,
        ],
        dtype=np.int64,
    )


@_compiled(inline="always")
def _best_of_suit(tricks: Any, left: int, tlen: int, suit: int) -> int:
    """The highest card of ``suit`` in the trick ``tricks[left][:tlen]`` by trump order,
    or -1."""
    best = -1
    strength = -1
    for i in range(tlen):
        c = tricks[left, i]
        if c >> 3 == suit:
            k = _KEYS[suit, suit, c]
            if k > strength:
                best, strength = c, k
    return best


@_compiled(inline="always")
def _playable(
    rules: Any, hand: int, tricks: Any, left: int, tlen: int, bseat: int, seat: int
) -> int:
    """:func:`belot.play.playable` for the seat to play to ``tricks[left][:tlen]``
    (``bseat`` holds the trick)."""
    if tlen == 0:
        return hand
    strain = rules[_STRAIN]
    led = tricks[left, 0] >> 3
    follow = hand & _SUIT[led]
    if strain >= 5:
        return follow if follow else hand
    if strain == 4 or led == strain:
        if follow and rules[_RAISE]:
            up = follow & _TRUMP_ABOVE[_best_of_suit(tricks, left, tlen, led)]
            return up if up else follow
        return follow if follow else hand
    if follow:
        return follow
    trumps = hand & _SUIT[strain]
    if not trumps:
        return hand
    n = rules[_N]
    partner = rules[_PARTNER_RULE]
    excused = False
    if n == 4 and tlen >= 2:
        if partner == 1:
            excused = bseat == seat ^ 2
        elif partner == 2:
            excused = tlen == 2
    best = -1
    if rules[_OVERTRUMP] and not (excused and partner != 2):
        best = _best_of_suit(tricks, left, tlen, strain)
    if best >= 0:
        up = trumps & _TRUMP_ABOVE[best]
        if up:
            return up
    return hand if excused else trumps


@_compiled()
def playable(rules: Any, hand: int, trick: Any, leader: int) -> int:
    """:func:`belot.play.playable` as the search computes it, from a trick alone (the
    tests hold the two equal)."""
    tlen = len(trick)
    n = rules[_N]
    seat = (leader + tlen) % n
    bseat = leader
    bkey = -2
    if tlen:
        led = trick[0] >> 3
        for i in range(tlen):
            k = _KEYS[rules[_STRAIN], led, trick[i]]
            if k > bkey:
                bkey, bseat = k, (leader + i) % n
    rows = np.zeros((1, 4), dtype=np.int64)
    for i in range(tlen):
        rows[0, i] = trick[i]
    return _playable(rules, hand, rows, 0, tlen, bseat, seat)


@_compiled(inline="always")
def _reduce(moves: int, others: int, strain: int) -> int:
    """:func:`belot.bots.equivalent.reduce_equivalent`, compiled."""
    out = moves
    for suit in range(4):
        shift = 8 * suit
        byte = (moves >> shift) & 0xFF
        if byte & (byte - 1) and byte & 7:
            trump = 1 if (strain == 4 or suit == strain) else 0
            low = _MERGE[trump, byte & 7, (others >> shift) & 7]
            out = (out & ~(7 << shift)) | (low << shift)
    return out


#: Bit index from an isolated bit by a de Bruijn multiply (numba has no count of zeros).
_BIT: Final = np.zeros(32, dtype=np.int64)
for _i in range(32):
    _BIT[(((1 << _i) * 0x077CB531) & 0xFFFFFFFF) >> 27] = _i


@_compiled(inline="always")
def _top(mask: int) -> int:
    """The card of a mask of one card (a de Bruijn multiply, not a loop over bits)."""
    return _BIT[((mask * 0x077CB531) & 0xFFFFFFFF) >> 27]


@_compiled(inline="always")
def _slot(key: int, bits: int) -> int:
    h = (key * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    return (h >> (64 - bits)) & ((1 << bits) - 1)


@_compiled(inline="always")
def _order_key(
    strain: int, c: int, tlen: int, others: int, side: int, bseat: int, led: int, bkey: int
) -> int:
    """Where ``c`` comes in the move order, lower first (see the module docstring): a
    lead that cannot be beaten in its suit, with the most points; a beatable lead, with
    the fewest; a seat whose side holds the trick, its most points (trumps last); a seat
    that can take the trick, its cheapest winner; else its least card."""
    if tlen == 0:
        return _PTS[strain, c] if others & _ABOVE[strain, c] else -_PTS[strain, c] - 100
    if (bseat & 1) == side:
        return (100 if (1 << c) & _TRUMPS[strain] else 0) - _PTS[strain, c]
    kc = _KEYS[strain, led, c]
    return kc - 64 if kc > bkey else _PTS[strain, c]


@_compiled(inline="always")
def _pick(
    strain: int, m: int, tlen: int, others: int, side: int, bseat: int, led: int, bkey: int
) -> int:
    """The first of the cards of ``m`` in the move order (the lowest card of equal keys)."""
    best = -1
    best_key = INF
    while m:
        low = m & -m
        m ^= low
        c = _BIT[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]
        k = _order_key(strain, c, tlen, others, side, bseat, led, bkey)
        if k < best_key:
            best, best_key = c, k
    return best


@_compiled(inline="always")
def _legal(
    rules: Any, hand: int, tricks: Any, left: int, tlen: int, bseat: int, seat: int, out: int
) -> int:
    """The seat's legal cards to ``tricks[left][:tlen]``, one of each run of equivalent
    cards (``out``: every card still out but the seat's, those on the table included).
    Following a plain suit, the common case, is written here; trumps and voids are
    :func:`_playable`'s."""
    strain = rules[_STRAIN]
    if tlen == 0:
        legal = hand
    else:
        led = tricks[left, 0] >> 3
        legal = hand & _SUIT[led]
        if strain >= 5:
            if not legal:
                legal = hand
        elif not legal or strain == 4 or led == strain:
            legal = _playable(rules, hand, tricks, left, tlen, bseat, seat)
    if legal & (legal - 1) and legal & _LOWS[strain] and not rules[_FLAGS] & NO_MERGE:
        legal = _reduce(legal, out, strain)
    return legal


@_compiled(inline="always")
def _last_two(
    rules: Any, strain: int, n: int, leader: int, won: int, hands: Any, tricks: Any
) -> int:
    """The value for ``leader``'s side of the last two tricks once the first of them is
    ``tricks[2][:n]`` (led by ``leader``; the hands still hold those cards): its points, and
    the last trick's, which plays itself."""
    led = tricks[2, 0] >> 3
    w = 0
    bk = _KEYS[strain, led, tricks[2, 0]]
    p1 = _PTS[strain, tricks[2, 0]]
    for i in range(1, n):
        k = _KEYS[strain, led, tricks[2, i]]
        p1 += _PTS[strain, tricks[2, i]]
        if k > bk:
            bk, w = k, i
    # The last trick: each seat's other card, led by the first trick's winner.
    first = leader + w
    if first >= n:
        first -= n
    c = _top(hands[first] ^ (1 << tricks[2, w]))
    led = c >> 3
    w2 = w
    bk = _KEYS[strain, led, c]
    p2 = 0
    s = leader
    for i in range(n):
        c = _top(hands[s] ^ (1 << tricks[2, i]))
        p2 += _PTS[strain, c]
        k = _KEYS[strain, led, c]
        if k > bk:
            bk, w2 = k, i
        s = s + 1 if s + 1 < n else 0
    side1 = (leader + w) & 1
    side2 = (leader + w2) & 1
    gain = rules[_GAIN]
    p1 *= gain
    p2 = gain * p2 + rules[_LAST]
    if (won | (1 << side1) | (1 << side2)) != 3:
        p2 += rules[_CAPOT]
    mine = leader & 1
    return (p1 if side1 == mine else -p1) + (p2 if side2 == mine else -p2)


@_compiled(_nrt=False)
def _level2(
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    leader: int,
    alpha: int,
    beta: int,
    won: int,
    left: int,
    first: int,
) -> tuple[int, int]:
    """The last two tricks from their start, for ``leader``'s side: alpha-beta over the
    first one's cards in nested loops, the second playing itself; as :func:`_level`.
    Its own loops, not a copy of :func:`_level` (the signature is the one every level
    shares, which :func:`_probe` calls): it serves two players too, and it touches no
    hand and no table for the last trick (:func:`_last_two` reads it from the hands),
    at the level where most positions are (the solver's module docstring)."""
    n = rules[_N]
    strain = rules[_STRAIN]
    side = leader & 1
    s1 = leader + 1 if leader + 1 < n else 0
    s2 = s1 + 1 if s1 + 1 < n else 0
    s3 = s2 + 1 if s2 + 1 < n else 0
    h0 = hands[leader]
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~h0
    nodes = 0
    best0 = -INF
    best_lead = -1
    m0 = h0
    if first >= 0 and not m0 >> first & 1:
        first = -1
    while m0:
        if first >= 0:
            c0 = first
            first = -1
        else:
            c0 = _pick(strain, m0, 0, others, side, leader, 0, 0)
        m0 ^= 1 << c0
        tricks[2, 0] = c0
        nodes += 1
        led = c0 >> 3
        k0 = _KEYS[strain, led, c0]
        a0 = alpha if alpha > best0 else best0
        best1 = INF
        m1 = _playable(rules, hands[s1], tricks, 2, 1, leader, s1)
        while m1:
            c1 = _pick(strain, m1, 1, 0, side ^ 1, leader, led, k0)
            m1 ^= 1 << c1
            tricks[2, 1] = c1
            nodes += 1
            if n == 2:
                v = _last_two(rules, strain, n, leader, won, hands, tricks)
            else:
                k1 = _KEYS[strain, led, c1]
                bk1, bs1 = (k1, s1) if k1 > k0 else (k0, leader)
                b1 = beta if beta < best1 else best1
                best2 = -INF
                m2 = _playable(rules, hands[s2], tricks, 2, 2, bs1, s2)
                while m2:
                    c2 = _pick(strain, m2, 2, 0, side, bs1, led, bk1)
                    m2 ^= 1 << c2
                    tricks[2, 2] = c2
                    nodes += 1
                    k2 = _KEYS[strain, led, c2]
                    bk2, bs2 = (k2, s2) if k2 > bk1 else (bk1, bs1)
                    a2 = a0 if a0 > best2 else best2
                    best3 = INF
                    m3 = _playable(rules, hands[s3], tricks, 2, 3, bs2, s3)
                    while m3:
                        c3 = _pick(strain, m3, 3, 0, side ^ 1, bs2, led, bk2)
                        m3 ^= 1 << c3
                        tricks[2, 3] = c3
                        nodes += 1
                        v = _last_two(rules, strain, n, leader, won, hands, tricks)
                        if v < best3:
                            best3 = v
                            if best3 <= a2:
                                break
                    if best3 > best2:
                        best2 = best3
                        if best2 >= b1:
                            break
                v = best2
            if v < best1:
                best1 = v
                if best1 <= a0:
                    break
        if best1 > best0:
            best0 = best1
            best_lead = c0
            if best0 >= beta:
                break
    stats[0] += nodes
    return best0, best_lead


@_compiled(inline="always")
def _reach(rules: Any, out: int, won: int, side: int) -> tuple[int, int]:
    """The least and the most that ``side`` can score from here, the cards ``out`` still
    to be played (those of a trick on the table included): all of them and the last
    trick's 10 either way, and the capot bonus if the side that would lose it has taken
    no trick yet."""
    strain = rules[_STRAIN]
    p = (
        _SUIT_PTS[strain, 0, out & 0xFF]
        + _SUIT_PTS[strain, 1, (out >> 8) & 0xFF]
        + _SUIT_PTS[strain, 2, (out >> 16) & 0xFF]
        + _SUIT_PTS[strain, 3, (out >> 24) & 0xFF]
        + abs(rules[_LAST])
    )
    most = p + rules[_CAPOT] if not won >> (side ^ 1) & 1 else p
    least = -p - rules[_CAPOT] if not won >> side & 1 else -p
    return least, most


@_compiled(inline="always")
def _lookup(tt: Any, stats: Any, key: int) -> tuple[int, int, int, int, bool]:
    """The table's entry for ``key``: ``(slot, lo, hi, best lead, True)``; or, with no
    entry, the slot a new one takes, ``(slot, -INF, INF, -1, False)``: the first probed
    that holds one from an older world, else the first probed."""
    tagged = key | (stats[2] << _GEN_SHIFT)
    bits = stats[3]
    base = _slot(key, bits)
    free = -1
    for j in range(_PROBES):
        i = (base + j) & ((1 << bits) - 1)
        held = tt[i, 0]
        if held == tagged:
            bounds = tt[i, 1]
            lo = (bounds & _FIELD) - _OFFSET
            hi = ((bounds >> 22) & _FIELD) - _OFFSET
            return i, lo, hi, (bounds >> 44) - 1, True
        if free < 0 and held >> _GEN_SHIFT != stats[2]:
            free = i
    return (free if free >= 0 else base), -INF, INF, -1, False


@_compiled(inline="always")
def _store(tt: Any, stats: Any, slot: int, key: int, lo: int, hi: int, best: int) -> None:
    """Keep the bounds ``lo``, ``hi`` and the best lead of ``key`` in ``slot``."""
    tt[slot, 0] = key | (stats[2] << _GEN_SHIFT)
    tt[slot, 1] = (lo + _OFFSET) | ((hi + _OFFSET) << 22) | ((best + 1) << 44)


@_compiled(inline="always")
def _probe(
    nxt: Any,
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    seat: int,
    alpha: int,
    beta: int,
    won: int,
    left: int,
) -> int:
    """A trick's start (``left`` tricks to play, ``seat`` to lead): its value within
    (``alpha``, ``beta``), else a bound on the side it fell: from the points still to
    take (:func:`_reach`), from the table, or from ``nxt`` (the search of that many
    tricks, :func:`_level`), whose bounds and best lead the table keeps."""
    stats[0] += 1
    if stats[0] > rules[_LIMIT]:
        stats[1] = 1
        return 0
    out = hands[0] | hands[1] | hands[2] | hands[3]
    least, most = _reach(rules, out, won, seat & 1)
    if most <= alpha:
        return most
    if least >= beta:
        return least
    # -1 (no best lead), read rather than written: a constant argument would compile a
    # second version of nxt (numba specialises on it).
    first = stats[1] - 1
    if rules[_FLAGS] & NO_TABLE:
        v, _ = nxt(rules, hands, tricks, tt, stats, seat, alpha, beta, won, left, first)
        return v
    key = out | (seat << 32) | (won << 34)
    slot, lo, hi, held, found = _lookup(tt, stats, key)
    if found:
        first = held
        if lo >= beta:
            return lo
        if hi <= alpha or lo == hi:
            return hi
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
    v, best = nxt(rules, hands, tricks, tt, stats, seat, alpha, beta, won, left, first)
    if stats[1]:
        return 0
    if v <= alpha:
        hi = v
    elif v >= beta:
        lo = v
    else:
        lo = hi = v
    _store(tt, stats, slot, key, lo, hi, best)
    return v


@_compiled(inline="always")
def _child(
    nxt: Any,
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    side: int,
    taker: int,
    p: int,
    won: int,
    left: int,
    alpha: int,
    beta: int,
) -> int:
    """The value for ``side`` within (``alpha``, ``beta``) of a trick just completed
    (``taker`` took it, ``p`` points for the taker's side) and of the ``left`` - 1 tricks
    after it, which ``taker`` leads."""
    same = taker & 1 == side
    a, b = (alpha - p, beta - p) if same else (-beta - p, -alpha - p)
    v = p + _probe(nxt, rules, hands, tricks, tt, stats, taker, a, b, won | 1 << (taker & 1),
                   left - 1)  # fmt: skip
    return v if same else -v


#: The search of one trick fewer, in each compiled copy of :func:`_level`
#: (:func:`_level_for` binds it).
_NEXT: Any = None


def _level(
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    leader: int,
    alpha: int,
    beta: int,
    won: int,
    left: int,
    first: int,
) -> tuple[int, int]:
    """The value for ``leader``'s side, within (``alpha``, ``beta``) (else a bound on the
    side it fell), of the ``left`` tricks from the start of the next, and the best lead
    (``first``: the table's, tried first, or -1): alpha-beta over the four cards of the
    trick in nested loops, each completed trick's rest from the table or ``_NEXT``, the
    search of one trick fewer (see the module docstring). At four players only (two
    players' tricks are two cards: :func:`_search` takes them but the last two). Not
    compiled itself: :func:`_level_for` compiles a copy a number of tricks."""
    strain = rules[_STRAIN]
    gain = rules[_GAIN]
    limit = rules[_LIMIT]
    side = leader & 1
    s1 = (leader + 1) & 3
    s2 = (leader + 2) & 3
    s3 = (leader + 3) & 3
    out = hands[0] | hands[1] | hands[2] | hands[3]
    h0 = hands[leader]
    others = out & ~h0
    m0 = _legal(rules, h0, tricks, left, 0, leader, leader, others)
    if first >= 0 and not m0 >> first & 1:
        first = -1
    best0 = -INF
    best_lead = -1
    while m0:
        if first >= 0:
            c0 = first
            first = -1
        else:
            c0 = _pick(strain, m0, 0, others, side, leader, 0, 0)
        m0 ^= 1 << c0
        stats[0] += 1
        if stats[0] > limit:
            stats[1] = 1
            return 0, -1
        hands[leader] = h0 ^ (1 << c0)
        tricks[left, 0] = c0
        led = c0 >> 3
        k0 = _KEYS[strain, led, c0]
        p0 = _PTS[strain, c0]
        a0 = alpha if alpha > best0 else best0
        best1 = INF
        h1 = hands[s1]
        m1 = _legal(rules, h1, tricks, left, 1, leader, s1, out & ~h1)
        while m1:
            c1 = _pick(strain, m1, 1, 0, side ^ 1, leader, led, k0)
            m1 ^= 1 << c1
            hands[s1] = h1 ^ (1 << c1)
            tricks[left, 1] = c1
            k1 = _KEYS[strain, led, c1]
            bk1, bs1 = (k1, s1) if k1 > k0 else (k0, leader)
            p1 = p0 + _PTS[strain, c1]
            b1 = beta if beta < best1 else best1
            stats[0] += 1
            if stats[0] > limit:
                stats[1] = 1
                return 0, -1
            best2 = -INF
            h2 = hands[s2]
            m2 = _legal(rules, h2, tricks, left, 2, bs1, s2, out & ~h2)
            while m2:
                c2 = _pick(strain, m2, 2, 0, side, bs1, led, bk1)
                m2 ^= 1 << c2
                hands[s2] = h2 ^ (1 << c2)
                tricks[left, 2] = c2
                k2 = _KEYS[strain, led, c2]
                bk2, bs2 = (k2, s2) if k2 > bk1 else (bk1, bs1)
                p2 = p1 + _PTS[strain, c2]
                a2 = a0 if a0 > best2 else best2
                stats[0] += 1
                if stats[0] > limit:
                    stats[1] = 1
                    return 0, -1
                best3 = INF
                h3 = hands[s3]
                m3 = _legal(rules, h3, tricks, left, 3, bs2, s3, out & ~h3)
                while m3:
                    c3 = _pick(strain, m3, 3, 0, side ^ 1, bs2, led, bk2)
                    m3 ^= 1 << c3
                    hands[s3] = h3 ^ (1 << c3)
                    bs3 = s3 if _KEYS[strain, led, c3] > bk2 else bs2
                    b3 = b1 if b1 < best3 else best3
                    v3 = _child(_NEXT, rules, hands, tricks, tt, stats, side, bs3,
                                gain * (p2 + _PTS[strain, c3]), won, left, a2, b3)  # fmt: skip
                    hands[s3] = h3
                    if stats[1]:
                        return 0, -1
                    if v3 < best3:
                        best3 = v3
                        if best3 <= a2:
                            break
                hands[s2] = h2
                if best3 > best2:
                    best2 = best3
                    if best2 >= b1:
                        break
            v = best2
            hands[s1] = h1
            if stats[1]:
                return 0, -1
            if v < best1:
                best1 = v
                if best1 <= a0:
                    break
        hands[leader] = h0
        if best1 > best0:
            best0 = best1
            best_lead = c0
            if best0 >= beta:
                break
    return best0, best_lead


def _level_for(tricks: int, below: Any) -> Any:
    """:func:`_level` compiled for ``tricks`` tricks, its ``_NEXT`` ``below`` (the search
    of one trick fewer): a function of its own under its own name, so that its machine
    code has a file of its own in the cache. Not a recursion, which numba cannot cache
    (see :func:`_search`), nor the level below passed as an argument, which numba caches
    only inlined, and inlined at each level the search took minutes to compile, not
    half a minute."""
    scope = dict(_level.__globals__)
    scope["_NEXT"] = below
    name = f"_level{tricks}"
    function = FunctionType(_level.__code__, scope, name, None, None)
    function.__qualname__ = name
    function.__doc__ = _level.__doc__
    return _compiled(_nrt=False)(function)


_level3 = _level_for(3, _level2)
_level4 = _level_for(4, _level3)


@_compiled(_nrt=False)
def _low(rules: Any, hands: Any, tricks: Any, tt: Any, stats: Any, leader: int, alpha: int,
         beta: int, won: int, left: int, first: int) -> tuple[int, int]:  # fmt: skip
    """:func:`_level2`, :func:`_level3` or :func:`_level4`, as ``left`` says."""
    if left == 2:
        return _level2(rules, hands, tricks, tt, stats, leader, alpha, beta, won, left, first)
    if left == 3:
        return _level3(rules, hands, tricks, tt, stats, leader, alpha, beta, won, left, first)
    return _level4(rules, hands, tricks, tt, stats, leader, alpha, beta, won, left, first)


# Frame fields of the explicit stack (numba cannot cache a recursive function: its
# issue 6061, a crash when the cached code is loaded, so the search keeps its own stack).
(_SEAT, _ALPHA, _BETA, _LEFT, _WON, _TLEN, _BKEY, _BSEAT, _TPTS, _HAND, _MASK, _FIRST,
 _OTHERS, _MOVE, _BEST, _BEST_CARD, _A0, _KEY, _SLOT, _LO, _HI, _SIGN,
 _OFF) = range(23)  # fmt: skip
_FIELDS: Final = 23
#: Frames: a trick's start and each card of it, 9 tricks at most, and the root.
_DEPTH: Final = 40


@_compiled(inline="always")
def _enter(
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    frames: Any,
    d: int,
    seat: int,
    alpha: int,
    beta: int,
    left: int,
    won: int,
    tlen: int,
    bkey: int,
    bseat: int,
    tpts: int,
) -> tuple[int, bool]:
    """Open the node at depth ``d`` (a negamax search up to its loop over moves): either
    its value at once, ``(value, True)`` (the last trick, a table entry that settles
    it, the node limit), or its frame, ``(0, False)``, whose moves the loop takes in
    order as it goes (:func:`_pick`). The trick on the table is ``tricks[left][:tlen]``."""
    if tlen == 0 and 2 <= left <= (_LOW if rules[_N] == 4 else 2):
        # A trick's start near the end: its bounds, the table, or the nested loops.
        return _probe(_low, rules, hands, tricks, tt, stats, seat, alpha, beta, won,
                      left), True  # fmt: skip
    stats[0] += 1
    if stats[0] > rules[_LIMIT]:
        stats[1] = 1
        return 0, True
    n = rules[_N]
    strain = rules[_STRAIN]
    hand = hands[seat]
    if left == 1:
        # The last trick plays itself: one card in each hand still to play.
        p = tpts
        s = seat
        led = tricks[left, 0] >> 3 if tlen else -1
        for i in range(tlen, n):
            c = _top(hands[s])
            p += _PTS[strain, c]
            if i == 0:
                led = c >> 3
                bkey, bseat = _KEYS[strain, led, c], s
            else:
                k = _KEYS[strain, led, c]
                if k > bkey:
                    bkey, bseat = k, s
            s = s + 1 if s + 1 < n else 0
        p = rules[_GAIN] * p + rules[_LAST]
        if (won | (1 << (bseat & 1))) != 3:
            p += rules[_CAPOT]
        return (p if (bseat & 1) == (seat & 1) else -p), True
    others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand
    first = -1
    slot = -1
    if tlen == 0:
        least, most = _reach(rules, others | hand, won, seat & 1)
        if most <= alpha:
            return most, True
        if least >= beta:
            return least, True
    if tlen == 0 and not rules[_FLAGS] & NO_TABLE:
        key = others | hand | (seat << 32) | (won << 34)
        slot, lo, hi, held, found = _lookup(tt, stats, key)
        if found:
            first = held
            if lo >= beta:
                return lo, True
            if hi <= alpha or lo == hi:
                return hi, True
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        frames[d, _A0] = alpha
        frames[d, _KEY] = key
        frames[d, _LO] = lo
        frames[d, _HI] = hi
        on_table = others
    else:
        on_table = others
        for i in range(tlen):
            on_table |= 1 << tricks[left, i]
    legal = _legal(rules, hand, tricks, left, tlen, bseat, seat, on_table)
    frames[d, _SEAT] = seat
    frames[d, _ALPHA] = alpha
    frames[d, _BETA] = beta
    frames[d, _LEFT] = left
    frames[d, _WON] = won
    frames[d, _TLEN] = tlen
    frames[d, _BKEY] = bkey
    frames[d, _BSEAT] = bseat
    frames[d, _TPTS] = tpts
    frames[d, _HAND] = hand
    frames[d, _MASK] = legal
    frames[d, _FIRST] = first if first >= 0 and legal >> first & 1 else -1
    frames[d, _OTHERS] = others
    frames[d, _BEST] = -INF
    frames[d, _BEST_CARD] = -1
    frames[d, _SLOT] = slot
    return 0, False


@_compiled(_nrt=False)
def _search(
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    frames: Any,
    root: int,
    forced: int,
    alpha: int,
    beta: int,
    left: int,
    won: int,
    tlen: int,
    leader: int,
) -> int:
    """The value for ``root``'s side of playing ``forced`` now (exact inside
    (``alpha``, ``beta``), else a bound on the side it fell), the trick on the table
    being ``tricks[left][:tlen]`` led by ``leader``; with ``forced`` -1, the position's
    value. The root is a frame whose one move is ``forced``, or an ordinary node; the
    loop below is a recursive negamax, its calls and returns as pushes and pops of
    ``frames`` (see the module docstring)."""
    n = rules[_N]
    strain = rules[_STRAIN]
    bkey, bseat, tpts = -2, leader, 0
    for i in range(tlen):
        c = tricks[left, i]
        tpts += _PTS[strain, c]
        k = _KEYS[strain, tricks[left, 0] >> 3, c]
        if k > bkey:
            bkey, bseat = k, (leader + i) % n
    # The node to open next, as the child of frame ``d`` (one call of _enter, not three:
    # each is the whole of it, and the search compiled for as long again).
    cs, ca, cb, cleft, cwon = root, alpha, beta, left, won
    ctlen, cbkey, cbseat, ctpts = tlen, bkey, bseat, tpts
    opening = forced < 0  # no card given: the root is an ordinary node
    d = -1
    if not opening:
        d = 0
        frames[0, _SEAT] = root
        frames[0, _ALPHA] = alpha
        frames[0, _BETA] = beta
        frames[0, _LEFT] = left
        frames[0, _WON] = won
        frames[0, _TLEN] = tlen
        frames[0, _BKEY] = bkey
        frames[0, _BSEAT] = bseat
        frames[0, _TPTS] = tpts
        frames[0, _HAND] = hands[root]
        frames[0, _MASK] = 1 << forced
        frames[0, _FIRST] = -1
        frames[0, _BEST] = -INF
        frames[0, _BEST_CARD] = -1
        frames[0, _SLOT] = -1
    ret = 0
    done = False
    while True:
        if opening:
            opening = False
            ret, done = _enter(rules, hands, tricks, tt, stats, frames, d + 1, cs, ca, cb,
                               cleft, cwon, ctlen, cbkey, cbseat, ctpts)  # fmt: skip
            if not done:
                d += 1
                continue
            if d < 0:
                return ret
        if done:
            # A child returned ``ret``: fold it into its parent ``f``.
            hands[frames[d, _SEAT]] = frames[d, _HAND]
            if stats[1]:
                return 0
            v = frames[d, _SIGN] * (ret + frames[d, _OFF])
            done = False
            if v > frames[d, _BEST]:
                frames[d, _BEST] = v
                frames[d, _BEST_CARD] = frames[d, _MOVE]
                if v > frames[d, _ALPHA]:
                    frames[d, _ALPHA] = v
                    if v >= frames[d, _BETA]:
                        frames[d, _MASK] = 0  # a cut: no more moves
        if not frames[d, _MASK]:
            # The node is done: store its bounds at a trick's start, return its value.
            best = frames[d, _BEST]
            slot = frames[d, _SLOT]
            if slot >= 0:
                if best <= frames[d, _A0]:
                    lo2, hi2 = frames[d, _LO], best
                elif best >= frames[d, _BETA]:
                    lo2, hi2 = best, frames[d, _HI]
                else:
                    lo2, hi2 = best, best
                _store(tt, stats, slot, frames[d, _KEY], lo2, hi2, frames[d, _BEST_CARD])
            if d == 0:
                return best
            ret = best
            done = True
            d -= 1
            continue
        # The next move of ``f``: the table's best first, then in order; play it and
        # open the child.
        seat = frames[d, _SEAT]
        ftlen = frames[d, _TLEN]
        fleft = frames[d, _LEFT]
        led = tricks[fleft, 0] >> 3 if ftlen else 0
        c = frames[d, _FIRST]
        if c >= 0:
            frames[d, _FIRST] = -1
        else:
            c = _pick(strain, frames[d, _MASK], ftlen, frames[d, _OTHERS], seat & 1,
                      frames[d, _BSEAT], led, frames[d, _BKEY])  # fmt: skip
        frames[d, _MASK] ^= 1 << c
        frames[d, _MOVE] = c
        hands[seat] = frames[d, _HAND] ^ (1 << c)
        p = frames[d, _TPTS] + _PTS[strain, c]
        if ftlen == 0:
            nb, ns = _KEYS[strain, c >> 3, c], seat
        else:
            kc = _KEYS[strain, led, c]
            if kc > frames[d, _BKEY]:
                nb, ns = kc, seat
            else:
                nb, ns = frames[d, _BKEY], frames[d, _BSEAT]
        a = frames[d, _ALPHA]
        b = frames[d, _BETA]
        if ftlen == n - 1:
            # The trick is complete: ``ns`` took it and leads the next.
            ws = ns & 1
            w2 = frames[d, _WON] | (1 << ws)
            p *= rules[_GAIN]
            if fleft == 1:
                p += rules[_LAST]
                if w2 != 3:
                    p += rules[_CAPOT]
                # Only the root can be on the last trick: the move's value, folded
                # into ``f`` itself at the loop's top.
                ret = p if ws == (seat & 1) else -p
                frames[d, _SIGN] = 1
                frames[d, _OFF] = 0
                done = True
                continue
            sign = 1 if ws == (seat & 1) else -1
            frames[d, _SIGN] = sign
            frames[d, _OFF] = p
            ca, cb = (a - p, b - p) if sign == 1 else (-b - p, -a - p)
            cs, cleft, cwon, ctlen, cbkey, cbseat, ctpts = ns, fleft - 1, w2, 0, 0, 0, 0
        else:
            tricks[fleft, ftlen] = c
            frames[d, _SIGN] = -1
            frames[d, _OFF] = 0
            cs = seat + 1 if seat + 1 < n else 0
            ca, cb, cleft, cwon = -b, -a, fleft, frames[d, _WON]
            ctlen, cbkey, cbseat, ctpts = ftlen + 1, nb, ns, p
        opening = True


@_compiled(inline="always")
def _buffers(trick: Any, left: int) -> tuple[Any, Any]:
    """The search's working arrays: a row per trick to come (the one on the table,
    ``trick``, in row ``left``), and the stack of frames."""
    tricks = np.zeros((left + 1, 4), dtype=np.int64)
    for i in range(len(trick)):
        tricks[left, i] = trick[i]
    return tricks, np.zeros((_DEPTH, _FIELDS), dtype=np.int64)


@_compiled(inline="always")
def _mtdf(
    rules: Any,
    hands: Any,
    tricks: Any,
    tt: Any,
    stats: Any,
    frames: Any,
    forced: int,
    left: int,
    won: int,
    tlen: int,
    leader: int,
    guess: int,
    hi: int,
) -> int:
    """The value by zero-window searches until the bounds meet, the table keeping each
    one's bounds (``forced`` as :func:`_search`), the value known to be at most ``hi``
    and within the points still to take (:func:`_reach`); 0 once the node limit is
    passed (``stats[1]`` says so). The first search tests ``guess`` (MTD(f)); then each
    steps from the bound it moved, 4 points, twice as far each time the tests fall on
    the same side again (see the module docstring)."""
    seat = (leader + tlen) % rules[_N]
    out = hands[0] | hands[1] | hands[2] | hands[3]
    for i in range(tlen):
        out |= 1 << tricks[left, i]
    lo, most = _reach(rules, out, won, seat & 1)
    if most < hi:
        hi = most
    f = min(max(guess, lo), hi)
    step = 4
    last = 0
    while lo < hi:
        if last == 0:
            beta = f + 1 if f == lo else f
        elif last > 0:
            beta = lo + step if lo + step < hi else hi
        else:
            beta = hi - step + 2 if hi - step + 2 > lo + 1 else lo + 1
        f = _search(rules, hands, tricks, tt, stats, frames, seat, forced, beta - 1,
                    beta, left, won, tlen, leader)  # fmt: skip
        if stats[1]:
            return 0
        way = 1 if f >= beta else -1
        if way > 0:
            lo = f
        else:
            hi = f
        step = 2 * step if way == last else 4
        last = way
    return lo


@_compiled(nogil=True)
def _values(
    rules: Any,
    hands: Any,
    trick: Any,
    leader: int,
    left: int,
    won: int,
    cards: Any,
    tt: Any,
    stats: Any,
    out: Any,
    best: int,
) -> None:
    """MTD(f) for each of ``cards`` in turn, into ``out``. With ``best`` unknown (INF),
    each search starts from the card before's value. With the best card's value known to
    be ``best``, no card's value is above it, so each search starts there with that bound
    (a card worth ``best`` takes one zero-window search, not two)."""
    tricks, frames = _buffers(trick, left)
    guess = 0 if best >= INF else best
    for m in range(len(cards)):
        value = _mtdf(rules, hands, tricks, tt, stats, frames, cards[m], left, won,
                      len(trick), leader, guess, best)  # fmt: skip
        if stats[1]:
            return
        out[m] = value
        if best >= INF:
            guess = value


@_compiled(nogil=True)
def _value(
    rules: Any,
    hands: Any,
    trick: Any,
    leader: int,
    left: int,
    won: int,
    tt: Any,
    stats: Any,
) -> int:
    """MTD(f) for the position's value."""
    tricks, frames = _buffers(trick, left)
    none = stats[1] - 1  # -1 (no card given), read: a constant compiles a second _search
    return _mtdf(rules, hands, tricks, tt, stats, frames, none, left, won, len(trick),
                 leader, 0, INF)  # fmt: skip


class Solver:
    """Exact values of positions of one deal (one ruleset, one strain), all hands known.

    One per decision: its table serves every world of it, each solve a generation of its
    own. ``flags`` (:data:`NO_TABLE`, :data:`NO_MERGE`) exist so that tests can check
    that neither the table nor merging equivalent cards changes a value.

    ``one_world``: every solve is of the same world (the true deal, position after
    position, as the match analysis asks): the solves share one generation, so what the
    table learnt of a trick start in one solve serves every later one. A key (the cards
    still out, the seat to lead, the sides that have taken a trick) then names one
    position, whoever is asking, and an entry's bounds stay proven; the values are the
    same as with a new generation a solve (``tests/unit/test_match_analysis.py`` holds
    the analysis, which solves this way, to a plain minimax)."""

    def __init__(
        self,
        ruleset: Ruleset,
        strain: int,
        *,
        table_bits: int = TABLE_BITS,
        flags: int = 0,
        one_world: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.strain = strain
        self.flags = flags
        self.one_world = one_world
        # Generation 0 (all zeros): no entry; the first solve is generation 1.
        self._tt = np.zeros((1 << table_bits, 2), dtype=np.int64)
        # nodes, aborted, generation, table bits
        self._stats = np.array([0, 0, 0, table_bits], dtype=np.int64)
        #: Positions searched by every solve so far.
        self.nodes = 0

    def _start(self, node_limit: int) -> np.ndarray[Any, np.dtype[np.int64]]:
        stats = self._stats
        stats[0] = 0
        stats[1] = 0
        if not (self.one_world and stats[2]):
            stats[2] += 1
        return rules_vector(self.ruleset, self.strain, node_limit, self.flags)

    def new_world(self, strain: int | None = None) -> None:
        """Solve another world from now on (and ``strain``, if given) with the same table:
        what it held of the last world is dropped (a new generation), not reallocated."""
        if strain is not None:
            self.strain = strain
        self._stats[2] += 1

    def _done(self) -> bool:
        """Count the solve's positions; False if it went past its limit."""
        self.nodes += int(self._stats[0])
        return not self._stats[1]

    def values(
        self,
        hands: Sequence[Mask],
        trick: Sequence[int],
        leader: int,
        tricks_left: int,
        won: int,
        moves: Sequence[int] | None = None,
        node_limit: int = UNLIMITED,
    ) -> dict[int, int] | None:
        """The value of each of ``moves`` (default: every legal card) for the side to
        play, or None past ``node_limit`` positions.

        ``hands``: every seat's cards now; ``trick``: the cards on the table, led by
        ``leader``; ``tricks_left``: counting the one on the table; ``won``: bit ``s`` set
        if side ``s`` has taken a trick this deal (for capot)."""
        return self._values(hands, trick, leader, tricks_left, won, INF, moves, node_limit)

    def values_below(
        self,
        hands: Sequence[Mask],
        trick: Sequence[int],
        leader: int,
        tricks_left: int,
        won: int,
        best: int,
        moves: Sequence[int] | None = None,
        node_limit: int = UNLIMITED,
    ) -> dict[int, int] | None:
        """:meth:`values` when the best legal card is known to be worth ``best`` (the match
        analysis knows it from the card before: see :mod:`belot.analysis`): the same
        values, fewer searches. A ``best`` that is not the position's value gives wrong
        values."""
        return self._values(hands, trick, leader, tricks_left, won, best, moves, node_limit)

    def _values(
        self,
        hands: Sequence[Mask],
        trick: Sequence[int],
        leader: int,
        tricks_left: int,
        won: int,
        best: int,
        moves: Sequence[int] | None,
        node_limit: int,
    ) -> dict[int, int] | None:
        rules = self._start(node_limit)
        if moves is None:
            n = self.ruleset.players
            legal = playable(rules, hands[(leader + len(trick)) % n], _array(trick), leader)
            moves = [c for c in range(32) if legal >> c & 1]
        out = np.zeros(len(moves), dtype=np.int64)
        _values(
            rules, _array(hands, 4), _array(trick), leader, tricks_left, won, _array(moves),
            self._tt, self._stats, out, best,
        )  # fmt: skip
        if not self._done():
            return None
        return {int(c): int(v) for c, v in zip(moves, out, strict=True)}

    def value(
        self,
        hands: Sequence[Mask],
        trick: Sequence[int],
        leader: int,
        tricks_left: int,
        won: int,
        node_limit: int = UNLIMITED,
    ) -> int | None:
        """The position's value for the side to play (one search, not one per card), or
        None past ``node_limit`` positions; arguments as :meth:`values`."""
        rules = self._start(node_limit)
        v = _value(
            rules, _array(hands, 4), _array(trick), leader, tricks_left, won, self._tt,
            self._stats,
        )  # fmt: skip
        return int(v) if self._done() else None


def _array(xs: Sequence[int], size: int = 0) -> np.ndarray[Any, np.dtype[np.int64]]:
    """``xs`` as the int64 array the compiled functions take, zero-padded to ``size``."""
    out = np.zeros(max(size, len(xs)), dtype=np.int64)
    out[: len(xs)] = xs
    return out


def prepare() -> None:
    """Compile the solver, or load its cached machine code, now rather than on a bot's
    first decision (a table worker calls this at start, the image at build)."""
    from belot.ruleset import RULESETS

    solver = Solver(RULESETS["classic"], Strain.CLUBS, table_bits=4)
    hands = [1 << 0, 1 << 8, 1 << 16, 1 << 24]
    solver.values(hands, [], 0, 1, 0)
    solver.values_below(hands, [], 0, 1, 0, solver.value(hands, [], 0, 1, 0) or 0)
