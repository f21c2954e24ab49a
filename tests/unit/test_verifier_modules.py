"""The verifier's modules (``libs/fairdeal/verifier/``): each check is a function of the
family module whose docstring says what it requires and why, ``fairdeal.verifier`` runs
them in the report's order and lists them in that order, and docs/verifying.md's table
of checks follows the same order."""

from __future__ import annotations

import sys
from pathlib import Path

import fairdeal.verifier
from fairdeal.verifier import CHECK_FUNCTIONS, CHECKS, wholelog

ROOT = Path(__file__).resolve().parents[2]


def test_each_check_is_a_function_of_a_family_module_whose_docstring_names_it() -> None:
    for name, check in CHECK_FUNCTIONS.items():
        module = sys.modules[check.__module__]
        assert module.__name__.startswith("fairdeal.verifier."), name
        assert check.__name__ == f"check_{name}"
        assert module.__doc__ is not None and f"``{name}``" in module.__doc__, (
            f"{module.__name__}'s docstring does not say what {name} checks"
        )


def test_the_checks_run_in_the_order_the_orchestration_lists_them() -> None:
    doc = fairdeal.verifier.__doc__
    assert doc is not None
    places = [doc.find(f"``{name}``") for name in CHECKS]
    assert -1 not in places, [n for n, p in zip(CHECKS, places, strict=True) if p == -1]
    assert places == sorted(places)
    assert list(CHECKS) == list(CHECK_FUNCTIONS)


def test_the_whole_logs_checks_are_named_in_their_module() -> None:
    assert wholelog.__doc__ is not None
    for name in wholelog.PLATFORM_CHECKS:
        assert f"``{name}``" in wholelog.__doc__
    assert not set(wholelog.PLATFORM_CHECKS) & set(CHECKS)


def test_the_verifying_page_lists_the_checks_in_the_reports_order() -> None:
    page = (ROOT / "docs" / "verifying.md").read_text(encoding="utf-8")
    section = page.split("\n## The checks\n", 1)[1].split("\n## ", 1)[0]
    rows = [
        line.split("|")[1].strip().strip("`")
        for line in section.splitlines()
        if line.startswith("| `")
    ]
    assert rows == list(CHECKS)
