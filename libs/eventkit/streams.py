"""The event log's streams, named in one place: each kind's prefix, the function that
names one, and the events after which a match is over.

| stream | written by | holds |
| --- | --- | --- |
| ``table-<table id>`` | table | the table's own events (``table.events``) |
| ``match-<match id>`` | table | the game core's events, then at most one table-level ending |
| ``randomness-<match id>`` | randomness | the match's fair deal (``fairdeal.fairness``) |
| ``drand-<chain>-<round>`` | randomness | the one public fact about a drand round |
| ``tournament-<id>`` | tournament | the core's events and the service's own |
| ``rating-<pool>`` | rating | the verdicts on finished matches |

Who may append to which, and read what, follows these prefixes too
(``commands.db``'s roles). A stream's name never changes meaning: a reader of an old log
must find every fact where it was written.
"""

from __future__ import annotations

from typing import Final

TABLE: Final = "table-"
MATCH: Final = "match-"
RANDOMNESS: Final = "randomness-"
DRAND: Final = "drand-"
TOURNAMENT: Final = "tournament-"
RATING: Final = "rating-"

#: The events after which ``match-<id>`` holds nothing more: the core's ``MatchEnded``,
#: and the table's ``MatchForfeited`` (a seat left) and ``MatchAborted``. Its server seed
#: may be revealed then, and every private event of it is shown.
MATCH_ENDINGS: Final = frozenset({"MatchEnded", "MatchForfeited", "MatchAborted"})
#: The event after which ``randomness-<match id>`` hides nothing: the window's close shows
#: every seat's seed (docs/specification.md §6.2), so each seat's own receipt of its seed
#: is no longer private either.
SEEDS_SHOWN: Final = frozenset({"SeedWindowClosed"})


def opened_by(stream: str) -> frozenset[str]:
    """The public events after which ``stream`` hides nothing from anyone (its private
    and secret events shown, their hashes served: :meth:`eventlog.EventStore.read_stream_as`);
    none for a stream that hides nothing."""
    if stream.startswith(MATCH):
        return MATCH_ENDINGS
    if stream.startswith(RANDOMNESS):
        return SEEDS_SHOWN
    return frozenset()


def table_stream(table_id: str) -> str:
    return f"{TABLE}{table_id}"


def match_stream(match_id: str) -> str:
    return f"{MATCH}{match_id}"


def randomness_stream(match_id: str) -> str:
    return f"{RANDOMNESS}{match_id}"


def drand_stream(chain: str, round_: int) -> str:
    """The stream holding the one public fact about a drand round."""
    return f"{DRAND}{chain}-{round_}"


def tournament_stream(tournament_id: str) -> str:
    return f"{TOURNAMENT}{tournament_id}"


def rating_stream(pool: str) -> str:
    return f"{RATING}{pool}"


def id_in(stream: str, prefix: str) -> str | None:
    """What ``stream`` names after ``prefix`` (a match id, a table id...), or None when
    it is not a stream of that kind."""
    return stream[len(prefix) :] if stream.startswith(prefix) else None
