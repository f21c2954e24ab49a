"""A stand-in for the NATS client where a test drives a component's callbacks itself."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import orjson


class FakeNats:
    """What the hub and a table worker ask of NATS: subscriptions (kept by subject),
    publishes (kept in order, the body as JSON), a flush, its stats; no JetStream."""

    def __init__(self) -> None:
        self.stats = {"reconnects": 0}
        self.is_connected = True
        self.subscribed: dict[str, Any] = {}
        self.flushed = 0
        self.published: list[tuple[str, Any]] = []

    def jetstream(self) -> None:
        return None

    async def publish(self, subject: str, data: bytes) -> None:
        self.published.append((subject, orjson.loads(data)))

    async def subscribe(self, subject: str, cb: Any) -> Any:
        assert subject not in self.subscribed, f"{subject} subscribed twice"
        self.subscribed[subject] = cb

        async def unsubscribe() -> None:
            del self.subscribed[subject]

        return SimpleNamespace(unsubscribe=unsubscribe)

    async def flush(self, timeout: float = 10.0) -> None:
        self.flushed += 1
