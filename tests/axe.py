"""axe-core's accessibility check of a page in Chromium (tests/browser.py).

axe-core (Deque's rules engine, the one browsers' own audits build on) is pinned in
package.json and installed by ``make test`` (``npm ci``); its ``axe.min.js`` is put into
the page over CDP, never served by the gateway. Without it the tests that need it skip
saying how to install it, and under ``CI=true`` that skip fails (tests/conftest.py).

Only the violations whose impact is "serious" or "critical" fail a page: those stop
someone from using it (no name on a control, text below the contrast a low-vision reader
needs, a landmark that hides content); "minor" and "moderate" ones are reported by axe's
own tools for a person to weigh.
"""

from __future__ import annotations

import json
from typing import Any

from tests.browser import Page
from tests.node import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: Why the tests that need axe-core skip without it.
MISSING = "axe-core is not installed: run `make test` (npm ci installs it from package.json)"
#: The impacts that fail a page.
FAILING = ("serious", "critical")


def is_installed() -> bool:
    return AXE.is_file()


async def axe(page: Page, drawn: str = "") -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is drawn now: each
    ``{"id", "impact", "help", "targets": [[selector, ...], ...], "summary"}``. Puts
    axe into the page first when this document does not have it yet. ``drawn``: a
    statement run just before the check (in the same task), drawing a state the page is
    in only at some moments."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        # Runtime.evaluate runs outside the page's Content Security Policy.
        await page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = await page.evaluate(
        "(async (failing) => {" + drawn + """;
          const result = await axe.run(document, {resultTypes: ['violations']});
          return result.violations
            .filter(v => failing.includes(v.impact))
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        targets: v.nodes.map(n => n.target),
                        summary: v.nodes[0]?.failureSummary ?? ''}));
        })"""
        f"({json.dumps(list(FAILING))})"
    )
    return found


def to_text(violations: list[dict[str, Any]]) -> str:
    """The violations as lines a person reads: rule, impact, what it asks, where, why."""
    lines = []
    for v in violations:
        where = ", ".join(" ".join(t) for t in v["targets"][:5])
        more = f" (+{len(v['targets']) - 5} more)" if len(v["targets"]) > 5 else ""
        summary = " ".join(v["summary"].split())
        lines.append(f"{v['id']} [{v['impact']}] {v['help']}: {where}{more}: {summary}")
    return "\n".join(lines)
