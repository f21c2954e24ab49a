"""A match record analysed double-dummy (:func:`belot.analysis.analyse` over the record's
match events), after the record is verified: a record that fails a check (a deck that is
not the recipe's, a card the rules refuse, a score that does not add up) is not
analysed, since its cards are not the match's. ``belot analyse`` and the verify API's
analysis job (``services/verify``) both go through :func:`analyse_record`, so the two give
the same analysis of the same record.
"""

from __future__ import annotations

from typing import Any

from belot.analysis import MatchAnalysis, analyse
from belot.events import Event, MatchEnded, MatchStarted
from belot.ruleset import RULESETS
from fairdeal.record import RecordError, decode, parse_record
from fairdeal.verifier import verify_record
from fairdeal.verifier.context import BlsCheck
from fairdeal.verifier.report import Report


class AnalysisError(ValueError):
    """A record that cannot be analysed; ``code`` is stable (``not_a_record``,
    ``not_verified``, ``match_not_ended``), the message plain words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def analyse_record(
    doc: Any, *, bls: BlsCheck | None = None, report: Report | None = None
) -> MatchAnalysis:
    """The analysis of the record ``doc`` (format belot-match-record/1). ``report``: the
    record's verification when the caller has it already (the verify API), else it is
    verified here (with ``bls``, drand's signature check). Raises :class:`AnalysisError`."""
    try:
        record = parse_record(doc)
    except RecordError as exc:
        raise AnalysisError("not_a_record", f"not a match record: {exc}") from None
    if report is None:
        report = verify_record(doc, bls=bls)
    if report.failed:
        raise AnalysisError(
            "not_verified",
            f"the record does not verify (failed: {', '.join(report.failed)}): its cards "
            "are not the match's, so they are not analysed",
        )
    decoded = decode(record.match.events, ())
    events = [item for _, item in decoded.match if isinstance(item, Event)]
    if not events or not isinstance(events[0], MatchStarted):
        raise AnalysisError("not_a_record", "the match stream does not start with MatchStarted")
    if not isinstance(events[-1], MatchEnded) and len(events) == len(decoded.match):
        raise AnalysisError("match_not_ended", "the match has not ended: nothing to analyse yet")
    ruleset = RULESETS.get(events[0].ruleset)
    if ruleset is None:
        raise AnalysisError("not_a_record", f"unknown ruleset {events[0].ruleset!r}")
    return analyse(ruleset, events)
