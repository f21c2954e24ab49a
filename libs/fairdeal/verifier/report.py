"""The verifier's report: what each check says, and how it says what differs.

A check ends in one of three ways, and the report keeps them apart: ``pass``; ``fail``,
naming each :class:`Difference` (where, what, recorded against expected); ``skip``, when
what it needs failed or is missing. A skip is not a pass: :attr:`Report.ok` is true only
when every check passed, so a verifier that could not look (no BLS function, a deck
that could not be recomputed) never reads as one that looked and found nothing.

The types are frozen and hold JSON-ready values, so a report is the same document
wherever it is made: the verify API returns :meth:`Report.to_json`, ``belot verify``
prints it, and the checks the transparency log adds (``commands.logcheck``) and the
whole log's (:mod:`fairdeal.verifier.wholelog`) are :class:`Check` values alike.

A check lists at most :data:`MAX_DIFFERENCES` differences (a tampered deck differs in
every card after the first; the first few say it), and :func:`diff_json` stops at
:data:`MAX_DIFF_DEPTH`: a record comes from anyone, and one nested absurdly deep must
not exhaust the stack of the service that checks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

REPORT_FORMAT: Final = "belot-match-verification/1"
PASS: Final = "pass"
FAIL: Final = "fail"
SKIP: Final = "skip"
#: At most this many differences are listed per check.
MAX_DIFFERENCES: Final = 20


@dataclass(frozen=True, slots=True)
class Difference:
    """What differs, and where: ``recorded`` is what the record says, ``expected`` what
    it should say (either may be None when the text says it all)."""

    where: str
    what: str
    recorded: Any = None
    expected: Any = None

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "what": self.what,
            "recorded": self.recorded,
            "expected": self.expected,
        }


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # PASS, FAIL or SKIP
    detail: str
    differences: tuple[Difference, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == PASS

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "differences": [d.to_json() for d in self.differences],
        }


class Checked:
    """What a report of named checks answers (a match's, :class:`Report`; a tournament
    draw's, ``fairdeal.drawcheck.DrawReport``): the class has a ``checks`` tuple."""

    __slots__ = ()
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """Every check passed (a skipped check is not a pass)."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status == FAIL)

    @property
    def skipped(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.status == SKIP)

    def check(self, name: str) -> Check:
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError  # each report says what it holds


@dataclass(frozen=True, slots=True)
class Report(Checked):
    match_id: str
    checks: tuple[Check, ...]
    #: True: dealt with a verified drand value; False: dealt without drand (fallback);
    #: None: the record does not say.
    dealt_with_drand: bool | None
    drand_round: int | None
    fallback_reason: str | None
    bls_checked: bool

    def with_check(self, check: Check) -> Report:
        """This report with one more check (``belot verify --drand-url`` adds one)."""
        return Report(
            self.match_id,
            (*self.checks, check),
            self.dealt_with_drand,
            self.drand_round,
            self.fallback_reason,
            self.bls_checked,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "match_id": self.match_id,
            "ok": self.ok,
            "dealt_with_drand": self.dealt_with_drand,
            "drand_round": self.drand_round,
            "fallback_reason": self.fallback_reason,
            "bls_checked": self.bls_checked,
            "failed": list(self.failed),
            "skipped": list(self.skipped),
            "checks": [c.to_json() for c in self.checks],
        }


def pass_check(name: str, detail: str) -> Check:
    return Check(name, PASS, detail)


def skip_check(name: str, detail: str) -> Check:
    return Check(name, SKIP, detail)


def verdict(name: str, problems: Sequence[Difference], ok: str, bad: str) -> Check:
    """``name`` passes, saying ``ok``, when there are no ``problems``; else it fails,
    saying ``bad`` and the first problem, with the first :data:`MAX_DIFFERENCES` listed."""
    if not problems:
        return Check(name, PASS, ok)
    shown = tuple(problems[:MAX_DIFFERENCES])
    more = len(problems) - len(shown)
    suffix = f" ({more} more not listed)" if more > 0 else ""
    return Check(name, FAIL, f"{bad}: {problems[0].where}: {problems[0].what}{suffix}", shown)


#: A summary nests about 6 levels deep; a record nested far deeper is not compared
#: further (and cannot exhaust the stack).
MAX_DIFF_DEPTH: Final = 32


def diff_json(
    where: str, recorded: Any, expected: Any, out: list[Difference], depth: int = 0
) -> None:
    """Append the differences between two JSON values, path by path."""
    if len(out) >= MAX_DIFFERENCES:
        return
    if depth > MAX_DIFF_DEPTH:
        out.append(Difference(where, "nested far deeper than a record is"))
        return
    if isinstance(recorded, dict) and isinstance(expected, dict):
        for key in sorted(set(recorded) | set(expected), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in recorded:
                out.append(Difference(path, "missing from the record", None, expected[key]))
            elif key not in expected:
                out.append(Difference(path, "not derived from the events", recorded[key], None))
            else:
                diff_json(path, recorded[key], expected[key], out, depth + 1)
        return
    if isinstance(recorded, list) and isinstance(expected, list):
        if len(recorded) != len(expected):
            out.append(
                Difference(
                    where,
                    f"{len(recorded)} items where the events give {len(expected)}",
                    len(recorded),
                    len(expected),
                )
            )
        for i, (a, b) in enumerate(zip(recorded, expected, strict=False)):
            diff_json(f"{where}[{i}]", a, b, out, depth + 1)
        return
    if type(recorded) is not type(expected) or recorded != expected:
        out.append(Difference(where, "differs from what the events say", recorded, expected))
