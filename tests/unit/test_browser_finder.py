"""The browser tests find Chromium where Debian puts it, or where BELOT_CHROMIUM says, and
skip only when there is none."""

from __future__ import annotations

from pathlib import Path

from tests.browser import chromium_path


def executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_found_where_configured_or_where_debian_puts_it(tmp_path: Path) -> None:
    configured = executable(tmp_path / "my-chromium")
    debian = executable(tmp_path / "chromium")
    none = lambda name: None  # noqa: E731
    assert chromium_path({"BELOT_CHROMIUM": str(configured)}, str(debian), none) == configured
    assert chromium_path({}, str(debian), none) == debian
    on_path = executable(tmp_path / "elsewhere")
    assert chromium_path({}, str(tmp_path / "absent"), lambda name: str(on_path)) == on_path


def test_none_when_absent_or_not_executable(tmp_path: Path) -> None:
    plain = tmp_path / "chromium"
    plain.write_text("not a program", encoding="utf-8")
    none = lambda name: None  # noqa: E731
    missing = {"BELOT_CHROMIUM": str(tmp_path / "nope")}
    assert chromium_path(missing, str(tmp_path / "x"), none) is None
    assert chromium_path({}, str(plain), none) is None
