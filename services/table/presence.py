"""Who is at the table: which seats' players have a live WebSocket on it, as the gateways
say, and the per-seat line every watcher gets (``presence`` in the table's view and in
its state notices).

The gateways hold the sockets (several of them, each with its own players), so each one
announces, for each table its players watch, the whole set of them it holds
(``<prefix>.table.<id>.presence``: ``{gateway, players, ttl_ms}``): at once when the set
changes and again every ``BELOT_PRESENCE_SECONDS`` (a heartbeat). An announcement lives
``ttl_ms``: a gateway that died stops renewing its sets and its players go
"disconnected" when they expire. An announcement also says how many sockets watch the
table from that gateway (``watchers``, seated or not): the owner pushes the table's
views (:meth:`services.table.worker.TableWorker.publish_state`) only while someone
watches, and pushes them at once when a gateway's watchers grew or it says a socket
started watching (``joined``: a new socket has its first view without asking). A player
is connected while any gateway's live set names it. Nothing of this is in the log: it is
what is true now, kept in the owner's memory; a new owner (a failover) knows nobody for
one ``grace`` and counts every human as connected meanwhile, rather than showing players
as gone who are not, until the gateways' next heartbeats have told it. Times are
monotonic seconds, passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

#: The most players one gateway may name for one table (the seats' players are at most
#: four: the rest would be a gateway's bug or a flood).
MAX_PLAYERS: Final = 16
#: The most sockets one gateway may say watch one table.
MAX_WATCHERS: Final = 1_000_000
#: Bounds of an announcement's life, milliseconds.
MIN_TTL_MS: Final = 500
MAX_TTL_MS: Final = 60_000


@dataclass
class Presence:
    """The live sets the gateways announced for one table, and since when this owner
    has listened (``since``: monotonic seconds)."""

    since: float
    grace: float
    gateways: dict[str, tuple[frozenset[str], float]] = field(default_factory=dict)
    #: Each gateway's watchers of the table and until when that count holds.
    watchers: dict[str, tuple[int, float]] = field(default_factory=dict)

    def announce(
        self, gateway: str, players: Iterable[str], ttl: float, now: float, watchers: int = 0
    ) -> bool:
        """``gateway`` holds sockets of ``players`` on the table, and ``watchers`` sockets
        watching it (at least its players'), for ``ttl`` seconds. True when the gateway's
        watchers grew (a new socket there wants the table's views now)."""
        self.gateways[gateway] = (frozenset(players), now + ttl)
        count = max(watchers, len(self.gateways[gateway][0]))
        before, expires = self.watchers.get(gateway, (0, now))
        self.watchers[gateway] = (count, now + ttl)
        return count > (before if expires > now else 0)

    def is_watched(self, now: float) -> bool:
        """Does any socket watch the table (any gateway's unexpired count)? True too while
        this owner has listened less than ``grace``: it cannot know yet."""
        for gw, (count, expires) in list(self.watchers.items()):
            if expires <= now:
                del self.watchers[gw]
            elif count > 0:
                return True
        return now - self.since < self.grace

    def is_connected(self, player: str, now: float) -> bool:
        """Has ``player`` a live socket on the table (any gateway's unexpired set)? True
        too while this owner has listened less than ``grace``: it cannot know yet."""
        for gw, (players, expires) in list(self.gateways.items()):
            if expires <= now:
                del self.gateways[gw]
            elif player in players:
                return True
        return now - self.since < self.grace


def seat_line(
    seat: int, *, human: bool, connected: bool | None, missed: int, autoplay: bool
) -> dict[str, Any]:
    """One seat's entry of ``presence``: ``connected`` is None for a bot's seat."""
    return {
        "seat": seat,
        "human": human,
        "connected": connected if human else None,
        "missed": missed,
        "autoplay": autoplay,
    }
