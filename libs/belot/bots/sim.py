"""Fast play-outs of the rest of a deal with every hand known (one sampled deal).

The hard bot plays each candidate card on each sampled deal and finishes the deal with
:func:`greedy_card` for every seat: a perfect-information heuristic (it sees the
sampled hands) that wins tricks cheaply, smears points on a partner's sure trick and
discards low. The result is scored with the real :func:`belot.scoring.score_deal`, so
the bot weighs failed contracts, capot and belote the way the match will.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from belot.cards import KING, LAST_TRICK_POINTS, QUEEN, SUIT_MASKS, TRUMP_STRENGTH, make_card
from belot.play import CARD_POINTS, MISERE, playable, power_table
from belot.ruleset import Ruleset, Strain
from belot.scoring import Tally, score_deal


@dataclass
class Position:
    """A deal in progress with every hand known. Mutable: copied per play-out."""

    ruleset: Ruleset
    strain: int
    taker: int  # -1: misère
    hands: list[int]
    trick: list[int]
    leader: int
    points: list[int]
    tricks: list[int]
    tricks_left: int
    #: Belote and melds already earned or certain, per side (added at the end).
    bonus: list[int]
    #: Melds per side that count only if the side takes a trick (gambler).
    melds: list[int]

    def copy(self) -> Position:
        return Position(
            self.ruleset,
            self.strain,
            self.taker,
            list(self.hands),
            list(self.trick),
            self.leader,
            list(self.points),
            list(self.tricks),
            self.tricks_left,
            self.bonus,
            self.melds,
        )

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.trick)) % self.ruleset.players


_POINTS: Final = CARD_POINTS


def play(pos: Position, card: int) -> None:
    """Play ``card`` for the seat to play; settle the trick when complete."""
    n = pos.ruleset.players
    seat = (pos.leader + len(pos.trick)) % n
    pos.hands[seat] &= ~(1 << card)
    pos.trick.append(card)
    if len(pos.trick) < n:
        return
    trick = pos.trick
    keys = power_table(pos.strain, trick[0] >> 3)
    best = 0
    for i in range(1, n):
        if keys[trick[i]] > keys[trick[best]]:
            best = i
    winner = (pos.leader + best) % n
    pts = _POINTS[pos.strain]
    value = sum(pts[c] for c in trick)
    pos.tricks_left -= 1
    if pos.tricks_left == 0:
        value += LAST_TRICK_POINTS
    pos.points[winner & 1] += value
    pos.tricks[winner & 1] += 1
    pos.leader = winner
    pos.trick = []


def outcome(pos: Position, side: int) -> int:
    """Our side's deal result minus theirs, as the match would score it (no hanging)."""
    rules = pos.ruleset
    melds = [
        m if pos.tricks[s] or not rules.melds_need_a_trick else 0 for s, m in enumerate(pos.melds)
    ]
    tally = Tally(
        (pos.points[0], pos.points[1]),
        (pos.tricks[0], pos.tricks[1]),
        (melds[0], melds[1]),
        (pos.bonus[0], pos.bonus[1]),
    )
    taker_side = None if pos.taker < 0 else pos.taker & 1
    score = score_deal(rules, pos.strain, taker_side, tally, 0)
    return score.awarded[side] - score.awarded[1 - side]


def belote_bonus(ruleset: Ruleset, strain: int, hands: list[int]) -> list[int]:
    """Belote each side will announce from sampled hands (a holder of the pair)."""
    bonus = [0, 0]
    if strain > Strain.ALL_TRUMPS or strain < 0:
        return bonus
    suits = range(4) if strain == Strain.ALL_TRUMPS else (strain,)
    for seat, hand in enumerate(hands):
        for s in suits:
            pair = (1 << make_card(s, KING)) | (1 << make_card(s, QUEEN))
            if hand & pair == pair:
                bonus[seat & 1] += ruleset.belote_points
    return bonus


def _beats_table(strain: int, led: int) -> tuple[int, ...]:
    keys = power_table(strain, led)
    return tuple(sum(1 << x for x in range(32) if keys[x] > keys[c]) for c in range(32))


#: ``_BEATS[strain][led][card]``: the cards that would beat ``card`` in a trick where
#: ``led`` was led. The rollout's judgement of a trick is a mask test with these.
_BEATS: Final = tuple(tuple(_beats_table(s, led) for led in range(4)) for s in range(7))
_BYTE_CARDS: Final = tuple(
    tuple(tuple(suit * 8 + r for r in range(8) if byte >> r & 1) for byte in range(256))
    for suit in range(4)
)


