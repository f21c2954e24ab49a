"""``belot run``'s children each get only their own database URLs: their role's
``BELOT_PG_DSN``, and verify alone its read URL (``BELOT_VERIFY_READ_DSN``); no child
sees the role passwords ``belot db setup`` read."""

from __future__ import annotations

import pytest

from belot_platform.settings import Settings
from services.run import Supervisor


def test_only_verify_gets_the_read_url_and_each_child_its_own_role(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = "postgresql://belot_verify:p0123456789abcdef@replica:5432/belot"
    monkeypatch.setenv("BELOT_VERIFY_READ_DSN", read)
    monkeypatch.setenv("BELOT_PG_TABLE_PASSWORD", "p0123456789abcdef-table")
    settings = Settings(pg_dsn="postgresql://admin@primary/belot", nats_url="nats://n:4222")
    supervisor = Supervisor(settings, table_workers=1)
    supervisor.role_dsns = {
        "verify": "postgresql://belot_verify:p0123456789abcdef@primary/belot",
        "table": "postgresql://belot_table:p0123456789abcdef-table@primary/belot",
    }
    children = {c.name: c.env for c in supervisor.plan()}
    assert children["verify"]["BELOT_VERIFY_READ_DSN"] == read
    assert children["verify"]["BELOT_PG_DSN"] == supervisor.role_dsns["verify"]
    assert children["table-1"]["BELOT_PG_DSN"] == supervisor.role_dsns["table"]
    others = {name: env for name, env in children.items() if name != "verify"}
    assert others and all("BELOT_VERIFY_READ_DSN" not in env for env in others.values())
    assert all("BELOT_PG_TABLE_PASSWORD" not in env for env in children.values())


def test_without_a_read_url_verify_gets_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELOT_VERIFY_READ_DSN", raising=False)
    settings = Settings(pg_dsn="postgresql://admin@primary/belot", nats_url="nats://n:4222")
    children = {c.name: c.env for c in Supervisor(settings, table_workers=1).plan()}
    assert "verify" in children
    assert all("BELOT_VERIFY_READ_DSN" not in env for env in children.values())
