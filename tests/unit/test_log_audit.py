"""``belot log audit``'s reading of the entries (commands/log_audit.py): what the
entries alone show, without the network."""

from __future__ import annotations

from dataclasses import replace

from commands.log_audit import audit_entries
from fairdeal import logentries

REF = logentries.EventRef("randomness-x", 1, bytes(32), "2026-01-02T00:00:00.000000Z")


def test_the_audit_finds_a_round_not_followed() -> None:
    named = [
        logentries.RoundNamed(replace(REF, stream=f"randomness-{m}"), m, "quicknet", 7, 9)
        for m in "ab"
    ]
    missed = logentries.RoundMissed(
        replace(REF, stream="drand-quicknet-7"), "quicknet", 7, 9, "late"
    )
    ends = [logentries.Ending(replace(REF, stream=f"match-{m}"), m, "MatchEnded", ()) for m in "ab"]
    fallback_b = logentries.Fallback(replace(REF, stream="randomness-b"), "b", 7, "late")
    audit = audit_entries([*named, missed, fallback_b, *ends])
    assert audit.findings == [
        "match a named quicknet round 7, which was declared missed, and did not fall back"
    ]
    other = audit_entries([named[0], logentries.Fallback(REF, "a", 7, "late"), ends[0]])
    assert other.findings == ["match a fell back on quicknet round 7, which nobody declared missed"]
    assert other.to_json()["days"]["2026-01-02"]["fallback_rate"] == 1.0


def test_a_reused_commitment_and_the_daily_rates() -> None:
    c = [
        logentries.Commitment(replace(REF, stream=f"randomness-{m}"), m, b"c" * 32, (), "q", 0, 1)
        for m in "ab"
    ]
    aborted = logentries.Ending(replace(REF, stream="match-a"), "a", "MatchAborted", ())
    ended = logentries.Ending(replace(REF, stream="match-b"), "b", "MatchEnded", ())
    audit = audit_entries([*c, aborted, ended])
    assert audit.findings == [f"commitment {(b'c' * 32).hex()} used 2 times: by a, b"]
    assert audit.to_json()["days"]["2026-01-02"]["abort_rate"] == 0.5
