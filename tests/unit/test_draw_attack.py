"""The attack on the old draw, played: the operator grinds the start time.

The old service seeded a random draw with ``random.Random(f"{id}:{now}")``, ``now`` its
own clock in milliseconds, and shuffled the entrants with it. Whoever runs the service
picks ``now`` (it only has to start the tournament at that millisecond, or say it did):
over one second the 1,000 values are 1,000 different brackets to choose from. Here the
operator wants player ``p`` to meet the weakest entrant first and the two strongest
only in the final of an eight-player elimination.

The new draw (``fairdeal.draw``) orders the entrants from a drand round's value, the
round being the first due more than the lead after the naming: ``now`` only picks which
round, and no round's value is known when it is named. Over the same second the
operator gets at most two draws (one second can straddle a round's edge), both fixed by
values that did not exist yet.
"""

from __future__ import annotations

import random

from fairdeal.chains import QUICKNET
from fairdeal.draw import (
    DRAW_CHAIN,
    DRAW_ROUND_LEAD_MS,
    draw_order,
    draw_round_for,
    due_at_ms,
    randomness_of,
)
from tools.drand_vectors import QUICKNET_BEACONS
from tournament import elimination

TID = "cup-2024"
#: Eight entrants in entry order: s1 and s2 the two strongest,
#: weak the weakest, p the operator's friend.
ENTRY_ORDER = ("a", "weak", "s2", "p", "c", "s1", "d", "b")
FRIEND, WEAKEST, STRONGEST = "p", "weak", ("s1", "s2")
#: The second the operator may start in: inside round 1000's period, so that a naming
#: then names a recorded round (tests/data/drand-quicknet.json holds 1000-1003).
SECOND_MS = QUICKNET.time_of_round(1000) * 1000 - DRAW_ROUND_LEAD_MS + 1_500
SIGNATURES = {int(b["round"]): bytes.fromhex(b["signature"]) for b in QUICKNET_BEACONS}


def wanted(order: tuple[str, ...]) -> bool:
    """Round 1 pits p against the weakest, and s1 and s2 are in the other half."""
    bracket = elimination.first_round(order)
    first = next(m for m in bracket if FRIEND in m)
    if set(first) != {FRIEND, WEAKEST}:
        return False
    half = len(bracket) // 2
    friend_half = bracket[:half] if first in bracket[:half] else bracket[half:]
    return not any(s in m for m in friend_half for s in STRONGEST)


def old_order(now_ms: int) -> tuple[str, ...]:
    """The old service's draw (services/tournament/commands.py and seeding.seed_order
    before the draw): a generator seeded with the id and the start time."""
    rng = random.Random(f"{TID}:{now_ms}")
    shuffled = list(ENTRY_ORDER)
    rng.shuffle(shuffled)
    return tuple(shuffled)


def new_order(now_ms: int) -> tuple[int, tuple[str, ...]]:
    """The draw as the service now makes it when started at ``now_ms``: the round the
    naming names, and the order its value gives (known only once it is out)."""
    round_ = draw_round_for(DRAW_CHAIN, now_ms, DRAW_ROUND_LEAD_MS)
    return round_, draw_order(randomness_of(SIGNATURES[round_]), TID, ENTRY_ORDER)


def test_grinding_the_start_time_chooses_the_old_draw() -> None:
    second = range(SECOND_MS, SECOND_MS + 1000)
    orders = {now: old_order(now) for now in second}
    hits = [now for now, order in orders.items() if wanted(order)]
    # Nearly every millisecond is another bracket, and dozens give the operator's.
    assert len(set(orders.values())) > 900
    assert len(hits) >= 20, len(hits)
    # Any one of them works: started then, the tournament is the operator's.
    assert wanted(old_order(hits[0]))


def test_the_new_draw_leaves_the_start_time_nothing_to_choose() -> None:
    second = range(SECOND_MS, SECOND_MS + 1000)
    draws = {now: new_order(now) for now in second}
    rounds = {round_ for round_, _ in draws.values()}
    orders = {order for _, order in draws.values()}
    # The whole second gives one or two rounds, so one or two draws, not a thousand.
    assert len(rounds) <= 2 and len(orders) == len(rounds)
    for now, (round_, _) in draws.items():
        # ...and each is fixed by a value that did not exist when it was named: the
        # round is due more than the lead after the naming.
        assert due_at_ms(DRAW_CHAIN, round_) > now + DRAW_ROUND_LEAD_MS
        # Nothing else of the moment enters the draw: it is the recipe of the round's
        # value, the tournament and the entrants.
        assert draws[now][1] == draw_order(randomness_of(SIGNATURES[round_]), TID, ENTRY_ORDER)
    # Whether p is favoured is drand's to say: all of a round's milliseconds, or none.
    for round_ in rounds:
        verdicts = {wanted(order) for r, order in draws.values() if r == round_}
        assert len(verdicts) == 1


def test_the_figures() -> None:
    """The numbers the report quotes: how many of the second's milliseconds favour p
    under each rule (old: the operator's pick of dozens; new: none it can see)."""
    second = range(SECOND_MS, SECOND_MS + 1000)
    old_hits = sum(wanted(old_order(now)) for now in second)
    new_distinct = len({new_order(now) for now in second})
    print(f"old rule: {old_hits} of 1000 ms favour p; new rule: {new_distinct} draw(s)")
    assert old_hits > 0 and new_distinct <= 2