def _cards_of(mask: int) -> tuple[int, ...]:
    bc = _BYTE_CARDS
    return (
        bc[0][mask & 0xFF]
        + bc[1][(mask >> 8) & 0xFF]
        + bc[2][(mask >> 16) & 0xFF]
        + bc[3][(mask >> 24) & 0xFF]
    )


def _key_tables(strain: int, led: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """By card, the sort keys :func:`_pick` compares, for ``strain`` with ``led`` led:
    (smear on a partner's safe trick, cheapest sure winner, least useful discard)."""
    keys = power_table(strain, led)
    pts = _POINTS[strain]
    trump = SUIT_MASKS[strain] if strain <= 3 else (-1 if strain == Strain.ALL_TRUMPS else 0)
    smear = tuple((not (1 << c) & trump, pts[c], -keys[c]) for c in range(32))
    sure = tuple((keys[c], pts[c]) for c in range(32))
    discard = tuple((bool((1 << c) & trump), pts[c], keys[c]) for c in range(32))
    return smear, sure, discard


_SORT_KEYS: Final = tuple(tuple(_key_tables(s, led) for led in range(4)) for s in range(7))
#: ``_TRUMP_LED[strain][led]``: the led suit is a trump (legal cards need the rules).
_TRUMP_LED: Final = tuple(
    tuple(s == Strain.ALL_TRUMPS or (led == s and s <= 3) for led in range(4)) for s in range(7)
)


def greedy_card(pos: Position) -> int:
    """A sensible card for the seat to play, seeing every hand (see module docstring)."""
    if pos.strain == MISERE:
        rules = pos.ruleset
        seat = (pos.leader + len(pos.trick)) % rules.players
        legal = playable(pos.hands[seat], pos.trick, pos.strain, rules)
        if not legal & (legal - 1):
            return legal.bit_length() - 1
        return _misere_card(pos, legal, seat)
    return _pick(pos.ruleset, pos.strain, pos.taker, pos.hands, pos.trick, pos.leader)


def _pick(
    rules: Ruleset, strain: int, taker: int, hands: list[int], trick: list[int], leader: int
) -> int:
    """:func:`greedy_card` of the seat to play (not in misère), from the position's parts."""
    n = rules.players
    seat = (leader + len(trick)) % n
    hand = hands[seat]
    if trick:
        led = trick[0] >> 3
        legal = hand & SUIT_MASKS[led]
        if not legal or _TRUMP_LED[strain][led]:
            legal = playable(hand, trick, strain, rules)
    else:
        legal = hand
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    return _choice(rules, strain, taker, hands, trick, leader, seat, legal)


def _choice(
    rules: Ruleset,
    strain: int,
    taker: int,
    hands: list[int],
    trick: list[int],
    leader: int,
    seat: int,
    legal: int,
) -> int:
    """:func:`_pick` once the seat's ``legal`` cards are known to be more than one."""
    n = rules.players
    led = trick[0] >> 3 if trick else 0
    trump_mask = SUIT_MASKS[strain] if strain <= 3 else (-1 if strain == Strain.ALL_TRUMPS else 0)
    if not trick:
        return _lead(hands, n, strain, taker, legal, seat, trump_mask)
    pts = _POINTS[strain]
    keys = power_table(strain, led)
    beats = _BEATS[strain][led]
    best_i = 0
    best_key = keys[trick[0]]
    for i in range(1, len(trick)):
        if keys[trick[i]] > best_key:
            best_i, best_key = i, keys[trick[i]]
    best = trick[best_i]
    partner_winning = n == 4 and best_i == len(trick) - 2
    # Every card an opponent still to play could answer with now.
    threats = 0
    later = False
    trump_led = _TRUMP_LED[strain][led]
    led_mask = SUIT_MASKS[led]
    for i in range(len(trick) + 1, n):
        other = (leader + i) % n
        if (other & 1) != (seat & 1):
            later = True
            theirs = hands[other] & led_mask
            if not theirs or trump_led:
                theirs = playable(hands[other], trick, strain, rules)
            threats |= theirs
    cards = _cards_of(legal)
    smear, sure_key, discard = _SORT_KEYS[strain][led]
    if partner_winning and not threats & beats[best]:
        # The partner's trick is safe: add points, sparing trumps.
        return max(cards, key=smear.__getitem__)
    # A card that takes the trick whatever the opponents still to play do.
    winners = beats[best]
    sure = [c for c in cards if winners >> c & 1 and not threats & beats[c]]
    if sure:
        cheapest = min(sure, key=sure_key.__getitem__) if len(sure) > 1 else sure[0]
        # Spend a big trump only on a trick worth it.
        if not (
            (1 << cheapest) & trump_mask
            and pts[cheapest] >= 14
            and later
            and sum(pts[c] for c in trick) < 10
        ):
            return cheapest
    # Cannot (or need not) win: throw the least useful card.
    return min(cards, key=discard.__getitem__)


def _lead(
    hands: list[int], n: int, strain: int, taker: int, legal: int, seat: int, trump_mask: int
) -> int:
    others = 0
    opponents = 0
    for s in range(n):
        if s != seat:
            others |= hands[s]
            if (s & 1) != (seat & 1):
                opponents |= hands[s]
    pts = _POINTS[strain]
    cards = _cards_of(legal)
    beats = _BEATS[strain]
    ruffers = opponents & trump_mask if strain <= 3 else 0
    # A card no one else can beat in its suit, and that no opponent can ruff.
    masters = []
    for c in cards:
        suit = c >> 3
        if others & beats[suit][c] & SUIT_MASKS[suit]:
            continue
        if ruffers and suit != strain and not opponents & SUIT_MASKS[suit]:
            continue
        masters.append(c)
    if masters:
        trumps = [c for c in masters if (1 << c) & trump_mask] if strain <= 3 else []
        taker_side = taker >= 0 and (taker & 1) == (seat & 1)
        if taker_side and trumps and ruffers:
            return trumps[-1] if len(trumps) == 1 else max(trumps, key=_STRENGTH.__getitem__)
        plain = [c for c in masters if not (1 << c) & trump_mask] if strain <= 3 else masters
        return max(plain or masters, key=pts.__getitem__)
    # Nothing sure: a low card of a side suit, shortest first, to make a void.
    plain = [c for c in cards if not (1 << c) & trump_mask] or list(cards)
    hand = hands[seat]

    def shortness(c: int) -> tuple[int, int]:
        return ((hand & SUIT_MASKS[c >> 3]).bit_count(), pts[c])

    return min(plain, key=shortness)


_STRENGTH: Final = tuple(TRUMP_STRENGTH[c & 7] for c in range(32))


def _misere_card(pos: Position, legal: int, seat: int) -> int:
    """Misère: lose the trick with the highest card that still loses; else win big."""
    cards = _cards_of(legal)
    pts = _POINTS[pos.strain]
    if not pos.trick:
        return min(cards, key=lambda c: (power_table(pos.strain, c >> 3)[c], pts[c]))
    keys = power_table(pos.strain, pos.trick[0] >> 3)
    best = max(keys[c] for c in pos.trick)
    losing = [c for c in cards if keys[c] < best]
    if losing:
        return max(losing, key=lambda c: (keys[c], pts[c]))
    return max(cards, key=lambda c: (keys[c], pts[c]))


def finish(pos: Position) -> None:
    """Play the deal to its end with :func:`greedy_card` for everyone: the same cards as
    ``play(pos, greedy_card(pos))`` until the end, with the trick settled inline (the
    play-outs are most of the hard bot's time early in a deal)."""
    strain = pos.strain
    if strain == MISERE:
        while pos.tricks_left:
            play(pos, greedy_card(pos))
        return
    rules = pos.ruleset
    n = rules.players
    hands = pos.hands
    trick = pos.trick
    leader = pos.leader
    points = pos.points
    tricks = pos.tricks
    left = pos.tricks_left
    taker = pos.taker
    pts = _POINTS[strain]
    keys_by_led = tuple(power_table(strain, led) for led in range(4))
    suits = SUIT_MASKS
    trump_led = _TRUMP_LED[strain]
    while left:
        seat = (leader + len(trick)) % n
        hand = hands[seat]
        if trick:
            led = trick[0] >> 3
            legal = hand & suits[led]
            if not legal or trump_led[led]:
                legal = playable(hand, trick, strain, rules)
        else:
            legal = hand
        if legal & (legal - 1):
            card = _choice(rules, strain, taker, hands, trick, leader, seat, legal)
        else:
            card = legal.bit_length() - 1
        hands[seat] = hand & ~(1 << card)
        trick.append(card)
        if len(trick) < n:
            continue
        keys = keys_by_led[trick[0] >> 3]
        best, best_key = 0, keys[trick[0]]
        for i in range(1, n):
            if keys[trick[i]] > best_key:
                best, best_key = i, keys[trick[i]]
        winner = (leader + best) % n
        value = 0
        for c in trick:
            value += pts[c]
        left -= 1
        if left == 0:
            value += LAST_TRICK_POINTS
        points[winner & 1] += value
        tricks[winner & 1] += 1
        leader = winner
        trick = []
    pos.trick = trick
    pos.leader = leader
    pos.tricks_left = left
