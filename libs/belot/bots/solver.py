"""Exact (double-dummy) solves of the rest of a deal with every hand known.

The hard bot samples worlds (:mod:`belot.bots.worlds`) and, where the time allows, asks
this module for the exact value of each legal card in each world: the best result both
sides can force from here, seeing all the cards. It is what double-dummy engines for
bridge and belote do, in plain Python over 32-bit masks:

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
  a trick: the key is those, the entry a lower and an upper bound and the best lead.
  Different orders of the same tricks meet there. Only trick starts are stored: inside
  a trick positions rarely repeat.
- **Equivalent cards.** Two cards of one hand in one suit with no card of another hand,
  nor of the trick on the table, between them in the trick-taking order, and worth the
  same points, are one move: the deal after either is the same up to swapping them. In
  belote points differ along the order (a king is not a queen), so only the pointless
  low cards merge: 9 8 7 of a plain suit, 8 7 of a trump suit.
- **Zero windows.** Each card's exact value is found by MTD(f): zero-window searches
  from a first guess (the previous card's value) until the bounds meet, the table
  keeping what each pass learnt. Measured against one full-window search per card, it
  searches 1-5% fewer positions from four cards on, 20% more at three.
- **Move ordering.** The table's best lead first; then a lead that cannot be beaten in
  its suit, with the most points; a seat whose side holds the trick adds points; a seat
  that can take it takes it as cheaply as it can; otherwise it throws its least.
- **The rules of the trick are the ruleset's own**: legal cards come from
  :func:`belot.play.playable` and the winner from :func:`belot.play.power_table`, so the
  solver plays club, classic, french and gambler exactly as the engine does.

A solve may be given a node budget; past it :class:`NodeLimit` is raised and the caller
falls back to cheaper play-outs for that world. Node counts, not a clock, keep a solve
reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from belot.cards import LAST_TRICK_POINTS, PLAIN_ABOVE, SUIT_MASKS, TRUMP_ABOVE, Mask
from belot.play import CARD_POINTS, MISERE, playable, power_table
from belot.ruleset import Ruleset, Strain

#: Larger than any value (252 cards and capot, doubled in no trump, fits easily).
INF: Final = 1 << 20


class NodeLimit(Exception):
    """The solve went past its node budget (the caller falls back)."""


def _low_merge(lows: int) -> tuple[tuple[int, ...], ...]:
    """``[hand][others]`` over the ``lows`` lowest ranks (bits 0.., rank 7 first, which is
    also their order of power): the hand's cards to keep, one per run of hand cards with
    no card of ``others`` between them."""
    table = []
    for hand in range(8):
        row = []
        for others in range(8):
            keep = 0
            top = -1
            for b in range(lows):
                if hand >> b & 1:
                    if top >= 0:
                        keep &= ~(1 << top)
                    keep |= 1 << b
                    top = b
                elif others >> b & 1:
                    top = -1
            row.append(keep | (hand & ~((1 << lows) - 1) & 7))
        table.append(tuple(row))
    return tuple(table)


#: Pointless low cards merge: 7 8 9 of a plain suit, 7 8 of a trump suit.
_PLAIN_MERGE: Final = _low_merge(3)
_TRUMP_MERGE: Final = _low_merge(2)


def reduce_equivalent(moves: Mask, others: Mask, strain: int) -> Mask:
    """``moves`` with each run of equivalent cards cut to its top card (see module
    docstring); ``others``: the cards of the other hands and of the trick on the table."""
    out = moves
    for suit in range(4):
        shift = 8 * suit
        byte = (moves >> shift) & 0xFF
        if byte & (byte - 1) and byte & 7:
            trump = strain == Strain.ALL_TRUMPS or suit == strain
            table = _TRUMP_MERGE if trump else _PLAIN_MERGE
            low = table[byte & 7][(others >> shift) & 7]
            out = out & ~(7 << shift) | low << shift
    return out


class Solver:
    """Exact values of positions of one deal (one strain, one ruleset), all hands known.

    One solver per world: its transposition table is keyed on the cards of that world.
    ``use_table`` and ``merge_equivalent`` exist so that tests can check that neither
    changes a value.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        strain: int,
        node_limit: int | None = None,
        *,
        use_table: bool = True,
        merge_equivalent: bool = True,
    ) -> None:
        self.ruleset = ruleset
        self.strain = strain
        self.table: dict[int, tuple[int, int, int]] = {}
        self._limit = INF * INF if node_limit is None else node_limit
        self._use_table = use_table
        self._merge = merge_equivalent
        self._hands: list[Mask] = []
        self._count: Callable[[], int] = lambda: 0
        self._search = self._make_search()

    @property
    def nodes(self) -> int:
        """Positions searched so far (what ``node_limit`` bounds)."""
        return int(self._count())

    def values(
        self,
        hands: Sequence[Mask],
        trick: Sequence[int],
        leader: int,
        tricks_left: int,
        won: int,
        moves: Iterable[int] | None = None,
    ) -> dict[int, int]:
        """The value of each of ``moves`` (default: every legal card) for the side to play.

        ``hands``: every seat's cards now; ``trick``: the cards on the table, led by
        ``leader``; ``tricks_left``: counting the one on the table; ``won``: bit ``s`` set
        if side ``s`` has taken a trick this deal (for capot). Raises :class:`NodeLimit`.
        """
        n = self.ruleset.players
        self._hands[:] = hands
        seat = (leader + len(trick)) % n
        if moves is None:
            legal = playable(hands[seat], tuple(trick), self.strain, self.ruleset)
            moves = [c for c in range(32) if legal >> c & 1]
        out: dict[int, int] = {}
        guess = 0
        for card in moves:
            guess = self._mtdf(seat, card, tuple(trick), leader, tricks_left, won, guess)
            out[card] = guess
        return out

    def _mtdf(
        self,
        seat: int,
        card: int,
        trick: tuple[int, ...],
        leader: int,
        left: int,
        won: int,
        guess: int,
    ) -> int:
        """MTD(f): zero-window searches from ``guess`` until the bounds meet; the table
        keeps each pass's bounds, so the passes after the first are cheap."""
        lo, hi = -INF, INF
        f = guess
        while lo < hi:
            beta = f + 1 if f == lo else f
            f = self._after(seat, card, trick, leader, left, won, beta - 1, beta)
            if f < beta:
                hi = f
            else:
                lo = f
        return f

    def value(
        self, hands: Sequence[Mask], trick: Sequence[int], leader: int, tricks_left: int, won: int
    ) -> int:
        """The position's value for the side to play (see :meth:`values`): one search,
        not one per card. Raises :class:`NodeLimit`."""
        n = self.ruleset.players
        self._hands[:] = hands
        played = tuple(trick)
        seat = (leader + len(played)) % n
        if not played:
            return int(self._search(seat, -INF, INF, tricks_left, won, (), 0, 0, 0))
        keys = power_table(self.strain, played[0] >> 3)
        pts = CARD_POINTS[self.strain]
        best = max(range(len(played)), key=lambda i: keys[played[i]])
        return int(
            self._search(
                seat, -INF, INF, tricks_left, won, played, keys[played[best]],
                (leader + best) % n, sum(pts[c] for c in played),
            )
        )  # fmt: skip

    def _after(
        self,
        seat: int,
        card: int,
        trick: tuple[int, ...],
        leader: int,
        left: int,
        won: int,
        alpha: int = -INF,
        beta: int = INF,
    ) -> int:
        """Value for ``seat``'s side of playing ``card`` now: exact if inside
        (``alpha``, ``beta``), else a bound on the side it fell."""
        hands = self._hands
        strain = self.strain
        n = self.ruleset.players
        pts = CARD_POINTS[strain]
        keys = power_table(strain, (trick[0] if trick else card) >> 3)
        best_seat, best_key = leader, -2
        for i, c in enumerate(trick):
            if keys[c] > best_key:
                best_seat, best_key = (leader + i) % n, keys[c]
        saved = hands[seat]
        hands[seat] = saved & ~(1 << card)
        try:
            points = sum(pts[c] for c in trick) + pts[card]
            if keys[card] > best_key:
                best_seat, best_key = seat, keys[card]
            if len(trick) + 1 < n:
                after = (*trick, card)
                return -self._search(
                    (seat + 1) % n, -beta, -alpha, left, won, after, best_key, best_seat, points
                )
            return self._settle(seat, best_seat, points, left, won, alpha, beta)
        finally:
            hands[seat] = saved

    def _settle(
        self, seat: int, winner: int, points: int, left: int, won: int, alpha: int, beta: int
    ) -> int:
        """The value for ``seat``'s side once the trick is complete (``winner`` took it)."""
        gain, capot = self._gain_and_capot()
        side = seat & 1
        w = winner & 1
        won2 = won | (1 << w)
        p = gain * points
        if left == 1:
            p += gain * LAST_TRICK_POINTS
            if won2 != 3:
                p += capot
            vw = p
        elif w == side:
            vw = p + self._search(winner, alpha - p, beta - p, left - 1, won2, (), 0, 0, 0)
        else:
            vw = p + self._search(winner, -beta - p, -alpha - p, left - 1, won2, (), 0, 0, 0)
        return vw if w == side else -vw

    def _gain_and_capot(self) -> tuple[int, int]:
        if self.strain == MISERE:
            return -1, 0
        return 1, self.ruleset.capot_bonus

    def _make_search(self) -> Callable[..., int]:
        """The negamax search, as a closure over the solver's tables (fast locals)."""
        ruleset = self.ruleset
        strain = self.strain
        n = ruleset.players
        pts = CARD_POINTS[strain]
        keys_by_led = tuple(power_table(strain, led) for led in range(4))
        gain, capot = self._gain_and_capot()
        last = gain * LAST_TRICK_POINTS
        above = tuple(
            (TRUMP_ABOVE if strain == Strain.ALL_TRUMPS or c >> 3 == strain else PLAIN_ABOVE)[c]
            for c in range(32)
        )
        trump_mask = SUIT_MASKS[strain] if 0 <= strain <= 3 else 0
        #: The pointless low cards that may merge, by suit (see reduce_equivalent).
        lows = 0
        for suit in range(4):
            trump = strain == Strain.ALL_TRUMPS or suit == strain
            lows |= (3 if trump else 7) << (8 * suit)
        # Sort keys, precomputed: a lead's richness, a card's points (non-trumps first).
        lead_rich = tuple(-pts[c] - 100 for c in range(32))
        smear = tuple(pts[c] - (100 if (1 << c) & trump_mask else 0) for c in range(32))
        table = self.table
        use_table = self._use_table
        merge = self._merge
        limit = self._limit
        hands = self._hands
        nodes = 0
        four = n == 4

        def search(
            seat: int,
            alpha: int,
            beta: int,
            left: int,
            won: int,
            trick: tuple[int, ...],
            bkey: int,
            bseat: int,
            tpts: int,
        ) -> int:
            """Value for ``seat``'s side; ``trick`` on the table (best ``bkey`` by
            ``bseat``, ``tpts`` points in it); ``left`` tricks to play, this one counted."""
            nonlocal nodes
            nodes += 1
            if nodes > limit:
                raise NodeLimit
            hand = hands[seat]
            pos = len(trick)
            if left == 1:
                # The last trick plays itself: one card in each hand still to play.
                p = tpts
                s = seat
                for _ in range(pos, n):
                    c = hands[s].bit_length() - 1
                    p += pts[c]
                    if pos == 0 and s == seat:
                        bkey, bseat = keys_by_led[c >> 3][c], s
                        led_keys = keys_by_led[c >> 3]
                    else:
                        if s == seat:
                            led_keys = keys_by_led[trick[0] >> 3]
                        if led_keys[c] > bkey:
                            bkey, bseat = led_keys[c], s
                    s = (s + 1) % n
                p = gain * p + last
                if won | 1 << (bseat & 1) != 3:
                    p += capot
                return p if bseat & 1 == seat & 1 else -p
            best_move = -1
            everyone = hands[0] | hands[1] | hands[2] | hands[3] if four else hands[0] | hands[1]
            others = everyone & ~hand
            if pos == 0:
                if four:
                    cards = hands[0] | hands[1] << 32 | hands[2] << 64 | hands[3] << 96
                else:
                    cards = hands[0] | hands[1] << 32
                key = cards << 4 | seat << 2 | won
                if use_table:
                    entry = table.get(key)
                    if entry is not None:
                        lo, hi, best_move = entry
                        if lo >= beta:
                            return lo
                        if hi <= alpha or lo == hi:
                            return hi
                        if lo > alpha:
                            alpha = lo
                        if hi < beta:
                            beta = hi
                    else:
                        lo, hi = -INF, INF
                moves = hand
            else:
                moves = playable(hand, trick, strain, ruleset)
            if merge and moves & (moves - 1) and moves & lows:
                on_table = others
                for c in trick:
                    on_table |= 1 << c
                moves = reduce_equivalent(moves, on_table, strain)
            ms = []
            m = moves
            while m:
                low = m & -m
                ms.append(low.bit_length() - 1)
                m ^= low
            side = seat & 1
            if len(ms) > 1:
                if pos == 0:
                    # Unbeatable leads first, richest first; then the cheapest.
                    ms.sort(key=lambda c: pts[c] if others & above[c] else lead_rich[c])
                    if best_move in ms:
                        ms.remove(best_move)
                        ms.insert(0, best_move)
                elif (bseat & 1) == side:
                    # The side holds the trick: the most points, sparing trumps.
                    ms.sort(key=smear.__getitem__, reverse=True)
                else:
                    keys = keys_by_led[trick[0] >> 3]
                    # Take it as cheaply as possible, else throw the least.
                    ms.sort(key=lambda c: keys[c] - 64 if keys[c] > bkey else pts[c])
            a0 = alpha
            best = -INF
            best_card = -1
            last_card = pos == n - 1
            if pos:
                keys = keys_by_led[trick[0] >> 3]
            for c in ms:
                hands[seat] = hand ^ (1 << c)
                p = tpts + pts[c]
                if pos == 0:
                    nb, ns = keys_by_led[c >> 3][c], seat
                else:
                    k = keys[c]
                    if k > bkey:
                        nb, ns = k, seat
                    else:
                        nb, ns = bkey, bseat
                if last_card:
                    ws = ns & 1
                    w2 = won | (1 << ws)
                    p *= gain
                    if left == 1:
                        p += last
                        if w2 != 3:
                            p += capot
                        vw = p
                    elif ws == side:
                        vw = p + search(ns, alpha - p, beta - p, left - 1, w2, (), 0, 0, 0)
                    else:
                        vw = p + search(ns, -beta - p, -alpha - p, left - 1, w2, (), 0, 0, 0)
                    v = vw if ws == side else -vw
                else:
                    v = -search((seat + 1) % n, -beta, -alpha, left, won, (*trick, c), nb, ns, p)
                hands[seat] = hand
                if v > best:
                    best = v
                    best_card = c
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            if pos == 0 and use_table:
                if best <= a0:
                    table[key] = (lo, best, best_card)
                elif best >= beta:
                    table[key] = (best, hi, best_card)
                else:
                    table[key] = (best, best, best_card)
            return best

        def count() -> int:
            return nodes

        self._count = count
        return search
