"""What every subscription of the log has in common: its events one by one, from its
reads (``batches``), whichever store it reads."""

from __future__ import annotations

from collections.abc import AsyncIterator

from eventlog.envelope import RecordedEvent


class OneByOne:
    """``async for event in sub``: a subscription's reads, event after event. A subclass
    gives ``batches()`` (the events as read) and keeps ``position`` (the last position
    read); while a read is handed out, ``position`` is the last event delivered."""

    position: int

    def batches(self) -> AsyncIterator[list[RecordedEvent]]:
        raise NotImplementedError

    def __aiter__(self) -> AsyncIterator[RecordedEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[RecordedEvent]:
        async for batch in self.batches():
            end = self.position
            for event in batch:
                self.position = event.position
                yield event
            self.position = end
