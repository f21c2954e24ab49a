"""The table's owner pushes its state only while a socket watches the table: a bot table
nobody watches makes and sends nothing (services.table.worker publish_state), and the
first push after a silence says the last version it sent as ``since``."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from services.table.worker import TableWorker
from tests.fakenats import FakeNats


def owner() -> tuple[TableWorker, list[tuple[str, dict[str, Any]]]]:
    nc = FakeNats()
    return TableWorker(nc, store=None, prefix="p"), nc.published  # type: ignore[arg-type]


def table(watched: list[bool]) -> SimpleNamespace:
    """What publish_state reads of a table: an open one at table version 3, no match."""
    t = SimpleNamespace(
        id="t1", pushed=0, presence_said=None, table_version=3, match_version=0, match=None,
        status="open", ending=None, state=SimpleNamespace(match_id=None, seats=[]),
    )  # fmt: skip
    t.watched = lambda: watched[0]
    t.presence_lines = lambda: [{"seat": 0, "connected": watched[0]}]
    t.deadline_ms = lambda: None
    t.reply = lambda seat: {"table": {"table_id": "t1"}, "seat": seat}
    t.connected_seats = lambda: []
    return t


def test_a_table_nobody_watches_pushes_nothing() -> None:
    worker, sent = owner()
    watched = [False]
    t = table(watched)
    asyncio.run(worker.publish_state(t))  # type: ignore[arg-type]
    assert sent == []
    # Its presence is noted all the same: the presence sweep does not call again for it.
    assert t.presence_said == [{"seat": 0, "connected": False}] and t.pushed == 0
    t.table_version = 5
    watched[0] = True
    asyncio.run(worker.publish_state(t))  # type: ignore[arg-type]
    [(subject, body)] = sent
    assert subject == "p.tables.t1"
    assert (body["version"], body["since"]) == (5, 0)  # since: the last version sent
    assert body["reply"] == {"table": {"table_id": "t1"}, "seat": None}
