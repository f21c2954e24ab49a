"""Reading a match's record from the event log, as the public may see it.

Until the match's own stream holds a public ending event (``MatchEnded``,
``MatchForfeited``, ``MatchAborted``), only public events are read from its stream, and
from the fair deal's the public ones until the seed window's close shows every seat's
seed: no deck, no seat's cards, no seat's seed before the window closes, no server seed
(it is not in the log yet anyway), and no hash of either stream while it hides something
(``EventStore.read_stream_as``: the hashes are a test of every guess at what is hidden).
Once it has ended, both streams are read whole. The round
the match named has its own public stream (``drand-<chain>-<round>``, shared by every
match that named it), read whole: its one fact is public from the start.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

from eventkit.streams import SEEDS_SHOWN
from eventlog import EventStore, Viewer
from fairdeal.record import (
    ENDING_EVENTS,
    build_record,
    drand_stream_of,
    is_match_id,
    match_stream,
    randomness_stream,
    record_digest,
)

#: Cache-Control of a finished match whose seed is revealed: its events no longer change
#: (a drand value that comes after a fallback is the one rare late addition, hence an
#: hour and revalidation by ETag rather than "immutable").
FINISHED_CACHE: Final = "public, max-age=3600"
#: A match in progress, or ended and waiting for its reveal: always revalidate.
LIVE_CACHE: Final = "no-cache"


@dataclass(frozen=True, slots=True)
class LoadedMatch:
    match_id: str
    record: dict[str, Any]
    ended: bool
    revealed: bool
    digest: str

    @property
    def finished(self) -> bool:
        """Ended and its server seed revealed: the record can be verified."""
        return self.ended and self.revealed

    @property
    def cache_control(self) -> str:
        return FINISHED_CACHE if self.finished else LIVE_CACHE

    def etag(self, kind: str) -> str:
        """A strong ETag for one representation (``view``, ``record``, ``verification``)
        of these events: any new event visible here changes it."""
        tag = hashlib.sha256(f"{kind}|{self.digest}".encode()).hexdigest()[:40]
        return f'"{tag}"'


async def load_match(store: EventStore, match_id: str) -> LoadedMatch | None:
    """The record of ``match_id`` as the public may see it now, or None if no such match.
    The caller has checked the id with :func:`fairdeal.record.is_match_id`."""
    assert is_match_id(match_id)
    match = await store.read_stream_as(
        match_stream(match_id), Viewer.public(), ended_by=sorted(ENDING_EVENTS)
    )
    if not match:
        return None
    ended = any(e.type in ENDING_EVENTS and e.visibility == "public" for e in match)
    if ended:
        fair = await store.read_stream(randomness_stream(match_id))
    else:
        fair = await store.read_stream_as(
            randomness_stream(match_id), Viewer.public(), ended_by=SEEDS_SHOWN
        )
    fair_json = [e.to_json_dict() for e in fair]
    drand = drand_stream_of(fair_json)
    round_events = [] if drand is None else await store.read_stream(drand)
    record = build_record(
        match_id,
        [e.to_json_dict() for e in match],
        fair_json,
        [e.to_json_dict() for e in round_events],
    )
    revealed = any(e.type == "ServerSeedRevealed" for e in fair)
    return LoadedMatch(match_id, record, ended, revealed, record_digest(record))


def if_none_match(header: str | None, etag: str) -> bool:
    """Does an ``If-None-Match`` header name ``etag`` (weak comparison, RFC 9110 13.1.2)?"""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    for candidate in header.split(","):
        c = candidate.strip()
        if c.startswith("W/"):
            c = c[2:]
        if c == etag:
            return True
    return False
