"""A stand-in for the NATS client where a test drives a component's callbacks itself."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class FakeNats:
    """What the hub asks of NATS: subscriptions (kept by subject), a flush, its stats."""

    def __init__(self) -> None:
        self.stats = {"reconnects": 0}
        self.is_connected = True
        self.subscribed: dict[str, Any] = {}
        self.flushed = 0

    async def subscribe(self, subject: str, cb: Any) -> Any:
        assert subject not in self.subscribed, f"{subject} subscribed twice"
        self.subscribed[subject] = cb

        async def unsubscribe() -> None:
            del self.subscribed[subject]

        return SimpleNamespace(unsubscribe=unsubscribe)

    async def flush(self, timeout: float = 10.0) -> None:
        self.flushed += 1
