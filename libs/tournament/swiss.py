"""Swiss pairing (docs/specification.md §5) as one maximum-weight matching.

The rules: meet someone on the same points, or as close as possible; never the same
opponent twice; with an odd count, the lowest-placed entrant that has not sat out yet
sits out (scored as a win), and nobody sits out twice.

A greedy pass down the standings can dead-end: the last few entrants may all have met,
though another choice higher up would have paired everyone. So, as Tabbycat and lichess's arena
do, the round is a matching in a graph: every entrant a node, an edge for each pair that
may meet (none for a previous meeting, none for a forbidden pair), and with an odd count
a phantom "bye" node joined only to the entrants that may still sit out. networkx's
blossom algorithm (``max_weight_matching(maxcardinality=True)``) finds a matching that
covers every node if one exists, and of those, one of maximum weight. Weights are
integers (the algorithm is then exact), built so that the priorities are strictly
lexicographic:

1. the bye goes to the lowest-placed entrant that may take it (cost ``Q`` per place
   above the bottom, with ``Q`` more than any sum of pairing costs);
2. score groups stay whole: ``P * d**2`` for a points gap ``d`` (squared, so that two
   small floats beat one big one; ``P`` more than any sum of the costs in 3);
3. within a score group, the top half meets the bottom half (1 v 5, 2 v 6, … in a group
   of 8): the cost is how far the pair is from half the group apart; across groups, how
   far apart they stand, so that the lowest of a group floats to the top of the next.

When no matching covers everyone, there is no valid round at all (not merely no round a
greedy pass found): the caller ends the tournament and says why.

Large fields: the full graph has n²/2 edges and the blossom algorithm is pure Python.
Above ``FULL_GRAPH_UP_TO`` entrants the first attempt keeps only the edges that can
matter (each entrant to those within ``WINDOW`` places of it and of its ideal partner
in its group, and the bye to the lowest ``WINDOW`` entrants that may take it); if that
graph has no perfect matching, the full graph is tried. The restricted graph can miss
a better pairing whose pairs lie outside the window; within the window it is exact.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import networkx as nx

from tournament.errors import NoValidPairing

#: Fields up to this size are always paired on the full graph (exact).
FULL_GRAPH_UP_TO: Final = 128
#: The restricted graph's reach, in places.
WINDOW: Final = 12

BYE: Final = -1


@dataclass(frozen=True, slots=True)
class SwissRound:
    """The pairs (higher placed first, top board first) and who sits out, if anyone."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None
    #: The matching's total cost (lower is better): comparable between two pairings of
    #: the same standings, e.g. the restricted graph's and the full graph's.
    cost: int = 0
    #: True when the restricted graph had no perfect matching and the full one was used.
    widened: bool = False


def pair(
    ranked: Sequence[str],
    points: Mapping[str, int],
    met: Mapping[str, Collection[str]],
    had_bye: Collection[str],
    forbidden: Collection[frozenset[str]] = (),
    window: int | None = WINDOW,
    full_graph_up_to: int = FULL_GRAPH_UP_TO,
) -> SwissRound:
    """Pair ``ranked`` (the entrants still playing, best placed first).

    ``points``: current points (integers); ``met``: each entrant's previous opponents;
    ``had_bye``: who sat out already; ``forbidden``: pairs that must not meet (organiser).
    Raises NoValidPairing when no round satisfies the rules.
    """
    n = len(ranked)
    if n < 2:
        raise NoValidPairing("fewer than two entrants are left to pair")
    graph = _Graph(ranked, points, met, had_bye, forbidden)
    if window is not None and n > full_graph_up_to:
        found = graph.match(window)
        if found is not None:
            return found
        widened = graph.match(None)
        if widened is not None:
            return SwissRound(widened.pairs, widened.bye, widened.cost, widened=True)
    else:
        found = graph.match(None)
        if found is not None:
            return found
    if n % 2 and not any(e not in had_bye for e in ranked):
        raise NoValidPairing("everyone has sat out once: nobody may sit out this round")
    raise NoValidPairing(
        "no pairing avoids every previous meeting"
        + (" and forbidden pair" if forbidden else "")
        + " for everyone left"
    )


