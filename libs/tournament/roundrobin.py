"""Round-robin (docs/specification.md §5): everyone meets everyone once, on a schedule drawn before
round 1 that never changes.

The circle method: seat the entrants (seed order) round a table, the first one fixed;
each round pairs opposite places, then everyone but the first moves one place on. With
an odd count a "nobody" takes a place, and whoever faces nobody sits the round out,
scoring it as a win. n entrants play n-1 rounds (n rounds when n is odd).

One table of four may rotate partners instead: three rounds, each player partners each
other player once and faces them twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from tournament.events import Pairing


def schedule(order: Sequence[str]) -> tuple[tuple[Pairing, ...], ...]:
    """Every round's pairings; a sit-out is a Pairing with an empty side ``b``, listed last.

    >>> for r in schedule(["x", "y", "z"]):
    ...     print([(p.a, p.b) for p in r])
    [(('y',), ('z',)), (('x',), ())]
    [(('z',), ('x',)), (('y',), ())]
    [(('x',), ('y',)), (('z',), ())]
    """
    places: list[str | None] = list(order)
    if len(places) % 2:
        places.append(None)
    n = len(places)
    rounds = []
    for r in range(n - 1):
        games: list[tuple[str, str]] = []
        sit_out: list[str] = []
        for i in range(n // 2):
            x, y = places[i], places[n - 1 - i]
            # Alternate which side the fixed place takes, so nobody is always side a.
            if i == 0 and r % 2:
                x, y = y, x
            if x is None or y is None:
                sit_out.append(x if y is None else y)  # type: ignore[arg-type]
            else:
                games.append((x, y))
        pairings = [Pairing(k + 1, (x,), (y,)) for k, (x, y) in enumerate(games)]
        pairings += [Pairing(len(games) + 1, (s,), ()) for s in sit_out]
        rounds.append(tuple(pairings))
        places = [places[0], places[-1], *places[1:-1]]
    return tuple(rounds)


def rotating_partners(players: Sequence[str]) -> tuple[tuple[Pairing, ...], ...]:
    """Three rounds for one table of four: 1+2 v 3+4, 1+3 v 2+4, 1+4 v 2+3.

    >>> [[(p.a, p.b) for p in r] for r in rotating_partners("abcd")]
    [[(('a', 'b'), ('c', 'd'))], [(('a', 'c'), ('b', 'd'))], [(('a', 'd'), ('b', 'c'))]]
    """
    p1, p2, p3, p4 = players
    return (
        (Pairing(1, (p1, p2), (p3, p4)),),
        (Pairing(1, (p1, p3), (p2, p4)),),
        (Pairing(1, (p1, p4), (p2, p3)),),
    )