class _Graph:
    """The weights of every candidate edge, and the matching over a chosen set of them."""

    def __init__(
        self,
        ranked: Sequence[str],
        points: Mapping[str, int],
        met: Mapping[str, Collection[str]],
        had_bye: Collection[str],
        forbidden: Collection[frozenset[str]],
    ) -> None:
        self.ranked = list(ranked)
        n = self.n = len(ranked)
        self.pts = [points.get(e, 0) for e in ranked]
        index = {e: i for i, e in enumerate(ranked)}
        self.blocked = [set() for _ in range(n)]  # type: list[set[int]]
        for e, others in met.items():
            if e in index:
                self.blocked[index[e]].update(index[o] for o in others if o in index)
        for pair_ in forbidden:
            ids = [index[e] for e in pair_ if e in index]
            if len(ids) == 2:
                self.blocked[ids[0]].add(ids[1])
                self.blocked[ids[1]].add(ids[0])
        self.may_sit_out = [i for i in range(n) if ranked[i] not in had_bye] if n % 2 else []
        # Score groups, in standing order (entrants come best placed first).
        self.group_start = [0] * n
        self.group_size = [0] * n
        start = 0
        while start < n:
            end = start
            while end < n and self.pts[end] == self.pts[start]:
                end += 1
            for i in range(start, end):
                self.group_start[i], self.group_size[i] = start, end - start
            start = end
        spread = max(self.pts) - min(self.pts)
        self.P = n * n + 1  # > any sum of within-group costs (n/2 pairs, each < n)
        self.Q = (n // 2 + 1) * (self.P * spread * spread + n) + 1  # > any pairing cost
        self.W = self.Q * (n + 1) + 1  # keeps every weight positive

    def cost(self, i: int, j: int) -> int:
        d = self.pts[i] - self.pts[j]
        if self.group_start[i] == self.group_start[j]:
            half = self.group_size[i] // 2
            secondary = abs(abs(i - j) - half)
        else:
            secondary = abs(i - j)
        return self.P * d * d + secondary

    def candidates(self, i: int, window: int | None) -> range | list[int]:
        if window is None:
            return range(i + 1, self.n)
        near = set(range(i + 1, min(self.n, i + window + 1)))
        start, size = self.group_start[i], self.group_size[i]
        ideal = start + (i - start + size // 2) % size if size > 1 else i
        near.update(j for j in range(ideal - window, ideal + window + 1) if i < j < self.n)
        return sorted(near)

    def match(self, window: int | None) -> SwissRound | None:
        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        edges = []
        for i in range(self.n):
            blocked = self.blocked[i]
            for j in self.candidates(i, window):
                if j not in blocked:
                    edges.append((i, j, self.W - self.cost(i, j)))
        sitters = self.may_sit_out
        if self.n % 2:
            g.add_node(BYE)
            reach = sitters if window is None else sitters[-window:]
            edges += [(BYE, i, self.W - self.Q * (self.n - 1 - i)) for i in reach]
        g.add_weighted_edges_from(edges)
        mate = nx.max_weight_matching(g, maxcardinality=True)
        if 2 * len(mate) != g.number_of_nodes():
            return None
        pairs: list[tuple[int, int]] = []
        bye = None
        cost = 0
        for u, v in mate:
            if BYE in (u, v):
                sitter = v if u == BYE else u
                bye = self.ranked[sitter]
                cost += self.Q * (self.n - 1 - sitter)
            else:
                pairs.append((min(u, v), max(u, v)))
                cost += self.cost(u, v)
        pairs.sort()
        named = tuple((self.ranked[i], self.ranked[j]) for i, j in pairs)
        return SwissRound(named, bye, cost)
